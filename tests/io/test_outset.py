"""Output sets: whole sets swapped in, no mixes, no stale temporaries, own
names per format, ``out`` checked before the work, names kept inside."""

import hashlib
import json
import os
import pathlib

import numpy as np
import pytest
from PIL import Image

from worldgen.config import map_config
from worldgen.io import (
    MANIFEST,
    _outset,
    output_set,
    read_manifest,
    write_map_set,
    write_terrain_set,
    write_tiles,
)
from worldgen.io._atomic import atomic_file
from worldgen.products import TerrainConfig

SMALL = {"terrain": {"width": 24, "height": 16, "scale": 8.0}}


def small(seed: int):
    return map_config({"terrain": {**SMALL["terrain"], "seed": seed}})


def snapshot(folder: pathlib.Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.filterwarnings("ignore::worldgen.io.HeightmapSizeWarning")
def test_every_export_format_has_its_own_name(tmp_path):
    written = write_map_set(
        small(1), tmp_path, formats=["png8", "png16", "raw16", "r16", "tiff", "npy"]
    )
    names = [p.name for p in written]
    assert len(names) == len(set(names)), names
    with Image.open(tmp_path / "height.png") as image:
        assert image.mode == "I;16"  # png8 did not overwrite it
    with Image.open(tmp_path / "height8.png") as image:
        assert image.mode == "L"
    assert {"height.raw", "height.r16", "height.tif", "height.npy"} <= set(names)


def test_a_format_or_mesh_given_twice_is_written_once(tmp_path):
    written = write_map_set(small(1), tmp_path / "map", formats=["npy", "png8", "npy", "png8"])
    names = [p.name for p in written]
    assert len(names) == len(set(names)), names
    written = write_terrain_set(
        small(1), TerrainConfig(), tmp_path / "terrain", formats=["npy", "npy"],
        meshes=["obj", "glb", "obj"],
    )  # fmt: skip
    names = [p.name for p in written]
    assert len(names) == len(set(names)), names
    assert {"terrain.obj", "terrain.glb", "eroded.npy"} <= set(names)


def test_out_is_checked_before_the_work(tmp_path):
    stages = []
    afile = tmp_path / "afile"
    afile.write_text("mine")
    with pytest.raises(NotADirectoryError, match=r"out: .*afile is a file, not a directory"):
        write_map_set(small(1), afile, progress=stages.append)
    with pytest.raises(NotADirectoryError, match=r"a folder above it is a file"):
        write_map_set(small(1), afile / "sub", progress=stages.append)
    assert stages == [] and afile.read_text() == "mine"
    # None was refused as "lstat: path should be string, bytes or os.PathLike".
    for bad in (None, 3, ""):
        with pytest.raises(TypeError, match=f"^out must be a directory path, got {bad!r}$"):
            write_map_set(small(1), bad, progress=stages.append)
    assert stages == []


def test_out_on_a_read_only_file_system_is_named(tmp_path, monkeypatch):
    # mkdir's EROFS (or a full disk) was a bare "[Errno 30] Read-only file
    # system"; only a permission error was named.
    import errno

    def read_only(self, *args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))

    monkeypatch.setattr(pathlib.Path, "mkdir", read_only)
    with pytest.raises(PermissionError, match=r"out: cannot make the directory .*new \(Read-only"):
        _outset.check_output_dir(tmp_path / "new")


def test_write_tiles_keeps_names_inside_the_directory(tmp_path):
    inside = tmp_path / "d"
    for name in ("../escape", "a/b", "..", ""):
        with pytest.raises(ValueError, match="name must be"):
            write_tiles(inside, name, np.zeros((4, 4)), 2)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.filterwarnings("ignore::worldgen.io.HeightmapSizeWarning")
def test_a_failed_run_leaves_the_previous_set_and_no_temporaries(tmp_path, monkeypatch):
    write_map_set(small(1), tmp_path, formats=["npy"])
    before = snapshot(tmp_path)
    from worldgen.io import _mapset

    def broken(*args, **kwargs):
        raise OSError("disk trouble")

    monkeypatch.setattr(_mapset, "write_tiles_csv", broken)
    with pytest.raises(OSError, match="disk trouble"):
        write_map_set(small(2), tmp_path)
    assert snapshot(tmp_path) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    fresh = tmp_path / "fresh"
    with pytest.raises(OSError, match="disk trouble"):
        write_map_set(small(2), fresh)
    assert not fresh.exists(), "a failed first run leaves no empty directory"


