"""Solving a landmass's drainage: CPU time of one region, cold and cached,
and the share of it spent in landscape evolution.

A region of the continent lattice (a square, or a 2 x 2 block of squares)
is solved once at the drainage level (at most about 614 x 614 samples for
a square, 1228 x 1228 for a block, cut to its land and a margin of sea)
and its network cached; every window near it then reads the cache. Each
round asks for each region's network cold (the network cache and the
world model's per-position caches cleared first) and then once more from
the cache, timed by the thread's CPU time on one thread; the
landscape evolution's own CPU time is taken inside the same cold solve, so
its share is paired round by round. Regions of the default world
(``continents``, seed 0) around the origin. Goal: a cold block in about 2
seconds of CPU or less.

    python benchmarks/bench_drainage.py --rounds 5 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numba

from _report import header, write_section
from worldgen.world import WorldConfig, _drainage, _evolution, _lod

REGIONS = (("block", _drainage.Region(2, 0, 0)), ("square", _drainage.Region(1, -31, -23)))


def _spread(values: list[float], digits: int = 2) -> str:
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def _clear() -> None:
    _drainage.network.cache_clear()
    _lod._coarse_axis.cache_clear()


def main(argv=None) -> int:
    numba.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds of solves")
    parser.add_argument("--write", metavar="RESULTS.md", help="the results file to update")
    args = parser.parse_args(argv)
    config = WorldConfig(seed=0)
    spent = []
    evolve = _evolution.evolve

    def timed(*a, **k):
        start = time.thread_time()
        try:
            return evolve(*a, **k)
        finally:
            spent.append(time.thread_time() - start)

    _drainage._evolution.evolve = timed
    try:
        for _, region in REGIONS:  # compile
            _drainage.network(config, region)
        cold = {name: [] for name, _ in REGIONS}
        cached = {name: [] for name, _ in REGIONS}
        share = {name: [] for name, _ in REGIONS}
        samples = {}
        for _ in range(args.rounds):
            for name, region in REGIONS:
                _clear()
                spent.clear()
                start = time.thread_time()
                solved = _drainage.network(config, region)
                cold[name].append(time.thread_time() - start)
                share[name].append(sum(spent) / cold[name][-1])
                start = time.thread_time()
                _drainage.network(config, region)
                cached[name].append((time.thread_time() - start) * 1e6)
                samples[name] = solved.window.shape
    finally:
        _drainage._evolution.evolve = evolve
    lines = header(f"python benchmarks/bench_drainage.py --rounds {args.rounds}")
    lines += [
        f"Regions of the default world (seed 0), one thread, CPU time per solve over "
        f"{args.rounds} rounds (median, min-max): cold (caches cleared) and cached; the "
        "evolution's share is its CPU time within the same cold solve (goal: a cold block "
        "in about 2 s or less).",
        "",
        "| region | samples | cold s | cached us | evolution share of cold |",
        "|---|---|---|---|---|",
        *(
            f"| {name} {region.scale}x{region.scale} | {samples[name][1]} x {samples[name][0]} "
            f"| {_spread(cold[name])} | {_spread(cached[name], 1)} | {_spread(share[name])} |"
            for name, region in REGIONS
        ),
    ]
    text = "## Drainage of a landmass (bench_drainage.py)\n\n" + "\n".join(lines)
    if args.write:
        write_section(args.write, "drainage", text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
