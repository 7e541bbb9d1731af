"""Slow, obviously correct versions of the noise functions, for comparison.

Written from the documented definitions, in plain Python, one point at a
time: generic over the dimension where the definition is, with none of the
kernels' hoisting, tables or signed-zero tricks. Perlin and value noise
follow the documented order of operations, so they must agree with the
kernels bit for bit; simplex and cellular noise are compared to a tight
tolerance (their sums are ordered differently here).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from worldgen.noise import derive_seed, permutation

AXES = "xyzw"


def fade(t):
    return t * t * t * (t * (t * 6 - 15) + 10)


def lerp(t, a, b):
    return a + t * (b - a)


def interpolate(t, kind):
    if kind == "linear":
        return t
    if kind == "cubic":
        return t * t * (3.0 - 2.0 * t)
    return fade(t)


def lattice(coord, period):
    """(offset in cell, low cell, high cell) with cells in [0, period) & 255.

    The floor is a float, as in Java (floor(-0.0) is -0.0, so the offset of
    -0.0 is +0.0); Python's math.floor would return the int 0.
    """
    floor = float(np.floor(coord))
    cell = int(floor) % period
    return coord - floor, cell & 255, ((cell + 1) % period) & 255


def corner_hash(p, cells):
    """Nested hash p[...p[p[x] + y]... + w] of a corner."""
    h = 0
    for i, c in enumerate(cells):
        h = p[c] if i == 0 else p[h + c]
    return int(h)


def gradient_dot(h, d):
    """The documented gradient sets; returns g . d in the documented order."""
    dim = len(d)
    if dim == 1:
        g = ((h & 7) + 1) / 4
        return (-g if h & 8 else g) * d[0]
    if dim == 2:
        h &= 7
        vectors = [(1, 1), (-1, 1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1)]
        terms = [(g, v) for g, v in zip(vectors[h], d) if g != 0]
    elif dim == 3:
        h &= 15
        u = d[0] if h < 8 else d[1]
        v = d[1] if h < 4 else (d[0] if h in (12, 14) else d[2])
        return (u if h & 1 == 0 else -u) + (v if h & 2 == 0 else -v)
    else:
        h &= 31
        zero = h >> 3
        signs = iter((h & 1, h & 2, h & 4))
        g = [0 if a == zero else (-1 if next(signs) else 1) for a in range(4)]
        # y, z, w first, then x.
        order = [1, 2, 3, 0]
        terms = [(g[a], d[a]) for a in order if g[a] != 0]
    total = None
    for g, v in terms:
        term = v if g > 0 else -v
        total = term if total is None else total + term
    return total


def blend(values, weights):
    """Reduce 2**n corner values (x fastest) along x, then y, then z, then w."""
    for t in weights:
        values = [lerp(t, values[i], values[i + 1]) for i in range(0, len(values), 2)]
    return values[0]


def corners(dim):
    # x fastest: itertools.product varies the last index fastest.
    return [tuple(reversed(c)) for c in itertools.product((0, 1), repeat=dim)]


def perlin(coords, seed=0, period=256):
    p = permutation(seed)
    cells = [lattice(c, period) for c in coords]
    values = []
    for corner in corners(len(coords)):
        hashed = corner_hash(p, [cell[1 + bit] for cell, bit in zip(cells, corner)])
        offsets = [cell[0] - bit for cell, bit in zip(cells, corner)]
        values.append(gradient_dot(hashed, offsets))
    return blend(values, [fade(cell[0]) for cell in cells])


def value(coords, seed=0, period=256, interpolation="quintic"):
    p = permutation(seed)
    cells = [lattice(c, period) for c in coords]
    values = []
    for corner in corners(len(coords)):
        hashed = corner_hash(p, [cell[1 + bit] for cell, bit in zip(cells, corner)])
        values.append(hashed / 127.5 - 1.0)
    return blend(values, [interpolate(cell[0], interpolation) for cell in cells])


_SIMPLEX_SCALE = {2: 70.148, 3: 76.8807, 4: 62.7777}


def simplex(coords, seed=0):
    p = permutation(seed)
    n = len(coords)
    f = (math.sqrt(n + 1) - 1) / n
    g = (1 - 1 / math.sqrt(n + 1)) / n
    s = sum(coords) * f
    base = [math.floor(c + s) for c in coords]
    t = sum(base) * g
    d0 = [c - (b - t) for c, b in zip(coords, base)]
    # Step along axes in decreasing order of offset (ties: lower axis first
    # in 3D, as the kernel's comparisons decide).
    order = sorted(range(n), key=lambda a: -d0[a])
    step = [0] * n
    total = 0.0
    for k in range(n + 1):
        if k > 0:
            step[order[k - 1]] = 1
        d = [d0[a] - step[a] + k * g for a in range(n)]
        cells = [(base[a] + step[a]) % 256 for a in range(n)]
        h = corner_hash(p, cells)
        r = 0.5 - sum(v * v for v in d)
        if r > 0:
            total += r**4 * gradient_dot(h, d)
    return _SIMPLEX_SCALE[n] * total


def cellular(coords, seed=0, period=256, feature="f1", metric="euclidean", jitter=1.0):
    p = permutation(seed)
    n = len(coords)
    floors = [math.floor(c) for c in coords]
    offsets = [c - f for c, f in zip(coords, floors)]
    lo = 0.5 - 0.5 * jitter
    distances = []
    for step in itertools.product(range(-4, 5), repeat=n):
        cells = [((f % period) + s) % period & 255 for f, s in zip(floors, step)]
        h = corner_hash(p, cells)
        point = [s + lo + jitter / 255.0 * p[h + a] for a, s in enumerate(step)]
        delta = [q - o for q, o in zip(point, offsets)]
        if metric == "euclidean":
            distances.append(math.sqrt(sum(v * v for v in delta)))
        elif metric == "manhattan":
            distances.append(sum(abs(v) for v in delta))
        else:
            distances.append(max(abs(v) for v in delta))
    f1, f2 = sorted(distances)[:2]
    return {"f1": f1, "f2": f2, "f2-f1": f2 - f1}[feature]


def fractal(base, coords, seed=0, octaves=4, persistence=0.5, lacunarity=2.0, mode="fbm", **kw):
    """Sum octaves as documented: seeds, shifts, frequencies, amplitudes."""
    period = kw.pop("period", None)
    shape = {
        "fbm": lambda v: v,
        "billow": lambda v: 2.0 * abs(v) - 1.0,
        "turbulence": abs,
        "ridged": lambda v: (1.0 - abs(v)) * (1.0 - abs(v)),  # not ** 2: libm pow may round
    }[mode]
    acc = None
    freq = amp = 1.0
    total = 0.0
    for o in range(octaves):
        octave_seed = seed if o == 0 else derive_seed(seed, o)
        shift = [
            0.0 if o == 0 else (derive_seed(seed, 4 * (o + 1024) + a) >> 40) / 65536.0
            for a in range(len(coords))
        ]
        moved = [c * freq + s for c, s in zip(coords, shift)]
        extra = dict(kw)
        if period is not None:
            extra["period"] = period * round(freq)
        value_o = base(moved, seed=octave_seed, **extra)
        if octaves == 1 and mode == "fbm":
            return value_o
        term = amp * shape(value_o)
        acc = term if acc is None else acc + term
        total += amp
        freq *= lacunarity
        amp *= persistence
    return acc / total
