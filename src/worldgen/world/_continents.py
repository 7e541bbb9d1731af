"""Continents: at most one landmass per region of the continent lattice.

The plane is cut into squares of ``D = continent_size`` cells, square
``(i, j)`` covering ``i D <= x < (i + 1) D``, ``j D <= y < (j + 1) D``.
Each 2 x 2 block of squares (block ``(I, J)`` holds squares ``2I, 2I + 1``
by ``2J, 2J + 1``) is, by a hash of the seed and the block, either one
*region* of ``2D`` cells (half of them) or four regions of ``D`` cells.
Merged blocks hold the large continents, and no lattice shows in the
overview. Positions are domain warped first (by up to a tenth of a square,
a noise two thirds of a square long), so region borders wander; a region
is still contained in its block or square grown by that warp.

Each region holds at most one landmass, from a hash of the seed and the
region: a *bias* (a slow noise over the lattice, so that some parts of the
world hold big continents and others open ocean, plus the hash's own
share), a dome's centre jittered around the region's centre, and an
ellipse (aspect 0.5 to 1, any orientation). Its *potential* is

    p = bias + 1.2 (1 - r^2) + coast - K h

with ``r`` the warped distance to the dome's centre in the ellipse's axes
(0.45 of the region at most), ``coast`` a fractal noise, and ``h`` a border
envelope rising smoothly from 0 at a fifth of the region from its border to
1 at :attr:`WorldConfig.margin` (``D / 32``) cells. ``K`` is larger than
the highest ``bias + 1.2 + coast`` can be, so the margin is always ocean: ocean separates every pair of regions, and every
drainage basin lies inside one region (the bound rivers rely on: the
largest basin is a block of ``2D x 2D`` cells). The *continentalness* is
``c = p``: land where ``c >= 0``. The biases' mean is calibrated once so
that land covers ``land_fraction`` of the world on average (the statistics
do not depend on the seed or on ``D``, so one calibration on a fixed seed
serves all); the largest bias is capped, so a landmass reaches at most
about 0.38 of its region from its centre before the coast noise.

Nothing here depends on the window: ``c`` is a pure function of the
config and the cell, band-limited through its coast and warp noises.
"""

from __future__ import annotations

import functools

import numpy as np

from worldgen._jit import kernel
from worldgen.noise._seed import derive_seed
from worldgen.world import _scratch
from worldgen.world._config import WorldConfig
from worldgen.world._hash import uniform3
from worldgen.world._lod import Octaves, octave_count

_SIZE_NOISE, _COAST, _WARP_X, _WARP_Y, _CELLS, _COAST_SHORT, _MERGE = (
    0x434F4E01,
    0x434F4E02,
    0x434F4E03,
    0x434F4E04,
    0x434F4E05,
    0x434F4E06,
    0x434F4E07,
)

MERGED = 0.5  # share of 2 x 2 blocks that are one region
BIAS_MAX = -0.35  # a region's largest bias toward land (so no landmass fills it)
SLOW = 5.0  # how far the slow noise moves it (parts of big continents or open sea)
SPREAD = 1.2  # how far a region's own hash moves it
DOME_HEIGHT = 1.2  # the dome adds this at its centre ...
DOME = 0.45  # ... and nothing at this distance (in regions)
JITTER = 0.12  # dome centre jitter, in regions
WARP = 0.1  # domain warp amplitude, in squares
COAST = 2.2  # coast noise amplitude at roughness 1
RAMP = 0.1  # the border envelope starts this far (in regions) from the border
_FBM_BOUND = 1.0  # |2D Perlin fBm| stays below this
OFFSET_MIN, OFFSET_MAX = -4.0, 2.0  # the calibrated mean bias lies between these
LONG_RUN = 16  # samples in one region from which their loop is vectorised
ENTRIES = 6  # per region: bias, centre x, centre y, cos, sin, 1 / aspect


