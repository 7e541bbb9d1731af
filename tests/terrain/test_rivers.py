"""Depression filling, D8 flow, accumulation, rivers: hand-made grids, naive twins, properties."""

import dataclasses
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from worldgen.terrain import _rivers
from worldgen.terrain._rivers import (
    D8_OFFSETS,
    RiverResult,
    draw_rivers,
    fill_depressions,
    flow_accumulation,
    flow_directions,
    rivers,
)

# ------------------------------------------------------- slow, obvious twins


def neighbours(h, w):
    """Every (y, x, code, yy, xx) with (yy, xx) inside the map."""
    for y in range(h):
        for x in range(w):
            for code, (dy, dx) in enumerate(D8_OFFSETS.tolist()):
                if 0 <= y + dy < h and 0 <= x + dx < w:
                    yield y, x, code, y + dy, x + dx


def naive_fill(heights, epsilon=0.0, outlets=None):
    """Planchon and Darboux (2001): start from +inf inside and lower to a fixed point."""
    h = np.asarray(heights, dtype=np.float64)
    fixed = np.zeros(h.shape, bool)
    fixed[0, :], fixed[-1, :], fixed[:, 0], fixed[:, -1] = True, True, True, True
    if outlets is not None:
        fixed |= outlets
    water = np.where(fixed, h, np.inf)
    while True:
        padded = np.pad(water, 1, constant_values=np.inf)
        lowest = np.full(h.shape, np.inf)
        for dy, dx in D8_OFFSETS.tolist():
            lowest = np.minimum(
                lowest, padded[1 + dy : 1 + dy + h.shape[0], 1 + dx : 1 + dx + h.shape[1]]
            )
        new = np.where(fixed, h, np.minimum(water, np.maximum(h, lowest + epsilon)))
        if np.array_equal(new, water):
            return water
        water = new


def naive_d8(filled):
    """Steepest descent per cell, ties to the lowest code; -1 where nothing is lower."""
    h, w = filled.shape
    best = np.zeros((h, w))
    out = np.full((h, w), -1)
    for y, x, code, yy, xx in neighbours(h, w):
        slope = (filled[y, x] - filled[yy, xx]) / (np.sqrt(2.0) if code % 2 else 1.0)
        if slope > best[y, x]:
            best[y, x] = slope
            out[y, x] = code
    return out


def downstream(directions, y, x):
    code = int(directions[y, x])
    if code < 0:
        return None
    dy, dx = D8_OFFSETS[code]
    return y + int(dy), x + int(dx)


def naive_accumulation(directions):
    """Walk from every cell to its outlet, counting one on each cell passed."""
    out = np.zeros(directions.shape)
    for y in range(directions.shape[0]):
        for x in range(directions.shape[1]):
            cell = (y, x)
            while cell is not None:
                out[cell] += 1
                cell = downstream(directions, *cell)
    return out


def recursive_accumulation(directions):
    """Each cell is one plus what its donors carry."""
    h, w = directions.shape
    donors = {(y, x): [] for y in range(h) for x in range(w)}
    for y in range(h):
        for x in range(w):
            target = downstream(directions, y, x)
            if target is not None:
                donors[target].append((y, x))

    @functools.cache
    def carry(cell):
        return 1 + sum(carry(d) for d in donors[cell])

    return np.array([[carry((y, x)) for x in range(w)] for y in range(h)], dtype=np.float64)


def border(a):
    return np.concatenate([a[0], a[-1], a[:, 0], a[:, -1]])


# ----------------------------------------------------------- priority flood

SINGLE_PIT = np.array(
    [
        [5, 5, 5, 5, 5],
        [5, 4, 4, 4, 5],
        [5, 4, 1, 4, 5],
        [5, 4, 4, 4, 5],
        [5, 5, 2, 5, 5],
    ],
    dtype=np.float64,
)


def test_single_pit_fills_to_its_spill_height():
    expected = SINGLE_PIT.copy()
    expected[2, 2] = 4.0
    assert fill_depressions(SINGLE_PIT).tolist() == expected.tolist()


