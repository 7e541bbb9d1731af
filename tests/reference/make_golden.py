"""Freeze worldgen's noise values as golden vectors (tests/reference/golden.json).

The Java reference fixes 3D Perlin noise; everything else is worldgen's own
definition, checked against the slow versions in tests/noise/naive.py. Its
values are frozen here so that no later change moves them unnoticed. Only
rerun this on purpose, when a definition changes, and say so in CHANGELOG.

Point samples go to golden.json; grids long enough to reach the grid
drivers' long-row and class-table paths go to golden_grids.json (a SHA-256
of the float64 bytes, and every 97th value for diagnosis).

Run: ``python tests/reference/make_golden.py``
"""

from __future__ import annotations

import hashlib
import json
import pathlib

import numpy as np

from worldgen.noise import Cellular, Fractal, Perlin, Simplex, Value, Warp, axis

HERE = pathlib.Path(__file__).parent


def cases():
    yield "perlin1", Perlin(), 1
    yield "perlin2", Perlin(), 2
    yield "perlin4", Perlin(), 4
    yield "perlin2_seed_minus1_period5", Perlin(seed=-1, period=5), 2
    yield "perlin3_seed_2_64_minus1", Perlin(seed=2**64 - 1), 3
    for interp in ("linear", "cubic", "quintic"):
        for ndim in (1, 2, 3, 4):
            yield f"value{ndim}_{interp}", Value(seed=11, interpolation=interp), ndim
    for ndim in (2, 3, 4):
        yield f"simplex{ndim}", Simplex(seed=12), ndim
    for feature in ("f1", "f2", "f2-f1"):
        for metric in ("euclidean", "manhattan", "chebyshev"):
            for ndim in (2, 3):
                yield (
                    f"cellular{ndim}_{feature}_{metric}",
                    Cellular(13, feature=feature, metric=metric),
                    ndim,
                )
    yield "cellular2_jitter_half", Cellular(13, jitter=0.5), 2
    for mode in ("fbm", "billow", "turbulence", "ridged"):
        yield f"fractal3_perlin_{mode}", Fractal(Perlin(14), octaves=5, mode=mode), 3
    yield "fractal2_simplex", Fractal(Simplex(15), octaves=6, persistence=0.6, lacunarity=1.9), 2
    yield "fractal2_value_tiled", Fractal(Value(16, period=8), octaves=4, lacunarity=3.0), 2
    yield "fractal2_cellular", Fractal(Cellular(17), octaves=3), 2
    yield "warp2", Warp(Perlin(18), Fractal(Perlin(19), octaves=3), amplitude=4.0), 2
    yield "warp3", Warp(Simplex(20), Perlin(21), amplitude=1.5), 3


def points(ndim: int) -> np.ndarray:
    rng = np.random.default_rng(1000 + ndim)
    pts = rng.uniform(-100.0, 100.0, size=(24, ndim))
    pts[:4] = np.round(pts[:4])  # lattice points
    pts[4] = 1e6 + np.arange(ndim) * 0.25
    pts[5] = -1e6 - np.arange(ndim) * 0.125
    return pts


def grid_cases():
    """Grids long enough to take the row drivers' long-row path (>= 256
    samples along x) and, for 2D Perlin with a step dividing the lattice
    (1024 samples, few offset classes per octave), the class-table path."""
    even = (-3.0, 1024, 0.25)  # four offset classes at the first octave
    uneven = (-1.3, 300, 0.0137)
    rows = (2.0, 3, 0.5)
    yield "perlin2_classes", Fractal(Perlin(14), octaves=5), (even, rows)
    yield "perlin2_classes_tiled", Fractal(Perlin(2, period=8), octaves=3), (even, rows)
    yield "perlin2_long_row", Fractal(Perlin(14), octaves=5, mode="ridged"), (uneven, rows)
    yield "perlin3_long_row", Fractal(Perlin(3), octaves=3), (uneven, rows, (0.5, 2, 0.75))
    yield (
        "perlin4_long_row",
        Perlin(4),
        ((0.1, 256, 0.3), (1.0, 2, 0.5), (0.0, 1, 1.0), (2.5, 2, 1.0)),
    )
    yield "value2_long_row", Fractal(Value(5, interpolation="cubic"), octaves=4), (uneven, rows)
    yield "value3_long_row", Value(6), (uneven, rows, (0.5, 2, 0.75))
    yield "simplex2_long_row", Fractal(Simplex(7), octaves=3), (uneven, rows)
    yield "cellular2_long_row", Cellular(8, feature="f2-f1"), (uneven, rows)


def grid_axes(spec) -> list[np.ndarray]:
    return [axis(*a) for a in spec]


def make_grid_golden() -> dict:
    golden = {}
    for name, noise, spec in grid_cases():
        values = noise.grid(*grid_axes(spec))
        golden[name] = {
            "noise": repr(noise),
            "axes": [list(a) for a in spec],
            "shape": list(values.shape),
            "sha256": hashlib.sha256(values.tobytes()).hexdigest(),
            "every_97th": [float(v).hex() for v in values.ravel()[::97]],
        }
    return golden


def main() -> None:
    grids = make_grid_golden()
    (HERE / "golden_grids.json").write_text(json.dumps(grids, indent=1) + "\n")
    print(f"wrote {len(grids)} grid cases")
    golden = {}
    for name, noise, ndim in cases():
        pts = points(ndim)
        values = noise(*pts.T)
        golden[name] = {
            "noise": repr(noise),
            "points": [[float(v).hex() for v in p] for p in pts],
            "values": [float(v).hex() for v in values],
        }
    (HERE / "golden.json").write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {len(golden)} cases")


if __name__ == "__main__":
    main()
