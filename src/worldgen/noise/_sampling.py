"""Compiled drivers: evaluate a noise plan at points or on a grid.

A *plan* is what every public generator compiles to: the noise kind, and per
octave a permutation table, a period, a frequency, an offset and an
amplitude, plus the fractal ``mode`` and the sum of amplitudes. A plain noise
is a one-octave fBm plan with frequency 1 and offset 0, which the drivers
return unchanged; several octaves are combined as

    acc = amp_0 * shape(n_0); acc = acc + amp_o * shape(n_o); out = acc / total

in that order at every sample, in the point drivers and the grid drivers
alike, so that a grid equals its points bit for bit.

The kind travels as the *type* of a tag, an empty array whose dtype names the
kind (:data:`KIND_TAGS`): the drivers are compiled, and cached, once per
kind, holding only that kind's code. (An integer kind would compile every
kind into every driver and make a first call several times slower.) Perlin
has two more tags, each for drivers of its own: PERLIN_CLASSES (2D grids
whose x offsets in their cells take few values, :func:`classes_tag`) and
PERLIN_WRAPPED (points whose periods are multiples of 256, at coordinates
known to be in range, :func:`wrapped_tag`).

Point drivers run a plain noise (one fBm octave) in a loop of its own,
without the fractal's accumulator.

Grid drivers work row by row along x (see ``_perlin``): the axes are
prepared once per octave, rows are split into chunks processed in parallel,
and each chunk keeps its own float64 accumulator. Nothing a chunk computes
depends on which thread runs it, so results do not depend on thread count.
"""

from __future__ import annotations

import numpy as np
from numba import get_thread_id, prange, types
from numba.extending import overload

from worldgen._jit import OPTIONS, kernel, parallel_kernel
from worldgen.noise._cellular import cellular2, cellular2_rows, cellular3
from worldgen.noise._lattice import WRAPPED_LIMIT, axis_table, offset_classes
from worldgen.noise._perlin import (
    CLASS_TABLES,
    SHORT_RUN,
    TERM_STRIDE,
    TERMS2,
    perlin1,
    perlin2,
    perlin2_rows,
    perlin2_rows_classes,
    perlin2_wrapped,
    perlin3,
    perlin3_rows,
    perlin3_wrapped,
    perlin4,
)
from worldgen.noise._simplex import simplex2, simplex2_rows, simplex3, simplex4
from worldgen.noise._value import value1, value2, value2_rows, value3, value3_rows, value4

PERLIN, VALUE, SIMPLEX, CELLULAR = 0, 1, 2, 3
KIND_TAGS = tuple(np.empty(0, dtype=t) for t in (np.int8, np.int16, np.int32, np.int64))
# Perlin's tag for a 2D grid whose x axis may take few offsets in its cells
# (see classes_tag): only its driver holds perlin2_rows_classes.
PERLIN_CLASSES = np.empty(0, dtype=np.uint8)
# Perlin's tag for points whose octaves all repeat every multiple of 256
# cells, at coordinates checked to be in range (see wrapped_tag).
PERLIN_WRAPPED = np.empty(0, dtype=np.uint16)
_TAG_KIND = {
    types.int8: PERLIN,
    types.uint8: PERLIN,
    types.uint16: PERLIN,
    types.int16: VALUE,
    types.int32: SIMPLEX,
    types.int64: CELLULAR,
}
FBM, BILLOW, TURBULENCE, RIDGED = 0, 1, 2, 3

# Most offset classes a 2D Perlin row may use (see perlin2_rows).
_MAX_CLASSES = 4

# A chunk of grid rows holds about this many samples: enough rows to amortise
# the per-chunk set-up (row caches, class tables), few enough that its float64
# row and accumulator buffers stay in the core's L2 cache.
_CHUNK_SAMPLES = 32768


def _kind(tag) -> int:
    return _TAG_KIND[tag.dtype]


# Samples of the x axis that classes_tag looks at.
_PROBE = 16


