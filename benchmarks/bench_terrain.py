"""The whole ``worldgen terrain`` job: CPU time and peak memory per cell.

Each round runs ``worldgen terrain --width N --height N --out DIR`` (the
default world, every default file: the map set, erosion, rivers, the GLB
mesh) in a fresh interpreter on a warm numba cache and warm bytecode (the
warm-up run writes both), and reads that child's own resource usage
(``os.wait4``): CPU seconds (user + system, every thread) and its peak
resident memory. Sizes run in turn within each round;
the table gives the median and the spread (min-max) over rounds.

``--compare SRC`` runs a second source tree (``SRC`` holds the
``worldgen`` package, e.g. another checkout's ``src``) in the same rounds,
alternating which goes first, and adds the per-round ratios (the other
tree's CPU and peak over this one's: above 1, this tree does better).

    python benchmarks/bench_terrain.py --sizes 2048 4096 --rounds 3 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

from _report import header, write_section

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent / "src"
GOAL_RATE = 1.0  # million cells per CPU second
GOAL_BYTES = 200  # bytes of peak memory per cell


def run(source: pathlib.Path, size: int) -> tuple[float, int]:
    """CPU seconds and peak resident bytes of one ``worldgen terrain`` of
    ``size`` x ``size`` cells run from ``source``."""
    folder = tempfile.mkdtemp(prefix="worldgen-terrain-")
    try:
        command = [sys.executable, "-m", "worldgen.cli", "terrain", "--width", str(size)]
        command += ["--height", str(size), "--out", os.path.join(folder, "out")]
        env = dict(os.environ, PYTHONPATH=str(source))
        # Bytecode cached as an installed package has it (the warm-up run
        # writes it): with PYTHONDONTWRITEBYTECODE set, every run would
        # compile the modules it imports again.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        child = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        error = child.stderr.read().decode(errors="replace")
        child.stderr.close()
        if child.returncode:
            raise RuntimeError(f"worldgen terrain failed:\n{error}")
        return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def spread(values: list[float], digits: int) -> str:
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2048])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare", type=pathlib.Path, help="another tree's src to pair with")
    parser.add_argument("--write", help="RESULTS.md to update")
    args = parser.parse_args(argv)
    trees = {"this": SOURCE} if args.compare is None else {"this": SOURCE, "other": args.compare}
    run(SOURCE, 64)  # the numba cache warm for every tree
    if args.compare is not None:
        run(args.compare, 64)
    cpu = {(t, n): [] for t in trees for n in args.sizes}
    peak = {(t, n): [] for t in trees for n in args.sizes}
    for r in range(args.rounds):
        for n in args.sizes:
            order = list(trees) if r % 2 == 0 else list(trees)[::-1]
            for tree in order:
                seconds, memory = run(trees[tree], n)
                cpu[tree, n].append(seconds)
                peak[tree, n].append(memory)
                print(
                    f"round {r} {tree} {n}: {seconds:.1f} s, {memory / 2**20:.0f} MiB", flush=True
                )
    load = os.getloadavg()
    extra = "" if args.compare is None else f" --compare {args.compare}"
    lines = header(
        f"python benchmarks/bench_terrain.py --sizes {' '.join(map(str, args.sizes))} "
        f"--rounds {args.rounds}{extra}"
    )
    lines += [
        f"`worldgen terrain --width N --height N` with every default (the default world at its "
        f"spawn, the map set, erosion, rivers, the GLB mesh), a fresh interpreter per run on a "
        f"warm numba cache and bytecode, {args.rounds} rounds; the child's CPU time (every thread) and peak "
        f"resident memory from `wait4`, median (min-max). Goals: {GOAL_RATE:g} Mcells per CPU s, "
        f"at most {GOAL_BYTES} bytes per cell. Load average after: "
        f"{load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}.",
        "",
        "| cells | CPU s | Mcells per CPU s | peak MB | bytes per cell |",
        "|---|---|---|---|---|",
    ]
    for n in args.sizes:
        cells = n * n
        rates = [cells / s / 1e6 for s in cpu["this", n]]
        per_cell = [m / cells for m in peak["this", n]]
        lines.append(
            f"| {n} x {n} | {spread(cpu['this', n], 1)} | {spread(rates, 2)} | "
            f"{spread([m / 1e6 for m in peak['this', n]], 0)} | {spread(per_cell, 0)} |"
        )
    if args.compare is not None:
        lines += [
            "",
            "Against the other tree, per round (other / this: above 1, this tree does better):",
            "",
            "| cells | CPU ratio | peak memory ratio |",
            "|---|---|---|",
        ]
        for n in args.sizes:
            ratio = [o / t for o, t in zip(cpu["other", n], cpu["this", n])]
            memory = [o / t for o, t in zip(peak["other", n], peak["this", n])]
            lines.append(f"| {n} x {n} | {spread(ratio, 2)} | {spread(memory, 2)} |")
    text = "## The whole terrain job (bench_terrain.py)\n\n" + "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "bench_terrain", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
