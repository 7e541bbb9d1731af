"""Floors of the noise cases still short of a peer: what the kernel alone costs.

Cases D (3D Perlin at scattered points), E (2D simplex grid) and G (2D
Perlin warped by Perlin) of ``bench_noise.py`` are slower than
pyfastnoisesimd. This measures how far worldgen's own path could go: each
case's kernel called in a plain compiled loop over the same samples, with
no driver around it (no validation, no octave loop, no scaling, no output
conversion), next to the full call and the peers, in interleaved rounds
on one thread (thread CPU time):

- D: ``perlin3`` at the 10^6 points of case D;
- E: ``simplex2`` at every sample of case E's grid;
- G: ``perlin2`` at 512^2 scattered points (the base noise of the warp is
  sampled where the warp moved the grid), plus the two displacement grids
  (``Perlin.grid`` of case G's axes, measured), which is all the warp is.

Ken Perlin's improved noise hashes a lattice corner with look-ups in a
256-entry permutation table (three dependent look-ups a corner in 3D),
which worldgen keeps bit for bit; pyfastnoisesimd hashes with integer
arithmetic in SIMD lanes. The bare kernel is the floor of a scalar kernel
of that reference; a case within the floor is as fast as its arithmetic.

    python benchmarks/bench_noise_floor.py --rounds 15 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numba
import numpy as np

from _report import header, write_section
from bench_noise import _POINTS, CASES, peer_fastnoiselite, peer_fastnoisesimd, worldgen_cases
from worldgen._jit import kernel
from worldgen.noise import Perlin
from worldgen.noise._generators import HASH_PERIOD
from worldgen.noise._perlin import perlin2, perlin3
from worldgen.noise._seed import permutation
from worldgen.noise._simplex import simplex2


@kernel
def _bare_perlin3(p, period, x, y, z, out):
    for i in range(x.size):
        out[i] = perlin3(p, period, x[i], y[i], z[i])


@kernel
def _bare_perlin2(p, period, x, y, out):
    for i in range(x.size):
        out[i] = perlin2(p, period, x[i], y[i])


@kernel
def _bare_simplex2(p, xs, ys, out):
    for j in range(ys.size):
        for i in range(xs.size):
            out[j, i] = simplex2(p, xs[i], ys[j])


def floors() -> dict[str, dict[str, object]]:
    """For each case: the bare kernel, the full call and the peers' calls."""
    p = permutation(0)
    period = np.full(4, HASH_PERIOD, dtype=np.int64)
    x, y, z = (np.ascontiguousarray(a, dtype=np.float64) for a in _POINTS)
    out = np.empty(x.size)
    e_axes = CASES["E"].axes()
    e_out = np.empty((e_axes[1].size, e_axes[0].size))
    g = CASES["G"]
    g_count = g.size**2
    rng = np.random.default_rng(17)
    gx, gy = (rng.uniform(-256.0, 256.0, g_count) for _ in range(2))
    g_out = np.empty(g_count)
    g_axes = g.axes()
    warp_grid = Perlin(seed=1)

    def g_floor():
        _bare_perlin2(p, period, gx, gy, g_out)
        warp_grid.grid(*g_axes)
        warp_grid.grid(*g_axes)

    ours = worldgen_cases()
    simd = peer_fastnoisesimd(1)
    lite = peer_fastnoiselite(1)
    return {
        "D": {
            "bare": lambda: _bare_perlin3(p, period, x, y, z, out),
            "worldgen": ours["D"],
            "pyfastnoisesimd": simd["D"],
            "pyfastnoiselite": lite["D"],
        },
        "E": {
            "bare": lambda: _bare_simplex2(p, e_axes[0], e_axes[1], e_out),
            "worldgen": ours["E"],
            "pyfastnoisesimd": simd["E"],
            "pyfastnoiselite": lite["E"],
        },
        "G": {"bare": g_floor, "worldgen": ours["G"], "pyfastnoisesimd": simd["G"]},
    }


def measure(rounds: int) -> dict[str, dict[str, list[float]]]:
    numba.set_num_threads(1)  # thread time sees all of worldgen's work
    cases = floors()
    for calls in cases.values():  # compile and warm
        for call in calls.values():
            call()
    times = {key: {name: [] for name in calls} for key, calls in cases.items()}
    for r in range(rounds):
        for key, calls in cases.items():
            names = list(calls) if r % 2 == 0 else list(reversed(calls))
            for name in names:
                start = time.thread_time()
                calls[name]()
                times[key][name].append(time.thread_time() - start)
    return times


def spread(values: list[float], digits: int = 2) -> str:
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def report(times: dict, rounds: int) -> str:
    lines = [
        "## Floors of the cases short of a peer (bench_noise_floor.py)",
        "",
        *header("python benchmarks/bench_noise_floor.py " + " ".join(sys.argv[1:])),
        f"{rounds} interleaved rounds, one thread, thread CPU time; ns a sample, median "
        "(min-max); ratios are per round, peer time / this (above 1: faster than the peer). "
        "`bare`: the case's kernel in a plain compiled loop over the same samples (G: the "
        "base at as many scattered points, plus the two displacement grids).",
        "",
        "| case | path | ns a sample | / pyfastnoisesimd | / pyfastnoiselite |",
        "|---|---|---|---|---|",
    ]
    for key, by_name in times.items():
        count = CASES[key].samples
        for name in ("bare", "worldgen"):
            cells = []
            for peer in ("pyfastnoisesimd", "pyfastnoiselite"):
                if peer not in by_name:
                    cells.append("-")
                    continue
                ratios = [a / b for a, b in zip(by_name[peer], by_name[name], strict=True)]
                cells.append(spread(ratios))
            ns = [t / count * 1e9 for t in by_name[name]]
            lines.append(f"| {key} | {name} | {spread(ns, 1)} | {cells[0]} | {cells[1]} |")
        for peer in ("pyfastnoisesimd", "pyfastnoiselite"):
            if peer in by_name:
                ns = [t / count * 1e9 for t in by_name[peer]]
                lines.append(f"| {key} | {peer} | {spread(ns, 1)} | - | - |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    text = report(measure(args.rounds), args.rounds)
    print(text)
    if args.write:
        write_section(args.write, "noise_floor", text)


if __name__ == "__main__":
    main()
