"""Voxel terrain: ground, caves, aquifers, water, ores and trees, as pure
functions of world coordinates.

A region (any rectangle of columns, all of ``y_min <= y < y_max``) is made
from fields that depend only on world coordinates, so a chunk made alone
equals the same 16 x 16 columns cut from a bigger region, and chunks made in
any order, on any thread, are the same bytes.

- **Shape.** The ground is the world's (:mod:`worldgen.world`): column
  ``(x, z)`` is world cell ``(x, z)`` at full detail, and its target
  height is ``sea_level + elevation`` (one block a metre), so the voxel
  world has the map's continents, coasts, ranges and climate. With
  ``terrain='heightmap'`` a column is solid up to that height (its floor):
  a column is under water exactly where the map's elevation is below 0.
  With ``terrain='3d'`` (the default) a block is solid where the density
  ``height - y + relief * n(x, y, z)`` is positive, ``n`` being a 3D
  fractal noise and ``relief`` (blocks) growing with the metres the world's
  mountain ranges add, so mountains get cliffs that lean out, overhangs,
  arches and the odd floating rock, while plains and coasts (no ranges,
  no relief) keep the map's heights exactly. This is the "density
  function" construction of Minecraft 1.18 and later (terrain from 3D
  Perlin noise plus a height-dependent bias). The *surface* of a column is
  its highest solid terrain block.
- **Biomes.** The world's biome of each column (from its temperature and
  rainfall) picks ocean, beach, plains, forest, desert, taiga, snowy or
  mountains; each has its surface blocks, laid on the top of every run of
  solid blocks (so the floor under an overhang is grassed too), but for
  steep slopes (a column :data:`STEEP` blocks or more above or below a
  neighbour), which are bare stone unless sandy.
- **Caves** after the same generator's three kinds: *cheese* caverns where
  a fractal noise is high (from 12 blocks under the surface down),
  *spaghetti* tunnels where two noises are both near zero, and thin
  *noodle* tunnels, the same with two higher-frequency noises, where a
  gate noise allows them. Tunnels may open at the surface on land. No cave
  comes within 8 blocks of the surface of a column that is, or borders,
  sea, so caves never break into a sea floor or shore.
- **Coarse grid.** Every 3D noise (terrain and caves) is evaluated on a grid
  of cells 4 x 8 x 4 blocks aligned to world coordinates and interpolated
  to every block, as production generators do: bilinearly across, then up
  the column by a Catmull-Rom spline through four layers (linear
  interpolation up puts every extremum of a field on a layer, so thin
  caves there flatten into one-block sheets). Each noise has its own
  derived seed, scale and irrational shift of the lattice (multiples of
  the golden ratio), so no two noises share a lattice plane or line: two
  noises that are both zero along a shared lattice line cut a straight
  slit. Tunnel conditions (``a^2 + b^2 < t``) are applied to the
  interpolated noises, not interpolated themselves, so tunnels keep round
  sections.
- **Aquifers.** The world is divided into cells of 32 x 32 columns, each
  with a hashed, jittered centre and a fluid level: dry, water, or (deep
  ones) lava. A column belongs to the centre nearest to its position
  warped by up to 10 blocks (a 2D noise, so borders wander instead of
  running straight); its caves fill with that fluid up to that level.
  Where two aquifers with different levels meet, a band about 4 warped
  blocks wide keeps its stone up to the higher level, so a wall holds the
  fluid back. A cave cell directly under fluid stays
  solid, so no fluid ever rests on air.
- **Water** fills every non-cave air block up to ``sea_level`` (the top
  water block freezes in cold biomes).
- **Trees** stand on a jittered grid, one candidate per 8 x 8 cell, hashed
  from the seed; whether one grows depends on its column's biome. A chunk
  draws every tree whose crown reaches it, its own and its neighbours', so
  a tree across a chunk border is whole in both.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from worldgen._jit import kernel
from worldgen.noise import Fractal, Perlin
from worldgen.noise._seed import derive_seed
from worldgen.noise._validate import check_instance, check_int
from worldgen.voxel._blocks import (
    AIR,
    BEDROCK,
    COAL,
    DIAMOND,
    DIRT,
    GOLD,
    GRASS,
    GRAVEL,
    ICE,
    IRON,
    LAVA,
    LEAVES,
    SAND,
    SNOW,
    STONE,
    WATER,
    WOOD,
)
from worldgen.voxel._chunk import CHUNK, CHUNK_HIGH, CHUNK_LOW, Chunk
from worldgen.voxel._config import VoxelConfig
from worldgen.world._elevation import LAND_RAMP
from worldgen.world._fields import world_fields
from worldgen.world._hash import uniform3
from worldgen.world._rivers import LAKE, RIVER
from worldgen.world._window import REACH, Window

OCEAN, BEACH, PLAINS, FOREST, DESERT, TAIGA, SNOWY, MOUNTAINS = range(8)
BIOMES = ("ocean", "beach", "plains", "forest", "desert", "taiga", "snowy", "mountains")
# Chance that a tree grows in a grid cell, by biome.
TREE_CHANCE = np.array([0.0, 0.0, 0.12, 0.85, 0.0, 0.7, 0.15, 0.0])
TREE_CELL = 8
CROWN = 2  # crown radius in blocks
MARGIN = CROWN + 1  # columns beyond a region that its trees may stand on
# A land column whose surface differs from a neighbour's by STEEP blocks or
# more is a steep slope: bare stone (not grass, dirt or snow; sand stays).
STEEP = 3
GRID_CELL = (4, 8, 4)  # x, y, z: the coarse grid of the 3D noises

# Column fields: (tag, blocks per lattice cell, octaves).
_FIELDS = {
    "aquifer warp x": (17, 40.0, 2),
    "aquifer warp z": (18, 40.0, 2),
}
# Grid fields, in this order: (tag, blocks per lattice cell across and up,
# octaves). The scales differ pairwise as well as the seeds and shifts.
_GRID_FIELDS = {
    "terrain": (10, 80.0, 24.0, 3),
    "cheese": (11, 64.0, 40.0, 2),
    "spaghetti a": (12, 52.0, 52.0, 1),
    "spaghetti b": (13, 47.0, 47.0, 1),
    "noodle a": (14, 24.0, 24.0, 1),
    "noodle b": (15, 21.0, 21.0, 1),
    "noodle gate": (16, 110.0, 70.0, 1),
}
TERRAIN, CHEESE, SPAGHETTI_A, SPAGHETTI_B, NOODLE_A, NOODLE_B, NOODLE_GATE = range(7)
_GOLDEN = (1.0 + 5.0**0.5) / 2.0

# Cave thresholds: cheese where its noise exceeds CHEESE_LEVEL; tunnels
# where a^2 + b^2 is below SPAGHETTI / NOODLE.
CHEESE_LEVEL = 0.3
SPAGHETTI = 0.006
NOODLE = 0.004
# A margin far wider than any rounding of the fields (about 1e-13 on heights
# of hundreds of blocks), for tests that skip work only where its outcome is
# certain: a tunnel's noise must come within its threshold's root of zero.
_SURE = 1e-6
_SPAGHETTI_ROOT = SPAGHETTI**0.5 + _SURE
_NOODLE_ROOT = NOODLE**0.5 + _SURE
# 3D relief in blocks: RELIEF_SLOPE * the metres the world's ranges add
# to a column (0 off the ranges and at the coast), at most RELIEF_MAX.
RELIEF_SLOPE = 0.5
RELIEF_MAX = 48.0
# Bound of the interpolated 3D terrain noise: fractal Perlin in 3D lies in
# [-1.0364, 1.0364] and Catmull-Rom weights sum to at most 1.25 in size.
_NOISE_BOUND = 1.0363538114 * 1.25

AQUIFER_CELL = 32
AQUIFER_DRY = 0.35  # chance that an aquifer holds no fluid
AQUIFER_WARP = 10.0  # blocks by which aquifer borders wander
AQUIFER_BARRIER = 2.0  # half-width (warped blocks) of the wall between aquifers
LAVA_BELOW = 24  # aquifers with levels under y_min + LAVA_BELOW hold lava

# The voxel biome of each world biome (worldgen.world.BIOMES, in order).
_FROM_WORLD = np.array(
    [OCEAN, OCEAN, BEACH, DESERT, PLAINS, FOREST, FOREST, PLAINS, FOREST, FOREST, TAIGA,
     SNOWY, SNOWY, MOUNTAINS, OCEAN],
    dtype=np.uint8,
)  # fmt: skip


@functools.lru_cache(maxsize=16)
def _noises(seed: int) -> dict[str, Fractal]:
    fields = {name: (tag, octaves) for name, (tag, _, octaves) in _FIELDS.items()}
    fields |= {name: (tag, octaves) for name, (tag, _, _, octaves) in _GRID_FIELDS.items()}
    return {
        name: Fractal(Perlin(derive_seed(seed, tag)), octaves=octaves)
        for name, (tag, octaves) in fields.items()
    }


def lattice_shift(tag: int, axis: int) -> float:
    """Shift, in lattice units, of grid field ``tag`` along noise axis
    ``axis``: ``n + frac(n * golden ratio)`` with ``n = 3 tag + axis + 1``.
    The fractional parts of distinct ``n`` differ (the golden ratio is
    irrational), so no two fields' lattices share a plane."""
    n = 3 * tag + axis + 1
    return n + (n * _GOLDEN) % 1.0


