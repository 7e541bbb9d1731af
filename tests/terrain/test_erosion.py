"""Hydraulic and thermal erosion: the kernels against erosion_reference.py, then properties."""

import dataclasses
import math
import re

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.terrain import erosion_reference as reference
from worldgen import ParameterError, threads
from worldgen.terrain import _erosion
from worldgen.terrain._erosion import (
    ErosionResult,
    HydraulicErosion,
    _uniform,
    erode,
    thermal_erode,
)

DEFAULTS = HydraulicErosion()


def random_map(shape, seed=0, low=0.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def smooth_map(shape, seed=0):
    """A map with hills and valleys a few cells wide, in [0, 1]."""
    rows, cols = shape
    y, x = np.mgrid[0:rows, 0:cols].astype(np.float64)
    rng = np.random.default_rng(seed)
    out = np.zeros(shape)
    for _ in range(6):
        fx, fy, phase = rng.uniform(0.1, 0.6), rng.uniform(0.1, 0.6), rng.uniform(0, 6)
        out += np.sin(fx * x + phase) * np.cos(fy * y - phase)
    return (out - out.min()) / (out.max() - out.min())


def max_slope(heights):
    """The steepest drop from a cell to one of its 8 neighbours, per cell of distance."""
    padded = np.pad(heights, 1, constant_values=np.nan)
    rows, cols = heights.shape
    steepest = 0.0
    for dy, dx in reference.NEIGHBOURS:
        other = padded[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + cols]
        drop = (heights - other) / math.hypot(dy, dx)
        steepest = max(steepest, float(np.nanmax(drop)))
    return steepest


# ------------------------------------------------------ against the reference

PARAMS = {
    "defaults": DEFAULTS,
    "narrow brush, more inertia": HydraulicErosion(radius=1, inertia=0.5),
    "wide brush, long lives": HydraulicErosion(radius=5, lifetime=60, evaporate_speed=0.05),
    "greedy": HydraulicErosion(capacity=12.0, erode_speed=0.9, deposit_speed=0.05, gravity=10.0),
    "sluggish": HydraulicErosion(
        inertia=0.9, capacity=0.5, min_capacity=0.2, deposit_speed=1.0, initial_speed=0.25
    ),
}

MAPS = {
    "noise 24x24": random_map((24, 24), seed=1),
    "hills 20x31": smooth_map((20, 31), seed=2),
    "negative hills 27x18": smooth_map((27, 18), seed=3) * 3.0 - 2.0,
    "noise 2x9": random_map((2, 9), seed=4),
}


@pytest.mark.parametrize("params", PARAMS.values(), ids=PARAMS.keys())
@pytest.mark.parametrize("heights", MAPS.values(), ids=MAPS.keys())
def test_droplets_equal_reference_bit_for_bit(heights, params):
    result = erode(heights, 300, seed=11, params=params)
    ref_heights, ref_eroded, ref_deposited, ref_carried = reference.erode(
        heights, 300, seed=11, params=params
    )
    assert np.array_equal(result.heights, ref_heights)
    assert np.array_equal(result.eroded, ref_eroded)
    assert np.array_equal(result.deposited, ref_deposited)
    assert result.carried == ref_carried
    assert result.eroded.sum() > 0.0


# Ground well above the floor, where no step's take reaches a cell's room.
PASS_MAPS = {**MAPS, "raised hills 23x26": smooth_map((23, 26), seed=9) + 0.5}


@pytest.mark.parametrize("known_lowest", [False, True], ids=["lowest unknown", "lowest known"])
@pytest.mark.parametrize("params", PARAMS.values(), ids=PARAMS.keys())
@pytest.mark.parametrize("heights", PASS_MAPS.values(), ids=PASS_MAPS.keys())
def test_pass_of_droplets_equals_reference_bit_for_bit(heights, params, known_lowest):
    # One pass of independent droplets (the kernel of windowed erosion),
    # every cell of the map a start, some below the sea level; given the
    # lowest height, steps that cannot take a cell's whole room skip the
    # test of it, with the same bits.
    rows, cols = heights.shape
    lowest = float(heights.min()) if known_lowest else -np.inf
    sea = float(np.quantile(heights, 0.2))
    origin, seed, rounds, first_key, chance = (-7, 3), 2**63 + 5, 2, 2, 0.7
    dy, dx, raw, weight, reach = _erosion._brush(params.radius)
    eroded, deposited = (np.zeros_like(heights) for _ in range(2))
    carried = _erosion._erode_pass_kernel(
        heights, eroded, deposited, np.int64(0), dy, dx, raw, weight, np.int64(reach),
        np.uint64(seed), np.int64(origin[0]), np.int64(origin[1]), np.int64(first_key),
        np.int64(rounds), np.int64(0), np.int64(rows - 1), np.int64(0), np.int64(cols - 1),
        chance, 0.0, 0.0, sea, params.inertia, params.capacity, params.min_capacity,
        params.erode_speed, params.deposit_speed, params.evaporate_speed, params.gravity,
        np.int64(params.lifetime), params.initial_water, params.initial_speed, lowest,
    )  # fmt: skip
    cells = [(r, c) for r in range(rows - 1) for c in range(cols - 1)]
    expected = reference.erode_pass(
        heights, origin, cells, rounds, first_key, chance, seed, sea, params
    )
    for got, want in zip((eroded, deposited), expected[:2]):
        assert np.array_equal(got, want)
    assert carried == expected[2]
    assert eroded.sum() > 0.0


@pytest.mark.parametrize("seed", [0, 1, 2**64 - 1, -5])
def test_seeds_equal_reference(seed):
    heights = smooth_map((16, 16), seed=5)
    result = erode(heights, 50, seed=seed)
    assert np.array_equal(result.heights, reference.erode(heights, 50, seed=seed)[0])


def test_droplet_stream_is_splitmix64():
    # The first outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c),
    # top 53 bits as a double in [0, 1): worldgen's stream and the reference's.
    for n, output in ((1, 0xE220A8397B1DCDAF), (2, 0x6E789E6AA1B965F4)):
        want = (output >> 11) / 2.0**53
        assert _uniform(np.uint64(0), np.uint64(n)) == want
        assert reference.uniform(0, n) == want


@pytest.mark.parametrize("talus", [0.0, 0.05, 0.3])
@pytest.mark.parametrize("rate", [0.5, 0.2, 1.0])
def test_thermal_equals_reference_bit_for_bit(talus, rate):
    heights = random_map((13, 17), seed=6)
    expected = reference.thermal_erode(heights, 4, talus, rate)
    assert np.array_equal(thermal_erode(heights, 4, talus=talus, rate=rate), expected)


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (6, 1), (2, 2), (9, 4)])
def test_thermal_small_shapes_equal_reference(shape):
    heights = random_map(shape, seed=7) * 5.0
    expected = reference.thermal_erode(heights, 3, 0.1)
    assert np.array_equal(thermal_erode(heights, 3, talus=0.1), expected)


