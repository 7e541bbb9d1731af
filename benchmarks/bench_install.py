"""The first run after an editable install: CPU seconds of ``pip install
-e .`` and of the first ``worldgen terrain`` and ``worldgen map`` after it,
with the build's kernel compile (the default) and without it (``--config-
settings compile=no``, so the first run compiles).

Each round copies this tree (without caches) into a new folder and
installs it into a new venv, offline (``--no-deps --no-build-isolation``:
the dependencies come from this interpreter's site-packages, as in
``tests/test_install.py``), then runs each command with no option but
``--out`` from the venv's ``worldgen``. Times are the children's CPU time
(user + system, from ``getrusage``: pip's build and the compile it runs
are counted), median and spread (min-max) over rounds; the two ways take
turns going first.

    python benchmarks/bench_install.py --rounds 3 --write benchmarks/RESULTS.md
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

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.installing import install_copy  # noqa: E402

COMMANDS = ("terrain", "map")
WAYS = {"compiled at install": {}, "compiled at first run": {"compile": "no"}}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_round(settings: dict[str, str]) -> dict[str, float]:
    """CPU seconds of the install and of each command's first run after it."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="worldgen-install-"))
    try:
        before = children_cpu()
        installed = install_copy(folder, editable=True, settings=settings)
        times = {"install": children_cpu() - before}
        for command in COMMANDS:
            before = children_cpu()
            subprocess.run(
                [str(installed.bin / "worldgen"), command, "--out", str(folder / command)],
                env=installed.env,
                capture_output=True,
                check=True,
            )
            times[command] = children_cpu() - before
        return times
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", help="write the section into this markdown file")
    args = parser.parse_args()

    times = {way: {k: [] for k in ("install", *COMMANDS)} for way in WAYS}
    for r in range(args.rounds):
        order = list(WAYS) if r % 2 == 0 else list(reversed(WAYS))
        for way in order:
            got = one_round(WAYS[way])
            for key, value in got.items():
                times[way][key].append(value)
            print(
                f"round {r + 1} {way:22s} " + "  ".join(f"{k} {v:5.1f} s" for k, v in got.items()),
                flush=True,
            )

    lines = [
        "## The first run after an editable install (bench_install.py)",
        "",
        *header(f"python benchmarks/bench_install.py --rounds {args.rounds}"),
        f"Load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}",
        "",
        "| kernels | `pip install -e .` | first `worldgen terrain` | then `worldgen map` |",
        "|---|---|---|---|",
    ]
    for way in WAYS:
        t = times[way]
        lines.append(
            f"| {way} | {spread(t['install'])} | {spread(t['terrain'])} | {spread(t['map'])} |"
        )
    text = "\n".join(lines)
    print()
    print(text)
    if args.write:
        write_section(args.write, "bench_install", text)


if __name__ == "__main__":
    main()
