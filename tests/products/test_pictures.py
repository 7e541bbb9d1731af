"""Pictures of windows: world-unit strength, one-cell halo, crops of bigger maps."""

import dataclasses
import random

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldgen import threads
from worldgen.products import (
    DEFAULT_RELIEF,
    Cleanup,
    MapConfig,
    hillshade,
    make_layers,
    map_pictures,
    relief_shade,
    shaded_colour,
)
from worldgen.world import HeightCurve, Mask, NoiseMap, Window

PICTURES = ("height", "colour", "normal", "biomes")
NO_CLEANUP = Cleanup(thin_water=False, isolated=False)
ISLAND = MapConfig(
    terrain=NoiseMap(seed=11, width=1024, height=1024, scale=150.0, octaves=6, normalize="global"),
    mask=Mask("radial", radius=500.0),
    curve=HeightCurve(((0.0, 0.0), (0.5, 0.45), (1.0, 1.0)), smooth=True),
    cleanup=NO_CLEANUP,
)
# Far from the origin, unmasked and not normalised (a curve over the raw range).
FAR = MapConfig(
    terrain=NoiseMap(seed=-4, width=1024, height=1024, scale=90.0, octaves=7, normalize="none"),
    curve=HeightCurve(((-1.0, -1.0), (1.0, 1.0))),
    cleanup=NO_CLEANUP,
)
TWO = min(2, numba.config.NUMBA_NUM_THREADS)


