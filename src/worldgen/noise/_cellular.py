"""Cellular (Worley) noise kernels, 2D and 3D.

Steven Worley, "A cellular texture basis function" (SIGGRAPH 1996), with one
feature point per lattice cell: the cell's hash (the nested permutation used
by every worldgen noise) picks the point's position inside the cell, within
``[0.5 - jitter/2, 0.5 + jitter/2]`` on each axis. The result is F1 (distance
to the nearest point), F2 (to the second nearest) or F2 - F1, under the
euclidean, manhattan or chebyshev metric, in lattice units.

The search is exact: cells are visited in rings of growing chebyshev radius,
a cell is skipped when the gap between the sample and the box its point can
lie in is already no nearer than the answer, and the search stops at the
first ring whose nearest possible point is no nearer.
"""

from __future__ import annotations

import math

import numpy as np

from worldgen._jit import kernel
from worldgen.noise._lattice import cell_index

F1, F2, F2_MINUS_F1 = 0, 1, 2
EUCLIDEAN, MANHATTAN, CHEBYSHEV = 0, 1, 2


@kernel
def _gap(offset, d, lo, hi):
    # Distance along one axis from a sample at ``offset`` in its cell to the
    # interval [d + lo, d + hi] where cell d's point may lie.
    if offset < d + lo:
        return d + lo - offset
    if offset > d + hi:
        return offset - (d + hi)
    return 0.0


@kernel
def _combine(metric, a, b, c):
    # The metric's size of the vector (a, b, c), squared for euclidean.
    if metric == EUCLIDEAN:
        return a * a + b * b + c * c
    if metric == MANHATTAN:
        return abs(a) + abs(b) + abs(c)
    return max(abs(a), abs(b), abs(c))


@kernel
def _finish(metric, feature, f1, f2):
    if metric == EUCLIDEAN:
        f1 = math.sqrt(f1)
        f2 = math.sqrt(f2)
    if feature == F1:
        return f1
    if feature == F2:
        return f2
    return f2 - f1


@kernel
def _insert(d, f1, f2):
    if d < f1:
        return d, f1
    if d < f2:
        return f1, d
    return f1, f2


@kernel
def cellular2(p, period, feature, metric, jitter, x, y):
    flx = math.floor(x)
    fly = math.floor(y)
    cx = cell_index(flx, period[0])
    cy = cell_index(fly, period[1])
    ox = x - flx
    oy = y - fly
    lo = 0.5 - 0.5 * jitter
    hi = 0.5 + 0.5 * jitter
    scale = jitter / 255.0
    f1 = np.inf
    f2 = np.inf
    r = 0
    while True:
        bound = f1 if feature == F1 else f2
        if r > 0 and _combine(metric, r - 1 + lo, 0.0, 0.0) >= bound:
            break
        for dy in range(-r, r + 1):
            gy = _gap(oy, dy, lo, hi)
            if _combine(metric, gy, 0.0, 0.0) >= bound:
                continue
            hy = np.uint64(((cy + dy) % period[1]) & 255)
            edge = abs(dy) == r
            for dx in range(-r, r + 1):
                if not edge and abs(dx) != r:
                    continue
                gx = _gap(ox, dx, lo, hi)
                if _combine(metric, gx, gy, 0.0) >= bound:
                    continue
                hx = np.uint64(((cx + dx) % period[0]) & 255)
                h = p[p[hx] + hy]
                px = dx + lo + scale * p[h]
                py = dy + lo + scale * p[h + np.uint64(1)]
                f1, f2 = _insert(_combine(metric, px - ox, py - oy, 0.0), f1, f2)
                bound = f1 if feature == F1 else f2
        r += 1
    return _finish(metric, feature, f1, f2)


@kernel
def cellular3(p, period, feature, metric, jitter, x, y, z):
    flx = math.floor(x)
    fly = math.floor(y)
    flz = math.floor(z)
    cx = cell_index(flx, period[0])
    cy = cell_index(fly, period[1])
    cz = cell_index(flz, period[2])
    ox = x - flx
    oy = y - fly
    oz = z - flz
    lo = 0.5 - 0.5 * jitter
    hi = 0.5 + 0.5 * jitter
    scale = jitter / 255.0
    f1 = np.inf
    f2 = np.inf
    r = 0
    while True:
        bound = f1 if feature == F1 else f2
        if r > 0 and _combine(metric, r - 1 + lo, 0.0, 0.0) >= bound:
            break
        for dz in range(-r, r + 1):
            gz = _gap(oz, dz, lo, hi)
            if _combine(metric, gz, 0.0, 0.0) >= bound:
                continue
            hz = np.uint64(((cz + dz) % period[2]) & 255)
            zedge = abs(dz) == r
            for dy in range(-r, r + 1):
                gy = _gap(oy, dy, lo, hi)
                if _combine(metric, gy, gz, 0.0) >= bound:
                    continue
                hy = np.uint64(((cy + dy) % period[1]) & 255)
                edge = zedge or abs(dy) == r
                for dx in range(-r, r + 1):
                    if not edge and abs(dx) != r:
                        continue
                    gx = _gap(ox, dx, lo, hi)
                    if _combine(metric, gx, gy, gz) >= bound:
                        continue
                    hx = np.uint64(((cx + dx) % period[0]) & 255)
                    h = p[p[p[hx] + hy] + hz]
                    px = dx + lo + scale * p[h]
                    py = dy + lo + scale * p[h + np.uint64(1)]
                    pz = dz + lo + scale * p[h + np.uint64(2)]
                    d = _combine(metric, px - ox, py - oy, pz - oz)
                    f1, f2 = _insert(d, f1, f2)
                    bound = f1 if feature == F1 else f2
        r += 1
    return _finish(metric, feature, f1, f2)
