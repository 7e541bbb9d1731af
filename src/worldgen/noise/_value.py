"""Value noise kernels, 1D to 4D, at points and along grid rows.

Each lattice corner gets a value from the same nested permutation hash as
Perlin noise, ``h / 127.5 - 1`` for ``h`` in 0..255, so corner values lie in
[-1, 1]; the corners are blended with ``lerp`` weighted by an interpolant of
the offset inside the cell: linear ``t``, cubic ``3t^2 - 2t^3`` or quintic
``6t^5 - 15t^4 + 10t^3``. Every interpolant maps [0, 1] into [0, 1], so the
output is a convex blend of corner values and stays in [-1, 1].
"""

from __future__ import annotations

from worldgen._jit import kernel
from worldgen.noise._lattice import cells, fade, lerp, smoothstep

LINEAR, CUBIC, QUINTIC = 0, 1, 2


@kernel
def interpolant(t, kind):
    if kind == LINEAR:
        return t
    if kind == CUBIC:
        return smoothstep(t)
    return fade(t)


@kernel
def corner_value(h):
    return h / 127.5 - 1.0


@kernel
def value1(p, period, kind, x):
    x, x0, x1 = cells(x, period[0])
    return lerp(interpolant(x, kind), corner_value(p[x0]), corner_value(p[x1]))


@kernel
def value2(p, period, kind, x, y):
    x, x0, x1 = cells(x, period[0])
    y, y0, y1 = cells(y, period[1])
    u = interpolant(x, kind)
    a0 = p[x0]
    a1 = p[x1]
    return lerp(
        interpolant(y, kind),
        lerp(u, corner_value(p[a0 + y0]), corner_value(p[a1 + y0])),
        lerp(u, corner_value(p[a0 + y1]), corner_value(p[a1 + y1])),
    )


@kernel
def _cube(p, b0, b1, z0, z1, u, v, w):
    # Trilinear blend; b0/b1 are the hashes of (x0|x1) with (y0, y1).
    return lerp(
        w,
        lerp(
            v,
            lerp(u, corner_value(p[b0[0] + z0]), corner_value(p[b1[0] + z0])),
            lerp(u, corner_value(p[b0[1] + z0]), corner_value(p[b1[1] + z0])),
        ),
        lerp(
            v,
            lerp(u, corner_value(p[b0[0] + z1]), corner_value(p[b1[0] + z1])),
            lerp(u, corner_value(p[b0[1] + z1]), corner_value(p[b1[1] + z1])),
        ),
    )


@kernel
def value3(p, period, kind, x, y, z):
    x, x0, x1 = cells(x, period[0])
    y, y0, y1 = cells(y, period[1])
    z, z0, z1 = cells(z, period[2])
    a0 = p[x0]
    a1 = p[x1]
    b0 = (p[a0 + y0], p[a0 + y1])
    b1 = (p[a1 + y0], p[a1 + y1])
    return _cube(
        p, b0, b1, z0, z1, interpolant(x, kind), interpolant(y, kind), interpolant(z, kind)
    )


@kernel
def value4(p, period, kind, x, y, z, w):
    x, x0, x1 = cells(x, period[0])
    y, y0, y1 = cells(y, period[1])
    z, z0, z1 = cells(z, period[2])
    w, w0, w1 = cells(w, period[3])
    u = interpolant(x, kind)
    v = interpolant(y, kind)
    t = interpolant(z, kind)
    a0 = p[x0]
    a1 = p[x1]
    c00 = (p[p[a0 + y0] + z0], p[p[a0 + y1] + z0])
    c10 = (p[p[a1 + y0] + z0], p[p[a1 + y1] + z0])
    c01 = (p[p[a0 + y0] + z1], p[p[a0 + y1] + z1])
    c11 = (p[p[a1 + y0] + z1], p[p[a1 + y1] + z1])
    # The w axis plays the part of z in _cube, with the z blend folded in.
    low = lerp(t, _square(p, c00, c10, w0, u, v), _square(p, c01, c11, w0, u, v))
    high = lerp(t, _square(p, c00, c10, w1, u, v), _square(p, c01, c11, w1, u, v))
    return lerp(interpolant(w, kind), low, high)


@kernel
def _square(p, b0, b1, w, u, v):
    return lerp(
        v,
        lerp(u, corner_value(p[b0[0] + w]), corner_value(p[b1[0] + w])),
        lerp(u, corner_value(p[b0[1] + w]), corner_value(p[b1[1] + w])),
    )


