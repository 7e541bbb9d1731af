"""Biomes from temperature and rainfall, as in Whittaker's diagram.

Land cells take a biome from their temperature ``T`` (degrees Celsius) and
rainfall ``R`` (mm a year), with height deciding beaches and bare alpine
rock:

==========================  ==========================================
beach                       below 2 m above sea level (and T above 0)
snow / tundra               T below -6 / below 0
alpine                      above 62% of ``relief`` (bare rock)
taiga                       T below 6
temperate (6 <= T < 18)     desert (R < 300), grassland (< 700),
                            temperate forest (< 1700), temperate rainforest
tropical (T >= 18)          desert (R < 450), savanna (< 1100),
                            tropical forest (< 2200), rainforest
==========================  ==========================================

Water cells are ocean, or deep ocean below half the ocean depth; lakes and
rivers on land, where a product has them, are fresh water.

The thresholds are *dithered*: ``T``, ``R`` and the height are compared
after adding small noises (1.5 degrees, 15% of the rainfall, 1 m, with
wavelengths of 32 to 64 cells), so biome borders wander instead of
following one smooth field's contour in a straight line, and neighbouring
biomes interlock along them. At coarse levels the noises are band-limited
away like every other detail.
"""

from __future__ import annotations

import numpy as np

from worldgen._jit import kernel
from worldgen.world._config import WorldConfig
from worldgen.world._lod import Octaves

BIOMES = (
    ("deep ocean", (28, 52, 110)),
    ("ocean", (44, 88, 160)),
    ("beach", (222, 208, 150)),
    ("desert", (214, 185, 120)),
    ("savanna", (178, 172, 84)),
    ("tropical forest", (70, 130, 40)),
    ("rainforest", (30, 100, 45)),
    ("grassland", (150, 180, 90)),
    ("temperate forest", (80, 140, 70)),
    ("temperate rainforest", (50, 115, 80)),
    ("taiga", (70, 105, 80)),
    ("tundra", (150, 150, 130)),
    ("snow", (240, 242, 248)),
    ("alpine", (130, 120, 110)),
    ("fresh water", (70, 130, 200)),
)
"""Biome names and colours, in index order."""

NAMES = tuple(name for name, _ in BIOMES)
(
    DEEP_OCEAN, OCEAN, BEACH, DESERT, SAVANNA, TROPICAL_FOREST, RAINFOREST, GRASSLAND,
    TEMPERATE_FOREST, TEMPERATE_RAINFOREST, TAIGA, TUNDRA, SNOW, ALPINE, FRESH_WATER,
) = range(len(BIOMES))  # fmt: skip

_DITHER_A, _DITHER_B = 0x42494F01, 0x42494F02


def palette() -> np.ndarray:
    """The biome colours, ``(len(BIOMES), 3)`` uint8."""
    return np.array([colour for _, colour in BIOMES], dtype=np.uint8)


def dither_noises() -> tuple[Octaves, Octaves]:
    return (Octaves(_DITHER_A, 40.0, 2), Octaves(_DITHER_B, 56.0, 2))


@kernel
def _classify(elevation, temperature, rainfall, da, db, depth, alpine, out):
    for k in range(elevation.size):
        e = elevation[k]
        if e < 0.0:
            out[k] = DEEP_OCEAN if e < -0.5 * depth else OCEAN
            continue
        t = temperature[k] + 1.5 * da[k]
        r = rainfall[k] * (1.0 + 0.15 * db[k])
        if e + 1.0 * da[k] < 2.0 and t > 0.0:
            out[k] = BEACH
        elif t < -6.0:
            out[k] = SNOW
        elif t < 0.0:
            out[k] = TUNDRA
        elif e + 8.0 * db[k] > alpine:
            out[k] = ALPINE
        elif t < 6.0:
            out[k] = TAIGA
        elif t < 18.0:
            if r < 300.0:
                out[k] = DESERT
            elif r < 700.0:
                out[k] = GRASSLAND
            elif r < 1700.0:
                out[k] = TEMPERATE_FOREST
            else:
                out[k] = TEMPERATE_RAINFOREST
        elif r < 450.0:
            out[k] = DESERT
        elif r < 1100.0:
            out[k] = SAVANNA
        elif r < 2200.0:
            out[k] = TROPICAL_FOREST
        else:
            out[k] = RAINFOREST


def classify(
    config: WorldConfig,
    elevation: np.ndarray,
    temperature: np.ndarray,
    rainfall: np.ndarray,
    dithers: tuple[np.ndarray, np.ndarray],
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Biome indices (uint8, same shape) of cells with these fields and
    dither noise values; written into ``out`` (uint8, of that shape) if
    given."""
    shape = np.shape(elevation)
    made = out
    if made is None or not made.flags.c_contiguous:
        made = np.empty(shape, dtype=np.uint8)
    flat = [
        np.ascontiguousarray(a, dtype=np.float64).ravel()
        for a in (elevation, temperature, rainfall, *dithers)
    ]
    _classify(*flat, config.ocean_depth, 0.62 * config.relief, made.reshape(-1))
    if out is None:
        return made
    if made is not out:
        out[...] = made
    return out
