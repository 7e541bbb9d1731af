"""Noise in motion: animated frames with time as an axis, and hand-drawn wobble.

- :func:`noise_frames`: frames of a 3D noise (time as the third axis) or,
  looping seamlessly, a 4D noise moving around a circle.
- :func:`preset_frames`, :data:`PRESETS`: coloured clouds, fire and water.
- :func:`wobble`: 1D Perlin noise that makes a polyline look hand-drawn;
  :func:`sketch_shapes` gives a few to try.
"""

from worldgen.motion._frames import PRESETS, noise_frames, preset_frames
from worldgen.motion._shapes import sketch_shapes
from worldgen.motion._wobble import wobble

__all__ = ["PRESETS", "noise_frames", "preset_frames", "sketch_shapes", "wobble"]
