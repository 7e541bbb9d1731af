"""Windows of the world model at odd places, sizes and winds: each equals the
same samples of a bigger window, byte for byte."""

import numpy as np
import pytest

from worldgen.world import Window, WorldConfig, world_fields
from worldgen.world._climate import WINDS


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
