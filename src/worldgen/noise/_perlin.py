"""Improved Perlin noise kernels, 1D to 4D, at points and along grid rows.

Construction (Ken Perlin, "Improving Noise", SIGGRAPH 2002, with the 2003
gradient fix): a doubled permutation table ``p`` hashes the lattice corners
by nesting, ``p[p[p[X] + Y] + Z]``; each corner's hash picks a gradient whose
dot product with the offset to the corner is a signed sum of coordinates (no
multiplication, so it is exact); the corner values are blended with
``lerp(fade(t), a, b)``, ``fade(t) = 6t^5 - 15t^4 + 10t^3``.

Gradient sets:

- 1D: 16 slopes, ``+-(1 + (h & 7)) / 4`` (0.25 to 2.0, sign from bit 3).
- 2D: 8 directions, ``h & 7``: the diagonals (+-1, +-1) for 0-3 (x sign
  from bit 0, y sign from bit 1), then (1, 0), (-1, 0), (0, 1), (0, -1).
- 3D: Perlin's 12 cube edges padded to 16, ``h & 15``, exactly as his
  reference ``grad``.
- 4D: the 32 edges of the tesseract, ``h & 31``: one axis is zero
  (``h >> 3``: x, y, z or w) and the other three are +-1, their signs from
  bits 0, 1 and 2 in axis order. The three terms are summed in the order
  y, z, w and the x term is added last.

The grid-row kernels rely on one structure: along a row, every sample in a
lattice cell shares the cell's corner hashes, so each corner's dot product is
``c + k * X`` with ``c`` and ``k`` fixed for the run and ``X`` the sample's
offset along x. ``k`` is +-1, or a signed zero chosen so that ``k * X`` is
-0.0 (then ``c + k * X`` is ``c`` bit for bit, signed zeros included). The
inner loop then vectorises and stays exact: it performs the very operations
of the point kernel, in the same order.
"""

from __future__ import annotations

import numpy as np

from worldgen._jit import inlined_kernel, kernel
from worldgen.noise._lattice import cells, fade, lerp, wrapped_cells

# The gradient functions pick their terms with selects and take signs from
# products with +-1.0 (exact, signed zeros included) rather than branching
# on the hash, which is random from one sample to the next: a branch on it
# is mispredicted half the time. Each returns, bit for bit, the signed sum
# the gradient sets above state, in their order.


@kernel
def _sign(bit):
    # +1.0 for a clear bit, -1.0 for a set one.
    return 1.0 - 2.0 * np.float64(bit != 0)


@kernel
def grad1(h, x):
    h = np.int64(h) & 15
    return (((h & 7) + 1) * 0.25 * _sign(h & 8)) * x


@kernel
def grad2(h, x, y):
    h = np.int64(h) & 7
    # Hashes 0-3: (+-x) + (+-y); 4, 5: +-x; 6, 7: +-y.
    first = _sign(h & 1) * (x if h < 6 else y)
    both = first + _sign(h & 2) * y
    return both if h < 4 else first


@kernel
def grad3(h, x, y, z):
    h = np.int64(h) & 15
    u = x if h < 8 else y
    v = y if h < 4 else (x if (h == 12) | (h == 14) else z)
    return _sign(h & 1) * u + _sign(h & 2) * v


# grad4 as (a + b) + c, and for each hash the sign of each term. By the zero
# axis: 0 -> (y, z, w), 1 -> (z, w, x), 2 -> (y, w, x), 3 -> (y, z, x); the
# x term, when there is one, takes sign bit 0 and comes last.
_SIGNS4 = np.array(
    [
        [1.0 - 2.0 * ((h >> (0 if h >> 3 == 0 else 1)) & 1) for h in range(32)],
        [1.0 - 2.0 * ((h >> (1 if h >> 3 == 0 else 2)) & 1) for h in range(32)],
        [1.0 - 2.0 * ((h >> (2 if h >> 3 == 0 else 0)) & 1) for h in range(32)],
    ]
)


@kernel
def grad4(h, x, y, z, w):
    h = np.int64(h) & 31
    zero = h >> 3
    a = z if zero == 1 else y
    b = w if (zero == 1) | (zero == 2) else z
    c = w if zero == 0 else x
    return (_SIGNS4[0, h] * a + _SIGNS4[1, h] * b) + _SIGNS4[2, h] * c


# --- gradients as tables ------------------------------------------------------
#
# The kernels below never branch on a hash: on scattered points hashes are
# random, and a branch on them is mispredicted about half the time. Instead,
# the dot product of a gradient with a corner's offset is a sum of products
# of the offset's components with per-hash coefficients from a table.
#
# Exactness: every gradient's dot product is a signed sum of some of the
# offset's components (the ``grad`` functions above). A component the
# gradient lacks gets a coefficient of zero, signed so that the product is
# -0.0: a corner's offset is >= +0.0 on its low side of the cell and < 0 on
# its high side, so the table has a row per side. Adding -0.0 changes no
# value, signed zeros included, so the sum equals the ``grad`` function bit
# for bit, provided the terms that remain are added in its order (for 2D and
# 3D two terms, where order does not matter; for 4D y, z, w, then x).