def coast_noises(config: WorldConfig) -> tuple[Octaves, Octaves]:
    """The coast noise's long octaves (a quarter of a square down to a
    24th) and short ones (a 24th of a square down to about 12 cells): one
    fBm, in two parts, the short one shared with the hills."""
    size = config.continent_size
    return (
        Octaves(_COAST, size / 4.0, 3),
        Octaves(_COAST_SHORT, size / 24.0, octave_count(size / 24.0, 12.0)),
    )


def coast_shares(config: WorldConfig) -> tuple[float, float]:
    """Weights of the two parts so that their sum is one fBm: each part is
    divided by the sum of its own amplitudes, the short one continuing the
    long one's geometric series."""
    long, short = coast_noises(config)
    p = long.persistence
    sum_long = sum(p**k for k in range(long.octaves))
    sum_short = p**long.octaves * sum(p**k for k in range(short.octaves))
    return sum_long / (sum_long + sum_short), sum_short / (sum_long + sum_short)


@kernel
def _weighted_sum(scale, a, x, b, y, out):
    # scale * (a * x + b * y), in one pass.
    for k in range(out.size):
        out[k] = scale * (a * x[k] + b * y[k])


def coast_values(config: WorldConfig, noise) -> np.ndarray:
    """The coast noise (scaled by its amplitude) from ``noise(octaves)``:
    ``COAST * roughness * (a * long + b * short)`` with the parts' shares."""
    long, short = coast_noises(config)
    a, b = coast_shares(config)
    x = np.ascontiguousarray(noise(long), dtype=np.float64)
    y = np.ascontiguousarray(noise(short), dtype=np.float64)
    out = _scratch.empty(np.broadcast_shapes(x.shape, y.shape))
    _weighted_sum(COAST * config.roughness, a, x.ravel(), b, y.ravel(), out.ravel())
    return out


def warp_noises(config: WorldConfig) -> tuple[Octaves, Octaves]:
    """The two components of the lattice's domain warp (two thirds of a
    square and shorter)."""
    size = config.continent_size
    return (Octaves(_WARP_X, size / 1.5, 3), Octaves(_WARP_Y, size / 1.5, 3))


def envelope_height(config: WorldConfig) -> float:
    """``K``: how far the border envelope lowers the potential at the
    margin, enough to put it below ``-0.3`` whatever the dome, the coast
    noise and the threshold."""
    return BIAS_MAX + DOME_HEIGHT + COAST * config.roughness * _FBM_BOUND + 0.3


@kernel
def _landmass(seed, i, j, bias):
    # The landmass of region (i, j) whose slow bias is ``bias``: its bias,
    # the dome's centre (in regions, from the region's corner), the cosine
    # and sine of the ellipse's angle and the inverse of its aspect.
    b = min(max(bias + SPREAD * (uniform3(seed, i, j, 1) - 0.5), -3.0), BIAS_MAX)
    cx = 0.5 + JITTER * (2.0 * uniform3(seed, i, j, 2) - 1.0)
    cy = 0.5 + JITTER * (2.0 * uniform3(seed, i, j, 3) - 1.0)
    angle = np.pi * uniform3(seed, i, j, 4)
    aspect = 1.0 / (0.5 + 0.5 * uniform3(seed, i, j, 5))
    return b, cx, cy, np.cos(angle), np.sin(angle), aspect


@kernel
def _regions(seed, cols, rows, biases, read, table):
    # The landmass of each region (i, j) = (cols[n], rows[n]) into table[n]
    # where read[n] (everywhere if read is empty; the other rows are left).
    for n in range(cols.size):
        if read.size == 0 or read[n]:
            t = table[n]
            t[0], t[1], t[2], t[3], t[4], t[5] = _landmass(seed, cols[n], rows[n], biases[n])


@kernel
def _read_rows(cols, rows, shift, merged, bl, whole):
    # Which rows of a table of squares (shift 1) or blocks (shift 0) of
    # cells (cols[n], rows[n]) samples read: those whose block is merged
    # (whole) or not, the blocks' merge flags in merged as in _potential.
    read = np.empty(cols.size, dtype=np.bool_)
    for n in range(cols.size):
        b = n if bl[2] == 0 else ((rows[n] >> shift) - bl[1]) * bl[2] + ((cols[n] >> shift) - bl[0])
        read[n] = merged[b] == whole
    return read


