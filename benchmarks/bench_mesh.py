"""Mesh building and export of a 1024^2 height field.

Times ``heightfield_mesh`` and each file format ``write_mesh`` offers
(trimesh does the encoding), median of a few runs after a warm-up.

    python benchmarks/bench_mesh.py --rounds 3 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _report import header, write_section
from worldgen.io._mesh import write_mesh
from worldgen.noise import Fractal, Perlin, axis
from worldgen.products._mesh import heightfield_mesh


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    n = args.size
    heights = Fractal(Perlin(1), octaves=6).grid(
        axis(0, n, 1 / 128), axis(0, n, 1 / 128), unit=True
    )
    texture = (np.stack([heights] * 3, axis=2) * 255).astype(np.uint8)
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as out:
        for r in range(args.rounds + 1):
            start = time.perf_counter()
            mesh = heightfield_mesh(heights, multiplier=100.0)
            if r:
                times.setdefault("build", []).append(time.perf_counter() - start)
            for fmt in ("glb", "obj", "ply", "stl"):
                start = time.perf_counter()
                write_mesh(Path(out) / f"terrain.{fmt}", mesh, texture=texture)
                if r:
                    times.setdefault(fmt, []).append(time.perf_counter() - start)
    command = "python benchmarks/bench_mesh.py " + " ".join(sys.argv[1:])
    cols = ["build", "glb", "obj", "ply", "stl"]
    text = "\n".join(
        [
            "## Mesh build and export (bench_mesh.py)",
            "",
            *header(command),
            f"A {n}^2 height field: {n * n:,} vertices, {2 * (n - 1) ** 2:,} triangles; median "
            f"seconds of {args.rounds} runs. glb and obj embed or write a {n}x{n} texture; ply "
            "has vertex colours; stl is geometry only.",
            "",
            "| " + " | ".join(cols) + " |",
            "|---" * len(cols) + "|",
            "| " + " | ".join(f"{statistics.median(times[c]):.2f}" for c in cols) + " |",
        ]
    )
    print(text)
    if args.write:
        write_section(args.write, "bench_mesh", text)


if __name__ == "__main__":
    main()
