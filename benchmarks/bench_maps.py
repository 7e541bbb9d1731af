"""The default map pipeline, stage by stage, at 1024^2 and 4096^2.

Runs ``write_map_set`` (what ``worldgen map`` does) on the default config at
each size and times every stage it reports, so the slow stage is visible.
Each size is run once to compile and warm up, then ``--rounds`` times; the
table gives the median seconds per stage.

    python benchmarks/bench_maps.py --rounds 3 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time

from _report import header, write_section
from worldgen.io._mapset import STAGES, write_map_set
from worldgen.products import MapConfig
from worldgen.world import NoiseMap


def run(size: int) -> dict[str, float]:
    config = MapConfig(terrain=dataclasses.replace(NoiseMap(), width=size, height=size))
    marks: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        write_map_set(
            config, out, progress=lambda stage: marks.append((stage, time.perf_counter()))
        )
        end = time.perf_counter()
    times = {}
    for (stage, t0), (_, t1) in zip(marks, [*marks[1:], ("end", end)]):
        times[stage] = t1 - t0
    times["total"] = end - start
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    results = {}
    for size in args.sizes:
        run(min(size, 256))  # compile
        rounds = [run(size) for _ in range(args.rounds)]
        results[size] = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    command = "python benchmarks/bench_maps.py " + " ".join(sys.argv[1:])
    columns = [*STAGES, "total"]
    lines = [
        "## Map pipeline by stage (bench_maps.py)",
        "",
        *header(command),
        "The default `worldgen map` set (16-bit heights, shaded colour map, biome map and "
        f"legend, Tiled JSON and CSV tilemap) from the default config; median seconds of "
        f"{args.rounds} runs after a warm-up. Stages: noise = height noise map; shaping = "
        "mask and curve; climate = moisture noise; classes = bands and biomes; clean-up = "
        "tile clean-up; pictures = colour ramps, hillshading, legend; files = encoding and "
        "writing.",
        "",
        "| size | " + " | ".join(columns) + " |",
        "|---" * (len(columns) + 1) + "|",
    ]
    for size, times in results.items():
        lines.append(
            f"| {size}^2 | " + " | ".join(f"{times.get(c, 0.0):.3f}" for c in columns) + " |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        write_section(args.write, "bench_maps", text)


if __name__ == "__main__":
    main()
