"""Bad input: a clear error that names the parameter, never a crash."""

import numpy as np
import pytest

from worldgen import threads
from worldgen.noise import Cellular, Fractal, Perlin, Simplex, Value, Warp, axis, by_name


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", ["x", "y", "z"])
def test_non_finite_coordinates(bad, where):
    coords = {"x": 0.5, "y": 0.5, "z": 0.5}
    coords[where] = np.array([0.0, bad])
    with pytest.raises(ValueError, match=rf"^{where}: coordinates must be finite"):
        Perlin()(coords["x"], coords["y"], coords["z"])
    with pytest.raises(ValueError, match=rf"^{where}: coordinates must be finite"):
        Perlin().grid(*[np.atleast_1d(coords[a]) for a in "xyz"])


def test_coordinates_too_large_for_the_octaves():
    with pytest.raises(ValueError, match=r"x: coordinates are too large"):
        Fractal(Perlin(), octaves=32)(1e12, 0.0)
    with pytest.raises(ValueError, match=r"y: coordinates are too large"):
        Perlin()(0.5, -1e300)
    assert np.isfinite(Perlin()(4e18, -4.5e18))


@pytest.mark.parametrize("octaves", [0, 33, -1])
def test_octaves_out_of_range(octaves):
    with pytest.raises(ValueError, match=r"octaves must be an integer from 1 to 32"):
        Fractal(Perlin(), octaves=octaves)


def test_octaves_not_an_integer():
    with pytest.raises(TypeError, match=r"octaves must be an integer"):
        Fractal(Perlin(), octaves=2.5)


@pytest.mark.parametrize("field", ["persistence", "lacunarity"])
@pytest.mark.parametrize("bad", [0.0, -0.5, np.nan, np.inf])
def test_persistence_and_lacunarity_must_be_positive(field, bad):
    with pytest.raises(ValueError, match=rf"{field} must be a finite number > 0"):
        Fractal(Perlin(), **{field: bad})


@pytest.mark.parametrize("bad", [0, -3, 2.5, "4", True, (1, 0), (1, 2, 3, 4, 5)])
def test_period_must_be_positive_integers(bad):
    with pytest.raises((ValueError, TypeError), match=r"period must be"):
        Perlin(period=bad)


def test_period_per_axis_must_match_dimensions():
    with pytest.raises(ValueError, match=r"period has 2 entries but the noise is sampled in 3D"):
        Perlin(period=(4, 4))(0.5, 0.5, 0.5)


def test_tiling_fractal_needs_integer_lacunarity():
    with pytest.raises(
        ValueError, match=r"lacunarity must be an integer when the base noise has a period"
    ):
        Fractal(Perlin(period=8), lacunarity=1.5)


def test_mismatched_shapes():
    with pytest.raises(ValueError, match=r"coordinate shapes do not broadcast: x\(3,\), y\(4,\)"):
        Perlin()(np.zeros(3), np.zeros(4))


def test_grid_axes_must_be_vectors():
    with pytest.raises(ValueError, match=r"y: a grid axis must be a 1-D array"):
        Perlin().grid(np.zeros(3), np.zeros((2, 2)))


@pytest.mark.parametrize("bad", ["a", [1, "b"], np.array([1 + 2j]), None])
def test_coordinates_must_be_real_numbers(bad):
    with pytest.raises((TypeError, ValueError)):
        Perlin()(bad, 0.5)


def test_wrong_number_of_dimensions():
    with pytest.raises(ValueError, match=r"Simplex noise supports 2, 3, 4 dimensions, got 1"):
        Simplex()(0.5)
    with pytest.raises(ValueError, match=r"Cellular noise supports 2, 3 dimensions, got 4"):
        Cellular()(0.5, 0.5, 0.5, 0.5)
    with pytest.raises(ValueError, match=r"y is missing"):
        Perlin()(0.5, None, 0.5)


def test_unknown_names():
    with pytest.raises(
        ValueError,
        match=r"noise must be one of 'perlin', 'value', 'simplex', 'cellular', got 'pelrin'",
    ):
        by_name("pelrin")
    with pytest.raises(
        ValueError, match=r"interpolation must be one of 'linear', 'cubic', 'quintic', got 'cosine'"
    ):
        Value(interpolation="cosine")
    with pytest.raises(ValueError, match=r"mode must be one of"):
        Fractal(Perlin(), mode="fractal")
    with pytest.raises(ValueError, match=r"feature must be one of"):
        Cellular(feature="f3")
    with pytest.raises(ValueError, match=r"metric must be one of"):
        Cellular(metric="cosine")
    with pytest.raises(ValueError, match=r"perlin noise has no parameter octaves"):
        by_name("perlin", octaves=3)


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1])
def test_seed_must_fit_64_bits(seed):
    with pytest.raises(ValueError, match=r"seed must fit in 64 bits"):
        Perlin(seed=seed)


@pytest.mark.parametrize("seed", [1.5, "1", None, True])
def test_seed_must_be_an_int(seed):
    with pytest.raises(TypeError, match=r"seed must be an int"):
        Perlin(seed=seed)


def test_other_bad_parameters():
    with pytest.raises(ValueError, match=r"jitter must be a number from 0 to 1"):
        Cellular(jitter=1.5)
    with pytest.raises(ValueError, match=r"amplitude must be a finite number >= 0"):
        Warp(amplitude=-1.0)
    with pytest.raises(TypeError, match=r"base must be a Perlin, Value, Simplex or Cellular noise"):
        Fractal(Warp())
    with pytest.raises(ValueError, match=r"dtype must be numpy.float64 or numpy.float32"):
        Perlin()(0.5, 0.5, dtype=np.int32)
    with pytest.raises(ValueError, match=r"count must be an integer from 0"):
        axis(0.0, -1, 1.0)
    with pytest.raises(ValueError, match=r"step must be finite"):
        axis(0.0, 3, np.inf)
    with pytest.raises(ValueError, match=r"threads: count must be an integer from 1"):
        with threads(0):
            pass