def test_thermal_default_talus_is_four_over_size():
    heights = random_map((10, 20), seed=8)
    assert np.array_equal(thermal_erode(heights, 2), thermal_erode(heights, 2, talus=4 / 20))


# ------------------------------------------------------------- conservation


@pytest.mark.parametrize("params", PARAMS.values(), ids=PARAMS.keys())
def test_material_is_conserved(params):
    heights = smooth_map((40, 40), seed=9)
    result = erode(heights, 2000, seed=3, params=params)
    np.testing.assert_allclose(
        heights - result.heights, result.eroded - result.deposited, rtol=0, atol=1e-12
    )
    total = result.eroded.sum() - result.deposited.sum()
    assert math.isclose(total, result.carried, rel_tol=1e-9, abs_tol=1e-12)
    assert result.eroded.min() >= 0.0
    assert result.deposited.min() >= 0.0
    assert result.carried >= 0.0


@given(
    heights=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=12),
        elements=st.floats(-50.0, 50.0),
    ),
    seed=st.integers(0, 2**64 - 1),
    radius=st.integers(1, 6),
    inertia=st.floats(0.0, 1.0),
)
def test_any_map_stays_finite_and_conserves(heights, seed, radius, inertia):
    params = HydraulicErosion(radius=radius, inertia=inertia)
    result = erode(heights, 200, seed=seed, params=params)
    for array in (result.heights, result.eroded, result.deposited):
        assert np.isfinite(array).all()
    assert math.isfinite(result.carried)
    assert result.eroded.min() >= 0.0 and result.deposited.min() >= 0.0
    floor = min(0.0, heights.min())
    assert result.heights.min() >= floor - 1e-9
    scale = max(1.0, float(np.abs(heights).max()))
    np.testing.assert_allclose(
        heights - result.heights, result.eroded - result.deposited, rtol=0, atol=1e-12 * scale
    )
    total = result.eroded.sum() - result.deposited.sum()
    assert math.isclose(total, result.carried, rel_tol=1e-9, abs_tol=1e-9 * scale)


