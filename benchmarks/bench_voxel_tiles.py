"""The explorer's voxel layer against its colour layer: CPU time of a cold
tile of each, by zoom, and their ratio paired round by round.

A voxel tile is the voxel world seen from above, made from the world's
fields at the tile's level of detail (top blocks, water depth, tree crowns
at zoom 16, tree cover below); a colour tile is the map's height bands,
hillshaded. Each round makes one tile of each layer at each zoom, at a new
place around the spawn of the default world (`continents`, seed 0), cold
(the world model's per-position caches cleared first; the landmasses'
drainage, a per-landmass cost, solved before), timed by the
thread's CPU time on one thread. The goal: a voxel tile in no more than
three times a colour tile's time.

    python benchmarks/bench_voxel_tiles.py --rounds 9 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numba

from _report import header, write_section
from worldgen.web import build_config, tile_image
from worldgen.web._tiles import HALF, NATIVE_ZOOM, TILE
from worldgen.world import _lod, spawn

ZOOMS = (12, 14, 16)
LAYERS = ("colour", "voxel")


def _cold(config, layer: str, z: int, x: int, y: int) -> float:
    _lod._coarse_axis.cache_clear()
    start = time.thread_time()
    tile_image(config, layer, z, x, y)
    return (time.thread_time() - start) * 1e3


def _place(x0: int, y0: int, z: int, r: int) -> tuple[int, int]:
    """Round ``r``'s tile at zoom ``z``: one of the 3 x 3 around the spawn."""
    step = TILE * 2 ** (NATIVE_ZOOM - z)
    return (x0 + HALF) // step + r % 3 - 1, (y0 + HALF) // step + r // 3 - 1


def _spread(values: list[float], digits: int = 1) -> str:
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def main(argv=None) -> int:
    numba.set_num_threads(1)
    config = build_config({}, {"preset": "continents", "seed": 0})
    x0, y0 = spawn(config.world)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9, help="rounds of tiles")
    parser.add_argument("--write", metavar="RESULTS.md", help="the results file to update")
    args = parser.parse_args(argv)
    times = {(z, layer): [] for z in ZOOMS for layer in LAYERS}
    ratios = {z: [] for z in ZOOMS}
    for z in ZOOMS:  # compile
        for layer in LAYERS:
            tile_image(config, layer, z, 0, 0)
    # The drainage of the landmasses the tiles meet is solved once per
    # landmass and kept, as in a running explorer: solved here, untimed (else
    # the first tile to meet a region pays a second for it).
    for r in range(args.rounds):
        for z in ZOOMS:
            tile_image(config, "colour", z, *_place(x0, y0, z, r))
    for r in range(args.rounds):
        for z in ZOOMS:
            tile = _place(x0, y0, z, r)
            order = LAYERS if r % 2 == 0 else LAYERS[::-1]
            for layer in order:
                times[z, layer].append(_cold(config, layer, z, *tile))
            ratios[z].append(times[z, "voxel"][-1] / times[z, "colour"][-1])
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = header(f"python benchmarks/bench_voxel_tiles.py --rounds {args.rounds}")
    lines += [
        f"Cold tiles of the default world around its spawn, one thread, CPU ms per tile "
        f"over {args.rounds} rounds (median, min-max); the two layers alternate in order "
        "and each round moves to another tile, with the landmasses' drainage solved before "
        "(untimed: once per landmass). The ratio is voxel / colour within a round "
        f"(goal: at most 3). Load average at the end: {load}.",
        "",
        "| zoom | colour ms | voxel ms | voxel / colour |",
        "|---|---|---|---|",
        *(
            f"| {z} | {_spread(times[z, 'colour'])} | {_spread(times[z, 'voxel'])} "
            f"| {_spread(ratios[z], 2)} |"
            for z in ZOOMS
        ),
    ]
    text = "## Explorer voxel tiles (bench_voxel_tiles.py)\n\n" + "\n".join(lines)
    if args.write:
        write_section(args.write, "voxel_tiles", text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
