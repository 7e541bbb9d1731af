"""Carving by windows: any window equals the crop of a bigger one, without seams."""

import dataclasses
import random

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from worldgen import threads
from worldgen.cli import app
from worldgen.config import map_config, merge, preset
from worldgen.io._mapset import write_terrain_set
from worldgen.products import MapConfig, TerrainConfig, make_terrain, terrain_mesh
from worldgen.terrain._erosion import HydraulicErosion, erode_cells, erosion_halo
from worldgen.terrain._rivers import D8_OFFSETS, lake_sizes
from worldgen.terrain._windowed import BAND, TILE, _axis_weights, _tiles_over, clear_caches
from worldgen.world import NoiseMap, Window

ISLAND = map_config(merge({"terrain": {"seed": 3}}, preset("classic-islands")))
# Unmasked: rivers come from fixed regions (smaller than the default, to
# keep the test quick).
PLAIN = MapConfig(terrain=NoiseMap(seed=11, scale=96.0, octaves=4, normalize="global"))
FAR = 10**7 - 10**7 % 512
PICTURES = ("terrain.png", "erosion.png", "colour.png", "normal.png", "biomes.png", "eroded.png")


def _arrays(t):
    """Every carved product of a Terrain, by name."""
    return {
        "heights": t.heights,
        "eroded": t.erosion.eroded,
        "deposited": t.erosion.deposited,
        **{
            name: getattr(t.rivers, name)
            for name in ("filled", "directions", "accumulation", "river", "lakes")
        },
    }


def _pictures(folder):
    out = {name: np.asarray(Image.open(folder / name)) for name in PICTURES}
    out["eroded.npy"] = np.load(folder / "eroded.npy")
    for name in ("tilemap.csv", "tiles.csv", "autotile.csv"):
        out[name] = np.loadtxt(folder / name, delimiter=",", dtype=np.int64)
    return out


def _whole_and_tiles(config, carving, origin, folder):
    """A 1024 x 1024 window, and its 16 tiles of 256 x 256 made alone in a
    shuffled order (every cache emptied before each), assembled."""
    window = Window(origin, origin, 1024, 1024)
    clear_caches()
    whole = _arrays(make_terrain(config, carving, window=window))
    write_terrain_set(config, carving, folder / "whole", formats=["npy"], meshes=(), window=window)
    whole.update(_pictures(folder / "whole"))
    tiles = window.tiles(256)
    random.Random(origin).shuffle(tiles)
    parts = {}
    for k, tile in enumerate(tiles):
        clear_caches()
        made = _arrays(make_terrain(config, carving, window=tile))
        write_terrain_set(config, carving, folder / f"{k}", formats=["npy"], meshes=(), window=tile)
        made.update(_pictures(folder / f"{k}"))
        for name, array in made.items():
            if name not in parts:
                parts[name] = np.zeros((1024, 1024, *array.shape[2:]), array.dtype)
            y, x = tile.y - origin, tile.x - origin
            parts[name][y : y + 256, x : x + 256] = array
    return whole, parts


@pytest.fixture(scope="module")
def island(tmp_path_factory):
    carving = TerrainConfig(droplets=4000, thermal=1)
    return _whole_and_tiles(ISLAND, carving, -256, tmp_path_factory.mktemp("island"))


@pytest.mark.slow
def test_island_window_equals_its_tiles_made_alone(island):
    whole, parts = island
    assert whole["river"].sum() > 500 and whole["lakes"].any()
    for name, array in whole.items():
        assert np.array_equal(array, parts[name]), name


@pytest.mark.slow
def test_far_window_equals_its_tiles_made_alone(tmp_path):
    carving = TerrainConfig(droplets=4000, river_region=256, river_halo=64, river_threshold=40)
    whole, parts = _whole_and_tiles(PLAIN, carving, FAR, tmp_path)
    assert whole["river"].sum() > 500 and whole["eroded"].sum() > 0
    for name, array in whole.items():
        assert np.array_equal(array, parts[name]), name