def test_nothing_is_eroded_below_zero():
    # Lague's floor: a map in [0, 1] keeps its heights >= 0 even when
    # greedy droplets try to dig deeper.
    heights = smooth_map((30, 30), seed=10) * 0.02
    params = HydraulicErosion(capacity=50.0, erode_speed=1.0, gravity=50.0)
    result = erode(heights, 3000, seed=1, params=params)
    assert result.heights.min() >= 0.0
    assert (result.heights == 0.0).any()


def test_input_is_not_modified_and_outputs_are_new():
    heights = smooth_map((20, 20), seed=11)
    before = heights.copy()
    result = erode(heights, 500, seed=2)
    assert isinstance(result, ErosionResult)
    assert np.array_equal(heights, before)
    assert not np.shares_memory(result.heights, heights)
    assert result.heights.dtype == np.float64 and result.heights.shape == heights.shape
    out = thermal_erode(heights, 3)
    assert np.array_equal(heights, before)
    assert not np.shares_memory(out, heights)


def test_integer_and_non_contiguous_heights_are_accepted():
    heights = (smooth_map((24, 24), seed=12) * 100).astype(np.int32)
    expected = erode(heights.astype(np.float64), 200, seed=4)
    assert np.array_equal(erode(heights, 200, seed=4).heights, expected.heights)
    wide = np.zeros((24, 48))
    wide[:, ::2] = heights
    assert np.array_equal(erode(wide[:, ::2], 200, seed=4).heights, expected.heights)


def test_no_droplets_changes_nothing():
    heights = smooth_map((8, 8))
    result = erode(heights, 0)
    assert np.array_equal(result.heights, heights)
    assert not result.eroded.any() and not result.deposited.any()
    assert result.carried == 0.0


def test_flat_map_is_left_alone():
    # No gradient, so every droplet stops before its first step.
    heights = np.full((16, 16), 0.5)
    result = erode(heights, 100, seed=1)
    assert np.array_equal(result.heights, heights)
    assert result.carried == 0.0


# ------------------------------------------------------------------- edges


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("axis_name", ["x", "y"])
def test_droplets_leave_by_the_low_edge_without_wrapping(seed, axis_name):
    # One droplet on a plane falling towards x = 0 (or y = 0) runs to that
    # edge and stops there with its sediment. Had it wrapped round to the
    # high edge it would have gone uphill there, dropped its load and eroded
    # the far side of the map.
    rows, cols = (16, 48) if axis_name == "x" else (48, 16)
    y, x = np.mgrid[0:rows, 0:cols].astype(np.float64)
    plane = 0.05 * (x if axis_name == "x" else y)
    start = reference.droplet_start(seed, 0, cols, rows)
    along = start[0] if axis_name == "x" else start[1]
    params = HydraulicErosion(lifetime=200)
    result = erode(plane, 1, seed=seed, params=params)
    worn = np.nonzero(result.eroded.sum(axis=0 if axis_name == "x" else 1))[0]
    reach = params.radius - 1
    assert worn.max() <= math.floor(along) + reach
    assert worn.min() <= reach
    assert not result.deposited.any()
    assert result.carried > 0.0
    assert math.isclose(result.carried, result.eroded.sum(), rel_tol=1e-12)