def test_a_set_gives_the_permissions_open_gives(tmp_path):
    # A rerun gave every file 0666 less the umask, dropping the modes the
    # files it replaced had (a private height.png became readable to all).
    old = os.umask(0o027)
    try:
        write_map_set(small(1), tmp_path, tile=8)
        written = [p for p in tmp_path.rglob("*") if p.is_file()]
        assert {oct(p.stat().st_mode & 0o777) for p in written} == {oct(0o640)}
        assert {oct(p.stat().st_mode & 0o777) for p in tmp_path.rglob("*") if p.is_dir()} == {
            oct(0o750)
        }
        os.chmod(tmp_path / "height.png", 0o600)
        write_map_set(small(2), tmp_path, tile=8)
        assert (tmp_path / "height.png").stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "colour.png").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


def test_manifest_lists_the_set_and_its_digests(tmp_path):
    written = write_map_set(small(3), tmp_path)
    (entry,) = read_manifest(tmp_path)
    assert entry["command"] == "map" and "seed 3" in entry["about"]
    assert sorted(entry["files"]) == sorted(p.name for p in written)
    import hashlib

    for rel, info in entry["files"].items():
        data = (tmp_path / rel).read_bytes()
        assert info == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


@pytest.mark.filterwarnings("ignore::worldgen.io.HeightmapSizeWarning")
def test_a_new_set_replaces_the_one_it_overlaps_and_keeps_others(tmp_path):
    write_map_set(small(1), tmp_path, formats=["npy"], tile=8)
    with output_set(tmp_path, command="other") as files:
        (files.staging / "notes.txt").write_text("other set")
    (tmp_path / "mine.txt").write_text("not worldgen's")
    write_map_set(small(2), tmp_path)
    names = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")}
    assert "height.npy" not in names and "tiles" not in names, "stale files of the old set"
    assert {"notes.txt", "mine.txt", "height.png"} <= names
    assert [s["command"] for s in read_manifest(tmp_path)] == ["other", "map"]


def test_a_stale_files_empty_folders_go_with_it(tmp_path):
    # A set with files two folders deep (as minecraft/region/r.0.0.mca),
    # then one without them: no empty folder is left behind.
    with output_set(tmp_path, command="world") as files:
        (files.staging / "a" / "b").mkdir(parents=True)
        (files.staging / "a" / "b" / "deep.txt").write_text("x")
        (files.staging / "a" / "0.txt").write_text("x")  # sorted before a/b/
        (files.staging / "kept.txt").write_text("x")
    with output_set(tmp_path, command="world") as files:
        (files.staging / "kept.txt").write_text("y")
    names = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")}
    assert names == {"kept.txt", "worldgen-set.json"}, names