@dataclasses.dataclass
class Columns:
    """Per-column fields of a rectangle of columns, shape ``(depth, width)``,
    and the coarse grid of the 3D noises over them."""

    height: np.ndarray  # float64, target ground height
    relief: np.ndarray  # float64, blocks of 3D relief
    temperature: np.ndarray  # float64, degrees Celsius
    biome: np.ndarray  # uint8, the world's biome
    level: np.ndarray  # int64, the aquifer's fluid level (see _aquifers)
    fluid: np.ndarray  # uint8, its fluid
    wall: np.ndarray  # int64, caves stay solid up to here
    water_kind: np.ndarray | None  # uint8, the world's (rivers only)
    water_surface: np.ndarray | None  # float64, the water's y (rivers only)
    grid: np.ndarray  # float64 (F, Y, Z, X), see _grid
    gx0: int  # world x of the grid's first point
    gz0: int  # world z of the grid's first point


# The columns' fields are made for blocks of FIELD_BLOCK x FIELD_BLOCK
# columns and FIELD_HALO more on every side, and kept: a chunk (with its
# margin) lies inside the block of its corner, so the sixteen chunks of a
# block share one call of the world's fields (its climate grids, continent
# tables and ranges are made once, not per chunk), of the column noises and
# of the 3D noises' grid. Every field is exact in any window, so the crop
# is the same bytes as the chunk's own window.
FIELD_BLOCK = 64
FIELD_HALO = 8
NO_RIVER = -(2**31)  # "no river here", in a column's water top and cap


def columns(config: VoxelConfig, x0: int, z0: int, width: int, depth: int) -> Columns:
    """Target height, relief, climate, aquifer positions and the 3D noises
    of columns ``x0 <= x < x0 + width``, ``z0 <= z < z0 + depth``: cut from
    their block's (see :data:`FIELD_BLOCK`) when they fit in one, else made
    for them alone."""
    bx = (x0 + FIELD_HALO) // FIELD_BLOCK
    bz = (z0 + FIELD_HALO) // FIELD_BLOCK
    bx0, bz0 = bx * FIELD_BLOCK - FIELD_HALO, bz * FIELD_BLOCK - FIELD_HALO
    side = FIELD_BLOCK + 2 * FIELD_HALO
    if x0 + width > bx0 + side or z0 + depth > bz0 + side:
        return _columns(config, x0, z0, width, depth)
    block = _block_columns(config, bx, bz)
    cut = np.s_[z0 - bz0 : z0 - bz0 + depth, x0 - bx0 : x0 - bx0 + width]
    return dataclasses.replace(
        block,
        **{
            name: array[cut]
            for name, array in vars(block).items()
            if name != "grid" and isinstance(array, np.ndarray)
        },
    )