def test_many_droplets_carry_material_off_the_low_edge():
    rows, cols = 20, 40
    plane = np.tile(np.arange(cols, dtype=np.float64) * 0.1, (rows, 1))
    result = erode(plane, 500, seed=3, params=HydraulicErosion(lifetime=100))
    # Nothing piles up against the high edge, where wrapped droplets would land.
    assert not result.deposited[:, -5:].any()
    assert result.carried > 0.5 * result.eroded.sum()


# ------------------------------------------------------------ determinism


def test_same_seed_same_bytes():
    heights = smooth_map((64, 48), seed=13)
    a = erode(heights, 3000, seed=42)
    b = erode(heights, 3000, seed=42)
    for name in ("heights", "eroded", "deposited"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes()
    assert a.carried == b.carried


def test_another_seed_another_result():
    heights = smooth_map((64, 48), seed=13)
    a = erode(heights, 3000, seed=42)
    b = erode(heights, 3000, seed=43)
    assert not np.array_equal(a.heights, b.heights)


def test_droplets_continue_the_same_stream():
    # Droplet k starts where it would in a longer run: a run of n droplets
    # is the first n droplets of any longer run, so only totals change.
    heights = smooth_map((32, 32), seed=14)
    short = erode(heights, 100, seed=9)
    longer = erode(heights, 101, seed=9)
    assert not np.array_equal(short.heights, longer.heights)
    assert np.array_equal(short.heights, reference.erode(heights, 100, seed=9)[0])


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
def test_thread_count_does_not_matter():
    # Thermal erosion runs in parallel; the droplet kernel is serial.
    heights = smooth_map((96, 80), seed=15)
    with threads(1):
        one_thermal = thermal_erode(heights, 10, talus=0.01)
    with threads(2):
        two_thermal = thermal_erode(heights, 10, talus=0.01)
    assert one_thermal.tobytes() == two_thermal.tobytes()


# ---------------------------------------------------------------- progress


def test_progress_counts_up_to_total_and_changes_nothing():
    heights = smooth_map((32, 32), seed=16)
    calls = []
    result = erode(heights, 1234, seed=8, progress=lambda done, total: calls.append((done, total)))
    done = [d for d, _ in calls]
    assert {t for _, t in calls} == {1234}
    assert done == sorted(set(done)) and done[0] > 0
    assert done[-1] == 1234
    assert 50 <= len(calls) <= 100
    plain = erode(heights, 1234, seed=8)
    assert result.heights.tobytes() == plain.heights.tobytes()
    assert result.carried == plain.carried


@pytest.mark.parametrize(("droplets", "expected"), [(0, [(0, 0)]), (3, [(1, 3), (2, 3), (3, 3)])])
def test_progress_for_few_droplets(droplets, expected):
    calls = []
    erode(smooth_map((8, 8)), droplets, progress=lambda done, total: calls.append((done, total)))
    assert calls == expected


# ----------------------------------------------------------------- thermal


def test_thermal_conserves_material():
    heights = random_map((50, 70), seed=17, low=-3.0, high=5.0)
    out = thermal_erode(heights, 25, talus=0.2)
    assert math.isclose(out.sum(), heights.sum(), rel_tol=1e-13)
    assert not np.array_equal(out, heights)


def test_thermal_reduces_the_steepest_slope():
    heights = random_map((40, 40), seed=18)
    before = max_slope(heights)
    after = [max_slope(thermal_erode(heights, n, talus=0.05)) for n in (1, 5, 50)]
    assert before > after[0] > after[1] > after[2]
    assert after[2] < 0.1


def test_thermal_settles_a_lone_pair_at_the_talus_slope():
    heights = np.array([[1.0, 0.0]])
    out = thermal_erode(heights, 1, talus=0.2)
    assert out.tolist() == [[0.6, 0.4]]
    assert np.array_equal(thermal_erode(out, 5, talus=0.2), out)


def test_thermal_leaves_flat_and_gentle_maps_unchanged():
    flat = np.full((12, 9), 2.5)
    assert np.array_equal(thermal_erode(flat, 10, talus=0.0), flat)
    # Exactly at the talus slope along rows, gentler on the diagonals.
    gentle = np.tile(np.arange(9, dtype=np.float64) / 64, (12, 1))
    assert np.array_equal(thermal_erode(gentle, 10, talus=1 / 64), gentle)
    assert np.array_equal(thermal_erode(random_map((5, 5)), 0), random_map((5, 5)))


def test_thermal_keeps_material_on_the_map():
    # A spike in the corner spreads only to cells inside the map.
    heights = np.zeros((5, 5))
    heights[0, 0] = 10.0
    out = thermal_erode(heights, 1, talus=0.0)
    assert math.isclose(out.sum(), 10.0, rel_tol=1e-15)
    assert out[0, 0] == 5.0
    assert np.count_nonzero(out) == 4


# ------------------------------------------------------------- bad input

BAD_HEIGHTS = [
    (np.zeros(5), ValueError, "heights"),
    (np.zeros((2, 2, 2)), ValueError, "heights"),
    (np.zeros((0, 4)), ValueError, "heights"),
    (np.array([[0.0, np.nan], [0.0, 0.0]]), ValueError, "finite"),
    (np.array([[0.0, np.inf], [0.0, 0.0]]), ValueError, "finite"),
    (np.array([[0.0, 1e200], [0.0, 0.0]]), ValueError, "rescale"),
    (np.array([["a", "b"], ["c", "d"]]), TypeError, "heights"),
    ("heights", TypeError, "heights"),
]


@pytest.mark.parametrize(("heights", "error", "match"), BAD_HEIGHTS)
def test_bad_heights(heights, error, match):
    with pytest.raises(error, match=match):
        erode(heights, 10)
    with pytest.raises(error, match=match):
        thermal_erode(heights, 1)


def test_one_row_map_cannot_be_eroded_by_droplets():
    with pytest.raises(ValueError, match="at least 2 rows and 2 columns"):
        erode(np.zeros((1, 10)), 10)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"droplets": -1}, ValueError, "droplets"),
        ({"droplets": 2.5}, TypeError, "droplets"),
        ({"droplets": True}, TypeError, "droplets"),
        ({"seed": 2**64}, ValueError, "seed"),
        ({"seed": 1.0}, TypeError, "seed"),
        ({"params": {"radius": 2}}, TypeError, "params"),
        ({"progress": 5}, TypeError, "progress"),
    ],
)
def test_bad_erode_arguments(kwargs, error, match):
    arguments = {"droplets": 10} | kwargs
    droplets = arguments.pop("droplets")
    with pytest.raises(error, match=match):
        erode(np.zeros((4, 4)), droplets, **arguments)


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("radius", 0, ValueError),
        ("radius", 17, ValueError),
        ("radius", 2.0, TypeError),
        ("lifetime", 0, ValueError),
        ("lifetime", True, TypeError),
        ("lifetime", 1025, ValueError),
        ("inertia", 1.5, ValueError),
        ("inertia", -0.1, ValueError),
        ("erode_speed", 2.0, ValueError),
        ("deposit_speed", -1.0, ValueError),
        ("evaporate_speed", float("nan"), ValueError),
        ("capacity", 0.0, ValueError),
        ("min_capacity", -0.01, ValueError),
        ("gravity", float("inf"), ValueError),
        ("initial_water", 0, ValueError),
        ("initial_speed", "1", TypeError),
    ],
)
def test_bad_params(field, value, error):
    with pytest.raises(error, match=field):
        HydraulicErosion(**{field: value})
    with pytest.raises(error, match=field):
        dataclasses.replace(DEFAULTS, **{field: value})


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("radius", 256, "radius must be an integer from 1 to 16, got 256; a step's work grows "
         "with the radius squared; for broader, smoother valleys erode a smaller map"),
        ("lifetime", 10**6, "lifetime must be an integer from 1 to 1024, got 1000000; a "
         "droplet's work grows with its lifetime; lower evaporate_speed"),
    ],
)  # fmt: skip
def test_parameters_that_scale_the_work_are_bounded_with_the_way_out(field, value, words):
    # radius=256 (a brush of 205,857 cells a step) ran for hours on a big
    # map, and lifetime had no bound at all.
    with pytest.raises(ParameterError, match=re.escape(words)) as error:
        HydraulicErosion(**{field: value})
    assert error.value.name == field


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"iterations": -1}, ValueError, "iterations"),
        ({"iterations": 1.0}, TypeError, "iterations"),
        ({"talus": -0.5}, ValueError, "talus"),
        ({"talus": float("nan")}, ValueError, "talus"),
        ({"talus": "steep"}, TypeError, "talus"),
        ({"rate": 0.0}, ValueError, "rate"),
        ({"rate": 1.5}, ValueError, "rate"),
    ],
)
def test_bad_thermal_arguments(kwargs, error, match):
    arguments = {"iterations": 1} | kwargs
    iterations = arguments.pop("iterations")
    with pytest.raises(error, match=match):
        thermal_erode(np.zeros((4, 4)), iterations, **arguments)


