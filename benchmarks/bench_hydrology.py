"""Depression filling and flow accumulation: whole map, tiles, and the peers.

A 4096 x 4096 fBm height field (``Fractal(Perlin(5), octaves=7)``, 512
cells per lattice unit). Depression filling (epsilon 0): worldgen's
``fill_depressions`` on the whole map and ``tiled_fill`` in 512 x 512
tiles, against richdem's ``FillDepressions`` (``richdem-fork`` on PyPI,
Zhou 2016's Priority-Flood, in C++) and pysheds' ``fill_depressions`` on
the same DEM; every output is checked equal to worldgen's, byte for byte,
before timing. Flow accumulation of the D8 directions: whole map and
tiles.

Rounds interleave the cases. In this process the calls are timed by the
calling thread's CPU time (``time.thread_time``: what the shared machine
gives to other processes does not count), and each peer's time is divided
by worldgen's in the same round (above 1: worldgen is faster); the table
gives the median and (min-max) over rounds. The 2-process tile cases (a
pool of worker processes, zarr arrays, one chunk per tile) are timed by
wall time. Goals from the literature: filling at least 1.5 Mcells/s
(pysheds on one core: 1.3), accumulation at least 10.

Peers: ``pip install richdem-fork pysheds`` (pysheds 0.5 calls ``np.in1d``,
gone from numpy 2.4; the script sets ``np.in1d = np.isin``). A missing peer
stops the script unless ``--allow-missing``.

    python benchmarks/bench_hydrology.py --rounds 5 --write benchmarks/RESULTS.md
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
# Peers too slow to time every round: timed in this many rounds.
SLOW = {"pysheds": 2}


def peers(heights: np.ndarray, allow_missing: bool) -> tuple[dict, list[str]]:
    """Each peer's fill of ``heights`` as a call, and the peers missing."""
    calls, missing = {}, []
    try:
        import richdem as rd

        def richdem_fill():
            dem = rd.rdarray(heights.copy(), no_data=-9999.0)
            rd.FillDepressions(dem, epsilon=False, in_place=True)
            return np.asarray(dem)

        calls["richdem"] = richdem_fill
    except ImportError as exc:
        missing.append(f"richdem ({exc})")
    try:
        np.in1d = np.isin  # noqa: NPY201 (pysheds 0.5 calls it; numpy 2.4 removed it)
        from pysheds.grid import Grid
        from pysheds.sview import Raster, ViewFinder

        view = ViewFinder(shape=heights.shape)
        grid = Grid(viewfinder=view)

        def pysheds_fill():
            # pysheds fills its raster in place: give it a copy, as richdem.
            raster = Raster(heights.copy(), viewfinder=view)
            return np.asarray(grid.fill_depressions(raster))

        calls["pysheds"] = pysheds_fill
    except ImportError as exc:
        missing.append(f"pysheds ({exc})")
    if missing and not allow_missing:
        sys.exit(
            f"missing peers: {', '.join(missing)}; pip install richdem-fork pysheds, "
            "or pass --allow-missing"
        )
    return calls, missing


def timed(function, clock) -> float:
    start = clock()
    function()
    return clock() - start


