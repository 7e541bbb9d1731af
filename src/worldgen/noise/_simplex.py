"""Simplex noise kernels, 2D to 4D.

Ken Perlin's simplex noise (2001) as explained by Stefan Gustavson
("Simplex noise demystified", 2005; the 4D simplex is found by ranking the
coordinates, as in his 2012 revision). The input is skewed onto a lattice of
simplices; each of the simplex's corners contributes ``t^4 * (g . d)`` with
``t = 0.5 - |d|^2`` (a radius of 0.5, not 0.6 as in some versions, so that a
corner's influence ends before the edge of its neighbourhood and the noise is
continuous). Corners are hashed with the same nested permutation as Perlin
noise, and the gradients are Perlin's sets: 8 directions in 2D, the 12 cube
edges in 3D, the 32 tesseract edges in 4D.

The scale factors make the output lie in [-1, 1]: each is the reciprocal of
the largest value the sum can take, found by maximising, over points in a
simplex, the sum over corners of ``t^4 * max_g (g . d)``
(``tests/reference/noise_bounds.py`` recomputes them).
"""

from __future__ import annotations

import math

import numpy as np

from worldgen._jit import kernel
from worldgen.noise._lattice import cell_index
from worldgen.noise._perlin import grad2, grad3, grad4

F2 = 0.5 * (math.sqrt(3.0) - 1.0)
G2 = (3.0 - math.sqrt(3.0)) / 6.0
F3 = 1.0 / 3.0
G3 = 1.0 / 6.0
F4 = (math.sqrt(5.0) - 1.0) / 4.0
G4 = (5.0 - math.sqrt(5.0)) / 20.0

SCALE2 = 70.148
SCALE3 = 76.8807
SCALE4 = 62.7777


@kernel
def _cell(v):
    return np.uint64(cell_index(v, 256))


@kernel
def _falloff(d2):
    # (0.5 - d2)^4 inside the radius, else 0.0 (no branch: max then square).
    t = max(0.5 - d2, 0.0)
    t *= t
    return t * t


@kernel
def simplex2(p, x, y):
    s = (x + y) * F2
    fi = math.floor(x + s)
    fj = math.floor(y + s)
    t = (fi + fj) * G2
    x0 = x - (fi - t)
    y0 = y - (fj - t)
    i = _cell(fi)
    j = _cell(fj)
    one = np.uint64(1)
    zero = np.uint64(0)
    if x0 > y0:
        i1, j1 = one, zero
    else:
        i1, j1 = zero, one
    x1 = x0 - np.float64(i1) + G2
    y1 = y0 - np.float64(j1) + G2
    x2 = x0 - 1.0 + 2.0 * G2
    y2 = y0 - 1.0 + 2.0 * G2
    n = _falloff(x0 * x0 + y0 * y0) * grad2(p[p[i] + j], x0, y0)
    n += _falloff(x1 * x1 + y1 * y1) * grad2(p[p[i + i1] + j + j1], x1, y1)
    n += _falloff(x2 * x2 + y2 * y2) * grad2(p[p[i + one] + j + one], x2, y2)
    return SCALE2 * n


@kernel
def simplex3(p, x, y, z):
    s = (x + y + z) * F3
    fi = math.floor(x + s)
    fj = math.floor(y + s)
    fk = math.floor(z + s)
    t = (fi + fj + fk) * G3
    x0 = x - (fi - t)
    y0 = y - (fj - t)
    z0 = z - (fk - t)
    # The simplex holding the point: step along the axes in decreasing order
    # of the offsets.
    if x0 >= y0:
        if y0 >= z0:
            o1, o2 = (1, 0, 0), (1, 1, 0)
        elif x0 >= z0:
            o1, o2 = (1, 0, 0), (1, 0, 1)
        else:
            o1, o2 = (0, 0, 1), (1, 0, 1)
    else:
        if y0 < z0:
            o1, o2 = (0, 0, 1), (0, 1, 1)
        elif x0 < z0:
            o1, o2 = (0, 1, 0), (0, 1, 1)
        else:
            o1, o2 = (0, 1, 0), (1, 1, 0)
    i = _cell(fi)
    j = _cell(fj)
    k = _cell(fk)
    n = 0.0
    for c in range(4):
        if c == 0:
            di, dj, dk = 0, 0, 0
        elif c == 1:
            di, dj, dk = o1
        elif c == 2:
            di, dj, dk = o2
        else:
            di, dj, dk = 1, 1, 1
        dx = x0 - di + c * G3
        dy = y0 - dj + c * G3
        dz = z0 - dk + c * G3
        h = p[p[p[i + np.uint64(di)] + j + np.uint64(dj)] + k + np.uint64(dk)]
        n += _falloff(dx * dx + dy * dy + dz * dz) * grad3(h, dx, dy, dz)
    return SCALE3 * n