def region_biases(
    config: WorldConfig,
    cols: np.ndarray,
    rows: np.ndarray,
    scale: int,
    bias: float,
    *,
    across: int = 0,
) -> np.ndarray:
    """The slow part of the bias of the regions of ``scale`` squares (1:
    squares, 2: blocks) ``(cols[n], rows[n])``: the mean ``bias`` and the
    slow noise at their centres. ``across`` > 0 says that the regions are
    a grid ``across`` columns wide, row by row (its slow noise is then
    evaluated as a grid: the same values)."""
    size = config.continent_size * scale
    slow = Octaves(_SIZE_NOISE, 6.0 * config.continent_size, 2)
    if across:
        gx = (cols[:across] + 0.5) * size
        gy = (rows[::across] + 0.5) * size
        noise = slow.grid(config.seed, gx, gy, 0.0).ravel()
    else:
        noise = slow.points(config.seed, (cols + 0.5) * size, (rows + 0.5) * size, 0.0)
    return bias + SLOW * noise


def _region_seed(config: WorldConfig, scale: int) -> np.uint64:
    return np.uint64(derive_seed(config.seed, _CELLS if scale == 1 else _CELLS + scale))


def region_table(
    config: WorldConfig,
    cols: np.ndarray,
    rows: np.ndarray,
    scale: int,
    bias: float,
    *,
    across: int = 0,
    read: np.ndarray | None = None,
) -> np.ndarray:
    """The landmasses of the regions of ``scale`` squares (1: squares, 2:
    blocks) ``(cols[n], rows[n])``: shape ``(n, ENTRIES)`` (see
    :func:`_landmass`); ``across`` as for :func:`region_biases`. With
    ``read`` (bool, one per region), only the regions where it is true
    (the other rows hold zeros)."""
    biases = region_biases(config, cols, rows, scale, bias, across=across)
    table = np.zeros((cols.size, ENTRIES))
    read = np.empty(0, dtype=np.bool_) if read is None else read
    _regions(_region_seed(config, scale), cols, rows, biases, read, table)
    return table


_MADE = np.empty(0, dtype=np.uint64)  # the tables hold the landmasses


@kernel
def _merges(seed, cols, rows):
    out = np.empty(cols.size, dtype=np.bool_)
    for n in range(cols.size):
        out[n] = uniform3(seed, cols[n], rows[n], 0) < MERGED
    return out


@kernel
def _dome(lx, ly, bias, cx, cy, cos, sin, aspect, coast, K, m, ramp):
    # The potential at (lx, ly) in its region (in regions, from its
    # corner): the dome, the coast noise and the border envelope. The
    # envelope's value is taken only near the border (a select, not a
    # branch, so that a loop over a run of samples is vectorised).
    dx = lx - cx
    dy = ly - cy
    u = dx * cos + dy * sin
    v = (dy * cos - dx * sin) * aspect
    q = bias + DOME_HEIGHT * (1.0 - (u * u + v * v) / (DOME * DOME))
    d = min(min(lx, 1.0 - lx), min(ly, 1.0 - ly))
    h = 0.0
    if d < ramp:
        w = min(max((ramp - d) / (ramp - m), 0.0), 1.0)
        h = w * w * w * (w * (w * 6.0 - 15.0) + 10.0)
    return q + coast - K * h


@kernel
def _inside(x, y, x0, y0, x1, y1):
    return (x0 <= x) & (x < x1) & (y0 <= y) & (y < y1)


