"""Coherent noise: Perlin, value, simplex and cellular noise, fractals, warping.

Generators are frozen dataclasses; call one with coordinates (scalars or
broadcastable arrays) or use its ``grid`` method with one coordinate vector
per axis. The same seed gives the same bytes on every run, in any thread
count, whole or in windows.

- :class:`Perlin`: Ken Perlin's improved noise, 1D-4D (3D equals his
  reference bit for bit).
- :class:`Value`: value noise, 1D-4D, linear, cubic or quintic.
- :class:`Simplex`: simplex noise, 2D-4D.
- :class:`Cellular`: Worley noise F1, F2, F2-F1, 2D-3D.
- :class:`Fractal`: fBm, billow, turbulence and ridged sums of octaves.
- :class:`Warp`: domain warping.
- :func:`axis`: evenly spaced coordinates for grids.
- :func:`by_name`: a base noise from its name, as configs give it.
- :func:`permutation`, :func:`derive_seed`: how seeds become tables.
"""

from worldgen.noise._generators import (
    Cellular,
    Fractal,
    Noise,
    Perlin,
    Simplex,
    Value,
    axis,
    by_name,
)
from worldgen.noise._seed import derive_seed, permutation
from worldgen.noise._warp import Warp

__all__ = [
    "Cellular",
    "Fractal",
    "Noise",
    "Perlin",
    "Simplex",
    "Value",
    "Warp",
    "axis",
    "by_name",
    "derive_seed",
    "permutation",
]
