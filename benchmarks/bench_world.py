"""Voxel chunk generation: milliseconds per chunk on one core, height-map
against 3D terrain, and chunks per second on two threads.

Chunks of the default world (16 x 16 columns x 384 blocks, caves, aquifers,
water, ores and trees) are generated serially on one thread, timed by the
thread's CPU time (the machine may be shared: wall time would count other
processes). Each round times the same fresh chunk coordinates once with
``terrain='heightmap'``, with ``terrain='3d'`` and with 3D terrain without
rivers, in alternating order, so that the per-round ratios (3D / height-map,
rivers / none) pair like with like; the table
gives the median and the spread (min-max) over rounds. Minecraft-class
generators spend about 40-50 ms of CPU per chunk; the goal for 3D terrain is
under 4 ms per chunk per core.

    python benchmarks/bench_world.py --chunks 100 --rounds 7 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import zlib

import numpy as np

from _report import header, write_section
from worldgen import threads
from worldgen.voxel import VoxelConfig, World, _generator, _rivers, generate_chunk
from worldgen.voxel._minecraft import chunk_bytes

TERRAINS = ("heightmap", "3d", "3d, no rivers")


def ms_per_chunk(config: VoxelConfig, coords: list[tuple[int, int]]) -> float:
    """Thread CPU milliseconds per chunk, generating ``coords`` in order."""
    with threads(1):
        start = time.thread_time()
        for cx, cz in coords:
            generate_chunk(config, cx, cz)
        return (time.thread_time() - start) / len(coords) * 1e3


def mca_rate(chunks) -> float:
    """Chunks per second of thread CPU time turned into a region file's
    records: NBT (nbtlib) and zlib, as ``--export mca`` writes them."""
    biomes = np.full((4, 4), 7, dtype=np.uint8)
    with threads(1):
        start = time.thread_time()
        for chunk in chunks:
            zlib.compress(chunk_bytes(chunk, biomes))
        return len(chunks) / (time.thread_time() - start)


def spread(values: list[float], digits: int = 2) -> str:
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    configs = {
        "heightmap": VoxelConfig(seed=1, terrain="heightmap"),
        "3d": VoxelConfig(seed=1),
        "3d, no rivers": VoxelConfig(seed=1, rivers=False),
    }
    for config in configs.values():
        generate_chunk(config, 10**6, 10**6)  # compile
    side = int(args.chunks**0.5)
    times: dict[str, list[float]] = {t: [] for t in TERRAINS}
    ratios, river_ratios, rates, exports = [], [], [], []
    for r in range(args.rounds):
        base = 1000 * (r + 1)
        coords = [(base + i, base + j) for i in range(side) for j in range(side)]
        order = TERRAINS if r % 2 == 0 else TERRAINS[::-1]
        _rivers._REGIONS.clear()  # a fresh area: rivers computed in the round
        for terrain in order:
            _generator._block_fields.cache_clear()  # each terrain makes its world's fields
            times[terrain].append(ms_per_chunk(configs[terrain], coords))
        exports.append(mca_rate([generate_chunk(configs["3d"], *c) for c in coords[:25]]))
        ratios.append(times["3d"][-1] / times["heightmap"][-1])
        river_ratios.append(times["3d"][-1] / times["3d, no rivers"][-1])
        world = World(lambda cx, cz: generate_chunk(configs["3d"], cx, cz), threads=2)
        start = time.perf_counter()
        count = sum(1 for _ in world.around(16 * (base + 500), 16 * (base + 500), 16 * side / 2))
        rates.append(count / (time.perf_counter() - start))
    command = "python benchmarks/bench_world.py " + " ".join(sys.argv[1:])
    text = "\n".join(
        [
            "## Voxel chunks (bench_world.py)",
            "",
            *header(command),
            f"{side * side} chunks a round, {args.rounds} rounds, height-map and 3D terrain "
            "alternating in each round; median (min-max) over rounds of thread CPU time. "
            f"A chunk is 16 x 16 x {configs['3d'].height} blocks with caves, aquifers, water, "
            "ores, trees and (unless said) rivers. Each round starts in a fresh area with an "
            "empty river cache, so the rivers of the regions its chunks lie in (1024 x 1024 "
            "blocks each, computed once per region) are counted in the round: over a whole "
            "region's 4096 chunks that cost is about 40 times smaller per chunk. The world's "
            "fields are made per block of 64 x 64 columns (and a halo) and shared by its 16 "
            "chunks; the cache is emptied before each terrain, so every round pays for its "
            "blocks.",
            "",
            "| measure | worldgen | Minecraft-class reference |",
            "|---|---|---|",
            f"| ms per chunk, one core, height-map terrain | {spread(times['heightmap'])} | 40-50 |",
            f"| ms per chunk, one core, 3D terrain (default) | {spread(times['3d'])} | 40-50 |",
            f"| ms per chunk, one core, 3D terrain without rivers "
            f"| {spread(times['3d, no rivers'])} | 40-50 |",
            f"| 3D / height-map, paired per round | {spread(ratios)} | - |",
            f"| 3D with rivers / without, paired per round | {spread(river_ratios)} | - |",
            f"| Minecraft export (NBT and zlib of a chunk), chunks per second of one core "
            f"| {spread(exports, 0)} | - |",
            f"| chunks per second, 2 threads, 3D (World.around, wall time) "
            f"| {statistics.median(rates):,.0f} ({min(rates):,.0f}-{max(rates):,.0f}) | - |",
        ]
    )
    print(text)
    if args.write:
        write_section(args.write, "bench_world", text)


if __name__ == "__main__":
    main()