def test_epsilon_slopes_the_filled_pit_toward_its_exit():
    expected = [
        [5.0, 5.0, 5.0, 5.0, 5.0],
        [5.0, 5.0, 5.0, 5.0, 5.0],
        [5.0, 4.5, 4.5, 4.5, 5.0],
        [5.0, 4.0, 4.0, 4.0, 5.0],
        [5.0, 5.0, 2.0, 5.0, 5.0],
    ]
    assert fill_depressions(SINGLE_PIT, epsilon=0.5).tolist() == expected


def test_nested_pits_fill_to_the_outer_spill_height():
    heights = np.array(
        [
            [9, 9, 9, 9, 9, 9, 9],
            [9, 5, 5, 5, 5, 5, 9],
            [9, 5, 2, 6, 3, 5, 9],
            [9, 5, 5, 5, 5, 5, 9],
            [9, 9, 9, 7, 9, 9, 9],
        ],
        dtype=np.float64,
    )
    expected = heights.copy()
    expected[1:4, 1:6] = 7.0
    assert fill_depressions(heights).tolist() == expected.tolist()


def test_pit_behind_a_higher_rim_fills_to_the_rim_not_beyond():
    heights = np.array(
        [
            [9, 9, 9, 9, 9, 9],
            [9, 1, 8, 3, 2, 9],
            [9, 9, 9, 9, 0, 9],
        ],
        dtype=np.float64,
    )
    # The left pit spills over the 8 into the right basin, which drains at 0.
    expected = [
        [9.0, 9.0, 9.0, 9.0, 9.0, 9.0],
        [9.0, 8.0, 8.0, 3.0, 2.0, 9.0],
        [9.0, 9.0, 9.0, 9.0, 0.0, 9.0],
    ]
    assert fill_depressions(heights).tolist() == expected


def test_plateau_is_left_alone_without_epsilon_and_crowned_with_it():
    plateau = np.ones((5, 5))
    plateau[1:4, 1:4] = 3.0
    assert fill_depressions(plateau).tolist() == plateau.tolist()
    crowned = plateau.copy()
    crowned[2, 2] = 3.5
    assert fill_depressions(plateau, epsilon=0.5).tolist() == crowned.tolist()


def test_depression_open_to_the_border_stays_as_is():
    heights = np.array(
        [
            [5, 5, 5, 5],
            [5, 2, 2, 5],
            [1, 2, 2, 5],
            [5, 5, 5, 5],
        ],
        dtype=np.float64,
    )
    assert fill_depressions(heights).tolist() == heights.tolist()


def test_tiny_epsilon_still_gives_strict_descent():
    heights = np.full((3, 3), 1e6)
    heights[1, 1] = 0.0
    filled = fill_depressions(heights, epsilon=1e-30)
    assert filled[1, 1] == np.nextafter(1e6, np.inf)


def test_fill_leaves_input_alone_and_accepts_integers():
    heights = SINGLE_PIT.astype(np.int32)
    before = heights.copy()
    filled = fill_depressions(heights)
    assert filled.dtype == np.float64
    assert np.array_equal(heights, before)
    assert filled[2, 2] == 4.0


SMALL_MAPS = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=9),
    elements=st.integers(0, 6).map(float),
)
RANDOM_MAPS = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=12),
    elements=st.floats(-100, 100, allow_nan=False, allow_infinity=False, width=32),
)


@given(heights=st.one_of(SMALL_MAPS, RANDOM_MAPS), epsilon=st.sampled_from([0.0, 0.25]))
def test_fill_matches_planchon_darboux(heights, epsilon):
    filled = fill_depressions(heights, epsilon=epsilon)
    assert np.array_equal(filled, naive_fill(heights, epsilon))


@given(
    heights=st.one_of(SMALL_MAPS, RANDOM_MAPS),
    epsilon=st.sampled_from([0.0, 0.25]),
    data=st.data(),
)
def test_fill_with_outlets_matches_planchon_darboux(heights, epsilon, data):
    outlets = data.draw(hnp.arrays(np.bool_, heights.shape))
    filled = fill_depressions(heights, epsilon=epsilon, outlets=outlets)
    assert np.array_equal(filled, naive_fill(heights, epsilon, outlets))


