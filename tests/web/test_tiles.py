"""Tile math and tile products against the library's own maps."""

import io
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from worldgen.io import write_map_set
from worldgen.products import MapConfig, make_layers
from worldgen.web import (
    LAYERS,
    NATIVE_ZOOM,
    TILE,
    build_config,
    terrarium,
    tile_image,
    tile_origin,
    tile_png,
    tile_window,
    world_key,
)
from worldgen.web._tiles import HALF, check_tile, lnglat_to_cell
from worldgen.world import Mask, NoiseMap, Window, WorldConfig, spawn

CONFIG = build_config({}, {"preset": "classic-islands", "seed": 4})
WORLD = build_config({}, {"preset": "continents", "seed": 4})
CENTRE = 2 ** (NATIVE_ZOOM - 1)


def decode_terrarium(rgb: np.ndarray) -> np.ndarray:
    rgb = rgb.astype(np.float64)
    return rgb[..., 0] * 256 + rgb[..., 1] + rgb[..., 2] / 256 - 32768


def test_pyramid_centre_is_world_origin_and_zooms_nest():
    assert tile_origin(NATIVE_ZOOM, CENTRE, CENTRE) == (0, 0)
    assert tile_origin(0, 0, 0) == (-HALF, -HALF)
    # Tile (z, x, y) covers the same cells as its four children at z + 1.
    for z in (0, 5, NATIVE_ZOOM - 1):
        x = y = 2**z // 3
        w = tile_window(z, x, y, origin=(256, 256))
        child = tile_window(z + 1, 2 * x, 2 * y, origin=(256, 256))
        assert (w.x, w.y, w.step) == (child.x, child.y, 2 * child.step)


def test_cursor_mapping_inverts_the_pyramid():
    # The west edge of the map is the west edge of tile x = 0 at every zoom.
    assert lnglat_to_cell(-180.0, 0.0) == (-HALF, 0.0)
    assert lnglat_to_cell(180.0, 0.0) == (HALF, 0.0)


@pytest.mark.parametrize(
    ("z", "x", "y", "error"),
    [
        (-1, 0, 0, ValueError),
        (NATIVE_ZOOM + 1, 0, 0, ValueError),
        (3, 8, 0, ValueError),
        (3, 0, -1, ValueError),
        (3, 1.5, 0, TypeError),
        (True, 0, 0, TypeError),
    ],
)
def test_bad_tile_coordinates(z, x, y, error):
    with pytest.raises(error, match="tile"):
        check_tile(z, x, y)


def test_unknown_layer_and_local_normalisation_are_refused():
    with pytest.raises(ValueError, match="layer must be one of colour"):
        tile_image(CONFIG, "rivers", 3, 0, 0)
    with pytest.raises(ValueError, match="normalize='global' or 'none'"):
        tile_image(MapConfig(), "colour", 3, 0, 0)
    with pytest.raises(ValueError, match="from 12 to 16"):
        tile_image(CONFIG, "voxel", 11, 0, 0)


@settings(max_examples=15)
@given(
    x=st.integers(-(2**30), 2**30),
    y=st.integers(-(2**30), 2**30),
    step=st.sampled_from([1, 2, 8, 1024]),
)
def test_stepped_window_samples_the_unstepped_grid(x, y, step):
    config = build_config({}, {"preset": "classic-continents", "seed": 9})
    coarse = make_layers(config, Window(x, y, 5, 4, step))
    for j in range(4):
        for i in range(5):
            one = make_layers(config, Window(x + i * step, y + j * step, 1, 1))
            assert coarse.elevation[j, i] == one.elevation[0, 0]
            assert coarse.biomes[j, i] == one.biomes[0, 0]


def test_stepped_windows_split_into_stepped_tiles():
    parts = Window(10, 20, 5, 3, step=4).tiles(2)
    assert parts[1] == Window(18, 20, 2, 2, 4)
    assert parts[-1] == Window(26, 28, 1, 1, 4)
    with pytest.raises(ValueError, match="window step"):
        Window(0, 0, 1, 1, step=0)


