"""Voxel chunk generation: milliseconds per chunk per core, chunks per second.

Chunks of the default world (16 x 16 columns x 384 blocks, caves, water,
ores and trees) are generated serially on one core, then by the World's
thread pool on two; the rounds use fresh chunk coordinates so that nothing
is cached. Minecraft-class generators spend about 40-50 ms of CPU per chunk;
the goal here is under 2 ms per chunk per core.

    python benchmarks/bench_world.py --chunks 200 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from _report import header, write_section
from worldgen import threads
from worldgen.world import World, WorldConfig, generate_chunk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    config = WorldConfig(seed=1)
    generate_chunk(config, 10**6, 10**6)  # compile
    side = int(args.chunks**0.5)
    serial, parallel = [], []
    for r in range(args.rounds):
        base = 1000 * (r + 1)
        coords = [(base + i, base + j) for i in range(side) for j in range(side)]
        with threads(1):
            start = time.perf_counter()
            for cx, cz in coords:
                generate_chunk(config, cx, cz)
            serial.append((time.perf_counter() - start) / len(coords))
        world = World(lambda cx, cz: generate_chunk(config, cx, cz), threads=2)
        start = time.perf_counter()
        count = sum(1 for _ in world.around(16 * (base + 500), 16 * (base + 500), 16 * side / 2))
        parallel.append(count / (time.perf_counter() - start))
    ms = statistics.median(serial) * 1e3
    rate = statistics.median(parallel)
    command = "python benchmarks/bench_world.py " + " ".join(sys.argv[1:])
    text = "\n".join(
        [
            "## Voxel chunks (bench_world.py)",
            "",
            *header(command),
            f"{side * side} chunks a round, median of {args.rounds} rounds. A chunk is 16 x 16 x "
            f"{config.height} blocks with caves, water, ores and trees.",
            "",
            "| measure | worldgen | Minecraft-class reference |",
            "|---|---|---|",
            f"| ms per chunk, one core | {ms:.2f} | 40-50 |",
            f"| chunks per second, 2 threads (World.around) | {rate:,.0f} | - |",
        ]
    )
    print(text)
    if args.write:
        write_section(args.write, "bench_world", text)


if __name__ == "__main__":
    main()
