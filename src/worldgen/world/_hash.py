"""Hashing integer positions to uniform numbers, for things placed on lattices.

SplitMix64 (Steele, Lea and Flood 2014) mixes the seed with each integer in
turn; the top 53 bits give a double in [0, 1). Pure functions of their
arguments: the same position gives the same number on every run, thread
and window.
"""

from __future__ import annotations

import numpy as np

from worldgen._jit import kernel

_MASK = (1 << 64) - 1


def _mix(h: int) -> int:
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & _MASK
    return h ^ (h >> 31)


def uniform(seed: int, *values: int) -> float:
    """A double in [0, 1) from a seed and integers (Python ints, any sign);
    equal to :func:`uniform3` for three integers."""
    h = seed & _MASK
    for v in values:
        h = ((h ^ (v & 0xFFFFFFFF)) * 0x9E3779B97F4A7C15) & _MASK
        h ^= h >> 29
    return (_mix(h) >> 11) * (1.0 / 9007199254740992.0)


@kernel
def uniform3(seed, a, b, c):
    """A double in [0, 1) from ``(seed, a, b, c)`` (compiled)."""
    h = np.uint64(seed)
    for v in (a, b, c):
        h = (h ^ np.uint64(v & 0xFFFFFFFF)) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    return np.float64(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)
