"""The four commands' defaults are one world: map, terrain, serve and world."""

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from worldgen.cli import app
from worldgen.voxel import VoxelConfig, generate_region
from worldgen.voxel._blocks import ICE, WATER
from worldgen.web import NATIVE_ZOOM, TILE, create_app, tile_image, tile_window
from worldgen.web._tiles import HALF
from worldgen.world import WorldConfig, spawn, world_fields

runner = CliRunner()
WORLD = WorldConfig(seed=0)


@pytest.fixture(scope="module")
def map_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("map")
    result = runner.invoke(app, ["map", "--out", str(out), "--export", "npy"])
    assert result.exit_code == 0, result.output
    return out


def _server_config():
    """The explorer's default world, as `worldgen serve` makes it."""
    worlds = create_app().state.explorer.worlds
    return worlds.get(worlds.default)[0]


def test_the_map_is_the_default_world_around_its_spawn(map_set):
    config = _server_config()
    assert config.world == WORLD
    water = np.load(map_set / "water.npy")
    assert water.shape == (512, 512) and water.any() and not water.all()


def test_map_water_and_the_explorers_colour_tiles_agree_at_zoom_16(map_set):
    """The map set's water.npy and colour.png against the explorer's colour
    tile at zoom 16 over the same cells: the same pixels, and the water
    pixels exactly the water cells."""
    config = _server_config()
    x, y = spawn(WORLD)
    x0, y0 = x - 256, y - 256  # the map's window
    tx, ty = (x + HALF) // TILE, (y + HALF) // TILE  # the tile holding the spawn
    tile = tile_image(config, "colour", NATIVE_ZOOM, tx, ty)
    window = tile_window(NATIVE_ZOOM, tx, ty)
    rows = np.s_[window.y - y0 : window.y - y0 + TILE]
    cols = np.s_[window.x - x0 : window.x - x0 + TILE]
    colour = np.asarray(Image.open(map_set / "colour.png").convert("RGB"))[rows, cols]
    water = np.load(map_set / "water.npy")[rows, cols]
    assert colour.shape == tile.shape  # the tile lies inside the map's window
    np.testing.assert_array_equal(colour[1:-1, 1:-1], tile[1:-1, 1:-1])
    water_colours = {tuple(c) for c in tile[water]}
    land_colours = {tuple(c) for c in tile[~water]}
    assert water.any() and (~water).any()
    # Water is drawn in the water bands' colours (the sea shaded a little at
    # the shore; rivers in their carved beds as their banks), and no land
    # cell in a water colour.
    bands = np.array([b.colour for b in config.bands[:2]], dtype=np.int16)
    sea = world_fields(WORLD, window, climate=False, rivers=True).water_kind == 3
    shades = np.array(sorted({tuple(c) for c in tile[sea]}), dtype=np.int16)
    assert (np.abs(shades[:, None, :] - bands[None] * 0.8).max(axis=2).min(axis=1) < 40).all()
    assert not water_colours & land_colours


@pytest.mark.parametrize("level", [1, 2, 3, 5])
def test_a_map_at_a_level_is_the_explorers_tiles_of_that_level(tmp_path, level):
    """``worldgen map --level L`` over the cells of a tile of zoom 16 - L:
    the explorer's colour and biome tiles, pixel for pixel. The map shaded
    its samples' slopes as if a sample were one cell across (2^L times too
    steep), the tiles over their 2^L cells; and the map gave a river whose
    bed lies below the sea's level (near its mouth) the sea's biome, the
    world (and its tiles) fresh water."""
    config = _server_config()
    z, step = NATIVE_ZOOM - level, 2**level
    x, y = spawn(WORLD)
    tx, ty = (x + HALF) // (TILE * step), (y + HALF) // (TILE * step)
    window = tile_window(z, tx, ty)
    result = runner.invoke(
        app,
        ["map", "--out", str(tmp_path), "--level", str(level), "--x", str(window.x),
         "--y", str(window.y), "--width", str(TILE), "--height", str(TILE)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for name in ("colour", "biomes"):
        with Image.open(tmp_path / f"{name}.png") as image:
            picture = np.asarray(image.convert("RGB"))
        np.testing.assert_array_equal(picture, tile_image(config, name, z, tx, ty), name)


def test_terrain_heights_are_the_maps(map_set, tmp_path):
    result = runner.invoke(
        app,
        ["terrain", "--out", str(tmp_path), "--export", "npy", "--droplets", "0", "--no-rivers",
         "--width", "128", "--height", "128", "--x", "0", "--y", "0"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    x, y = spawn(WORLD)
    whole = runner.invoke(
        app,
        ["map", "--out", str(tmp_path / "m"), "--export", "npy", "--width", "128",
         "--height", "128", "--x", "0", "--y", "0"],
    )  # fmt: skip
    assert whole.exit_code == 0, whole.output
    np.testing.assert_array_equal(
        np.load(tmp_path / "height.npy"), np.load(tmp_path / "m" / "height.npy")
    )
    default = np.load(map_set / "height.npy")
    terrain = runner.invoke(
        app, ["terrain", "--out", str(tmp_path / "t"), "--export", "npy", "--droplets", "0"]
    )
    assert terrain.exit_code == 0, terrain.output
    np.testing.assert_array_equal(np.load(tmp_path / "t" / "height.npy"), default)
    assert (x, y) == spawn(WORLD)


def test_the_voxel_worlds_water_is_the_maps(map_set):
    """The voxel world of the same seed, around the same spawn: columns whose
    top is water agree with the map's water.npy (the world's rivers and
    lakes in both)."""
    config = VoxelConfig(seed=0)
    x, y = spawn(config.world)
    blocks, heights = generate_region(config, x - 128, y - 128, 256, 256)
    top = np.take_along_axis(blocks, (heights - config.y_min)[None].astype(np.int64), axis=0)[0]
    voxel_water = (top == WATER) | (top == ICE)
    water = np.load(map_set / "water.npy")[128:384, 128:384]
    agree = (voxel_water == water).mean()
    assert agree >= 0.97, agree
