"""Rivers and DLA mountains: fill, flow, accumulation on 2048^2 and dla_mountains(512).

The height field is fBm, ``Fractal(Perlin(1), octaves=6)`` sampled at 256
cells per lattice unit. Each case runs once to compile and warm up, then
``--rounds`` times; the table gives the median. The references are plain
Python (``heapq`` priority flood, Kahn's algorithm with a ``deque``), timed
once each against worldgen on a 512^2 corner of the same field.

    python benchmarks/bench_rivers_dla.py --rounds 5 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import heapq
import statistics
import sys
import time
from collections import deque

import numpy as np

from _report import header, write_section
from worldgen.noise import Fractal, Perlin, axis
from worldgen.terrain._dla import dla_mountains
from worldgen.terrain._rivers import (
    D8_OFFSETS,
    fill_depressions,
    flow_accumulation,
    flow_directions,
    rivers,
)

SIZE = 2048
REFERENCE_SIZE = 512
DLA_SIZE = 512


def timed(call, rounds: int) -> float:
    """Median seconds of ``rounds`` calls after one warm-up call."""
    call()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def python_fill(heights: np.ndarray) -> np.ndarray:
    """Priority-Flood (Barnes et al. 2014, algorithm 1) with heapq, cell by cell."""
    h, w = heights.shape
    out = heights.tolist()
    closed = [[False] * w for _ in range(h)]
    heap = []
    counter = 0
    for y in range(h):
        for x in range(w):
            if y in (0, h - 1) or x in (0, w - 1):
                closed[y][x] = True
                heap.append((out[y][x], counter, y, x))
                counter += 1
    heapq.heapify(heap)
    steps = D8_OFFSETS.tolist()
    while heap:
        level, _, y, x = heapq.heappop(heap)
        for dy, dx in steps:
            yy, xx = y + dy, x + dx
            if 0 <= yy < h and 0 <= xx < w and not closed[yy][xx]:
                closed[yy][xx] = True
                out[yy][xx] = max(out[yy][xx], level)
                heapq.heappush(heap, (out[yy][xx], counter, yy, xx))
                counter += 1
    return np.array(out)


def python_accumulation(directions: np.ndarray) -> np.ndarray:
    """Kahn's algorithm with a deque, cell by cell."""
    h, w = directions.shape
    codes = directions.ravel().tolist()
    steps = [dy * w + dx for dy, dx in D8_OFFSETS.tolist()]
    target = [c + steps[d] if d >= 0 else -1 for c, d in enumerate(codes)]
    indegree = [0] * (h * w)
    for t in target:
        if t >= 0:
            indegree[t] += 1
    accumulation = [1.0] * (h * w)
    queue = deque(c for c in range(h * w) if indegree[c] == 0)
    while queue:
        c = queue.popleft()
        t = target[c]
        if t >= 0:
            accumulation[t] += accumulation[c]
            indegree[t] -= 1
            if indegree[t] == 0:
                queue.append(t)
    return np.array(accumulation).reshape(h, w)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    rounds = args.rounds

    coords = axis(0, SIZE, 1 / 256)
    heights = Fractal(Perlin(1), octaves=6).grid(coords, coords)
    filled = fill_depressions(heights)
    directions = flow_directions(filled)
    result = rivers(heights)

    cells = SIZE * SIZE
    rows = [
        ("fill_depressions", timed(lambda: fill_depressions(heights), rounds), cells),
        (
            "fill_depressions, epsilon=1e-6",
            timed(lambda: fill_depressions(heights, epsilon=1e-6), rounds),
            cells,
        ),
        ("flow_directions", timed(lambda: flow_directions(filled), rounds), cells),
        ("flow_accumulation", timed(lambda: flow_accumulation(directions), rounds), cells),
        ("rivers (all of the above + masks)", timed(lambda: rivers(heights), rounds), cells),
    ]

    corner = heights[:REFERENCE_SIZE, :REFERENCE_SIZE]
    corner_directions = flow_directions(fill_depressions(corner))
    assert np.array_equal(python_fill(corner), fill_depressions(corner))
    assert np.array_equal(
        python_accumulation(corner_directions), flow_accumulation(corner_directions)
    )
    references = [
        (
            "fill_depressions",
            timed(lambda: python_fill(corner), 1),
            timed(lambda: fill_depressions(corner), rounds),
        ),
        (
            "flow_accumulation",
            timed(lambda: python_accumulation(corner_directions), 1),
            timed(lambda: flow_accumulation(corner_directions), rounds),
        ),
    ]
    dla = timed(lambda: dla_mountains(DLA_SIZE, seed=1), rounds)
    dla_alone = timed(lambda: dla_mountains(DLA_SIZE, seed=1, blend=0.0), rounds)

    command = "python benchmarks/bench_rivers_dla.py " + " ".join(sys.argv[1:])
    lines = [
        "## Rivers and DLA mountains (bench_rivers_dla.py)",
        "",
        *header(command),
        f"Height field: fBm (`Fractal(Perlin(1), octaves=6)`, 256 cells per lattice unit), "
        f"{SIZE}^2; median seconds of {rounds} runs after a warm-up. On this field the "
        f"flat fill raises {result.lakes.mean():.1%} of the cells (lakes) and "
        f"{result.river.mean():.2%} are rivers at the default threshold "
        f"({result.threshold:.0f} cells).",
        "",
        "| step | size | seconds | ns per cell |",
        "|---|---|---|---|",
    ]
    for name, seconds, count in rows:
        lines.append(f"| {name} | {SIZE}^2 | {seconds:.3f} | {seconds / count * 1e9:.0f} |")
    lines += [
        "",
        f"Plain-Python references (same algorithms, one run each) against worldgen on the "
        f"{REFERENCE_SIZE}^2 corner of the field; the results are checked equal:",
        "",
        "| step | size | pure Python (s) | worldgen (s) | speed-up |",
        "|---|---|---|---|---|",
    ]
    for name, slow, fast in references:
        lines.append(
            f"| {name} | {REFERENCE_SIZE}^2 | {slow:.3f} | {fast:.4f} | {slow / fast:.0f}x |"
        )
    lines += [
        "",
        "| DLA mountains | seconds |",
        "|---|---|",
        f"| `dla_mountains({DLA_SIZE}, seed=1)` (blend 0.3) | {dla:.3f} |",
        f"| `dla_mountains({DLA_SIZE}, seed=1, blend=0.0)` | {dla_alone:.3f} |",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        write_section(args.write, "bench_rivers_dla", text)


if __name__ == "__main__":
    main()
