"""Golden vectors: Ken Perlin's Java reference, and frozen worldgen values."""

import hashlib
import json
import pathlib

import numpy as np
import pytest

from tests.reference.make_golden import cases, grid_axes, grid_cases
from worldgen.noise import Perlin

REFERENCE = pathlib.Path(__file__).parents[1] / "reference"


def _from_hex_bits(text: str) -> float:
    return float(np.array([int(text, 16)], dtype=np.uint64).view(np.float64)[0])


def _java_vectors():
    rows = [line.split() for line in (REFERENCE / "perlin3_java.txt").read_text().splitlines()]
    points = np.array([[_from_hex_bits(v) for v in row[:3]] for row in rows])
    expected = np.array([int(row[3], 16) for row in rows], dtype=np.uint64)
    return points, expected


@pytest.mark.parametrize(
    "which",
    [
        lambda p: np.ones(len(p), bool),
        lambda p: (p < 0).any(axis=1),  # negative coordinates
        lambda p: (np.abs(p) >= 1e6).any(axis=1),  # far from the origin
        lambda p: (p == np.floor(p)).all(axis=1),  # lattice points
    ],
    ids=["all", "negative", "far", "lattice"],
)
def test_perlin3_equals_java_reference_bit_for_bit(which):
    points, expected = _java_vectors()
    chosen = which(points)
    assert chosen.sum() >= 1 and len(points) >= 20  # the reference covers each kind
    got = Perlin()(points[chosen, 0], points[chosen, 1], points[chosen, 2])
    assert np.array_equal(got.view(np.uint64), expected[chosen])


def test_perlin3_grid_equals_java_reference_bit_for_bit():
    points, expected = _java_vectors()
    for (x, y, z), want in zip(points, expected):
        got = Perlin().grid([x], [y], [z])
        assert got.view(np.uint64)[0, 0, 0] == want


def test_perlin3_scalar_equals_java_reference():
    points, expected = _java_vectors()
    x, y, z = points[0]
    assert Perlin()(x, y, z) == _from_hex_bits(format(int(expected[0]), "x"))


GOLDEN = json.loads((REFERENCE / "golden.json").read_text())


@pytest.mark.parametrize(("name", "noise", "ndim"), list(cases()), ids=[c[0] for c in cases()])
def test_frozen_vectors(name, noise, ndim):
    case = GOLDEN[name]
    assert case["noise"] == repr(noise)
    points = np.array([[float.fromhex(v) for v in p] for p in case["points"]])
    expected = np.array([float.fromhex(v) for v in case["values"]])
    got = noise(*points.T)
    assert np.array_equal(got.view(np.uint64), expected.view(np.uint64))
    grid = np.array([noise.grid(*[[v] for v in p]).ravel()[0] for p in points])
    assert np.array_equal(grid.view(np.uint64), expected.view(np.uint64))


def test_perlin3_agrees_with_threejs_to_the_last_bits():
    rows = [line.split() for line in (REFERENCE / "perlin3_threejs.txt").read_text().splitlines()]
    points = np.array([[_from_hex_bits(v) for v in row[:3]] for row in rows])
    three = np.array([_from_hex_bits(row[3]) for row in rows])
    got = Perlin()(points[:, 0], points[:, 1], points[:, 2])
    assert np.max(np.abs(got - three)) <= 4e-16
    assert len(rows) >= 20


GOLDEN_GRIDS = json.loads((REFERENCE / "golden_grids.json").read_text())


@pytest.mark.parametrize(
    ("name", "noise", "spec"), list(grid_cases()), ids=[c[0] for c in grid_cases()]
)
def test_frozen_grids_reach_the_long_row_and_class_table_paths(name, noise, spec):
    case = GOLDEN_GRIDS[name]
    assert case["noise"] == repr(noise)
    axes = grid_axes(spec)
    assert max(a.size for a in axes) >= 256
    grid = noise.grid(*axes)
    assert list(grid.shape) == case["shape"]
    sampled = [float.fromhex(v) for v in case["every_97th"]]
    assert grid.ravel()[::97].tolist() == sampled
    assert hashlib.sha256(grid.tobytes()).hexdigest() == case["sha256"]
    # And the grid is the point form at the same coordinates, bit for bit.
    mesh = np.meshgrid(*axes[::-1], indexing="ij")[::-1]
    assert np.array_equal(grid.view(np.uint64), noise(*mesh).view(np.uint64))
