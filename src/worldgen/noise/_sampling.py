"""Compiled drivers: evaluate a noise plan at points or on a grid.

A *plan* is what every public generator compiles to: the noise ``kind``, and
per octave a permutation table, a period, a frequency, an offset and an
amplitude, plus the fractal ``mode`` and the sum of amplitudes. A plain noise
is a one-octave fBm plan with frequency 1 and offset 0, which the drivers
return unchanged; several octaves are combined as

    acc = amp_0 * shape(n_0); acc = acc + amp_o * shape(n_o); out = acc / total

in that order at every sample, in the point drivers and the grid drivers
alike, so that a grid equals its points bit for bit.

Grid drivers work row by row along x (see ``_perlin``): the axes are
prepared once per octave, rows are split into chunks processed in parallel,
and each chunk keeps its own float64 accumulator. Nothing a chunk computes
depends on which thread runs it, so results do not depend on thread count.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from worldgen._jit import kernel, parallel_kernel
from worldgen.noise._cellular import cellular2, cellular3
from worldgen.noise._lattice import axis_table
from worldgen.noise._perlin import (
    perlin1,
    perlin2,
    perlin2_row,
    perlin2_setup,
    perlin3,
    perlin3_row,
    perlin3_setup,
    perlin4,
)
from worldgen.noise._simplex import simplex2, simplex3, simplex4
from worldgen.noise._value import (
    value1,
    value2,
    value2_row,
    value2_setup,
    value3,
    value3_row,
    value3_setup,
    value4,
)

PERLIN, VALUE, SIMPLEX, CELLULAR = 0, 1, 2, 3
FBM, BILLOW, TURBULENCE, RIDGED = 0, 1, 2, 3

# A chunk of grid rows holds about this many samples, so that its float64
# accumulator stays in the core's L2 cache.
_CHUNK_SAMPLES = 8192


@kernel
def shape(mode, n):
    """The per-octave transform of a fractal mode."""
    if mode == FBM:
        return n
    if mode == BILLOW:
        return 2.0 * abs(n) - 1.0
    if mode == TURBULENCE:
        return abs(n)
    r = 1.0 - abs(n)
    return r * r


@kernel
def noise1(kind, p, period, iopts, jitter, x):
    if kind == PERLIN:
        return perlin1(p, period, x)
    return value1(p, period, iopts[0], x)


@kernel
def noise2(kind, p, period, iopts, jitter, x, y):
    if kind == PERLIN:
        return perlin2(p, period, x, y)
    if kind == VALUE:
        return value2(p, period, iopts[0], x, y)
    if kind == SIMPLEX:
        return simplex2(p, x, y)
    return cellular2(p, period, iopts[1], iopts[2], jitter, x, y)


@kernel
def noise3(kind, p, period, iopts, jitter, x, y, z):
    if kind == PERLIN:
        return perlin3(p, period, x, y, z)
    if kind == VALUE:
        return value3(p, period, iopts[0], x, y, z)
    if kind == SIMPLEX:
        return simplex3(p, x, y, z)
    return cellular3(p, period, iopts[1], iopts[2], jitter, x, y, z)


@kernel
def noise4(kind, p, period, iopts, jitter, x, y, z, w):
    if kind == PERLIN:
        return perlin4(p, period, x, y, z, w)
    if kind == VALUE:
        return value4(p, period, iopts[0], x, y, z, w)
    return simplex4(p, x, y, z, w)


@kernel
def _combine(acc, o, amp, mode, n):
    t = amp * shape(mode, n)
    return t if o == 0 else acc + t


@kernel
def _finish(single, acc, total, n):
    return n if single else acc / total


# --- points ----------------------------------------------------------------


@parallel_kernel
def points1(kind, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, x, out):
    single = perms.shape[0] == 1 and mode == FBM
    for i in prange(out.size):
        acc = n = 0.0
        for o in range(perms.shape[0]):
            n = noise1(kind, perms[o], periods[o], iopts, jitter, x[i] * freqs[o] + offsets[o, 0])
            acc = _combine(acc, o, amps[o], mode, n)
        out[i] = _finish(single, acc, total, n)


@parallel_kernel
def points2(kind, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, x, y, out):
    single = perms.shape[0] == 1 and mode == FBM
    for i in prange(out.size):
        acc = n = 0.0
        for o in range(perms.shape[0]):
            f = freqs[o]
            n = noise2(
                kind, perms[o], periods[o], iopts, jitter,
                x[i] * f + offsets[o, 0], y[i] * f + offsets[o, 1],
            )  # fmt: skip
            acc = _combine(acc, o, amps[o], mode, n)
        out[i] = _finish(single, acc, total, n)


@parallel_kernel
def points3(kind, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, x, y, z, out):
    single = perms.shape[0] == 1 and mode == FBM
    for i in prange(out.size):
        acc = n = 0.0
        for o in range(perms.shape[0]):
            f = freqs[o]
            n = noise3(
                kind, perms[o], periods[o], iopts, jitter,
                x[i] * f + offsets[o, 0], y[i] * f + offsets[o, 1], z[i] * f + offsets[o, 2],
            )  # fmt: skip
            acc = _combine(acc, o, amps[o], mode, n)
        out[i] = _finish(single, acc, total, n)


@parallel_kernel
def points4(
    kind, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, x, y, z, w, out
):
    single = perms.shape[0] == 1 and mode == FBM
    for i in prange(out.size):
        acc = n = 0.0
        for o in range(perms.shape[0]):
            f = freqs[o]
            n = noise4(
                kind, perms[o], periods[o], iopts, jitter,
                x[i] * f + offsets[o, 0], y[i] * f + offsets[o, 1],
                z[i] * f + offsets[o, 2], w[i] * f + offsets[o, 3],
            )  # fmt: skip
            acc = _combine(acc, o, amps[o], mode, n)
        out[i] = _finish(single, acc, total, n)


# --- grids -----------------------------------------------------------------


@kernel
def _axes(coords, freqs, offsets, periods, axis, interp, perms):
    """Every octave's view of one axis: the scaled coordinates, the lattice
    table (offsets, cells, runs) and the first-level hashes ``p[cell]``."""
    octaves = freqs.size
    n = coords.size
    scaled = np.empty((octaves, n))
    frac = np.empty((octaves, 3, n))
    cells = np.empty((octaves, 2, n), dtype=np.uint64)
    hashed = np.empty((octaves, 2, n), dtype=np.uint64)
    runs = np.empty((octaves, n + 1), dtype=np.int64)
    nruns = np.empty(octaves, dtype=np.int64)
    for o in range(octaves):
        for i in range(n):
            scaled[o, i] = coords[i] * freqs[o] + offsets[o, axis]
        f, c, r = axis_table(scaled[o], periods[o, axis], interp)
        frac[o] = f
        cells[o] = c
        runs[o, : r.size] = r
        nruns[o] = r.size
        p = perms[o]
        for i in range(n):
            hashed[o, 0, i] = p[c[0, i]]
            hashed[o, 1, i] = p[c[1, i]]
    return scaled, frac, cells, hashed, runs, nruns


@kernel
def _accumulate(acc, row, o, amp, mode):
    if o == 0:
        for i in range(acc.size):
            acc[i] = amp * shape(mode, row[i])
    else:
        for i in range(acc.size):
            acc[i] += amp * shape(mode, row[i])


@kernel
def _store(acc, total, out):
    for i in range(out.size):
        out[i] = acc[i] / total


@kernel
def _chunking(rows, width):
    per = max(1, min(rows, _CHUNK_SAMPLES // max(width, 1)))
    return per, (rows + per - 1) // per


@kernel
def _interp(kind, iopts):
    # Perlin always fades; value noise uses its chosen interpolant.
    return 2 if kind == PERLIN else iopts[0]


@kernel
def _row2(kind, p, period, iopts, jitter, o, j, new_block, X, Y, hashes, slopes, scratch, target):
    xs, fx, cx, ax, rx, nrx = X
    ys, fy, cy, ay, ry, nry = Y
    runs = rx[o, : nrx[o]]
    if kind == PERLIN:
        if new_block:
            perlin2_setup(p, ax[o], runs, cy[o, 0, j], cy[o, 1, j], hashes, slopes)
        perlin2_row(hashes, slopes, fx[o], runs, fy[o, 0, j], fy[o, 1, j], fy[o, 2, j], scratch, target)
    elif kind == VALUE:
        if new_block:
            value2_setup(p, ax[o], runs, cy[o, 0, j], cy[o, 1, j], slopes)
        value2_row(slopes, fx[o], runs, fy[o, 2, j], target)
    else:
        y = ys[o, j]
        for i in range(target.size):
            target[i] = noise2(kind, p, period, iopts, jitter, xs[o, i], y)


@parallel_kernel
def grid2(kind, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, xs, ys, out):
    octaves = perms.shape[0]
    width = xs.size
    interp = _interp(kind, iopts)
    X = _axes(xs, freqs, offsets, periods, 0, interp, perms)
    Y = _axes(ys, freqs, offsets, periods, 1, interp, perms)
    cy = Y[2]
    single = octaves == 1 and mode == FBM
    per, nchunks = _chunking(ys.size, width)
    for chunk in prange(nchunks):
        j0 = chunk * per
        j1 = min(ys.size, j0 + per)
        scratch = np.empty(64)
        hashes = np.empty((width, 8), dtype=np.uint64)
        slopes = np.empty((width, 8))
        row = np.empty(width)
        acc = np.empty((j1 - j0, width))
        for o in range(octaves):
            p = perms[o]
            for j in range(j0, j1):
                new_block = j == j0 or cy[o, 0, j] != cy[o, 0, j - 1] or cy[o, 1, j] != cy[o, 1, j - 1]
                if single:
                    _row2(kind, p, periods[o], iopts, jitter, o, j, new_block, X, Y, hashes, slopes, scratch, out[j])
                else:
                    _row2(kind, p, periods[o], iopts, jitter, o, j, new_block, X, Y, hashes, slopes, scratch, row)
                    _accumulate(acc[j - j0], row, o, amps[o], mode)
        if not single:
            for j in range(j0, j1):
                _store(acc[j - j0], total, out[j])


@kernel
def _row3(kind, p, period, iopts, jitter, o, k, j, new_block, X, Y, Z, hashes, slopes, scratch, target):
    xs, fx, cx, ax, rx, nrx = X
    ys, fy, cy, ay, ry, nry = Y
    zs, fz, cz, az, rz, nrz = Z
    runs = rx[o, : nrx[o]]
    if kind == PERLIN:
        if new_block:
            perlin3_setup(p, ax[o], runs, cy[o, 0, j], cy[o, 1, j], cz[o, 0, k], cz[o, 1, k], hashes, slopes)
        perlin3_row(
            hashes, slopes, fx[o], runs, fy[o, 0, j], fy[o, 1, j], fy[o, 2, j],
            fz[o, 0, k], fz[o, 1, k], fz[o, 2, k], scratch, target,
        )  # fmt: skip
    elif kind == VALUE:
        if new_block:
            value3_setup(p, ax[o], runs, cy[o, 0, j], cy[o, 1, j], cz[o, 0, k], cz[o, 1, k], slopes)
        value3_row(slopes, fx[o], runs, fy[o, 2, j], fz[o, 2, k], target)
    else:
        y = ys[o, j]
        z = zs[o, k]
        for i in range(target.size):
            target[i] = noise3(kind, p, period, iopts, jitter, xs[o, i], y, z)


@parallel_kernel
def grid3(kind, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, xs, ys, zs, out):
    octaves = perms.shape[0]
    width = xs.size
    height = ys.size
    interp = _interp(kind, iopts)
    X = _axes(xs, freqs, offsets, periods, 0, interp, perms)
    Y = _axes(ys, freqs, offsets, periods, 1, interp, perms)
    Z = _axes(zs, freqs, offsets, periods, 2, interp, perms)
    cy = Y[2]
    cz = Z[2]
    single = octaves == 1 and mode == FBM
    rows = zs.size * height
    per, nchunks = _chunking(rows, width)
    for chunk in prange(nchunks):
        r0 = chunk * per
        r1 = min(rows, r0 + per)
        scratch = np.empty(64)
        hashes = np.empty((width, 8), dtype=np.uint64)
        slopes = np.empty((width, 8))
        row = np.empty(width)
        acc = np.empty((r1 - r0, width))
        for o in range(octaves):
            p = perms[o]
            for r in range(r0, r1):
                k = r // height
                j = r - k * height
                new_block = r == r0
                if not new_block:
                    pk = (r - 1) // height
                    pj = r - 1 - pk * height
                    new_block = (
                        cy[o, 0, j] != cy[o, 0, pj] or cy[o, 1, j] != cy[o, 1, pj]
                        or cz[o, 0, k] != cz[o, 0, pk] or cz[o, 1, k] != cz[o, 1, pk]
                    )  # fmt: skip
                if single:
                    _row3(kind, p, periods[o], iopts, jitter, o, k, j, new_block, X, Y, Z, hashes, slopes, scratch, out[k, j])
                else:
                    _row3(kind, p, periods[o], iopts, jitter, o, k, j, new_block, X, Y, Z, hashes, slopes, scratch, row)
                    _accumulate(acc[r - r0], row, o, amps[o], mode)
        if not single:
            for r in range(r0, r1):
                k = r // height
                _store(acc[r - r0], total, out[k, r - k * height])


@kernel
def _scaled(coords, freqs, offsets, axis):
    out = np.empty((freqs.size, coords.size))
    for o in range(freqs.size):
        for i in range(coords.size):
            out[o, i] = coords[i] * freqs[o] + offsets[o, axis]
    return out


@parallel_kernel
def grid4(kind, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, xs, ys, zs, ws, out):
    octaves = perms.shape[0]
    sx = _scaled(xs, freqs, offsets, 0)
    sy = _scaled(ys, freqs, offsets, 1)
    sz = _scaled(zs, freqs, offsets, 2)
    sw = _scaled(ws, freqs, offsets, 3)
    single = octaves == 1 and mode == FBM
    height = ys.size
    depth = zs.size
    rows = ws.size * depth * height
    for r in prange(rows):
        m = r // (depth * height)
        k = (r // height) % depth
        j = r % height
        target = out[m, k, j]
        for i in range(xs.size):
            acc = n = 0.0
            for o in range(octaves):
                n = noise4(kind, perms[o], periods[o], iopts, jitter, sx[o, i], sy[o, j], sz[o, k], sw[o, m])
                acc = _combine(acc, o, amps[o], mode, n)
            target[i] = _finish(single, acc, total, n)