@kernel
def _domes(x, y, coast, half, bias, cx, cy, cos, sin, aspect, K, m, ramp, out):
    # The potential of a run of samples in one region (a block if half).
    if half:
        for k in range(x.size):
            lx = 0.5 * x[k] - np.floor(0.5 * x[k])
            ly = 0.5 * y[k] - np.floor(0.5 * y[k])
            out[k] = _dome(lx, ly, bias, cx, cy, cos, sin, aspect, coast[k], K, m, ramp)
    else:
        for k in range(x.size):
            lx = x[k] - np.floor(x[k])
            ly = y[k] - np.floor(y[k])
            out[k] = _dome(lx, ly, bias, cx, cy, cos, sin, aspect, coast[k], K, m, ramp)


@kernel
def _potential(
    x, y, coast, squares, sq, blocks, bl, merged, seeds, K, margin, ramp, out
):  # fmt: skip
    # x, y: warped positions in squares. sq, bl: (first column, first row,
    # columns) of the tables of squares and of blocks (and merge flags),
    # or columns 0 for tables with one row per sample. The tables hold
    # each region's landmass (see _landmass), or with seeds (of squares,
    # of blocks) given, only its slow bias, its landmass made here when a
    # sample reads it. Neighbouring samples mostly share their region: its
    # entries are read again only when the region changes.
    last = -1
    made = seeds.size == 0
    bias = cx = cy = cos = sin = aspect = m = 0.0
    for k in range(x.size):
        xk = x[k]
        yk = y[k]
        fx = np.floor(xk)
        fy = np.floor(yk)
        i = int(fx)
        j = int(fy)
        b = k if bl[2] == 0 else ((j >> 1) - bl[1]) * bl[2] + ((i >> 1) - bl[0])
        half = merged[b]
        # A key for the region's row: blocks after squares.
        if half:
            key = b + squares.shape[0]
        else:
            key = k if sq[2] == 0 else (j - sq[1]) * sq[2] + (i - sq[0])
        if key != last:
            last = key
            if made:
                t = blocks[b] if half else squares[key]
                bias, cx, cy, cos, sin, aspect = t[0], t[1], t[2], t[3], t[4], t[5]
            elif half:
                bias, cx, cy, cos, sin, aspect = _landmass(seeds[1], i >> 1, j >> 1, blocks[b, 0])
            else:
                bias, cx, cy, cos, sin, aspect = _landmass(seeds[0], i, j, squares[key, 0])
            m = 0.5 * margin if half else margin
        if half:
            lx = 0.5 * xk - np.floor(0.5 * xk)
            ly = 0.5 * yk - np.floor(0.5 * yk)
        else:
            lx = xk - fx
            ly = yk - fy
        out[k] = _dome(lx, ly, bias, cx, cy, cos, sin, aspect, coast[k], K, m, ramp)


@kernel
def _count_inside(x, y, x0, y0, x1, y1):
    # How many samples lie in the cells [x0, x1) x [y0, y1) (a loop
    # without branches).
    count = 0
    for k in range(x.size):
        count += _inside(x[k], y[k], x0, y0, x1, y1)
    return count


@kernel
def _runs(x, y, coast, squares, sq, blocks, bl, merged, K, margin, ramp, out):
    # As _potential, for tables that are grids of regions of many samples
    # each (sq[2] and bl[2] > 0): the samples are taken in runs that stay
    # in one region, each run's entries read once and its samples taken in
    # a loop without branches. False (the rest of out not written) if a
    # sample's square is not in the table.
    n = x.size
    rows = squares.shape[0] // sq[2]
    start = 0
    while start < n:
        fx = np.floor(x[start])
        fy = np.floor(y[start])
        i = int(fx)
        j = int(fy)
        if not (sq[0] <= i < sq[0] + sq[2] and sq[1] <= j < sq[1] + rows):
            return False
        b = ((j >> 1) - bl[1]) * bl[2] + ((i >> 1) - bl[0])
        half = merged[b]
        if half:
            t = blocks[b]
            # The block's cells: its squares' floors are 2I and 2I + 1.
            x0, y0 = float((i >> 1) * 2), float((j >> 1) * 2)
            x1, y1, m = x0 + 2.0, y0 + 2.0, 0.5 * margin
        else:
            t = squares[(j - sq[1]) * sq[2] + (i - sq[0])]
            x0, y0, x1, y1, m = fx, fy, fx + 1.0, fy + 1.0, margin
        # The run: most often all the rest (counted without branches), else
        # up to the first sample outside the region.
        end = n
        if _count_inside(x[start + 1 :], y[start + 1 :], x0, y0, x1, y1) < n - start - 1:
            end = start + 1
            while end < n and _inside(x[end], y[end], x0, y0, x1, y1):
                end += 1
        # On views, so that the loop's indices are known not to be negative.
        _domes(
            x[start:end], y[start:end], coast[start:end], half, t[0], t[1], t[2], t[3], t[4],
            t[5], K, m, ramp, out[start:end],
        )  # fmt: skip
        start = end
    return True


