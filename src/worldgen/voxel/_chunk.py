"""Chunks: the 16 x 16 columns of blocks the voxel world is made of, and
which of them lie near a point."""

from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np

from worldgen.noise._validate import check_int

CHUNK = 16
"""Width of a chunk in blocks, along x and along z."""

# Chunk coordinates are 32-bit integers; world positions stay far enough
# inside that every chunk within RADIUS_LIMIT of them is addressable.
CHUNK_LOW, CHUNK_HIGH = -(2**31), 2**31 - 1
POSITION_LIMIT = 2.0**34
RADIUS_LIMIT = 16384


@dataclasses.dataclass(frozen=True, eq=False)
class Chunk:
    """One chunk: the blocks of 16 x 16 columns and the height of each.

    Chunk ``(cx, cz)`` covers world x in ``[16 * cx, 16 * cx + 16)`` and z in
    ``[16 * cz, 16 * cz + 16)``. The arrays are kept as given, not copied.

    Parameters
    ----------
    cx, cz : int
        Chunk coordinates (32-bit signed integers).
    blocks : ndarray of uint8, shape (Y, 16, 16)
        Block ids (see :mod:`worldgen.voxel._blocks`) indexed
        ``[y - y_min, z - 16 * cz, x - 16 * cx]``; ``Y >= 1``.
    heights : ndarray of int16, shape (16, 16)
        World y of the highest non-air block of each column, indexed
        ``[z - 16 * cz, x - 16 * cx]``.

    Raises
    ------
    TypeError
        If a coordinate is not an integer or an array is not an ndarray.
    ValueError
        If a coordinate is out of range or an array has the wrong shape or
        dtype.

    Notes
    -----
    ``==`` compares identity (arrays have no single truth value); use
    :meth:`same` to compare contents.

    Examples
    --------
    >>> import numpy as np
    >>> c = Chunk(1, -2, np.zeros((4, 16, 16), np.uint8), np.zeros((16, 16), np.int16))
    >>> c
    Chunk(cx=1, cz=-2, blocks=uint8(4, 16, 16), heights=int16(16, 16))
    >>> c.same(Chunk(1, -2, c.blocks.copy(), c.heights.copy()))
    True
    """

    cx: int
    cz: int
    blocks: np.ndarray
    heights: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "cx", check_int(self.cx, "cx", CHUNK_LOW, CHUNK_HIGH))
        object.__setattr__(self, "cz", check_int(self.cz, "cz", CHUNK_LOW, CHUNK_HIGH))
        _check_array(self.blocks, "blocks", np.uint8, "(Y, 16, 16)")
        if self.blocks.ndim != 3 or self.blocks.shape[1:] != (CHUNK, CHUNK):
            raise ValueError(
                f"blocks must have shape (Y, {CHUNK}, {CHUNK}) indexed [y, z, x], "
                f"got {self.blocks.shape}"
            )
        if self.blocks.shape[0] < 1:
            raise ValueError("blocks must hold at least one layer (Y >= 1), got Y = 0")
        _check_array(self.heights, "heights", np.int16, "(16, 16)")
        if self.heights.shape != (CHUNK, CHUNK):
            raise ValueError(
                f"heights must have shape ({CHUNK}, {CHUNK}) indexed [z, x], "
                f"got {self.heights.shape}"
            )

    def same(self, other: object) -> bool:
        """True if ``other`` is a chunk with the same coordinates, array
        shapes and bytes."""
        return (
            isinstance(other, Chunk)
            and (self.cx, self.cz) == (other.cx, other.cz)
            and self.blocks.shape == other.blocks.shape
            and np.array_equal(self.blocks, other.blocks)
            and np.array_equal(self.heights, other.heights)
        )

    def __repr__(self) -> str:
        return (
            f"Chunk(cx={self.cx}, cz={self.cz}, blocks=uint8{self.blocks.shape}, "
            f"heights=int16{self.heights.shape})"
        )


def chunk_range(x: float, z: float, radius: float) -> list[tuple[int, int]]:
    """The chunks that lie, even partly, within ``radius`` blocks of ``(x, z)``.

    Parameters
    ----------
    x, z : int or float
        World position (finite, ``|x|, |z| <= 2**34``).
    radius : int or float
        Distance in blocks, from 0 to 16384.

    Returns
    -------
    list of (cx, cz)
        Nearest first, ties broken by ``(cx, cz)``: the order depends only on
        the arguments.

    Raises
    ------
    TypeError
        If an argument is not a real number.
    ValueError
        If an argument is not finite or out of range.

    Notes
    -----
    A chunk's distance is the euclidean distance from ``(x, z)`` to the
    nearest point of its closed square ``[16 cx, 16 cx + 16] x [16 cz,
    16 cz + 16]``, and it is included if that distance is ``<= radius``. So a
    chunk that only touches the disc counts, and a point on a chunk border is
    at distance 0 from the chunks on both sides. The arithmetic is exact for
    integer arguments.

    Examples
    --------
    >>> chunk_range(8, 8, 0)
    [(0, 0)]
    >>> chunk_range(8, 8, 8)
    [(0, 0), (-1, 0), (0, -1), (0, 1), (1, 0)]
    >>> chunk_range(0, 0, 0)
    [(-1, -1), (-1, 0), (0, -1), (0, 0)]
    """
    x = _check_real(x, "x", -POSITION_LIMIT, POSITION_LIMIT)
    z = _check_real(z, "z", -POSITION_LIMIT, POSITION_LIMIT)
    radius = _check_real(radius, "radius", 0, RADIUS_LIMIT)
    # Chunk c touches [p - r, p + r] iff 16 c <= p + r and 16 c + 16 >= p - r.
    cxs = np.arange(math.ceil((x - radius) / CHUNK) - 1, math.floor((x + radius) / CHUNK) + 1)
    czs = np.arange(math.ceil((z - radius) / CHUNK) - 1, math.floor((z + radius) / CHUNK) + 1)
    # Distances to the squares are at most radius + 16 <= 2**15, and exact in
    # float64 whenever x and z are integers.
    dx = _gap(cxs * float(CHUNK), x)
    dz = _gap(czs * float(CHUNK), z)
    d2 = dx[:, None] ** 2 + dz[None, :] ** 2
    inside = d2 <= float(radius) ** 2
    ix, iz = np.nonzero(inside)
    order = np.lexsort((czs[iz], cxs[ix], d2[ix, iz]))
    return [(int(cxs[ix[i]]), int(czs[iz[i]])) for i in order]


def _gap(starts: np.ndarray, p: float) -> np.ndarray:
    """Distance from ``p`` to each interval ``[start, start + 16]``."""
    return np.maximum(np.maximum(starts - p, p - (starts + CHUNK)), 0.0)


def _check_array(array: object, name: str, dtype: type, shape: str) -> None:
    if not isinstance(array, np.ndarray):
        raise TypeError(
            f"{name} must be a numpy array of {np.dtype(dtype).name}, shape {shape}, "
            f"got {type(array).__name__}"
        )
    if array.dtype != np.dtype(dtype):
        raise ValueError(
            f"{name} must have dtype {np.dtype(dtype).name}, got {array.dtype}; "
            f"use .astype(numpy.{np.dtype(dtype).name})"
        )


def _check_real(value: object, name: str, low: float, high: float) -> int | float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number from {low:g} to {high:g}, got {value!r}")
    if isinstance(value, numbers.Integral):
        value = int(value)
    else:
        value = float(value)
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{name} must be a finite number from {low:g} to {high:g}, got {value!r}")
    return value