def _assert_same(whole, part, cut):
    for name in PICTURES:
        a, b = getattr(whole, name)[cut], getattr(part, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert a.tobytes() == b.tobytes(), name


def _check_tiles(config, origin, whole_threads, tile_threads):
    window = Window(origin[0], origin[1], 1024, 1024)
    with threads(whole_threads):
        whole = map_pictures(config, window, blend=True)
    tiles = window.tiles(256)
    assert len(tiles) == 16
    random.Random(7).shuffle(tiles)
    with threads(tile_threads):
        for tile in tiles:
            part = map_pictures(config, tile, blend=True)
            y, x = tile.y - window.y, tile.x - window.x
            _assert_same(whole, part, (slice(y, y + 256), slice(x, x + 256)))
    return whole


def test_a_1024_window_equals_its_16_tiles_in_shuffled_order():
    whole = _check_tiles(ISLAND, (0, 0), TWO, 1)
    # The island has relief, water and several biomes: the pictures show something.
    assert whole.height.min() == 0.0 and whole.height.max() > 0.7
    assert len(np.unique(whole.biomes.reshape(-1, 3), axis=0)) > 20
    assert len(np.unique(whole.normal.reshape(-1, 3), axis=0)) > 1000


def test_the_same_far_from_the_origin():
    whole = _check_tiles(FAR, (10**7, -(10**7) + 3), 1, TWO)
    assert whole.height.std() > 0.05


def test_thread_count_does_not_change_the_pictures():
    window = Window(300, 200, 200, 150)
    with threads(1):
        one = map_pictures(ISLAND, window)
    with threads(TWO):
        two = map_pictures(ISLAND, window)
    _assert_same(one, two, (slice(None), slice(None)))


def test_pictures_do_not_depend_on_the_map_size():
    # The same world made as a 512 x 512 map and as a 256 x 256 map whose
    # offset puts it in the big map's top-left quarter: until the shading
    # took its strength from world units and its edges from a halo, the two
    # differed in nearly every pixel.
    big = MapConfig(terrain=NoiseMap(seed=2, width=512, height=512, normalize="global"))
    small = dataclasses.replace(
        big,
        terrain=dataclasses.replace(big.terrain, width=256, height=256, offset=(-128.0, -128.0)),
    )
    whole, quarter = map_pictures(big), map_pictures(small)
    _assert_same(whole, quarter, (slice(0, 256), slice(0, 256)))
    # ... and the shading is as strong as the default 512 x 512 map's always was.
    heights = big.unit_elevation(big.elevation(halo=1))
    expected = hillshade(np.maximum(heights, big.sea_level), exaggeration=512 / 4)[1:-1, 1:-1]
    assert np.array_equal(relief_shade(big, heights), expected)
    assert DEFAULT_RELIEF == 512 / 4


@settings(max_examples=12, deadline=None)
@given(
    x=st.integers(-(2**30), 2**30),
    y=st.integers(-(2**30), 2**30),
    dx=st.integers(0, 24),
    dy=st.integers(0, 24),
    w=st.integers(1, 9),
    h=st.integers(1, 9),
    normalize=st.sampled_from(["global", "none"]),
)
def test_any_window_is_a_crop_of_a_bigger_one(x, y, dx, dy, w, h, normalize):
    config = MapConfig(
        terrain=NoiseMap(seed=x, width=64, height=64, scale=20.0, normalize=normalize),
        mask=Mask("square", radius=40.0, centre=(float(x), float(y))),
    )
    big = map_pictures(config, Window(x, y, 40, 40))
    part = map_pictures(config, Window(x + dx, y + dy, w, h))
    _assert_same(big, part, (slice(dy, dy + h), slice(dx, dx + w)))


def test_window_edges_use_the_halo_not_replicated_edges():
    config = MapConfig(terrain=NoiseMap(seed=5, width=64, height=64, normalize="none"))
    window = Window(10, 10, 20, 20)
    heights = config.unit_elevation(config.elevation(window, halo=1))
    with_halo = shaded_colour(config, heights)
    edge = shaded_colour(config, heights[1:-1, 1:-1], halo=0)
    assert with_halo.shape == edge.shape == (20, 20, 3)
    assert np.array_equal(with_halo[1:-1, 1:-1], edge[1:-1, 1:-1])
    ring = np.ones((20, 20), dtype=bool)
    ring[1:-1, 1:-1] = False
    assert not np.array_equal(with_halo[ring], edge[ring])


def test_relief_is_the_strength_in_cells_per_unit_of_height():
    # Land rising 0.01 a cell toward the east, lit from the north-west at 45
    # degrees: with relief r the slope is p = 0.01 r and the shade
    # (sin 45 + p cos 45 sin 45) / sqrt(1 + p^2), whatever the window's size.
    config = MapConfig()
    for relief in (1e-9, 50.0, 100.0, DEFAULT_RELIEF):
        for size in (3, 7):
            ramp = np.tile(np.arange(size) / 100.0 + 0.5, (size, 1))
            p = 0.01 * relief
            expected = (np.sqrt(0.5) + p / 2) / np.sqrt(1 + p * p)
            shade = relief_shade(config, ramp, relief=relief)
            assert shade.shape == (size - 2, size - 2)
            assert np.allclose(shade, expected, rtol=0, atol=1e-12)


def test_noise_map_halo_keeps_the_window_values():
    for normalize in ("local", "global", "none"):
        m = NoiseMap(seed=1, width=48, height=32, normalize=normalize)
        plain = m.generate(Window(4, 5, 20, 10))
        grown = m.generate(Window(4, 5, 20, 10), halo=2)
        assert grown.shape == (14, 24)
        assert np.array_equal(grown[2:-2, 2:-2], plain)
    local = NoiseMap(seed=1, width=48, height=32).generate(halo=1)
    assert local[1:-1, 1:-1].min() == 0.0 and local[1:-1, 1:-1].max() == 1.0
    assert local.min() >= 0.0 and local.max() <= 1.0


def test_layers_are_reused_and_must_fit_the_window():
    config = MapConfig(terrain=NoiseMap(width=48, height=32, normalize="global"))
    window = Window(8, 8, 16, 8)
    layers = make_layers(config, window)
    made = map_pictures(config, window, layers=layers)
    _assert_same(map_pictures(config, window), made, (slice(None), slice(None)))
    with pytest.raises(
        ValueError, match=r"layers must be those of the window, shape \(9, 16\), got \(8, 16\)"
    ):
        map_pictures(config, Window(8, 8, 16, 9), layers=layers)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda c: MapConfig(relief=0.0), ValueError, "relief must be a number > 0"),
        (lambda c: shaded_colour(c, np.zeros((3, 3)), relief=-1), ValueError, "relief must be"),
        (lambda c: relief_shade(c, np.zeros((3, 3)), halo=2), ValueError, "halo must be"),
        (
            lambda c: shaded_colour(c, np.zeros((2, 5))),
            ValueError,
            r"heights with a halo must be 2-D and at least 3 x 3, got shape \(2, 5\)",
        ),
        (lambda c: relief_shade(c, np.zeros((3, 3)), relief="1"), TypeError, "relief must be"),
        (lambda c: Window(0, 0, 2, 2).grown(-1), ValueError, "halo must be an integer"),
    ],
)
def test_bad_input_names_the_parameter(call, error, message):
    with pytest.raises(error, match=message):
        call(MapConfig(terrain=NoiseMap(width=8, height=8)))