@kernel
def _potential_grid(
    xs, ys, wx, wy, scale, size, coast, squares, sq, blocks, bl, merged, runs, K, margin, ramp,
    out,
):  # fmt: skip
    # _runs (or with runs false _potential) on a grid of columns xs and
    # rows ys (sample k = r W + c), row by row: each row's warped positions
    # (as _locate's) made in a buffer, not kept. False if a sample's square
    # is not in the tables (grids of regions).
    width = xs.size
    x0, y0 = float(sq[0]), float(sq[1])
    x1, y1 = x0 + sq[2], y0 + squares.shape[0] // sq[2]
    seeds = np.empty(0, dtype=np.uint64)
    columns = np.empty(width)
    for c in range(width):
        columns[c] = xs[c] / size
    x = np.empty(width)
    y = np.empty(width)
    for r in range(ys.size):
        row = r * width
        yr = ys[r] / size
        wxr = wx[row : row + width]
        wyr = wy[row : row + width]
        for c in range(width):
            x[c] = columns[c] + scale * wxr[c]
            y[c] = yr + scale * wyr[c]
        if runs:
            done = _runs(
                x, y, coast[row : row + width], squares, sq, blocks, bl, merged, K, margin,
                ramp, out[row : row + width],
            )  # fmt: skip
        else:
            done = _count_inside(x, y, x0, y0, x1, y1) == width
            if done:
                _potential(
                    x, y, coast[row : row + width], squares, sq, blocks, bl, merged, seeds, K,
                    margin, ramp, out[row : row + width],
                )  # fmt: skip
        if not done:
            return False
    return True


@kernel
def _locate(xs, ys, width, wx, wy, scale, size, x, y):
    # Warped positions in squares (the warp times scale); the bounding box
    # of their squares. Sample k is at (xs[k], ys[k]), or with width > 0 on
    # the grid of columns xs and rows ys, at (xs[c], ys[r]), k = r width + c.
    lo_i = lo_j = 2**62
    hi_i = hi_j = -(2**62)
    rows = 1 if width == 0 else ys.size
    cols = x.size if width == 0 else width
    for r in range(rows):
        for c in range(cols):
            k = r * cols + c
            if width == 0:
                x[k] = xs[k] / size + scale * wx[k]
                y[k] = ys[k] / size + scale * wy[k]
            else:
                x[k] = xs[c] / size + scale * wx[k]
                y[k] = ys[r] / size + scale * wy[k]
            i = int(np.floor(x[k]))
            j = int(np.floor(y[k]))
            lo_i, hi_i = min(lo_i, i), max(hi_i, i)
            lo_j, hi_j = min(lo_j, j), max(hi_j, j)
    return lo_i, lo_j, hi_i, hi_j


@kernel
def _cells(x, y, shift):
    # Each sample's lattice cell (squares: shift 0, blocks: shift 1).
    i = np.empty(x.size, dtype=np.int64)
    j = np.empty(x.size, dtype=np.int64)
    for k in range(x.size):
        i[k] = int(np.floor(x[k])) >> shift
        j[k] = int(np.floor(y[k])) >> shift
    return i, j


