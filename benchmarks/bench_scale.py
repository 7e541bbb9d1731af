"""The terrain pipeline in blocks on Dask: cells per second per core on 1 and
2 workers, peak memory per worker at two map sizes, and one big run.

Each run builds the Zarr store of a carved ``islands`` map (``worldgen
terrain --export zarr``: heights, DLA-free erosion, rivers, biomes, colour)
in 1024 x 1024 blocks on a local cluster of single-threaded worker
processes, timed by wall time. The memory of every worker process is
sampled every 0.2 s (RSS), and the largest is reported. Rounds alternate
1 and 2 workers; the table gives the median and the (min-max) over rounds.

    python benchmarks/bench_scale.py --sizes 2048 4096 --rounds 3 --write benchmarks/RESULTS.md
    python benchmarks/bench_scale.py --big 16384 --write benchmarks/RESULTS.md

``--cpu SIZE`` instead weighs the CPU a Dask run costs against the same
blocks in one process: the default world (``worldgen terrain --width SIZE
--height SIZE --export zarr``, around its spawn) made in process and on
local clusters of 1 and 2 workers (as ``--dask local`` makes them), in
interleaved rounds; CPU time of every process (the in-process run in a
fresh interpreter of its own; a cluster's driver, workers and nannies over
their whole lives: start-up, imports, kernels loaded, each worker's own
caches), and the per-round ratios to the in-process run.

    python benchmarks/bench_scale.py --cpu 4096 --rounds 2 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import psutil
from distributed import Client, LocalCluster

from _report import header, write_section
from worldgen.config import map_config, merge, preset
from worldgen.products import TerrainConfig
from worldgen.scale import build_store
from worldgen.scale._cluster import local_cluster


class PeakMemory:
    """Largest RSS of any child process (the workers) while running."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(0.2):
            for child in me.children(recursive=True):
                try:
                    self.peak = max(self.peak, child.memory_info().rss)
                except psutil.Error:
                    pass

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def run(size: int, workers: int, kind: str = "terrain") -> tuple[float, int]:
    """Seconds (wall) and peak worker RSS of one store of a size x size map."""
    config = map_config(merge(preset("islands", size, size), {"terrain": {"normalize": "global"}}))
    folder = tempfile.mkdtemp(prefix="bench-scale-")
    try:
        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
            PeakMemory() as memory,
        ):
            start = time.perf_counter()
            build_store(f"{folder}/world.zarr", kind, config, TerrainConfig(), client=client)
            seconds = time.perf_counter() - start
        return seconds, memory.peak
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def default_world(size: int):
    """The config and window of ``worldgen terrain --width SIZE --height SIZE``."""
    from worldgen.cli._common import _globally, _map_window

    terrain = {"seed": None, "width": size, "height": size, "scale": None}
    world = {"continent_size": None, "land_fraction": None}
    data, _, _, window = _map_window(None, "continents", terrain, None, None, world)
    return _globally(map_config(data)), window