# --- grid rows (see the notes in _perlin) ------------------------------------


@kernel
def value2_setup(p, ax, runs, y0, y1, values):
    """Corner values (x0 y0, x1 y0, x0 y1, x1 y1) of every run of a block."""
    a0s = ax[0]
    a1s = ax[1]
    for r in range(runs.size - 1):
        s = runs[r]
        values[r, 0] = corner_value(p[a0s[s] + y0])
        values[r, 1] = corner_value(p[a1s[s] + y0])
        values[r, 2] = corner_value(p[a0s[s] + y1])
        values[r, 3] = corner_value(p[a1s[s] + y1])


@kernel
def value2_row(values, fx, runs, v, out):
    """``out[i] = value2(x[i], y)``; ``v`` is the row's interpolant."""
    fades = fx[2]
    for r in range(runs.size - 1):
        s = runs[r]
        e = runs[r + 1]
        c = values[r]
        c00 = c[0]
        c10 = c[1]
        c01 = c[2]
        c11 = c[3]
        us = fades[s:e]
        o = out[s:e]
        for i in range(e - s):
            u = us[i]
            a = c00 + u * (c10 - c00)
            b = c01 + u * (c11 - c01)
            o[i] = a + v * (b - a)


@kernel
def value3_setup(p, ax, runs, y0, y1, z0, z1, values):
    """Corner values of every run of a block, ordered 000 100 010 110 001
    101 011 111 (x fastest)."""
    a0s = ax[0]
    a1s = ax[1]
    for r in range(runs.size - 1):
        s = runs[r]
        b00 = p[a0s[s] + y0]
        b10 = p[a1s[s] + y0]
        b01 = p[a0s[s] + y1]
        b11 = p[a1s[s] + y1]
        values[r, 0] = corner_value(p[b00 + z0])
        values[r, 1] = corner_value(p[b10 + z0])
        values[r, 2] = corner_value(p[b01 + z0])
        values[r, 3] = corner_value(p[b11 + z0])
        values[r, 4] = corner_value(p[b00 + z1])
        values[r, 5] = corner_value(p[b10 + z1])
        values[r, 6] = corner_value(p[b01 + z1])
        values[r, 7] = corner_value(p[b11 + z1])


@kernel
def value3_row(values, fx, runs, v, w, out):
    """``out[i] = value3(x[i], y, z)``; ``v, w`` are the row's interpolants."""
    fades = fx[2]
    for r in range(runs.size - 1):
        s = runs[r]
        e = runs[r + 1]
        c = values[r]
        c000 = c[0]
        c100 = c[1]
        c010 = c[2]
        c110 = c[3]
        c001 = c[4]
        c101 = c[5]
        c011 = c[6]
        c111 = c[7]
        us = fades[s:e]
        o = out[s:e]
        for i in range(e - s):
            u = us[i]
            a00 = c000 + u * (c100 - c000)
            a10 = c010 + u * (c110 - c010)
            a01 = c001 + u * (c101 - c001)
            a11 = c011 + u * (c111 - c011)
            b0 = a00 + v * (a10 - a00)
            b1 = a01 + v * (a11 - a01)
            o[i] = b0 + w * (b1 - b0)


@kernel
def value2_rows(p, fx, ax, runs, fy, cy, j0, j1, values, target, first):
    """Rows ``j0:j1`` of a 2D grid into ``target[j - first]`` (as perlin2_rows)."""
    for j in range(j0, j1):
        if j == j0 or cy[0, j] != cy[0, j - 1] or cy[1, j] != cy[1, j - 1]:
            value2_setup(p, ax, runs, cy[0, j], cy[1, j], values)
        value2_row(values, fx, runs, fy[2, j], target[j - first])


@kernel
def value3_rows(p, fx, ax, runs, fy, cy, fz, cz, r0, r1, height, values, target, first):
    """Flattened (z, y) rows ``r0:r1`` of a 3D grid into ``target[r - first]``."""
    for r in range(r0, r1):
        k = r // height
        j = r - k * height
        pk = (r - 1) // height
        pj = r - 1 - pk * height
        if (
            r == r0 or cy[0, j] != cy[0, pj] or cy[1, j] != cy[1, pj]
            or cz[0, k] != cz[0, pk] or cz[1, k] != cz[1, pk]
        ):  # fmt: skip
            value3_setup(p, ax, runs, cy[0, j], cy[1, j], cz[0, k], cz[1, k], values)
        value3_row(values, fx, runs, fy[2, j], fz[2, k], target[r - first])
