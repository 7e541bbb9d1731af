"""Every kernel against the slow, obviously correct versions in naive.py."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.noise import naive
from worldgen.noise import Cellular, Fractal, Perlin, Simplex, Value, _perlin, _sampling

coordinate = st.floats(-300.0, 300.0, allow_nan=False)
# Dyadic coordinates land on lattice lines and cell corners, where signed
# zeros and the hoisted grid paths are easiest to get wrong.
dyadic = st.integers(-4096, 4096).map(lambda k: k / 16.0)
coords = st.one_of(coordinate, dyadic)
seeds = st.integers(0, 2**64 - 1)


def bits(values):
    return np.asarray(values, dtype=np.float64).view(np.uint64)


def assert_same(fast, slow):
    """Equal values, and equal bits wherever the value is not zero."""
    fast = np.asarray(fast, dtype=np.float64)
    slow = np.asarray(slow, dtype=np.float64)
    assert np.array_equal(fast, slow), (fast, slow)
    nonzero = slow != 0
    assert np.array_equal(bits(fast[nonzero]), bits(slow[nonzero]))


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@given(data=st.data(), seed=seeds)
def test_perlin_equals_naive(ndim, data, seed):
    point = data.draw(st.tuples(*[coords] * ndim))
    period = data.draw(st.sampled_from([None, 1, 3, 256, 1000]))
    noise = Perlin(seed=seed, period=period)
    expected = naive.perlin(point, seed=seed, period=period or 256)
    assert bits(noise(*point)) == bits(expected)


# Far from the origin, up to the public limit of 2**62 and across 4e18,
# where the general cell finder turns to fmod: the point drivers of periods
# that are multiples of 256 find cells through int64 there too.
far = st.one_of(
    st.floats(-(2.0**62), 2.0**62, exclude_min=True, exclude_max=True),
    st.floats(3.9e18, 4.1e18),
    st.floats(-4.1e18, -3.9e18),
)


@pytest.mark.parametrize("ndim", [2, 3])
@given(data=st.data(), seed=seeds)
def test_perlin_far_out_equals_naive(ndim, data, seed):
    point = data.draw(st.tuples(*[st.one_of(coords, far)] * ndim))
    period = data.draw(st.sampled_from([None, 512, 1000]))
    noise = Perlin(seed=seed, period=period)
    expected = naive.perlin(point, seed=seed, period=period or 256)
    assert bits(noise(*point)) == bits(expected)


def test_points_of_periods_of_256_take_the_wrapped_path():
    # What the test above runs through, so that it cannot pass on the
    # general path alone.
    for period, wrapped in ((None, True), (512, True), (1000, False)):
        for noise in (Perlin(period=period), Fractal(Perlin(period=period), octaves=3)):
            tag = _sampling.wrapped_tag(noise._plan(3))[0]
            assert (tag.dtype == np.uint16) == wrapped
    assert _sampling.wrapped_tag(Value()._plan(3))[0].dtype == np.int16
    # Given the coordinates (as the world model gives them), the tag checks
    # their reach: octave 3 has 4 times the frequency.
    plan = Fractal(Perlin(), octaves=3)._plan(2)
    for xs, wrapped in (
        ([-1e3, 5.0], True),
        ([2.0**59], True),
        ([2.0**60], False),
        ([np.nan], False),
    ):
        tag = _sampling.wrapped_tag(plan, (np.array(xs), np.zeros(0)))[0]
        assert (tag.dtype == np.uint16) == wrapped, xs


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
@pytest.mark.parametrize("interpolation", ["linear", "cubic", "quintic"])
@given(data=st.data(), seed=seeds)
def test_value_equals_naive(ndim, interpolation, data, seed):
    point = data.draw(st.tuples(*[coords] * ndim))
    noise = Value(seed=seed, interpolation=interpolation, period=7)
    assert_same(noise(*point), naive.value(point, seed=seed, period=7, interpolation=interpolation))


@pytest.mark.parametrize("ndim", [2, 3, 4])
@given(data=st.data(), seed=seeds)
def test_simplex_close_to_naive(ndim, data, seed):
    point = data.draw(st.tuples(*[coords] * ndim))
    assert Simplex(seed=seed)(*point) == pytest.approx(naive.simplex(point, seed=seed), abs=1e-12)


@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("feature", ["f1", "f2", "f2-f1"])
@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "chebyshev"])
@given(data=st.data(), seed=seeds, jitter=st.sampled_from([0.0, 0.5, 1.0]))
def test_cellular_equals_brute_force(ndim, feature, metric, data, seed, jitter):
    point = data.draw(st.tuples(*[coordinate] * ndim))
    noise = Cellular(seed=seed, feature=feature, metric=metric, jitter=jitter, period=50)
    expected = naive.cellular(
        point, seed=seed, period=50, feature=feature, metric=metric, jitter=jitter
    )
    assert noise(*point) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("mode", ["fbm", "billow", "turbulence", "ridged"])
@given(data=st.data(), seed=seeds, octaves=st.integers(1, 6))
def test_fractal_equals_naive(mode, data, seed, octaves):
    point = data.draw(st.tuples(coords, coords, coords))
    persistence = data.draw(st.sampled_from([0.5, 0.37, 1.3]))
    lacunarity = data.draw(st.sampled_from([2.0, 3.0, 1.87]))
    fractal = Fractal(Perlin(seed=seed), octaves, persistence, lacunarity, mode)
    expected = naive.fractal(naive.perlin, point, seed, octaves, persistence, lacunarity, mode)
    assert_same(fractal(*point), expected)


def test_fractal_of_tiled_value_noise_equals_naive():
    rng = np.random.default_rng(5)
    fractal = Fractal(Value(seed=9, period=4, interpolation="cubic"), octaves=5, lacunarity=3)
    for point in rng.uniform(-50, 50, size=(50, 2)):
        expected = naive.fractal(
            naive.value, list(point), 9, 5, 0.5, 3.0, "fbm", period=4, interpolation="cubic"
        )
        assert_same(fractal(*point), expected)


# Offsets a corner can have: >= +0.0 on its low side, < 0 on its high side.
LOW = (0.0, 2.0**-60, 0.25, 0.7, 1.0 - 2.0**-53)
HIGH = (-1.0, -0.75, -0.3, -(2.0**-60))


@pytest.mark.parametrize("ndim", [2, 3, 4])
def test_gradient_tables_equal_the_gradient_sets_bit_for_bit(ndim):
    """The branch-free table form of every gradient, on every hash and every
    corner side, signed zeros included (the point kernels rely on it)."""
    dot = {2: _perlin.dot2, 3: _perlin.dot3, 4: _perlin.dot4}[ndim]
    rng = np.random.default_rng(ndim)
    for h in range(256):
        for sides in itertools.product((0, 1), repeat=ndim):
            for _ in range(4):
                d = [float(rng.choice(HIGH if s else LOW)) for s in sides]
                assert bits(dot(h, *d, *sides)) == bits(naive.gradient_dot(h, d)), (h, d)


@pytest.mark.parametrize("ndim", [1, 2, 3, 4])
def test_gradients_equal_the_gradient_sets_bit_for_bit(ndim):
    """The branch-free gradients simplex noise uses, on any offsets."""
    grad = {1: _perlin.grad1, 2: _perlin.grad2, 3: _perlin.grad3, 4: _perlin.grad4}[ndim]
    rng = np.random.default_rng(ndim)
    for h in range(256):
        for _ in range(8):
            d = [float(v) for v in rng.choice((-0.0, *LOW, *HIGH, 0.3, 1.5), size=ndim)]
            assert bits(grad(h, *d)) == bits(naive.gradient_dot(h, d)), (h, d)


def test_lattice_row_gradients_equal_the_tables_bit_for_bit():
    """The arithmetic form the vectorised 2D rows use, signed zeros included."""
    for h in range(8):
        for side in (0, 1):
            assert bits(_perlin._slope2(h, side)) == bits(_perlin._K2[side, h])
            assert bits(_perlin._sign2(h, side)) == bits(_perlin._S2[side, h])