def test_outlets_drain_a_pit_and_end_the_rivers_that_reach_them():
    heights = np.full((7, 7), 9.0)
    heights[1:6, 1:6] = 5.0
    heights[3, 3] = 1.0  # a pit: without an outlet, a lake up to the rim
    sea = np.zeros(heights.shape, bool)
    sea[3, 3] = True
    assert (fill_depressions(heights)[1:6, 1:6] == 9.0).all()
    assert np.array_equal(fill_depressions(heights, outlets=sea), heights)
    result = rivers(heights, threshold=3, outlets=sea)
    assert result.directions[3, 3] == -1 and not result.river[3, 3]
    assert not result.lakes.any()
    assert result.accumulation[3, 3] > 9  # the basin drains into the outlet
    with pytest.raises(ValueError, match="outlets must have the shape"):
        rivers(heights, outlets=sea[1:])
    with pytest.raises(TypeError, match="outlets must be an array of bool"):
        fill_depressions(heights, outlets=sea.astype(int))


@given(heights=st.one_of(SMALL_MAPS, RANDOM_MAPS), epsilon=st.sampled_from([0.0, 0.25, 1e-9]))
def test_fill_properties(heights, epsilon):
    filled = fill_depressions(heights, epsilon=epsilon)
    assert (filled >= heights).all()
    assert np.array_equal(border(filled), border(heights))
    # Idempotent: a filled field has nothing left to fill.
    assert np.array_equal(fill_depressions(filled, epsilon=epsilon), filled)
    h, w = filled.shape
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            around = filled[y - 1 : y + 2, x - 1 : x + 2].copy()
            around[1, 1] = np.inf
            if epsilon > 0.0:
                assert around.min() < filled[y, x]
            else:
                assert around.min() <= filled[y, x]


@given(heights=st.one_of(SMALL_MAPS, RANDOM_MAPS), epsilon=st.sampled_from([0.0, 0.25]))
def test_every_cell_drains_to_the_border(heights, epsilon):
    filled = fill_depressions(heights, epsilon=epsilon)
    directions = flow_directions(filled)
    h, w = filled.shape
    for y in range(h):
        for x in range(w):
            cell, steps = (y, x), 0
            while (nxt := downstream(directions, *cell)) is not None:
                assert filled[nxt] <= filled[cell]
                if epsilon > 0.0:
                    assert filled[nxt] < filled[cell]
                cell, steps = nxt, steps + 1
                assert steps <= h * w
            assert cell[0] in (0, h - 1) or cell[1] in (0, w - 1)


# ---------------------------------------------------------------------- D8


def test_plane_tilted_east_points_east():
    x = np.arange(6, dtype=np.float64)
    plane = np.tile(10.0 - x, (4, 1))
    expected = [[0, 0, 0, 0, 0, -1]] * 4
    assert flow_directions(plane).tolist() == expected


def test_cone_points_outward():
    y, x = np.mgrid[0:5, 0:5]
    cone = -np.hypot(y - 2, x - 2)
    expected = [
        [-1, 4, 0, 0, -1],
        [6, 5, 6, 7, 6],
        [2, 4, 0, 0, 2],
        [2, 3, 2, 1, 2],
        [-1, 4, 0, 0, -1],
    ]
    assert flow_directions(cone).tolist() == expected


def test_plateau_drains_outward_and_its_flat_centre_is_resolved():
    plateau = np.ones((5, 5))
    plateau[1:4, 1:4] = 3.0
    expected = [
        [-1, -1, -1, -1, -1],
        [-1, 4, 6, 0, -1],
        [-1, 4, 5, 0, -1],
        [-1, 2, 2, 0, -1],
        [-1, -1, -1, -1, -1],
    ]
    assert flow_directions(plateau).tolist() == expected


def test_flat_lake_drains_by_the_fewest_steps_to_its_outlet():
    filled = np.full((3, 7), 9.0)
    filled[1, 1:6] = 4.0
    filled[1, 6] = 2.0  # the outlet, on the east border
    directions = flow_directions(filled)
    assert directions[1].tolist() == [0, 0, 0, 0, 0, 0, -1]