@kernel
def simplex4(p, x, y, z, w):
    s = (x + y + z + w) * F4
    fi = math.floor(x + s)
    fj = math.floor(y + s)
    fk = math.floor(z + s)
    fl = math.floor(w + s)
    t = (fi + fj + fk + fl) * G4
    x0 = x - (fi - t)
    y0 = y - (fj - t)
    z0 = z - (fk - t)
    w0 = w - (fl - t)
    # Rank the offsets; corner c steps along every axis whose rank >= 4 - c.
    rx = ry = rz = rw = 0
    if x0 > y0:
        rx += 1
    else:
        ry += 1
    if x0 > z0:
        rx += 1
    else:
        rz += 1
    if x0 > w0:
        rx += 1
    else:
        rw += 1
    if y0 > z0:
        ry += 1
    else:
        rz += 1
    if y0 > w0:
        ry += 1
    else:
        rw += 1
    if z0 > w0:
        rz += 1
    else:
        rw += 1
    i = _cell(fi)
    j = _cell(fj)
    k = _cell(fk)
    m = _cell(fl)
    n = 0.0
    for c in range(5):
        need = 4 - c
        di = 1 if rx >= need else 0
        dj = 1 if ry >= need else 0
        dk = 1 if rz >= need else 0
        dl = 1 if rw >= need else 0
        dx = x0 - di + c * G4
        dy = y0 - dj + c * G4
        dz = z0 - dk + c * G4
        dw = w0 - dl + c * G4
        h = p[
            p[p[p[i + np.uint64(di)] + j + np.uint64(dj)] + k + np.uint64(dk)] + m + np.uint64(dl)
        ]
        n += _falloff(dx * dx + dy * dy + dz * dz + dw * dw) * grad4(h, dx, dy, dz, dw)
    return SCALE4 * n


@kernel
def simplex2_rows(p, xs, ys, j0, j1, target, first):
    """Rows ``j0:j1`` of a 2D grid at coordinates ``xs``, ``ys`` into
    ``target[j - first]``.

    Along a row, runs of samples share their skewed cell (``fi``, ``fj``):
    the cell's four corner hashes are looked up once per run, and a loop
    without hashing, that vectorises, does the rest. The middle corner is
    computed both ways and the sample's own kept, so every sample performs
    the operations of :func:`simplex2` in its order, and gets its bits.
    """
    width = xs.size
    fis = np.empty(width, dtype=np.int64)
    fjs = np.empty(width, dtype=np.int64)
    one = np.uint64(1)
    for j in range(j0, j1):
        y = ys[j]
        for i in range(width):
            s = (xs[i] + y) * F2
            fis[i] = math.floor(xs[i] + s)
            fjs[i] = math.floor(y + s)
        out = target[j - first]
        start = 0
        while start < width:
            fi = fis[start]
            fj = fjs[start]
            end = start + 1
            while end < width and fis[end] == fi and fjs[end] == fj:
                end += 1
            t = (fi + fj) * G2
            a = fi - t
            b = fj - t
            ci = _cell(fi)
            cj = _cell(fj)
            h0 = p[p[ci] + cj]
            hx = p[p[ci + one] + cj]
            hy = p[p[ci] + cj + one]
            h2 = p[p[ci + one] + cj + one]
            for i in range(start, end):
                x0 = xs[i] - a
                y0 = y - b
                x1 = x0 - 1.0 + G2
                y1 = y0 - 0.0 + G2
                x1b = x0 - 0.0 + G2
                y1b = y0 - 1.0 + G2
                x2 = x0 - 1.0 + 2.0 * G2
                y2 = y0 - 1.0 + 2.0 * G2
                n = _falloff(x0 * x0 + y0 * y0) * grad2(h0, x0, y0)
                na = _falloff(x1 * x1 + y1 * y1) * grad2(hx, x1, y1)
                nb = _falloff(x1b * x1b + y1b * y1b) * grad2(hy, x1b, y1b)
                n += na if x0 > y0 else nb
                n += _falloff(x2 * x2 + y2 * y2) * grad2(h2, x2, y2)
                out[i] = SCALE2 * n
            start = end