# Slopes k of the x term for 2D hashes 0-7, at a corner on the low x side
# (offset X >= 0, row 0) and the high side (X < 0, row 1); a zero carries
# the sign that makes k * X equal -0.0, and -0.0 + t is t bit for bit.
_K2 = np.array(
    [
        [1.0, -1.0, 1.0, -1.0, 1.0, -1.0, -0.0, -0.0],
        [1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.0, 0.0],
    ]
)


# The x-free part of grad2(h, X, y) is s * y with s from this table: row 0
# for a corner on the low y side (y >= 0), row 1 for the high side (y < 0).
# Where the gradient has no y part, s is the signed zero that makes s * y
# equal -0.0, so that -0.0 + k * X is k * X exactly.
_S2 = np.array(
    [
        [1.0, 1.0, -1.0, -1.0, -0.0, -0.0, 1.0, -1.0],
        [1.0, 1.0, -1.0, -1.0, 0.0, 0.0, 1.0, -1.0],
    ]
)


# Slopes of the x term for 3D hashes 0-15 (zeros as in _K2).
_K3 = np.array(
    [
        [1, -1, 1, -1, 1, -1, 1, -1, -0.0, -0.0, -0.0, -0.0, 1, -0.0, -1, -0.0],
        [1, -1, 1, -1, 1, -1, 1, -1, 0.0, 0.0, 0.0, 0.0, 1, 0.0, -1, 0.0],
    ],
    dtype=np.float64,
)


# The x-free part of grad3(h, X, y, z) is sy * y + sz * z with signs from
# these tables (rows as in _S2: 0 for y, z >= 0, 1 for y, z < 0); a missing
# term gets the signed zero that makes its product -0.0, which leaves the
# other term exact.
_SY3 = np.array(
    [
        [1, 1, -1, -1, -0.0, -0.0, -0.0, -0.0, 1, -1, 1, -1, 1, -1, 1, -1],
        [1, 1, -1, -1, 0.0, 0.0, 0.0, 0.0, 1, -1, 1, -1, 1, -1, 1, -1],
    ],
    dtype=np.float64,
)
_SZ3 = np.array(
    [
        [-0.0, -0.0, -0.0, -0.0, 1, 1, -1, -1, 1, 1, -1, -1, -0.0, 1, -0.0, -1],
        [0.0, 0.0, 0.0, 0.0, 1, 1, -1, -1, 1, 1, -1, -1, 0.0, 1, 0.0, -1],
    ],
    dtype=np.float64,
)


def _gradient_table4() -> np.ndarray:
    # [axis, side, hash]: grad4's coefficient of axis x, y, z or w.
    table = np.empty((4, 2, 32))
    for h in range(32):
        bit = 0
        for axis in range(4):
            if axis == h >> 3:
                table[axis, :, h] = (-0.0, 0.0)
            else:
                table[axis, :, h] = -1.0 if (h >> bit) & 1 else 1.0
                bit += 1
    return table


_G4 = _gradient_table4()


@kernel
def dot2(h, x, y, sx, sy):
    """grad2(h, x, y) for a corner on side ``sx``/``sy`` (0 low, 1 high)."""
    h = np.int64(h) & 7
    return _S2[sy, h] * y + _K2[sx, h] * x


@kernel
def dot3(h, x, y, z, sx, sy, sz):
    """grad3(h, x, y, z) for a corner on the given sides."""
    h = np.int64(h) & 15
    return (_SY3[sy, h] * y + _SZ3[sz, h] * z) + _K3[sx, h] * x


@kernel
def dot4(h, x, y, z, w, sx, sy, sz, sw):
    """grad4(h, x, y, z, w) for a corner on the given sides."""
    h = np.int64(h) & 31
    return ((_G4[1, sy, h] * y + _G4[2, sz, h] * z) + _G4[3, sw, h] * w) + _G4[0, sx, h] * x


@kernel
def perlin1(p, period, x):
    x, x0, x1 = cells(x, period[0])
    return lerp(fade(x), grad1(p[x0], x), grad1(p[x1], x - 1.0))


@kernel
def perlin2(p, period, x, y):
    x, x0, x1 = cells(x, period[0])
    y, y0, y1 = cells(y, period[1])
    return _perlin2_at(p, x, x0, x1, y, y0, y1)


@kernel
def perlin2_wrapped(p, x, y):
    """:func:`perlin2` with a period that is a multiple of 256 on each axis,
    at coordinates of magnitude below ``WRAPPED_LIMIT`` (see
    :func:`~worldgen.noise._lattice.wrapped_cells`): the same value."""
    x, x0, x1 = wrapped_cells(x)
    y, y0, y1 = wrapped_cells(y)
    return _perlin2_at(p, x, x0, x1, y, y0, y1)