def test_stale_staging_folders_and_part_files_are_cleaned(tmp_path):
    write_map_set(small(1), tmp_path)
    stale = tmp_path / ".worldgen-staging-dead"
    stale.mkdir()
    (stale / "height.png").write_bytes(b"half")
    part = tmp_path / ".colour.png.x1y2z3.part"  # left by an older version
    part.write_bytes(b"half")
    (tmp_path / f".{MANIFEST}.abc.part").write_bytes(b"{")
    write_map_set(small(2), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_run_killed_while_moving_files_in_is_finished_by_the_next(tmp_path, monkeypatch):
    write_map_set(small(1), tmp_path)
    moves = []
    replace = os.replace

    def killed_after_three(source, target):
        if ".worldgen-staging-" in str(source) and ".worldgen-staging-" not in str(target):
            if len(moves) == 3:
                raise SystemExit("killed")
            moves.append(target)
        replace(source, target)

    monkeypatch.setattr(_outset.os, "replace", killed_after_three)
    monkeypatch.setattr(_outset.shutil, "rmtree", lambda *a, **k: None)  # as after a kill
    with pytest.raises(SystemExit):
        write_map_set(small(2), tmp_path)
    monkeypatch.undo()
    assert not (tmp_path / MANIFEST).exists(), "no manifest over a half-moved set"
    _outset.recover(tmp_path)
    whole = tmp_path.parent / "whole"
    write_map_set(small(2), whole)
    assert snapshot(tmp_path) == snapshot(whole)


def test_one_run_at_a_time_per_directory(tmp_path):
    with output_set(tmp_path, command="first"):
        with pytest.raises(BlockingIOError, match="another worldgen run is writing into"):
            with output_set(tmp_path, command="second"):
                pass
    assert json.loads((tmp_path / MANIFEST).read_text())["sets"][0]["command"] == "first"


def test_ctrl_c_while_a_set_is_swapped_in_says_the_new_set_is_saved(tmp_path, monkeypatch):
    # Ctrl-C during the moves waits for them, so the new set is in place;
    # the command line said the directory kept its previous files.
    import signal

    from typer.testing import CliRunner

    from worldgen.cli import app

    write_map_set(small(1), tmp_path)
    replace = os.replace

    def interrupted(source, target):
        if ".worldgen-staging-" in str(source) and ".worldgen-staging-" not in str(target):
            os.kill(os.getpid(), signal.SIGINT)  # held until the moves are done
        replace(source, target)

    monkeypatch.setattr(_outset.os, "replace", interrupted)
    with pytest.raises(_outset.SavedInterrupt):
        write_map_set(small(2), tmp_path)
    monkeypatch.undo()
    whole = tmp_path.parent / "whole"
    write_map_set(small(2), whole)
    assert snapshot(tmp_path) == snapshot(whole)
    # The command line says so.
    monkeypatch.setattr(_outset.os, "replace", interrupted)
    out = tmp_path.parent / "cli"
    result = CliRunner().invoke(app, ["map", "--out", str(out), "--width", "16", "--height", "8"])
    assert result.exit_code == 130
    assert "after the new set was saved; the output directory holds it, complete" in result.output


@pytest.mark.parametrize("fresh", [False, True])
def test_a_full_disk_names_the_directory_and_what_is_left(tmp_path, fresh):
    import errno

    out = tmp_path / "out"
    if not fresh:
        with output_set(out, command="demo") as files:
            (files.staging / "a.txt").write_text("a")
    before = sorted(p.name for p in out.iterdir()) if not fresh else None
    with pytest.raises(OSError) as caught, output_set(out, command="demo") as files:
        (files.staging / "b.txt").write_text("b")
        raise OSError(errno.ENOSPC, "No space left on device")
    message = str(caught.value)
    assert caught.value.errno == errno.ENOSPC
    assert message.startswith(f"out: could not write the files into {out} (No space left")
    assert ("nothing is left there" if fresh else "it keeps its previous files") in message
    assert message.endswith("free some space there or choose another directory")
    if fresh:
        assert not out.exists()
    else:
        assert sorted(p.name for p in out.iterdir()) == before


def test_a_file_that_cannot_be_written_in_the_set_names_it(tmp_path):
    import errno

    with pytest.raises(PermissionError) as caught, output_set(tmp_path, command="demo") as files:
        raise PermissionError(errno.EACCES, "Permission denied", str(files.staging / "a.png"))
    message = str(caught.value)
    assert message.startswith(f"out: could not write the files into {tmp_path} (Permission")
    assert "a.png" in message and message.endswith("choose a directory you can write to")
    # Errors that are not about writing the set keep their own message.
    elsewhere = tmp_path.parent / "config.toml"
    with pytest.raises(PermissionError, match=r"^\[Errno 13\] Permission denied"):
        with output_set(tmp_path, command="demo"):
            raise PermissionError(errno.EACCES, "Permission denied", str(elsewhere))
    with pytest.raises(OSError, match=r"^disk trouble$"):
        with output_set(tmp_path, command="demo"):
            raise OSError("disk trouble")


@pytest.mark.parametrize(
    ("folder", "names", "error", "words"),
    [
        ("a.txt", ["a.txt"], IsADirectoryError, "is a folder, where the set writes a file"),
        ("sub/b.txt", ["sub/b.txt"], IsADirectoryError, "is a folder, where the set writes"),
        ("sub", ["sub/b.txt"], NotADirectoryError, "is a file, where the set needs a folder"),
    ],
    ids=["file", "nested file", "folder"],
)
def test_a_folder_where_a_file_of_the_set_goes_is_refused_before_the_work(
    tmp_path, folder, names, error, words
):
    out = tmp_path / "out"
    (out / folder).parent.mkdir(parents=True, exist_ok=True)
    if error is IsADirectoryError:
        (out / folder).mkdir()
    else:
        (out / folder).write_text("in the way")
    before = snapshot(out), sorted(p.as_posix() for p in out.rglob("*"))
    ran = []
    with pytest.raises(error) as caught, output_set(out, command="demo", names=names):
        ran.append(True)
    assert ran == []
    message = str(caught.value)
    assert message.startswith(f"out: {out / folder} ") and words in message
    assert message.endswith("remove or rename it, or choose another output directory")
    assert (snapshot(out), sorted(p.as_posix() for p in out.rglob("*"))) == before


def test_a_folder_where_an_undeclared_file_goes_is_refused_before_any_move(tmp_path):
    out = tmp_path / "out"
    with output_set(out, command="demo") as files:
        (files.staging / "a.txt").write_text("a")
    (out / "c.txt").mkdir()
    before = snapshot(out)
    with pytest.raises(IsADirectoryError, match=r"c\.txt is a folder"):
        with output_set(out, command="demo") as files:
            (files.staging / "a.txt").write_text("new a")
            (files.staging / "c.txt").write_text("c")
    assert snapshot(out) == before  # the old set whole, nothing moved in
    assert sorted(p.name for p in out.iterdir()) == ["a.txt", "c.txt", MANIFEST]


@pytest.mark.parametrize("before", [None, "empty", "a file"])
def test_ctrl_c_in_the_block_says_whether_out_held_files(tmp_path, before):
    out = tmp_path / "out"
    if before is not None:
        out.mkdir()
    if before == "a file":
        (out / "mine.txt").write_text("mine")
    with pytest.raises(_outset.UnsavedInterrupt) as caught:
        with output_set(out, command="demo") as files:
            (files.staging / "a.txt").write_text("a")
            raise KeyboardInterrupt
    assert caught.value.had_files is (before == "a file")
    assert out.exists() is (before is not None)
    if before is not None:
        assert [p.name for p in out.iterdir()] == ([] if before == "empty" else ["mine.txt"])


def test_ctrl_c_inside_a_compiled_kernel_is_an_interrupt_too(tmp_path):
    with pytest.raises(_outset.UnsavedInterrupt):
        with output_set(tmp_path, command="demo"):
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as exc:
                raise SystemError("returned a result with an exception set") from exc


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the lost one
@pytest.mark.parametrize("lost_in", ["a finalizer", "except BaseException", "a callback"])
def test_a_ctrl_c_whose_interrupt_was_lost_still_stops_the_set(tmp_path, lost_in):
    # Python only prints a KeyboardInterrupt raised in a finalizer (numba's
    # llvmlite objects are freed as it compiles), and trimesh's imports
    # catch it: the run went on and swapped its set in, exit status 0. Lost
    # in llvmlite's ctypes callback as numba compiles, it left numba to fail
    # ("no compiled object yet"): an internal error, not Ctrl-C.
    import gc
    import signal

    class Freed:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)

    (tmp_path / "old.txt").write_text("old")
    with pytest.raises(_outset.UnsavedInterrupt):
        with output_set(tmp_path, command="demo") as files:
            (files.staging / "a.txt").write_text("a")
            if lost_in == "a finalizer":
                Freed()
                gc.collect()
            elif lost_in == "a callback":
                Freed()
                gc.collect()
                raise RuntimeError("no compiled object yet for <Library>")
            else:
                try:
                    signal.raise_signal(signal.SIGINT)
                except BaseException:
                    pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.txt"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_full_disk_in_an_empty_directory_says_nothing_is_left(tmp_path):
    import errno

    with pytest.raises(OSError, match="; nothing is left there; free some space"):
        with output_set(tmp_path, command="demo"):
            raise OSError(errno.ENOSPC, "No space left on device")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("band_cells", [1, 7, 40, 1 << 18])
