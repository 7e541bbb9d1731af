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

Threads: parallel kernels run on numba's OpenMP layer with the *passive*
wait policy (``OMP_WAIT_POLICY=PASSIVE``, set here unless the environment
already sets it). With the default active policy, idle workers spin for a
while before sleeping; when the other cores are busy the spinning steals the
very core a worker needs, and a 1 ms call at 2 threads took 7 ms. Passive
workers sleep at once and are woken per call, for a few microseconds. The
workqueue layer avoids spinning too, but it does not allow kernels to run
from two Python threads at once, which worldgen promises (``nogil``).
The policy is read when the OpenMP runtime loads, at the first parallel
call, so it must be set at import, before any kernel runs.
"""

from __future__ import annotations

import contextlib
import numbers
import os
from collections.abc import Iterator

# Before numba starts its OpenMP workers; see the module docstring.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

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
