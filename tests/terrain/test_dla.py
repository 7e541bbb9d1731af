"""DLA mountains: determinism, range, the tree's shape, ridges along the tree, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldgen.noise import Fractal, Perlin, axis, derive_seed
from worldgen.terrain._dla import _dla_levels, dla_mountains


def check_tree(tree, density):
    ys, xs, parents, size = tree
    count = ys.size
    assert parents[0] == -1
    assert (ys >= 0).all() and (ys < size).all() and (xs >= 0).all() and (xs < size).all()
    assert len(set(zip(ys.tolist(), xs.tolist()))) == count, "two particles share a cell"
    assert count >= min(density * size * size, 2)
    for i in range(1, count):
        p = parents[i]
        assert 0 <= p < i, "a parent must come before its child"
        assert max(abs(ys[i] - ys[p]), abs(xs[i] - xs[p])) == 1, "links join 8-neighbours"
    # Every particle reaches the seed through its parents.
    reached = np.zeros(count, dtype=bool)
    reached[0] = True
    for i in range(count):
        path = [i]
        while not reached[path[-1]]:
            path.append(parents[path[-1]])
            assert len(path) <= count
        reached[path] = True
    assert reached.all()


def test_first_tree_is_pinned():
    tree = next(_dla_levels(8, 0, 0.2, 0))
    assert tree.size == 8
    assert tree.ys.tolist() == [4, 3, 2, 5, 6, 3, 3, 4, 2, 5, 6, 6, 1]
    assert tree.xs.tolist() == [4, 3, 2, 3, 2, 1, 5, 3, 6, 4, 1, 5, 6]
    assert tree.parents.tolist() == [-1, 0, 1, 0, 3, 2, 0, 1, 6, 0, 4, 9, 8]


@settings(max_examples=15)
@given(seed=st.integers(0, 2**64 - 1), start=st.integers(4, 24), density=st.floats(0.02, 0.5))
def test_tree_stays_connected_through_every_step(seed, start, density):
    sizes = []
    for tree in _dla_levels(start, 2, density, seed):
        check_tree(tree, density)
        sizes.append(tree.size)
    assert sizes == [start, 2 * start, 4 * start]


def test_upscaling_keeps_every_old_particle_in_its_block():
    first, second = list(_dla_levels(16, 1, 0.1, 5))
    cells = set(zip((second.ys // 2).tolist(), (second.xs // 2).tolist()))
    assert set(zip(first.ys.tolist(), first.xs.tolist())) <= cells


def test_same_seed_same_bytes_other_seed_other_map():
    a = dla_mountains(64, seed=11)
    assert a.tobytes() == dla_mountains(64, seed=11).tobytes()
    assert not np.array_equal(a, dla_mountains(64, seed=12))
    assert dla_mountains(32, seed=-1).tobytes() == dla_mountains(32, seed=2**64 - 1).tobytes()


@pytest.mark.parametrize(
    ("size", "steps"),
    [(4, None), (17, None), (33, None), (64, None), (90, None), (100, 3), (128, 0)],
)
def test_shape_range_and_no_nan(size, steps):
    heights = dla_mountains(size, seed=1, steps=steps)
    assert heights.shape == (size, size)
    assert heights.dtype == np.float64
    assert np.isfinite(heights).all()
    assert heights.min() == 0.0 and heights.max() == 1.0


@pytest.mark.parametrize("blend", [0.0, 0.3, 1.0])
def test_range_holds_for_every_blend(blend):
    heights = dla_mountains(48, seed=2, blend=blend)
    assert heights.min() == 0.0 and heights.max() == 1.0


def test_blend_one_is_the_normalised_fbm():
    coords = axis(0.0, 64, 4.0 / 64)
    fbm = Fractal(Perlin(derive_seed(9, 1)), octaves=6).grid(coords, coords)
    expected = (fbm - fbm.min()) / (fbm.max() - fbm.min())
    assert np.allclose(dla_mountains(64, seed=9, blend=1.0), expected, rtol=0, atol=1e-12)


def test_blend_zero_ignores_the_fbm():
    dla = dla_mountains(64, seed=4, blend=0.0)
    mixed = dla_mountains(64, seed=4, blend=0.5)
    assert not np.array_equal(dla, mixed)
    assert np.corrcoef(dla.ravel(), mixed.ravel())[0, 1] > 0.5


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ridges_follow_the_tree(seed):
    size, steps, density = 128, 2, 0.12
    heights = dla_mountains(size, seed=seed, steps=steps, density=density, blend=0.0)
    *_, tree = _dla_levels(size // 2**steps, steps, density, seed)
    on_tree = np.zeros((size, size), dtype=bool)
    on_tree[tree.ys, tree.xs] = True
    assert heights[on_tree].mean() > 2.0 * heights[~on_tree].mean()
    # The trunk (near the seed) stands higher than the tips.
    centre = heights[size // 2 - 8 : size // 2 + 8, size // 2 - 8 : size // 2 + 8].mean()
    assert centre > heights[on_tree].mean()


def test_more_density_grows_more_tree():
    sparse = list(_dla_levels(16, 1, 0.05, 3))[-1]
    dense = list(_dla_levels(16, 1, 0.3, 3))[-1]
    assert dense.ys.size > 3 * sparse.ys.size


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"size": 3}, ValueError, r"size must be an integer from 4 to 8192"),
        ({"size": 64.0}, TypeError, r"size must be an integer"),
        ({"size": 32, "seed": "a"}, TypeError, r"seed must be an int"),
        ({"size": 32, "seed": 2**64}, ValueError, r"seed must fit in 64 bits"),
        ({"size": 32, "steps": 4}, ValueError, r"steps must be an integer from 0 to 3 for size=32"),
        ({"size": 32, "steps": -1}, ValueError, r"steps must be an integer from 0 to 3"),
        ({"size": 32, "steps": 1.0}, TypeError, r"steps must be an integer"),
        ({"size": 32, "density": 0.0}, ValueError, r"density must be a number in \(0, 0.5\]"),
        ({"size": 32, "density": 0.9}, ValueError, r"density must be a number in \(0, 0.5\]"),
        ({"size": 32, "density": "x"}, TypeError, r"density must be a number"),
        ({"size": 32, "blend": 1.5}, ValueError, r"blend must be a number from 0 to 1"),
        ({"size": 32, "blend": None}, TypeError, r"blend must be a number"),
    ],
)
def test_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        dla_mountains(**kwargs)
