"""`--export zarr|cog|tiles`: the block-by-block outputs from the command line."""

import json

import numpy as np
import pytest
import zarr
from PIL import Image
from typer.testing import CliRunner

from tests.scale import KILLED_MAKING_COLOUR
from worldgen.cli import app
from worldgen.config import map_config, merge, preset
from worldgen.products import TerrainConfig
from worldgen.products._carved import carve_window
from worldgen.world import Window

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
runner = CliRunner()


def test_terrain_export_zarr_cog_tiles_of_a_window(tmp_path):
    out = tmp_path / "big"
    args = ["terrain", "--preset", "classic-islands", "--width", "256", "--height", "192",
            "--x", "40", "--y", "-30", "--droplets", "2000", "--block", "64", "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, [*args, "--export", "zarr", "--export", "cog", "--export", "tiles"])
    assert result.exit_code == 0, result.output
    group = zarr.open_group(out / "world.zarr", mode="r")
    # --width/--height give the window's size; the map keeps its 512 x 512.
    settings = map_config(
        merge(preset("classic-islands", 512, 512), {"terrain": {"normalize": "global"}})
    )
    whole = carve_window(settings, TerrainConfig(droplets=2000), Window(40, -30, 256, 192))
    assert np.array_equal(group["eroded"][:], whole.terrain.heights.astype(np.float32))
    assert np.array_equal(group["colour"][:], whole.colour)
    rasterio = pytest.importorskip("rasterio")
    with rasterio.open(out / "world.tif") as src:
        assert np.array_equal(src.read(1), group["eroded"][:])
    about = json.loads((out / "tiles" / "tiles.json").read_text())
    deepest = Image.open(out / "tiles" / str(about["maxzoom"]) / "0" / "0.png")
    assert np.array_equal(np.asarray(deepest)[:192, :256, :3], whole.colour)
    # A rerun finds every block done and writes the same store.
    again = runner.invoke(app, [*args, "--export", "zarr"])
    assert again.exit_code == 0, again.output
    assert np.array_equal(zarr.open_group(out / "world.zarr", mode="r")["eroded"][:],
                          group["eroded"][:])  # fmt: skip


def test_block_outputs_do_not_mix_with_the_set_formats(tmp_path):
    result = runner.invoke(
        app, ["map", "--export", "zarr", "--export", "npy", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 1
    assert "cannot be mixed with npy" in result.output


def _outputs(out) -> dict:
    """Everything a big run wrote that a reader sees: the store's arrays,
    the COG's pixels and every tile's bytes."""
    group = zarr.open_group(out / "world.zarr", mode="r")
    got = {f"zarr:{name}": group[name][:] for name in sorted(group.array_keys())}
    rasterio = pytest.importorskip("rasterio")
    with rasterio.open(out / "world.tif") as src:
        got["cog"] = src.read(1)
    for tile in sorted((out / "tiles").rglob("*.png")):
        got[f"tile:{tile.relative_to(out).as_posix()}"] = np.frombuffer(tile.read_bytes(), np.uint8)
    return got


def test_damaged_truncated_or_deleted_chunks_are_made_again(tmp_path):
    """A finished store whose chunks were overwritten, cut short or removed:
    the same command makes those blocks again, and every output equals a
    clean build (never garbage with exit 0)."""
    args = ["map", "--preset", "classic", "--width", "256", "--height", "192", "--x", "-40",
            "--y", "16", "--block", "64", "--export", "zarr", "--export", "cog", "--export", "tiles"]  # fmt: skip
    clean, hurt = tmp_path / "clean", tmp_path / "hurt"
    for out in (clean, hurt):
        result = runner.invoke(app, [*args, "--out", str(out)])
        assert result.exit_code == 0, result.output
    group = zarr.open_group(hurt / "world.zarr", mode="r")
    assert group.attrs["block"] == 64 and group["height"].chunks == (64, 64)  # --block reached it
    store = hurt / "world.zarr"
    chunk = store / "height" / "c" / "0" / "1"
    data = bytearray(chunk.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
    chunk.write_bytes(bytes(data))  # overwritten
    chunk = store / "colour" / "c" / "1" / "2" / "0"
    chunk.write_bytes(chunk.read_bytes()[: chunk.stat().st_size // 2])  # truncated
    (store / "biome" / "c" / "2" / "3").unlink()  # deleted
    (store / "sha256" / "c" / "1" / "0" / "0" / "0").unlink()  # a digest deleted
    (store / "done" / "c" / "2" / "0").write_bytes(b"garbage")  # a done mark damaged
    result = runner.invoke(app, [*args, "--out", str(hurt)])
    assert result.exit_code == 0, result.output
    want, got = _outputs(clean), _outputs(hurt)
    assert want.keys() == got.keys()
    for name in want:
        assert np.array_equal(want[name], got[name]), name


def test_big_set_has_a_manifest_and_a_rerun_removes_what_a_kill_left(tmp_path):
    """The Dask path's folder gets worldgen-set.json like every set; the
    partial files of a run killed during the COG or the tiles are removed by
    the next run."""
    from worldgen.io import read_manifest

    out = tmp_path / "big"
    args = ["map", "--width", "128", "--height", "128", "--block", "64", "--out", str(out),
            "--export", "zarr", "--export", "cog", "--export", "tiles"]  # fmt: skip
    assert runner.invoke(app, args).exit_code == 0
    (sets,) = read_manifest(out)
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert set(sets["files"]) == files - {"worldgen-set.json"}
    assert "world.tif" in files and "tiles/tiles.json" in files and "world.zarr/zarr.json" in files
    import hashlib

    for rel, info in sets["files"].items():
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == info["sha256"], rel
    # What a SIGKILL during the COG and the tiles leaves (names as they are made).
    left = [out / ".world.tif.k3j2.part", out / ".world.tif.k3j2.part.tiled.tif",
            out / ".world.tif.k3j2.part.ovr.tmp", out / "tiles" / "0" / "0" / ".0.png.x8.part",
            out / "tiles" / ".tiles.json.a1.part"]  # fmt: skip
    for path in left:
        path.write_bytes(b"x" * 1000)
    (out / "world.tif").unlink()  # killed before the COG was in place
    assert runner.invoke(app, args).exit_code == 0
    assert not any(path.exists() for path in left)
    assert (out / "world.tif").exists()
    assert {p.name for p in out.iterdir()} == {"world.zarr", "world.tif", "tiles",
                                                 "worldgen-set.json"}  # fmt: skip
    assert len(read_manifest(out)) == 1


def test_ctrl_c_on_a_local_cluster_stops_at_once_in_one_line(tmp_path):
    """Ctrl-C at a terminal reaches the whole process group: the command
    stops within seconds with one line, no worker prints a traceback, and
    the same command then finishes the store."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "big"
    argv = [sys.executable, "-m", "worldgen.cli", "map", "--export", "zarr", "--dask", "local",
            "--width", "1536", "--height", "1536", "--block", "256", "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not any((out / "world.zarr" / "done").rglob("c/*")):
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.1)
        start = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        seconds = time.monotonic() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert seconds < 5.0, seconds
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = [
        line
        for line in err.splitlines()
        if line.strip() and not line.startswith(("check:", "blocks:", "compiling kernels"))
    ]
    assert lines == [
        "interrupted: the blocks made are kept in world.zarr; the same command resumes"
    ], err
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert zarr.open_group(out / "world.zarr", mode="r")["done"][:].all()


def test_a_run_killed_while_making_the_store_leaves_one_the_rerun_makes(tmp_path):
    """A SIGKILL while the store's arrays were being made left a world.zarr
    without worldgen's attributes, which every later run refused as 'not a
    worldgen store'; now the store appears whole or not at all, and the
    next run removes what the killed one was making."""
    import subprocess
    import sys

    out = tmp_path / "big"
    args = ["map", "--width", "128", "--height", "96", "--block", "64", "--out", str(out),
            "--export", "zarr"]  # fmt: skip
    killed = KILLED_MAKING_COLOUR + "from worldgen.cli import app\napp(sys.argv[1:])\n"
    run = subprocess.run([sys.executable, "-c", killed, *args], capture_output=True, text=True)
    assert run.returncode == -9, run.stderr
    assert not (out / "world.zarr").exists()
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert zarr.open_group(out / "world.zarr", mode="r")["done"][:].all()
    assert {p.name for p in out.iterdir()} == {"world.zarr", "worldgen-set.json"}


def test_tiles_of_another_map_are_refused_not_kept(tmp_path):
    """A rerun keeps the tiles already made only when they are this map's:
    tiles/ left by another seed (its store removed, as the store's refusal
    advises) is refused before any work, never published as this map's."""
    out = tmp_path / "big"
    args = ["map", "--width", "128", "--height", "96", "--block", "64", "--out", str(out),
            "--export", "tiles"]  # fmt: skip
    assert runner.invoke(app, [*args, "--seed", "1"]).exit_code == 0
    before = {p: p.read_bytes() for p in (out / "tiles").rglob("*.png")}
    import shutil

    shutil.rmtree(out / "world.zarr")
    result = runner.invoke(app, [*args, "--seed", "2"])
    assert result.exit_code == 1
    assert "tiles holds the tiles of another map" in result.output, result.output
    assert "remove it or choose another --out" in result.output
    assert not (out / "world.zarr").exists()  # refused before the blocks
    assert {p: p.read_bytes() for p in (out / "tiles").rglob("*.png")} == before
    # The same map's tiles (a run that stopped) are kept and completed.
    (out / "tiles" / "0" / "0" / "0.png").unlink()
    assert runner.invoke(app, [*args, "--seed", "1"]).exit_code == 0
    assert {p: p.read_bytes() for p in (out / "tiles").rglob("*.png")} == before
    # Also from a store of other blocks (the same pixels): they were refused
    # as "the tiles of another map".
    shutil.rmtree(out / "world.zarr")
    (out / "tiles" / "0" / "0" / "0.png").unlink()
    result = runner.invoke(app, [*[{"64": "128"}.get(a, a) for a in args], "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert {p: p.read_bytes() for p in (out / "tiles").rglob("*.png")} == before
    assert json.loads((out / "tiles" / ".worldgen-source.json").read_text())["block"] == 128


def test_a_rerun_with_fewer_exports_keeps_the_others_listed(tmp_path):
    """A rerun into the same --out with fewer exports kept the COG and the
    tiles on disk but dropped them from worldgen-set.json: the folder no
    longer matched its manifest. The same map's outputs stay, listed."""
    from worldgen.io import read_manifest

    out = tmp_path / "big"
    args = ["map", "--width", "128", "--height", "96", "--block", "64", "--out", str(out)]
    every = ["--export", "zarr", "--export", "cog", "--export", "tiles"]
    assert runner.invoke(app, [*args, *every]).exit_code == 0
    (first,) = read_manifest(out)

    def on_disk():
        return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} - {
            "worldgen-set.json"
        }

    for fewer in (["--export", "zarr"], ["--export", "zarr", "--export", "cog"]):
        result = runner.invoke(app, [*args, *fewer])
        assert result.exit_code == 0, result.output
        (sets,) = read_manifest(out)
        assert set(sets["files"]) == on_disk() == set(first["files"])
        assert sets["files"] == first["files"]  # the same bytes, recorded alike
    # A tile changed since is not vouched for: left, but not listed.
    changed = next((out / "tiles").rglob("*.png"))
    changed.write_bytes(b"not the tile")
    assert runner.invoke(app, [*args, "--export", "zarr"]).exit_code == 0
    (sets,) = read_manifest(out)
    assert set(sets["files"]) == on_disk() - {changed.relative_to(out).as_posix()}


def test_outputs_of_another_map_are_not_left_beside_a_new_store(tmp_path):
    """Removing world.zarr, as its refusal of another map advises, then
    exporting only the store left the COG and the tiles of the old map
    beside the new store; now they are refused before any work. The same
    map's are kept."""
    out = tmp_path / "big"
    args = ["map", "--width", "128", "--height", "96", "--out", str(out)]
    every = ["--block", "64", "--export", "zarr", "--export", "cog", "--export", "tiles"]
    assert runner.invoke(app, [*args, "--seed", "1", *every]).exit_code == 0
    kept = {p: p.read_bytes() for p in [out / "world.tif", *(out / "tiles").rglob("*.png")]}
    import shutil

    shutil.rmtree(out / "world.zarr")
    result = runner.invoke(app, [*args, "--seed", "2", "--export", "zarr"])
    assert result.exit_code == 1
    assert f"world.tif and tiles in {out} are another map's" in result.output, result.output
    assert "remove them or choose another --out" in result.output
    assert not (out / "world.zarr").exists()
    result = runner.invoke(app, [*args, "--seed", "2", "--export", "zarr", "--export", "cog"])
    assert result.exit_code == 1
    assert f"tiles in {out} is another map's" in result.output, result.output
    # The same map (at another block size) keeps them, whole.
    result = runner.invoke(app, [*args, "--seed", "1", "--block", "128", "--export", "zarr"])
    assert result.exit_code == 0, result.output
    assert {p: p.read_bytes() for p in kept} == kept


def test_a_map_sets_height_tiles_never_join_a_pyramid_nor_remove_its_store(tmp_path, monkeypatch):
    """--tile wrote a map set's height tiles into the pyramid's tiles/; a
    rerun of the pyramid then listed them as its own in worldgen-set.json,
    and the next map set with --tile, replacing them, removed the whole
    pyramid set as stale: world.zarr and every tile."""
    from worldgen.io import _mapset

    out = tmp_path / "big"
    size = ["--width", "128", "--height", "96", "--seed", "1", "--out", str(out)]
    pyramid = ["map", *size, "--block", "64", "--export", "tiles"]
    heights = ["map", *size, "--tile", "32"]
    assert runner.invoke(app, pyramid).exit_code == 0
    tiles = {p: p.read_bytes() for p in (out / "tiles").rglob("*") if p.is_file()}
    result = runner.invoke(app, heights)
    assert result.exit_code == 1
    assert f"{out / 'tiles'} holds a z/x/y tile pyramid" in result.output, result.output
    assert {p: p.read_bytes() for p in (out / "tiles").rglob("*") if p.is_file()} == tiles
    # A folder an older worldgen mixed: the pyramid's rerun takes only its own files.
    monkeypatch.setattr(_mapset, "_check_tiles_folder", lambda out, tile: None)
    assert runner.invoke(app, heights).exit_code == 0
    assert runner.invoke(app, pyramid).exit_code == 0
    assert runner.invoke(app, heights).exit_code == 0
    assert zarr.open_group(out / "world.zarr", mode="r")["done"][:].all()
    assert all(p.read_bytes() == data for p, data in tiles.items())


@pytest.mark.parametrize("case", ["tiles-file", "tiles-foreign", "cog-folder"])
def test_an_output_that_cannot_go_where_it_goes_is_refused_before_the_blocks(tmp_path, case):
    out = tmp_path / "big"
    out.mkdir()
    if case == "tiles-file":
        (out / "tiles").write_text("mine")
        export, said = "tiles", "tiles is a file"
    elif case == "tiles-foreign":
        (out / "tiles" / "0").mkdir(parents=True)
        (out / "tiles" / "0" / "0").write_text("mine")
        export, said = "tiles", "files that are not this map's tiles"
    else:
        (out / "world.tif").mkdir()
        export, said = "cog", "world.tif is a folder"
    args = ["map", "--width", "64", "--height", "64", "--out", str(out), "--export", export]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert said in result.output and "remove it or choose another --out" in result.output
    assert "Errno" not in result.output
    assert not (out / "world.zarr").exists()


def test_a_cog_of_a_level_has_cells_of_its_step(tmp_path):
    """``--level``: a sample stands for 2^level cells, and the COG's
    geotransform says so (readers place and scale it in world cells)."""
    from worldgen.scale import write_big_set

    rasterio = pytest.importorskip("rasterio")
    settings = map_config(merge(preset("classic", 512, 512), {"terrain": {"normalize": "global"}}))
    window = Window(-96, 64, 100, 80, step=4)
    write_big_set("map", settings, None, tmp_path, formats=["cog"], window=window, block=64)
    with rasterio.open(tmp_path / "world.tif") as src:
        assert src.res == (4.0, 4.0)
        assert src.xy(0, 0, offset="ul") == (-96.0, -64.0)
        assert src.xy(80, 100, offset="ul") == (-96.0 + 400, -64.0 - 320)


def test_a_block_that_is_no_multiple_of_16_makes_a_cog(tmp_path):
    """--block takes any side from 64; the COG's tiles (a multiple of 16 for
    GDAL) are not refused after every block was made."""
    rasterio = pytest.importorskip("rasterio")
    args = ["map", "--preset", "classic", "--width", "256", "--height", "150", "--block", "200",
            "--export", "cog", "--out", str(tmp_path)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    with rasterio.open(tmp_path / "world.tif") as src:
        assert src.block_shapes == [(192, 192)]
        assert np.array_equal(src.read(1), zarr.open_group(tmp_path / "world.zarr")["height"][:])


@pytest.mark.parametrize("stage", ["blocks", "cog", "cog-libtiff"])
def test_a_full_disk_is_one_line_naming_out_and_the_fix(tmp_path, monkeypatch, stage):
    """A disk that fills during the blocks or the COG (GDAL says only 'Write
    failed', or passes on libtiff's 'Write error at scanline 128', which was
    an internal error): one line naming the folder, what is kept and the
    fix, and no partial COG."""
    import errno
    import shutil
    from collections import namedtuple

    import rasterio.errors
    import rasterio.shutil

    from worldgen.scale import _store

    if stage == "blocks":
        real = _store.write_block

        def full_after_one(path, kind, config, terrain_config, window, index):
            if index != (0, 0):
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(path, kind, config, terrain_config, window, index)

        monkeypatch.setattr(_store, "write_block", full_after_one)
    else:

        def write_failed(*args, **kwargs):
            if stage == "cog-libtiff":
                from rasterio._err import CPLE_AppDefinedError

                raise CPLE_AppDefinedError(1, 1, "TIFFAppendToStrip:Write error at scanline 128")
            raise rasterio.errors.RasterioIOError(
                "Write failed. See previous exception for details."
            )

        usage = namedtuple("usage", "total used free")
        monkeypatch.setattr(rasterio.shutil, "copy", write_failed)
        monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 4096, 4096))
    out = tmp_path / "big"
    args = ["map", "--preset", "classic", "--width", "128", "--height", "128", "--block", "64",
            "--export", "zarr", "--export", "cog", "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    said = [
        line
        for line in result.output.splitlines()
        if not line.startswith(("check:", "blocks:", "cog:", "compiling"))
    ]
    assert len(said) == 1 and said[0].startswith("error: out: "), result.output
    assert "no space left" in result.output.lower() and str(out) in result.output
    assert "free some space there or choose another --out" in result.output
    assert "the blocks made are kept in world.zarr" in result.output
    assert not (out / "world.tif").exists() and not list(out.glob(".world.tif*"))


def test_a_full_disk_before_the_first_block_says_none_was_made(tmp_path, monkeypatch):
    """It said 'the blocks made are kept in world.zarr' when there was none."""
    import errno

    from worldgen.scale import _store

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_store, "_make_store", full)
    out = tmp_path / "big"
    args = ["map", "--width", "128", "--height", "96", "--export", "zarr", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "no block was made; free some space there" in result.output, result.output
    assert "kept in world.zarr" not in result.output
    assert not out.exists()


def test_out_of_memory_in_a_block_says_use_a_smaller_block(tmp_path, monkeypatch):
    """Not 'make the map block by block with --export zarr', which it is."""
    from worldgen.scale import _store

    def too_big(*args):
        raise MemoryError("Unable to allocate 4.00 GiB")

    monkeypatch.setattr(_store, "make_block", too_big)
    args = ["map", "--preset", "classic", "--width", "64", "--height", "64", "--block", "64",
            "--export", "zarr", "--out", str(tmp_path)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    said = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert said == [
        "error: out of memory (Unable to allocate 4.00 GiB); use a smaller --block (the blocks "
        "made are kept in world.zarr; the same command resumes)"
    ], result.output


def test_a_window_of_open_ocean_says_so_with_the_block_exports(tmp_path):
    """As the map set does: the note on a window with no land at all."""
    args = ["map", "--width", "64", "--height", "64", "--x", "0", "--y", "0", "--export",
            "zarr", "--out", str(tmp_path)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0 and "note: this window is open ocean" in result.output