@pytest.mark.slow
def test_a_river_crosses_a_tile_border_and_goes_on(island):
    _, parts = island
    river, directions = parts["river"], parts["directions"]
    crossings = 0
    for y, x in zip(*np.nonzero(river)):
        code = directions[y, x]
        if code < 0:
            continue
        ty, tx = y + D8_OFFSETS[code, 0], x + D8_OFFSETS[code, 1]
        if (ty // 256, tx // 256) != (y // 256, x // 256) and river[ty, tx]:
            crossings += 1
    assert crossings >= 3


def test_ridges_and_thermal_erosion_are_windowed():
    carving = TerrainConfig(droplets=0, thermal=3, dla=0.5, rivers=False)
    clear_caches()
    big = make_terrain(PLAIN, carving, window=Window(200, -60, 300, 200))
    clear_caches()
    small = make_terrain(PLAIN, carving, window=Window(230, 50, 90, 60))
    assert np.array_equal(small.heights, big.heights[110:170, 30:120])
    assert not np.array_equal(small.heights, np.clip(small.layers.elevation, 0, 1))


def test_one_and_two_threads_give_the_same_bytes():
    carving = TerrainConfig(droplets=8000, thermal=1)
    window = Window(-40, 30, 300, 200)
    results = []
    for count in (1, 2):
        clear_caches()
        with threads(count):
            results.append(_arrays(make_terrain(ISLAND, carving, window=window)))
    for name, array in results[0].items():
        assert np.array_equal(array, results[1][name]), name


# ------------------------------------------------------------ the pieces


def test_tile_weights_are_a_smooth_partition_of_unity():
    start, count = -700, 1500
    total = np.zeros(count)
    for i in _tiles_over(start, count):
        w = _axis_weights(start, count, i)
        cells = np.arange(start, start + count)
        assert (
            w[(cells < i * TILE - BAND // 2) | (cells >= (i + 1) * TILE + BAND // 2)] == 0
        ).all()
        assert (
            w[(cells >= i * TILE + BAND // 2) & (cells < (i + 1) * TILE - BAND // 2)] == 1
        ).all()
        assert np.abs(np.diff(w)).max() < 2.0 / BAND
        total += w
    assert np.allclose(total, 1.0, rtol=0, atol=1e-15)
    # Tiles outside the list weigh nothing on these cells.
    assert not _axis_weights(start, count, min(_tiles_over(start, count)) - 1).any()
    assert not _axis_weights(start, count, max(_tiles_over(start, count)) + 1).any()


def test_a_region_is_exact_beyond_the_halo():
    # Two overlapping regions of the world (the second cut from the first,
    # at another origin in its own frame) give the same bytes on every cell
    # at least the halo from both edges: the same droplets, each on the same
    # heights, their changes summed in the same order, whatever the region.
    y, x = np.mgrid[0:420, 0:450]
    heights = 0.5 + 0.25 * np.sin(x / 37.0) * np.cos(y / 23.0) + 0.1 * np.sin((x + y) / 11.0)
    heights = heights + 0.02 * np.random.default_rng(3).random(heights.shape)
    params = HydraulicErosion()
    halo = erosion_halo(params)
    a = erode_cells(heights, (1000, -40), 0.5, seed=9, params=params, sea_level=0.3)
    b = erode_cells(heights[60:, 97:], (1097, 20), 0.5, seed=9, params=params, sea_level=0.3)
    exact = np.s_[60 + halo : -halo, 97 + halo : -halo]
    assert a.heights[exact].size > 5000
    for name in ("heights", "eroded", "deposited"):
        assert np.array_equal(getattr(a, name)[exact], getattr(b, name)[halo:-halo, halo:-halo])
    # Nearer the cut the second region misses droplets, and the seed is
    # keyed by world cell: another origin is other droplets.
    assert not np.array_equal(a.heights[60 + halo // 2, 97:], b.heights[halo // 2, :])
    other = erode_cells(heights, (1001, -40), 0.5, seed=9, params=params, sea_level=0.3)
    assert not np.array_equal(a.heights[exact], other.heights[exact])


def test_droplets_of_a_pass_see_the_heights_it_started_from():
    # A pass's droplets are independent: run in another order (rows bottom
    # up), they make the same changes, up to the rounding of sums in
    # another order (droplets that saw each other's changes would not).
    from worldgen.terrain import _erosion

    y, x = np.mgrid[0:400, 0:400]
    heights = 0.6 + 0.3 * np.sin(x / 19.0) * np.cos(y / 29.0)
    params = HydraulicErosion()
    rows, cols = heights.shape
    g = _erosion.erosion_reach(params)
    dy, dx, raw, weight, reach = _erosion._brush(params.radius)
    args = (np.int64(reach), np.uint64(2), np.int64(5), np.int64(5), np.int64(0), np.int64(1))
    physics = (
        params.inertia, params.capacity, params.min_capacity, params.erode_speed,
        params.deposit_speed, params.evaporate_speed, params.gravity, np.int64(params.lifetime),
        params.initial_water, params.initial_speed,
    )  # fmt: skip
    start = g + 1

    def run(order):
        eroded, deposited = (np.zeros_like(heights) for _ in range(2))
        for r in order:
            _erosion._erode_pass_kernel(
                heights, eroded, deposited, np.int64(0), dy, dx, raw, weight, *args,
                np.int64(r), np.int64(r + 1), np.int64(start), np.int64(cols - 1 - start), 0.25,
                0.0, 0.0, -np.inf, *physics, -np.inf,
            )  # fmt: skip
        return deposited - eroded

    rows_in = list(range(start, rows - 1 - start))
    forward, backward = run(rows_in), run(rows_in[::-1])
    assert np.abs(forward).max() > 1e-4
    assert np.allclose(forward, backward, rtol=0, atol=1e-12)


def _grown(mask, cells):
    """``mask`` grown by ``cells`` cells every way (a square around each)."""
    for _ in range(cells):
        padded = np.pad(mask, 1)
        rows, cols = mask.shape
        mask = np.zeros_like(mask)
        for dy in range(3):
            for dx in range(3):
                mask = mask | padded[dy : dy + rows, dx : dx + cols]
    return mask


def test_rain_falls_on_land_only():
    # Islands of sine hills in a sea at 0.5: with the sea level, no droplet
    # starts below it or runs on into it, so nothing is eroded or deposited
    # beyond the brush's reach (radius 3, plus the bilinear corner) of the
    # land; without it, droplets wear the seabed too.
    y, x = np.mgrid[0:400, 0:440]
    heights = 0.5 + 0.3 * np.sin(x / 11.0) * np.cos(y / 13.0)
    params = HydraulicErosion()
    wet = erode_cells(heights, (7, -3), 1.0, seed=4, params=params, sea_level=0.5)
    dry = erode_cells(heights, (7, -3), 1.0, seed=4, params=params)
    land = heights >= 0.5
    near = _grown(land, params.radius + 1)
    far = ~near
    assert far.sum() > 2000
    assert not wet.eroded[far].any() and not wet.deposited[far].any()
    assert np.array_equal(wet.heights[far], heights[far])
    assert dry.eroded[far].sum() > 1.0  # the seabed was worn without the sea
    assert wet.eroded[land].sum() > 0.2 * dry.eroded[land].sum()
    # All sea: nothing happens at all.
    sea = erode_cells(heights - 0.9, (7, -3), 1.0, seed=4, params=params, sea_level=0.0)
    assert np.array_equal(sea.heights, heights - 0.9) and sea.carried == 0.0


@pytest.mark.parametrize("level", [float("nan"), float("inf"), "0.5"])
def test_bad_sea_level_is_refused(level):
    with pytest.raises((TypeError, ValueError), match="sea_level"):
        erode_cells(
            np.zeros((8, 8)), (0, 0), 1.0, seed=0, params=HydraulicErosion(), sea_level=level
        )


def test_droplet_density_is_per_cell():
    heights = np.tile(np.linspace(1.0, 0.0, 360), (360, 1))
    few = erode_cells(heights, (0, 0), 0.05, seed=1, params=HydraulicErosion())
    many = erode_cells(heights, (0, 0), 2.5, seed=1, params=HydraulicErosion())
    assert 10 < many.eroded.sum() / few.eroded.sum() < 100


def test_window_products_do_not_depend_on_the_window_size():
    carving = TerrainConfig(droplets=2000)
    small = make_terrain(ISLAND, carving, window=Window(200, 200, 40, 30))
    big = make_terrain(ISLAND, carving)
    assert small.rivers.threshold == big.rivers.threshold == pytest.approx(0.006 * 102.4**2)
    assert small.multiplier == big.multiplier == 128.0
    assert np.array_equal(small.heights, big.heights[200:230, 200:240])
    lifted = terrain_mesh(small, carving).vertices[:, 1].reshape(30, 40)
    whole = terrain_mesh(big, carving).vertices[:, 1].reshape(512, 512)
    assert np.array_equal(lifted, whole[200:230, 200:240])


def test_small_lakes_are_dropped():
    carving = TerrainConfig(droplets=20000, min_lake=0)
    kept = make_terrain(ISLAND, carving).rivers.lakes
    big = make_terrain(ISLAND, dataclasses.replace(carving, min_lake=12)).rivers.lakes
    sizes = lake_sizes(kept)
    assert (sizes[kept] < 12).any()
    assert np.array_equal(big, kept & (sizes >= 12))


def test_tiles_and_pictures_come_from_the_carved_heights():
    t = make_terrain(ISLAND, TerrainConfig(droplets=20000, rivers=False))
    assert np.array_equal(t.carved.elevation, t.heights)
    assert not np.array_equal(t.carved.classes, t.layers.classes)


def test_bad_windows():
    with pytest.raises(TypeError, match="window must be a Window"):
        make_terrain(ISLAND, TerrainConfig(), window=(0, 0, 10, 10))
    local = MapConfig(terrain=NoiseMap(width=64, height=64))
    with pytest.raises(ValueError, match="needs normalize='global' or 'none'"):
        make_terrain(local, TerrainConfig(), window=Window(0, 0, 32, 32))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_lake": -1}, "min_lake must be an integer from 0"),
        ({"river_region": 8}, "river_region must be an integer from 16"),
        ({"river_halo": -1}, "river_halo must be an integer from 0"),
    ],
)
def test_bad_region_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TerrainConfig(**kwargs)


@pytest.mark.parametrize("preset", ["classic-islands", "continents"])
def test_terrain_command_writes_windows_and_eroded_heights(tmp_path, preset):
    from worldgen.world import WorldConfig, spawn

    runner = CliRunner()
    # A classic map's pixels, or world cells around the default world's spawn.
    ox, oy = (0, 0) if preset.startswith("classic") else spawn(WorldConfig())
    common = ["--preset", preset, "--droplets", "3000", "--export", "npy", "--mesh", "stl"]
    for name, window in (
        ("big", (ox + 96, oy + 128, "160", "96")),
        ("small", (ox + 136, oy + 160, "64", "48")),
    ):
        x, y, w, h = window
        args = ["terrain", "--out", str(tmp_path / name), "--x", str(x), "--y", str(y)]
        result = runner.invoke(app, [*args, "--width", w, "--height", h, *common])
        assert result.exit_code == 0, result.output
    big, small = tmp_path / "big", tmp_path / "small"
    for name in ("eroded.npy", "height.npy"):
        assert np.array_equal(np.load(small / name), np.load(big / name)[32:80, 40:104]), name
    assert not np.array_equal(np.load(small / "eroded.npy"), np.load(small / "height.npy"))
    for name in PICTURES:
        crop = np.asarray(Image.open(big / name))[32:80, 40:104]
        assert np.array_equal(np.asarray(Image.open(small / name)), crop), name


def test_bands_on_threads_give_the_bytes_of_one_thread(monkeypatch):
    # A pass's droplets run in bands of world rows, each on its own arrays,
    # added up in band order: any thread count gives the same bytes, and the
    # bands are those of the world, not of the region.
    from worldgen.terrain import _erosion

    heights = np.random.default_rng(1).random((330, 340))
    params = HydraulicErosion()
    monkeypatch.setattr(_erosion, "BAND_ROWS", 16)
    results = []
    for count in (1, 2):
        with threads(count):
            results.append(_erosion.erode_cells(heights, (-37, 12), 2.3, seed=5, params=params))
    one, two = results
    assert one.eroded.sum() > 1.0
    for name in ("heights", "eroded", "deposited"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert one.carried == two.carried
    # Other bands add the same droplets' changes in another order: the same
    # erosion, not the same bytes (the band order is part of the result).
    monkeypatch.setattr(_erosion, "BAND_ROWS", 40)
    other = _erosion.erode_cells(heights, (-37, 12), 2.3, seed=5, params=params)
    assert not np.array_equal(other.heights, one.heights)
    assert other.eroded.sum() == pytest.approx(one.eroded.sum(), rel=0.01)


def test_maps_of_some_cells_are_the_crop_of_all():
    # The eroded and deposited maps of some cells only are the same bytes
    # as those cells of the whole region's maps; the heights do not change.
    heights = np.random.default_rng(2).random((300, 310))
    params = HydraulicErosion()
    whole = erode_cells(heights, (-37, 12), 1.5, seed=5, params=params, sea_level=0.2)
    for maps in (np.s_[70:230, 65:250], np.s_[:, 100:], np.s_[299:, :1], np.s_[5:5, :]):
        part = erode_cells(heights, (-37, 12), 1.5, seed=5, params=params, sea_level=0.2, maps=maps)
        assert np.array_equal(part.heights, whole.heights)
        assert part.carried == whole.carried
        for name in ("eroded", "deposited"):
            kept = getattr(part, name)
            assert kept.flags.c_contiguous
            assert np.array_equal(kept, getattr(whole, name)[maps]), (maps, name)
    with pytest.raises(ValueError, match="step 1"):
        erode_cells(heights, (0, 0), 1.0, seed=5, params=params, maps=np.s_[::2, :])


def test_bands_are_added_in_as_numpy_adds_them():
    # A band's arrays (eroded, deposited) are added to the totals (the
    # changes get deposited less eroded; the eroded and deposited of the
    # kept cells only their own) and cleared in one compiled pass: the bits
    # of numpy's ``total += part`` on every cell, whichever rows the band
    # and the kept cells share.
    from worldgen.terrain._erosion import _add_band

    rng = np.random.default_rng(8)
    rows, cols, band = 60, 41, 17
    for lo, used, (top, left, kept_rows, kept_cols) in [
        (0, 17, (0, 0, 60, 41)),
        (10, 17, (20, 5, 30, 30)),
        (43, 12, (20, 5, 30, 30)),
        (50, 10, (3, 40, 20, 1)),
        (5, 9, (40, 2, 10, 20)),
    ]:
        changes = rng.normal(size=(rows, cols))
        eroded = rng.random((kept_rows, kept_cols))
        deposited = rng.random((kept_rows, kept_cols))
        block = rng.random((2, band, cols)) * 1e-3
        block[:, :, ::5] = 0.0
        block[:, used:] = 0.0  # rows the band does not reach stay cleared
        want = [changes.copy(), eroded.copy(), deposited.copy()]
        want[0][lo : lo + used] += block[1, :used] - block[0, :used]
        a, b = max(lo, top), min(lo + used, top + kept_rows)
        if b > a:
            for total, part in zip(want[1:], block):
                total[a - top : b - top] += part[a - lo : b - lo, left : left + kept_cols]
        _add_band(changes, eroded, deposited, block, used, lo, top, left)
        for got, expected in zip((changes, eroded, deposited), want):
            assert np.array_equal(got.view(np.uint64), expected.view(np.uint64))
        assert not block.any() and not np.signbit(block).any()


def test_a_pass_is_applied_with_the_bits_of_numpy():
    # The heights plus a pass's changes, held at min(height, 0) from below,
    # in one compiled pass: the bits numpy's minimum, add and maximum make,
    # signed zeros included (a tie gives numpy's second operand).
    from worldgen.terrain._erosion import _apply

    rng = np.random.default_rng(4)
    heights = rng.choice([0.0, -0.0, 0.25, -0.25, 1e-300, -1e-300, 0.5], size=(90, 70))
    heights += np.where(rng.random(heights.shape) < 0.5, 0.0, rng.normal(size=heights.shape))
    heights[rng.random(heights.shape) < 0.1] = -0.0
    field = rng.choice([0.0, -0.25, 0.25, 0.5, -0.5, -1e-300], size=heights.shape)
    field += np.where(rng.random(heights.shape) < 0.5, 0.0, rng.normal(size=heights.shape))
    field[heights == 0.25] = -0.25  # lands exactly on the floor
    field[heights == -0.25] = 0.25  # back to the height 0, floor -0.25
    field[rng.random(heights.shape) < 0.1] = -0.0  # -0.0 + -0.0: a new height of -0.0
    lowest = np.minimum(heights, 0.0)
    want = heights + field
    np.maximum(want, lowest, out=want)
    assert np.signbit(heights[heights == 0.0]).any() and (want == lowest).any()
    assert np.signbit((heights + field)[want == 0.0]).any()
    kept = field.copy()
    _apply(heights, kept, clear=False)
    assert np.array_equal(heights.view(np.uint64), want.view(np.uint64))
    assert np.array_equal(kept.view(np.uint64), field.view(np.uint64))
    _apply(want, field)
    assert not field.any() and not np.signbit(field).any()


def test_world_water_is_cut_from_the_covered_window():
    # A world's rivers, made with the heights of the covered window, are
    # those water_kinds makes for any window inside it; outside it, and
    # with nothing covered, they are made afresh (the same bytes).
    from worldgen.terrain._windowed import World
    from worldgen.world import spawn
    from worldgen.world._fields import water_kinds, world_fields

    config = map_config(preset("continents"))
    x0, y0 = spawn(config.world)
    covered = Window(x0 - 150, y0 - 230, 300, 530)
    inner = Window(x0 - 100, y0 - 200, 170, 400)
    fields = world_fields(config.world, covered, climate=False, rivers=True)
    metres, kinds, discharge = config.world_water(covered)
    np.testing.assert_array_equal(metres, fields.elevation)
    np.testing.assert_array_equal(kinds, fields.water_kind)
    np.testing.assert_array_equal(discharge, fields.discharge)
    assert (kinds == 1).any() and (discharge > 0).any()  # rivers there to compare
    assert np.array_equal(config.world_ground(covered)[1], kinds)
    world = World(config, TerrainConfig(), shared=False)
    for window in (inner, covered, Window(x0 + 140, y0, 30, 20)):
        expected = water_kinds(config.world, window)
        world.release()
        got = [world.world_water(window)]  # nothing covered
        world.cover(covered)
        got.append(world.world_water(window))
        for kind, flow in got:
            assert kind.dtype == np.uint8 and flow.dtype == np.float32
            np.testing.assert_array_equal(kind, expected[0])
            np.testing.assert_array_equal(flow, expected[1])
