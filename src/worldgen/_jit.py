"""Numba compilation choices, made once for the whole package.

Every compiled function in worldgen is declared with :func:`kernel` (serial)
or :func:`parallel_kernel` (``prange`` over the outermost loop). The flags are:

- ``cache=True``: compiled code is written beside the sources, so only the
  very first call on a machine pays for compilation.
- ``fastmath=False``: no reassociation and no fused multiply-add contraction.
  worldgen promises the same bytes on every run, in any thread count, and
  reproduces Ken Perlin's reference bit for bit; both need IEEE arithmetic in
  the order the source states it.
- ``error_model="numpy"``: division follows IEEE rules instead of raising,
  which keeps the division out of the exception machinery.
- ``nogil=True``: callers may run kernels from Python threads.

Numba's cache notices edits only in the file of the function it compiles, so
a kernel's jitted helpers live beside it or in the noise primitives it calls;
the test suite keys its cache directory by the package's source to stay fresh.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator

import numba
import numpy as np

OPTIONS = {"cache": True, "fastmath": False, "error_model": "numpy", "nogil": True}

kernel = numba.njit(**OPTIONS)
parallel_kernel = numba.njit(parallel=True, **OPTIONS)


@contextlib.contextmanager
def threads(count: int) -> Iterator[None]:
    """Run the enclosed worldgen calls on ``count`` threads.

    Results do not depend on the thread count; only the speed does.

    Parameters
    ----------
    count : int
        Number of threads, from 1 to ``numba.config.NUMBA_NUM_THREADS``.

    Raises
    ------
    ValueError
        If ``count`` is outside that range.

    Examples
    --------
    >>> from worldgen import threads
    >>> with threads(1):
    ...     pass
    """
    limit = numba.config.NUMBA_NUM_THREADS
    if (
        isinstance(count, (bool, np.bool_))
        or not isinstance(count, numbers.Integral)
        or not 1 <= count <= limit
    ):
        raise ValueError(f"threads: count must be an integer from 1 to {limit}, got {count!r}")
    previous = numba.get_num_threads()
    numba.set_num_threads(count)
    try:
        yield
    finally:
        numba.set_num_threads(previous)
