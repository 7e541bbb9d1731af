"""Noise maps, shaping, classification and the map pipeline."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from worldgen.noise import Fractal, Perlin, axis
from worldgen.products._classify import DEFAULT_BANDS, DEFAULT_BIOMES, BiomeTable, classify
from worldgen.products._maps import Cleanup, MapConfig, make_layers
from worldgen.world._noise_map import NoiseMap, global_range
from worldgen.world._shaping import HeightCurve, Mask, falloff_curve
from worldgen.world._window import Window

NO_CLEANUP = Cleanup(thin_water=False, isolated=False)


def test_noise_map_samples_the_documented_coordinates():
    m = NoiseMap(
        seed=5, width=40, height=30, scale=7.0, offset=(3.0, -2.0), octaves=3, normalize="none"
    )
    x = (np.arange(40) - 20 + 3.0) / 7.0
    y = (np.arange(30) - 15 - 2.0) / 7.0
    expected = Fractal(Perlin(5), 3).grid(x, y)
    assert np.array_equal(m.generate(), expected)


def test_offset_pans_in_world_units():
    a = NoiseMap(width=64, height=64, offset=(16.0, 8.0), normalize="none").generate()
    b = NoiseMap(width=64, height=64, normalize="none").generate(Window(16, 8, 48, 56))
    assert np.array_equal(a[:56, :48], b)


def test_local_normalisation_spans_zero_to_one():
    h = NoiseMap(seed=2, width=64, height=48).generate()
    assert h.min() == 0.0 and h.max() == 1.0


@pytest.mark.parametrize("normalize", ["global", "none"])
@given(seed=st.integers(0, 2**63), x=st.integers(-300, 300), y=st.integers(-300, 300))
def test_window_alone_equals_window_cut(normalize, seed, x, y):
    m = NoiseMap(seed=seed, width=200, height=150, scale=33.0, octaves=5, normalize=normalize)
    big = m.generate(Window(x, y, 64, 48))
    part = m.generate(Window(x + 10, y + 7, 21, 13))
    assert np.array_equal(big[7:20, 10:31].view(np.uint64), part.view(np.uint64))


def test_global_range_is_window_independent_and_covers_the_values():
    m = NoiseMap(seed=9, width=512, height=512, normalize="global")
    lo, hi = global_range(m.fractal)
    raw = m.raw()
    assert np.mean((raw < lo) | (raw > hi)) < 0.01
    h = m.generate()
    assert h.min() >= 0.0 and h.max() <= 1.0 and h.std() > 0.12


@pytest.mark.parametrize(
    ("field", "bad", "message"),
    [
        ("scale", 0.0, "scale must be a finite number > 0"),
        ("scale", -3.0, "scale must be a finite number > 0"),
        ("normalize", "minmax", "normalize must be one of 'local', 'global', 'none'"),
        ("noise", "worley", "noise must be one of"),
        ("octaves", 0, "octaves must be an integer from 1 to 32"),
        ("offset", (1.0,), "offset must be two finite numbers"),
        ("width", 0, "width must be an integer from 1"),
    ],
)
def test_noise_map_bad_input(field, bad, message):
    with pytest.raises(ValueError, match=message):
        NoiseMap(**{field: bad})


def test_falloff_curve_shape():
    t = np.linspace(0, 1, 101)
    f = falloff_curve(t)
    assert f[0] == 0.0 and f[-1] == 1.0
    assert np.all(np.diff(f) >= 0)
    a, b = 3.0, 2.2
    assert f[50] == pytest.approx(0.5**a / (0.5**a + (b - b * 0.5) ** a))


def test_masks_are_zero_at_centre_and_one_at_radius():
    wx = np.array([-20.0, 0.0, 20.0])
    for shape in ("square", "radial", "square-bump"):
        f = Mask(shape, radius=20.0).falloff(wx, wx)
        assert f[1, 1] == 0.0
        assert f[1, 0] == f[1, 2] == f[0, 1] == 1.0
    radial = Mask("radial", radius=20.0).falloff(np.array([15.0]), np.array([15.0]))
    square = Mask("square", radius=20.0).falloff(np.array([15.0]), np.array([15.0]))
    assert radial[0, 0] == 1.0 and square[0, 0] < 1.0
    assert np.array_equal(Mask("none").apply(np.ones((3, 3)), wx, wx), np.ones((3, 3)))


def test_mask_lowers_land_toward_the_edge_and_clips():
    h = np.full((3, 3), 0.5)
    out = Mask("square", radius=1.0).apply(
        h, np.array([-1.0, 0.0, 1.0]), np.array([-1.0, 0.0, 1.0])
    )
    assert out[1, 1] == 0.5 and out[0, 0] == 0.0


def test_height_curve_linear_flat_sea():
    sea = HeightCurve(((0.0, 0.4), (0.4, 0.4), (1.0, 1.0)))
    assert np.array_equal(sea(np.array([0.0, 0.2, 0.4, 0.7, 1.0])), [0.4, 0.4, 0.4, 0.7, 1.0])


def test_height_curve_smooth_is_monotone_and_hits_points():
    curve = HeightCurve(((0.0, 0.0), (0.3, 0.05), (0.5, 0.5), (1.0, 1.0)), smooth=True)
    h = np.linspace(0, 1, 2001)
    out = curve(h)
    assert np.all(np.diff(out) >= -1e-12)
    assert curve(np.array([0.3, 0.5]))[0] == pytest.approx(0.05)
    assert out.min() >= 0.0 and out.max() <= 1.0


def test_height_curve_power_redistribution():
    assert np.allclose(HeightCurve(power=2.0)(np.array([0.5, 1.0])), [0.25, 1.0])


@pytest.mark.parametrize("points", [((0, 0),), ((0.5, 0), (0.2, 1)), ((0, 0), (0, 1)), "ab"])
def test_height_curve_bad_points(points):
    with pytest.raises(ValueError, match="curve points"):
        HeightCurve(points)


def test_default_bands_are_the_documented_palette():
    assert [(b.name, b.top) for b in DEFAULT_BANDS] == [
        ("deep water", 0.30), ("shallow water", 0.40), ("sand", 0.45), ("grass", 0.55),
        ("grass 2", 0.60), ("rock", 0.70), ("rock 2", 0.90), ("snow", 1.00),
    ]  # fmt: skip
    h = np.array([0.0, 0.30, 0.3000001, 0.40, 0.45, 0.5, 0.6, 0.65, 0.9, 0.95, 2.0])
    assert classify(h).tolist() == [0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 7]


def test_default_biome_table_is_pinned_at_its_boundaries():
    t = DEFAULT_BIOMES
    assert t.elevation == (0.40, 0.45, 0.60, 0.75, 0.88, 1.0)
    assert t.moisture == (1 / 6, 1 / 3, 0.5, 2 / 3, 5 / 6, 1.0)
    assert t.temperature == (1.0,)
    names = t.names
    # Each elevation top and the sample just above it, at one dry and one wet
    # moisture, and each moisture top and just above it on the midland row.
    up = np.nextafter
    elevation = [0.40, up(0.40, 1), 0.45, up(0.45, 1), 0.60, up(0.60, 1), 0.75, up(0.75, 1),
                 0.88, up(0.88, 1), 1.0, 1.5]  # fmt: skip
    dry = [names[i] for i in t.classify(np.array(elevation), np.zeros(12))]
    wet = [names[i] for i in t.classify(np.array(elevation), np.ones(12))]
    assert dry == ["ocean", "beach", "beach", "subtropical desert", "subtropical desert",
                   "temperate desert", "temperate desert", "temperate desert",
                   "temperate desert", "scorched", "scorched", "scorched"]  # fmt: skip
    assert wet == ["ocean", "beach", "beach", "tropical rain forest", "tropical rain forest",
                   "temperate rain forest", "temperate rain forest", "taiga", "taiga",
                   "snow", "snow", "snow"]  # fmt: skip
    moisture = [m for top in t.moisture[:-1] for m in (top, up(top, 1))]
    midland = [names[i] for i in t.classify(np.full(10, 0.7), np.array(moisture))]
    assert midland == ["temperate desert", "grassland", "grassland", "grassland",
                       "grassland", "temperate deciduous forest", "temperate deciduous forest",
                       "temperate deciduous forest", "temperate deciduous forest",
                       "temperate rain forest"]  # fmt: skip
    assert dict(t.colours) == {
        "ocean": (54, 80, 140), "beach": (210, 195, 140), "scorched": (85, 85, 85),
        "bare": (136, 136, 136), "tundra": (187, 187, 170), "snow": (245, 245, 250),
        "temperate desert": (201, 210, 155), "shrubland": (136, 153, 119),
        "taiga": (153, 170, 119), "grassland": (136, 170, 85),
        "temperate deciduous forest": (103, 148, 89), "temperate rain forest": (68, 136, 85),
        "subtropical desert": (210, 185, 139), "tropical seasonal forest": (85, 153, 68),
        "tropical rain forest": (51, 119, 85),
    }  # fmt: skip


@given(
    st.lists(st.floats(-2.0, 3.0, allow_nan=False), min_size=1, max_size=60),
    st.lists(st.floats(-1.0, 2.0, allow_nan=False), min_size=1, max_size=9, unique=True),
)
def test_classify_is_the_search_of_the_band_tops(values, tops):
    # The first band whose top is at least the height (the last above every
    # top), as numpy's search finds it; the tops themselves, strided and
    # 2-D heights too.
    from worldgen.products._classify import Band

    tops = sorted(tops)
    bands = [Band(f"b{k}", top, (k, k, k)) for k, top in enumerate(tops)]
    heights = np.array(values + tops)
    expected = np.minimum(np.searchsorted(tops, heights, side="left"), len(tops) - 1)
    got = classify(heights, bands)
    assert got.dtype == np.uint8 and np.array_equal(got, expected)
    grid = np.repeat(heights[None, :], 3, axis=0)[:, ::2]
    assert np.array_equal(classify(grid, bands), np.repeat(expected[None, ::2], 3, axis=0))


def test_biomes_by_elevation_and_moisture():
    names = DEFAULT_BIOMES.names
    ids = DEFAULT_BIOMES.classify(
        np.array([0.2, 0.42, 0.5, 0.5, 0.7, 0.8, 0.95, 0.95]),
        np.array([0.5, 0.5, 0.05, 0.95, 0.4, 0.9, 0.05, 0.9]),
    )
    assert [names[i] for i in ids] == [
        "ocean", "beach", "subtropical desert", "tropical rain forest", "grassland",
        "taiga", "scorched", "snow",
    ]  # fmt: skip


def test_biome_temperature_axis():
    table = BiomeTable(
        elevation=(0.5, 1.0),
        moisture=(1.0,),
        temperature=(0.5, 1.0),
        table=((("ice",), ("tundra",)), (("sea",), ("desert",))),
        colours=(
            ("ice", (255, 255, 255)),
            ("tundra", (200, 200, 180)),
            ("sea", (0, 0, 200)),
            ("desert", (230, 200, 120)),
        ),
    )
    ids = table.classify(
        np.array([0.2, 0.8, 0.2, 0.8]), np.zeros(4), np.array([0.1, 0.1, 0.9, 0.9])
    )
    assert [table.names[i] for i in ids] == ["ice", "tundra", "sea", "desert"]
    with pytest.raises(ValueError, match="biome table names biomes without a colour: lava"):
        dataclasses.replace(table, table=((("lava",), ("tundra",)), (("sea",), ("desert",))))
    with pytest.raises(ValueError, match="must have shape"):
        dataclasses.replace(table, temperature=(1.0,))


MASKED = MapConfig(
    terrain=NoiseMap(seed=11, width=1024, height=1024, scale=150.0, octaves=6, normalize="global"),
    mask=Mask("radial", radius=500.0),
    curve=HeightCurve(((0.0, 0.0), (0.5, 0.45), (1.0, 1.0)), smooth=True),
    cleanup=NO_CLEANUP,
)


@pytest.mark.parametrize("normalize", ["global", "none"])
def test_1024_map_equals_its_16_tiles(normalize):
    config = dataclasses.replace(
        MASKED, terrain=dataclasses.replace(MASKED.terrain, normalize=normalize)
    )
    whole = make_layers(config)
    for tile in config.terrain.window.tiles(256):
        part = make_layers(config, tile)
        cut = (slice(tile.y, tile.y + 256), slice(tile.x, tile.x + 256))
        for name in ("elevation", "moisture"):
            assert np.array_equal(
                getattr(whole, name)[cut].view(np.uint64), getattr(part, name).view(np.uint64)
            )
        for name in ("classes", "biomes"):
            assert np.array_equal(getattr(whole, name)[cut], getattr(part, name))
    assert len(config.terrain.window.tiles(256)) == 16
    if normalize == "global":
        assert len(np.unique(whole.biomes)) >= 5 and len(np.unique(whole.classes)) >= 5


def test_layers_have_the_window_shape_and_types():
    config = MapConfig(terrain=NoiseMap(width=96, height=64))
    layers = make_layers(config)
    for name in ("elevation", "classes", "tiles", "moisture", "biomes"):
        assert getattr(layers, name).shape == (64, 96)
    assert layers.classes.dtype == layers.tiles.dtype == layers.biomes.dtype == np.uint8
    assert layers.temperature is None
    stages = []
    make_layers(config, Window(0, 0, 8, 8), progress=stages.append)
    assert stages == ["noise", "shaping", "climate", "classes", "clean-up"]


def test_window_tiles_cover_the_window():
    tiles = Window(-5, 3, 10, 7).tiles(4)
    assert [(t.x, t.y, t.width, t.height) for t in tiles[:3]] == [
        (-5, 3, 4, 4),
        (-1, 3, 4, 4),
        (3, 3, 2, 4),
    ]
    assert sum(t.width * t.height for t in tiles) == 70


def test_axis_helper_used_by_maps_is_exact():
    assert np.array_equal(axis(0.0, 4, 0.5), [0.0, 0.5, 1.0, 1.5])


@pytest.mark.parametrize("shape", [(), (1,), (3, 4)])
def test_metres_from_unit_keeps_the_shape_it_is_given(shape):
    """A world's heights in metres have the shape of the unit heights: a 0-d
    array gave a 1-d one (the explorer's cursor read-out failed on it), and
    the values are those of the formula, either side of the sea."""
    from worldgen.config import map_config, preset

    config = map_config(preset("continents"))
    rng = np.random.default_rng(0)
    unit = rng.uniform(0.0, 1.0, shape)
    metres = config.metres_from_unit(unit)
    assert metres.shape == shape
    w, sea = config.world, config.sea_level
    expected = np.where(
        unit >= sea, (unit - sea) / (1 - sea) * w.relief, (unit - sea) / sea * w.ocean_depth
    )
    np.testing.assert_allclose(metres, expected, rtol=1e-12, atol=1e-9)


def test_metres_from_unit_of_a_crop_is_that_of_its_copy():
    # A crop of a bigger window's heights is read where it lies: the same
    # values as from a contiguous copy, of every shape.
    from worldgen.config import map_config, preset

    config = map_config(preset("continents"))
    big = np.random.default_rng(3).uniform(0.0, 1.0, (40, 50))
    crop = big[5:31, 7:43]
    assert not crop.flags.c_contiguous
    np.testing.assert_array_equal(
        config.metres_from_unit(crop), config.metres_from_unit(crop.copy())
    )
    assert config.metres_from_unit(big[2:9, 3]).shape == (7,)
    cube = np.random.default_rng(4).uniform(0.0, 1.0, (3, 4, 5))
    np.testing.assert_array_equal(
        config.metres_from_unit(cube).reshape(-1), config.metres_from_unit(cube.reshape(-1))
    )


@pytest.mark.parametrize("preset_name", ["continents", None])
def test_layers_without_climate_are_the_same_layers(preset_name):
    # climate=False: the classes, tiles, biomes, ids, masks and water of the
    # layers with it; no elevation, moisture or temperature.
    from worldgen.config import map_config, preset
    from worldgen.products._maps import layers_from_heights

    config = (
        map_config(preset(preset_name))
        if preset_name
        else MapConfig(NoiseMap(width=96, height=64, seed=5))
    )
    x, y = (0, 0) if preset_name is None else (-26128 + 700, -31328 + 900)
    window = Window(x, y, 96, 64)
    halo = config.tile_halo
    heights = config.elevation(window.grown(halo)) if config.world is None else None
    if heights is None:
        heights = config.unit_from_metres(config.world_ground(window.grown(halo))[0])
    fresh = np.zeros(heights.shape, bool)
    fresh[30:34, :] = True
    full = layers_from_heights(config, window, heights, halo=halo, fresh_water=fresh)
    lean = layers_from_heights(config, window, heights, halo=halo, fresh_water=fresh, climate=False)
    assert lean.elevation is None and lean.moisture is None and lean.temperature is None
    assert full.moisture is not None
    for name in ("classes", "tiles", "biomes", "tile_ids", "autotile", "water"):
        np.testing.assert_array_equal(getattr(lean, name), getattr(full, name), err_msg=name)
    assert len(np.unique(full.biomes)) > 1


def test_unit_from_metres_in_place_is_the_same_bytes():
    from worldgen.config import map_config, preset

    config = map_config(preset("continents"))
    metres = np.linspace(-6000.0, 9000.0, 35).reshape(5, 7)
    metres[0, 0] = 0.0
    expected = config.unit_from_metres(metres)
    same = metres.copy()
    assert config.unit_from_metres(same, out=same) is same
    np.testing.assert_array_equal(same, expected)
    assert expected.min() == 0.0 and expected.max() == 1.0  # clipped at both ends
    for bad in (np.empty((7, 5)), np.empty((5, 7), np.float32), np.empty((7, 5)).T):
        with pytest.raises(ValueError, match="out must be"):
            config.unit_from_metres(metres, out=bad)
