"""Levels of detail: the coarse grid's interpolation against plain numpy."""

import numpy as np
import pytest

from worldgen.world._lod import catmull_rom, interpolate


def naive_interpolate(values, ix, wx, iy, wy, add=None):
    """The separable Catmull-Rom sums in the documented order, whole arrays at once."""
    across = (values[:, ix[:, 0]] * wx[:, 0] + values[:, ix[:, 1]] * wx[:, 1]) + (
        values[:, ix[:, 2]] * wx[:, 2] + values[:, ix[:, 3]] * wx[:, 3]
    )
    w = [wy[:, m, None] for m in range(4)]
    out = (across[iy[:, 0]] * w[0] + across[iy[:, 1]] * w[1]) + (
        across[iy[:, 2]] * w[2] + across[iy[:, 3]] * w[3]
    )
    return out if add is None else out + add


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("with_add", [False, True])
@pytest.mark.parametrize("rows, start, g", [(37, -1000.5, 4.0), (5, 3.0, 4.0), (64, 17.25, 9.0)])
def test_interpolate_equals_plain_numpy(rows, start, g, with_add, shuffle):
    rng = np.random.default_rng(rows)
    ix, wx, _ = catmull_rom(start + 1.5 * np.arange(23), g)
    iy, wy, _ = catmull_rom(start + np.arange(rows, dtype=np.float64), g)
    if shuffle:  # rows in any order (each reads four grid rows in a row)
        order = rng.permutation(rows)
        iy, wy = iy[order].copy(), wy[order].copy()
    values = rng.standard_normal((int(iy.max()) + 1, int(ix.max()) + 1))
    add = rng.standard_normal((rows, 23)) if with_add else None
    got = interpolate(values, ix, wx, iy, wy, add=add)
    assert got.shape == (rows, 23)
    np.testing.assert_array_equal(got, naive_interpolate(values, ix, wx, iy, wy, add))