def cpu_run(size: int, workers: int) -> tuple[float, float]:
    """CPU seconds and wall seconds of the default world's store, in this
    process (``workers`` 0) or on a local cluster: this process's CPU and
    every child process's, read before the cluster closes."""
    wall = time.perf_counter()
    if workers == 0:  # in a fresh interpreter, as the workers are
        child = subprocess.Popen([sys.executable, __file__, "--in-process", str(size)])
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise RuntimeError("the in-process store failed")
        return usage.ru_utime + usage.ru_stime, time.perf_counter() - wall
    config, window = default_world(size)
    folder = tempfile.mkdtemp(prefix="bench-scale-")
    me = psutil.Process()
    try:
        start = time.process_time()
        with local_cluster(workers) as cluster, Client(cluster) as client:
            build_store(
                f"{folder}/world.zarr", "terrain", config, TerrainConfig(), window=window,
                client=client,
            )  # fmt: skip
            children = 0.0
            for child in me.children(recursive=True):
                try:
                    times = child.cpu_times()
                    children += times.user + times.system
                except psutil.Error:
                    pass
            return time.process_time() - start + children, time.perf_counter() - wall
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cpu_section(size: int, rounds: int) -> list[str]:
    before = os.getloadavg()
    cpu_run(1024, 1)  # compile and warm the caches on disk
    seconds = {0: [], 1: [], 2: []}
    walls = {0: [], 1: [], 2: []}
    for r in range(rounds):
        for workers in (0, 1, 2) if r % 2 == 0 else (2, 1, 0):
            cpu, wall = cpu_run(size, workers)
            seconds[workers].append(cpu)
            walls[workers].append(wall)
            print(f"round {r}, {workers} workers: {cpu:.1f} CPU s, {wall:.1f} s wall", flush=True)
    load = os.getloadavg()
    lines = [
        "## Dask against one process, in CPU (bench_scale.py --cpu)",
        "",
        *header("python benchmarks/bench_scale.py " + " ".join(sys.argv[1:])),
        f"The default world's carved store, `worldgen terrain --width {size} --height {size} "
        "--export zarr` around its spawn, in 1024 x 1024 blocks: in one process (a fresh "
        "interpreter), then on local clusters of 1 and 2 single-threaded workers as `--dask "
        "local` makes them; CPU time of every process (a cluster's driver, workers and nannies) "
        f"over its whole life, {rounds} interleaved rounds, median "
        f"(min-max); the ratio is per round (goal: at most 1.25). Throughput is the wall "
        "time of 1 worker over that of 2 in the same round (goal on an idle machine: at least "
        f"1.7). Load average before: {before[0]:.1f}, {before[1]:.1f}, {before[2]:.1f}; after: "
        f"{load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}.",
        "",
        "| run | CPU s | Mcells per CPU s | CPU / in process | wall s | throughput / 1 worker |",
        "|---|---|---|---|---|---|",
    ]
    for workers, name in ((0, "in process"), (1, "Dask, 1 worker"), (2, "Dask, 2 workers")):
        ratio = [a / b for a, b in zip(seconds[workers], seconds[0])]
        rate = [size * size / s / 1e6 for s in seconds[workers]]
        lines.append(
            f"| {name} | {spread(seconds[workers], 1)} | {spread(rate, 3)} | "
            f"{'-' if workers == 0 else spread(ratio, 2)} | {spread(walls[workers], 1)} | "
            f"{spread([a / b for a, b in zip(walls[1], walls[workers])], 2) if workers else '-'} |"
        )
    return lines


def spread(values, digits=2) -> str:
    return (
        f"{statistics.median(values):.{digits}f} "
        f"({min(values):.{digits}f}-{max(values):.{digits}f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2048, 4096])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--big", type=int, default=0, help="also one run of BIG x BIG")
    parser.add_argument("--cpu", type=int, default=0, help="CPU of Dask against one process")
    parser.add_argument("--in-process", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    if args.in_process:  # one in-process store, for --cpu
        config, window = default_world(args.in_process)
        with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
            build_store(f"{folder}/world.zarr", "terrain", config, TerrainConfig(), window=window)
        return
    if args.cpu:
        text = "\n".join(cpu_section(args.cpu, args.rounds))
        print(text)
        if args.write:
            write_section(args.write, "bench_scale_cpu", text)
        return
    run(1024, 2)  # compile and warm the caches on disk
    lines = []
    for size in args.sizes:
        rate = {1: [], 2: []}
        peak = {1: [], 2: []}
        for r in range(args.rounds):
            for workers in (1, 2) if r % 2 == 0 else (2, 1):
                seconds, memory = run(size, workers)
                rate[workers].append(size * size / seconds / workers / 1e6)
                peak[workers].append(memory / 2**20)
        for workers in (1, 2):
            lines.append(
                f"| {size} x {size} | {workers} | {spread(rate[workers], 3)} "
                f"| {spread(peak[workers], 0)} |"
            )
    load = os.getloadavg()
    text = [
        "## Big maps on Dask (bench_scale.py)",
        "",
        *header("python benchmarks/bench_scale.py " + " ".join(sys.argv[1:])),
        "The `islands` preset carved (`worldgen terrain --export zarr`: erosion with one "
        "droplet per four cells, rivers, biomes, colour) in 1024 x 1024 blocks on a local "
        "Dask cluster of single-threaded worker processes; wall time, "
        f"{args.rounds} rounds alternating 1 and 2 workers; median (min-max). Load average "
        f"after the runs: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}.",
        "",
        "| map | workers | Mcells/s per core | peak RSS per worker, MiB |",
        "|---|---|---|---|",
        *lines,
    ]
    if args.big:
        seconds, memory = run(args.big, os.cpu_count() or 1)
        text += [
            "",
            f"One {args.big} x {args.big} run on {os.cpu_count()} workers: "
            f"{seconds / 60:.1f} min wall, {args.big**2 / seconds / 1e6:.2f} Mcells/s, "
            f"peak RSS per worker {memory / 2**20:.0f} MiB.",
        ]
    print("\n".join(text))
    if args.write:
        write_section(args.write, "bench_scale", "\n".join(text))


if __name__ == "__main__":
    main()
