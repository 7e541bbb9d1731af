"""Mesh building and export of a 1024^2 height field.

Times ``heightfield_mesh`` and each file format ``write_mesh`` offers
(GLB and OBJ written here a band of rows at a time, PLY and STL encoded by
trimesh), by process CPU time: the median and the spread (min-max) of a
few runs after a warm-up.

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
            start = time.process_time()
            mesh = heightfield_mesh(heights, multiplier=100.0)
            if r:
                times.setdefault("build", []).append(time.process_time() - start)
            for fmt in ("glb", "obj", "ply", "stl"):
                start = time.process_time()
                write_mesh(Path(out) / f"terrain.{fmt}", mesh, texture=texture)
                if r:
                    times.setdefault(fmt, []).append(time.process_time() - start)
    command = "python benchmarks/bench_mesh.py " + " ".join(sys.argv[1:])
    cols = ["build", "glb", "obj", "ply", "stl"]
    text = "\n".join(
        [
            "## Mesh build and export (bench_mesh.py)",
            "",
            *header(command),
            f"A {n}^2 height field: {n * n:,} vertices, {2 * (n - 1) ** 2:,} triangles; CPU "
            f"seconds, median (min-max) of {args.rounds} runs. glb and obj embed or write a "
            f"{n}x{n} texture; ply has vertex colours; stl is geometry only.",
            "",
            "| " + " | ".join(cols) + " |",
            "|---" * len(cols) + "|",
            "| "
            + " | ".join(
                f"{statistics.median(times[c]):.2f} ({min(times[c]):.2f}-{max(times[c]):.2f})"
                for c in cols
            )
            + " |",
        ]
    )
    print(text)
    if args.write:
        write_section(args.write, "bench_mesh", text)


if __name__ == "__main__":
    main()