@inlined_kernel
def _perlin2_at(p, x, x0, x1, y, y0, y1):
    # Perlin's 2D noise from the offsets in the cell and its corners' indices.
    u = fade(x)
    v = fade(y)
    a0 = p[x0]
    a1 = p[x1]
    xm = x - 1.0
    ym = y - 1.0
    return lerp(
        v,
        lerp(u, dot2(p[a0 + y0], x, y, 0, 0), dot2(p[a1 + y0], xm, y, 1, 0)),
        lerp(u, dot2(p[a0 + y1], x, ym, 0, 1), dot2(p[a1 + y1], xm, ym, 1, 1)),
    )


@kernel
def perlin3(p, period, x, y, z):
    x, x0, x1 = cells(x, period[0])
    y, y0, y1 = cells(y, period[1])
    z, z0, z1 = cells(z, period[2])
    return _perlin3_at(p, x, x0, x1, y, y0, y1, z, z0, z1)


@kernel
def perlin3_wrapped(p, x, y, z):
    """:func:`perlin3` with a period that is a multiple of 256 on each axis,
    at coordinates of magnitude below ``WRAPPED_LIMIT``: the same value."""
    x, x0, x1 = wrapped_cells(x)
    y, y0, y1 = wrapped_cells(y)
    z, z0, z1 = wrapped_cells(z)
    return _perlin3_at(p, x, x0, x1, y, y0, y1, z, z0, z1)


@inlined_kernel
def _perlin3_at(p, x, x0, x1, y, y0, y1, z, z0, z1):
    # Perlin's 3D noise from the offsets in the cell and its corners' indices.
    u = fade(x)
    v = fade(y)
    w = fade(z)
    a0 = p[x0]
    a1 = p[x1]
    b00 = p[a0 + y0]
    b10 = p[a1 + y0]
    b01 = p[a0 + y1]
    b11 = p[a1 + y1]
    xm = x - 1.0
    ym = y - 1.0
    zm = z - 1.0
    return lerp(
        w,
        lerp(
            v,
            lerp(u, dot3(p[b00 + z0], x, y, z, 0, 0, 0), dot3(p[b10 + z0], xm, y, z, 1, 0, 0)),
            lerp(u, dot3(p[b01 + z0], x, ym, z, 0, 1, 0), dot3(p[b11 + z0], xm, ym, z, 1, 1, 0)),
        ),
        lerp(
            v,
            lerp(u, dot3(p[b00 + z1], x, y, zm, 0, 0, 1), dot3(p[b10 + z1], xm, y, zm, 1, 0, 1)),
            lerp(u, dot3(p[b01 + z1], x, ym, zm, 0, 1, 1), dot3(p[b11 + z1], xm, ym, zm, 1, 1, 1)),
        ),
    )


@kernel
def _perlin4_cube(c0, c1, x, xm, y, ym, z, zm, w, sw, u, v, t):
    # Trilinear blend of the 8 corners at one w level (side sw). c0 and c1
    # hold the corner hashes for x0 and x1, ordered (y0 z0, y1 z0, y0 z1, y1 z1).
    return lerp(
        t,
        lerp(
            v,
            lerp(u, dot4(c0[0], x, y, z, w, 0, 0, 0, sw), dot4(c1[0], xm, y, z, w, 1, 0, 0, sw)),
            lerp(u, dot4(c0[1], x, ym, z, w, 0, 1, 0, sw), dot4(c1[1], xm, ym, z, w, 1, 1, 0, sw)),
        ),
        lerp(
            v,
            lerp(u, dot4(c0[2], x, y, zm, w, 0, 0, 1, sw), dot4(c1[2], xm, y, zm, w, 1, 0, 1, sw)),
            lerp(
                u,
                dot4(c0[3], x, ym, zm, w, 0, 1, 1, sw),
                dot4(c1[3], xm, ym, zm, w, 1, 1, 1, sw),
            ),
        ),
    )


@kernel
def perlin4(p, period, x, y, z, w):
    x, x0, x1 = cells(x, period[0])
    y, y0, y1 = cells(y, period[1])
    z, z0, z1 = cells(z, period[2])
    w, w0, w1 = cells(w, period[3])
    u = fade(x)
    v = fade(y)
    t = fade(z)
    s = fade(w)
    a0 = p[x0]
    a1 = p[x1]
    b0 = (p[p[a0 + y0] + z0], p[p[a0 + y1] + z0], p[p[a0 + y0] + z1], p[p[a0 + y1] + z1])
    b1 = (p[p[a1 + y0] + z0], p[p[a1 + y1] + z0], p[p[a1 + y0] + z1], p[p[a1 + y1] + z1])
    lo0 = (p[b0[0] + w0], p[b0[1] + w0], p[b0[2] + w0], p[b0[3] + w0])
    lo1 = (p[b1[0] + w0], p[b1[1] + w0], p[b1[2] + w0], p[b1[3] + w0])
    hi0 = (p[b0[0] + w1], p[b0[1] + w1], p[b0[2] + w1], p[b0[3] + w1])
    hi1 = (p[b1[0] + w1], p[b1[1] + w1], p[b1[2] + w1], p[b1[3] + w1])
    xm = x - 1.0
    ym = y - 1.0
    zm = z - 1.0
    return lerp(
        s,
        _perlin4_cube(lo0, lo1, x, xm, y, ym, z, zm, w, 0, u, v, t),
        _perlin4_cube(hi0, hi1, x, xm, y, ym, z, zm, w - 1.0, 1, u, v, t),
    )


