"""No half set is left behind: every set writer, failed or interrupted at any
of its file writes, leaves the previous complete set (or, in a new
directory, nothing), and no temporary file; the next run completes.

The failure is injected at the k-th ``fsync`` of a run: every file worldgen
writes (pictures, meshes, tile maps, the manifest) is flushed once before it
is renamed into place, so the k-th flush is the k-th file of the set.
"""

import hashlib
import json
import os
import pathlib
import shutil
import signal

import pytest

from worldgen.config import map_config
from worldgen.io import MANIFEST, read_manifest, write_map_set, write_terrain_set
from worldgen.io._outset import recover
from worldgen.products import TerrainConfig
from worldgen.voxel import VoxelConfig, write_world_set

pytestmark = pytest.mark.filterwarnings("ignore::worldgen.io.HeightmapSizeWarning")


def _map(seed):
    return map_config({"terrain": {"width": 24, "height": 16, "scale": 8.0, "seed": seed}})


WRITERS = {
    "map": lambda seed, out: write_map_set(_map(seed), out, formats=["npy"]),
    "terrain": lambda seed, out: write_terrain_set(_map(seed), TerrainConfig(droplets=50), out),
    "world": lambda seed, out: write_world_set(
        VoxelConfig(seed=seed), out, radius=16, mesh_radius=8, store=out.parent / f"{seed}.db"
    ),
}


class Injected(OSError):
    """The failure the tests inject."""


def snapshot(folder: pathlib.Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _fail_at(monkeypatch, k: int, error: str) -> list[int]:
    """Make the k-th fsync fail: raise :class:`Injected`, or deliver a real
    SIGINT (Ctrl-C); returns the call counter."""
    calls = [0]
    real = os.fsync

    def fsync(fd):
        calls[0] += 1
        if calls[0] == k:
            if error == "error":
                raise Injected("injected")
            signal.raise_signal(signal.SIGINT)
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def _files_of_a_run(tmp_path, monkeypatch, name) -> int:
    calls = _fail_at(monkeypatch, 0, "error")  # never fails: counts
    WRITERS[name](7, tmp_path / "count" / "out")
    monkeypatch.undo()
    return calls[0]


def _complete(out: pathlib.Path) -> bool:
    """A manifest whose files are all there with their digests, and nothing hidden."""
    sets = read_manifest(out)
    listed = {rel: f for s in sets for rel, f in s["files"].items()}
    return (
        bool(listed)
        and all(
            hashlib.sha256((out / rel).read_bytes()).hexdigest() == f["sha256"]
            for rel, f in listed.items()
        )
        and not [p for p in out.iterdir() if p.name.startswith(".")]
    )


def _restore(out: pathlib.Path, files: dict[str, bytes]) -> None:
    shutil.rmtree(out, ignore_errors=True)
    for rel, data in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)


@pytest.mark.parametrize("error", ["error", "ctrl-c"])
@pytest.mark.parametrize("name", sorted(WRITERS))
def test_a_run_failing_at_any_file_leaves_the_previous_set_or_nothing(
    tmp_path, monkeypatch, name, error
):
    writes = _files_of_a_run(tmp_path, monkeypatch, name)
    assert writes >= 4, f"{name} writes {writes} files"
    out = tmp_path / "sets" / "out"
    WRITERS[name](1, out)
    previous = snapshot(out)
    assert _complete(out)
    raised = Injected if error == "error" else KeyboardInterrupt
    # The first file, one in the middle, the last file of the set, the commit
    # list and the manifest (the last two: the swap-in).
    for k in sorted({1, writes // 2, writes - 2, writes - 1, writes}):
        for folder in (out, tmp_path / "sets" / f"fresh{k}"):
            before = snapshot(folder)
            _fail_at(monkeypatch, k, error)
            with pytest.raises(raised):
                WRITERS[name](2, folder)
            monkeypatch.undo()
            if k < writes:  # before the moves: nothing changed
                assert snapshot(folder) == before, f"{name}: a failure at file {k} changed it"
                assert folder == out or not folder.exists()
            elif error == "ctrl-c":  # held until the moves are done: the new set
                assert _complete(folder) and snapshot(folder) != before
            else:  # the moves failed: no manifest until the next run finishes them
                assert MANIFEST not in snapshot(folder)
                recover(folder)
                assert _complete(folder) and snapshot(folder) != before
            _restore(out, previous)
    WRITERS[name](2, out)
    assert _complete(out)
    assert json.loads((out / MANIFEST).read_text()) != json.loads(previous[MANIFEST])
