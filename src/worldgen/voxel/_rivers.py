"""Rivers of the voxel world: where they run, how wide, and at what level,
per block column, as pure functions of world coordinates.

Rivers follow the voxel world's own ground, the target height of its
columns (continentalness, erosion, peaks and valleys; not the 3D density),
sampled on a coarse grid of ``CELL`` x ``CELL`` blocks aligned to block 0:

- **Regions.** The coarse grid is cut into square regions of ``REGION``
  cells. A region's water is computed on the region grown by ``HALO`` cells
  on every side with :func:`worldgen.terrain.rivers`: pits filled, D8 flow,
  accumulation, with the sea (cells below sea level) as an outlet besides
  the border. A coarse cell is a river where at least ``THRESHOLD`` cells
  drain through it and it is land. Every cell belongs to one region, so
  any chunk sees the same rivers whatever its neighbours; regions are kept
  in a small LRU cache, so the chunks of a region share one computation
  (about 0.1 s for 1024 x 1024 blocks). A river whose catchment reaches
  beyond a region's halo may change width or stop at the region's border,
  as the map's unmasked rivers do (see :mod:`worldgen.terrain._windowed`).
- **Beds.** Each river cell draws a segment from its centre to its
  downstream neighbour's. A block column within ``width`` blocks of a
  segment (1 to ``MAX_WIDTH`` with the cell's accumulation) is river: its
  water surface is one block under the ground of the cell, the lowest over
  the segments that reach it, and its bed ``1 + width`` blocks below that.
  Columns within ``BANK`` blocks more are banks: ground above the water
  surface plus the distance to the river is cut away, so banks slope.
  Reach: a column depends on the river cells within ``MAX_WIDTH + BANK +
  CELL`` blocks, and those on their regions.
"""

from __future__ import annotations

import math

import numpy as np

from worldgen._jit import kernel
from worldgen.terrain._rivers import D8_OFFSETS, rivers
from worldgen.terrain._windowed import _LRU

CELL = 4  # blocks per coarse cell
REGION = 256  # coarse cells per region side (1024 blocks)
HALO = 64  # coarse cells around a region in its water computation (256 blocks)
THRESHOLD = 1200.0  # coarse cells draining through a river cell
MAX_WIDTH = 4.0  # blocks, half-width of the widest river
BANK = 4.0  # blocks of sloping bank beside a river
NONE = -(2**31)  # "no river here"


_REGIONS = _LRU(8)  # regions' river cells, shared by neighbouring chunks


