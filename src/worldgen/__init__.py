"""worldgen: procedural worlds from a seed, exact and fast.

Subpackages:

- :mod:`worldgen.noise`: coherent noise (Perlin, value, simplex, cellular),
  fractal sums and domain warping, at points or on grids.
- :mod:`worldgen.io`: writing files atomically (images for now).

:func:`threads` sets how many threads the compiled kernels use; results do
not depend on it.
"""

from worldgen._jit import threads

__version__ = "0.1.0"

__all__ = ["__version__", "threads"]
