"""Windows of the world model at odd places, sizes and winds: each equals the
same samples of a bigger window, byte for byte."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldgen._memory import MemoryLimitError
from worldgen.world import Window, WorldConfig, _fields, elevation, world_fields
from worldgen.world._climate import WINDS
from worldgen.world._fields import RIVERS_REACH
from worldgen.world._window import REACH


@pytest.mark.parametrize("wind", sorted(WINDS))
def test_rainfall_of_a_window_is_the_crop_of_a_bigger_one_in_every_wind(wind):
    # The rainfall's sweep reads a cone of grid points upwind of each
    # point: across a diagonal wind it spreads along the other diagonal, so
    # the cone reaches twice as far upwind on each axis as along the wind.
    config = WorldConfig(seed=5, continent_size=4096, wind=wind)
    step = 64
    big = Window(-40 * step, -30 * step, 80, 60, step)
    part = Window(big.x + 31 * step, big.y + 23 * step, 9, 7, step)
    whole = world_fields(config, big).rainfall
    alone = world_fields(config, part).rainfall
    np.testing.assert_array_equal(alone, whole[23:30, 31:40])


@pytest.mark.parametrize("end", [-1, 1])
def test_rivers_at_the_ends_of_their_reach_are_drawn_or_refused_by_name(monkeypatch, end):
    # Near +-2**40 a window's rivers were refused by the window of a region
    # they come from ("window x must be ..."). A window within their reach
    # is drawn (in strips too), as is one at a product's reach grown by a
    # halo (the voxel world's columns).
    config = WorldConfig(seed=5, continent_size=1024, land_fraction=0.02)
    monkeypatch.setattr(_fields, "STRIP_ROWS", 2)
    monkeypatch.setattr(_fields, "STRIP_SAMPLES", 2)
    for far in (end * RIVERS_REACH, end * (REACH + 11)):
        window = Window(far - 2 if end > 0 else far, far - 3 if end > 0 else far, 3, 4)
        fields = world_fields(config, window, rivers=True)
        assert fields.water_kind.shape == (4, 3) and np.isfinite(fields.surface).all()
    far = end * RIVERS_REACH
    for x, y, width in ((far + end, 0, 1), (0, far + end, 1), (far - 1, 0, 3)):
        with pytest.raises(ValueError, match=r"^rivers=True needs a window whose samples lie"):
            world_fields(config, Window(x, y, width, 2), rivers=True)


@pytest.mark.parametrize("kind", [np.int32, np.uint64, np.uint16])
def test_a_window_of_numpy_integers_is_the_window_of_python_integers(monkeypatch, kind):
    # A window kept numpy's integers: int32 strips' origins overflowed (other
    # bytes, with a RuntimeWarning), uint16 sizes overflowed in the strips'
    # arithmetic (an OverflowError).
    monkeypatch.setattr(_fields, "STRIP_ROWS", 2)
    monkeypatch.setattr(_fields, "STRIP_SAMPLES", 2)
    config = WorldConfig(seed=5)
    window = Window(kind(3), kind(5), kind(2), kind(130), kind(2**24 if kind != np.uint16 else 8))
    plain = Window(3, 5, 2, 130, int(window.step))
    assert window == plain and all(type(v) is int for v in vars(window).values())
    made = world_fields(config, window, climate=False)
    expected = world_fields(config, plain, climate=False)
    for name in ("elevation", "continentalness", "uplift"):
        np.testing.assert_array_equal(getattr(made, name), getattr(expected, name), name)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"elevation": np.full((2, 3), np.nan)}, ValueError, "elevation must be finite"),
        ({"elevation": np.full((2, 3), -np.inf)}, ValueError, "elevation must be finite"),
        ({"elevation": np.full((2, 3), "a")}, TypeError, "elevation must hold real numbers"),
        ({"elevation": np.zeros((2, 3), complex)}, TypeError, "elevation must hold real numbers"),
        ({"climate": "no"}, TypeError, "climate must be True or False"),
        ({"rivers": 1}, TypeError, "rivers must be True or False"),
    ],
)
def test_bad_fields_arguments_are_refused_by_name(kwargs, error, message):
    # NaN heights once gave NaN temperatures and biomes of a made-up sea,
    # strings numpy's own error, complex numbers a warning and their real
    # part, and a truthy string was taken for True.
    with pytest.raises(error, match=f"^{message}"):
        world_fields(WorldConfig(seed=5), Window(0, 0, 3, 2), **kwargs)


def test_a_window_whose_fields_cannot_fit_is_refused_before_any_work(monkeypatch):
    # 512 x 512 samples of every field and the rivers' take about 16 MB.
    monkeypatch.setenv("WORLDGEN_MEMORY_LIMIT", "8M")
    window = Window(0, 0, 512, 512)
    with pytest.raises(MemoryLimitError, match=r"^window: the fields of a 512 x 512 window"):
        world_fields(WorldConfig(seed=5), window, rivers=True)
    with pytest.raises(MemoryLimitError, match=r"^window: the fields of a 2048 x 2048 window"):
        elevation(WorldConfig(seed=5), Window(0, 0, 2048, 2048))
    assert world_fields(WorldConfig(seed=5), Window(0, 0, 64, 64)).biome.shape == (64, 64)


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**64 - 1),
    size=st.sampled_from([1024, 4096, 65536, 2**20]),
    wind=st.sampled_from(sorted(WINDS)),
    level=st.integers(0, 30),
    corner=st.tuples(st.integers(-(2**39), 2**39), st.integers(-(2**39), 2**39)),
    big=st.tuples(st.integers(1, 24), st.integers(1, 24)),
    data=st.data(),
)
def test_any_window_anywhere_is_the_crop_of_a_bigger_one(
    seed, size, wind, level, corner, big, data
):
    # Any level, any place within a window's reach, any size down to 1 x 1
    # and 1 x N: every field equals the crop, and stays finite and in range.
    config = WorldConfig(seed=seed, continent_size=size, wind=wind)
    step = 2**level
    (width, height), (x0, y0) = big, corner
    c = data.draw(st.integers(0, width - 1))
    r = data.draw(st.integers(0, height - 1))
    w = data.draw(st.integers(1, width - c))
    h = data.draw(st.integers(1, height - r))
    whole = world_fields(config, Window(x0, y0, width, height, step))
    alone = world_fields(config, Window(x0 + c * step, y0 + r * step, w, h, step))
    for name in ("elevation", "continentalness", "uplift", "mountains", "temperature",
                 "rainfall", "biome", "water"):  # fmt: skip
        np.testing.assert_array_equal(
            getattr(alone, name), getattr(whole, name)[r : r + h, c : c + w]
        )
    assert np.isfinite(whole.temperature).all() and np.isfinite(whole.elevation).all()
    assert whole.rainfall.min() >= 120.0 and 0.0 <= whole.uplift.min() <= whole.uplift.max() <= 1.0
