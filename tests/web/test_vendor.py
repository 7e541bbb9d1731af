"""The page's browser libraries ship inside the package: the committed copies
are the files of the tarballs that ``package-lock.json`` pins, and a plain
``pip install`` (no Node.js anywhere) gives a server that serves every one."""

import hashlib
import json
import pathlib
import re
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request

import pytest

from tests.installing import install_copy
from tests.web.serving import served
from worldgen.web._app import STATIC

ROOT = pathlib.Path(__file__).parents[2]
VENDOR = STATIC / "vendor"
MANIFEST = json.loads((VENDOR / "manifest.json").read_text())
LOCK = json.loads((ROOT / "package-lock.json").read_text())["packages"]


def test_manifest_pins_the_lockfiles_tarballs():
    assert set(MANIFEST["packages"]) == {"maplibre-gl", "three"}
    for name, package in MANIFEST["packages"].items():
        locked = LOCK[f"node_modules/{name}"]
        assert package["version"] == locked["version"], name
        assert package["integrity"] == locked["integrity"], name
        assert package["integrity"].startswith("sha512-")
    declared = json.loads((ROOT / "package.json").read_text())["dependencies"]
    assert {n: p["version"] for n, p in MANIFEST["packages"].items()} == declared


def test_committed_copies_are_the_manifests_files_and_nothing_else():
    listed = {}
    for package in MANIFEST["packages"].values():
        for entry in package["files"].values():
            listed[entry["path"]] = entry["sha256"]
    on_disk = {
        p.relative_to(VENDOR).as_posix()
        for p in VENDOR.rglob("*")
        if p.is_file() and p.name != "manifest.json"
    }
    assert on_disk == set(listed)
    for path, digest in listed.items():
        assert hashlib.sha256((VENDOR / path).read_bytes()).hexdigest() == digest, path
    # Each package ships its licence.
    assert {p.split("/")[0] for p in listed if "LICENSE" in p} == {"maplibre-gl", "three"}


def page_urls(read) -> set[str]:
    """Every /static URL the page loads, following the imports of its own
    modules: ``read(url) -> text``."""
    html = read("/")
    found = set(re.findall(r'(?:src|href)="(/static/[^"]+)"', html))
    importmap = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    found |= set(json.loads(importmap.group(1))["imports"].values())
    todo = [u for u in found if u.startswith("/static/js/")]
    while todo:
        url = todo.pop()
        for spec in re.findall(r"""from\s+['"]([^'"]+)['"]""", read(url)):
            if spec == "three":
                continue  # the import map's
            target = urllib.parse.urljoin(url, spec)
            if target not in found:
                found.add(target)
                if target.startswith("/static/js/"):
                    todo.append(target)
    return found


def test_every_vendor_file_the_page_loads_is_shipped():
    def read(url):
        path = "index.html" if url == "/" else url.removeprefix("/static/")
        return (STATIC / path).read_text()

    urls = page_urls(read)
    assert any("maplibre-gl.mjs" in u for u in urls) and any("three.module" in u for u in urls)
    for url in urls:
        assert (STATIC / url.removeprefix("/static/")).is_file(), url
    # The modules' own relative imports (three.module.js -> three.core.js).
    for url in [u for u in urls if u.startswith("/static/vendor/")]:
        text = (STATIC / url.removeprefix("/static/")).read_text()
        for spec in re.findall(r"""from\s*['"](\./[^'"]+)['"]""", text):
            assert (STATIC / urllib.parse.urljoin(url, spec).removeprefix("/static/")).is_file()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is needed to fetch the tarballs")
def test_copies_equal_the_pinned_tarballs_from_npm():
    """Refetch the tarballs (npm's cache only), check them against the
    lockfile and the copies against them."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "refresh_vendor.py"), "--check", "--offline"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if "npm pack" in done.stderr and "failed" in done.stderr:
        pytest.skip(f"the tarballs are not in npm's cache: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr
    assert "matches" in done.stdout


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200, url
        return response.read()


@pytest.mark.slow
@pytest.mark.parametrize("editable", [False, True], ids=["install", "editable"])
def test_pip_installs_without_node_and_the_page_loads_every_script(tmp_path, editable):
    """``pip install .`` and ``pip install -e .`` in a fresh venv whose PATH
    has no node or npm, then ``worldgen serve``: every file the page loads
    is served, byte for byte the shipped one."""
    # The kernels are not compiled at install: nothing here runs them.
    installed = install_copy(
        tmp_path,
        editable=editable,
        settings={"compile": "no"},
        env={"NUMBA_CACHE_DIR": str(tmp_path / "numba")},
    )
    env, bindir, source, venv = installed.env, installed.bin, installed.source, installed.venv
    assert shutil.which("npm", path=env["PATH"]) is None
    assert shutil.which("node", path=env["PATH"]) is None
    python = str(bindir / "python")
    where = subprocess.run(
        [python, "-c", "import worldgen.web._app as a; print(a.STATIC)"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.strip()
    static = pathlib.Path(where)
    assert static.is_relative_to(source if editable else venv), static
    with served([str(bindir / "worldgen"), "serve", "--port", "0"], env=env) as (_, address):
        base = "http://{}:{}".format(*address)

        def read(url):
            return _fetch(base + url).decode()

        urls = page_urls(read)
        shipped = {
            f"/static/vendor/{e['path']}"
            for p in MANIFEST["packages"].values()
            for e in p["files"].values()
            if e["path"].endswith((".js", ".mjs", ".css"))
        }
        for url in urls | shipped:
            assert _fetch(base + url) == (STATIC / url.removeprefix("/static/")).read_bytes(), url
