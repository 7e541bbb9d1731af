"""Recompute the output bounds of the gradient noises.

For a point ``x`` in a cell, every lattice corner ``c`` near it contributes
``weight_c(x) * (g_c . (x - c))``; the largest the sum can be, whatever the
hash hands out, is ``sum_c weight_c(x) * max_g (g . (x - c))``. Maximising
that over the cell gives a bound no sample can exceed. Perlin noise is left
unscaled (3D must equal Ken Perlin's reference), so its bound is documented;
simplex noise is scaled by the reciprocal of its bound so that it spans
[-1, 1].

Run: ``python tests/reference/noise_bounds.py`` (needs scipy). Prints the
bounds and the simplex scale factors used in ``worldgen/noise/_simplex.py``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def gradients(dim: int) -> np.ndarray:
    if dim == 1:
        return np.array([[s * (m + 1) / 4] for s in (1, -1) for m in range(8)])
    if dim == 2:
        diag = [(a, b) for a in (1, -1) for b in (1, -1)]
        return np.array([*diag, (1, 0), (-1, 0), (0, 1), (0, -1)], dtype=float)
    if dim == 3:
        return np.array(
            [v for v in itertools.product((1, 0, -1), repeat=3) if sum(map(abs, v)) == 2],
            dtype=float,
        )
    return np.array(
        [v for v in itertools.product((1, 0, -1), repeat=4) if sum(map(abs, v)) == 3],
        dtype=float,
    )


def fade(t):
    return t * t * t * (t * (t * 6 - 15) + 10)


def perlin_bound_at(x: np.ndarray, grads: np.ndarray) -> float:
    total = 0.0
    for corner in itertools.product((0, 1), repeat=len(x)):
        d = x - np.array(corner)
        weight = np.prod([fade(t) if c else 1 - fade(t) for t, c in zip(x, corner)])
        total += weight * np.max(grads @ d)
    return total


def simplex_corners(x: np.ndarray) -> list[np.ndarray]:
    dim = len(x)
    f = (math.sqrt(dim + 1) - 1) / dim
    g = (1 - 1 / math.sqrt(dim + 1)) / dim
    skewed = x + x.sum() * f
    base = np.floor(skewed)
    x0 = x - (base - base.sum() * g)
    order = np.argsort(-x0, kind="stable")
    offsets = [np.zeros(dim)]
    step = np.zeros(dim)
    for axis in order:
        step = step.copy()
        step[axis] = 1
        offsets.append(step)
    return [x0 - o + k * g for k, o in enumerate(offsets)]


def simplex_bound_at(x: np.ndarray, grads: np.ndarray) -> float:
    total = 0.0
    for d in simplex_corners(x):
        t = 0.5 - d @ d
        if t > 0:
            total += t**4 * np.max(grads @ d)
    return total


def maximise(fn, dim: int, grads: np.ndarray, lo: float, hi: float, n: int = 4000) -> float:
    from scipy.optimize import minimize

    rng = np.random.default_rng(0)
    starts = rng.uniform(lo, hi, size=(n, dim))
    values = np.array([fn(s, grads) for s in starts])
    best = values.max()
    for s in starts[np.argsort(values)[-20:]]:
        res = minimize(
            lambda v: -fn(v, grads),
            s,
            method="Nelder-Mead",
            options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 20000},
        )
        best = max(best, -res.fun)
    return best


if __name__ == "__main__":
    for dim in (1, 2, 3, 4):
        b = maximise(perlin_bound_at, dim, gradients(dim), 0.0, 1.0, 400 if dim == 4 else 2000)
        print(f"perlin {dim}D bound {b:.12f}")
    for dim in (2, 3, 4):
        b = maximise(simplex_bound_at, dim, gradients(dim), -2.0, 2.0, 4000)
        print(f"simplex {dim}D bound {b:.12e} scale {1 / b!r}")
