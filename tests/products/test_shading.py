"""Colour ramps, hillshading, normal maps and legends: exact values on tiny fields."""

import numpy as np
import pytest

from worldgen.products._shading import apply_shade, colour_ramp, hillshade, legend, normal_map

STOPS = [
    (0.25, (0, 0, 100)),
    (0.5, (0, 200, 0)),
    (1.0, (250, 250, 250)),
]


def test_stepped_ramp_takes_first_stop_at_or_above():
    heights = np.array([[-1.0, 0.25, 0.3], [0.5, 0.75, 2.0]])
    expected = [
        [[0, 0, 100], [0, 0, 100], [0, 200, 0]],
        [[0, 200, 0], [250, 250, 250], [250, 250, 250]],
    ]
    rgb = colour_ramp(heights, STOPS)
    assert rgb.dtype == np.uint8
    assert rgb.shape == (2, 3, 3)
    assert rgb.tolist() == expected


def test_blended_ramp_interpolates_and_clamps():
    heights = np.array([[0.0, 0.25, 0.375], [0.5, 0.75, 9.0]])
    expected = [
        [[0, 0, 100], [0, 0, 100], [0, 100, 50]],
        [[0, 200, 0], [125, 225, 125], [250, 250, 250]],
    ]
    assert colour_ramp(heights, STOPS, blend=True).tolist() == expected


def test_single_stop_colours_everything():
    rgb = colour_ramp(np.array([[-5.0, 5.0]]), [(0.0, (1, 2, 3))], blend=True)
    assert rgb.tolist() == [[[1, 2, 3], [1, 2, 3]]]


def test_ramp_accepts_integer_heights_and_leaves_input_alone():
    heights = np.array([[0, 1]], dtype=np.int32)
    before = heights.copy()
    assert colour_ramp(heights, STOPS).tolist() == [[[0, 0, 100], [250, 250, 250]]]
    assert np.array_equal(heights, before)


@pytest.mark.parametrize(
    ("stops", "message"),
    [
        ([], "non-empty sequence"),
        ([(0.5, (0, 0, 0)), (0.5, (1, 1, 1))], "strictly increasing"),
        ([(0.6, (0, 0, 0)), (0.5, (1, 1, 1))], "strictly increasing"),
        ([(0.5, (0, 0, 256))], r"stops\[0\] colour must be three integers 0-255"),
        ([(0.5, (0, 0))], r"stops\[0\] colour must be three integers"),
        ([(0.5, (0.5, 0, 0))], r"stops\[0\] colour must be three integers"),
        ([(0.5, (0, 0, 0)), 0.7], r"stops\[1\] must be a \(threshold, \(r, g, b\)\) pair"),
        ([(np.nan, (0, 0, 0))], r"stops\[0\] threshold must be finite"),
    ],
)
def test_bad_stops(stops, message):
    with pytest.raises(ValueError, match=message):
        colour_ramp(np.zeros((2, 2)), stops)


@pytest.mark.parametrize(
    ("heights", "error", "message"),
    [
        (np.zeros(4), ValueError, r"heights must be a non-empty 2-D array"),
        (np.zeros((0, 3)), ValueError, r"heights must be a non-empty 2-D array"),
        (np.array([[0.0, np.nan]]), ValueError, r"heights must be finite"),
        (np.array([["a"]]), TypeError, r"heights must hold real numbers"),
    ],
)
def test_bad_heights(heights, error, message):
    with pytest.raises(error, match=message):
        colour_ramp(heights, STOPS)
    with pytest.raises(error, match=message):
        hillshade(heights)
    with pytest.raises(error, match=message):
        normal_map(heights)


@pytest.mark.parametrize("altitude", [0.0, 30.0, 45.0, 90.0])
def test_flat_field_is_lit_by_sin_altitude(altitude):
    shade = hillshade(np.full((4, 5), 3.0), altitude=altitude, azimuth=123.0)
    assert shade.shape == (4, 5)
    assert shade.dtype == np.float64
    np.testing.assert_allclose(shade, np.sin(np.radians(altitude)), atol=1e-15)


def test_slope_facing_the_light_is_brighter():
    rows, cols = np.mgrid[0:6, 0:7].astype(np.float64)
    facing_north_west = rows + cols  # falls toward the north-west, where light comes from
    facing_south_east = -(rows + cols)
    bright = hillshade(facing_north_west)
    dark = hillshade(facing_south_east)
    assert (bright > dark).all()
    assert (bright > np.sin(np.radians(45.0))).all()


