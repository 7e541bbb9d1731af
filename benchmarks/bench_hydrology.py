"""Depression filling and flow accumulation, whole map against tiles.

A 4096 x 4096 fBm height field (``Fractal(Perlin(5), octaves=7)``, 512
cells per lattice unit): ``fill_depressions`` (epsilon 0) and
``flow_accumulation`` of its D8 directions on the whole map, against
``tiled_fill`` and ``tiled_flow_accumulation`` in 512 x 512 tiles, in this
process (serial, numpy arrays) and on a pool of 2 worker processes (zarr
arrays, one chunk per tile). Rounds interleave the variants; the table
gives million cells per second, median and (min-max) over rounds, wall
time. Goals from the literature: depression filling at least 1.5 Mcells/s
(pysheds on one core: 1.3), flow accumulation at least 10.

    python benchmarks/bench_hydrology.py --rounds 3 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import zarr

from _report import header, write_section
from worldgen.noise import Fractal, Perlin
from worldgen.terrain import (
    fill_depressions,
    flow_accumulation,
    flow_directions,
    tiled_fill,
    tiled_flow_accumulation,
)

SIZE = 4096
TILE = 512


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    x = np.arange(SIZE) / 512.0
    heights = Fractal(Perlin(5), octaves=7).grid(x, x)
    filled = fill_depressions(heights)
    directions = flow_directions(filled)
    folder = tempfile.mkdtemp(prefix="bench-hydrology-")

    def array(name, dtype, values=None):
        a = zarr.open_array(f"{folder}/{name}", mode="w", shape=heights.shape,
                            chunks=(TILE, TILE), dtype=dtype)  # fmt: skip
        if values is not None:
            a[:] = values
        return a

    zh, zf = array("h", np.float64, heights), array("f", np.float64)
    zd, za = array("d", np.int8, directions), array("a", np.float64)
    out = np.zeros(heights.shape)
    times: dict[str, list[float]] = {}
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        cases = {
            "fill, whole map": lambda: fill_depressions(heights),
            "fill, tiles, 1 process": lambda: tiled_fill(heights, out, tile=TILE),
            "fill, tiles, 2 processes": lambda: tiled_fill(zh, zf, tile=TILE, map=pool.map),
            "accumulation, whole map": lambda: flow_accumulation(directions),
            "accumulation, tiles, 1 process": lambda: tiled_flow_accumulation(
                directions, out, tile=TILE
            ),
            "accumulation, tiles, 2 processes": lambda: tiled_flow_accumulation(
                zd, za, tile=TILE, map=pool.map
            ),
        }
        for function in cases.values():  # compile, start the pool
            function()
        for r in range(args.rounds):
            names = list(cases) if r % 2 == 0 else list(cases)[::-1]
            for name in names:
                times.setdefault(name, []).append(timed(cases[name]))
    rates = {k: [SIZE * SIZE / t / 1e6 for t in v] for k, v in times.items()}
    load = os.getloadavg()
    lines = [
        "## Tiled hydrology (bench_hydrology.py)",
        "",
        *header("python benchmarks/bench_hydrology.py " + " ".join(sys.argv[1:])),
        f"{SIZE} x {SIZE} fBm, tiles of {TILE} x {TILE}; {args.rounds} interleaved rounds, wall "
        f"time; load average after: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}. "
        f"The fill raises {np.mean(filled > heights):.1%} of the cells.",
        "",
        "| case | Mcells/s | goal |",
        "|---|---|---|",
    ]
    for name, values in rates.items():
        goal = "1.5" if name.startswith("fill") else "10"
        lines.append(
            f"| {name} | {statistics.median(values):.2f} "
            f"({min(values):.2f}-{max(values):.2f}) | {goal} |"
        )
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "bench_hydrology", text)


if __name__ == "__main__":
    main()