def test_erosion_picture_in_bands_is_the_whole_picture(monkeypatch, band_cells):
    # erosion.png made a band of rows at a time equals the formula applied
    # to the whole arrays at once.
    from worldgen.io import _mapset
    from worldgen.terrain._erosion import ErosionResult

    rng = np.random.default_rng(5)
    eroded, deposited = (rng.uniform(0.0, 0.08, (13, 9)) for _ in range(2))
    eroded[0, 0], deposited[1, 1] = 0.04, 0.0
    result = ErosionResult(np.zeros((13, 9)), eroded, deposited, 0.0)
    monkeypatch.setattr(_mapset, "_PICTURE_BAND_CELLS", band_cells)
    rgb = _mapset._erosion_picture(result)
    expected = np.zeros((13, 9, 3), np.uint8)
    for channel, amount in ((0, eroded), (2, deposited)):
        expected[..., channel] = np.rint(np.clip(amount / _mapset.EROSION_SHOWN, 0, 1) * 255)
    assert rgb.dtype == np.uint8
    np.testing.assert_array_equal(rgb, expected)
    assert rgb[0, 0, 0] == 255 and rgb[..., 1].max() == 0


def test_a_lost_ctrl_c_prints_no_traceback(monkeypatch, capsys, tmp_path):
    # Python printed "Exception ignored ... Traceback ... KeyboardInterrupt"
    # above the command's one line (llvmlite's callback as numba compiles).
    import gc
    import signal
    import sys

    class Freed:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)
    with pytest.raises(_outset.UnsavedInterrupt):
        with output_set(tmp_path / "new", command="demo"):
            Freed()
            gc.collect()
    assert capsys.readouterr().err == ""
    assert sys.unraisablehook is sys.__unraisablehook__
    assert not (tmp_path / "new").exists()