def test_unfilled_pit_bottom_is_a_sink():
    directions = flow_directions(SINGLE_PIT)
    assert directions[2, 2] == -1
    assert directions.dtype == np.int8


@given(heights=st.one_of(SMALL_MAPS, RANDOM_MAPS))
def test_d8_matches_naive_where_a_neighbour_is_lower(heights):
    directions = flow_directions(heights)
    expected = naive_d8(heights)
    has_lower = expected >= 0
    assert np.array_equal(directions[has_lower], expected[has_lower])


# ------------------------------------------------------- flow accumulation


def test_channel_accumulates_one_two_three():
    assert flow_accumulation(np.array([[0, 0, 0, 0, -1]])).tolist() == [[1, 2, 3, 4, 5]]
    column = np.array([[2], [2], [2], [-1]])
    assert flow_accumulation(column).ravel().tolist() == [1, 2, 3, 4]


def test_v_shaped_valley():
    y, x = np.mgrid[0:4, 0:5]
    valley = 10.0 * np.abs(x - 2) + (3 - y)
    directions = flow_directions(fill_depressions(valley))
    assert directions.tolist() == [[0, 0, 2, 4, 4]] * 3 + [[0, 0, -1, 4, 4]]
    expected = [
        [1, 2, 5, 2, 1],
        [1, 2, 10, 2, 1],
        [1, 2, 15, 2, 1],
        [1, 2, 20, 2, 1],
    ]
    assert flow_accumulation(directions).tolist() == expected


def test_two_tributaries_join():
    directions = np.full((5, 5), -1)
    directions[0, 0] = directions[1, 1] = 1  # south-east
    directions[0, 4] = directions[1, 3] = 3  # south-west
    directions[2, 2] = directions[3, 2] = 2  # south
    expected = np.ones((5, 5))
    expected[1, 1] = expected[1, 3] = 2
    expected[2, 2], expected[3, 2], expected[4, 2] = 5, 6, 7
    accumulation = flow_accumulation(directions)
    assert accumulation.tolist() == expected.tolist()
    assert accumulation[directions == -1].sum() == 25


@given(heights=st.one_of(SMALL_MAPS, RANDOM_MAPS), epsilon=st.sampled_from([0.0, 0.25]))
def test_accumulation_matches_naive_twins(heights, epsilon):
    directions = flow_directions(fill_depressions(heights, epsilon=epsilon))
    accumulation = flow_accumulation(directions)
    assert np.array_equal(accumulation, naive_accumulation(directions))
    assert np.array_equal(accumulation, recursive_accumulation(directions))
    assert accumulation[directions == -1].sum() == heights.size
    assert (accumulation >= 1).all()


def test_accumulation_of_a_big_random_field_conserves_cells():
    rng = np.random.default_rng(7)
    heights = rng.random((300, 200))
    directions = flow_directions(fill_depressions(heights))
    accumulation = flow_accumulation(directions)
    assert accumulation[directions == -1].sum() == heights.size
    outlets = np.argwhere(directions == -1)
    h, w = heights.shape
    assert all(y in (0, h - 1) or x in (0, w - 1) for y, x in outlets)


# ------------------------------------------------------------ rivers, lakes

LAKE_MAP = np.array(
    [
        [9, 9, 9, 9, 9, 9],
        [9, 6, 6, 6, 6, 9],
        [9, 6, 2, 3, 6, 9],
        [9, 6, 6, 6, 5, 9],
        [9, 9, 9, 9, 4, 9],
    ],
    dtype=np.float64,
)


def test_lake_appears_where_the_pit_is_filled():
    result = rivers(LAKE_MAP, threshold=10)
    assert isinstance(result, RiverResult)
    expected_lake = np.zeros(LAKE_MAP.shape, dtype=bool)
    expected_lake[2, 2:4] = True
    assert np.array_equal(result.lakes, expected_lake)
    assert result.filled[2, 2] == result.filled[2, 3] == 5.0
    assert np.array_equal(result.filled, fill_depressions(LAKE_MAP))
    assert np.array_equal(result.directions, flow_directions(result.filled))
    assert np.array_equal(result.accumulation, flow_accumulation(result.directions))
    # Everything leaves by the outlet at (4, 4); the river is the way there.
    assert result.accumulation[4, 4] == LAKE_MAP.size
    assert np.array_equal(result.river, result.accumulation >= 10)
    assert result.river[4, 4] and result.river[3, 4]
    assert result.threshold == 10.0