# ---------------------------------------------------------------- Ctrl-C


def brush_cells(radius):
    return sum(dy * dy + dx * dx < radius * radius
               for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1))  # fmt: skip


def slice_work(monkeypatch, name, run, params):
    # The most brush cells one call of the kernel ``name`` can visit
    # (droplets x lifetime x brush): Ctrl-C is heard only between calls.
    from worldgen.terrain import _erosion

    works = []
    cells = brush_cells(params.radius)

    def fake(*args):
        if name == "_erode_kernel":
            droplets = int(args[10]) - int(args[9])
        else:  # _erode_pass_kernel: rows x columns x droplets per cell
            rows, cols = int(args[15]) - int(args[14]), int(args[17]) - int(args[16])
            droplets = rows * cols * int(args[13]) * float(args[18])
        works.append(droplets * params.lifetime * cells)
        return args[-1] if name == "_erode_kernel" else args[19]

    monkeypatch.setattr(_erosion, name, fake)
    run()
    return max(works)


@pytest.mark.parametrize("radius", [8, 16])
def test_wide_brushes_are_cut_into_short_slices(monkeypatch, radius):
    # A slice of droplets took ~0.1 s with the default brush, but 15 s
    # with radius=64 and minutes with 256: Ctrl-C went unheard that long.
    from worldgen.terrain import _erosion
    from worldgen.terrain._erosion import erode_cells

    heights = smooth_map((256, 256), seed=3)
    wide = HydraulicErosion(radius=radius)

    def sequential(params):
        return lambda: erode(heights, 100_000, params=params)

    def windowed(params):
        return lambda: erode_cells(heights, (0, 0), 2.0, seed=1, params=params)

    # Windowed slices are whole rows: short ones within RADIUS_LIMIT.
    runs = [("_erode_kernel", sequential), ("_erode_pass_kernel", windowed)]
    # What a slice of the default brush may do (about a tenth of a second).
    usual = _erosion._DROPLET_STEPS_PER_SLICE * brush_cells(DEFAULTS.radius)
    for name, run in runs:
        assert slice_work(monkeypatch, name, run(DEFAULTS), DEFAULTS) <= usual
        assert slice_work(monkeypatch, name, run(wide), wide) <= 1.5 * usual