def test_relief_is_part_of_the_config():
    from worldgen.config import map_config, preset

    assert MapConfig().relief == DEFAULT_RELIEF == 128.0
    assert map_config({"relief": 64}).relief == 64.0
    # A preset scales its whole world with the map's size, relief too, so a
    # bigger preset map looks like the default one, only larger.
    assert map_config(preset("classic-islands", 512, 512)).relief == 128.0
    assert map_config(preset("classic-continents", 2048, 1024)).relief == 512.0
    config = MapConfig(terrain=NoiseMap(width=16, height=16), relief=32.0)
    heights = config.unit_elevation(config.elevation(halo=1))
    colour = map_pictures(config).colour
    assert np.array_equal(colour, shaded_colour(config, heights))
    assert np.array_equal(colour, shaded_colour(MapConfig(), heights, relief=32.0))
    assert not np.array_equal(colour, shaded_colour(MapConfig(), heights))


@pytest.mark.parametrize("blend", [False, True])
def test_wet_cells_take_the_top_water_colour_in_one_pass(blend, monkeypatch):
    # Lakes and rivers above the water bands are coloured as the top water
    # band and shaded by their own slopes, as map_pictures colours them;
    # the fused pass equals the plain numpy functions it replaces, in bands
    # of rows too.
    from worldgen.products import _pictures
    from worldgen.products._shading import apply_shade, colour_ramp

    config = MapConfig()
    top = config.bands[max(config.water_classes)].top
    rng = np.random.default_rng(7)
    padded = np.cumsum(rng.normal(0.0, 0.01, (41, 37)), axis=1) + 0.45
    wet = rng.random((39, 35)) < 0.3
    assert (wet & (padded[1:-1, 1:-1] > top)).any() and (padded < top).any()
    shown = np.where(wet & (padded[1:-1, 1:-1] > top), top, padded[1:-1, 1:-1])
    stops = [(b.top, b.colour) for b in config.bands]
    shade = relief_shade(config, padded, relief=40.0)
    expected = apply_shade(colour_ramp(shown, stops, blend=blend), shade, strength=0.6)
    made = shaded_colour(config, padded, relief=40.0, blend=blend, wet=wet)
    assert np.array_equal(made, expected)
    assert not np.array_equal(made, shaded_colour(config, padded, relief=40.0, blend=blend))
    monkeypatch.setattr(_pictures, "_BAND_CELLS", 37 * 4)  # bands of 4 rows
    assert np.array_equal(shaded_colour(config, padded, relief=40.0, blend=blend, wet=wet), made)
    with pytest.raises(ValueError, match=r"wet must have the window's shape \(39, 35\)"):
        shaded_colour(config, padded, wet=wet[1:])


@pytest.mark.parametrize("world", [False, True])
def test_the_one_pass_pictures_are_the_bytes_of_the_bands(monkeypatch, world):
    # Stepped colours, the biomes and the normal map come from one compiled
    # pass; made band by band (the blended colours' way) they are the same.
    from worldgen.config import map_config, preset
    from worldgen.products import _pictures

    if world:  # rivers and lakes: wet cells take the top water band's colour
        config = map_config(preset("continents", 300, 200))
        window = config.window
    else:
        config, window = ISLAND, Window(300, 200, 300, 200)
    layers = make_layers(config, window)
    fast = map_pictures(config, window, layers=layers)
    monkeypatch.setattr(_pictures, "_gentle", lambda heights, relief: False)
    banded = map_pictures(config, window, layers=layers)
    _assert_same(fast, banded, np.s_[:, :])
    assert len(np.unique(fast.colour.reshape(-1, 3), axis=0)) > 20  # land and sea shaded


@pytest.mark.parametrize("picture", ["map_pictures", "shaded_colour"])
def test_blend_that_is_not_a_bool_is_refused_by_name(picture):
    """An array as ``blend`` failed with numpy's "truth value of an array is
    ambiguous" (map_pictures' one-pass path, shaded_colour's bands)."""
    from worldgen.products._pictures import shaded_colour

    config = MapConfig(terrain=NoiseMap(width=8, height=8, normalize="global"))
    blend = np.zeros((4, 4))
    with pytest.raises(TypeError, match=r"blend must be True or False"):
        if picture == "map_pictures":
            map_pictures(config, blend=blend)
        else:
            shaded_colour(config, np.full((3, 3), 0.5), blend=blend)
