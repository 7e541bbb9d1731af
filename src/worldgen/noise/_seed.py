"""Seeds: from a 64-bit integer to permutation tables and derived seeds.

A seed is any Python ``int`` that fits in 64 bits, signed or unsigned
(``-2**63 <= seed < 2**64``); it is taken modulo ``2**64``, so ``-1`` and
``2**64 - 1`` name the same 64-bit pattern and the same noise.

Seed 0 is Ken Perlin's own permutation table, so the default noise is his.
Every other seed shuffles ``0..255`` with a Fisher-Yates shuffle driven by
SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
generators", 2014): for ``i`` from 255 down to 1, advance the state by the
golden-ratio increment, mix it, and swap entry ``i`` with entry
``(mix * (i + 1)) >> 64``. The table is then doubled to 512 entries so that
nested look-ups ``p[p[x] + y]`` need no wrap.

Derived seeds (for fractal octaves and warp components) mix the parent seed
with a small integer tag through the same SplitMix64 finaliser.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

# Ken Perlin's permutation, from "Improving Noise" (SIGGRAPH 2002).
PERLIN_PERMUTATION = (
    151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225, 140, 36,
    103, 30, 69, 142, 8, 99, 37, 240, 21, 10, 23, 190, 6, 148, 247, 120, 234, 75, 0,
    26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32, 57, 177, 33, 88, 237, 149, 56,
    87, 174, 20, 125, 136, 171, 168, 68, 175, 74, 165, 71, 134, 139, 48, 27, 166, 77,
    146, 158, 231, 83, 111, 229, 122, 60, 211, 133, 230, 220, 105, 92, 41, 55, 46,
    245, 40, 244, 102, 143, 54, 65, 25, 63, 161, 1, 216, 80, 73, 209, 76, 132, 187,
    208, 89, 18, 169, 200, 196, 135, 130, 116, 188, 159, 86, 164, 100, 109, 198, 173,
    186, 3, 64, 52, 217, 226, 250, 124, 123, 5, 202, 38, 147, 118, 126, 255, 82, 85,
    212, 207, 206, 59, 227, 47, 16, 58, 17, 182, 189, 28, 42, 223, 183, 170, 213, 119,
    248, 152, 2, 44, 154, 163, 70, 221, 153, 101, 155, 167, 43, 172, 9, 129, 22, 39,
    253, 19, 98, 108, 110, 79, 113, 224, 232, 178, 185, 112, 104, 218, 246, 97, 228,
    251, 34, 242, 193, 238, 210, 144, 12, 191, 179, 162, 241, 81, 51, 145, 235, 249,
    14, 239, 107, 49, 192, 214, 31, 181, 199, 106, 157, 184, 84, 204, 176, 115, 121,
    50, 45, 127, 4, 150, 254, 138, 236, 205, 93, 222, 114, 67, 29, 24, 72, 243, 141,
    128, 195, 78, 66, 215, 61, 156, 180,
)  # fmt: skip

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    """SplitMix64's finaliser: a bijection on 64-bit integers."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def check_seed(seed: object, name: str = "seed") -> int:
    """Return ``seed`` as an unsigned 64-bit ``int``, or raise naming ``name``."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(seed).__name__} {seed!r}")
    value = int(seed)
    if not -(1 << 63) <= value < (1 << 64):
        raise ValueError(f"{name} must fit in 64 bits (-2**63 <= {name} < 2**64), got {value}")
    return value & _MASK64


def derive_seed(seed: int, tag: int) -> int:
    """A new 64-bit seed from ``seed`` and a small non-negative ``tag``.

    Examples
    --------
    >>> derive_seed(0, 1) != derive_seed(0, 2)
    True
    """
    if isinstance(tag, bool) or not isinstance(tag, numbers.Integral):
        raise TypeError(f"tag must be a non-negative integer, got {tag!r}")
    if not 0 <= tag < 2**62:
        raise ValueError(f"tag must be a non-negative integer below 2**62, got {tag!r}")
    return _mix64((check_seed(seed) + _GOLDEN * (int(tag) + 1)) & _MASK64)


def permutation(seed: int) -> np.ndarray:
    """The doubled 512-entry permutation table of ``seed`` (read-only uint64).

    The entries are unsigned 64-bit so that kernels index with them directly:
    unsigned indices need no negative-index check, which keeps hash look-ups
    cheap.

    Examples
    --------
    >>> p = permutation(0)
    >>> p[:4].tolist(), p.shape
    ([151, 160, 137, 91], (512,))
    >>> sorted(permutation(7)[:256].tolist()) == list(range(256))
    True
    """
    return _permutation(check_seed(seed))


@functools.lru_cache(maxsize=1024)
def _permutation(state: int) -> np.ndarray:
    if state == 0:
        table = list(PERLIN_PERMUTATION)
    else:
        table = list(range(256))
        for i in range(255, 0, -1):
            state = (state + _GOLDEN) & _MASK64
            j = (_mix64(state) * (i + 1)) >> 64
            table[i], table[j] = table[j], table[i]
    doubled = np.array(table + table, dtype=np.uint64)
    doubled.flags.writeable = False
    return doubled
