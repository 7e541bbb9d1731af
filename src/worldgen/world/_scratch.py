"""Scratch arrays that reuse the memory of those no longer used.

A big window is made in strips of rows (:mod:`~worldgen.world._fields`),
and each strip makes the same dozen full-size temporaries (noises, their
interpolations, the continentalness); a region's drainage
(:mod:`~worldgen.world._drainage`) goes through dozens of region-sized
work arrays one step after another. Fresh memory costs a page fault per
page the first time it is written, and the allocator hands big freed
arrays back to the system, so each would be faulted in anew. Within
:func:`reusing`, the array makers of the world model (:func:`empty`,
:func:`full`) take big arrays from a :class:`Pool` instead: a buffer of
the pool that nothing refers to any more (no array made from it is alive)
is handed out again, so later arrays write into memory already in place.

A buffer is reused only once no array refers to it, so callers may keep
what they are given; the values never depend on the pool (an array from it
is written before it is read, as one from :func:`numpy.empty`).
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading

import numpy as np

_local = threading.local()
SMALLEST = 1 << 16  # float64 values (their bytes): smaller arrays are made as usual


class Pool:
    """Buffers for :func:`empty` (kept while the pool is), of bytes: an
    array of any dtype is a view of one."""

    def __init__(self) -> None:
        self._buffers: list[np.ndarray] = []
        # The references a buffer that nothing else refers to has, as take
        # counts them (the list's, and the call's where the interpreter
        # makes one).
        probe = [np.empty(0, np.uint8)]
        self._unreferenced = sys.getrefcount(probe[0])

    def take(self, nbytes: int) -> np.ndarray:
        """A flat uint8 array of ``nbytes``: a view of the smallest buffer
        that holds it and that no array refers to, or of a new one."""
        best = -1
        for k in range(len(self._buffers)):
            # A view of a buffer refers to it (numpy's base), however it
            # was reshaped or viewed as another dtype.
            free = sys.getrefcount(self._buffers[k]) == self._unreferenced
            if free and self._buffers[k].size >= nbytes:
                if best < 0 or self._buffers[k].size < self._buffers[best].size:
                    best = k
        if best < 0:
            # (The allocator aligns it for every dtype's view; the buffer
            # must own its memory, for views to refer to it.)
            self._buffers.append(np.empty(nbytes, np.uint8))
        return self._buffers[best][:nbytes]


@contextlib.contextmanager
def reusing(pool: Pool):
    """Within the block (in this thread), :func:`empty` and :func:`full`
    take their big arrays from ``pool``."""
    outer = getattr(_local, "pool", None)
    _local.pool = pool
    try:
        yield pool
    finally:
        _local.pool = outer


def empty(shape, dtype=np.float64) -> np.ndarray:
    """``numpy.empty(shape, dtype)`` (C-contiguous), from the pool of the
    current :func:`reusing` block if there is one and the array is big."""
    pool = getattr(_local, "pool", None)
    shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if pool is None or nbytes < SMALLEST * 8:
        return np.empty(shape, dtype)
    return pool.take(nbytes).view(dtype).reshape(shape)


def full(shape, value, dtype=np.float64) -> np.ndarray:
    """``numpy.full(shape, value, dtype)``, as :func:`empty` makes it."""
    out = empty(shape, dtype)
    out.fill(value)
    return out