# --- grid rows -------------------------------------------------------------
#
# A grid is evaluated row by row along x. The x axis is prepared once per
# grid (see ``axis_table``): ``fx`` holds (offset, offset - 1, fade) per
# sample, ``ax`` the hashes ``p[cell0]`` and ``p[cell1]``, and ``runs`` the
# starts of runs of samples in the same cell. Consecutive rows that share
# their y (and z) cells form a block; ``*_setup`` computes, once per block,
# each run's corner hashes (as indices into the row's constant table) and
# x slopes; ``*_row`` then only looks up the constants of its own y (and z)
# and runs a vectorised loop over each run.

# Tables of x blends kept per offset class path (see perlin2_rows); the
# scratch space must hold CLASS_TABLES * 128 * (most offset classes) floats.
CLASS_TABLES = 4

# Below this mean run length the per-run set-up costs more than it saves,
# and the ``*_row_short`` kernels, one scalar loop over all samples that
# hashes as it goes, are used instead.
SHORT_RUN = 4

# Below this mean run length (or on rows at most LATTICE_WIDTH long, where
# the per-run set-up of perlin2_row weighs more), and when rows change
# lattice row less often than LATTICE_ROWS, rows are built from
# per-lattice-row terms (perlin2_rows_terms). On longer rows with longer
# runs, the per-run constants of perlin2_row read less memory.
LATTICE_RUN = 12
LATTICE_ROWS = 0.75
LATTICE_WIDTH = 320


@kernel
def _row_constants2(fy, fym, out):
    # out[8 q + h] = the x-free part of grad2(h, X, y) for the low (q = 0)
    # and high (q = 1) corners: one product, so the loop vectorises.
    for h in range(8):
        out[h] = _S2[0, h] * fy
        out[8 + h] = _S2[1, h] * fym


@kernel
def _blend2(x0, x1, u, v, g):
    # g: the 4 corner (c, k) pairs as a flat tuple, corners ordered
    # x0 y0, x1 y0, x0 y1, x1 y1; the order of perlin2's lerps.
    g00 = g[0] + g[1] * x0
    g10 = g[2] + g[3] * x1
    g01 = g[4] + g[5] * x0
    g11 = g[6] + g[7] * x1
    a = g00 + u * (g10 - g00)
    b = g01 + u * (g11 - g01)
    return a + v * (b - a)


@kernel
def perlin2_setup(p, ax, runs, y0, y1, hashes, slopes):
    """Corner data of every run for a block of rows in cells ``y0``/``y1``.

    ``hashes[r]`` indexes the 16-entry constant table of :func:`perlin2_row`
    for corners (x0 y0, x1 y0, x0 y1, x1 y1); ``slopes[r]`` are their k.
    """
    seven = np.uint64(7)
    eight = np.uint64(8)
    a0s = ax[0]
    a1s = ax[1]
    for r in range(runs.size - 1):
        s = runs[r]
        h00 = p[a0s[s] + y0] & seven
        h10 = p[a1s[s] + y0] & seven
        h01 = p[a0s[s] + y1] & seven
        h11 = p[a1s[s] + y1] & seven
        hashes[r, 0] = h00
        hashes[r, 1] = h10
        hashes[r, 2] = h01 + eight
        hashes[r, 3] = h11 + eight
        slopes[r, 0] = _K2[0, h00]
        slopes[r, 1] = _K2[1, h10]
        slopes[r, 2] = _K2[0, h01]
        slopes[r, 3] = _K2[1, h11]


@kernel
def perlin2_row(hashes, slopes, fx, runs, fy, fym, v, scratch, out):
    """``out[i] = perlin2(x[i], y)`` along one row of a block.

    ``fy, fym, v`` are the row's offset, offset - 1 and fade; ``scratch``
    holds at least 16 floats.
    """
    c = scratch[:16]
    _row_constants2(fy, fym, c)
    # One-dimensional views keep the loops free of index checks, which is
    # what lets the inner loop vectorise.
    frac0 = fx[0]
    frac1 = fx[1]
    fades = fx[2]
    for r in range(runs.size - 1):
        s = runs[r]
        e = runs[r + 1]
        h = hashes[r]
        k = slopes[r]
        g = (c[h[0]], k[0], c[h[1]], k[1], c[h[2]], k[2], c[h[3]], k[3])
        x0s = frac0[s:e]
        x1s = frac1[s:e]
        us = fades[s:e]
        o = out[s:e]
        for i in range(e - s):
            o[i] = _blend2(x0s[i], x1s[i], us[i], v, g)


@kernel
def _row_constants3(fy, fym, fz, fzm, out):
    # out[16 q + h] for the four (y, z) corner sides q = y side + 2 z side.
    for h in range(16):
        out[h] = _SY3[0, h] * fy + _SZ3[0, h] * fz
        out[16 + h] = _SY3[1, h] * fym + _SZ3[0, h] * fz
        out[32 + h] = _SY3[0, h] * fy + _SZ3[1, h] * fzm
        out[48 + h] = _SY3[1, h] * fym + _SZ3[1, h] * fzm


