"""What an area of the voxel world becomes for other programs: its surface
and water as arrays (to check it against the map), Minecraft chunks, and
MagicaVoxel models.

The area is a square of columns ``x - radius <= X < x + radius``,
``z - radius <= Z < z + radius``: rows z, columns x, as the map's window
``(x - radius, z - radius, 2 radius, 2 radius)`` (a column is a cell).
"""

from __future__ import annotations

import numpy as np

from worldgen.voxel._blocks import AIR, ICE, LAVA, LEAVES, NAMES, WATER, WOOD
from worldgen.voxel._chunk import CHUNK

# Per block id: is it ground (a block the surface may be)? Not air, the
# fluids, ice (frozen water), nor a tree's leaves or logs.
GROUND = np.array(
    [i not in (AIR, WATER, LAVA, ICE, LEAVES, WOOD) for i in range(len(NAMES))], dtype=np.bool_
)
# Per block id: does it stand over the ground and hide it from a column's
# top (the water test looks through these)? Air and a tree's blocks.
_SEE_THROUGH = np.array([i in (AIR, LEAVES, WOOD) for i in range(len(NAMES))], dtype=np.bool_)


def square_chunks(x0: int, z0: int, width: int, depth: int) -> list[tuple[int, int]]:
    """The chunks ``(cx, cz)`` that hold the columns ``x0 <= x < x0 + width``,
    ``z0 <= z < z0 + depth``, row by row (z, then x).

    Examples
    --------
    >>> square_chunks(-4, 0, 8, 16)
    [(-1, 0), (0, 0)]
    """
    cxs = range(x0 // CHUNK, (x0 + width - 1) // CHUNK + 1)
    czs = range(z0 // CHUNK, (z0 + depth - 1) // CHUNK + 1)
    return [(cx, cz) for cz in czs for cx in cxs]


def surface_and_water(blocks: np.ndarray, *, y_min: int) -> tuple[np.ndarray, np.ndarray]:
    """The surface and water of columns of blocks.

    Parameters
    ----------
    blocks : ndarray of uint8, shape (Y, Z, X)
        Block ids, ``blocks[y - y_min, z, x]``.
    y_min : int
        The world y of the bottom layer.

    Returns
    -------
    surface : ndarray of int16, shape (Z, X)
        The world y of each column's highest ground block (not air, water,
        lava, ice, leaves or logs; there are no plant blocks), ``y_min - 1``
        in a column with none.
    water : ndarray of bool, shape (Z, X)
        Whether the column's top, under any tree, is water or ice (the
        frozen top of the sea).

    Examples
    --------
    >>> b = np.zeros((4, 1, 2), np.uint8)
    >>> b[:2] = 1
    >>> b[2, 0, 1] = WATER
    >>> surface_and_water(b, y_min=10)
    (array([[11, 11]], dtype=int16), array([[False,  True]]))
    """
    surface = np.empty(blocks.shape[1:], np.int16)
    water = np.empty(blocks.shape[1:], np.bool_)
    for z0, z1, _, _ in _slabs(blocks, 0):
        part = blocks[:, z0:z1]
        surface[z0:z1] = _highest(GROUND[part]) + y_min
        top = np.maximum(_highest(~_SEE_THROUGH[part]), 0)
        top_block = np.take_along_axis(part, top[None], axis=0)[0]
        water[z0:z1] = (top_block == WATER) | (top_block == ICE)
    return surface, water


SLAB = 1 << 22
"""Blocks in a slab of rows z that the exports work through at a time: their
temporary masks are a slab's, not the area's (about 4 MB each)."""


def _slabs(blocks: np.ndarray, halo: int):
    """``(z0, z1, lo, hi)`` for the slabs of rows ``z0 <= z < z1`` of
    ``blocks`` (Y, Z, X), each with up to ``halo`` rows either side:
    ``lo <= z < hi``."""
    ny, nz, nx = blocks.shape
    rows = max(1, SLAB // max(1, ny * nx))
    for z0 in range(0, nz, rows):
        z1 = min(nz, z0 + rows)
        yield z0, z1, max(0, z0 - halo), min(nz, z1 + halo)


def _highest(mask: np.ndarray) -> np.ndarray:
    """The highest layer where ``mask`` (Y, Z, X) holds, per column; -1 if none."""
    ny = mask.shape[0]
    first = np.argmax(mask[::-1], axis=0)
    return np.where(mask.any(axis=0), ny - 1 - first, -1)


# Blocks through which a neighbour can be seen (air, the fluids, ice and
# leaves): a block with one of these beside it, other than itself, shows.
_CLEAR = np.array([i in (AIR, WATER, LAVA, ICE, LEAVES) for i in range(len(NAMES))], dtype=np.bool_)
VOX_SIDE = 256

VOX_REACH = 1000
"""How far MagicaVoxel's scene reaches: it holds voxels from -1000 to 999
across (x and y) and draws those from its ground, z = 0, up to 999 (its
world is 2000 x 2000 x 1000 above the ground). :func:`vox_models` centres
an area on the scene's middle and stands it on the ground, so it takes an
area up to 2000 blocks on a side and 1000 high."""


def visible(blocks: np.ndarray) -> np.ndarray:
    """Which blocks (Y, Z, X) can be seen: not air, and beside (across one
    of its six faces) a block of another kind that can be seen through
    (air, water, lava, ice, leaves), or on one of the area's four sides.

    Examples
    --------
    >>> b = np.ones((3, 3, 3), np.uint8)
    >>> int(visible(b).sum())  # all but the two lower blocks of the middle column
    25
    """
    shows = np.empty(blocks.shape, dtype=np.bool_)
    for z0, z1, lo, hi in _slabs(blocks, 1):  # a row beside a slab decides its edge
        shows[:, z0:z1] = _visible(blocks[:, lo:hi])[:, z0 - lo : z1 - lo]
    return shows


def _visible(blocks: np.ndarray) -> np.ndarray:
    """:func:`visible` of a whole array at once (its temporaries are as big)."""
    clear = _CLEAR[blocks]
    shows = np.zeros(blocks.shape, dtype=np.bool_)
    for axis in range(3):
        low, high, first, last = ([slice(None)] * 3 for _ in range(4))
        low[axis], high[axis], first[axis], last[axis] = slice(None, -1), slice(1, None), 0, -1
        low, high = tuple(low), tuple(high)
        differ = blocks[low] != blocks[high]
        shows[low] |= clear[high] & differ
        shows[high] |= clear[low] & differ
        shows[tuple(last)] = True  # the sides, and the top layer under the sky
        if axis > 0:
            shows[tuple(first)] = True
    return shows & (blocks != AIR)


def vox_models(
    blocks: np.ndarray,
) -> list[tuple[tuple[int, int, int], tuple[int, int, int], np.ndarray]]:
    """The visible blocks (see :func:`visible`) of an area as MagicaVoxel
    models of at most 256 on a side, for :func:`worldgen.io.write_vox`.

    MagicaVoxel's z is up and its axes are right-handed: the scene's voxel
    ``(u, v, w)`` is block ``blocks[w + b, depth - 1 - (v + depth // 2),
    u + width // 2]`` (x east, z south: v counts north), ``b`` the lowest
    layer with a visible block: the area's middle column stands at
    ``u = v = 0`` and its lowest visible block on the ground, ``w = 0``,
    where MagicaVoxel draws from (see :data:`VOX_REACH`). A voxel's palette
    index is its block id.

    Returns
    -------
    list of (origin, size, voxels)
        Models in the order x, then v, then w; empty ones left out.

    Raises
    ------
    ValueError
        If the area is wider or deeper than ``2 VOX_REACH`` blocks, or its
        visible blocks span more than ``VOX_REACH`` layers: MagicaVoxel
        would not show all of it.
    """
    depth, width = blocks.shape[1:]
    if max(width, depth) > 2 * VOX_REACH:
        raise ValueError(
            f"blocks: MagicaVoxel's scene is {2 * VOX_REACH} voxels across, and the area is "
            f"{width} x {depth}; export at most {2 * VOX_REACH} x {2 * VOX_REACH} columns"
        )
    shows = visible(blocks)
    layers = np.nonzero(shows.any(axis=(1, 2)))[0]
    if layers.size == 0:
        return []
    base = int(layers[0])
    if layers[-1] + 1 - base > VOX_REACH:
        raise ValueError(
            f"blocks: MagicaVoxel draws {VOX_REACH} voxels up from its ground, and the area's "
            f"visible blocks span {layers[-1] + 1 - base} layers; export fewer layers"
        )
    # (Y, Z, X) -> (u, v, w) = (x, depth - 1 - z, y - base)
    seen = shows[base : layers[-1] + 1, ::-1].transpose(2, 1, 0)
    ids = blocks[base : layers[-1] + 1, ::-1].transpose(2, 1, 0)
    models = []
    nu, nv, nw = seen.shape
    for w0 in range(0, nw, VOX_SIDE):
        for v0 in range(0, nv, VOX_SIDE):
            for u0 in range(0, nu, VOX_SIDE):
                part = np.s_[u0 : u0 + VOX_SIDE, v0 : v0 + VOX_SIDE, w0 : w0 + VOX_SIDE]
                u, v, w = np.nonzero(seen[part])
                if u.size == 0:
                    continue
                size = tuple(min(VOX_SIDE, n - o) for n, o in ((nu, u0), (nv, v0), (nw, w0)))
                voxels = np.empty((u.size, 4), np.uint8)  # no int64 copy of them all
                voxels[:, 0], voxels[:, 1], voxels[:, 2] = u, v, w
                voxels[:, 3] = ids[part][u, v, w]
                models.append(((u0 - nu // 2, v0 - nv // 2, w0), size, voxels))
    return models