@functools.lru_cache(maxsize=64)
def _block_columns(config: VoxelConfig, bx: int, bz: int) -> Columns:
    side = FIELD_BLOCK + 2 * FIELD_HALO
    cols = _columns(
        config, bx * FIELD_BLOCK - FIELD_HALO, bz * FIELD_BLOCK - FIELD_HALO, side, side
    )
    for array in vars(cols).values():
        if isinstance(array, np.ndarray):
            array.flags.writeable = False
    return cols


def _columns(config: VoxelConfig, x0: int, z0: int, width: int, depth: int) -> Columns:
    fields = world_fields(config.world, Window(x0, z0, width, depth), rivers=config.rivers)
    land = np.clip(fields.continentalness / LAND_RAMP, 0.0, 1.0)
    mountains = np.maximum(fields.mountains, 0.0) * land * land * (3.0 - 2.0 * land)
    height = config.sea_level + fields.elevation
    relief = np.minimum(RELIEF_SLOPE * mountains, RELIEF_MAX)
    kind = fields.water_kind
    water = None if kind is None else config.sea_level + fields.surface
    wx = x0 + np.arange(width, dtype=np.float64)
    wz = z0 + np.arange(depth, dtype=np.float64)
    noise = _noises(config.seed)
    field = {
        name: noise[name].grid(wx / scale, wz / scale) for name, (_, scale, _) in _FIELDS.items()
    }
    # The highest block any column's terrain, caves or trees read the grid
    # at: its 3D terrain's top (see _surface_3d) or its height-map surface.
    if config.terrain == "3d":
        top = np.floor(height + relief * _NOISE_BOUND) + 1.0
    else:
        top = np.floor(height)
    top = float(np.clip(top, config.y_min, config.y_max - 24).max())
    grid, gx0, gz0 = _grid(config, x0, z0, width, depth, int(top) - config.y_min)
    if config.caves and config.aquifers:
        level, fluid, wall = _aquifers(
            wx[None, :] + AQUIFER_WARP * field["aquifer warp x"],
            wz[:, None] + AQUIFER_WARP * field["aquifer warp z"],
            np.uint64(derive_seed(config.seed, 0x41515546)),
            config.y_min,
            config.sea_level,
        )
    else:
        level = np.full(height.shape, config.y_min - 1, dtype=np.int64)
        fluid = np.full(height.shape, AIR, dtype=np.uint8)
        wall = level
    return Columns(
        height, relief, fields.temperature, fields.biome, level, fluid, wall, kind, water, grid,
        gx0, gz0,
    )  # fmt: skip


def biomes(cols: Columns, surface: np.ndarray, sea_level: int) -> np.ndarray:
    """Biome (uint8, see :data:`BIOMES`) of columns with these surfaces:
    the world's, mapped to the voxel biomes; ocean where the surface is
    under the sea."""
    biome = _FROM_WORLD[cols.biome]
    biome[(biome == OCEAN) & (surface >= sea_level)] = BEACH  # a shore the 3D ground raised
    biome[surface < sea_level] = OCEAN
    return biome