@kernel
def perlin3_setup(p, ax, runs, y0, y1, z0, z1, hashes, slopes):
    """Corner data of every run for a block of rows in cells y0/y1, z0/z1.

    Corners are ordered 000 100 010 110 001 101 011 111 (x fastest);
    ``hashes[r]`` indexes the 64-entry constant table of :func:`perlin3_row`.
    """
    fifteen = np.uint64(15)
    a0s = ax[0]
    a1s = ax[1]
    for r in range(runs.size - 1):
        s = runs[r]
        a0 = a0s[s]
        a1 = a1s[s]
        b00 = p[a0 + y0]
        b10 = p[a1 + y0]
        b01 = p[a0 + y1]
        b11 = p[a1 + y1]
        hs = (
            p[b00 + z0] & fifteen, p[b10 + z0] & fifteen,
            p[b01 + z0] & fifteen, p[b11 + z0] & fifteen,
            p[b00 + z1] & fifteen, p[b10 + z1] & fifteen,
            p[b01 + z1] & fifteen, p[b11 + z1] & fifteen,
        )  # fmt: skip
        for q in range(8):
            hashes[r, q] = hs[q] + np.uint64(16 * (q >> 1))
            slopes[r, q] = _K3[q & 1, hs[q]]


@kernel
def _blend3(x0, x1, u, v, w, g):
    # g: the 8 corner (c, k) pairs as a flat tuple, corners ordered
    # 000 100 010 110 001 101 011 111 (x fastest).
    g000 = g[0] + g[1] * x0
    g100 = g[2] + g[3] * x1
    g010 = g[4] + g[5] * x0
    g110 = g[6] + g[7] * x1
    g001 = g[8] + g[9] * x0
    g101 = g[10] + g[11] * x1
    g011 = g[12] + g[13] * x0
    g111 = g[14] + g[15] * x1
    a00 = g000 + u * (g100 - g000)
    a10 = g010 + u * (g110 - g010)
    a01 = g001 + u * (g101 - g001)
    a11 = g011 + u * (g111 - g011)
    b0 = a00 + v * (a10 - a00)
    b1 = a01 + v * (a11 - a01)
    return b0 + w * (b1 - b0)


@kernel
def perlin3_row(hashes, slopes, fx, runs, fy, fym, v, fz, fzm, w, scratch, out):
    """``out[i] = perlin3(x[i], y, z)`` along one row of a block.

    ``fy, fym, v`` and ``fz, fzm, w`` are the row's offsets, offsets - 1 and
    fades; ``scratch`` holds at least 64 floats.
    """
    c = scratch[:64]
    _row_constants3(fy, fym, fz, fzm, c)
    frac0 = fx[0]
    frac1 = fx[1]
    fades = fx[2]
    for r in range(runs.size - 1):
        s = runs[r]
        e = runs[r + 1]
        h = hashes[r]
        k = slopes[r]
        g = (
            c[h[0]], k[0], c[h[1]], k[1], c[h[2]], k[2], c[h[3]], k[3],
            c[h[4]], k[4], c[h[5]], k[5], c[h[6]], k[6], c[h[7]], k[7],
        )  # fmt: skip
        x0s = frac0[s:e]
        x1s = frac1[s:e]
        us = fades[s:e]
        o = out[s:e]
        for i in range(e - s):
            o[i] = _blend3(x0s[i], x1s[i], us[i], v, w, g)


@kernel
def perlin2_row_short(p, fx, ax, y0, y1, fy, fym, v, scratch, out):
    """``out[i] = perlin2(x[i], y)`` for rows whose cells hold few samples."""
    c = scratch[:16]
    _row_constants2(fy, fym, c)
    k0 = _K2[0]
    k1 = _K2[1]
    frac0 = fx[0]
    frac1 = fx[1]
    fades = fx[2]
    a0s = ax[0]
    a1s = ax[1]
    seven = np.uint64(7)
    eight = np.uint64(8)
    for i in range(out.size):
        a0 = a0s[i]
        a1 = a1s[i]
        h00 = p[a0 + y0] & seven
        h10 = p[a1 + y0] & seven
        h01 = p[a0 + y1] & seven
        h11 = p[a1 + y1] & seven
        g = (
            c[h00], k0[h00], c[h10], k1[h10],
            c[h01 + eight], k0[h01], c[h11 + eight], k1[h11],
        )  # fmt: skip
        out[i] = _blend2(frac0[i], frac1[i], fades[i], v, g)