def _region(config, rx: int, rz: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """River cells of region ``(rx, rz)``: half-width in blocks (0 where no
    river), water surface y, and D8 direction, each ``(REGION, REGION)``."""
    from worldgen.voxel._generator import columns

    def make():
        n = REGION + 2 * HALO
        x0 = (rx * REGION - HALO) * CELL
        z0 = (rz * REGION - HALO) * CELL
        ground = columns(config, x0, z0, n, n, step=CELL, names=("height",)).height
        sea = ground < config.sea_level
        water = rivers(ground, threshold=THRESHOLD, outlets=sea)
        core = np.s_[HALO : HALO + REGION, HALO : HALO + REGION]
        river = water.river[core]
        share = np.log2(np.maximum(water.accumulation[core], THRESHOLD) / THRESHOLD)
        width = np.where(river, np.minimum(1.0 + share * 0.75, MAX_WIDTH), 0.0)
        level = np.floor(ground[core]).astype(np.int64) - 1
        return width, level, water.directions[core].astype(np.int64)

    return _REGIONS.get((config.key, rx, rz), make)


def _cells(config, c0: int, r0: int, nc: int, nr: int):
    """Width, level and direction of coarse cells ``c0 <= c < c0 + nc``,
    ``r0 <= r < r0 + nr`` (rows r), from the regions that own them."""
    width = np.zeros((nr, nc))
    level = np.zeros((nr, nc), np.int64)
    direction = np.full((nr, nc), -1, np.int64)
    for rz in range(r0 // REGION, (r0 + nr - 1) // REGION + 1):
        for rx in range(c0 // REGION, (c0 + nc - 1) // REGION + 1):
            w, lv, d = _region(config, rx, rz)
            a0, a1 = max(r0, rz * REGION), min(r0 + nr, (rz + 1) * REGION)
            b0, b1 = max(c0, rx * REGION), min(c0 + nc, (rx + 1) * REGION)
            src = np.s_[a0 - rz * REGION : a1 - rz * REGION, b0 - rx * REGION : b1 - rx * REGION]
            dst = np.s_[a0 - r0 : a1 - r0, b0 - c0 : b1 - c0]
            width[dst], level[dst], direction[dst] = w[src], lv[src], d[src]
    return width, level, direction


def river_columns(config, x0: int, z0: int, width: int, depth: int):
    """River and bank of the columns ``x0 <= x < x0 + width``, ``z0 <= z <
    z0 + depth``: ``(surface, cap)``, int64 ``(depth, width)``.

    ``surface``: the river's water surface y, or ``NONE``; ``cap``: the
    highest terrain block the column keeps (under the river's bed, a
    bank's slope, or ``NONE`` where nothing is cut).
    """
    reach = math.ceil((MAX_WIDTH + BANK) / CELL) + 1
    c0 = math.floor(x0 / CELL) - reach
    r0 = math.floor(z0 / CELL) - reach
    nc = (x0 + width - 1) // CELL + reach + 1 - c0 + 1
    nr = (z0 + depth - 1) // CELL + reach + 1 - r0 + 1
    cell_width, level, direction = _cells(config, c0, r0, nc, nr)
    surface = np.full((depth, width), NONE, np.int64)
    cap = np.full((depth, width), NONE, np.int64)
    _draw(cell_width, level, direction, D8_OFFSETS, c0, r0, x0, z0, surface, cap)
    return surface, cap


@kernel
def _draw(cell_width, level, direction, offsets, c0, r0, x0, z0, surface, cap):
    # Every river cell's segment to its downstream cell, drawn into the
    # columns it reaches; lowest water and lowest cut win, so the order of
    # cells does not matter.
    depth, width = surface.shape
    nr, nc = cell_width.shape
    for r in range(nr):
        for c in range(nc):
            w = cell_width[r, c]
            if w <= 0.0:
                continue
            d = direction[r, c]
            px = (c0 + c) * CELL + 0.5 * CELL
            pz = (r0 + r) * CELL + 0.5 * CELL
            qx = px
            qz = pz
            if d >= 0:
                qz = pz + offsets[d, 0] * CELL
                qx = px + offsets[d, 1] * CELL
            lv = level[r, c]
            reach = w + BANK
            i0 = max(int(np.floor(min(px, qx) - reach - x0)), 0)
            i1 = min(int(np.ceil(max(px, qx) + reach - x0)), width - 1)
            k0 = max(int(np.floor(min(pz, qz) - reach - z0)), 0)
            k1 = min(int(np.ceil(max(pz, qz) + reach - z0)), depth - 1)
            ex = qx - px
            ez = qz - pz
            length2 = ex * ex + ez * ez
            for k in range(k0, k1 + 1):
                for i in range(i0, i1 + 1):
                    # Distance from the column's centre to the segment.
                    cx = x0 + i + 0.5
                    cz = z0 + k + 0.5
                    t = 0.0
                    if length2 > 0.0:
                        t = min(max(((cx - px) * ex + (cz - pz) * ez) / length2, 0.0), 1.0)
                    dx = cx - (px + t * ex)
                    dz = cz - (pz + t * ez)
                    dist = np.sqrt(dx * dx + dz * dz)
                    if dist <= w:
                        # Water from the bed, 1 + w blocks down, to lv.
                        floor = lv - 2 - int(w)
                        if surface[k, i] == NONE or lv < surface[k, i]:
                            surface[k, i] = lv
                        if cap[k, i] == NONE or floor < cap[k, i]:
                            cap[k, i] = floor
                    elif dist <= reach:
                        top = lv + int(np.ceil(dist - w))
                        if cap[k, i] == NONE or top < cap[k, i]:
                            cap[k, i] = top
