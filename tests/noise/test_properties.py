"""Properties every generator promises, checked with hypothesis."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldgen import threads
from worldgen.noise import Cellular, Fractal, Perlin, Simplex, Value, Warp, axis

seeds = st.integers(-(2**63), 2**64 - 1)


def generators(seed: int):
    """One of each generator (and each fractal mode), with their dimensions."""
    return [
        (Perlin(seed), (1, 2, 3, 4)),
        (Value(seed, interpolation="cubic"), (1, 2, 3, 4)),
        (Simplex(seed), (2, 3, 4)),
        (Cellular(seed, feature="f2-f1", metric="manhattan"), (2, 3)),
        (Cellular(seed, jitter=0.3), (2, 3)),
        (Fractal(Perlin(seed), octaves=5, mode="fbm"), (2, 3)),
        (Fractal(Simplex(seed), octaves=3, mode="billow"), (2, 3)),
        (Fractal(Value(seed), octaves=4, mode="turbulence"), (1, 2)),
        (Fractal(Perlin(seed), octaves=4, mode="ridged"), (2, 3)),
        (Fractal(Cellular(seed), octaves=2, mode="ridged"), (2,)),
        (Warp(Perlin(seed), Fractal(Perlin(seed + 1), octaves=2), amplitude=2.0), (2, 3)),
    ]


CASES = [(i, d) for i, (_, dims) in enumerate(generators(0)) for d in dims]


def pick(index: int, seed: int):
    return generators(seed)[index][0]


def bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


grid_start = st.floats(-1e4, 1e4, allow_nan=False)
grid_step = st.sampled_from([1 / 128, 1 / 16, 0.37, 1.0, 2.5])


def window(draw_start, count, step):
    return axis(draw_start, count, step)


@pytest.mark.parametrize(("index", "ndim"), CASES)
@given(seed=st.integers(0, 2**32), data=st.data())
def test_grid_equals_points_and_stays_in_range(index, ndim, seed, data):
    noise = pick(index, seed)
    step = data.draw(grid_step)
    counts = (23, 7, 3, 2)[:ndim]
    vectors = [axis(data.draw(grid_start), n, step) for n in counts]
    grid = noise.grid(*vectors)
    mesh = np.meshgrid(*vectors[::-1], indexing="ij")[::-1]
    points = noise(*mesh)
    assert grid.shape == tuple(reversed(counts))
    assert np.array_equal(bits(grid), bits(points))
    assert not np.isnan(grid).any()
    lo, hi = noise.bounds(ndim)
    assert lo <= grid.min() and grid.max() <= hi


@pytest.mark.parametrize(("index", "ndim"), CASES)
@given(seed=st.integers(0, 2**32), data=st.data())
def test_window_of_big_grid_equals_window_alone(index, ndim, seed, data):
    noise = pick(index, seed)
    step = data.draw(grid_step)
    start = data.draw(grid_start)
    counts = (40, 9, 4, 3)[:ndim]
    big = noise.grid(*[axis(start, n, step) for n in counts])
    lo = [data.draw(st.integers(0, n - 2)) for n in counts]
    size = [data.draw(st.integers(1, n - a)) for a, n in zip(lo, counts)]
    alone = noise.grid(*[axis(start, a + s, step)[a:] for a, s in zip(lo, size)])
    cut = big[tuple(slice(a, a + s) for a, s in reversed(list(zip(lo, size))))]
    assert np.array_equal(bits(alone), bits(cut))


@pytest.mark.parametrize(("index", "ndim"), CASES)
@given(seed=st.integers(0, 2**32))
def test_deterministic_and_seed_sensitive(index, ndim, seed):
    rng = np.random.default_rng(seed)
    pts = rng.uniform(-50, 50, size=(ndim, 64))
    first = pick(index, seed)(*pts)
    again = pick(index, seed)(*pts)
    other = pick(index, seed + 1)(*pts)
    assert np.array_equal(bits(first), bits(again))
    assert not np.array_equal(first, other)


@given(seed=seeds, data=st.data())
def test_scalar_equals_array_element(seed, data):
    point = data.draw(st.tuples(*[st.floats(-1e6, 1e6)] * 3))
    noise = Perlin(seed)
    assert isinstance(noise(*point), float)
    assert bits(noise(*point)) == bits(noise(*[np.array([v]) for v in point]))[0]


tiled = st.integers(-(2**12), 2**12).map(lambda k: k / 256.0)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@given(seed=seeds, data=st.data())
def test_perlin_and_value_tile_exactly(ndim, seed, data):
    period = data.draw(st.lists(st.integers(1, 300), min_size=ndim, max_size=ndim))
    point = data.draw(st.lists(tiled, min_size=ndim, max_size=ndim))
    axis_ = data.draw(st.integers(0, ndim - 1))
    laps = data.draw(st.integers(-3, 3))
    moved = list(point)
    moved[axis_] += laps * period[axis_]
    for noise in (Perlin(seed, period=tuple(period)), Value(seed, period=tuple(period))):
        assert bits(noise(*point)) == bits(noise(*moved))


@pytest.mark.parametrize("ndim", [2, 3])
@given(seed=seeds, data=st.data())
def test_cellular_tiles_exactly(ndim, seed, data):
    period = data.draw(st.integers(1, 40))
    point = data.draw(st.lists(tiled, min_size=ndim, max_size=ndim))
    moved = [v + period for v in point]
    noise = Cellular(seed, period=period, feature="f2")
    assert bits(noise(*point)) == bits(noise(*moved))


@pytest.mark.parametrize("base", [Perlin, Value])
@given(seed=seeds, data=st.data())
def test_fractal_tiles_through_octaves(base, seed, data):
    period = data.draw(st.integers(1, 12))
    lacunarity = data.draw(st.sampled_from([2, 3]))
    noise = Fractal(base(seed, period=period), octaves=6, lacunarity=lacunarity)
    point = data.draw(st.lists(tiled, min_size=2, max_size=2))
    moved = [point[0] + period, point[1] - 2 * period]
    assert bits(noise(*point)) == bits(noise(*moved))


def test_tiled_grid_repeats_whole_rows():
    noise = Fractal(Perlin(3, period=(4, 8)), octaves=5)
    grid = noise.grid(axis(0, 128, 1 / 16), axis(0, 256, 1 / 16))
    assert np.array_equal(bits(grid[:, :64]), bits(grid[:, 64:]))
    assert np.array_equal(bits(grid[:128]), bits(grid[128:]))


@pytest.mark.parametrize(("index", "ndim"), [c for c in CASES if c[1] in (2, 3)])
def test_parallel_equals_serial(index, ndim):
    noise = pick(index, 77)
    vectors = [axis(-3.1, n, 0.173) for n in (97, 61, 5)[:ndim]]
    with threads(1):
        serial = noise.grid(*vectors)
        serial_points = noise(*np.meshgrid(*vectors[::-1], indexing="ij")[::-1])
    with threads(2):
        parallel = noise.grid(*vectors)
        parallel_points = noise(*np.meshgrid(*vectors[::-1], indexing="ij")[::-1])
    assert np.array_equal(bits(serial), bits(parallel))
    assert np.array_equal(bits(serial_points), bits(parallel_points))


@pytest.mark.parametrize(("index", "ndim"), [c for c in CASES if c[1] in (2, 3)])
def test_parallel_equals_serial_on_grids_of_several_chunks(index, ndim):
    # Big enough for several chunks of rows (3D: one slice, and three),
    # shared by the threads, and as many points.
    noise = pick(index, 78)
    sizes = {2: [(337, 211)], 3: [(337, 211, 3), (337, 211, 1)]}[ndim]
    for counts in sizes:
        vectors = [axis(-3.1, n, 0.173) for n in counts]
        mesh = np.meshgrid(*vectors[::-1], indexing="ij")[::-1]
        with threads(1):
            serial = noise.grid(*vectors)
            serial_points = noise(*mesh)
        with threads(2):
            parallel = noise.grid(*vectors)
            parallel_points = noise(*mesh)
        assert np.array_equal(bits(serial), bits(parallel))
        assert np.array_equal(bits(serial_points), bits(parallel_points))


@pytest.mark.parametrize(("index", "ndim"), [c for c in CASES if c[1] in (2, 3)])
@settings(max_examples=20)
@given(data=st.data())
def test_rows_made_apart_equal_rows_of_the_whole_grid(index, ndim, data):
    # A row's values do not depend on the rows made with it (several
    # chunks of rows here, cut anywhere), nor on their chunk.
    noise = pick(index, 79)
    step = data.draw(grid_step)
    x = axis(data.draw(grid_start), 1000, step)
    y = axis(data.draw(grid_start), 90, step)
    z = [axis(data.draw(grid_start), 2, step)] if ndim == 3 else []
    whole = noise.grid(x, y, *z)
    a = data.draw(st.integers(0, 89))
    b = data.draw(st.integers(a + 1, 90))
    part = noise.grid(x, y[a:b], *z)
    assert np.array_equal(bits(part), bits(whole[..., a:b, :]))


@given(seed=seeds)
def test_float32_is_the_rounded_float64(seed):
    noise = Fractal(Perlin(seed), octaves=3)
    x = axis(0.0, 50, 0.1)
    assert np.array_equal(noise.grid(x, x, dtype=np.float32), noise.grid(x, x).astype(np.float32))
    assert noise.grid(x, x, dtype=np.float32).dtype == np.float32


@given(seed=seeds)
def test_unit_mapping(seed):
    noise = Simplex(seed)
    x = axis(0.0, 40, 0.3)
    raw = noise.grid(x, x)
    unit = noise.grid(x, x, unit=True)
    assert 0.0 <= unit.min() and unit.max() <= 1.0
    assert np.allclose(unit, (raw + 1.0) / 2.0)


def test_perlin_is_zero_on_lattice_points():
    pts = np.arange(-5.0, 6.0)
    for ndim in (1, 2, 3, 4):
        assert np.all(Perlin(9).grid(*[pts] * ndim) == 0.0)


def test_octaves_do_not_line_up_at_the_origin():
    assert Perlin()(0.0, 0.0) == 0.0
    assert Fractal(Perlin(), octaves=4)(0.0, 0.0) != 0.0


def test_single_octave_fbm_is_the_base_noise():
    x = axis(-2.0, 30, 0.31)
    for base in (Perlin(4), Simplex(4), Value(4), Cellular(4)):
        assert np.array_equal(bits(Fractal(base, octaves=1).grid(x, x)), bits(base.grid(x, x)))


def test_empty_inputs():
    assert Perlin().grid(np.array([]), axis(0, 3, 1.0)).shape == (3, 0)
    assert Perlin()(np.zeros((0, 2)), np.zeros((0, 2))).shape == (0, 2)


@pytest.mark.parametrize("step", [0.25, 0.5, 1.0, 2.0, 0.75, 0.3])
@given(seed=st.integers(0, 2**32), start=st.integers(-4096, 4096))
def test_wide_rows_equal_points(step, seed, start):
    # Rows of 512 samples at these steps take the few-offset-class and the
    # short-run paths of the 2D kernels, which narrow grids never reach.
    x = axis(start / 8.0, 512, step)
    y = axis(start / 4.0, 5, step)
    for noise in (Perlin(seed), Fractal(Perlin(seed), octaves=3), Value(seed)):
        grid = noise.grid(x, y)
        points = noise(x[None, :], y[:, None])
        assert np.array_equal(bits(grid), bits(points))


@pytest.mark.parametrize(
    ("xstep", "ystep"), [(0.25, 0.25), (0.5, 0.125), (1.0, 1 / 6), (0.25, 1.0)]
)
@given(seed=st.integers(0, 2**32), start=st.integers(-4096, 4096))
def test_wide_rows_with_offset_classes_equal_points(xstep, ystep, seed, start):
    # 1024-wide rows with at most 4 x offsets take the class-table path;
    # the y steps give rows with 1 to 8 y offsets, so the table cache both
    # hits and evicts.
    x = axis(start / 16.0, 1024, xstep)
    y = axis(start / 8.0, 11, ystep)
    for noise in (Perlin(seed), Fractal(Perlin(seed), octaves=8, persistence=0.6)):
        grid = noise.grid(x, y)
        assert np.array_equal(bits(grid), bits(noise(x[None, :], y[:, None])))


@pytest.mark.parametrize(("index", "ndim"), CASES)
def test_shuffled_points_give_the_same_bytes(index, ndim):
    """The point form computes each point alone: the order of the points
    changes neither a value nor its bits."""
    noise = pick(index, 91)
    rng = np.random.default_rng(index)
    points = rng.uniform(-300.0, 300.0, size=(ndim, 2000))
    points[:, :200] = np.round(points[:, :200] * 4) / 4  # lattice lines and cell corners
    order = rng.permutation(points.shape[1])
    ordered = noise(*points)
    shuffled = noise(*points[:, order])
    assert np.array_equal(bits(shuffled), bits(ordered[order]))
