"""Voxel chunk generation: milliseconds per chunk on one core, height-map
against 3D terrain, with and without the world's rivers, and the Minecraft
export in chunks per second.

Chunks of the default world (seed 0; 16 x 16 columns x 384 blocks, caves,
aquifers, water, ores, trees and the world's rivers and lakes) are
generated serially on one thread, timed by the thread's CPU time (the
machine may be shared: wall time would count other processes). Each round
is a square of chunks that a river crosses, inland on the landmass by the
spawn (a different river each round), and one in the highest ranges near
the spawn, where the 3D relief is largest. A round first solves the
drainage of the landmass's region (timed apart: a per-landmass cost, paid
once and kept, not a per-chunk one), then times the same chunks with
``terrain='heightmap'``, with ``terrain='3d'`` and with 3D terrain without
rivers, in alternating order, so the per-round ratios pair like with like;
the table gives the median and the spread (min-max) over rounds. Before
each terrain the kept column fields are dropped, so each pays for its own
blocks of 64 x 64 columns (the world's fields, column noises and the 3D
noises' grid, shared by a block's 16 chunks). Minecraft-class generators
spend about 40-50 ms of CPU per chunk; the goal is under 5 ms.

    python benchmarks/bench_world.py --chunks 100 --rounds 7 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import zlib

import numpy as np

from _report import header, write_section
from worldgen import threads
from worldgen.voxel import VoxelConfig, World, _generator, generate_chunk
from worldgen.voxel._minecraft import chunk_bytes
from worldgen.world import Window, _drainage, _rivers, spawn, world_fields

TERRAINS = ("heightmap", "3d", "3d, no rivers")


def ms_per_chunk(config: VoxelConfig, coords: list[tuple[int, int]]) -> float:
    """Thread CPU milliseconds per chunk, generating ``coords`` in order
    after dropping the kept column fields."""
    _generator._block_columns.cache_clear()
    with threads(1):
        start = time.thread_time()
        for cx, cz in coords:
            generate_chunk(config, cx, cz)
        return (time.thread_time() - start) / len(coords) * 1e3


def drainage_seconds(config: VoxelConfig, coords: list[tuple[int, int]]) -> float:
    """Thread CPU seconds to solve the drainage of the regions that the
    chunks' rivers come from (cold, if the kept ones were dropped)."""
    x0, z0 = (16 * min(c) for c in zip(*coords, strict=True))
    x1, z1 = (16 * max(c) + 16 for c in zip(*coords, strict=True))
    reach = _rivers.REACH + 32  # a chunk's margin and its block's halo, and more
    with threads(1):
        start = time.thread_time()
        for region in _drainage.regions_near(
            config.world, x0 - reach, z0 - reach, x1 + reach, z1 + reach
        ):
            _drainage.network(config.world, region)
        return time.thread_time() - start


def mca_rate(chunks) -> float:
    """Chunks per second of thread CPU time turned into a region file's
    records: NBT (nbtlib) and zlib, as ``--export mca`` writes them."""
    biomes = np.full((4, 4), 7, dtype=np.uint8)
    with threads(1):
        start = time.thread_time()
        for chunk in chunks:
            zlib.compress(chunk_bytes(chunk, biomes))
        return len(chunks) / (time.thread_time() - start)