@kernel
def perlin3_row_short(p, fx, ax, y0, y1, z0, z1, fy, fym, v, fz, fzm, w, scratch, out):
    """``out[i] = perlin3(x[i], y, z)`` for rows whose cells hold few samples."""
    c = scratch[:64]
    _row_constants3(fy, fym, fz, fzm, c)
    k0 = _K3[0]
    k1 = _K3[1]
    frac0 = fx[0]
    frac1 = fx[1]
    fades = fx[2]
    a0s = ax[0]
    a1s = ax[1]
    fifteen = np.uint64(15)
    sixteen = np.uint64(16)
    for i in range(out.size):
        a0 = a0s[i]
        a1 = a1s[i]
        b00 = p[a0 + y0]
        b10 = p[a1 + y0]
        b01 = p[a0 + y1]
        b11 = p[a1 + y1]
        h000 = p[b00 + z0] & fifteen
        h100 = p[b10 + z0] & fifteen
        h010 = p[b01 + z0] & fifteen
        h110 = p[b11 + z0] & fifteen
        h001 = p[b00 + z1] & fifteen
        h101 = p[b10 + z1] & fifteen
        h011 = p[b01 + z1] & fifteen
        h111 = p[b11 + z1] & fifteen
        g = (
            c[h000], k0[h000], c[h100], k1[h100],
            c[h010 + sixteen], k0[h010], c[h110 + sixteen], k1[h110],
            c[h001 + 2 * sixteen], k0[h001], c[h101 + 2 * sixteen], k1[h101],
            c[h011 + 3 * sixteen], k0[h011], c[h111 + 3 * sixteen], k1[h111],
        )  # fmt: skip
        out[i] = _blend3(frac0[i], frac1[i], fades[i], v, w, g)


@kernel
def _class_table(fx, representatives, count, fy, fym, table):
    # table[128 q + 8 h0 + h1] (and + 64 for the high y corners): the x
    # blend of a row with y offsets (fy, fym), for x offset class q and
    # corner hashes h0 (low x), h1 (high x); the very values perlin2_row
    # computes on the way.
    c = np.empty(16)
    _row_constants2(fy, fym, c)
    frac0 = fx[0]
    frac1 = fx[1]
    fades = fx[2]
    for q in range(count):
        i = representatives[q]
        x0 = frac0[i]
        x1 = frac1[i]
        u = fades[i]
        for h0 in range(8):
            g00 = c[h0] + _K2[0, h0] * x0
            g01 = c[8 + h0] + _K2[0, h0] * x0
            for h1 in range(8):
                g10 = c[h1] + _K2[1, h1] * x1
                g11 = c[8 + h1] + _K2[1, h1] * x1
                table[128 * q + 8 * h0 + h1] = g00 + u * (g10 - g00)
                table[128 * q + 64 + 8 * h0 + h1] = g01 + u * (g11 - g01)


@kernel
def _hash_index(p, ax, cell, out):
    # out[i] = 8 h(x0_i, cell) + h(x1_i, cell): the 2D corner hashes of
    # sample i's two x corners on lattice row ``cell``, packed.
    a0s = ax[0]
    a1s = ax[1]
    seven = np.uint64(7)
    eight = np.uint64(8)
    for i in range(out.size):
        out[i] = eight * (p[a0s[i] + cell] & seven) + (p[a1s[i] + cell] & seven)


@kernel
def perlin2_row_classes(classes, table, low, high, v, out):
    """``out[i] = perlin2(x[i], y)`` from a :func:`_class_table` of the row's
    y offsets and the packed corner hashes (``_hash_index``) of its two
    lattice rows: two look-ups and the y blend per sample."""
    size = np.uint64(128)
    half = np.uint64(64)
    for i in range(out.size):
        base = size * np.uint64(classes[i])
        a = table[base + low[i]]
        b = table[base + half + high[i]]
        out[i] = a + v * (b - a)


@kernel
def _slope2(h, side):
    # _K2[side, h] as arithmetic, so that a loop over samples vectorises.
    zero = -0.0 if side == 0 else 0.0
    return (1.0 - 2.0 * np.float64(h & 1)) if h < 6 else zero


@kernel
def _sign2(h, side):
    # _S2[side, h] as arithmetic.
    zero = -0.0 if side == 0 else 0.0
    if h < 4:
        return 1.0 - 2.0 * np.float64((h >> 1) & 1)
    return zero if h < 6 else 1.0 - 2.0 * np.float64(h & 1)


@kernel
def _lattice_slot(held, cy, j, which):
    """Which of two kept lattice rows serves side ``which`` (0 low, 1 high)
    of grid row ``j``, and whether it must be computed into that slot.

    ``held`` names the lattice rows kept; a new one replaces the one that
    row ``j``'s other side does not use (rows in one cell share both; the
    next cell's low row is this one's high).
    """
    cell = np.int64(cy[which, j])
    if held[0] == cell:
        return 0, False
    if held[1] == cell:
        return 1, False
    at = 1 if held[0] == np.int64(cy[1 - which, j]) else 0
    held[at] = cell
    return at, True


