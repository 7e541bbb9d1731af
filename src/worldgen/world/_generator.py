"""Voxel terrain: columns, caves, water, ores and trees, as pure functions of
world coordinates.

A region (any rectangle of columns, all of ``y_min <= y < y_max``) is made
from fields that depend only on world coordinates, so a chunk made alone
equals the same 16 x 16 columns cut from a bigger region, and chunks made in
any order, on any thread, are the same bytes.

- **Shape.** The surface height of a column follows Minecraft's idea of
  three broad noises (fractal Perlin) shaped by curves: *continentalness*
  sets the base height (deep ocean, ocean, coast, inland), *erosion* how
  mountainous the land may be, and *peaks and valleys*,
  ``1 - |3 |w| - 2|`` of a *weirdness* noise ``w``, where the peaks are.
  A small detail noise roughens the surface.
- **Biomes.** Temperature and moisture noises, with height and coast,
  choose ocean, beach, plains, forest, desert, taiga, snowy or mountains;
  each has its surface blocks.
- **Caves.** Two 3D fields, evaluated on a coarse grid of cells 4 x 8 x 4
  blocks aligned to world coordinates and interpolated trilinearly to
  every block (as production generators do): caverns where a fractal noise
  is high (only from 12 blocks under the surface down), and tunnels where
  two noises are both near zero ("spaghetti"), which may open at the
  surface on land. No cave comes within 8 blocks of the surface of a
  column that is, or borders, water, so caves never break into a sea
  floor or shore.
- **Water** fills every column from its surface up to ``sea_level``: only
  what is open to the sky (the top water block freezes in cold biomes).
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
from worldgen.terrain._shaping import HeightCurve
from worldgen.world._blocks import (
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
    LEAVES,
    SAND,
    SNOW,
    STONE,
    WATER,
    WOOD,
)
from worldgen.world._chunk import CHUNK, Chunk
from worldgen.world._config import WorldConfig

OCEAN, BEACH, PLAINS, FOREST, DESERT, TAIGA, SNOWY, MOUNTAINS = range(8)
BIOMES = ("ocean", "beach", "plains", "forest", "desert", "taiga", "snowy", "mountains")
# Chance that a tree grows in a grid cell, by biome.
TREE_CHANCE = np.array([0.0, 0.0, 0.12, 0.85, 0.0, 0.7, 0.15, 0.0])
TREE_CELL = 8
CROWN = 2  # crown radius in blocks
MARGIN = CROWN + 1  # columns beyond a region that its trees may stand on
CAVE_CELL = (4, 8, 4)  # x, y, z

# Fields: (tag, blocks per lattice cell, octaves).
_FIELDS = {
    "continent": (1, 1024.0, 5),
    "erosion": (2, 512.0, 4),
    "weirdness": (3, 256.0, 3),
    "detail": (4, 32.0, 3),
    "temperature": (5, 1024.0, 3),
    "moisture": (6, 768.0, 3),
}
_BASE = HeightCurve(
    ((-0.6, -30.0), (-0.25, -28.0), (-0.12, -12.0), (-0.04, -1.0), (0.0, 2.0),
     (0.15, 8.0), (0.4, 22.0), (0.6, 38.0))
)  # fmt: skip
_AMPLITUDE = HeightCurve(((-0.5, 1.0), (-0.2, 0.75), (0.0, 0.4), (0.2, 0.12), (0.5, 0.03)))
_PEAKS = HeightCurve(((-1.0, -10.0), (-0.4, 0.0), (0.2, 28.0), (0.6, 85.0), (1.0, 150.0)))


@functools.lru_cache(maxsize=16)
def _noises(seed: int) -> dict[str, Fractal]:
    return {
        name: Fractal(Perlin(derive_seed(seed, tag)), octaves=octaves)
        for name, (tag, _, octaves) in _FIELDS.items()
    } | {
        "cavern": Fractal(Perlin(derive_seed(seed, 7)), octaves=2),
        "tunnel a": Fractal(Perlin(derive_seed(seed, 8)), octaves=1),
        "tunnel b": Fractal(Perlin(derive_seed(seed, 9)), octaves=1),
    }


@dataclasses.dataclass
class Columns:
    """Per-column fields of a rectangle of columns, shape ``(depth, width)``."""

    surface: np.ndarray  # int64, y of the top terrain block
    biome: np.ndarray  # uint8
    cold: np.ndarray  # bool: water freezes


def columns(config: WorldConfig, x0: int, z0: int, width: int, depth: int) -> Columns:
    """Surface height, biome and coldness of columns ``x0 <= x < x0 + width``,
    ``z0 <= z < z0 + depth``."""
    wx = np.arange(x0, x0 + width, dtype=np.float64)
    wz = np.arange(z0, z0 + depth, dtype=np.float64)
    noise = _noises(config.seed)
    field = {
        name: noise[name].grid(wx / scale, wz / scale) for name, (_, scale, _) in _FIELDS.items()
    }
    c = field["continent"]
    w = np.clip(field["weirdness"] * 2.2, -1.0, 1.0)
    peaks_valleys = 1.0 - np.abs(3.0 * np.abs(w) - 2.0)
    inland = np.clip((c + 0.05) / 0.15, 0.0, 1.0)
    inland = inland * inland * (3.0 - 2.0 * inland)
    height = (
        config.sea_level
        + _BASE(c)
        + inland * _AMPLITUDE(field["erosion"]) * _PEAKS(peaks_valleys)
        + 4.0 * field["detail"]
    )
    surface = np.clip(np.floor(height), config.y_min + 8, config.y_max - 24).astype(np.int64)
    t = field["temperature"] / 0.45
    m = field["moisture"] / 0.45
    sea = config.sea_level
    biome = np.full(surface.shape, PLAINS, dtype=np.uint8)
    biome[m > 0.15] = FOREST
    biome[(t > 0.35) & (m < 0.0)] = DESERT
    biome[(t < -0.1)] = TAIGA
    biome[(t < -0.35)] = SNOWY
    biome[surface > sea + 70] = MOUNTAINS
    biome[(surface <= sea + 2) & (c < 0.05)] = BEACH
    biome[surface < sea] = OCEAN
    return Columns(surface, biome, t < -0.35)


def _cave_grid(config: WorldConfig, x0: int, z0: int, width: int, depth: int):
    """Cavern and tunnel densities (positive is cave) on the coarse grid
    covering the columns, stacked, and the world x, z of its first point."""
    cx, cy, cz = CAVE_CELL
    ix0, iz0 = x0 // cx, z0 // cz
    ix1, iz1 = (x0 + width - 1) // cx + 1, (z0 + depth - 1) // cz + 1
    wx = np.arange(ix0, ix1 + 1, dtype=np.float64) * cx
    wz = np.arange(iz0, iz1 + 1, dtype=np.float64) * cz
    wy = config.y_min + np.arange(config.height // cy + 1, dtype=np.float64) * cy
    noise = _noises(config.seed)
    # Noise axes (x, y, z) = world (x, z, y): grids come out (y, z, x).
    cavern = noise["cavern"].grid(wx / 64.0, wz / 64.0, wy / 40.0)
    a = noise["tunnel a"].grid(wx / 48.0, wz / 48.0, wy / 32.0)
    b = noise["tunnel b"].grid(wx / 48.0, wz / 48.0, wy / 32.0)
    density = np.stack([cavern - 0.3, 0.004 - (a * a + b * b)])
    return np.ascontiguousarray(density), int(ix0 * cx), int(iz0 * cz)


@kernel
def _hash01(key, x, y, z):
    # A uniform double in [0, 1) from (key, x, y, z): SplitMix64 mixing.
    h = key
    for v in (x, y, z):
        h = (h ^ np.uint64(v & 0xFFFFFFFF)) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return np.float64(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def _density(grid, gx0, gz0, y_min, x, y, z):
    # Trilinear density at block (x, y, z) from one coarse grid (Y, Z, X).
    fx = (x - gx0) / 4.0
    fy = (y - y_min) / 8.0
    fz = (z - gz0) / 4.0
    i = min(int(fx), grid.shape[2] - 2)
    j = min(int(fy), grid.shape[0] - 2)
    k = min(int(fz), grid.shape[1] - 2)
    u = fx - i
    v = fy - j
    w = fz - k
    c00 = grid[j, k, i] + u * (grid[j, k, i + 1] - grid[j, k, i])
    c10 = grid[j + 1, k, i] + u * (grid[j + 1, k, i + 1] - grid[j + 1, k, i])
    c01 = grid[j, k + 1, i] + u * (grid[j, k + 1, i + 1] - grid[j, k + 1, i])
    c11 = grid[j + 1, k + 1, i] + u * (grid[j + 1, k + 1, i + 1] - grid[j + 1, k + 1, i])
    c0 = c00 + v * (c10 - c00)
    c1 = c01 + v * (c11 - c01)
    return c0 + w * (c1 - c0)


@kernel
def _carved(grid, gx0, gz0, y_min, sea_level, x, y, z, surface, shore, caves):
    # Is block (x, y, z) of a column with this surface cut away by a cave?
    if not caves or y > surface or y < y_min + 5:
        return False
    if shore and y > surface - 8:
        return False
    if _density(grid[1], gx0, gz0, y_min, x, y, z) > 0.0:
        return True
    return y < surface - 12 and _density(grid[0], gx0, gz0, y_min, x, y, z) > 0.0


@kernel
def _fill(
    blocks, surface, biome, cold, shore, grid, gx0, gz0,
    x0, z0, margin, y_min, sea_level, key, caves, ores,
):  # fmt: skip
    # Terrain, caves, ores, bedrock and water for every column of blocks
    # (Y, Z, X); the column fields carry ``margin`` extra columns each side.
    height, depth, width = blocks.shape
    for k in range(depth):
        for i in range(width):
            top = surface[k + margin, i + margin]
            b = biome[k + margin, i + margin]
            wet = shore[k + margin, i + margin]
            x = x0 + i
            z = z0 + k
            for j in range(height):
                y = y_min + j
                block = AIR
                if y <= top:
                    below = top - y
                    block = STONE
                    if b == OCEAN:
                        if below < 3:
                            block = GRAVEL if top < sea_level - 10 else SAND
                    elif b == BEACH or b == DESERT:
                        if below < 4:
                            block = SAND
                    elif b == MOUNTAINS:
                        if below == 0 and top > sea_level + 110:
                            block = SNOW
                    elif below == 0:
                        block = SNOW if b == SNOWY else GRASS
                    elif below < 4:
                        block = DIRT
                    if block == STONE and ores:
                        r = _hash01(key, x, y, z)
                        if y <= 128 and r < 0.012:
                            block = COAL
                        elif -32 <= y <= 64 and r < 0.020:
                            block = IRON
                        elif y <= 32 and r < 0.022:
                            block = GOLD
                        elif y <= -48 and r < 0.023:
                            block = DIAMOND
                    if _carved(grid, gx0, gz0, y_min, sea_level, x, y, z, top, wet, caves):
                        block = AIR
                    if y <= y_min + 4 and (
                        y == y_min or _hash01(key, x, y, -z - 1) < (y_min + 5 - y) / 5.0
                    ):
                        block = BEDROCK
                elif y <= sea_level:
                    block = ICE if (y == sea_level and cold[k + margin, i + margin]) else WATER
                blocks[j, k, i] = block


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
def _trees(
    blocks, surface, biome, shore, grid, gx0, gz0, chance,
    x0, z0, margin, y_min, y_max, sea_level, key, caves,
):  # fmt: skip
    # Draw every tree whose crown reaches the region: leaves first, then
    # trunks over them, so the result does not depend on the order of trees.
    depth, width = blocks.shape[1], blocks.shape[2]
    c0 = (x0 - CROWN) // TREE_CELL
    c1 = (x0 + width - 1 + CROWN) // TREE_CELL
    r0 = (z0 - CROWN) // TREE_CELL
    r1 = (z0 + depth - 1 + CROWN) // TREE_CELL
    for stage in range(2):
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                tx = c * TREE_CELL + 1 + int(_hash01(key, c, 1, r) * (TREE_CELL - 2))
                tz = r * TREE_CELL + 1 + int(_hash01(key, c, 2, r) * (TREE_CELL - 2))
                i = tx - x0 + margin
                k = tz - z0 + margin
                if i < 0 or k < 0 or i >= surface.shape[1] or k >= surface.shape[0]:
                    continue
                b = biome[k, i]
                if _hash01(key, c, 3, r) >= chance[b]:
                    continue
                ground = surface[k, i]
                trunk = 4 + int(_hash01(key, c, 4, r) * 3)
                if ground < sea_level or ground + trunk + 3 >= y_max:
                    continue
                if _carved(
                    grid, gx0, gz0, y_min, sea_level, tx, ground, tz, ground, shore[k, i], caves
                ):
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
    config: WorldConfig, x0: int, z0: int, width: int, depth: int
) -> tuple[np.ndarray, np.ndarray]:
    """Blocks and column heights of the columns ``x0 <= x < x0 + width``,
    ``z0 <= z < z0 + depth``.

    Returns
    -------
    blocks : uint8 (Y, depth, width)
        ``blocks[y - y_min, z - z0, x - x0]``.
    heights : int16 (depth, width)
        The world y of each column's highest non-air block.

    Examples
    --------
    >>> blocks, heights = generate_region(WorldConfig(seed=1), 0, 0, 4, 3)
    >>> blocks.shape, heights.shape
    ((384, 3, 4), (3, 4))
    """
    check_instance(config, "config", WorldConfig)
    x0 = check_int(x0, "x0", -(2**40), 2**40)
    z0 = check_int(z0, "z0", -(2**40), 2**40)
    width = check_int(width, "width", 1, 2**14)
    depth = check_int(depth, "depth", 1, 2**14)
    m = MARGIN
    cols = columns(config, x0 - m, z0 - m, width + 2 * m, depth + 2 * m)
    grid, gx0, gz0 = _cave_grid(config, x0 - m, z0 - m, width + 2 * m, depth + 2 * m)
    shore = _shore(cols.surface, config.sea_level)
    key = np.uint64(derive_seed(config.seed, 0x424C4F43))
    blocks = np.empty((config.height, depth, width), dtype=np.uint8)
    _fill(
        blocks, cols.surface, cols.biome, cols.cold, shore, grid, gx0, gz0,
        x0, z0, m, config.y_min, config.sea_level, key, config.caves, config.ores,
    )  # fmt: skip
    if config.trees:
        _trees(
            blocks, cols.surface, cols.biome, shore, grid, gx0, gz0, TREE_CHANCE,
            x0, z0, m, config.y_min, config.y_max, config.sea_level, key, config.caves,
        )  # fmt: skip
    return blocks, _heights(blocks, config.y_min)


def generate_chunk(config: WorldConfig, cx: int, cz: int) -> Chunk:
    """Chunk ``(cx, cz)``: the 16 x 16 columns from ``(16 cx, 16 cz)``."""
    cx = check_int(cx, "cx", -(2**36), 2**36)
    cz = check_int(cz, "cz", -(2**36), 2**36)
    blocks, heights = generate_region(config, CHUNK * cx, CHUNK * cz, CHUNK, CHUNK)
    return Chunk(cx, cz, blocks, heights)
