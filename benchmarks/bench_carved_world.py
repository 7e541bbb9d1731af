"""Cost of the world's rivers in a window, and of the whole carved pipeline.

Windows of 1024 x 1024 cells at full detail, each centred on a big river of
the default world (seed 0) near the spawn, timed by CPU time (the process's:
numba's threads count too) in interleaved rounds:

- ``fields cold``: ``world_fields(..., rivers=True)`` with the regions'
  drainage forgotten first, so the window solves the regions it meets;
- ``fields``: the same with the drainage kept (as a running explorer or a
  second window of the same landmass has it);
- ``carved``: :func:`~worldgen.products._carved.carve_window` of a continents map
  (the terrain set's layers, colour and erosion at the default droplets),
  the drainage kept, the carved windows' caches cleared.

Each row gives the median and the spread (min-max) of CPU seconds and the
median rate in million cells per CPU second.

    python benchmarks/bench_carved_world.py --rounds 5 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

from _report import header, write_section
from worldgen.config import map_config, preset
from worldgen.products import TerrainConfig
from worldgen.products._carved import carve_window
from worldgen.terrain._windowed import clear_caches
from worldgen.world import Window, WorldConfig, _drainage, spawn, world_fields

SIDE = 1024


def river_windows(config: WorldConfig, count: int) -> list[Window]:
    """Windows centred on the ``count`` biggest rivers' points of the
    landmass at the spawn, at least two windows apart."""
    x, y = spawn(config)
    (region,) = _drainage.regions_near(config, x, y, x, y)
    seg = _drainage.network(config, region).segments
    out: list[Window] = []
    for k in np.argsort(-seg.area):
        if seg.surface[k, 0] < 5.0:
            continue
        cx, cy = (int(v) for v in seg.points[k, 0])
        if all(abs(cx - w.x) > 2 * SIDE or abs(cy - w.y) > 2 * SIDE for w in out):
            out.append(Window(cx - SIDE // 2, cy - SIDE // 2, SIDE, SIDE))
        if len(out) == count:
            break
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", help="RESULTS.md to update")
    args = parser.parse_args(argv)
    config = WorldConfig(seed=0)
    maps = map_config(preset("continents", SIDE, SIDE))
    carving = TerrainConfig()
    windows = river_windows(config, 3)
    world_fields(config, windows[0], rivers=True)  # compile
    carve_window(maps, carving, Window(windows[0].x, windows[0].y, 64, 64))

    def fields_cold(w):
        _drainage.network.cache_clear()
        world_fields(config, w, rivers=True)

    cases = {
        "fields cold": fields_cold,
        "fields": lambda w: world_fields(config, w, rivers=True),
        "carved": lambda w: (clear_caches(), carve_window(maps, carving, w)),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for r in range(args.rounds):
        for name, run in cases.items():
            w = windows[r % len(windows)]
            if name != "fields cold":
                world_fields(config, w, climate=False, rivers=True)  # the drainage kept
            t = time.process_time()
            run(w)
            times[name].append(time.process_time() - t)
    load = os.getloadavg()
    lines = header(f"python benchmarks/bench_carved_world.py --rounds {args.rounds}")
    lines += [
        "",
        f"{args.rounds} interleaved rounds over {len(windows)} windows of {SIDE} x {SIDE} cells "
        "on big rivers of seed 0's spawn landmass; process CPU time. Load average after: "
        f"{load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}.",
        "",
        "| case | CPU s, median (min-max) | Mcells per CPU s |",
        "|---|---|---|",
    ]
    for name, values in times.items():
        median = statistics.median(values)
        lines.append(
            f"| {name} | {median:.2f} ({min(values):.2f}-{max(values):.2f}) | "
            f"{SIDE * SIDE / median / 1e6:.2f} |"
        )
    text = "## The world's rivers in windows (bench_carved_world.py)\n\n" + "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "carved_world", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
