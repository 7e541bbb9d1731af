"""Refresh the explorer page's browser libraries from npm.

The page loads MapLibre GL JS and three.js from
``src/worldgen/web/static/vendor``; the copies are committed, so installing
worldgen needs no Node.js. ``package.json`` and ``package-lock.json`` pin
them. After changing a version there (``npm install maplibre-gl@X
--package-lock-only``), run::

    python scripts/refresh_vendor.py            # rewrite the copies and manifest.json
    python scripts/refresh_vendor.py --check    # only compare (exit 1 on a difference)

For each pinned package it fetches the tarball with ``npm pack`` (npm's
cache or registry), checks the tarball's SHA-512 against the lockfile's
``integrity``, takes the few files the page loads (and the licence) and
writes them with ``vendor/manifest.json``: each package's version and
integrity, and each file's SHA-256. ``tests/web/test_vendor.py`` holds the
committed copies to that manifest and the manifest to the lockfile.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
VENDOR = ROOT / "src" / "worldgen" / "web" / "static" / "vendor"
MANIFEST = VENDOR / "manifest.json"
# package -> {path in its tarball: path under vendor/}
FILES = {
    "maplibre-gl": {
        "dist/maplibre-gl.mjs": "maplibre-gl/maplibre-gl.mjs",
        "dist/maplibre-gl-worker.mjs": "maplibre-gl/maplibre-gl-worker.mjs",
        "dist/maplibre-gl-shared.mjs": "maplibre-gl/maplibre-gl-shared.mjs",
        "dist/maplibre-gl.css": "maplibre-gl/maplibre-gl.css",
        "LICENSE.txt": "maplibre-gl/LICENSE.txt",
    },
    "three": {
        "build/three.module.js": "three/three.module.js",
        "build/three.core.js": "three/three.core.js",
        "examples/jsm/controls/OrbitControls.js": "three/OrbitControls.js",
        "LICENSE": "three/LICENSE",
    },
}


def pinned(lock_path: pathlib.Path = ROOT / "package-lock.json") -> dict[str, dict[str, str]]:
    """``{package: {"version", "integrity"}}`` of the vendored packages, from the lockfile."""
    packages = json.loads(lock_path.read_text())["packages"]
    return {
        name: {k: packages[f"node_modules/{name}"][k] for k in ("version", "integrity")}
        for name in FILES
    }


def sri_sha512(data: bytes) -> str:
    """A Subresource Integrity string, as npm's lockfile records a tarball."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def unpack(name: str, version: str, integrity: str, into: pathlib.Path, offline: bool) -> dict:
    """Fetch ``name@version`` with npm pack, check it, copy its files under
    ``into``; returns the package's manifest entry."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("refresh_vendor: npm (Node.js) is needed to fetch the tarballs")
    with tempfile.TemporaryDirectory() as tmp:
        argv = [npm, "pack", f"{name}@{version}", "--pack-destination", tmp, "--json"]
        done = subprocess.run(
            [*argv, *(["--offline"] if offline else [])],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            sys.exit(f"refresh_vendor: npm pack {name}@{version} failed: {done.stderr.strip()}")
        tarball = pathlib.Path(tmp) / json.loads(done.stdout)[0]["filename"]
        data = tarball.read_bytes()
        if sri_sha512(data) != integrity:
            sys.exit(f"refresh_vendor: {tarball.name} does not match package-lock.json's integrity")
        files = {}
        with tarfile.open(tarball) as archive:
            for inside, target in FILES[name].items():
                content = archive.extractfile(f"package/{inside}").read()
                (into / target).parent.mkdir(parents=True, exist_ok=True)
                (into / target).write_bytes(content)
                files[inside] = {"path": target, "sha256": hashlib.sha256(content).hexdigest()}
    return {"version": version, "integrity": integrity, "files": files}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only, write nothing")
    parser.add_argument("--offline", action="store_true", help="use npm's cache only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fresh = pathlib.Path(tmp)
        manifest = {
            "about": "Files of the explorer page's npm packages, made by scripts/refresh_vendor.py "
            "from the tarballs pinned in package-lock.json; do not edit.",
            "packages": {
                name: unpack(name, pin["version"], pin["integrity"], fresh, args.offline)
                for name, pin in pinned().items()
            },
        }
        text = json.dumps(manifest, indent=2) + "\n"
        if args.check:
            wrong = [
                entry["path"]
                for package in manifest["packages"].values()
                for entry in package["files"].values()
                if not (VENDOR / entry["path"]).is_file()
                or (VENDOR / entry["path"]).read_bytes() != (fresh / entry["path"]).read_bytes()
            ]
            if not MANIFEST.is_file() or MANIFEST.read_text() != text:
                wrong.append("manifest.json")
            if wrong:
                sys.exit(f"refresh_vendor: differ from the pinned tarballs: {', '.join(wrong)}")
            print("vendor/ matches package-lock.json")
            return
        for name in FILES:
            shutil.rmtree(VENDOR / name, ignore_errors=True)
        shutil.copytree(fresh, VENDOR, dirs_exist_ok=True)
        MANIFEST.write_text(text)
        print(f"wrote {VENDOR.relative_to(ROOT)} from package-lock.json")


if __name__ == "__main__":
    main()
