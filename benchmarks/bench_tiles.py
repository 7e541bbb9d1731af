"""Cost of the explorer's tiles on the world model, by zoom.

Every tile is 256 x 256 samples of the default world at the zoom's level of
detail (one sample per 2^(16 - z) cells); a zoom-0 tile should cost no more
than a zoom-16 one. For each zoom, tiles around the spawn (a mix of land
and sea) are made cold (the caches of the world model cleared, nothing of
the tile made before) and timed by the thread's CPU time, in interleaved
rounds so that the machine's load falls on every zoom alike; the report
gives the median and the spread of the CPU milliseconds per tile and per
sample, for the elevation alone, the colour tile (elevation with its halo,
colours, hillshade) and the PNG that is served.

    python benchmarks/bench_tiles.py --rounds 15 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numba

from _report import header, write_section
from worldgen.web import build_config, tile_image, tile_png
from worldgen.web._tiles import HALF, NATIVE_ZOOM, TILE, tile_window
from worldgen.world import _lod, elevation, spawn

ZOOMS = (2, 5, 8, 11, 14, 16)


def _clear() -> None:
    _lod._band_plan.cache_clear()
    _lod._coarse_axis.cache_clear()


def _tiles(config, z: int, count: int) -> list[tuple[int, int]]:
    x, y = spawn(config.world)
    step = 2 ** (NATIVE_ZOOM - z)
    tx, ty = (x + HALF) // (TILE * step), (y + HALF) // (TILE * step)
    out = []
    for k in range(count):
        dx, dy = (k % 3) - 1, (k // 3) % 3 - 1
        out.append((min(max(tx + dx, 0), 2**z - 1), min(max(ty + dy, 0), 2**z - 1)))
    return out


def _time(fn) -> float:
    _clear()
    start = time.thread_time()
    fn()
    return (time.thread_time() - start) * 1e3


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--write", help="RESULTS.md to update")
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    config = build_config({}, {"preset": "continents", "seed": 0})
    places = {z: _tiles(config, z, args.rounds) for z in ZOOMS}
    for z in ZOOMS:  # compile everything first
        tile_png(config, "colour", z, *places[z][0])
    times = {(z, what): [] for z in ZOOMS for what in ("elevation", "colour", "png")}
    for r in range(args.rounds):
        for z in ZOOMS:
            tile = (z, *places[z][r])
            window = tile_window(*tile)
            times[z, "elevation"].append(_time(lambda w=window: elevation(config.world, w)))
            times[z, "colour"].append(_time(lambda t=tile: tile_image(config, "colour", *t)))
            times[z, "png"].append(_time(lambda t=tile: tile_png(config, "colour", *t)))
    lines = header(f"python benchmarks/bench_tiles.py --rounds {args.rounds}")
    lines += [
        "Cold tiles of the default world (`continents`, seed 0), one thread, CPU time per "
        f"tile over {args.rounds} tiles around the spawn per zoom (median, and the 10th to "
        "90th percentile). `elevation`: the world model's heights of the tile; `colour`: the "
        "colour tile's pixels (heights with a one-sample halo, bands, hillshade); `png`: "
        "what is served (the colour tile and its PNG).",
        "",
        "| zoom | level | elevation ms | colour ms | png ms | png ns per sample |",
        "|---|---|---|---|---|---|",
    ]
    for z in ZOOMS:
        cells = []
        for what in ("elevation", "colour", "png"):
            values = sorted(times[z, what])
            lo = values[len(values) // 10]
            hi = values[(9 * len(values)) // 10]
            cells.append(f"{statistics.median(values):.1f} ({lo:.1f}-{hi:.1f})")
        per = statistics.median(times[z, "png"]) * 1e6 / (TILE * TILE)
        lines.append(f"| {z} | {NATIVE_ZOOM - z} | " + " | ".join(cells) + f" | {per:.0f} |")
    text = "## Explorer tiles on the world model (bench_tiles.py)\n\n" + "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "tiles", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
