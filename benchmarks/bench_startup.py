"""The first run after install: CPU seconds of each command with an empty
numba cache (every kernel it calls is compiled) and again warm (loaded from
the cache the first run wrote).

Each command runs with no option but ``--out`` in a fresh interpreter,
``python -m worldgen.cli COMMAND --out DIR``, with ``NUMBA_CACHE_DIR``
pointing at a new empty folder; the warm run follows in another fresh
interpreter on that folder. Times are the children's CPU time (user +
system, from ``getrusage``), so other load on a shared machine counts
less than in wall time. The table gives the median and the spread
(min-max) over rounds.

``--compare SRC`` runs a second source tree (``SRC`` holds the
``worldgen`` package, e.g. another checkout's ``src``) in the same rounds,
alternating which goes first, and adds the per-round ratios (this tree /
the other): the way to see what a change did on a loaded machine.

    python benchmarks/bench_startup.py --rounds 3 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

from _report import header, write_section

COMMANDS = ("terrain", "map", "world")
HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE.parent / "src"


def run(source: pathlib.Path, command: str, cache: str, out: str) -> float:
    """CPU seconds of ``worldgen COMMAND --out OUT`` run from ``source``
    in a fresh interpreter with numba's cache in ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(source))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "worldgen.cli", command, "--out", out],
        env=env,
        capture_output=True,
        text=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"worldgen {command} failed:\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def first_and_warm(source: pathlib.Path, command: str) -> tuple[float, float]:
    """CPU seconds of a run on an empty cache, then of one on the cache it wrote."""
    folder = tempfile.mkdtemp(prefix="worldgen-startup-")
    try:
        cache = os.path.join(folder, "cache")
        cold = run(source, command, cache, os.path.join(folder, "cold"))
        warm = run(source, command, cache, os.path.join(folder, "warm"))
        return cold, warm
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def spread(values: list[float], digits: int = 1) -> str:
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--commands", nargs="+", choices=COMMANDS, default=list(COMMANDS))
    parser.add_argument(
        "--compare", type=pathlib.Path, help="another source tree, run in the same rounds"
    )
    parser.add_argument("--write", help="write the section into this markdown file")
    args = parser.parse_args()

    trees = {"this": SOURCE}
    if args.compare is not None:
        trees["other"] = args.compare.resolve()
    times = {(t, c): ([], []) for t in trees for c in args.commands}
    for r in range(args.rounds):
        order = list(trees) if r % 2 == 0 else list(reversed(trees))
        for command in args.commands:
            for tree in order:
                cold, warm = first_and_warm(trees[tree], command)
                times[tree, command][0].append(cold)
                times[tree, command][1].append(warm)
                print(
                    f"round {r + 1} {tree:5s} {command:8s} first {cold:6.1f} s  warm {warm:5.1f} s",
                    flush=True,
                )

    lines = [
        "## First run after install, and warm runs (bench_startup.py)",
        "",
        *header(
            "python benchmarks/bench_startup.py --rounds "
            f"{args.rounds}"
            + (f" --commands {' '.join(args.commands)}" if args.commands != list(COMMANDS) else "")
            + (" --compare OTHER/src" if args.compare else "")
        ),
        f"Load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}",
        "",
    ]
    if args.compare is None:
        lines += ["| command | empty cache (compiles) | warm cache |", "|---|---|---|"]
        for command in args.commands:
            cold, warm = times["this", command]
            lines.append(f"| `worldgen {command}` | {spread(cold)} | {spread(warm, 2)} |")
    else:
        lines += [
            "| command | empty cache: this | other | ratio | warm: this | other | ratio |",
            "|---|---|---|---|---|---|---|",
        ]
        for command in args.commands:
            (cold, warm), (cold2, warm2) = times["this", command], times["other", command]
            ratio_cold = [a / b for a, b in zip(cold, cold2)]
            ratio_warm = [a / b for a, b in zip(warm, warm2)]
            lines.append(
                f"| `worldgen {command}` | {spread(cold)} | {spread(cold2)} | "
                f"{spread(ratio_cold, 2)} | {spread(warm, 2)} | {spread(warm2, 2)} | "
                f"{spread(ratio_warm, 2)} |"
            )
    text = "\n".join(lines)
    print()
    print(text)
    if args.write:
        write_section(args.write, "bench_startup", text)


if __name__ == "__main__":
    main()
