"""worldgen's build backend: setuptools', and an editable install that
compiles the kernels of a first ``worldgen terrain`` before it ends.

numba compiles each kernel at its first call and caches the machine code
beside the sources (``__pycache__``), keyed by the source file's time and
size, numba's version and the CPU. An editable install (``pip install -e
.``, the Quick start) leaves the sources where they are, so kernels
compiled while it builds are found by every later run on this machine:
the build runs ``worldgen terrain`` once, on its defaults, into a
temporary folder. That moves about 30 s of CPU from the first run into the
install; every command shares most of those kernels. A wheel (``pip
install .``) gets new file times when pip unpacks it, so numba could not
use a cache made here: wheels are built as setuptools builds them.

The compile never fails the install: if it cannot run (say, a numba that
does not import), pip prints why and the first run compiles instead. Turn
it off with the config setting ``compile=no`` (``pip install -e .
--config-settings compile=no``) or ``WORLDGEN_BUILD_COMPILE=0``.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile
import tomllib

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 (every other hook is setuptools')

ROOT = pathlib.Path(__file__).resolve().parent.parent
SETTING = "compile"
ENVIRONMENT = "WORLDGEN_BUILD_COMPILE"
NO = ("0", "no", "false", "off")
# What `worldgen terrain` imports of the project's dependencies: the build
# installs these beside setuptools when it compiles.
COMMAND_NEEDS = ("numpy", "numba", "pillow", "deflate", "typer", "rich")
# A compile takes about a minute of wall time on two cores; one that hangs
# must not hold the install for ever.
TIME_LIMIT = 1800.0


def _compiling(config_settings: dict | None) -> bool:
    """Whether this editable build compiles the kernels: yes unless the
    config setting or the environment says no."""
    setting = (config_settings or {}).get(SETTING)
    if isinstance(setting, list):  # pip gives a list for a repeated -C
        setting = setting[-1]
    if setting is not None:
        return str(setting).strip().lower() not in NO
    return os.environ.get(ENVIRONMENT, "1").strip().lower() not in NO


def _for_setuptools(config_settings: dict | None) -> dict | None:
    """The config settings without ours, for setuptools."""
    if config_settings is None:
        return None
    return {k: v for k, v in config_settings.items() if k != SETTING}


def _command_requirements() -> list[str]:
    """The project's requirements of the packages ``worldgen terrain``
    imports, as ``pyproject.toml`` pins them."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        dependencies = tomllib.load(f)["project"]["dependencies"]
    return [d for d in dependencies if _name(d) in COMMAND_NEEDS]


def _name(requirement: str) -> str:
    for i, c in enumerate(requirement):
        if not (c.isalnum() or c in "-_."):
            return requirement[:i].lower()
    return requirement.lower()


def compile_kernels() -> bool:
    """Run ``worldgen terrain`` on its defaults from this source tree into
    a temporary folder, so numba compiles and caches the kernels it calls;
    whether it ran to the end."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    print("worldgen: compiling the kernels of a first run (about 30 s of CPU)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="worldgen-build-") as folder:
        argv = [sys.executable, "-m", "worldgen.cli", "terrain", "--out", folder]
        try:
            done = subprocess.run(
                argv, env=env, cwd=folder, capture_output=True, text=True, timeout=TIME_LIMIT
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"worldgen: could not compile the kernels now ({e})", file=sys.stderr)
            return False
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        print(
            f"worldgen: could not compile the kernels now ({last}); "
            "the first run will compile them",
            file=sys.stderr,
        )
        return False
    return True


def get_requires_for_build_editable(config_settings=None):
    needs = _setuptools.get_requires_for_build_editable(_for_setuptools(config_settings))
    return needs + (_command_requirements() if _compiling(config_settings) else [])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_editable(
        wheel_directory, _for_setuptools(config_settings), metadata_directory
    )
    if _compiling(config_settings):
        compile_kernels()
    return name