def _grid_rows(box, shift: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every lattice cell (squares, or blocks with ``shift`` 1) of the box
    of squares ``box``, row by row, and ``(first column, first row,
    columns)``."""
    i0, j0, i1, j1 = (v >> shift for v in box)
    cols, rows = i1 - i0 + 1, j1 - j0 + 1
    ci = np.tile(np.arange(i0, i0 + cols, dtype=np.int64), rows)
    cj = np.repeat(np.arange(j0, j0 + rows, dtype=np.int64), cols)
    return ci, cj, np.array([i0, j0, cols], dtype=np.int64)


def _table_rows(x, y, box, shift: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lattice cells (squares, or blocks with ``shift`` 1) to tabulate
    for samples at warped positions ``x, y`` whose squares lie in ``box``,
    and how to find each sample's row: every cell of the bounding box when
    that is at most twice the samples (a window at a fine level, or one
    whose samples each fall in a cell of their own: a grid of cells is
    cheaper than cells at scattered samples), else one row per sample.
    Returns the cells' columns and rows and ``(first column, first row,
    columns)``, columns 0 for one row per sample."""
    i0, j0, i1, j1 = (v >> shift for v in box)
    if (i1 - i0 + 1) * (j1 - j0 + 1) <= 2 * x.size:
        return _grid_rows(box, shift)
    ci, cj = _cells(x, y, shift)
    return ci, cj, np.zeros(3, dtype=np.int64)


def _cell_count(box) -> int:
    return (box[2] - box[0] + 1) * (box[3] - box[1] + 1)


def continentalness(
    config: WorldConfig,
    xs: np.ndarray,
    ys: np.ndarray,
    coast: np.ndarray,
    warp: tuple[np.ndarray, np.ndarray],
    bias: float | None = None,
    *,
    grid: bool = False,
    warp_scale: float = 1.0,
) -> np.ndarray:
    """``c`` at cell positions ``xs, ys`` (flat float64 arrays; with
    ``grid``, the columns and rows of a grid, its samples row by row),
    given the coast noise values (already scaled) and the warp (in squares,
    once multiplied by ``warp_scale``) there; ``bias`` overrides the
    calibrated mean bias."""
    size = config.continent_size
    out = _scratch.empty(xs.size * ys.size if grid else xs.size)
    if not out.size:
        return out
    if bias is None:
        bias = mean_bias(config.land_fraction, config.roughness)
    K, margin = envelope_height(config), config.margin / size
    merge_seed = np.uint64(derive_seed(config.seed, _MERGE))
    # Regions, dome and border are all taken at the warped position.
    if grid:
        # The squares the samples may reach: the axes' grown by the warp's
        # bound. Where that box is a grid of regions of at most twice the
        # samples, the samples are taken row by row, their warped positions
        # not kept (the same values); in runs where a square holds a patch
        # of LONG_RUN x LONG_RUN samples or more on average.
        reach = abs(warp_scale) * _FBM_BOUND
        ends = np.floor(
            [xs.min() / size - reach, ys.min() / size - reach, xs.max() / size + reach,
             ys.max() / size + reach]
        )  # fmt: skip
        box = tuple(int(v) for v in ends) if np.isfinite(ends).all() else None
        if box is not None and 2 * _cell_count(box) <= out.size:
            ci, cj, sq = _grid_rows(box, 0)
            bi, bj, bl = _grid_rows(box, 1)
            merged = _merges(merge_seed, bi, bj)
            runs = out.size >= LONG_RUN * LONG_RUN * ci.size
            # (A few regions in runs: all of them made, cheaper than choosing.)
            read = None if runs else _read_rows(ci, cj, 1, merged, bl, False)
            squares = region_table(config, ci, cj, 1, bias, across=int(sq[2]), read=read)
            read = None if runs else _read_rows(bi, bj, 0, merged, bl, True)
            blocks = region_table(config, bi, bj, 2, bias, across=int(bl[2]), read=read)
            if _potential_grid(
                xs, ys, warp[0], warp[1], float(warp_scale), float(size), coast, squares, sq,
                blocks, bl, merged, runs, K, margin, RAMP, out,
            ):  # fmt: skip
                return out
            # (A warp beyond its bound: the samples are located first.)
    x, y = np.empty(out.size), np.empty(out.size)
    width = xs.size if grid else 0
    box = _locate(xs, ys, width, warp[0], warp[1], float(warp_scale), float(size), x, y)
    ci, cj, sq = _table_rows(x, y, box, 0)
    bi, bj, bl = _table_rows(x, y, box, 1)
    merged = _merges(merge_seed, bi, bj)
    if 2 * ci.size > out.size:
        # About a region per sample (the coarsest levels): each sample reads
        # either its square or its block, so half of each table would never
        # be read, and a table of as many rows as samples is fresh memory
        # to fault in. The samples make their regions' landmasses from the
        # slow biases instead (the same values).
        squares = region_biases(config, ci, cj, 1, bias, across=int(sq[2])).reshape(-1, 1)
        blocks = region_biases(config, bi, bj, 2, bias, across=int(bl[2])).reshape(-1, 1)
        seeds = np.array([_region_seed(config, 1), _region_seed(config, 2)], dtype=np.uint64)
    else:
        # Each sample reads its block if it is merged, else its square: the
        # other regions' landmasses are not made.
        read = _read_rows(ci, cj, 1, merged, bl, False)
        squares = region_table(config, ci, cj, 1, bias, across=int(sq[2]), read=read)
        read = _read_rows(bi, bj, 0, merged, bl, True)
        blocks = region_table(config, bi, bj, 2, bias, across=int(bl[2]), read=read)
        seeds = _MADE
    if seeds.size == 0 and out.size >= LONG_RUN * LONG_RUN * ci.size:
        _runs(x, y, coast, squares, sq, blocks, bl, merged, K, margin, RAMP, out)
    else:
        _potential(
            x, y, coast, squares, sq, blocks, bl, merged, seeds, K, margin, RAMP, out
        )  # fmt: skip
    return out


# mean_bias of the presets' (land_fraction, roughness): the search costs
# about 0.1 s of CPU in every process that opens such a world, for the same
# answer each time (a test holds these to the search).
_KNOWN_BIASES = {(0.2, 1.0): -0.548782, (0.15, 1.8): -1.041702}


@functools.lru_cache(maxsize=64)
def mean_bias(land_fraction: float, roughness: float) -> float:
    """The regions' mean bias that makes ``land_fraction`` of the world land:
    found by bisection (between -4 and 2) on the land of 32 x 32 squares of a
    fixed seed, sampled every sixteenth of a square. Above about 0.35 the
    largest landmasses reach their regions' margins and the fraction stops
    growing."""
    known = _KNOWN_BIASES.get((land_fraction, roughness))
    return _search_bias(land_fraction, roughness) if known is None else known


def _search_bias(land_fraction: float, roughness: float) -> float:
    config = WorldConfig(seed=0xCA11B8, roughness=roughness)
    spacing = config.continent_size / 16.0
    axis = (np.arange(-256, 256) + 0.5) * spacing
    xs = np.broadcast_to(axis[None, :], (axis.size, axis.size)).ravel()
    ys = np.broadcast_to(axis[:, None], (axis.size, axis.size)).ravel()
    coast = coast_values(
        config, lambda n: n.grid(config.seed, axis, axis, spacing, split=False).ravel()
    )
    wx, wy = (
        WARP * n.grid(config.seed, axis, axis, spacing, split=False).ravel()
        for n in warp_noises(config)
    )
    lo, hi = OFFSET_MIN, OFFSET_MAX
    for _ in range(16):
        mid = 0.5 * (lo + hi)
        land = float((continentalness(config, xs, ys, coast, (wx, wy), mid) >= 0.0).mean())
        lo, hi = (mid, hi) if land < land_fraction else (lo, mid)
    return round(0.5 * (lo + hi), 6)
