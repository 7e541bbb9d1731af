"""Numbers at the edges: overflow, dtypes, numpy scalars, rounding once."""

import numpy as np
import pytest

from worldgen.noise import Cellular, Fractal, Perlin, Simplex, Value, Warp, axis


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"persistence": 1e160}, "persistence"),
        ({"persistence": 1e11, "octaves": 32}, "persistence"),
        ({"lacunarity": 1e160}, "lacunarity"),
        ({"lacunarity": 1e7, "octaves": 4}, "lacunarity"),
    ],
)
def test_overflowing_amplitudes_and_frequencies_are_rejected(kwargs, name):
    with pytest.raises(ValueError, match=rf"{name}=.* overflows.*lower {name} or octaves"):
        Fractal(Perlin(), **{"octaves": 4, **kwargs})


def test_large_but_finite_growth_still_works():
    fbm = Fractal(Perlin(), octaves=4, persistence=1e90, lacunarity=100.0)
    values = fbm.grid(axis(0.1, 5, 0.3), axis(0.2, 4, 0.3))
    assert np.isfinite(values).all()
    lo, hi = fbm.bounds(2)
    assert lo <= values.min() and values.max() <= hi


@pytest.mark.parametrize(
    "dtype", ["banana", "f8,f4", np.int32, 3.5, object, np.float64(1.0), np.float32(0), None]
)
def test_bad_dtype_is_rejected(dtype):
    with pytest.raises(ValueError, match=r"dtype must be numpy.float64 or numpy.float32"):
        Perlin()(0.5, 0.5, dtype=dtype)
    with pytest.raises(ValueError, match=r"dtype must be numpy.float64 or numpy.float32"):
        Perlin().grid([0.5], [0.5], dtype=dtype)


def test_unit_must_be_a_bool():
    with pytest.raises(TypeError, match=r"unit must be True or False"):
        Perlin()(0.5, unit="yes")


@pytest.mark.parametrize("period", [np.int64(4), np.uint8(4), (np.int32(4), np.int64(4))])
def test_numpy_integer_periods_work_like_python_ones(period):
    expected = Perlin(seed=2, period=(4, 4) if isinstance(period, tuple) else 4)
    noise = Perlin(seed=2, period=period)
    assert noise == expected
    assert type(noise.period) is type(expected.period)
    assert noise(0.5, 1.25) == expected(0.5, 1.25)
    x = axis(0.0, 9, 0.5)
    assert np.array_equal(Value(period=period).grid(x, x), Value(period=4).grid(x, x))
    assert np.array_equal(Cellular(period=period).grid(x, x), Cellular(period=4).grid(x, x))


def test_numpy_scalars_are_accepted_wherever_python_numbers_are():
    x = axis(0.1, 6, 0.4)
    assert Warp(amplitude=np.float32(1)) == Warp(amplitude=1.0)
    assert Cellular(jitter=np.float32(0.5)) == Cellular(jitter=0.5)
    fractal = Fractal(Simplex(np.uint64(9)), np.int64(3), np.float32(0.5), np.float64(2.0))
    assert fractal == Fractal(Simplex(9), 3, 0.5, 2.0)
    assert np.array_equal(fractal.grid(x, x), Fractal(Simplex(9), 3, 0.5, 2.0).grid(x, x))
    assert np.array_equal(axis(np.float32(0.5), np.int64(3), np.int8(2)), [0.5, 2.5, 4.5])


@pytest.mark.parametrize(
    "noise",
    [
        Fractal(Perlin(3), octaves=5),
        Fractal(Cellular(4), octaves=2, mode="ridged"),
        Warp(Simplex(5), Perlin(6), amplitude=1.5),
    ],
    ids=["fbm", "cellular", "warp"],
)
def test_float32_unit_is_the_float64_result_rounded_once(noise):
    x = axis(0.1, 300, 0.0137)
    y = axis(-2.0, 7, 0.3)
    want = noise.grid(x, y, unit=True).astype(np.float32)
    assert np.array_equal(noise.grid(x, y, dtype=np.float32, unit=True), want)
    points = noise(x[:7], y, dtype=np.float32, unit=True)
    assert np.array_equal(points, noise(x[:7], y, unit=True).astype(np.float32))


@pytest.mark.parametrize(
    ("start", "count", "step"),
    [(1e308, 3, 1e308), (0.0, 2**20, 1e305), (-1e308, 2, -1e308)],
)
def test_axis_overflow_is_rejected(start, count, step):
    with pytest.raises(ValueError, match=r"axis\(start=.* overflows.*lower start, step or count"):
        axis(start, count, step)


def test_axis_edges_still_work():
    assert axis(1e308, 1, 1e308).tolist() == [1e308]
    assert axis(0.0, 0, 1e308).tolist() == []