def cell(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--allow-missing", action="store_true")
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    x = np.arange(SIZE) / 512.0
    heights = Fractal(Perlin(5), octaves=7).grid(x, x)
    filled = fill_depressions(heights)
    directions = flow_directions(filled)
    out = np.zeros(heights.shape)
    tiled_fill(heights, out, tile=TILE)
    assert np.array_equal(out, filled), "tiled fill differs from the whole-map fill"
    found, missing = peers(heights, args.allow_missing)
    before = heights.copy()
    for name, call in found.items():
        assert np.array_equal(call(), filled), f"{name}'s fill differs from worldgen's"
    assert np.array_equal(heights, before), "a peer changed the DEM it was given"
    folder = tempfile.mkdtemp(prefix="bench-hydrology-")

    def array(name, dtype, values=None):
        a = zarr.open_array(f"{folder}/{name}", mode="w", shape=heights.shape,
                            chunks=(TILE, TILE), dtype=dtype)  # fmt: skip
        if values is not None:
            a[:] = values
        return a

    zh, zf = array("h", np.float64, heights), array("f", np.float64)
    zd, za = array("d", np.int8, directions), array("a", np.float64)
    here = {
        "fill, whole map": lambda: fill_depressions(heights),
        "fill, tiles, 1 process": lambda: tiled_fill(heights, out, tile=TILE),
        "accumulation, whole map": lambda: flow_accumulation(directions),
        "accumulation, tiles, 1 process": lambda: tiled_flow_accumulation(
            directions, out, tile=TILE
        ),
        **found,
    }
    times: dict[str, list[float | None]] = {name: [] for name in here}
    walls: dict[str, list[float]] = {}
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        elsewhere = {
            "fill, tiles, 2 processes": lambda: tiled_fill(zh, zf, tile=TILE, map=pool.map),
            "accumulation, tiles, 2 processes": lambda: tiled_flow_accumulation(
                zd, za, tile=TILE, map=pool.map
            ),
        }
        for function in elsewhere.values():  # start the pool, compile there
            function()
        for r in range(args.rounds):
            names = list(here) if r % 2 == 0 else list(here)[::-1]
            for name in names:
                if r >= SLOW.get(name, args.rounds):
                    times[name].append(None)
                    continue
                times[name].append(timed(here[name], time.thread_time))
            for name, function in elsewhere.items():
                walls.setdefault(name, []).append(timed(function, time.perf_counter))
            print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
    cells = SIZE * SIZE
    load = os.getloadavg()
    lines = [
        "## Depression filling and flow accumulation (bench_hydrology.py)",
        "",
        *header("python benchmarks/bench_hydrology.py " + " ".join(sys.argv[1:])),
        f"{SIZE} x {SIZE} fBm, tiles of {TILE} x {TILE}; {args.rounds} interleaved rounds "
        f"(pysheds in {SLOW['pysheds']}); load average after: {load[0]:.1f}, {load[1]:.1f}, "
        f"{load[2]:.1f}. The fill raises {np.mean(filled > heights):.1%} of the cells; "
        "every peer's filled DEM equals worldgen's, byte for byte.",
        "",
    ]
    if missing:
        lines += [f"**MISSING PEERS:** {', '.join(missing)}", ""]
    peer_names = list(found)
    lines += [
        "In this process, thread CPU time: million cells per second, and each peer's "
        "time over worldgen's in the same round (above 1: worldgen is faster); median "
        "(min-max) over rounds.",
        "",
        "| case | Mcells/s | " + " | ".join(f"{p} / worldgen" for p in peer_names) + " | goal |",
        "|---" * (3 + len(peer_names)) + "|",
    ]
    for name in ("fill, whole map", "fill, tiles, 1 process", *peer_names):
        ours = [t for t in times[name] if t is not None]
        ratios = []
        for peer in peer_names:
            if name in peer_names:
                ratios.append("")
                continue
            paired = [p / w for p, w in zip(times[peer], times[name]) if p is not None]
            ratios.append(f"**{cell(paired)}**")
        rate = cell([cells / t / 1e6 for t in ours])
        label = f"{name} (peer)" if name in peer_names else name
        lines.append(f"| {label} | {rate} | " + " | ".join(ratios) + " | 1.5 |")
    for name in ("accumulation, whole map", "accumulation, tiles, 1 process"):
        rate = cell([cells / t / 1e6 for t in times[name]])
        lines.append(f"| {name} | {rate} | " + " | ".join("-" for _ in peer_names) + " | 10 |")
    lines += [
        "",
        "Two worker processes (zarr arrays, one chunk per tile), wall time:",
        "",
        "| case | Mcells/s | goal |",
        "|---|---|---|",
    ]
    for name, values in walls.items():
        goal = "1.5" if name.startswith("fill") else "10"
        lines.append(f"| {name} | {cell([cells / t / 1e6 for t in values])} | {goal} |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "bench_hydrology", text)


if __name__ == "__main__":
    main()