def test_lakes_ignore_the_slope_epsilon_adds():
    flat = rivers(LAKE_MAP, threshold=10)
    sloped = rivers(LAKE_MAP, threshold=10, epsilon=0.01)
    assert np.array_equal(flat.lakes, sloped.lakes)
    assert (sloped.filled >= flat.filled).all()
    assert sloped.filled[2, 2] > sloped.filled[2, 3] > 5.0


def test_default_threshold_is_half_a_percent_of_the_cells():
    assert rivers(np.zeros((100, 100))).threshold == 50.0
    assert rivers(np.zeros((4, 4))).threshold == 2.0


def test_draw_rivers_paints_rivers_and_lakes():
    result = rivers(LAKE_MAP, threshold=10)
    rgb = np.full((*LAKE_MAP.shape, 3), 7, dtype=np.uint8)
    before = rgb.copy()
    image = draw_rivers(rgb, result, colour=(1, 2, 3), lake_colour=(4, 5, 6), widen=False)
    assert image.shape == rgb.shape and image.dtype == np.uint8
    assert np.array_equal(rgb, before)
    expected = np.full_like(rgb, 7)
    expected[result.river] = (1, 2, 3)
    expected[result.lakes] = (4, 5, 6)
    assert np.array_equal(image, expected)
    same = draw_rivers(rgb, result, widen=False)
    assert (same[result.lakes] == (50, 100, 200)).all()


def test_draw_rivers_reads_crops_in_place_as_copies():
    # A crop of a bigger map's flow (strided views, as the carved windows
    # hand over) paints what its contiguous copy paints.
    y, x = np.mgrid[0:30, 0:60]
    ground = 30.0 - 0.4 * x + 1.5 * np.abs(y - 15) + 0.3 * np.sin(x)
    whole = rivers(ground, threshold=6)
    crop = np.s_[3:27, 5:55:1]
    view = dataclasses.replace(
        whole, **{f.name: getattr(whole, f.name)[crop] for f in dataclasses.fields(whole)
                  if isinstance(getattr(whole, f.name), np.ndarray)}
    )  # fmt: skip
    copied = dataclasses.replace(
        view, **{name: np.ascontiguousarray(getattr(view, name))
                 for name in ("river", "lakes", "accumulation")}
    )  # fmt: skip
    assert not view.accumulation.flags.c_contiguous
    rgb = np.zeros((24, 50, 3), np.uint8)
    painted = draw_rivers(rgb, view)
    assert np.array_equal(painted, draw_rivers(rgb, copied))
    assert (painted == (50, 100, 200)).all(axis=2).any()


def test_draw_rivers_widens_big_rivers():
    y, x = np.mgrid[0:9, 0:41]
    channel = 20.0 - 0.5 * x + 2.0 * np.abs(y - 4)  # a trough along the middle row
    result = rivers(channel, threshold=8)
    assert result.accumulation[4, 39] == 9 * 40
    assert np.array_equal(np.argwhere(result.river)[:, 0], np.full(41, 4))
    image = draw_rivers(np.zeros((*channel.shape, 3), np.uint8), result)
    wet = (image == (50, 100, 200)).all(axis=2)
    assert wet[4].all()
    # 45 times the threshold: radius floor(log2(45) / 2) = 2, five cells wide.
    assert wet[2:7, 39].all() and not wet[1, 39] and not wet[7, 39]
    narrow = (draw_rivers(np.zeros_like(image), result, widen=False) > 0).any(axis=2)
    assert np.array_equal(narrow, result.river)


