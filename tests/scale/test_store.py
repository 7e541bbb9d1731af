"""Maps made in blocks into a Zarr store: equal to the whole map, on Dask
equal to one process, with a worker killed, resumed after an interruption."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import zarr

from tests.scale import KILLED_MAKING_COLOUR
from worldgen.config import map_config, merge, preset
from worldgen.products import TerrainConfig, make_layers, map_pictures
from worldgen.products._carved import carve_window
from worldgen.scale import _store, build_store
from worldgen.world import Window

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def config(name="classic-continents", width=192, height=160):
    return map_config(merge(preset(name, width, height), {"terrain": {"normalize": "global"}}))


CARVING = TerrainConfig(droplets=3000)
FAR = Window(100_003, -77, 150, 100)  # a window far from the map's origin


def arrays(path) -> dict[str, np.ndarray]:
    group = zarr.open_group(path, mode="r")
    return {name: group[name][:] for name in sorted(group.array_keys())}


def test_terrain_blocks_equal_the_whole_window(tmp_path):
    cfg = config()
    build_store(tmp_path / "w.zarr", "terrain", cfg, CARVING, window=FAR, block=64)
    got = arrays(tmp_path / "w.zarr")
    whole = carve_window(cfg, CARVING, FAR)
    assert np.array_equal(got["eroded"], whole.terrain.heights.astype(np.float32))
    assert np.array_equal(got["height"], whole.height.astype(np.float32))
    assert np.array_equal(got["biome"], whole.carved.biomes)
    assert np.array_equal(got["colour"], whole.colour)
    flow = whole.terrain.rivers
    sea = np.where(whole.carved.water, 3, 0)
    river = np.where(flow.river, 1, np.where(flow.lakes, 2, sea))
    assert np.array_equal(got["river"], river)
    assert (got["river"] == 1).any() and (got["done"] == 1).all()
    assert np.array_equal(
        got["discharge"], np.where(flow.river, flow.accumulation, 0.0).astype(np.float32)
    )
    attrs = zarr.open_group(tmp_path / "w.zarr", mode="r").attrs
    assert attrs["complete"] and attrs["window"] == [FAR.x, FAR.y, FAR.width, FAR.height]
    assert attrs["block"] == 64 and set(attrs["layers"]) == {
        "height", "eroded", "biome", "river", "discharge", "colour"
    }  # fmt: skip


def test_a_terrain_at_a_level_is_refused_naming_the_window(tmp_path):
    # Carving works on every cell: a stepped window was carved as if its
    # samples were neighbouring cells.
    cfg = config()
    stepped = Window(FAR.x, FAR.y, 32, 32, 4)
    with pytest.raises(ValueError, match=r"^window: a terrain is carved on every cell"):
        build_store(tmp_path / "w.zarr", "terrain", cfg, CARVING, window=stepped, block=64)
    assert not (tmp_path / "w.zarr").exists()
    with pytest.raises(ValueError, match=r"^window: carving works on every cell"):
        carve_window(cfg, CARVING, stepped)


def test_map_blocks_equal_the_whole_map(tmp_path):
    cfg = config("classic-islands")
    build_store(tmp_path / "m.zarr", "map", cfg, block=64)
    got = arrays(tmp_path / "m.zarr")
    layers = make_layers(cfg)
    pictures = map_pictures(cfg, layers=layers)
    assert np.array_equal(got["height"], pictures.height.astype(np.float32))
    assert np.array_equal(got["colour"], pictures.colour)
    assert np.array_equal(got["biome"], layers.biomes)
    assert "eroded" not in got


def test_a_local_map_or_another_config_is_refused(tmp_path):
    cfg = config()
    local = map_config({"terrain": {"width": 96, "height": 96}})
    with pytest.raises(ValueError, match="normalize='global' or 'none'"):
        build_store(tmp_path / "a.zarr", "map", local)
    build_store(tmp_path / "b.zarr", "map", cfg, block=64, window=Window(0, 0, 64, 64))
    with pytest.raises(ValueError, match="holds another map"):
        build_store(tmp_path / "b.zarr", "map", config(width=200), block=64,
                    window=Window(0, 0, 64, 64))  # fmt: skip


def test_a_store_of_another_kind_window_block_or_version_is_refused(tmp_path, monkeypatch):
    cfg = config()
    window = Window(0, 0, 64, 64)
    build_store(tmp_path / "s.zarr", "map", cfg, block=64, window=window)
    others = {
        "kind": dict(kind="terrain", terrain_config=CARVING),
        "window": dict(window=Window(1, 0, 64, 64)),
        "block": dict(block=128),
    }
    for differ, change in others.items():
        args = {"kind": "map", "config": cfg, "block": 64, "window": window, **change}
        with pytest.raises(ValueError, match=f"holds another map \\(its [a-z0-9_, ]*{differ}"):
            build_store(tmp_path / "s.zarr", **args)
    monkeypatch.setattr("worldgen.__version__", "0.0.1")
    with pytest.raises(ValueError, match="its worldgen differ"):
        build_store(tmp_path / "s.zarr", "map", cfg, block=64, window=window)


def test_a_store_without_block_digests_is_refused(tmp_path):
    cfg = config()
    build_store(tmp_path / "s.zarr", "map", cfg, block=64, window=Window(0, 0, 64, 64))
    group = zarr.open_group(tmp_path / "s.zarr", mode="r+")
    del group.attrs["format"]  # as stores of the first layout
    with pytest.raises(ValueError, match=r"older layout .*remove it to start again"):
        build_store(tmp_path / "s.zarr", "map", cfg, block=64, window=Window(0, 0, 64, 64))


def test_config_attribute_is_json_any_reader_parses(tmp_path):
    import hashlib
    import json

    from worldgen.config import map_config

    cfg = config()
    build_store(tmp_path / "t.zarr", "terrain", cfg, CARVING, window=Window(-64, 0, 64, 64),
                block=64)  # fmt: skip
    text = (tmp_path / "t.zarr" / "zarr.json").read_text()
    attrs = json.loads(text)["attributes"]
    assert map_config(attrs["config"]["map"]) == cfg  # worldgen rebuilds it
    assert TerrainConfig(**{k: v for k, v in attrs["config"]["terrain"].items()
                            if k != "erosion"}) == CARVING  # fmt: skip
    canonical = json.dumps(attrs["config"], sort_keys=True, separators=(",", ":"))
    assert attrs["config_sha256"] == hashlib.sha256(canonical.encode()).hexdigest()


def test_a_block_cut_short_is_not_marked_done_and_is_made_again(tmp_path, monkeypatch):
    """A block task stopped after its first layer's chunk (a kill): its done
    mark and digests are not written, and the rerun makes it."""
    cfg = config()
    window = Window(0, 0, 128, 64)  # two blocks
    build_store(tmp_path / "clean.zarr", "map", cfg, block=64, window=window)
    real = _store.make_block

    class Killed:
        def __array__(self, *args, **kwargs):
            raise RuntimeError("killed while writing its second layer")

    def second_block_dies(kind, c, t, w):
        layers = real(kind, c, t, w)
        if w.x == 64:
            layers["biome"] = Killed()
        return layers

    monkeypatch.setattr(_store, "make_block", second_block_dies)
    with pytest.raises(RuntimeError, match="killed"):
        build_store(tmp_path / "cut.zarr", "map", cfg, block=64, window=window)
    group = zarr.open_group(tmp_path / "cut.zarr", mode="r")
    assert group["done"][:].tolist() == [[1, 0]]
    assert group["sha256"][0, 1].sum() == 0 and group["sha256"][0, 0].sum() > 0
    assert group["height"][:, 64:].any()  # its first layer was written
    monkeypatch.undo()
    build_store(tmp_path / "cut.zarr", "map", cfg, block=64, window=window)
    clean, cut = arrays(tmp_path / "clean.zarr"), arrays(tmp_path / "cut.zarr")
    assert all(np.array_equal(clean[k], cut[k]) for k in clean)


def test_resume_after_an_interruption_makes_only_the_missing_blocks(tmp_path, monkeypatch):
    cfg = config()
    whole = tmp_path / "whole.zarr"
    build_store(whole, "terrain", cfg, CARVING, window=FAR, block=64)

    def stop_after_two(done, total):
        if done == 2:
            raise KeyboardInterrupt

    cut = tmp_path / "cut.zarr"
    with pytest.raises(KeyboardInterrupt):
        build_store(cut, "terrain", cfg, CARVING, window=FAR, block=64, progress=stop_after_two)
    assert zarr.open_group(cut, mode="r")["done"][:].sum() == 2
    made = []
    real = _store.make_block
    monkeypatch.setattr(
        _store, "make_block", lambda kind, c, t, w: made.append(w) or real(kind, c, t, w)
    )
    build_store(cut, "terrain", cfg, CARVING, window=FAR, block=64)
    assert len(made) == 6 - 2
    assert all(np.array_equal(a, b) for a, b in zip(arrays(cut).values(), arrays(whole).values()))


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    from worldgen.scale._cluster import local_cluster

    with local_cluster(2) as cluster, distributed.Client(cluster) as client:
        yield client


def test_a_local_cluster_takes_no_fixed_port():
    """Port 8787 (the dashboard's default) taken: the cluster starts all the
    same, without a warning (warnings are errors here)."""
    import socket

    distributed = pytest.importorskip("distributed")
    from worldgen.scale._cluster import local_cluster

    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))
        taken.listen()
    except OSError:
        pass  # taken already
    try:
        with local_cluster(1) as cluster, distributed.Client(cluster) as client:
            assert client.submit(sum, [1, 2]).result() == 3
    finally:
        taken.close()


def test_dask_tasks_are_squares_of_neighbouring_blocks(monkeypatch):
    monkeypatch.setattr(_store, "TASK_SIDE", 2)
    every = _store.blocks(Window(0, 0, 5 * 64, 3 * 64), 64)
    todo = [item for item in every if item[0] not in {(0, 2), (1, 4), (2, 0)}]  # done before
    runs = _store._tasks(todo)
    assert sorted(item[0] for run in runs for item in run) == sorted(i for i, _ in todo)
    side = _store.TASK_SIDE
    for run in runs:
        squares = {(row // side, col // side) for (row, col), _ in run}
        assert len(squares) == 1
        assert [index for index, _ in run] == sorted(index for index, _ in run)
    assert [[index for index, _ in run] for run in runs] == [
        [(0, 0), (0, 1), (1, 0), (1, 1)],
        [(0, 3), (1, 2), (1, 3)],
        [(0, 4)],
        [(2, 1)],
        [(2, 2), (2, 3)],
        [(2, 4)],
    ]


def test_a_local_clusters_workers_are_quiet(client):
    # No statistical profiler and slow self-checks in the workers: they cost
    # a busy worker about a tenth of its CPU.
    import dask

    settings = client.run(
        lambda: (
            dask.config.get("distributed.worker.profile.enabled"),
            dask.config.get("distributed.admin.tick.interval"),
        )
    )
    assert len(settings) == 2
    assert set(settings.values()) == {(False, "1s")}


def test_dask_equals_one_process(tmp_path, client):
    cfg = config()
    build_store(tmp_path / "one.zarr", "terrain", cfg, CARVING, window=FAR, block=64)
    build_store(tmp_path / "dask.zarr", "terrain", cfg, CARVING, window=FAR, block=64,
                client=client)  # fmt: skip
    one, dask = arrays(tmp_path / "one.zarr"), arrays(tmp_path / "dask.zarr")
    assert one.keys() == dask.keys()
    for name in one:
        assert np.array_equal(one[name], dask[name]), name


def test_killing_a_worker_mid_run_does_not_change_the_result(tmp_path, client):
    cfg = config(width=256, height=192)
    build_store(tmp_path / "one.zarr", "map", cfg, block=64)
    pids = client.run(os.getpid)
    killed = []

    def kill_one(done, total):
        if done >= 2 and not killed:
            victim = sorted(pids.values())[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    build_store(tmp_path / "dask.zarr", "map", cfg, block=64, client=client, progress=kill_one)
    assert killed
    client.wait_for_workers(2, timeout=60)
    one, dask = arrays(tmp_path / "one.zarr"), arrays(tmp_path / "dask.zarr")
    for name in one:
        assert np.array_equal(one[name], dask[name]), name


def test_a_scheduler_that_does_not_answer_is_one_line_within_seconds(tmp_path):
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "worldgen.cli", "map", "--export", "zarr", "--dask",
         "tcp://127.0.0.1:9", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert time.monotonic() - start < 60
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error: dask: no Dask scheduler answers at tcp://127.0.0.1:9")
    assert "Traceback" not in done.stderr


def test_the_base_install_does_not_import_dask():
    code = (
        "import sys, worldgen, worldgen.cli, worldgen.io, worldgen.terrain, worldgen.voxel; "
        "print(sorted({'dask', 'distributed', 'zarr', 'rasterio'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_worlds_store_holds_its_rivers_sea_and_discharge(tmp_path):
    """A world's terrain store: its own rivers (the world's, wide as their
    discharge), lakes and sea in ``river``, m^3/s in ``discharge``."""
    from worldgen.world import Window as W
    from worldgen.world import WorldConfig, world_fields

    world = WorldConfig(seed=0)
    cfg = map_config(preset("continents", 128, 128))
    assert cfg.world == world
    # Where a river of seed 0 meets the sea (tests/voxel/test_exports.py).
    window = W(-81184 - 64, -84704 - 64, 128, 128)
    build_store(tmp_path / "r.zarr", "terrain", cfg, TerrainConfig(droplets=0), window=window,
                block=64)  # fmt: skip
    got = arrays(tmp_path / "r.zarr")
    fields = world_fields(world, window, climate=False, rivers=True)
    assert np.array_equal(got["river"], fields.water_kind)
    assert (got["river"] == 1).sum() > 300
    assert np.array_equal(got["discharge"], fields.discharge)


def test_a_stepped_windows_blocks_equal_the_whole_window(tmp_path):
    """A window at a level of detail (``--level``): each block takes every
    step-th cell like the whole window, not the cells next to its corner."""
    cfg = config("classic-islands")
    window = Window(-50, 30, 150, 100, step=4)
    build_store(tmp_path / "s.zarr", "map", cfg, window=window, block=64)
    got = arrays(tmp_path / "s.zarr")
    pictures = map_pictures(cfg, window)
    assert np.array_equal(got["height"], pictures.height.astype(np.float32))
    assert np.array_equal(got["colour"], pictures.colour)
    attrs = zarr.open_group(tmp_path / "s.zarr", mode="r").attrs
    assert attrs["window"] == [-50, 30, 150, 100] and attrs["step"] == 4
    # The same corner and size at another step is another map.
    with pytest.raises(ValueError, match="holds another map \\(its step differ"):
        build_store(tmp_path / "s.zarr", "map", cfg, window=Window(-50, 30, 150, 100, step=2),
                    block=64)  # fmt: skip


def test_a_store_whose_making_was_stopped_is_not_called_an_older_layout(tmp_path):
    """A group without worldgen's attributes (another program's, or what a
    run of an older worldgen killed while making its store left): said so,
    not 'a store of an older layout (format None)'."""
    group = zarr.open_group(tmp_path / "s.zarr", mode="w-")
    group.create_array("height", shape=(64, 64), chunks=(64, 64), dtype=np.float32)
    with pytest.raises(ValueError, match="not a worldgen store") as caught:
        build_store(tmp_path / "s.zarr", "map", config(), block=64, window=Window(0, 0, 64, 64))
    assert "None" not in str(caught.value) and "remove it" in str(caught.value)


def test_an_empty_folder_becomes_the_store(tmp_path):
    # It was refused as "not a worldgen store (No group found in store...)".
    (tmp_path / "s.zarr").mkdir()
    build_store(tmp_path / "s.zarr", "map", config(), block=64, window=Window(0, 0, 64, 64))
    assert zarr.open_group(tmp_path / "s.zarr", mode="r")["done"][:].all()
    assert [p.name for p in tmp_path.iterdir()] == ["s.zarr"]


def test_a_store_killed_as_it_was_made_is_cleaned_by_the_next_build_not_one_being_made(
    tmp_path,
):
    """build_store called directly and killed while making its store left a
    hidden .s.zarr.*.part folder that nothing removed. The next build
    removes it, but not one that a live process is making (it holds its
    lock)."""
    killed = (
        KILLED_MAKING_COLOUR + "from worldgen.config import map_config, merge, preset\n"
        "from worldgen.scale import build_store\n"
        "from worldgen.world import Window\n"
        "data = merge(preset('classic-continents', 192, 160), {'terrain': {'normalize': 'global'}})\n"
        "build_store(sys.argv[1], 'map', map_config(data), block=64, window=Window(0, 0, 64, 64))\n"
    )
    store = tmp_path / "s.zarr"
    run = subprocess.run([sys.executable, "-c", killed, str(store)], capture_output=True, text=True)
    assert run.returncode == -9, run.stderr
    (dead,) = tmp_path.glob(".s.zarr.*.part")
    live = tmp_path / ".s.zarr.0123abcd.part"  # another process making its store
    live.mkdir()
    with subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX)\n"
         "print('held', flush=True); time.sleep(60)\n", str(live)],
        stdout=subprocess.PIPE, text=True,
    ) as holder:  # fmt: skip
        try:
            assert holder.stdout.readline() == "held\n"
            build_store(store, "map", config(), block=64, window=Window(0, 0, 64, 64))
            assert not dead.exists() and live.is_dir()
            assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "s.zarr"]
        finally:
            holder.kill()
    assert zarr.open_group(store, mode="r")["done"][:].all()
    # Once its process is gone, its folder goes with the next build.
    build_store(store, "map", config(), block=64, window=Window(0, 0, 64, 64))
    assert [p.name for p in tmp_path.iterdir()] == ["s.zarr"]


@pytest.mark.parametrize(
    ("change", "error", "said"),
    [
        ({"block": 10}, ValueError, "block must be an integer from 64 to 8192"),
        ({"window": "x"}, TypeError, "window must be a Window"),
        ({"formats": "zarr"}, TypeError, "formats must be a list of format names"),
        ({"formats": None}, TypeError, "formats must be a list of format names"),
        ({"config": "local"}, ValueError, "needs normalize='global' or 'none'"),
    ],
)
def test_a_bad_request_is_refused_before_out_is_made(tmp_path, change, error, said):
    # They were refused after out was made (an empty folder left), a window
    # that is no Window as "'str' object has no attribute 'x'", formats
    # "zarr" as "got ['z', 'a', 'r', 'r']".
    from worldgen.scale import write_big_set

    args = {"formats": ["zarr"], "window": Window(0, 0, 64, 64), **change}
    cfg = map_config({"terrain": {"width": 64, "height": 64}}) if change.get("config") else config()
    args.pop("config", None)
    with pytest.raises(error, match=said):
        write_big_set("map", cfg, None, tmp_path / "out", **args)
    assert list(tmp_path.iterdir()) == []


def test_a_relative_path_reaches_workers_in_another_folder(tmp_path, client, monkeypatch):
    """A scheduler's workers run in their own folder: a relative --out is
    the folder this process means, not one beside each worker."""
    cfg = config()
    window = Window(0, 0, 128, 64)
    build_store(tmp_path / "one.zarr", "map", cfg, block=64, window=window)
    monkeypatch.chdir(tmp_path)  # the workers started elsewhere
    build_store("rel.zarr", "map", cfg, block=64, window=window, client=client)
    one, dask = arrays(tmp_path / "one.zarr"), arrays(tmp_path / "rel.zarr")
    assert all(np.array_equal(one[k], dask[k]) for k in one)


def test_a_worker_killed_by_every_block_is_one_error_naming_block(tmp_path, monkeypatch):
    """Workers killed making a block (over their memory limit, as big
    --block sides of a terrain are) until Dask gives up: a MemoryError that
    says to use a smaller --block, not a KilledWorker traceback."""
    distributed = pytest.importorskip("distributed")
    import dask

    from worldgen.scale._cluster import local_cluster

    real_submit = distributed.Client.submit

    def submit(self, func, *args, **kwargs):  # the block's task kills its worker
        return real_submit(self, lambda: os._exit(1), **kwargs)

    monkeypatch.setattr(distributed.Client, "submit", submit)
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        local_cluster(1) as cluster,
        distributed.Client(cluster) as client,
    ):
        with pytest.raises(MemoryError, match="smaller --block"):
            build_store(tmp_path / "s.zarr", "map", config(), block=64,
                        window=Window(0, 0, 64, 64), client=client)  # fmt: skip


@pytest.mark.parametrize("on_dask", [False, True])
def test_reading_back_the_blocks_of_an_earlier_run_shows_progress(tmp_path, request, on_dask):
    """A rerun first reads every done block back to its digests (minutes for
    a big store): progress is shown for it, not a silent wait."""
    client = request.getfixturevalue("client") if on_dask else None
    cfg = config()
    window = Window(0, 0, 192, 128)
    build_store(tmp_path / "s.zarr", "map", cfg, block=64, window=window)
    seen = []
    build_store(tmp_path / "s.zarr", "map", cfg, block=64, window=window, client=client,
                checking=lambda done, total: seen.append((done, total)))  # fmt: skip
    assert seen[0] == (0, 6) and seen[-1] == (6, 6)
    assert sorted(seen) == [(i, 6) for i in range(7)]