@kernel
def perlin2_rows_classes(
    p, fx, ax, fy, cy, j0, j1, hashes, scratch, target, first, classes, reps, count
):  # fmt: skip
    """Rows ``j0:j1`` of a 2D grid into ``target[j - first]``, for an x
    axis of fewer than SHORT_RUN samples a cell that takes few offsets in
    its cells: ``classes, reps, count`` are its ``offset_classes`` (count
    > 0); otherwise as :func:`perlin2_rows`.

    Apart from perlin2_rows so that it is compiled only into the grid
    drivers of grids that may use it (see ``worldgen.noise._sampling``):
    it costs seconds of a first run.
    """
    width = fx.shape[1]
    # Tables depend on the row's y offset only, and on such grids rows
    # take few y offsets: keep the last CLASS_TABLES. Packed corner
    # hashes depend on the lattice row only: keep the last two (rows in
    # one cell share both; the next cell's low row is this one's high).
    size = 128 * count
    keys = np.full(CLASS_TABLES, np.nan)
    slot = 0
    packed = hashes.reshape(-1)
    held = np.array([-1, -1], dtype=np.int64)
    for j in range(j0, j1):
        found = -1
        for t in range(CLASS_TABLES):
            if keys[t] == fy[0, j]:
                found = t
        if found < 0:
            found = slot
            slot = (slot + 1) % CLASS_TABLES
            keys[found] = fy[0, j]
            _class_table(
                fx, reps, count, fy[0, j], fy[1, j], scratch[found * size : (found + 1) * size]
            )
        low, fresh = _lattice_slot(held, cy, j, 0)
        if fresh:
            _hash_index(p, ax, cy[0, j], packed[low * width : (low + 1) * width])
        high, fresh = _lattice_slot(held, cy, j, 1)
        if fresh:
            _hash_index(p, ax, cy[1, j], packed[high * width : (high + 1) * width])
        perlin2_row_classes(
            classes, scratch[found * size : (found + 1) * size],
            packed[low * width : (low + 1) * width],
            packed[high * width : (high + 1) * width],
            fy[2, j], target[j - first],
        )  # fmt: skip


@kernel
def perlin2_rows(
    p, fx, ax, runs, fy, cy, j0, j1, hashes, slopes, codes, terms, scratch, target, first
):
    """Rows ``j0:j1`` of a 2D grid into ``target[j - first]``.

    ``fx, ax, runs`` describe the x axis and ``fy, cy`` the y axis (see
    ``axis_table``); ``hashes``/``slopes`` hold one entry per run.
    """
    width = fx.shape[1]
    changes = 0
    for j in range(j0 + 1, j1):
        changes += cy[0, j] != cy[0, j - 1]
    few = width < LATTICE_RUN * (runs.size - 1) or width <= LATTICE_WIDTH
    if few and changes < LATTICE_ROWS * (j1 - j0):
        perlin2_rows_terms(p, fx, ax, fy, cy, j0, j1, codes, terms, target, first)
        return
    if fx.shape[1] < SHORT_RUN * (runs.size - 1):
        for j in range(j0, j1):
            perlin2_row_short(
                p,
                fx,
                ax,
                cy[0, j],
                cy[1, j],
                fy[0, j],
                fy[1, j],
                fy[2, j],
                scratch,
                target[j - first],
            )
        return
    for j in range(j0, j1):
        if j == j0 or cy[0, j] != cy[0, j - 1] or cy[1, j] != cy[1, j - 1]:
            perlin2_setup(p, ax, runs, cy[0, j], cy[1, j], hashes, slopes)
        perlin2_row(
            hashes, slopes, fx, runs, fy[0, j], fy[1, j], fy[2, j], scratch, target[j - first]
        )


@kernel
def perlin3_rows(
    p, fx, ax, runs, fy, cy, fz, cz, r0, r1, height, hashes, slopes, scratch, target, first
):
    """Flattened (z, y) rows ``r0:r1`` of a 3D grid into ``target[r - first]``."""
    short = fx.shape[1] < SHORT_RUN * (runs.size - 1)
    for r in range(r0, r1):
        k = r // height
        j = r - k * height
        t = target[r - first]
        if short:
            perlin3_row_short(
                p, fx, ax, cy[0, j], cy[1, j], cz[0, k], cz[1, k],
                fy[0, j], fy[1, j], fy[2, j], fz[0, k], fz[1, k], fz[2, k], scratch, t,
            )  # fmt: skip
            continue
        pk = (r - 1) // height
        pj = r - 1 - pk * height
        if (
            r == r0 or cy[0, j] != cy[0, pj] or cy[1, j] != cy[1, pj]
            or cz[0, k] != cz[0, pk] or cz[1, k] != cz[1, pk]
        ):  # fmt: skip
            perlin3_setup(p, ax, runs, cy[0, j], cy[1, j], cz[0, k], cz[1, k], hashes, slopes)
        perlin3_row(
            hashes,
            slopes,
            fx,
            runs,
            fy[0, j],
            fy[1, j],
            fy[2, j],
            fz[0, k],
            fz[1, k],
            fz[2, k],
            scratch,
            t,
        )


# --- 2D grid rows from lattice-row terms ---------------------------------------
#
# In 2D the corner hashes of a sample depend on its column and on one lattice
# row: every grid row between two lattice rows shares them, and a lattice row
# is the high side of one row of cells and the low side of the next. So the
# gradient terms that do not depend on the grid row are made once per lattice
# row and column: the gradient's y coefficient s and its x term k * X. A grid
# row then costs, per sample and corner, one product and one sum, ``s * y + k
# X``, which is perlin2's dot2 operation for operation (the same bits); the
# loop reads only arrays and vectorises, whatever the number of samples per
# lattice cell.