def test_hillshade_matches_the_formula_on_a_plane():
    # Interior cells of a plane rising 2 per cell to the east: p = 2, q = 0.
    heights = np.tile(2.0 * np.arange(5.0), (4, 1))
    az, alt = np.radians(270.0), np.radians(30.0)  # light from the west
    expected = (np.sin(alt) - 2.0 * np.sin(az) * np.cos(alt)) / np.sqrt(5.0)
    shade = hillshade(heights, azimuth=270.0, altitude=30.0)
    np.testing.assert_allclose(shade[:, 1:-1], expected, rtol=1e-12)
    # Border columns see half the slope (replicated edge pixels).
    half = (np.sin(alt) - 1.0 * np.sin(az) * np.cos(alt)) / np.sqrt(2.0)
    np.testing.assert_allclose(shade[:, 0], half, rtol=1e-12)


def test_cell_size_and_exaggeration_cancel():
    heights = np.random.default_rng(3).random((9, 8))
    np.testing.assert_allclose(
        hillshade(heights, exaggeration=2.0, cell_size=2.0), hillshade(heights), rtol=1e-12
    )


def test_hillshade_stays_in_unit_interval_and_keeps_input():
    heights = np.random.default_rng(0).normal(scale=50.0, size=(32, 40))
    before = heights.copy()
    shade = hillshade(heights, exaggeration=5.0)
    assert shade.min() >= 0.0
    assert shade.max() <= 1.0
    assert shade.min() == 0.0  # steep random terrain has slopes facing away
    assert np.array_equal(heights, before)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"altitude": 91.0}, ValueError, r"altitude must be from 0 to 90"),
        ({"altitude": -1.0}, ValueError, r"altitude must be from 0 to 90"),
        ({"azimuth": np.inf}, ValueError, r"azimuth must be finite"),
        ({"azimuth": "north"}, TypeError, r"azimuth must be a number"),
        ({"exaggeration": 0.0}, ValueError, r"exaggeration must be a finite number > 0"),
        ({"cell_size": -1.0}, ValueError, r"cell_size must be a finite number > 0"),
    ],
)
def test_bad_hillshade_parameters(kwargs, error, message):
    with pytest.raises(error, match=message):
        hillshade(np.zeros((3, 3)), **kwargs)


def test_apply_shade_formula():
    rgb = np.array([[[200, 100, 0], [200, 100, 0]]], dtype=np.uint8)
    shade = np.array([[1.0, 0.25]])
    assert apply_shade(rgb, shade, strength=0.0).tolist() == rgb.tolist()
    assert apply_shade(rgb, shade, strength=1.0).tolist() == [[[200, 100, 0], [50, 25, 0]]]
    # factor = 1 - 0.5 + 0.5 * 0.25 = 0.625
    assert apply_shade(rgb, shade).tolist() == [[[200, 100, 0], [125, 62, 0]]]


@pytest.mark.parametrize(
    ("rgb", "shade", "kwargs", "error", "message"),
    [
        (np.zeros((2, 2), np.uint8), np.zeros((2, 2)), {}, ValueError, r"rgb must be a non-empty"),
        (np.zeros((2, 2, 3)), np.zeros((2, 2)), {}, TypeError, r"rgb must hold uint8"),
        (np.zeros((2, 2, 3), np.uint8), np.zeros((2, 3)), {}, ValueError, r"shade must have"),
        (np.zeros((2, 2, 3), np.uint8), np.full((2, 2), 2.0), {}, ValueError, r"within \[0, 1\]"),
        (
            np.zeros((2, 2, 3), np.uint8),
            np.zeros((2, 2)),
            {"strength": 1.5},
            ValueError,
            r"strength must be a number from 0 to 1",
        ),
    ],
)
def test_bad_apply_shade(rgb, shade, kwargs, error, message):
    with pytest.raises(error, match=message):
        apply_shade(rgb, shade, **kwargs)


def test_normal_map_of_flat_field():
    normals = normal_map(np.full((3, 4), 7.0))
    assert normals.dtype == np.uint8
    assert normals.shape == (3, 4, 3)
    assert (normals == [128, 128, 255]).all()


def test_normal_map_of_east_rising_ramp_tilts_toward_minus_x():
    heights = np.tile(np.arange(6.0), (5, 1))
    normals = normal_map(heights)
    # Interior slope 1: n = (-1, 0, 1) / sqrt(2).
    c = -1.0 / np.sqrt(2.0)
    expected = np.floor((np.array([c, 0.0, -c]) + 1.0) * 127.5 + 0.5)
    assert (normals[:, 1:-1] == expected).all()
    assert (normals[..., 0] < 128).all()
    assert (normals[..., 1] == 128).all()


