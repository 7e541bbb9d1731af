"""Installing a copy of this source tree into a fresh venv, offline: the
dependencies (and pip, setuptools) come from this interpreter's
site-packages, so nothing is downloaded; worldgen itself is installed as
pip installs it, built by the project's own backend."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).parents[1]
# What a build reads beside src/: the project's files, its build backend.
FILES = ("pyproject.toml", "README.md", "MANIFEST.in", "package.json", "package-lock.json")


@dataclass(frozen=True)
class Installed:
    source: pathlib.Path  # the copy of the tree that was installed
    venv: pathlib.Path
    env: dict[str, str]  # the environment to run the venv's programs in

    @property
    def bin(self) -> pathlib.Path:
        return self.venv / "bin"


def install_copy(
    tmp_path: pathlib.Path,
    *,
    editable: bool,
    settings: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> Installed:
    """Copy the tree (without caches) to ``tmp_path / "source"`` and
    ``pip install`` it, editable or not, into a new venv at ``tmp_path /
    "venv"`` with the config ``settings``; ``env`` adds to the install's
    and the returned environment."""
    source = tmp_path / "source"
    source.mkdir()
    for name in FILES:
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "build_backend", source / "build_backend")
    shutil.copytree(
        ROOT / "src",
        source / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.nbi", "*.nbc"),
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = sysconfig.get_paths()["purelib"]
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "_deps.pth").write_text(purelib + "\n")
    bindir = venv / "bin"
    environment = {
        "PATH": str(bindir),
        "HOME": str(tmp_path),
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        **(env or {}),
    }
    argv = [str(bindir / "python"), "-m", "pip", "install", "--no-deps", "--no-build-isolation"]
    for key, value in (settings or {}).items():
        argv += ["--config-settings", f"{key}={value}"]
    done = subprocess.run(
        [*argv, "-q", *(["-e", str(source)] if editable else [str(source)])],
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return Installed(source, venv, environment)
