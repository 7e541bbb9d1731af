"""The world: where every product's heights, climate and water come from.

- :class:`Window`: which samples of the world's cell grid to make (an
  origin, a shape and a step).
- :class:`NoiseMap`, :func:`global_range`: the classic noise map (seed,
  scale, offset, octaves, persistence, lacunarity), normalised locally,
  globally or not at all.
- :class:`Mask`, :func:`falloff_curve`, :class:`HeightCurve`: island masks
  in world coordinates and height curves.
"""

from worldgen.world._noise_map import NoiseMap, global_range
from worldgen.world._shaping import HeightCurve, Mask, falloff_curve
from worldgen.world._window import Window

__all__ = ["HeightCurve", "Mask", "NoiseMap", "Window", "falloff_curve", "global_range"]
