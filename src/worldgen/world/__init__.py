"""The world: where every product's heights, climate and water come from.

- :class:`WorldConfig`: the world model's parameters (seed, continent
  size, land fraction, relief, climate).
- :func:`world_fields`, :class:`WorldFields`, :func:`elevation`: its
  fields (elevation in metres, temperature, rainfall, biomes, water) for
  any :class:`Window`, at any level of detail, band-limited.
- :data:`BIOMES`: biome names and colours.
- :func:`spawn`, :func:`default_window`: where the world is worth seeing
  (the coast of the landmass nearest the origin).
- :class:`Window`: which samples of the world's cell grid to make (an
  origin, a shape and a step).
- :class:`NoiseMap`, :func:`global_range`: the classic noise map (seed,
  scale, offset, octaves, persistence, lacunarity), normalised locally,
  globally or not at all.
- :class:`Mask`, :func:`falloff_curve`, :class:`HeightCurve`: island masks
  in world coordinates and height curves.
"""

from worldgen.world._biomes import BIOMES
from worldgen.world._config import WorldConfig
from worldgen.world._fields import WorldFields, elevation, world_fields
from worldgen.world._noise_map import NoiseMap, global_range
from worldgen.world._shaping import HeightCurve, Mask, falloff_curve
from worldgen.world._spawn import default_window, spawn
from worldgen.world._window import Window

__all__ = [
    "BIOMES",
    "HeightCurve",
    "Mask",
    "NoiseMap",
    "Window",
    "WorldConfig",
    "WorldFields",
    "default_window",
    "elevation",
    "falloff_curve",
    "global_range",
    "spawn",
    "world_fields",
]