TERMS2 = 6  # arrays of lattice_terms2


@kernel
def lattice_terms2(p, frac0, frac1, a0s, a1s, cell, hashes, out):
    """The terms of lattice row ``cell`` for the columns whose offsets are
    ``frac0, frac1`` and first-level hashes ``a0s, a1s`` (``out``: shape
    ``(TERMS2, >= columns)``): for the corner at the column's low x, the y
    coefficient of its gradient when the lattice row is the low side of a
    cell (``out[0]``) and when it is the high side (``out[1]``), and its x
    term ``k * X`` (``out[2]``); ``out[3:6]`` the same for the high x
    corner. The two y coefficients differ only in the sign of a zero (see
    ``_S2``). ``hashes`` (``(2, >= columns)`` uint8) is scratch space."""
    # The hash look-ups keep their loop scalar; the terms are then made by
    # arithmetic on the hashes in a loop that vectorises (a select on a
    # random hash in the scalar loop would be a mispredicted branch).
    n = frac0.size
    h0s = hashes[0][:n]
    h1s = hashes[1][:n]
    seven = np.uint64(7)
    for i in range(n):
        h0s[i] = p[a0s[i] + cell] & seven
        h1s[i] = p[a1s[i] + cell] & seven
    low0 = out[0][:n]
    high0 = out[1][:n]
    term0 = out[2][:n]
    low1 = out[3][:n]
    high1 = out[4][:n]
    term1 = out[5][:n]
    for i in range(n):
        h0 = np.int64(h0s[i])
        h1 = np.int64(h1s[i])
        low0[i] = _sign2(h0, 0)
        high0[i] = _sign2(h0, 1)
        term0[i] = _slope2(h0, 0) * frac0[i]
        low1[i] = _sign2(h1, 0)
        high1[i] = _sign2(h1, 1)
        term1[i] = _slope2(h1, 1) * frac1[i]


@kernel
def perlin2_row_terms(low, high, fades, fy, fym, v, out):
    """``out[i] = perlin2(x[i], y)`` from the :func:`lattice_terms2` of the
    row's low and high lattice rows; ``fy, fym, v`` are the row's offset,
    offset - 1 and fade. The operations of perlin2, in its order."""
    n = out.size
    s00 = low[0][:n]
    k00 = low[2][:n]
    s10 = low[3][:n]
    k10 = low[5][:n]
    s01 = high[1][:n]
    k01 = high[2][:n]
    s11 = high[4][:n]
    k11 = high[5][:n]
    for i in range(n):
        g00 = s00[i] * fy + k00[i]
        g10 = s10[i] * fy + k10[i]
        g01 = s01[i] * fym + k01[i]
        g11 = s11[i] * fym + k11[i]
        u = fades[i]
        a = g00 + u * (g10 - g00)
        b = g01 + u * (g11 - g01)
        out[i] = a + v * (b - a)


# Columns processed together by perlin2_rows_terms: their terms (two lattice
# rows of TERMS2 arrays) and a row's fades and output stay in the L1 cache.
# The arrays of terms lie TERM_STRIDE floats apart, not a power of two, so
# that they do not compete for the same few sets of the cache.
TERM_COLUMNS = 256
TERM_STRIDE = TERM_COLUMNS + 8


@kernel
def perlin2_rows_terms(p, fx, ax, fy, cy, j0, j1, hashes, store, target, first):
    """Rows ``j0:j1`` of one octave into ``target[j - first]`` through
    :func:`perlin2_row_terms`, by blocks of :data:`TERM_COLUMNS` columns,
    keeping the terms of the last two lattice rows in ``store`` (``(2,
    TERMS2, >= TERM_COLUMNS)``); ``hashes`` is scratch space for
    :func:`lattice_terms2`."""
    width = fx.shape[1]
    blocks = (width + TERM_COLUMNS - 1) // TERM_COLUMNS
    size = (width + blocks - 1) // blocks  # blocks of equal size
    held = np.empty(2, dtype=np.int64)
    for c0 in range(0, width, size):
        c1 = min(width, c0 + size)
        frac0 = fx[0][c0:c1]
        frac1 = fx[1][c0:c1]
        fades = fx[2][c0:c1]
        a0s = ax[0][c0:c1]
        a1s = ax[1][c0:c1]
        held[0] = held[1] = -1
        for j in range(j0, j1):
            low, fresh = _lattice_slot(held, cy, j, 0)
            if fresh:
                lattice_terms2(p, frac0, frac1, a0s, a1s, cy[0, j], hashes, store[low])
            high, fresh = _lattice_slot(held, cy, j, 1)
            if fresh:
                lattice_terms2(p, frac0, frac1, a0s, a1s, cy[1, j], hashes, store[high])
            perlin2_row_terms(
                store[low], store[high], fades, fy[0, j], fy[1, j], fy[2, j],
                target[j - first][c0:c1],
            )  # fmt: skip
