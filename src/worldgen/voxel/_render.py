"""Pictures of a voxel region: a shaded map seen from above and vertical slices.

A region is a uint8 array ``blocks`` of shape ``(Y, Z, X)`` holding block ids
from :mod:`worldgen.voxel._blocks`, indexed ``[y - y_min, z - z0, x - x0]``:
layer 0 lies at world height ``y_min`` (y is up), z grows toward the south and
x toward the east. Images are uint8 arrays of shape ``(H, W, 3)`` with row 0
at the top.
"""

from __future__ import annotations

import numpy as np

from worldgen._jit import kernel
from worldgen.noise._validate import check_int
from worldgen.products._shading import apply_shade, hillshade
from worldgen.voxel._blocks import AIR, COLOURS, PALETTE, SOLID, WATER

# Air in a cross-section: above the ground of its column, and below it.
SKY_COLOUR = (170, 205, 240)
CAVE_COLOUR = (28, 22, 18)

# Water darkens with depth d (in blocks, >= 1) by the factor
# WATER_FLOOR + (1 - WATER_FLOOR) * exp(-(d - 1) / WATER_DEPTH_SCALE).
WATER_FLOOR = 0.35
WATER_DEPTH_SCALE = 8.0
# Land is lightened above sea level and darkened below it, by at most
# ELEVATION_TINT, reached RELIEF blocks away from the sea level.
ELEVATION_TINT = 0.25
RELIEF = 64.0
# How strongly the hillshade darkens land (see apply_shade).
SHADE_STRENGTH = 0.5
# Land whose top block roofs air (an overhang, arch or floating rock) is
# drawn at this share of its brightness, the shadow it casts.
OVERHANG_SHADE = 0.7

# World heights stay well inside int64 arithmetic and float64 precision.
_HEIGHT_LIMIT = 2**30


def check_blocks(blocks: object, name: str = "blocks") -> np.ndarray:
    """The uint8 ``(Y, Z, X)`` array of a region, or an error naming ``name``.

    The array is returned as given (not copied). Every id must be in the
    palette.
    """
    array = np.asarray(blocks)
    if array.ndim != 3 or 0 in array.shape:
        raise ValueError(
            f"{name} must be a non-empty 3-D array of block ids (Y, Z, X), got shape {array.shape}"
        )
    if array.dtype != np.uint8:
        raise TypeError(
            f"{name} must hold uint8 block ids, got dtype {array.dtype}; "
            "use numpy.asarray(blocks, dtype=numpy.uint8)"
        )
    highest = int(array.max())
    if highest >= len(PALETTE):
        raise ValueError(
            f"{name} holds block id {highest}, but the palette has ids 0 to {len(PALETTE) - 1}"
        )
    return array


def _check_height(value: object, name: str) -> int:
    return check_int(value, name, -_HEIGHT_LIMIT, _HEIGHT_LIMIT)


@kernel
def _column_surface(blocks, air, water, top, depth):
    """Per column ``(z, x)``: the layer of the highest non-air block (-1 if
    the column is all air) into ``top``, and into ``depth`` the number of
    water blocks from that block down to the first non-water one (0 if the
    top block is not water)."""
    ny, nz, nx = blocks.shape
    for z in range(nz):
        for x in range(nx):
            t = -1
            for y in range(ny - 1, -1, -1):
                if blocks[y, z, x] != air:
                    t = y
                    break
            top[z, x] = t
            d = 0
            if t >= 0 and blocks[t, z, x] == water:
                y = t
                while y >= 0 and blocks[y, z, x] == water:
                    d += 1
                    y -= 1
            depth[z, x] = d