# ----------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: fill_depressions(np.zeros(4)), ValueError, r"heights must be a non-empty 2-D"),
        (lambda: fill_depressions(np.zeros((0, 3))), ValueError, r"heights must be a non-empty"),
        (lambda: fill_depressions([[0.0, np.nan]]), ValueError, r"heights must be finite"),
        (lambda: fill_depressions([["a"]]), TypeError, r"heights must hold real numbers"),
        (lambda: fill_depressions(np.zeros((2, 2)), epsilon=-1), ValueError, r"epsilon must be"),
        (lambda: fill_depressions(np.zeros((2, 2)), epsilon="x"), TypeError, r"epsilon must be"),
        (lambda: fill_depressions(np.zeros((2, 2)), epsilon=np.inf), ValueError, r"epsilon"),
        (lambda: flow_directions(np.zeros(3)), ValueError, r"filled must be a non-empty 2-D"),
        (lambda: flow_directions([[np.inf]]), ValueError, r"filled must be finite"),
        (lambda: flow_accumulation([[0.0, -1.0]]), TypeError, r"directions must hold integer"),
        (lambda: flow_accumulation([[8, -1]]), ValueError, r"directions must hold codes -1 to 7"),
        (lambda: flow_accumulation([[-1, 0]]), ValueError, r"directions\[0, 1\] = 0 points off"),
        (
            lambda: flow_accumulation(np.zeros(3, int)),
            ValueError,
            r"directions must be a non-empty",
        ),
        (lambda: flow_accumulation([[0, 4]]), ValueError, r"directions contain a cycle"),
        (lambda: rivers(np.zeros((3, 3)), threshold=0), ValueError, r"threshold must be"),
        (lambda: rivers(np.zeros((3, 3)), threshold="5"), TypeError, r"threshold must be"),
        (lambda: rivers(np.zeros(3)), ValueError, r"heights must be a non-empty 2-D"),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_draw_rivers_bad_input():
    result = rivers(np.zeros((3, 3)))
    rgb = np.zeros((3, 3, 3), np.uint8)
    with pytest.raises(TypeError, match=r"result must be a RiverResult"):
        draw_rivers(rgb, np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"rgb must have the shape of the river map"):
        draw_rivers(np.zeros((3, 4, 3), np.uint8), result)
    with pytest.raises(ValueError, match=r"rgb must be a non-empty \(H, W, 3\)"):
        draw_rivers(np.zeros((3, 3)), result)
    with pytest.raises(ValueError, match=r"colour must be three integers"):
        draw_rivers(rgb, result, colour=(0, 0, 300))
    with pytest.raises(ValueError, match=r"lake_colour must be three integers"):
        draw_rivers(rgb, result, lake_colour="blue")


@settings(max_examples=200)
@given(heights=st.one_of(SMALL_MAPS, RANDOM_MAPS), data=st.data())
def test_flat_fill_is_the_classic_flood_byte_for_byte(heights, data):
    # The flat fill's own kernel (pits from a queue, slopes climbed, fewer
    # cells through the heap) against the priority flood that also serves
    # epsilon > 0: the same bytes, with and without outlets. Maps holding
    # both 0.0 and -0.0 are left to the classic flood by fill_depressions
    # (which zero a flat fill copies depends on its order): the public
    # function gives the classic bytes for every map.
    outlets = data.draw(st.one_of(st.none(), hnp.arrays(np.bool_, heights.shape)))
    sinks = np.zeros((0, 0), bool) if outlets is None else outlets
    classic = _rivers._priority_flood_kernel(heights, 0.0, D8_OFFSETS, sinks)
    assert fill_depressions(heights, outlets=outlets).tobytes() == classic.tobytes()
    if not _rivers._mixed_zeros(heights):
        fast = _rivers._flat_fill_kernel(heights, D8_OFFSETS, sinks)
        assert fast.tobytes() == classic.tobytes()


def test_a_fill_of_both_zeros_keeps_the_classic_bytes():
    # 0.0 and -0.0 are equal heights with other bytes: which one a flat fill
    # copies depends on the flood's order, so such maps keep the classic one.
    heights = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, -0.0, 0.0, 1.0], [1.0, 0.0, -0.0, 0.5]])
    classic = _rivers._priority_flood_kernel(heights, 0.0, D8_OFFSETS, np.zeros((0, 0), bool))
    assert fill_depressions(heights).tobytes() == classic.tobytes()