def test_the_manifest_holds_each_file_s_digest_taken_as_written_or_read(tmp_path):
    # Files written through atomic_file bring their digest along; one
    # changed after it was written, and one written otherwise, are read.
    with output_set(tmp_path, command="demo") as files:
        for name in ("a.bin", "b.bin"):
            with atomic_file(files.staging / name) as out:
                out.write(np.arange(1000, dtype=np.float32))
        (files.staging / "c.txt").write_text("c")
        with open(files.staging / "b.bin", "r+b") as handle:
            handle.write(b"changed")
        written = (files.staging / "b.bin").stat()
        os.utime(files.staging / "b.bin", ns=(written.st_atime_ns, written.st_mtime_ns + 10**6))
    (entry,) = read_manifest(tmp_path)
    assert sorted(entry["files"]) == ["a.bin", "b.bin", "c.txt"]
    for rel, info in entry["files"].items():
        data = (tmp_path / rel).read_bytes()
        assert info == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


@pytest.mark.parametrize(("side", "rows"), [(900, 700), (2049, 40), (4100, 9)])
def test_tilemap_picture_of_small_cells_is_each_tile_s_mean_colour(monkeypatch, side, rows):
    # One to three pixels a cell (and every k-th cell past PREVIEW_PIXELS):
    # each cell its tile's mean colour, as indexing the means by the ids gives.
    import dataclasses

    from worldgen.io import _mapset
    from worldgen.products import Tileset

    tileset = Tileset("blob47", 8)
    colours = np.array([(0, 0, 128), (40, 90, 200), (230, 210, 150), (40, 160, 40)], np.uint8)
    ids = np.random.default_rng(side).integers(0, 4 * 47, (rows, side)).astype(np.uint16)
    layers = type("Layers", (), {"tile_ids": ids})()
    picture = _mapset.tilemap_picture(tileset, colours, layers)
    small = dataclasses.replace(tileset, tile_size=4)
    image = small.draw(colours)
    means = image.reshape(4, 4, 47, 4, 3).mean(axis=(1, 3)).reshape(-1, 3)
    step = -(-side // _mapset.PREVIEW_PIXELS)
    cells = np.rint(means).astype(np.uint8)[ids[::step, ::step]]
    size = max(1, _mapset.PREVIEW_PIXELS // side)
    expected = np.repeat(np.repeat(cells, size, axis=0), size, axis=1)
    assert picture.dtype == np.uint8 and picture.flags.c_contiguous
    assert np.array_equal(picture, expected)


def test_partial_files_are_those_glob_finds():
    # The swap lists each folder once and picks ".NAME.*.part" by name.
    import fnmatch
    import random

    names = ["a.png", "x", "height.png", "b.c.d", "a"]
    parts = ["a", ".", "png", "x", "part", ".part", "b", "c", "d", "", ".a", "a.png", "b.c"]
    rng = random.Random(1)
    for _ in range(20000):
        entry = "".join(rng.choice(parts) for _ in range(rng.randint(1, 7)))
        entry = ("." if rng.random() < 0.5 else "") + entry
        entry += ".part" if rng.random() < 0.5 else ""
        chosen = set(rng.sample(names, rng.randint(1, 3)))
        expected = any(fnmatch.fnmatchcase(entry, f".{name}.*.part") for name in chosen)
        assert _outset._part_of(entry, chosen) == expected, (entry, chosen)
