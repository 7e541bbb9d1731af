"""Lattice primitives shared by the noise kernels: cells, fades, lerps.

All of them are exact IEEE float64 expressions written in the order of Ken
Perlin's Java reference, so that every kernel built on them is reproducible
bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from worldgen._jit import kernel

# Below this magnitude a float64 floor converts to int64 exactly.
_INT_SAFE = 4.0e18


@kernel
def fade(t):
    """Perlin's quintic fade 6t^5 - 15t^4 + 10t^3, in his evaluation order."""
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


@kernel
def smoothstep(t):
    """The cubic fade 3t^2 - 2t^3."""
    return t * t * (3.0 - 2.0 * t)


@kernel
def lerp(t, a, b):
    """Perlin's lerp: ``a + t * (b - a)``."""
    return a + t * (b - a)


@kernel
def cell_index(floor_value, period):
    """Lattice index of an integer-valued float, reduced into ``[0, period)``.

    Exact for every finite input: ordinary magnitudes go through int64, and
    beyond ``4e18`` (where every float64 is an integer) ``fmod`` is exact.
    """
    if -_INT_SAFE < floor_value < _INT_SAFE:
        return np.int64(floor_value) % period
    r = np.fmod(floor_value, np.float64(period))
    if r < 0.0:
        r += float(period)
    return np.int64(r)


@kernel
def cells(v, period):
    """``(frac, cell0, cell1)`` of coordinate ``v``: the offset inside its cell
    and the cell's two lattice indices, reduced by ``period`` and masked to the
    256-entry hash table (as unsigned ints, ready to index tables)."""
    fl = math.floor(v)
    if (period & 255) == 0 and -_INT_SAFE < fl < _INT_SAFE:
        # A period that is a multiple of 256 (the default is 256) leaves the
        # low 8 bits alone: no division.
        c = np.int64(fl)
        return v - fl, np.uint64(c & 255), np.uint64((c + 1) & 255)
    c = cell_index(fl, period)
    return v - fl, np.uint64(c & 255), np.uint64(((c + 1) % period) & 255)


# Coordinates below this magnitude convert to int64 exactly; the public
# point forms refuse larger ones (see ``_validate.COORD_LIMIT``).
WRAPPED_LIMIT = 2.0**62


@kernel
def wrapped_cells(v):
    """What :func:`cells` gives for a period that is a multiple of 256, when
    ``|v| < WRAPPED_LIMIT`` is known, with no branch: ``floor(v)`` converts
    to int64 exactly there, and its low 8 bits are the cell in any such
    period (``cells`` takes ``fmod`` from ``4e18`` on, to the same
    index). The point drivers use it on coordinates their callers checked."""
    fl = math.floor(v)
    c = np.int64(fl)
    return v - fl, np.uint64(c) & np.uint64(255), np.uint64(c + 1) & np.uint64(255)


@kernel
def axis_table(coords, period, interpolant):
    """Per-coordinate lattice data for one grid axis.

    Returns ``(frac, cells, runs)``: ``frac[0]`` is the offset inside the
    cell, ``frac[1]`` that minus one, ``frac[2]`` the interpolant of
    ``frac[0]`` (0 linear, 1 cubic, 2 quintic); ``cells[0]`` and ``cells[1]``
    are the cell's two lattice indices as :func:`cells` gives them; ``runs``
    holds the starts of runs of equal cells, then ``len(coords)``.
    """
    n = coords.size
    frac = np.empty((3, n))
    table = np.empty((2, n), dtype=np.uint64)
    starts = np.empty(n + 1, dtype=np.int64)
    nruns = 0
    for i in range(n):
        f, c0, c1 = cells(coords[i], period)
        frac[0, i] = f
        frac[1, i] = f - 1.0
        if interpolant == 0:
            frac[2, i] = f
        elif interpolant == 1:
            frac[2, i] = smoothstep(f)
        else:
            frac[2, i] = fade(f)
        table[0, i] = c0
        table[1, i] = c1
        if i == 0 or c0 != table[0, i - 1] or c1 != table[1, i - 1]:
            starts[nruns] = i
            nruns += 1
    starts[nruns] = n
    return frac, table, starts[: nruns + 1]


@kernel
def offset_classes(frac0, limit, classes, representatives):
    """Group samples by their exact offset inside the cell.

    On grids whose step divides the lattice evenly (1/2, 1/4, 1, ...), a few
    offsets repeat along the whole axis. Writes each sample's class into
    ``classes`` and one sample of each class into ``representatives``, and
    returns the number of classes, or 0 if there are more than ``limit``.
    """
    count = 0
    for i in range(frac0.size):
        f = frac0[i]
        found = -1
        for q in range(count):
            if frac0[representatives[q]] == f:
                found = q
                break
        if found < 0:
            if count == limit:
                return 0
            representatives[count] = i
            found = count
            count += 1
        classes[i] = found
    return count