def _surface(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column tops and water depths of a region (already validated)."""
    nz, nx = blocks.shape[1:]
    top = np.empty((nz, nx), dtype=np.int64)
    depth = np.empty((nz, nx), dtype=np.int64)
    _column_surface(blocks, AIR, WATER, top, depth)
    return top, depth


def top_down(blocks: np.ndarray, *, y_min: int = -64, sea_level: int = 62) -> np.ndarray:
    """A map of a region seen from above, shaded by its relief.

    Parameters
    ----------
    blocks : ndarray, shape (Y, Z, X), uint8
        Block ids, indexed ``[y - y_min, z - z0, x - x0]``.
    y_min : int
        World height of layer 0.
    sea_level : int
        World height at which land is drawn in its palette colour: land
        above it is lightened and land below it darkened (see Notes).

    Returns
    -------
    numpy.ndarray, shape (Z, X, 3), uint8
        One pixel per column: row ``r`` is z index ``r`` (north at the top),
        column ``c`` is x index ``c`` (west at the left).

    Raises
    ------
    TypeError, ValueError
        If ``blocks`` is not a non-empty 3-D uint8 array of palette ids, or
        ``y_min`` or ``sea_level`` is not an integer.

    Notes
    -----
    Each pixel starts as the palette colour of the highest non-air block of
    its column; a column of air only is black.

    - Water is drawn by depth ``d``, the number of water blocks from the
      surface down to the first non-water block: its colour times
      ``WATER_FLOOR + (1 - WATER_FLOOR) * exp(-(d - 1) / WATER_DEPTH_SCALE)``,
      so one block of water shows the palette colour and deeper water is
      darker. Water is not hillshaded.
    - Every other top block (ice and snow included) is land. With ``e`` the
      block's height above ``sea_level`` and ``t = ELEVATION_TINT *
      clip(e / RELIEF, -1, 1)``, the colour moves by ``t`` toward white
      (``t > 0``) or black (``t < 0``). It is then darkened by
      :func:`~worldgen.products._shading.hillshade` of the column tops (water
      columns count their surface), lit from the north-west at 45 degrees,
      through :func:`~worldgen.products._shading.apply_shade` with strength
      ``SHADE_STRENGTH``. Flat land thus shows ``1/2 + sin(45 deg)/2``, about
      85 %, of its tinted colour.
    - A solid top block with air directly under it (an overhang, an arch,
      a floating rock) is drawn at ``OVERHANG_SHADE`` of that brightness,
      so the 3D terrain's overhangs show from above.

    Examples
    --------
    >>> import numpy as np
    >>> from worldgen.voxel._blocks import GRASS, STONE
    >>> blocks = np.full((3, 2, 4), STONE, dtype=np.uint8)
    >>> blocks[2] = GRASS
    >>> image = top_down(blocks, y_min=60, sea_level=62)
    >>> image.shape, image.dtype
    ((2, 4, 3), dtype('uint8'))
    >>> image[0, 0].tolist()  # flat grass at sea level
    [81, 136, 45]
    """
    blocks = check_blocks(blocks)
    y_min = _check_height(y_min, "y_min")
    sea_level = _check_height(sea_level, "sea_level")

    top, depth = _surface(blocks)
    heights = (y_min + top).astype(np.float64)
    ids = np.take_along_axis(blocks, np.maximum(top, 0)[None], axis=0)[0]
    ids[top < 0] = AIR
    rgb = COLOURS[ids].astype(np.float64)

    tint = ELEVATION_TINT * np.clip((heights - sea_level) / RELIEF, -1.0, 1.0)[..., None]
    tinted = np.where(tint > 0.0, rgb + tint * (255.0 - rgb), rgb * (1.0 + tint))
    land = apply_shade(
        np.rint(tinted).astype(np.uint8), hillshade(heights), strength=SHADE_STRENGTH
    )

    water_factor = WATER_FLOOR + (1.0 - WATER_FLOOR) * np.exp(
        -(np.maximum(depth, 1) - 1) / WATER_DEPTH_SCALE
    )
    water = np.rint(rgb * water_factor[..., None]).astype(np.uint8)

    under = np.take_along_axis(blocks, np.maximum(top - 1, 0)[None], axis=0)[0]
    roof = SOLID[ids] & (top > 0) & (under == AIR)
    land[roof] = np.rint(land[roof] * OVERHANG_SHADE).astype(np.uint8)

    image = np.where((depth > 0)[..., None], water, land)
    image[top < 0] = COLOURS[AIR]
    return image


@kernel
def _view_colours(ids, heights, depth, cover, shade, colours, leaves, sea_level, out):
    # top_down's colouring, pixel by pixel: the top block's colour (mixed
    # toward the leaves by the crown cover), water darkened by its depth,
    # land tinted by its height and hillshaded.
    nz, nx = ids.shape
    for k in range(nz):
        for i in range(nx):
            d = depth[k, i]
            t = ELEVATION_TINT * min(max((heights[k, i] - sea_level) / RELIEF, -1.0), 1.0)
            f = WATER_FLOOR + (1.0 - WATER_FLOOR) * np.exp(-(max(d, 1) - 1) / WATER_DEPTH_SCALE)
            light = 1.0 - SHADE_STRENGTH + SHADE_STRENGTH * shade[k, i]
            for c in range(3):
                v = colours[ids[k, i], c] + cover[k, i] * (leaves[c] - colours[ids[k, i], c])
                if d > 0:
                    out[k, i, c] = np.uint8(np.rint(v * f))
                else:
                    v = v + t * (255.0 - v) if t > 0.0 else v * (1.0 + t)
                    out[k, i, c] = np.uint8(np.rint(np.rint(v) * light))


def surface_view(config, window) -> np.ndarray:
    """The voxel world of ``config`` seen from above over ``window`` (world
    columns x, z and a step), from the world's fields at that level of
    detail rather than from blocks: the top blocks of
    :func:`~worldgen.voxel._generator.surface_blocks` in the colours,
    height tint, hillshade and water depth of :func:`top_down`.

    Returns
    -------
    numpy.ndarray, shape (H, W, 3), uint8

    Examples
    --------
    >>> from worldgen.voxel import VoxelConfig
    >>> from worldgen.world import Window
    >>> surface_view(VoxelConfig(seed=1), Window(0, 0, 8, 4)).shape
    (4, 8, 3)
    """
    from worldgen.voxel._blocks import LEAVES
    from worldgen.voxel._generator import surface_blocks

    ids, top, depth, cover = surface_blocks(config, window.grown(1))
    heights = top.astype(np.float64)
    shade = hillshade(heights, cell_size=float(window.step))
    colours = COLOURS.astype(np.float64)
    out = np.empty((*ids.shape, 3), dtype=np.uint8)
    _view_colours(
        ids, heights, depth, cover, shade, colours, colours[LEAVES], config.sea_level, out
    )
    return out[1:-1, 1:-1]


def cross_section(blocks: np.ndarray, z: int, *, y_min: int = -64) -> np.ndarray:
    """A vertical slice of a region along x, with caves made visible.

    Parameters
    ----------
    blocks : ndarray, shape (Y, Z, X), uint8
        Block ids, indexed ``[y - y_min, z - z0, x - x0]``.
    z : int
        Index of the slice into the region's z axis, ``0 <= z < Z``.
    y_min : int
        World height of layer 0: image row ``r`` shows world height
        ``y_min + Y - 1 - r``. The picture itself does not depend on it.

    Returns
    -------
    numpy.ndarray, shape (Y, X, 3), uint8
        Row 0 is the top layer (y up), column ``c`` is x index ``c``. Blocks
        take their palette colours; air above the highest non-air block of
        its column is ``SKY_COLOUR`` and air below it ``CAVE_COLOUR``.

    Raises
    ------
    TypeError, ValueError
        If ``blocks`` is not a non-empty 3-D uint8 array of palette ids,
        ``z`` is not an integer index into its z axis, or ``y_min`` is not
        an integer.

    Examples
    --------
    >>> import numpy as np
    >>> from worldgen.voxel._blocks import STONE
    >>> blocks = np.zeros((4, 1, 1), dtype=np.uint8)
    >>> blocks[[0, 2], 0, 0] = STONE  # stone, a cave, stone, then the sky
    >>> cross_section(blocks, 0)[:, 0].tolist()
    [[170, 205, 240], [125, 125, 125], [28, 22, 18], [125, 125, 125]]
    """
    blocks = check_blocks(blocks)
    z = check_int(z, "z", 0, blocks.shape[1] - 1)
    _check_height(y_min, "y_min")

    layer = blocks[:, z, :]
    filled = layer != AIR
    top = np.where(filled.any(axis=0), layer.shape[0] - 1 - np.argmax(filled[::-1], axis=0), -1)
    y = np.arange(layer.shape[0])[:, None]
    rgb = COLOURS[layer]
    rgb[~filled & (y > top)] = SKY_COLOUR
    rgb[~filled & (y < top)] = CAVE_COLOUR
    return np.ascontiguousarray(rgb[::-1])


__all__ = ["CAVE_COLOUR", "OVERHANG_SHADE", "SKY_COLOUR", "cross_section", "top_down"]
