"""Erosion throughput: the compiled kernels beside the pure-Python reference.

Hydraulic erosion runs on a 512 x 512 fBm map (6 octaves of Perlin noise,
seed 1, step 1/128, normalised to [0, 1]) at the default parameters: the
kernel with ``--droplets`` droplets (Sebastian Lague's example uses 70,000)
on one thread, the reference in ``tests/terrain/erosion_reference.py`` with
``--reference-droplets`` (it is slow). Both start from the same map and
seed, so the reference's droplets are the kernel's first ones and must give
the same bytes, which is checked. Thermal erosion is timed the same way, on
the same map with its default talus.

Each kernel is called once to compile and warm up, then ``--rounds`` times
(the reference ``--reference-rounds`` times); the table gives medians.

Windowed erosion (``erode_cells``, what ``worldgen terrain``, carved windows
and Dask blocks run) is timed on ``--regions`` windows of 256 x 256 cells of
the default world in a row through its spawn, each grown by the erosion
halo (532 x 532 cells), by thread CPU time.
``--compare SRC`` loads ``SRC/worldgen/terrain/_erosion.py`` (another
checkout's erosion) beside this one, checks that both give the same bytes,
and times both in alternating order within each round: the per-round ratio
(the other's CPU time over this one's) is what to read on a shared machine.

    python benchmarks/bench_erosion.py --rounds 7 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import pathlib
import statistics
import sys
import time
from collections.abc import Callable

import numba
import numpy as np

from _report import header, write_section
from worldgen import threads
from worldgen.config import map_config, preset
from worldgen.noise import Fractal, Perlin, axis
from worldgen.noise._seed import derive_seed
from worldgen.products import TerrainConfig
from worldgen.terrain import _erosion
from worldgen.terrain._erosion import erode, erosion_halo, thermal_erode
from worldgen.terrain._windowed import EROSION_TAG, World
from worldgen.world import Window

SIZE = 512


def reference_module():
    """tests/terrain/erosion_reference.py, imported from the project root."""
    root = str(pathlib.Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module("tests.terrain.erosion_reference")


def fbm_map(size: int) -> np.ndarray:
    coords = axis(0, size, 1 / 128)
    heights = Fractal(Perlin(1), octaves=6).grid(coords, coords)
    return (heights - heights.min()) / (heights.max() - heights.min())


def world_regions(count: int) -> tuple[list, dict]:
    """``count`` windows of 256 x 256 cells of the default world (in a row
    through its spawn), grown by the erosion halo, as ``erode_cells`` gets
    them: heights and origins, and the other arguments."""
    maps = map_config(preset("continents", 2048, 2048))
    world = World(maps, TerrainConfig(rivers=False), shared=False)
    halo = erosion_halo(world.config.erosion)
    regions = []
    for k in range(count):
        region = Window(maps.window.x + 256 * k, maps.window.y, 256, 256).grown(halo)
        regions.append((world.shaped(region), (region.x, region.y)))
    seed = derive_seed(world.seed, EROSION_TAG)
    return regions, {"density": world.density, "seed": seed, "params": world.config.erosion}


def other_erosion(source: pathlib.Path):
    """Another tree's ``worldgen/terrain/_erosion.py``, imported beside this one."""
    path = source / "worldgen" / "terrain" / "_erosion.py"
    spec = importlib.util.spec_from_file_location("other_erosion", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def windowed_rows(args) -> list[str]:
    """The windowed erosion table (and the comparison with ``--compare``)."""
    regions, kwargs = world_regions(args.regions)
    modules = {"this": _erosion}
    if args.compare is not None:
        modules["other"] = other_erosion(args.compare)

    def run(module):
        return [
            module.erode_cells(h, origin, kwargs["density"], seed=kwargs["seed"],
                               params=module.HydraulicErosion(**vars(kwargs["params"])))
            for h, origin in regions
        ]  # fmt: skip

    results = {name: run(module) for name, module in modules.items()}  # warm-up
    same = all(
        np.array_equal(a.heights, b.heights) and np.array_equal(a.eroded, b.eroded)
        and np.array_equal(a.deposited, b.deposited) and a.carried == b.carried
        for a, b in zip(results["this"], results.get("other", results["this"]))
    )  # fmt: skip
    times: dict[str, list[float]] = {name: [] for name in modules}
    with threads(1):
        for r in range(args.rounds):
            names = list(modules) if r % 2 == 0 else list(modules)[::-1]
            for name in names:
                start = time.thread_time()
                run(modules[name])
                times[name].append(time.thread_time() - start)
    cells = 256 * 256 * len(regions)
    side = regions[0][0].shape[0]
    lines = [
        f"Windowed erosion (`erode_cells`) of {len(regions)} windows of 256^2 cells of the "
        f"default world (in a row through its spawn), each on {side}^2 cells with the erosion "
        f"halo; thread CPU time over {args.rounds} rounds, median (min-max).",
        "",
        "| tree | CPU s | window Mcells per CPU s |",
        "|---|---|---|",
    ]
    for name, values in times.items():
        seconds = statistics.median(values)
        lines.append(
            f"| {name} | {seconds:.3f} ({min(values):.3f}-{max(values):.3f}) | "
            f"{cells / seconds / 1e6:.2f} |"
        )
    if "other" in times:
        ratios = [o / t for o, t in zip(times["other"], times["this"])]
        lines += [
            "",
            f"Against `{args.compare}` in the same rounds (other's CPU over this one's, per "
            f"round): median {statistics.median(ratios):.3f} ({min(ratios):.3f}-"
            f"{max(ratios):.3f}); the same bytes: **{'yes' if same else 'NO'}**.",
        ]
    return lines


def median_seconds(
    call: Callable[[], object], rounds: int, clock: Callable[[], float] = time.thread_time
) -> float:
    """Median over ``rounds`` calls, by this thread's CPU time (serial work on
    a shared machine) unless ``clock`` says otherwise."""
    times = []
    for _ in range(rounds):
        start = clock()
        call()
        times.append(clock() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--reference-rounds", type=int, default=3)
    parser.add_argument("--droplets", type=int, default=70_000)
    parser.add_argument("--reference-droplets", type=int, default=2_000)
    parser.add_argument("--iterations", type=int, default=50, help="thermal erosion steps")
    parser.add_argument("--reference-size", type=int, default=128, help="thermal reference map")
    parser.add_argument("--regions", type=int, default=4, help="windowed erosion regions")
    parser.add_argument(
        "--compare", type=pathlib.Path, metavar="SRC", help="another tree's src to pair with"
    )
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    reference = reference_module()
    heights = fbm_map(SIZE)
    talus = 4.0 / SIZE

    # Hydraulic erosion.
    with threads(1):
        erode(heights, 10)
        kernel_time = median_seconds(lambda: erode(heights, args.droplets, seed=1), args.rounds)
        first = erode(heights, args.reference_droplets, seed=1)
    reference_time = median_seconds(
        lambda: reference.erode(heights, args.reference_droplets, seed=1), args.reference_rounds
    )
    expected = reference.erode(heights, args.reference_droplets, seed=1)
    identical = (
        np.array_equal(first.heights, expected[0])
        and np.array_equal(first.eroded, expected[1])
        and np.array_equal(first.deposited, expected[2])
        and first.carried == expected[3]
    )
    kernel_rate = args.droplets / kernel_time
    reference_rate = args.reference_droplets / reference_time

    # Thermal erosion: cell updates (cells x steps) per second.
    small = heights[: args.reference_size, : args.reference_size]
    cell_steps = heights.size * args.iterations
    thermal = {}
    for count in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        with threads(count):
            thermal_erode(heights, 1)
            seconds = median_seconds(
                lambda: thermal_erode(heights, args.iterations), args.rounds, time.perf_counter
            )
        thermal[count] = (seconds, cell_steps / seconds)
    reference_steps = 2
    thermal_ref_time = median_seconds(
        lambda: reference.thermal_erode(small, reference_steps, talus),
        args.reference_rounds,
        time.perf_counter,
    )
    thermal_ref_rate = small.size * reference_steps / thermal_ref_time
    thermal_identical = np.array_equal(
        thermal_erode(small, reference_steps, talus=talus),
        reference.thermal_erode(small, reference_steps, talus),
    )

    command = "python benchmarks/bench_erosion.py " + " ".join(sys.argv[1:])
    lines = [
        "## Erosion (bench_erosion.py)",
        "",
        *header(command),
        f"Hydraulic (droplet) erosion at the default parameters on a {SIZE}^2 fBm map "
        "(Perlin seed 1, 6 octaves, step 1/128, normalised to [0, 1]); the compiled kernel "
        "is serial (droplets interact) and runs on 1 thread. The pure-Python reference "
        "(tests/terrain/erosion_reference.py) runs the kernel's first droplets of the same "
        f"seed; its result is bit-identical: **{'yes' if identical else 'NO'}**. Medians of "
        f"{args.rounds} kernel and {args.reference_rounds} reference runs after a warm-up, "
        "by thread CPU time.",
        "",
        "| implementation | droplets per run | median s | droplets/s | ratio |",
        "|---|---|---|---|---|",
        f"| numba kernel | {args.droplets:,} | {kernel_time:.3f} | {kernel_rate:,.0f} | 1 |",
        f"| pure-Python reference | {args.reference_droplets:,} | {reference_time:.3f} | "
        f"{reference_rate:,.0f} | {kernel_rate / reference_rate:,.0f} |",
        "",
        f"Thermal erosion with the default talus 4/{SIZE} and rate 0.5, in million cell "
        f"updates per second: the kernel does {args.iterations} steps on the {SIZE}^2 map, the "
        f"reference {reference_steps} steps on its {args.reference_size}^2 corner (bit-identical "
        f"to the kernel: **{'yes' if thermal_identical else 'NO'}**); by wall time, so that the "
        "2-thread row shows the speed-up (read it on an idle machine).",
        "",
        "| implementation | threads | median s | Mcells/s | ratio |",
        "|---|---|---|---|---|",
    ]
    for count, (seconds, rate) in thermal.items():
        lines.append(
            f"| numba kernel | {count} | {seconds:.3f} | {rate / 1e6:,.1f} | "
            f"{thermal[1][1] / rate:.2f} |"
        )
    lines.append(
        f"| pure-Python reference | 1 | {thermal_ref_time:.3f} | {thermal_ref_rate / 1e6:,.3f} | "
        f"{thermal[1][1] / thermal_ref_rate:,.0f} |"
    )
    lines += ["", *windowed_rows(args)]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        write_section(args.write, "bench_erosion", text)


if __name__ == "__main__":
    main()
