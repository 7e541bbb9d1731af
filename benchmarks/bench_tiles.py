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
import os
import statistics
import sys
import time

import numba
import numpy as np

from _report import header, write_section
from worldgen.web import build_config, tile_image, tile_png
from worldgen.web._tiles import HALF, NATIVE_ZOOM, TILE, tile_window
from worldgen.world import Window, _lod, elevation, spawn

ZOOMS = (2, 5, 8, 11, 14, 16)


def level_agreement(config, level: int) -> float:
    """RMS of (a level-L sample - the mean of the 4 x 4 level-(L-2) samples
    under it) over four places around the spawn, in standard deviations of
    the terrain there (as tests/world/test_model.py measures it)."""
    x0, y0 = spawn(config)
    step = 2**level
    errors, spreads = [], []
    for dx, dy in ((0, 0), (-40, 17), (33, -25), (10, 50)):
        cx, cy = x0 + dx * step, y0 + dy * step
        coarse = Window(cx - 16 * step, cy - 16 * step, 32, 32, step)
        fine = Window(coarse.x, coarse.y, 128, 128, step // 4)
        a = elevation(config, coarse)
        b = elevation(config, fine).reshape(32, 4, 32, 4).mean(axis=(1, 3))
        errors.append(((a - b) ** 2).mean())
        spreads.append(elevation(config, Window(cx - 64 * step, cy - 64 * step, 128, 128, step)))
    spread = float(np.concatenate([s.ravel() for s in spreads]).std())
    return float(np.sqrt(np.mean(errors))) / spread


def _clear() -> None:
    """Forget what a tile left behind for its neighbours: the coarse
    lattices' weights by position. What depends on the level alone (which
    octaves a level keeps, the tabulated elevation profile) stays, as it does
    in a running server after its first tile of each zoom."""
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
    load = os.getloadavg()
    lines = header(f"python benchmarks/bench_tiles.py --rounds {args.rounds}")
    lines += [
        "Cold tiles of the default world (`continents`, seed 0), one thread, CPU time per "
        f"tile over {args.rounds} tiles around the spawn per zoom (median, and the 10th to "
        "90th percentile). `elevation`: the world model's heights of the tile; `colour`: the "
        "colour tile's pixels (heights with a one-sample halo, bands, hillshade); `png`: "
        "what is served (the colour tile and its PNG). Load average after: "
        f"{load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} (CPU time still grows with the "
        "load: the cores' caches are shared).",
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
    lines += [
        "",
        "Levels of detail: how far a sample at level L (one per 2^L cells, zoom 16 - L) is "
        "from the mean of the 4 x 4 samples of level L - 2 under it, RMS in standard "
        "deviations of the terrain, four places around the spawn (the test holds levels "
        "2-10 to 0.2).",
        "",
        "| level | " + " | ".join(str(level) for level in range(2, 17, 2)) + " |",
        "|---" * 9 + "|",
        "| RMS / std | "
        + " | ".join(f"{level_agreement(config.world, level):.3f}" for level in range(2, 17, 2))
        + " |",
    ]
    text = "## Explorer tiles on the world model (bench_tiles.py)\n\n" + "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "tiles", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
