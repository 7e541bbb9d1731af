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
from numba import get_thread_id, prange

from worldgen._jit import kernel, parallel_kernel
from worldgen.noise._cellular import cellular2, cellular3
from worldgen.noise._lattice import axis_table
from worldgen.noise._perlin import (
    perlin1,
    perlin2,
    perlin2_rows,
    perlin3,
    perlin3_rows,
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
def _buffers(width, per, n):
    """Scratch space for each of ``n`` threads, indexed by ``get_thread_id()``.

    Allocated once per call rather than once per chunk: allocation inside a
    parallel loop contends on the allocator. Which thread uses which buffer
    does not change any result. (The thread count comes from the caller:
    asking numba for it here would make the driver uncacheable.)
    """
    return (
        np.empty((n, 64)),
        np.empty((n, width, 8), dtype=np.uint64),
        np.empty((n, width, 8)),
        np.empty((n, per, width)),
        np.empty((n, per, width)),
    )


@kernel
def _interp(kind, iopts):
    # Perlin always fades; value noise uses its chosen interpolant.
    return 2 if kind == PERLIN else iopts[0]


@kernel
def _new_block(cells, o, a, b):
    # Do indices a and b of an axis lie in different cells at octave o?
    return cells[o, 0, a] != cells[o, 0, b] or cells[o, 1, a] != cells[o, 1, b]


@kernel
def _rows2(kind, plan, X, Y, o, j0, j1, hashes, slopes, scratch, target, first):
    """Rows ``j0:j1`` of octave ``o`` into ``target`` (rows ``target[j - first]``)."""
    perms, periods, iopts, jitter = plan
    xs, fx, _, ax, rx, nrx = X
    ys, fy, cy, _, _, _ = Y
    p = perms[o]
    runs = rx[o, : nrx[o]]
    fxo = fx[o]
    axo = ax[o]
    fyo = fy[o]
    cyo = cy[o]
    if kind == PERLIN:
        perlin2_rows(p, fxo, axo, runs, fyo, cyo, j0, j1, hashes, slopes, scratch, target, first)
    elif kind == VALUE:
        for j in range(j0, j1):
            if j == j0 or _new_block(cy, o, j, j - 1):
                value2_setup(p, axo, runs, cyo[0, j], cyo[1, j], slopes)
            value2_row(slopes, fxo, runs, fyo[2, j], target[j - first])
    else:
        xso = xs[o]
        period = periods[o]
        for j in range(j0, j1):
            y = ys[o, j]
            t = target[j - first]
            for i in range(xso.size):
                t[i] = noise2(kind, p, period, iopts, jitter, xso[i], y)


@parallel_kernel
def grid2(
    kind, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, xs, ys, out, nthreads
):
    octaves = perms.shape[0]
    width = xs.size
    interp = _interp(kind, iopts)
    plan = (perms, periods, iopts, jitter)
    X = _axes(xs, freqs, offsets, periods, 0, interp, perms)
    Y = _axes(ys, freqs, offsets, periods, 1, interp, perms)
    single = octaves == 1 and mode == FBM
    per, nchunks = _chunking(ys.size, width)
    scratches, hashbufs, slopebufs, rowbufs, accbufs = _buffers(width, per, nthreads)
    for chunk in prange(nchunks):
        j0 = chunk * per
        j1 = min(ys.size, j0 + per)
        t = get_thread_id()
        scratch = scratches[t]
        hashes = hashbufs[t]
        slopes = slopebufs[t]
        if single:
            _rows2(kind, plan, X, Y, 0, j0, j1, hashes, slopes, scratch, out, 0)
            continue
        rows = rowbufs[t]
        acc = accbufs[t]
        for o in range(octaves):
            _rows2(kind, plan, X, Y, o, j0, j1, hashes, slopes, scratch, rows, j0)
            for j in range(j1 - j0):
                _accumulate(acc[j], rows[j], o, amps[o], mode)
        for j in range(j0, j1):
            _store(acc[j - j0], total, out[j])


@kernel
def _rows3(kind, plan, X, Y, Z, o, r0, r1, height, hashes, slopes, scratch, target, first):
    """Flattened (z, y) rows ``r0:r1`` of octave ``o`` into ``target``."""
    perms, periods, iopts, jitter = plan
    xs, fx, _, ax, rx, nrx = X
    ys, fy, cy, _, _, _ = Y
    zs, fz, cz, _, _, _ = Z
    p = perms[o]
    runs = rx[o, : nrx[o]]
    fxo = fx[o]
    axo = ax[o]
    fyo = fy[o]
    cyo = cy[o]
    fzo = fz[o]
    czo = cz[o]
    if kind == PERLIN:
        perlin3_rows(
            p,
            fxo,
            axo,
            runs,
            fyo,
            cyo,
            fzo,
            czo,
            r0,
            r1,
            height,
            hashes,
            slopes,
            scratch,
            target,
            first,
        )
        return
    for r in range(r0, r1):
        k = r // height
        j = r - k * height
        t = target[r - first]
        if kind == VALUE:
            pk = (r - 1) // height
            pj = r - 1 - pk * height
            if r == r0 or _new_block(cy, o, j, pj) or _new_block(cz, o, k, pk):
                value3_setup(p, axo, runs, cyo[0, j], cyo[1, j], czo[0, k], czo[1, k], slopes)
            value3_row(slopes, fxo, runs, fyo[2, j], fzo[2, k], t)
        else:
            y = ys[o, j]
            z = zs[o, k]
            xso = xs[o]
            for i in range(xso.size):
                t[i] = noise3(kind, p, periods[o], iopts, jitter, xso[i], y, z)


@parallel_kernel
def grid3(
    kind,
    perms,
    periods,
    iopts,
    jitter,
    freqs,
    offsets,
    amps,
    mode,
    total,
    xs,
    ys,
    zs,
    out,
    nthreads,
):
    octaves = perms.shape[0]
    width = xs.size
    height = ys.size
    interp = _interp(kind, iopts)
    plan = (perms, periods, iopts, jitter)
    X = _axes(xs, freqs, offsets, periods, 0, interp, perms)
    Y = _axes(ys, freqs, offsets, periods, 1, interp, perms)
    Z = _axes(zs, freqs, offsets, periods, 2, interp, perms)
    single = octaves == 1 and mode == FBM
    rows = zs.size * height
    flat = out.reshape((rows, width))
    per, nchunks = _chunking(rows, width)
    scratches, hashbufs, slopebufs, rowbufs, accbufs = _buffers(width, per, nthreads)
    for chunk in prange(nchunks):
        r0 = chunk * per
        r1 = min(rows, r0 + per)
        t = get_thread_id()
        scratch = scratches[t]
        hashes = hashbufs[t]
        slopes = slopebufs[t]
        if single:
            _rows3(kind, plan, X, Y, Z, 0, r0, r1, height, hashes, slopes, scratch, flat, 0)
            continue
        buf = rowbufs[t]
        acc = accbufs[t]
        for o in range(octaves):
            _rows3(kind, plan, X, Y, Z, o, r0, r1, height, hashes, slopes, scratch, buf, r0)
            for r in range(r1 - r0):
                _accumulate(acc[r], buf[r], o, amps[o], mode)
        for r in range(r0, r1):
            _store(acc[r - r0], total, flat[r])


@kernel
def _scaled(coords, freqs, offsets, axis):
    out = np.empty((freqs.size, coords.size))
    for o in range(freqs.size):
        for i in range(coords.size):
            out[o, i] = coords[i] * freqs[o] + offsets[o, axis]
    return out


@parallel_kernel
def grid4(
    kind,
    perms,
    periods,
    iopts,
    jitter,
    freqs,
    offsets,
    amps,
    mode,
    total,
    xs,
    ys,
    zs,
    ws,
    out,
    nthreads,
):
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
                n = noise4(
                    kind,
                    perms[o],
                    periods[o],
                    iopts,
                    jitter,
                    sx[o, i],
                    sy[o, j],
                    sz[o, k],
                    sw[o, m],
                )
                acc = _combine(acc, o, amps[o], mode, n)
            target[i] = _finish(single, acc, total, n)
