"""An editable install compiles the kernels of a first ``worldgen
terrain`` (build_backend/worldgen_build.py): the first run after it loads
every kernel from numba's cache and compiles none."""

from __future__ import annotations

import importlib.util
import subprocess
import tomllib

import pytest

from tests.installing import ROOT, install_copy

_spec = importlib.util.spec_from_file_location(
    "worldgen_build", ROOT / "build_backend" / "worldgen_build.py"
)
worldgen_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(worldgen_build)


def cache_events(installed, *argv: str) -> tuple[int, int]:
    """How many kernels ``worldgen ARGV`` loaded from numba's cache and
    how many it compiled and saved, by numba's own cache log."""
    done = subprocess.run(
        [str(installed.bin / "worldgen"), *argv],
        env={**installed.env, "NUMBA_DEBUG_CACHE": "1"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines() + done.stderr.splitlines()
    loaded = sum(line.startswith("[cache] data loaded from") for line in lines)
    saved = sum(line.startswith("[cache] data saved to") for line in lines)
    return loaded, saved


@pytest.mark.slow
def test_first_terrain_after_an_editable_install_compiles_nothing(tmp_path):
    installed = install_copy(tmp_path, editable=True)
    assert list((installed.source / "src").rglob("*.nbi")), "the install compiled nothing"
    loaded, saved = cache_events(installed, "terrain", "--out", str(tmp_path / "out"))
    assert saved == 0, f"the first run compiled {saved} kernels"
    assert loaded > 20


@pytest.mark.slow
def test_the_config_setting_turns_the_compile_off(tmp_path):
    installed = install_copy(tmp_path, editable=True, settings={"compile": "no"})
    assert not list((installed.source / "src").rglob("*.nbi"))


@pytest.mark.parametrize(
    ("settings", "environment", "compiling"),
    [
        (None, {}, True),
        ({}, {"WORLDGEN_BUILD_COMPILE": "0"}, False),
        ({"compile": "no"}, {}, False),
        ({"compile": "False"}, {"WORLDGEN_BUILD_COMPILE": "1"}, False),
        ({"compile": "yes"}, {"WORLDGEN_BUILD_COMPILE": "off"}, True),
        ({"compile": ["no", "yes"]}, {}, True),
        ({"--build-option": ["x"]}, {}, True),
    ],
)
def test_when_the_build_compiles(monkeypatch, settings, environment, compiling):
    monkeypatch.delenv("WORLDGEN_BUILD_COMPILE", raising=False)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    assert worldgen_build._compiling(settings) is compiling


def test_setuptools_does_not_see_the_setting():
    assert worldgen_build._for_setuptools({"compile": "no", "x": "1"}) == {"x": "1"}
    assert worldgen_build._for_setuptools(None) is None


def test_the_compile_installs_what_the_command_imports():
    """Each package the build installs to compile is one of the project's
    dependencies, with the project's lower bound."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        dependencies = tomllib.load(f)["project"]["dependencies"]
    needs = worldgen_build._command_requirements()
    assert sorted(worldgen_build._name(n) for n in needs) == sorted(worldgen_build.COMMAND_NEEDS)
    assert set(needs) <= set(dependencies)
    assert worldgen_build._name("numba>=0.59") == "numba"
    assert worldgen_build._name("nbtlib>=2.0.4  ") == "nbtlib"