def test_normal_map_green_points_north():
    rows = np.arange(5.0)[:, None] * np.ones((1, 4))
    rising_north = -rows  # row 0 is north and highest: the surface faces south
    assert (normal_map(rising_north)[..., 1] < 128).all()
    assert (normal_map(-rising_north)[..., 1] > 128).all()


def test_normal_map_strength_steepens():
    heights = np.tile(np.arange(6.0), (3, 1))
    assert (normal_map(heights, strength=3.0)[..., 0] < normal_map(heights)[..., 0]).all()


def test_legend_draws_swatches_and_grows_with_entries():
    names = ["deep water", "sand", "forest"]
    colours = [(40, 70, 150), (220, 200, 140), (30, 110, 40)]
    small = legend(names[:1], colours[:1])
    large = legend(names, colours)
    assert small.dtype == np.uint8
    assert large.shape[2] == 3
    assert large.shape[0] > small.shape[0]
    assert large.shape[1] >= small.shape[1]
    assert (large[0, 0] == 255).all()  # white background
    # Each swatch's centre holds its colour.
    swatch, padding = 16, 4
    for k, colour in enumerate(colours):
        rows = np.flatnonzero((large[:, padding + swatch // 2] == colour).all(axis=1))
        assert rows.size >= swatch - 2, k
    # Text is drawn: some dark pixels right of the swatches.
    assert (large[:, 2 * padding + swatch :] < 100).any()


def test_legend_grows_with_swatch_and_padding():
    base = legend(["a"], [(0, 0, 0)])
    bigger = legend(["a"], [(0, 0, 0)], swatch=40, padding=10)
    assert bigger.shape[0] > base.shape[0]
    assert bigger.shape[1] > base.shape[1]


@pytest.mark.parametrize(
    ("names", "colours", "kwargs", "error", "message"),
    [
        ([], [], {}, ValueError, r"names must hold at least one entry"),
        (["a", "b"], [(0, 0, 0)], {}, ValueError, r"same length"),
        (["a"], [(0, 0, 300)], {}, ValueError, r"colours\[0\] must be three integers 0-255"),
        ([1], [(0, 0, 0)], {}, TypeError, r"names\[0\] must be a string"),
        ("ab", [(0, 0, 0)], {}, TypeError, r"names must be a sequence of strings"),
        (["a"], [(0, 0, 0)], {"swatch": 0}, ValueError, r"swatch must be an integer from 1"),
        (["a"], [(0, 0, 0)], {"padding": -1}, ValueError, r"padding must be an integer from 0"),
    ],
)
def test_bad_legend(names, colours, kwargs, error, message):
    with pytest.raises(error, match=message):
        legend(names, colours, **kwargs)


@pytest.mark.parametrize("wet", [True, False])
def test_pictures_count_ordered_tops_as_the_band_search_finds_them(wet):
    # With the band tops in order, the one-pass pictures count the tops
    # below each height (a loop that vectorises) instead of searching: the
    # same bands, ties and the wet cells' top included.
    from worldgen.products import _shading

    rng = np.random.default_rng(11)
    padded = rng.random((21, 34))
    tops = np.array([0.2, 0.35, 0.35, 0.6, 1.0])
    padded[3, :5] = tops
    colours = rng.integers(0, 256, (5, 3)).astype(np.float64)
    wet_cells = rng.random((19, 32)) < 0.3 if wet else np.empty((0, 0), np.bool_)
    biomes = rng.integers(0, 4, (19, 32)).astype(np.uint8)
    palette = rng.integers(0, 256, (4, 3)).astype(np.uint8)
    made = []
    for ordered in (True, False):
        out = [np.empty((19, 32, 3), np.uint8) for _ in range(3)]
        _shading._pictures(
            padded, 0.3, tops, colours, 3.0, 0.7, 0.7, 0.7, 0.7, 0.5, wet_cells, 0.35,
            biomes, palette, 0.4, 3.0, *out, ordered,
        )  # fmt: skip
        made.append(out)
    for a, b in zip(*made):
        np.testing.assert_array_equal(a, b)
    # The colour map alone (shaded_bands) counts them the same way too.
    alone = []
    for ordered in (True, False):
        out = np.empty((19, 32, 3), np.uint8)
        _shading._shaded_bands(
            padded, 0.3, tops, colours, 3.0, 0.7, 0.7, 0.7, 0.7, 0.5, wet_cells, 0.35, out, ordered
        )  # fmt: skip
        alone.append(out)
    np.testing.assert_array_equal(alone[0], alone[1])
    np.testing.assert_array_equal(alone[0], made[0][0])
