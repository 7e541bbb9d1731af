"""Cellular (Worley) noise kernels, 2D and 3D.

Steven Worley, "A cellular texture basis function" (SIGGRAPH 1996), with one
feature point per lattice cell: the cell's hash (the nested permutation used
by every worldgen noise) picks the point's position inside the cell, within
``[0.5 - jitter/2, 0.5 + jitter/2]`` on each axis. The result is F1 (distance
to the nearest point), F2 (to the second nearest) or F2 - F1, under the
euclidean, manhattan or chebyshev metric, in lattice units.

The search is exact: the 3 x 3 cells around the sample's cell are all
visited (no branches: ``_keep`` updates F1 and F2 with min and max), then
rings of growing chebyshev radius from 2 on, where a cell is skipped when
the gap between the sample and the box its point can lie in is already no
nearer than the answer, and the search stops at the first ring whose
nearest possible point is no nearer (usually ring 2 at once). The grid rows
(:func:`cellular2_rows`) compute the 9 points once per cell and row instead
of once per sample, and share every other step with the point form, so the
two agree bit for bit.
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
        if feature == F1:
            return math.sqrt(f1)
        if feature == F2:
            return math.sqrt(f2)
        return math.sqrt(f2) - math.sqrt(f1)
    if feature == F1:
        return f1
    if feature == F2:
        return f2
    return f2 - f1


@kernel
def _keep(d, f1, f2):
    """The two smallest of ``d, f1, f2`` given ``f1 <= f2``, without branches."""
    return min(d, f1), min(max(d, f1), f2)


@kernel
def _wrap(c, period):
    # (c % period) for c in [-1, period]: no division.
    if c < 0:
        return c + period
    return c - period if c >= period else c


@kernel
def _point2(p, hx, hy, dx, dy, lo, scale):
    # The feature point of cell (hx, hy), at offset (dx, dy) from the
    # sample's cell, in the sample's cell's coordinates.
    h = p[p[hx] + hy]
    return dx + lo + scale * p[h], dy + lo + scale * p[h + np.uint64(1)]


@kernel
def _far2(p, period, feature, metric, lo, hi, scale, cx, cy, ox, oy, f1, f2):
    """Rings 2 and beyond of the search, given F1 and F2 of the 3 x 3 cells."""
    r = 2
    while True:
        bound = f1 if feature == F1 else f2
        if _combine(metric, r - 1 + lo, 0.0, 0.0) >= bound:
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
                px, py = _point2(p, hx, hy, dx, dy, lo, scale)
                f1, f2 = _keep(_combine(metric, px - ox, py - oy, 0.0), f1, f2)
                bound = f1 if feature == F1 else f2
        r += 1
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
    for dy in range(-1, 2):
        hy = np.uint64(_wrap(cy + dy, period[1]) & 255)
        for dx in range(-1, 2):
            hx = np.uint64(_wrap(cx + dx, period[0]) & 255)
            px, py = _point2(p, hx, hy, dx, dy, lo, scale)
            f1, f2 = _keep(_combine(metric, px - ox, py - oy, 0.0), f1, f2)
    f1, f2 = _far2(p, period, feature, metric, lo, hi, scale, cx, cy, ox, oy, f1, f2)
    return _finish(metric, feature, f1, f2)


@kernel
def cellular2_rows(p, period, feature, metric, jitter, xs, ys, j0, j1, target, first):
    """Rows ``j0:j1`` of a 2D grid at x coordinates ``xs`` and y coordinates
    ``ys`` into ``target[j - first]``.

    Along a row, the samples of one cell share their 9 feature points: they
    are computed once per run of such samples, and the distances from every
    sample of the run to one point are measured in a loop that vectorises
    (the operations of :func:`cellular2`, so the results are the same).
    """
    lo = 0.5 - 0.5 * jitter
    hi = 0.5 + 0.5 * jitter
    scale = jitter / 255.0
    width = xs.size
    cells = np.empty(width, dtype=np.int64)
    offsets = np.empty(width)
    f1s = np.empty(width)
    f2s = np.empty(width)
    for i in range(width):
        fl = math.floor(xs[i])
        cells[i] = cell_index(fl, period[0])
        offsets[i] = xs[i] - fl
    # _far2's first test: beyond this bound, ring 2 may hold a nearer point.
    ring2 = _combine(metric, 2 - 1 + lo, 0.0, 0.0)
    for j in range(j0, j1):
        fly = math.floor(ys[j])
        cy = cell_index(fly, period[1])
        oy = ys[j] - fly
        t = target[j - first]
        start = 0
        while start < width:
            cx = cells[start]
            end = start + 1
            while end < width and cells[end] == cx:
                end += 1
            ox = offsets[start:end]
            f1 = f1s[start:end]
            f2 = f2s[start:end]
            f1[:] = np.inf
            f2[:] = np.inf
            for dy in range(-1, 2):
                hy = np.uint64(_wrap(cy + dy, period[1]) & 255)
                for dx in range(-1, 2):
                    hx = np.uint64(_wrap(cx + dx, period[0]) & 255)
                    px, py = _point2(p, hx, hy, dx, dy, lo, scale)
                    b = py - oy
                    for i in range(end - start):
                        f1[i], f2[i] = _keep(_combine(metric, px - ox[i], b, 0.0), f1[i], f2[i])
            for i in range(end - start):
                a = f1[i]
                b = f2[i]
                if (a if feature == F1 else b) > ring2:
                    a, b = _far2(p, period, feature, metric, lo, hi, scale, cx, cy, ox[i], oy, a, b)
                t[start + i] = _finish(metric, feature, a, b)
            start = end


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
                    f1, f2 = _keep(d, f1, f2)
                    bound = f1 if feature == F1 else f2
        r += 1
    return _finish(metric, feature, f1, f2)