def _grid(config: VoxelConfig, x0: int, z0: int, width: int, depth: int, dy: int):
    """The grid fields (F, Y, Z, X) on the coarse grid covering the columns,
    up to the layers read at ``dy`` blocks above ``y_min`` (see
    :func:`_reach`; the kernels read no higher), and the world x, z of its
    first point. Fields the config does not use stay zero."""
    cx, cy, cz = GRID_CELL
    ix0, iz0 = x0 // cx, z0 // cz
    ix1, iz1 = (x0 + width - 1) // cx + 1, (z0 + depth - 1) // cz + 1
    wx = np.arange(ix0, ix1 + 1, dtype=np.float64) * cx
    wz = np.arange(iz0, iz1 + 1, dtype=np.float64) * cz
    layers = min(_reach(dy), config.height // cy + 1)
    wy = config.y_min + np.arange(layers, dtype=np.float64) * cy
    grid = np.zeros((len(_GRID_FIELDS), wy.size, wz.size, wx.size))
    noise = _noises(config.seed)
    for f, (name, (tag, across, up, _)) in enumerate(_GRID_FIELDS.items()):
        if (f == TERRAIN and config.terrain != "3d") or (f != TERRAIN and not config.caves):
            continue
        # Noise axes (x, y, z) = world (x, z, y): grids come out (y, z, x).
        grid[f] = noise[name].grid(
            wx / across + lattice_shift(tag, 0),
            wz / across + lattice_shift(tag, 1),
            wy / up + lattice_shift(tag, 2),
        )
    return grid, int(ix0 * cx), int(iz0 * cz)


# ------------------------------------------------------------------ kernels


@kernel
def _column_layers(grid, first, stop, layers, gx0, gz0, x, z, out):
    # Grid fields first..stop-1 at column (x, z), one value per grid layer
    # below ``layers``: bilinear in x then z, into out (F, Y).
    dx = x - gx0
    dz = z - gz0
    i = dx // 4
    k = dz // 4
    u = (dx % 4) * 0.25
    w = (dz % 4) * 0.25
    for f in range(first, stop):
        for j in range(min(layers, grid.shape[1])):
            a = grid[f, j, k, i] + u * (grid[f, j, k, i + 1] - grid[f, j, k, i])
            b = grid[f, j, k + 1, i] + u * (grid[f, j, k + 1, i + 1] - grid[f, j, k + 1, i])
            out[f, j] = a + w * (b - a)


@kernel
def _reach(dy):
    # Grid layers that _at reads for heights up to dy blocks above y_min.
    return (dy >> 3) + 3


@kernel
def _at(layers, f, dy):
    # Field f at dy blocks above y_min: Catmull-Rom through four grid layers
    # (the end layers repeated at the top and bottom).
    j = dy >> 3
    v = (dy & 7) * 0.125
    p0 = layers[f, max(j - 1, 0)]
    p1 = layers[f, j]
    p2 = layers[f, j + 1]
    p3 = layers[f, min(j + 2, layers.shape[1] - 1)]
    return p1 + 0.5 * v * (
        p2 - p0 + v * (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3 + v * (3.0 * (p1 - p2) + p3 - p0))
    )


@kernel
def _dense(layers, y, y_min, height, relief):
    # Is the 3D terrain's density positive at block y of a column?
    return height - y + relief * _at(layers, TERRAIN, y - y_min) > 0.0


@kernel
def _ground(layers, j, y_min, height, relief):
    # The 3D terrain in grid cell j (its 8 blocks from y_min + 8 j up): 1
    # if the density is positive in all of them whatever the noise's value
    # within its span, -1 if in none, 0 if it may change sign there.
    lo, hi = _span(layers, TERRAIN, j)
    bottom = y_min + 8 * j
    if height - (bottom + 7) + relief * lo > _SURE:
        return 1
    if height - bottom + relief * hi < -_SURE:
        return -1
    return 0


@kernel
def _surface_3d(height, relief, grid, gx0, gz0, x0, z0, y_min, y_max):
    # Highest solid terrain block of every column (3D terrain).
    depth, width = height.shape
    out = np.empty((depth, width), dtype=np.int64)
    layers = np.empty((1, grid.shape[1]))
    for k in range(depth):
        for i in range(width):
            h = height[k, i]
            r = relief[k, i]
            # Above height + relief * bound the density is negative.
            y = max(min(y_max - 24, int(np.floor(h + r * _NOISE_BOUND)) + 1), y_min)
            _column_layers(grid, 0, 1, _reach(y - y_min), gx0, gz0, x0 + i, z0 + k, layers)
            # Never solid above ``ceiling``, always below ``floor`` and in
            # the bottom 9 blocks (as in _fill).
            ceiling = min(y_max - 24, h + r * _NOISE_BOUND)
            floor = h - r * _NOISE_BOUND - _SURE
            while y > y_min + 8 and y >= floor:
                if y <= ceiling:
                    cell = (y - y_min) >> 3
                    known = _ground(layers, cell, y_min, h, r)
                    if known > 0 or (known == 0 and _dense(layers, y, y_min, h, r)):
                        break
                    if known < 0:
                        y = y_min + 8 * cell  # air down to the cell's bottom block
                y -= 1
            y = max(y, y_min + 8)
            out[k, i] = y
    return out


@kernel
def _cave(layers, y, y_min, surface, shore):
    # Is block y of a column with this surface (and shore flag) in a cave?
    return _cave_if(layers, y, y_min, surface, shore, True, True, True)


@kernel
def _cave_if(layers, y, y_min, surface, shore, spaghetti, noodle, cheese):
    # _cave, looking only for the kinds of cave flagged (the others are
    # known to be absent: see _cave_kinds).
    if y > surface or y < y_min + 5:
        return False
    if shore and y > surface - 8:
        return False
    dy = y - y_min
    if spaghetti:
        a = _at(layers, SPAGHETTI_A, dy)
        if a * a < SPAGHETTI:
            b = _at(layers, SPAGHETTI_B, dy)
            if a * a + b * b < SPAGHETTI:
                return True
    if noodle and _at(layers, NOODLE_GATE, dy) > 0.0:
        a = _at(layers, NOODLE_A, dy)
        if a * a < NOODLE:
            b = _at(layers, NOODLE_B, dy)
            if a * a + b * b < NOODLE:
                return True
    return cheese and y < surface - 12 and _at(layers, CHEESE, dy) > CHEESE_LEVEL


@kernel
def _span(layers, f, j):
    # Bounds of field f between grid layers j and j + 1 as _at interpolates
    # it: the Catmull-Rom segment is the cubic Bezier curve with control
    # points p1, p1 + (p2 - p0) / 6, p2 - (p3 - p1) / 6 and p2, which lies
    # within their range. Widened by _SURE against rounding.
    p0 = layers[f, max(j - 1, 0)]
    p1 = layers[f, j]
    p2 = layers[f, j + 1]
    p3 = layers[f, min(j + 2, layers.shape[1] - 1)]
    b1 = p1 + (p2 - p0) * (1.0 / 6.0)
    b2 = p2 - (p3 - p1) * (1.0 / 6.0)
    lo = min(min(p1, p2), min(b1, b2))
    hi = max(max(p1, p2), max(b1, b2))
    return lo - _SURE, hi + _SURE


@kernel
def _cave_kinds(layers, j):
    # Which kinds of cave can open between grid layers j and j + 1 (8
    # blocks): a tunnel only where both its noises can come within its
    # threshold's root of zero (and the noodles' gate above zero), a cavern
    # only where the cheese noise can pass its level.
    spaghetti = _near_zero(layers, SPAGHETTI_A, j, _SPAGHETTI_ROOT) and _near_zero(
        layers, SPAGHETTI_B, j, _SPAGHETTI_ROOT
    )
    noodle = (
        _span(layers, NOODLE_GATE, j)[1] > 0.0
        and _near_zero(layers, NOODLE_A, j, _NOODLE_ROOT)
        and _near_zero(layers, NOODLE_B, j, _NOODLE_ROOT)
    )
    return spaghetti, noodle, _span(layers, CHEESE, j)[1] > CHEESE_LEVEL


@kernel
def _near_zero(layers, f, j, root):
    # Can field f come within ``root`` of zero between layers j and j + 1?
    lo, hi = _span(layers, f, j)
    return lo < root and hi > -root


@kernel
def _aquifer_centre(key, c, r, y_min, sea_level):
    # Jittered centre (x, z), fluid level and fluid of aquifer cell (c, r).
    px = (c + 0.15 + 0.7 * uniform3(key, c, 1, r)) * AQUIFER_CELL
    pz = (r + 0.15 + 0.7 * uniform3(key, c, 2, r)) * AQUIFER_CELL
    if uniform3(key, c, 3, r) < AQUIFER_DRY:
        return px, pz, y_min - 1, AIR
    level = y_min + 6 + int(uniform3(key, c, 4, r) * (sea_level - 8 - y_min - 6))
    return px, pz, level, (LAVA if level < y_min + LAVA_BELOW else WATER)


@kernel
def _aquifers(warped_x, warped_z, key, y_min, sea_level):
    # Per column, looked up at its warped position: fluid level, fluid, and
    # the level up to which caves stay solid (a wall between two aquifers
    # that differ), or y_min - 1.
    depth, width = warped_x.shape
    level = np.empty((depth, width), dtype=np.int64)
    fluid = np.empty((depth, width), dtype=np.uint8)
    wall = np.full((depth, width), y_min - 1, dtype=np.int64)
    if depth * width == 0:
        return level, fluid, wall
    # The centres of every cell the columns look at, made once.
    cx0 = int(np.floor(warped_x.min() / AQUIFER_CELL)) - 1
    cz0 = int(np.floor(warped_z.min() / AQUIFER_CELL)) - 1
    cols = int(np.floor(warped_x.max() / AQUIFER_CELL)) + 2 - cx0
    rows = int(np.floor(warped_z.max() / AQUIFER_CELL)) + 2 - cz0
    centre_x = np.empty((rows, cols))
    centre_z = np.empty((rows, cols))
    levels = np.empty((rows, cols), dtype=np.int64)
    fluids = np.empty((rows, cols), dtype=np.uint8)
    for r in range(rows):
        for c in range(cols):
            px, pz, lv, fl = _aquifer_centre(key, cx0 + c, cz0 + r, y_min, sea_level)
            centre_x[r, c] = px
            centre_z[r, c] = pz
            levels[r, c] = lv
            fluids[r, c] = fl
    for k in range(depth):
        for i in range(width):
            x = warped_x[k, i]
            z = warped_z[k, i]
            c0 = int(np.floor(x / AQUIFER_CELL)) - cx0
            r0 = int(np.floor(z / AQUIFER_CELL)) - cz0
            d1 = d2 = np.inf
            p1x = p1z = p2x = p2z = 0.0
            l1 = l2 = 0
            f1 = f2 = AIR
            for r in range(r0 - 1, r0 + 2):
                for c in range(c0 - 1, c0 + 2):
                    px = centre_x[r, c]
                    pz = centre_z[r, c]
                    lv = levels[r, c]
                    fl = fluids[r, c]
                    d = (x - px) ** 2 + (z - pz) ** 2
                    if d < d1:
                        d2, p2x, p2z, l2, f2 = d1, p1x, p1z, l1, f1
                        d1, p1x, p1z, l1, f1 = d, px, pz, lv, fl
                    elif d < d2:
                        d2, p2x, p2z, l2, f2 = d, px, pz, lv, fl
            level[k, i] = l1
            fluid[k, i] = f1
            if l1 != l2 or f1 != f2:
                # Distance to the bisector of the two nearest centres.
                gap = np.sqrt((p1x - p2x) ** 2 + (p1z - p2z) ** 2)
                if (d2 - d1) / (2.0 * gap) < AQUIFER_BARRIER:
                    wall[k, i] = max(l1, l2)
    return level, fluid, wall


@kernel
def _fill(
    blocks, surface, height, relief, biome, cold, shore, steep, level, fluid, wall, river,
    cap, grid, gx0, gz0, x0, z0, margin, y_min, y_max, sea_level, key, three_d, caves, ores,
):  # fmt: skip
    # Terrain, caves, aquifers, ores, bedrock and water for every column of
    # blocks (Y, Z, X), top down; the column fields carry ``margin`` extra
    # columns each side.
    ny, depth, width = blocks.shape
    layers = np.empty((grid.shape[0], grid.shape[1]))
    for k in range(depth):
        for i in range(width):
            kk = k + margin
            ii = i + margin
            x = x0 + i
            z = z0 + k
            top = surface[kk, ii]
            h = height[kk, ii]
            r = relief[kk, ii]
            # Only the layers that the terrain and caves read.
            peak = max(min(y_max - 24, int(np.floor(h + r * _NOISE_BOUND)) + 1), y_min)
            if three_d:
                _column_layers(grid, 0, 1, _reach(peak - y_min), gx0, gz0, x, z, layers)
            if caves:
                reach = _reach(max(top, y_min) - y_min)
                _column_layers(grid, 1, grid.shape[0], reach, gx0, gz0, x, z, layers)
            b = biome[kk, ii]
            water_top = river[kk, ii]
            keep = cap[kk, ii]
            run_top = top
            above = AIR
            above_solid = False
            # Above the highest block that may be solid (the 3D terrain's
            # peak, or the surface) and any water, every block is air.
            highest = max(peak if three_d else top, max(sea_level, water_top))
            start = min(ny - 1, highest - y_min)
            for j in range(ny - 1, start, -1):
                blocks[j, k, i] = AIR
            # The 3D terrain without its noise: never solid above
            # ``ceiling`` (nor in the top 24 blocks), always below ``floor``.
            ceiling = min(y_max - 24, h + r * _NOISE_BOUND)
            floor = h - r * _NOISE_BOUND - _SURE
            cell = terrain_cell = -1
            known = 0
            spaghetti = noodle = cheese = False
            for j in range(start, -1, -1):
                y = y_min + j
                block = AIR
                solid = False
                if keep == NO_RIVER or y <= keep:
                    if not three_d:
                        solid = y <= top
                    elif y <= y_min + 8:
                        solid = True  # the bottom 9 blocks always are
                    elif y > ceiling:
                        solid = False
                    elif y < floor:
                        solid = True
                    else:
                        if j >> 3 != terrain_cell:
                            terrain_cell = j >> 3
                            known = _ground(layers, terrain_cell, y_min, h, r)
                        solid = known > 0 or (known == 0 and _dense(layers, y, y_min, h, r))
                if solid:
                    if not above_solid:
                        run_top = y
                    above_solid = True
                    below = run_top - y
                    block = STONE
                    if b == OCEAN:
                        if below < 3:
                            block = GRAVEL if run_top < sea_level - 10 else SAND
                    elif b == BEACH or b == DESERT:
                        if below < 4:
                            block = SAND
                    elif b == MOUNTAINS:
                        if below == 0 and run_top > sea_level + 110:
                            block = SNOW
                    elif steep[kk, ii]:
                        pass  # bare rock on a steep slope
                    elif below == 0:
                        block = SNOW if b == SNOWY else GRASS
                    elif below < 4:
                        block = DIRT
                    if block == STONE and ores and y <= 128:  # no ore higher up
                        p = uniform3(key, x, y, z)
                        if p < 0.012:
                            block = COAL
                        elif -32 <= y <= 64 and p < 0.020:
                            block = IRON
                        elif y <= 32 and p < 0.022:
                            block = GOLD
                        elif y <= -48 and p < 0.023:
                            block = DIAMOND
                    if caves and j >> 3 != cell:
                        cell = j >> 3
                        spaghetti, noodle, cheese = _cave_kinds(layers, cell)
                    if (spaghetti or noodle or cheese) and _cave_if(
                        layers, y, y_min, top, shore[kk, ii], spaghetti, noodle, cheese
                    ):
                        if y <= wall[kk, ii]:
                            pass  # the wall between two aquifers
                        elif y <= level[kk, ii]:
                            block = fluid[kk, ii]
                        elif above != WATER and above != LAVA and above != ICE:
                            block = AIR  # else a roof under the fluid
                    if y <= y_min + 4 and (
                        y == y_min or uniform3(key, x, y, -z - 1) < (y_min + 5 - y) / 5.0
                    ):
                        block = BEDROCK
                else:
                    above_solid = False
                    if y <= sea_level:
                        block = ICE if (y == sea_level and cold[kk, ii]) else WATER
                    elif y <= water_top:
                        block = WATER  # a river (water_top is NO_RIVER elsewhere)
                blocks[j, k, i] = block
                above = block


def _river_columns(cols: Columns, surface: np.ndarray, y_max: int):
    """The world's rivers and lakes in columns whose ground tops are
    ``surface``: ``(water top, cap, wet)``: the water's highest block y (at
    least one block over the ground), the highest ground block kept (the
    bed: no 3D relief fills a river), ``NO_RIVER`` in dry columns."""
    wet = (cols.water_kind == RIVER) | (cols.water_kind == LAKE)
    cap = np.minimum(surface, np.floor(cols.height).astype(np.int64))
    top = np.floor(cols.water_surface).astype(np.int64)
    top = np.minimum(np.maximum(top, cap + 1), y_max)
    return np.where(wet, top, NO_RIVER), np.where(wet, cap, NO_RIVER), wet


@kernel
def _steep(surface, rise):
    # Columns whose surface differs from a 4-neighbour's by ``rise`` or
    # more (beyond the edges, the edge columns themselves).
    depth, width = surface.shape
    out = np.zeros((depth, width), dtype=np.bool_)
    for k in range(depth):
        for i in range(width):
            centre = surface[k, i]
            for near in (
                surface[max(k - 1, 0), i], surface[min(k + 1, depth - 1), i],
                surface[k, max(i - 1, 0)], surface[k, min(i + 1, width - 1)],
            ):  # fmt: skip
                if abs(near - centre) >= rise:
                    out[k, i] = True
    return out


@kernel
def _shore(surface, sea_level):
    # Columns that are below the sea or touch such a column (8-neighbours).
    depth, width = surface.shape
    out = np.zeros(surface.shape, dtype=np.bool_)
    for k in range(depth):
        for i in range(width):
            for dk in range(-1, 2):
                for di in range(-1, 2):
                    kk = min(max(k + dk, 0), depth - 1)
                    ii = min(max(i + di, 0), width - 1)
                    if surface[kk, ii] < sea_level:
                        out[k, i] = True
    return out


@kernel
def _tree_cells(x0, z0, width, depth):
    # The first and last tree grid columns and rows whose crowns may reach
    # the columns x0 <= x < x0 + width, z0 <= z < z0 + depth.
    c0 = (x0 - CROWN) // TREE_CELL
    c1 = (x0 + width - 1 + CROWN) // TREE_CELL
    r0 = (z0 - CROWN) // TREE_CELL
    r1 = (z0 + depth - 1 + CROWN) // TREE_CELL
    return c0, c1, r0, r1


@kernel
def _tree(surface, biome, chance, c, r, x0, z0, margin, y_max, sea_level, key):
    # The tree candidate of grid cell (c, r): its trunk's world x, z, its
    # column in the fields (i, k), and its trunk's height, -1 where no tree
    # grows (outside the fields, by chance of its biome, under the sea or
    # too near the top of the world).
    tx = c * TREE_CELL + 1 + int(uniform3(key, c, 1, r) * (TREE_CELL - 2))
    tz = r * TREE_CELL + 1 + int(uniform3(key, c, 2, r) * (TREE_CELL - 2))
    i = tx - x0 + margin
    k = tz - z0 + margin
    if i < 0 or k < 0 or i >= surface.shape[1] or k >= surface.shape[0]:
        return tx, tz, 0, 0, -1
    if uniform3(key, c, 3, r) >= chance[biome[k, i]]:
        return tx, tz, i, k, -1
    trunk = 4 + int(uniform3(key, c, 4, r) * 3)
    if surface[k, i] < sea_level or surface[k, i] + trunk + 3 >= y_max:
        return tx, tz, i, k, -1
    return tx, tz, i, k, trunk


@kernel
def _trees(
    blocks, surface, biome, shore, grid, gx0, gz0, chance,
    x0, z0, margin, y_min, y_max, sea_level, key, caves,
):  # fmt: skip
    # Draw every tree whose crown reaches the region: leaves first, then
    # trunks over them, so the result does not depend on the order of trees.
    depth, width = blocks.shape[1], blocks.shape[2]
    layers = np.empty((grid.shape[0], grid.shape[1]))
    c0, c1, r0, r1 = _tree_cells(x0, z0, width, depth)
    for stage in range(2):
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                tx, tz, i, k, trunk = _tree(
                    surface, biome, chance, c, r, x0, z0, margin, y_max, sea_level, key
                )
                if trunk < 0:
                    continue
                ground = surface[k, i]
                if caves:
                    reach = _reach(ground - y_min)
                    _column_layers(grid, 1, grid.shape[0], reach, gx0, gz0, tx, tz, layers)
                    if _cave(layers, ground, y_min, ground, shore[k, i]):
                        continue
                top = ground + trunk
                if stage == 0:
                    for y in range(top - 2, top + 2):
                        reach = CROWN if y < top else 1
                        for dz in range(-reach, reach + 1):
                            for dx in range(-reach, reach + 1):
                                if reach == CROWN and abs(dx) == CROWN and abs(dz) == CROWN:
                                    continue
                                _put(blocks, tx + dx - x0, y - y_min, tz + dz - z0, LEAVES)
                else:
                    for y in range(ground + 1, top + 1):
                        _put(blocks, tx - x0, y - y_min, tz - z0, WOOD)


@kernel
def _put(blocks, i, j, k, block):
    # Set a block inside the region if it is air (leaves) or air/leaves (wood).
    if 0 <= i < blocks.shape[2] and 0 <= j < blocks.shape[0] and 0 <= k < blocks.shape[1]:
        old = blocks[j, k, i]
        if old == AIR or (block == WOOD and old == LEAVES):
            blocks[j, k, i] = block


@kernel
def _heights(blocks, y_min):
    # World y of the highest non-air block of each column.
    height, depth, width = blocks.shape
    out = np.full((depth, width), y_min - 1, dtype=np.int16)
    for k in range(depth):
        for i in range(width):
            for j in range(height - 1, -1, -1):
                if blocks[j, k, i] != AIR:
                    out[k, i] = y_min + j
                    break
    return out


def generate_region(
    config: VoxelConfig, x0: int, z0: int, width: int, depth: int
) -> tuple[np.ndarray, np.ndarray]:
    """Blocks and column heights of the columns ``x0 <= x < x0 + width``,
    ``z0 <= z < z0 + depth``.

    Returns
    -------
    blocks : uint8 (Y, depth, width)
        ``blocks[y - y_min, z - z0, x - x0]``.
    heights : int16 (depth, width)
        The world y of each column's highest non-air block (terrain, water,
        ice or tree).

    Examples
    --------
    >>> blocks, heights = generate_region(VoxelConfig(seed=1), 0, 0, 4, 3)
    >>> blocks.shape, heights.shape
    ((384, 3, 4), (3, 4))
    """
    check_instance(config, "config", VoxelConfig)
    # Within a window's reach: the margins, halos and field blocks the
    # columns are made in stay inside the world's windows.
    x0 = check_int(x0, "x0", -REACH, REACH)
    z0 = check_int(z0, "z0", -REACH, REACH)
    width = check_int(width, "width", 1, 2**14)
    depth = check_int(depth, "depth", 1, 2**14)
    m = MARGIN
    ex0, ez0, ewidth, edepth = x0 - m, z0 - m, width + 2 * m, depth + 2 * m
    cols = columns(config, ex0, ez0, ewidth, edepth)
    grid, gx0, gz0 = cols.grid, cols.gx0, cols.gz0
    three_d = config.terrain == "3d"
    if three_d:
        surface = _surface_3d(
            cols.height, cols.relief, grid, gx0, gz0, ex0, ez0, config.y_min, config.y_max
        )
    else:
        surface = np.clip(np.floor(cols.height), config.y_min + 8, config.y_max - 24)
        surface = surface.astype(np.int64)
    if config.rivers:
        river, cap, cut = _river_columns(cols, surface, config.y_max)
        surface = np.where(cut, cap, surface)
    else:
        river = cap = np.full(surface.shape, NO_RIVER, dtype=np.int64)
        cut = np.zeros(surface.shape, dtype=np.bool_)
    biome = biomes(cols, surface, config.sea_level)
    biome[(river != NO_RIVER) & (surface >= config.sea_level - 1)] = BEACH  # sandy beds
    cold = cols.temperature < 0.0
    shore = _shore(surface, config.sea_level) | cut  # no cave breaks into a river
    steep = _steep(surface, STEEP)
    key = np.uint64(derive_seed(config.seed, 0x424C4F43))
    blocks = np.empty((config.height, depth, width), dtype=np.uint8)
    _fill(
        blocks, surface, cols.height, cols.relief, biome, cold, shore, steep, cols.level,
        cols.fluid, cols.wall, river, cap, grid, gx0, gz0, x0, z0, m, config.y_min,
        config.y_max, config.sea_level, key, three_d, config.caves, config.ores,
    )  # fmt: skip
    if config.trees:
        _trees(
            blocks, surface, biome, shore, grid, gx0, gz0, TREE_CHANCE,
            x0, z0, m, config.y_min, config.y_max, config.sea_level, key, config.caves,
        )  # fmt: skip
    return blocks, _heights(blocks, config.y_min)


def generate_chunk(config: VoxelConfig, cx: int, cz: int) -> Chunk:
    """Chunk ``(cx, cz)``: the 16 x 16 columns from ``(16 cx, 16 cz)``."""
    cx = check_int(cx, "cx", CHUNK_LOW, CHUNK_HIGH)  # as a Chunk holds them
    cz = check_int(cz, "cz", CHUNK_LOW, CHUNK_HIGH)
    blocks, heights = generate_region(config, CHUNK * cx, CHUNK * cz, CHUNK, CHUNK)
    return Chunk(cx, cz, blocks, heights)


# ------------------------------------------------------------ seen from above

# Columns a tree's crown covers, seen from above: a 5 x 5 square without
# its corners.
CROWN_CELLS = (2 * CROWN + 1) ** 2 - 4


@kernel
def _crowns(top, ids, surface, biome, chance, x0, z0, margin, y_max, sea_level, key):
    # Leaves over every column a tree's crown covers, and their height, in
    # top and ids (the window's columns; the fields carry ``margin`` more).
    depth, width = top.shape
    c0, c1, r0, r1 = _tree_cells(x0, z0, width, depth)
    across = c1 - c0 + 1
    for n in range((r1 - r0 + 1) * across):  # the tree cells, row by row
        tx, tz, i, k, trunk = _tree(
            surface, biome, chance, c0 + n % across, r0 + n // across, x0, z0, margin, y_max,
            sea_level, key,
        )  # fmt: skip
        if trunk >= 0:
            ground = surface[k, i]
            for dz in range(-CROWN, CROWN + 1):
                for dx in range(-CROWN, CROWN + 1):
                    if abs(dx) == CROWN and abs(dz) == CROWN:
                        continue
                    ii = tx + dx - x0
                    kk = tz + dz - z0
                    # The crown's top two layers are 3 x 3, the two under them 5 x 5.
                    leaf = ground + trunk + (1 if max(abs(dx), abs(dz)) < CROWN else -1)
                    if 0 <= ii < width and 0 <= kk < depth and top[kk, ii] < leaf:
                        top[kk, ii] = leaf
                        ids[kk, ii] = LEAVES


def surface_blocks(
    config: VoxelConfig, window: Window
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The voxel world seen from above, straight from the world's fields:
    per sample of ``window`` (x, z in world columns, any step), the block
    on top, its height and the depth of water over the ground.

    The ground is the height-map ground (the 3D relief, caves and river
    beds left out): the height ``sea_level + elevation``, its top block by
    the voxel biome as the generator lays it (sand on beaches and deserts,
    snow in snowy land and on mountains above ``sea_level + 110``, stone on
    lower mountains and on steep slopes (:data:`STEEP` blocks to a
    neighbour, ``STEEP * step`` at coarser steps), grass elsewhere), water (ice where it is cold) where
    the ground lies under the sea level, so the water is the map's exactly.
    At step 1, trees: the crowns of the generator's trees (the same hashed
    grid, biome chances and heights). At coarser steps a sample stands for
    ``step x step`` columns and its land colour is mixed toward the leaves
    by the share of ground the crowns of its biome cover on average.

    Returns
    -------
    ids : uint8 (H, W)
        Block ids.
    top : int64 (H, W)
        World y of that block.
    depth : int64 (H, W)
        Blocks of water over the ground (0 on land).
    cover : float64 (H, W)
        The share of the sample that tree crowns cover, 0 at step 1 (the
        crowns are in ``ids``).
    """
    m = MARGIN if window.step == 1 else 0
    grown = window.grown(m)
    fields = world_fields(config.world, grown, rivers=config.rivers)
    surface = np.floor(config.sea_level + fields.elevation)
    surface = np.clip(surface, config.y_min + 8, config.y_max - 24).astype(np.int64)
    sea = config.sea_level
    biome = _FROM_WORLD[fields.biome]
    biome[(biome == OCEAN) & (surface >= sea)] = BEACH
    biome[surface < sea] = OCEAN
    ids = np.full(surface.shape, GRASS, dtype=np.uint8)
    ids[(biome == BEACH) | (biome == DESERT)] = SAND
    ids[biome == SNOWY] = SNOW
    ids[_steep(surface, STEEP * window.step) & (biome != BEACH) & (biome != DESERT)] = STONE
    ids[biome == MOUNTAINS] = np.where(surface[biome == MOUNTAINS] > sea + 110, SNOW, STONE)
    under = surface < sea
    ids[under] = np.where(fields.temperature[under] < 0.0, ICE, WATER)
    top = np.where(under, sea, surface)
    if config.rivers:
        fresh = (fields.water_kind == RIVER) | (fields.water_kind == LAKE)
        water_top = np.floor(sea + fields.surface).astype(np.int64)
        water_top = np.minimum(np.maximum(water_top, surface + 1), config.y_max)
        ids[fresh] = WATER
        top = np.where(fresh, np.maximum(water_top, top), top)
        under |= fresh
    depth = np.where(under, top - surface, 0)
    inner = np.s_[m : m + window.height, m : m + window.width]
    ids, top, depth = ids[inner].copy(), top[inner].copy(), depth[inner]
    cover = np.zeros(ids.shape)
    if config.trees and window.step == 1:
        key = np.uint64(derive_seed(config.seed, 0x424C4F43))
        _crowns(
            top, ids, surface, biome, TREE_CHANCE, window.x, window.y, m, config.y_max, sea, key
        )
    elif config.trees:
        cover = np.where(under[inner], 0.0, TREE_CHANCE[biome[inner]] * CROWN_CELLS / TREE_CELL**2)
    return ids, top, depth, cover
