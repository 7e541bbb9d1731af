"""worldgen: procedural worlds from a seed, exact and fast.

Subpackages:

- :mod:`worldgen.noise`: coherent noise (Perlin, value, simplex, cellular),
  fractal sums and domain warping, at points or on grids.
- :mod:`worldgen.io`: writing files atomically (images for now).

:func:`threads` sets how many threads the compiled kernels use; results do
not depend on it. :class:`ParameterError` (a ValueError) is the error for a
value a user gave that the library refuses.
"""

from __future__ import annotations

from worldgen._errors import ParameterError

TYPE_CHECKING = False  # typing itself is not imported: see __getattr__
if TYPE_CHECKING:
    from worldgen._jit import threads

__version__ = "0.1.0"

__all__ = ["ParameterError", "__version__", "threads"]


def __getattr__(name: str):
    # numba loads with threads (a few tenths of a second), only when asked
    # for: the command line answers Ctrl-C from the start of its imports.
    if name == "threads":
        from worldgen._jit import threads

        return threads
    raise AttributeError(f"module 'worldgen' has no attribute {name!r}")
