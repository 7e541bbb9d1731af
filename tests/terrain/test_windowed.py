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
from worldgen.terrain import erode
from worldgen.terrain._erosion import HydraulicErosion, erode_cells
from worldgen.terrain._rivers import D8_OFFSETS, lake_sizes
from worldgen.terrain._windowed import BAND, TILE, _axis_weights, _tiles_over, clear_caches
from worldgen.world import NoiseMap, Window

ISLAND = map_config(merge({"terrain": {"seed": 3}}, preset("classic-islands")))
# Unmasked: rivers come from fixed regions (smaller than the default, to
# keep the test quick).
PLAIN = MapConfig(terrain=NoiseMap(seed=11, scale=96.0, octaves=4, normalize="global"))
SEAMS = MapConfig(terrain=NoiseMap(seed=2, scale=96.0, normalize="global"))
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


# ------------------------------------------------------------------ seams


def _seam_statistics(heights, eroded):
    """(99th percentile of height steps across the tile borders / across the
    lines 2 to 5 cells from them, mean erosion within 32 cells of a border /
    farther than the blending band).

    The steps are compared with those of lines near the borders (inside the
    tiles) so that both sample the same terrain: a seam shows, differences
    of terrain between far-apart lines do not."""
    borders = (256, 512, 768)

    def steps(lines):
        return np.concatenate(
            [np.abs(heights[:, c] - heights[:, c - 1]) for c in lines]
            + [np.abs(heights[c, :] - heights[c - 1, :]) for c in lines]
        )

    inner = [b + d for b in borders for d in (-5, -4, -3, -2, 2, 3, 4, 5)]
    step_ratio = np.percentile(steps(borders), 99) / np.percentile(steps(inner), 99)
    distance = np.min([np.abs(np.arange(1024) + 0.5 - b) for b in borders], axis=0)
    near = (distance[None, :] < 32) | (distance[:, None] < 32)
    far = (distance[None, :] > BAND) & (distance[:, None] > BAND)
    return step_ratio, eroded[near].mean() / eroded[far].mean()


@pytest.mark.slow
def test_no_seams_at_tile_borders():
    window = Window(0, 0, 1024, 1024)
    t = make_terrain(SEAMS, TerrainConfig(rivers=False), window=window)
    steps, depth = _seam_statistics(t.heights, t.erosion.eroded)
    assert abs(steps - 1.0) < 0.1 and abs(depth - 1.0) < 0.1, (steps, depth)
    # The same statistics catch tiles eroded alone: droplets leave them.
    heights, eroded = t.layers.elevation.copy(), np.zeros((1024, 1024))
    for tile in window.tiles(256):
        part = np.s_[tile.y : tile.y + 256, tile.x : tile.x + 256]
        alone = erode(heights[part], 256 * 256 // 4, seed=1)
        heights[part], eroded[part] = alone.heights, alone.eroded
    assert _seam_statistics(heights, eroded)[0] > 1.2


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


def test_overlapping_regions_run_the_same_droplets():
    y, x = np.mgrid[0:80, 0:200]
    heights = 0.5 + 0.2 * np.sin(x / 7.0) * np.cos(y / 9.0)
    params = dataclasses.replace(HydraulicErosion(), lifetime=1)
    a = erode_cells(heights, (1000, -40), 0.5, seed=9, params=params)
    b = erode_cells(heights[:, 100:], (1100, -40), 0.5, seed=9, params=params)
    # One-step droplets: beyond a few cells of the cut, the same droplets
    # did the same work (up to the rounding of sums in another order).
    assert np.abs(a.heights[:, 120:] - b.heights[:, 20:]).max() < 1e-12
    assert np.abs(a.heights[:, 100:110] - b.heights[:, :10]).max() > 1e-4
    other = erode_cells(heights, (1001, -40), 0.5, seed=9, params=params)
    assert not np.array_equal(a.heights, other.heights)


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
    y, x = np.mgrid[0:120, 0:160]
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
    heights = np.tile(np.linspace(1.0, 0.0, 64), (64, 1))
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


def test_per_cell_droplets_in_slices_are_one_call(monkeypatch):
    # Slices of rows keep Ctrl-C responsive; chained, they must be the same
    # droplets in the same order as one call.
    from worldgen.terrain import _erosion

    heights = np.random.default_rng(1).random((60, 70))
    params = HydraulicErosion()
    one = _erosion.erode_cells(heights, (-37, 12), 2.3, seed=5, params=params)
    monkeypatch.setattr(_erosion, "_DROPLET_STEPS_PER_SLICE", 3000)
    sliced = _erosion.erode_cells(heights, (-37, 12), 2.3, seed=5, params=params)
    for name in ("heights", "eroded", "deposited"):
        assert np.array_equal(getattr(one, name), getattr(sliced, name)), name
    assert one.carried == sliced.carried