def classes_tag(plan: tuple, xs: np.ndarray) -> tuple:
    """``plan`` for :func:`grid2` over the x axis ``xs``: a Perlin plan
    gets the PERLIN_CLASSES tag when an octave's x offsets in their cells
    may take few enough values for ``offset_classes`` (at most
    ``min(_MAX_CLASSES, len(xs) // 256)``; see ``_axes``). Judged from the
    first samples: more values there rule it out, as on most grids (steps
    that are no simple fraction of every octave's cell). The answer
    changes which code is compiled, never a value."""
    tag, _, _, _, _, freqs, offsets = plan[:7]
    limit = min(_MAX_CLASSES, xs.size // 256)
    if tag.dtype == np.int8 and limit > 0 and _few_offsets(xs, freqs, offsets, limit):
        return (PERLIN_CLASSES, *plan[1:])
    return plan


def wrapped_tag(plan: tuple, coords: tuple[np.ndarray, ...] | None = None) -> tuple:
    """``plan`` for the 2D and 3D point drivers: a Perlin plan whose periods
    are all multiples of 256 (the default) gets the PERLIN_WRAPPED tag,
    which finds lattice cells with no branch, if every coordinate ``c``
    has ``|c| * max(freqs) + max(offsets)`` below
    :data:`~worldgen.noise._lattice.WRAPPED_LIMIT`: checked here on
    ``coords``, or, without them, known to the caller (``check_extent``
    makes sure of it). The same values; only the compiled code differs."""
    tag, _, periods, _, _, freqs, offsets = plan[:7]
    if tag.dtype != np.int8 or np.any(periods % 256):
        return plan
    if coords is not None:
        ends = [abs(float(end)) for c in coords if c.size for end in (c.min(), c.max())]
        largest = float(np.max(ends, initial=0.0))  # NaN if any is
        reach = largest * float(np.max(freqs)) + float(np.max(offsets))
        if not reach < WRAPPED_LIMIT:
            return plan
    return (PERLIN_WRAPPED, *plan[1:])


def _wrapped(tag) -> bool:
    return tag.dtype == types.uint16


def _few_offsets(xs, freqs, offsets, limit) -> bool:
    """Whether the first _PROBE samples of an octave take at most ``limit``
    offsets in their cells (computed as _axes and cells do). Plain numpy:
    a kernel for these few values cost 0.3 s of compiling on a first run."""
    with np.errstate(invalid="ignore", over="ignore"):  # as in _axes: inf, NaN
        v = xs[:_PROBE, None] * freqs + offsets[:, 0]
        fracs = v - np.floor(v)
    for o in range(freqs.size):
        seen: list[float] = []
        for f in fracs[:, o].tolist():
            if not any(s == f for s in seen):  # NaN is never equal: each one new
                seen.append(f)
        if len(seen) <= limit:
            return True
    return False


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


# --- one point of a base noise, by kind ----------------------------------------
# The Python bodies only mark the names; compiled code gets the overloads.


def noise1(tag, p, period, iopts, jitter, x):
    raise NotImplementedError("compiled code only")


def noise2(tag, p, period, iopts, jitter, x, y):
    raise NotImplementedError("compiled code only")


def noise3(tag, p, period, iopts, jitter, x, y, z):
    raise NotImplementedError("compiled code only")


def noise4(tag, p, period, iopts, jitter, x, y, z, w):
    raise NotImplementedError("compiled code only")


@overload(noise1, jit_options=OPTIONS, inline="always")
def _noise1(tag, p, period, iopts, jitter, x):
    if _kind(tag) == PERLIN:
        return lambda tag, p, period, iopts, jitter, x: perlin1(p, period, x)
    return lambda tag, p, period, iopts, jitter, x: value1(p, period, iopts[0], x)


@overload(noise2, jit_options=OPTIONS, inline="always")
def _noise2(tag, p, period, iopts, jitter, x, y):
    kind = _kind(tag)
    if _wrapped(tag):
        return lambda tag, p, period, iopts, jitter, x, y: perlin2_wrapped(p, x, y)
    if kind == PERLIN:
        return lambda tag, p, period, iopts, jitter, x, y: perlin2(p, period, x, y)
    if kind == VALUE:
        return lambda tag, p, period, iopts, jitter, x, y: value2(p, period, iopts[0], x, y)
    if kind == SIMPLEX:
        return lambda tag, p, period, iopts, jitter, x, y: simplex2(p, x, y)
    return lambda tag, p, period, iopts, jitter, x, y: cellular2(
        p, period, iopts[1], iopts[2], jitter, x, y
    )


@overload(noise3, jit_options=OPTIONS, inline="always")
def _noise3(tag, p, period, iopts, jitter, x, y, z):
    kind = _kind(tag)
    if _wrapped(tag):
        return lambda tag, p, period, iopts, jitter, x, y, z: perlin3_wrapped(p, x, y, z)
    if kind == PERLIN:
        return lambda tag, p, period, iopts, jitter, x, y, z: perlin3(p, period, x, y, z)
    if kind == VALUE:
        return lambda tag, p, period, iopts, jitter, x, y, z: value3(p, period, iopts[0], x, y, z)
    if kind == SIMPLEX:
        return lambda tag, p, period, iopts, jitter, x, y, z: simplex3(p, x, y, z)
    return lambda tag, p, period, iopts, jitter, x, y, z: cellular3(
        p, period, iopts[1], iopts[2], jitter, x, y, z
    )


@overload(noise4, jit_options=OPTIONS, inline="always")
def _noise4(tag, p, period, iopts, jitter, x, y, z, w):
    kind = _kind(tag)
    if kind == PERLIN:
        return lambda tag, p, period, iopts, jitter, x, y, z, w: perlin4(p, period, x, y, z, w)
    if kind == VALUE:
        return lambda tag, p, period, iopts, jitter, x, y, z, w: value4(
            p, period, iopts[0], x, y, z, w
        )
    return lambda tag, p, period, iopts, jitter, x, y, z, w: simplex4(p, x, y, z, w)


@kernel
def _combine(acc, o, amp, mode, n):
    t = amp * shape(mode, n)
    return t if o == 0 else acc + t


@kernel
def _finish(single, acc, total, n):
    return n if single else acc / total


# --- points ----------------------------------------------------------------


@parallel_kernel
def points1(tag, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, x, out):
    single = perms.shape[0] == 1 and mode == FBM
    for i in prange(out.size):
        if single:
            out[i] = noise1(
                tag, perms[0], periods[0], iopts, jitter, x[i] * freqs[0] + offsets[0, 0]
            )
            continue
        acc = n = 0.0
        for o in range(perms.shape[0]):
            n = noise1(tag, perms[o], periods[o], iopts, jitter, x[i] * freqs[o] + offsets[o, 0])
            acc = _combine(acc, o, amps[o], mode, n)
        out[i] = acc / total


@parallel_kernel
def points2(tag, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, x, y, out):
    single = perms.shape[0] == 1 and mode == FBM
    for i in prange(out.size):
        if single:
            f = freqs[0]
            out[i] = noise2(
                tag, perms[0], periods[0], iopts, jitter,
                x[i] * f + offsets[0, 0], y[i] * f + offsets[0, 1],
            )  # fmt: skip
            continue
        acc = n = 0.0
        for o in range(perms.shape[0]):
            f = freqs[o]
            n = noise2(
                tag, perms[o], periods[o], iopts, jitter,
                x[i] * f + offsets[o, 0], y[i] * f + offsets[o, 1],
            )  # fmt: skip
            acc = _combine(acc, o, amps[o], mode, n)
        out[i] = acc / total


@parallel_kernel
def points3(tag, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, x, y, z, out):
    single = perms.shape[0] == 1 and mode == FBM
    for i in prange(out.size):
        if single:
            f = freqs[0]
            out[i] = noise3(
                tag, perms[0], periods[0], iopts, jitter,
                x[i] * f + offsets[0, 0], y[i] * f + offsets[0, 1], z[i] * f + offsets[0, 2],
            )  # fmt: skip
            continue
        acc = n = 0.0
        for o in range(perms.shape[0]):
            f = freqs[o]
            n = noise3(
                tag, perms[o], periods[o], iopts, jitter,
                x[i] * f + offsets[o, 0], y[i] * f + offsets[o, 1], z[i] * f + offsets[o, 2],
            )  # fmt: skip
            acc = _combine(acc, o, amps[o], mode, n)
        out[i] = acc / total


@parallel_kernel
def points4(tag, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, x, y, z, w, out):
    single = perms.shape[0] == 1 and mode == FBM
    for i in prange(out.size):
        if single:
            f = freqs[0]
            out[i] = noise4(
                tag, perms[0], periods[0], iopts, jitter,
                x[i] * f + offsets[0, 0], y[i] * f + offsets[0, 1],
                z[i] * f + offsets[0, 2], w[i] * f + offsets[0, 3],
            )  # fmt: skip
            continue
        acc = n = 0.0
        for o in range(perms.shape[0]):
            f = freqs[o]
            n = noise4(
                tag, perms[o], periods[o], iopts, jitter,
                x[i] * f + offsets[o, 0], y[i] * f + offsets[o, 1],
                z[i] * f + offsets[o, 2], w[i] * f + offsets[o, 3],
            )  # fmt: skip
            acc = _combine(acc, o, amps[o], mode, n)
        out[i] = acc / total


# --- grids -----------------------------------------------------------------


@kernel
def _axes(coords, freqs, offsets, periods, axis, interp, perms):
    """Every octave's view of one axis: the scaled coordinates, the lattice
    table (offsets, cells, runs), the first-level hashes ``p[cell]`` and the
    offset classes (when few; see ``offset_classes``)."""
    octaves = freqs.size
    n = coords.size
    scaled = np.empty((octaves, n))
    frac = np.empty((octaves, 3, n))
    cells = np.empty((octaves, 2, n), dtype=np.uint64)
    hashed = np.empty((octaves, 2, n), dtype=np.uint64)
    runs = np.empty((octaves, n + 1), dtype=np.int64)
    nruns = np.empty(octaves, dtype=np.int64)
    classes = np.empty((octaves, n), dtype=np.int64)
    reps = np.empty((octaves, _MAX_CLASSES), dtype=np.int64)
    nclasses = np.empty(octaves, dtype=np.int64)
    limit = min(_MAX_CLASSES, n // 256)
    for o in range(octaves):
        for i in range(n):
            scaled[o, i] = coords[i] * freqs[o] + offsets[o, axis]
        f, c, r = axis_table(scaled[o], periods[o, axis], interp)
        p = perms[o]
        for i in range(n):
            for k in range(3):
                frac[o, k, i] = f[k, i]
            for k in range(2):
                cells[o, k, i] = c[k, i]
                hashed[o, k, i] = p[c[k, i]]
        for i in range(r.size):
            runs[o, i] = r[i]
        nruns[o] = r.size
        nclasses[o] = offset_classes(frac[o, 0], limit, classes[o], reps[o]) if limit > 0 else 0
    return scaled, frac, cells, hashed, runs, nruns, classes, reps, nclasses


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
        np.empty((n, max(64, CLASS_TABLES * 128 * _MAX_CLASSES))),
        np.empty((n, width, 8), dtype=np.uint64),
        np.empty((n, width, 8)),
        np.empty((n, 2, TERM_STRIDE), dtype=np.uint8),
        np.empty((n, per, width)),
        np.empty((n, per, width)),
        np.empty((n, 2, TERMS2, TERM_STRIDE)),
    )


def rows2(tag, plan, X, Y, o, j0, j1, buffers, target, first):
    raise NotImplementedError("compiled code only")


@overload(rows2, jit_options=OPTIONS)
def _rows2(tag, plan, X, Y, o, j0, j1, buffers, target, first):
    """Rows ``j0:j1`` of octave ``o`` into ``target[j - first]``."""
    kind = _kind(tag)
    if kind == PERLIN and tag.dtype == types.uint8:

        def perlin_classes(tag, plan, X, Y, o, j0, j1, buffers, target, first):
            scratch, hashes, slopes, codes, terms = buffers
            runs = X[4][o, : X[5][o]]
            if X[8][o] > 0 and X[1][o].shape[1] < SHORT_RUN * (runs.size - 1):
                perlin2_rows_classes(
                    plan[0][o], X[1][o], X[3][o], Y[1][o], Y[2][o], j0, j1, hashes, scratch,
                    target, first, X[6][o], X[7][o], X[8][o],
                )  # fmt: skip
            else:
                perlin2_rows(
                    plan[0][o], X[1][o], X[3][o], runs, Y[1][o], Y[2][o], j0, j1, hashes,
                    slopes, codes, terms, scratch, target, first,
                )  # fmt: skip

        return perlin_classes
    if kind == PERLIN:

        def perlin(tag, plan, X, Y, o, j0, j1, buffers, target, first):
            scratch, hashes, slopes, codes, terms = buffers
            runs = X[4][o, : X[5][o]]
            perlin2_rows(
                plan[0][o], X[1][o], X[3][o], runs, Y[1][o], Y[2][o], j0, j1, hashes, slopes,
                codes, terms, scratch, target, first,
            )  # fmt: skip

        return perlin
    if kind == VALUE:

        def value(tag, plan, X, Y, o, j0, j1, buffers, target, first):
            runs = X[4][o, : X[5][o]]
            value2_rows(
                plan[0][o],
                X[1][o],
                X[3][o],
                runs,
                Y[1][o],
                Y[2][o],
                j0,
                j1,
                buffers[2],
                target,
                first,
            )

        return value
    if kind == CELLULAR:

        def cellular(tag, plan, X, Y, o, j0, j1, buffers, target, first):
            perms, periods, iopts, jitter = plan
            cellular2_rows(
                perms[o], periods[o], iopts[1], iopts[2], jitter, X[0][o], Y[0][o], j0, j1,
                target, first,
            )  # fmt: skip

        return cellular

    # The simplex kind.
    def simplex(tag, plan, X, Y, o, j0, j1, buffers, target, first):
        simplex2_rows(plan[0][o], X[0][o], Y[0][o], j0, j1, target, first)

    return simplex


@parallel_kernel
def grid2(
    tag, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, xs, ys, out, nthreads
):
    octaves = perms.shape[0]
    width = xs.size
    plan = (perms, periods, iopts, jitter)
    X = _axes(xs, freqs, offsets, periods, 0, iopts[0], perms)
    Y = _axes(ys, freqs, offsets, periods, 1, iopts[0], perms)
    single = octaves == 1 and mode == FBM
    per, nchunks = _chunking(ys.size, width)
    scratches, hashbufs, slopebufs, codebufs, rowbufs, accbufs, termbufs = _buffers(
        width, per, nthreads
    )
    for chunk in prange(nchunks):
        j0 = chunk * per
        j1 = min(ys.size, j0 + per)
        t = get_thread_id()
        buffers = (scratches[t], hashbufs[t], slopebufs[t], codebufs[t], termbufs[t])
        if single:
            rows2(tag, plan, X, Y, 0, j0, j1, buffers, out, 0)
            continue
        rows = rowbufs[t]
        acc = accbufs[t]
        for o in range(octaves):
            rows2(tag, plan, X, Y, o, j0, j1, buffers, rows, j0)
            for j in range(j1 - j0):
                _accumulate(acc[j], rows[j], o, amps[o], mode)
        for j in range(j0, j1):
            _store(acc[j - j0], total, out[j])


def rows3(tag, plan, X, Y, Z, o, r0, r1, height, buffers, target, first):
    raise NotImplementedError("compiled code only")


@overload(rows3, jit_options=OPTIONS)
def _rows3(tag, plan, X, Y, Z, o, r0, r1, height, buffers, target, first):
    """Flattened (z, y) rows ``r0:r1`` of octave ``o`` into ``target[r - first]``."""
    kind = _kind(tag)
    if kind == PERLIN:

        def perlin(tag, plan, X, Y, Z, o, r0, r1, height, buffers, target, first):
            scratch, hashes, slopes, _ = buffers
            runs = X[4][o, : X[5][o]]
            perlin3_rows(
                plan[0][o], X[1][o], X[3][o], runs, Y[1][o], Y[2][o], Z[1][o], Z[2][o],
                r0, r1, height, hashes, slopes, scratch, target, first,
            )  # fmt: skip

        return perlin
    if kind == VALUE:

        def value(tag, plan, X, Y, Z, o, r0, r1, height, buffers, target, first):
            runs = X[4][o, : X[5][o]]
            value3_rows(
                plan[0][o], X[1][o], X[3][o], runs, Y[1][o], Y[2][o], Z[1][o], Z[2][o],
                r0, r1, height, buffers[2], target, first,
            )  # fmt: skip

        return value

    def generic(tag, plan, X, Y, Z, o, r0, r1, height, buffers, target, first):
        perms, periods, iopts, jitter = plan
        xs = X[0][o]
        for r in range(r0, r1):
            k = r // height
            y = Y[0][o, r - k * height]
            z = Z[0][o, k]
            t = target[r - first]
            for i in range(xs.size):
                t[i] = noise3(tag, perms[o], periods[o], iopts, jitter, xs[i], y, z)

    return generic


@parallel_kernel
def grid3(
    tag, perms, periods, iopts, jitter, freqs, offsets, amps, mode, total, xs, ys, zs, out, nthreads
):
    octaves = perms.shape[0]
    width = xs.size
    height = ys.size
    plan = (perms, periods, iopts, jitter)
    X = _axes(xs, freqs, offsets, periods, 0, iopts[0], perms)
    Y = _axes(ys, freqs, offsets, periods, 1, iopts[0], perms)
    Z = _axes(zs, freqs, offsets, periods, 2, iopts[0], perms)
    single = octaves == 1 and mode == FBM
    rows = zs.size * height
    flat = out.reshape((rows, width))
    per, nchunks = _chunking(rows, width)
    scratches, hashbufs, slopebufs, codebufs, rowbufs, accbufs, _ = _buffers(width, per, nthreads)
    for chunk in prange(nchunks):
        r0 = chunk * per
        r1 = min(rows, r0 + per)
        t = get_thread_id()
        buffers = (scratches[t], hashbufs[t], slopebufs[t], codebufs[t])
        if single:
            rows3(tag, plan, X, Y, Z, 0, r0, r1, height, buffers, flat, 0)
            continue
        buf = rowbufs[t]
        acc = accbufs[t]
        for o in range(octaves):
            rows3(tag, plan, X, Y, Z, o, r0, r1, height, buffers, buf, r0)
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
    tag,
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
                    tag, perms[o], periods[o], iopts, jitter, sx[o, i], sy[o, j], sz[o, k], sw[o, m]
                )
                acc = _combine(acc, o, amps[o], mode, n)
            target[i] = _finish(single, acc, total, n)