def test_export_is_the_map_set_of_the_window():
    from worldgen.web._export import MAX_EXPORT, export_window, export_zip

    x, z = tile_origin(NATIVE_ZOOM, CENTRE - 1, CENTRE)
    with zipfile.ZipFile(io.BytesIO(export_zip(CONFIG, x, z, 256, 256))) as archive:
        assert "tilemap.json" in archive.namelist()
        colour = np.asarray(Image.open(archive.open("colour.png")).convert("RGB"))
    tile = tile_image(CONFIG, "colour", NATIVE_ZOOM, CENTRE - 1, CENTRE)
    np.testing.assert_array_equal(colour[1:-1, 1:-1], tile[1:-1, 1:-1])
    assert export_window(0, 0, 5000, 10) == ((5000 - MAX_EXPORT) // 2, 0, MAX_EXPORT, 10)


def test_native_tiles_equal_the_cli_map(tmp_path):
    # The islands map of 512 x 512 cells is world cells -256..255; the tile
    # at the pyramid's centre is its south-east quarter. Pictures that look
    # at neighbours differ only on the map's own last row and column.
    write_map_set(CONFIG, tmp_path)
    for layer, name in (("colour", "colour.png"), ("biomes", "biomes.png")):
        cli = np.asarray(Image.open(tmp_path / name).convert("RGB"))[256:511, 256:511]
        tile = tile_image(CONFIG, layer, NATIVE_ZOOM, CENTRE, CENTRE)
        np.testing.assert_array_equal(tile[:-1, :-1], cli)
    cli16 = np.asarray(Image.open(tmp_path / "height.png"), dtype=np.float64) / 65535
    metres = decode_terrarium(tile_image(CONFIG, "height", NATIVE_ZOOM, CENTRE, CENTRE))
    np.testing.assert_allclose(
        metres, CONFIG.metres_from_unit(cli16[256:, 256:]), atol=1e-4 * CONFIG.relief
    )


def test_png_bytes_decode_to_the_tile_image():
    for layer in ("colour", "hillshade"):
        data = tile_png(CONFIG, layer, 12, 2047, 2048)
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        decoded = np.asarray(Image.open(io.BytesIO(data)))
        np.testing.assert_array_equal(decoded, tile_image(CONFIG, layer, 12, 2047, 2048))


def _tile_near(config, z: int) -> tuple[int, int]:
    """The tile at zoom ``z`` holding the world's spawn (or the pyramid's
    centre for a classic map)."""
    if config.world is None:
        return 2 ** (z - 1) - 1, 2 ** (z - 1) - 1
    x, y = spawn(config.world)
    step = 2 ** (NATIVE_ZOOM - z)
    return (x + HALF) // (TILE * step), (y + HALF) // (TILE * step)


@pytest.mark.parametrize("config", [CONFIG, WORLD], ids=["classic", "world"])
@pytest.mark.parametrize("layer", [name for name in LAYERS if name != "voxel"])
@pytest.mark.parametrize("z", [NATIVE_ZOOM, 11, 3])
def test_neighbouring_tiles_meet_without_seams(config, layer, z):
    # Four tiles made alone, laid side by side, equal the 2 x 2 block made
    # as one window: they agree on every shared edge.
    x, y = _tile_near(config, z)
    block = tile_image(config, layer, z, x, y, tiles=2)
    laid = np.concatenate(
        [
            np.concatenate([tile_image(config, layer, z, x + i, y + j) for i in (0, 1)], axis=1)
            for j in (0, 1)
        ],
        axis=0,
    )
    np.testing.assert_array_equal(laid, block)
    assert block.shape[:2] == (2 * TILE, 2 * TILE)


@pytest.mark.parametrize("z", [NATIVE_ZOOM, 12])
def test_voxel_tiles_meet_at_every_zoom(z):
    x, y = _tile_near(WORLD, z)
    block = tile_image(WORLD, "voxel", z, x, y, tiles=2)
    laid = np.concatenate(
        [
            np.concatenate([tile_image(WORLD, "voxel", z, x + i, y + j) for i in (0, 1)], axis=1)
            for j in (0, 1)
        ],
        axis=0,
    )
    np.testing.assert_array_equal(laid, block)


def test_voxel_tiles_have_the_maps_water_and_the_generators_trees():
    """At zoom 16 a voxel tile is the voxel world's top blocks: water exactly
    where the map has water, and leaves where the generator grows trees."""
    from worldgen.voxel import VoxelConfig, generate_region
    from worldgen.voxel._blocks import LEAVES
    from worldgen.voxel._generator import surface_blocks
    from worldgen.world import Window, spawn, world_fields

    x, y = spawn(WORLD.world)
    window = Window(x - 128, y - 128, 256, 256)
    ids, top, depth, _ = surface_blocks(VoxelConfig(world=WORLD.world), window)
    water = world_fields(WORLD.world, window, climate=False, rivers=True).water
    assert water.any() and (~water).any()
    np.testing.assert_array_equal(depth > 0, water)
    # Without rivers, against the generator's blocks.
    config = VoxelConfig(world=WORLD.world, terrain="heightmap", caves=False, rivers=False)
    ids, top, depth, _ = surface_blocks(config, window)
    blocks, heights = generate_region(config, x - 128, y - 128, 256, 256)
    tops = np.take_along_axis(blocks, (heights - config.y_min)[None].astype(np.int64), axis=0)[0]
    np.testing.assert_array_equal(tops, ids)  # water, ice, sand, grass, snow, stone, leaves
    assert (ids == LEAVES).any()
    np.testing.assert_array_equal(np.where(depth > 0, config.sea_level, heights), top)


def test_voxel_tiles_meet_and_show_the_world():
    x, y = _tile_near(WORLD, NATIVE_ZOOM)
    block = tile_image(WORLD, "voxel", NATIVE_ZOOM, x, y, tiles=2)
    right = tile_image(WORLD, "voxel", NATIVE_ZOOM, x + 1, y)
    np.testing.assert_array_equal(block[:TILE, TILE:], right)
    assert len(np.unique(block.reshape(-1, 3), axis=0)) > 20  # not a flat colour


def test_lower_zoom_heights_sample_the_native_ones():
    coarse = decode_terrarium(
        tile_image(CONFIG, "height", NATIVE_ZOOM - 1, CENTRE // 2, CENTRE // 2)
    )
    fine = decode_terrarium(tile_image(CONFIG, "height", NATIVE_ZOOM, CENTRE, CENTRE))
    np.testing.assert_array_equal(coarse[:128, :128], fine[::2, ::2])


def test_terrarium_round_trips_to_1_256_metre():
    metres = np.linspace(-500.0, 9000.0, 1001).reshape(7, 143)
    np.testing.assert_allclose(decode_terrarium(terrarium(metres)), metres, atol=1 / 256)


def test_world_key_changes_with_every_parameter_and_the_sea_moves():
    keys = {
        world_key(build_config({}, params))
        for params in (
            {},
            {"seed": 1},
            {"scale": 100.0},
            {"octaves": 3},
            {"persistence": 0.4},
            {"lacunarity": 2.5},
            {"sea": 0.5},
            {"preset": "classic-islands"},
            {"preset": "continents"},
            {"preset": "continents", "seed": 1},
            {"preset": "continents", "continent_size": 32768},
            {"preset": "continents", "land_fraction": 0.3},
            {"preset": "continents", "relief": 200.0},
            {"preset": "islands"},
        )
    }
    assert len(keys) == 14
    assert world_key(build_config({}, {"seed": 1})) == world_key(build_config({}, {"seed": 1}))
    high = build_config({}, {"sea": 0.6})
    assert high.sea_level == pytest.approx(0.6)
    assert [b.top for b in high.bands] == sorted(b.top for b in high.bands)


def test_world_key_is_the_same_in_every_process():
    """The key is a hash of the config's values, not of objects: equal
    configs made apart, here and in two other interpreters, share it."""
    import dataclasses
    import subprocess
    import sys

    params = {"seed": 12, "scale": 300.0, "octaves": 5, "sea": 0.45, "preset": "classic-islands"}
    here = world_key(build_config({}, params))
    rebuilt = build_config({}, params)
    rebuilt = dataclasses.replace(rebuilt, terrain=dataclasses.replace(rebuilt.terrain))
    assert world_key(rebuilt) == here
    code = (
        "from worldgen.web import build_config, world_key; "
        f"print(world_key(build_config({{}}, {params!r})))"
    )
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, timeout=120)  # fmt: skip
        assert done.stdout.strip() == here
    assert world_key(build_config({}, {**params, "seed": 13})) != here


def test_tile_window_of_a_map_wider_than_tall():
    """A classic map's origin is its centre on each axis (x from the width,
    y from the height), and a tile's window is placed from it."""
    from worldgen.products import MapConfig
    from worldgen.web import tile_window
    from worldgen.world import NoiseMap

    assert MapConfig(terrain=NoiseMap(width=600, height=400)).origin == (300, 200)
    centre = 2 ** (NATIVE_ZOOM - 1)
    assert tile_window(NATIVE_ZOOM, centre, centre, origin=(300, 200)) == Window(300, 200, 256, 256)
    assert tile_window(NATIVE_ZOOM, centre, centre - 1, origin=(300, 200)) == Window(
        300, 200 - 256, 256, 256
    )
    assert tile_window(NATIVE_ZOOM - 2, centre // 4, centre // 4, origin=(3, 500), halo=2,
                       tiles=2) == Window(3 - 8, 500 - 8, 516, 516, 4)  # fmt: skip


def test_file_data_sits_under_the_page_parameters():
    config = build_config({"mask": {"shape": "radial", "radius": 100.0}}, {"seed": 3})
    assert config.mask == Mask("radial", radius=100.0)
    assert config.terrain.seed == 3 and config.terrain.normalize == "global"
    assert build_config({"terrain": {"normalize": "none"}}, {}).terrain == NoiseMap(
        normalize="none"
    )


def test_world_tiles_are_metres_above_sea_level_and_views_of_the_world():
    """The height tiles of a world are its metres (sea level 0 m, the sea
    floor negative, river beds carved); a tile at the native zoom is the
    world's full-detail window, and a zoom-z tile its level 16 - z."""
    from worldgen.world import elevation, world_fields

    x, y = _tile_near(WORLD, NATIVE_ZOOM)
    metres = decode_terrarium(tile_image(WORLD, "height", NATIVE_ZOOM, x, y))
    window = tile_window(NATIVE_ZOOM, x, y)
    carved = world_fields(WORLD.world, window, climate=False, rivers=True).elevation
    np.testing.assert_allclose(metres, carved, atol=1 / 256)
    assert metres.min() < 0.0 < metres.max()  # the spawn's tile holds sea and land
    x, y = _tile_near(WORLD, 5)
    coarse = decode_terrarium(tile_image(WORLD, "height", 5, x, y))
    np.testing.assert_allclose(coarse, elevation(WORLD.world, tile_window(5, x, y)), atol=1 / 256)
    assert tile_window(5, x, y).step == 2**11


def test_the_page_parameters_of_a_world_are_its_own():
    from worldgen.web import Worlds

    worlds = Worlds({}, {"preset": "continents"})
    with pytest.raises(ValueError, match="scale applies to the classic presets"):
        worlds.build({"preset": "islands", "scale": 50.0})
    config, params = worlds.build({"preset": "islands"})
    assert config.world == WorldConfig(continent_size=4096, land_fraction=0.2, relief=160.0,
                                       ocean_depth=60.0)  # fmt: skip
    assert params == {"preset": "islands", "seed": 0, "continent_size": 4096,
                      "land_fraction": 0.2, "relief": 160.0}  # fmt: skip
    config, params = worlds.build({"preset": "classic", "seed": 5})
    assert config.world is None and params["scale"] == 128.0 and "continent_size" not in params


@pytest.mark.parametrize("z", [NATIVE_ZOOM, 9, 3])
def test_climate_layers_show_the_worlds_climate(z):
    """The temperature and rainfall tiles are the world's fields at the
    tile's level, through their colour ramps; the rainfall tile's sea and,
    where rivers are drawn, its lakes and rivers are the world's water."""
    from worldgen.products import colour_ramp
    from worldgen.web._products import _RAINFALL_RAMP, _SEA, _TEMPERATURE_RAMP
    from worldgen.world import world_fields
    from worldgen.world._rivers import drawn

    x, y = _tile_near(WORLD, z)
    window = tile_window(z, x, y)
    fields = world_fields(WORLD.world, window, rivers=drawn(WORLD.world, window))
    temperature = tile_image(WORLD, "temperature", z, x, y)
    np.testing.assert_array_equal(
        temperature, colour_ramp(fields.temperature, _TEMPERATURE_RAMP, blend=True)
    )
    rainfall = tile_image(WORLD, "rainfall", z, x, y)
    assert fields.water.any() and not fields.water.all()  # the spawn's coast
    sea = np.broadcast_to(_SEA, (int(fields.water.sum()), 3))
    np.testing.assert_array_equal(rainfall[fields.water], sea)
    dry = ~fields.water
    np.testing.assert_array_equal(
        rainfall[dry], colour_ramp(fields.rainfall, _RAINFALL_RAMP, blend=True)[dry]
    )
    # The climate varies across the tile: not one flat colour.
    assert np.ptp(fields.temperature) > 0.1 and np.ptp(fields.rainfall[dry]) > 1.0