def river_places(config: VoxelConfig, count: int) -> list[tuple[int, int]]:
    """Block ``(x, z)`` of ``count`` inland river points of the landmass by
    the spawn (not in a lake), spread over it (segments are sorted north to
    south)."""
    x, z = spawn(config.world)
    region = _drainage.regions_near(config.world, x, z, x, z)[0]
    seg = _drainage.network(config.world, region).segments
    inland = np.flatnonzero(seg.surface[:, 1] > 10.0)
    places = []
    for s in inland[np.linspace(0, inland.size - 1, 4 * count).round().astype(int)]:
        px, pz = int(seg.points[s, 0, 0]), int(seg.points[s, 0, 1])
        kind = world_fields(config.world, Window(px, pz, 1, 1), climate=False, rivers=True)
        if kind.water_kind[0, 0] == _rivers.RIVER:
            places.append((px, pz))
    return places[:: max(len(places) // count, 1)][:count]


def highest_ranges(config: VoxelConfig, radius: int = 8192, step: int = 32) -> tuple[int, int]:
    """Block ``(x, z)`` near the spawn where the ranges add the most metres
    to land standing over 90 m."""
    x, z = spawn(config.world)
    n = 2 * radius // step
    fields = world_fields(config.world, Window(x - radius, z - radius, n, n, step), climate=False)
    ranges = np.where(fields.elevation > 90.0, fields.mountains, 0.0)
    r, c = np.unravel_index(int(np.argmax(ranges)), ranges.shape)
    return x - radius + int(c) * step, z - radius + int(r) * step


def square(x: int, z: int, side: int) -> list[tuple[int, int]]:
    """``side x side`` chunks centred on block ``(x, z)``."""
    cx, cz = x // 16 - side // 2, z // 16 - side // 2
    return [(cx + i, cz + j) for j in range(side) for i in range(side)]


def river_share(config: VoxelConfig, coords: list[tuple[int, int]]) -> float:
    """Share of the chunks' columns that hold a river or a lake."""
    cx0, cz0 = coords[0]
    side = int(len(coords) ** 0.5)
    fields = world_fields(
        config.world, Window(16 * cx0, 16 * cz0, 16 * side, 16 * side), climate=False, rivers=True
    )
    kind = fields.water_kind
    return float(((kind == _rivers.RIVER) | (kind == _rivers.LAKE)).mean())


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
        "heightmap": VoxelConfig(terrain="heightmap"),
        "3d": VoxelConfig(),
        "3d, no rivers": VoxelConfig(rivers=False),
    }
    for config in configs.values():
        generate_chunk(config, 10**6, 10**6)  # compile
    load_before = os.getloadavg()
    side = int(args.chunks**0.5)
    places = river_places(configs["3d"], args.rounds)
    mountains = square(*highest_ranges(configs["3d"]), side)
    times: dict[str, list[float]] = {t: [] for t in TERRAINS}
    high, ratios, river_ratios, rates, exports, drainage, shares = [], [], [], [], [], [], []
    for r, place in enumerate(places):
        coords = square(*place, side)
        _drainage.network.cache_clear()
        drainage.append(drainage_seconds(configs["3d"], coords))
        drainage_seconds(configs["3d"], mountains)
        shares.append(river_share(configs["3d"], coords))
        order = TERRAINS if r % 2 == 0 else TERRAINS[::-1]
        for terrain in order:
            times[terrain].append(ms_per_chunk(configs[terrain], coords))
        high.append(ms_per_chunk(configs["3d"], mountains))
        exports.append(mca_rate([generate_chunk(configs["3d"], *c) for c in coords[:25]]))
        ratios.append(times["3d"][-1] / times["heightmap"][-1])
        river_ratios.append(times["3d"][-1] / times["3d, no rivers"][-1])
        _generator._block_columns.cache_clear()
        world = World(lambda cx, cz: generate_chunk(configs["3d"], cx, cz), threads=2)
        start = time.perf_counter()
        count = sum(1 for _ in world.around(place[0], place[1], 16 * side / 2))
        rates.append(count / (time.perf_counter() - start))
    load_after = os.getloadavg()
    command = "python benchmarks/bench_world.py " + " ".join(sys.argv[1:])
    load = ", ".join(f"{x:.1f}" for x in load_before)
    load_end = ", ".join(f"{x:.1f}" for x in load_after)
    text = "\n".join(
        [
            "## Voxel chunks (bench_world.py)",
            "",
            *header(command),
            f"Load average (1, 5, 15 min) at the start: {load}; at the end: {load_end}.",
            "",
            f"{side * side} chunks a round, {args.rounds} rounds; median (min-max) over rounds "
            "of thread CPU time. A chunk is 16 x 16 x "
            f"{configs['3d'].height} blocks of the default world (seed 0) with caves, "
            "aquifers, water, ores, trees and (unless said) the world's rivers and lakes. "
            "Each round is a square of chunks that a river crosses, inland on the landmass by "
            f"the spawn, another river each round (rivers or lakes in {spread(shares, 3)} of "
            "their columns), with the landmass's drainage solved first (its own row: solved "
            "once per landmass and kept, not a per-chunk cost); the terrains alternate in "
            "order, and each pays for its blocks' fields (the world's fields, column noises "
            "and the 3D noises' grid of a block of 64 x 64 columns, shared by its 16 chunks). "
            "The mountain row is a square in the highest ranges near the spawn.",
            "",
            "| measure | worldgen | Minecraft-class reference |",
            "|---|---|---|",
            f"| ms per chunk, one core, height-map terrain | {spread(times['heightmap'])} | 40-50 |",
            f"| ms per chunk, one core, 3D terrain (default) | {spread(times['3d'])} | 40-50 |",
            f"| ms per chunk, one core, 3D terrain without rivers "
            f"| {spread(times['3d, no rivers'])} | 40-50 |",
            f"| ms per chunk, one core, 3D terrain in the highest ranges | {spread(high)} "
            "| 40-50 |",
            f"| 3D / height-map, paired per round | {spread(ratios)} | - |",
            f"| 3D with rivers / without, paired per round | {spread(river_ratios)} | - |",
            f"| drainage of the landmasses' regions, solved cold once (CPU s, not per chunk) "
            f"| {spread(drainage)} | - |",
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
