"""What interruptible work costs: long kernels in slices against one call,
and a map set written aside and swapped in against its files alone.

- Hydraulic erosion: ``--droplets`` droplets on a 512 x 512 fBm map, as
  :func:`worldgen.terrain.erode` runs them (slices of 2**20 droplet steps,
  about a tenth of a second) against one kernel call for all of them.
- Thermal erosion: ``--iterations`` steps on the same map, in slices of
  2**22 cell updates (16 steps at 512 x 512) against one call.
- Map set: :func:`worldgen.io.write_map_set` of a 512 x 512 map (staging,
  lock, SHA-256 manifest, renames) against the same files written straight
  into the folder (``_write_layers`` after ``make_layers``).

The two forms run alternately, ``--rounds`` pairs, the order swapped every
round; the table gives the per-round ratio (sliced / one call) as median,
min and max. Both forms give the same bytes, which is checked.

    python benchmarks/bench_slicing.py --rounds 9 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable

import numpy as np

from _report import header, write_section
from worldgen import threads
from worldgen.config import map_config
from worldgen.io import _mapset, write_map_set
from worldgen.noise import Fractal, Perlin, axis
from worldgen.products._maps import make_layers
from worldgen.terrain import _erosion

SIZE = 512


def fbm_map(size: int) -> np.ndarray:
    coords = axis(0, size, 1 / 128)
    heights = Fractal(Perlin(1), octaves=6).grid(coords, coords)
    return (heights - heights.min()) / (heights.max() - heights.min())


def unsliced(call: Callable[[], object]) -> Callable[[], object]:
    """``call`` with the slice sizes so large that each run is one call."""

    def run():
        saved = _erosion._DROPLET_STEPS_PER_SLICE, _erosion._THERMAL_CELLS_PER_SLICE
        _erosion._DROPLET_STEPS_PER_SLICE = _erosion._THERMAL_CELLS_PER_SLICE = 2**62
        try:
            return call()
        finally:
            _erosion._DROPLET_STEPS_PER_SLICE, _erosion._THERMAL_CELLS_PER_SLICE = saved

    return run


def paired(a: Callable[[], object], b: Callable[[], object], rounds: int) -> list[float]:
    """Per-round time ratios a / b, alternating which runs first."""
    ratios = []
    for k in range(rounds):
        times = {}
        for name, call in (("a", a), ("b", b)) if k % 2 == 0 else (("b", b), ("a", a)):
            start = time.perf_counter()
            call()
            times[name] = time.perf_counter() - start
        ratios.append(times["a"] / times["b"])
    return ratios


def row(name: str, ratios: list[float], detail: str) -> str:
    return (
        f"| {name} | {statistics.median(ratios):.3f} | {min(ratios):.3f} | "
        f"{max(ratios):.3f} | {detail} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--droplets", type=int, default=400_000)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    heights = fbm_map(SIZE)
    lines = []
    with threads(1):
        hydraulic = lambda: _erosion.erode(heights, args.droplets, seed=1)  # noqa: E731
        assert hydraulic().heights.tobytes() == unsliced(hydraulic)().heights.tobytes()
        ratios = paired(hydraulic, unsliced(hydraulic), args.rounds)
        slices = -(-args.droplets // (_erosion._DROPLET_STEPS_PER_SLICE // 30))
        lines.append(
            row("hydraulic erosion", ratios, f"{args.droplets:,} droplets, {slices} slices")
        )
    thermal = lambda: _erosion.thermal_erode(heights, args.iterations)  # noqa: E731
    assert thermal().tobytes() == unsliced(thermal)().tobytes()
    ratios = paired(thermal, unsliced(thermal), args.rounds)
    per = _erosion._THERMAL_CELLS_PER_SLICE // heights.size
    lines.append(
        row("thermal erosion", ratios, f"{args.iterations} steps, {args.iterations // per} slices")
    )
    config = map_config({"terrain": {"width": SIZE, "height": SIZE, "seed": 1}})
    folder = tempfile.mkdtemp()

    def straight():
        layers = make_layers(config)
        return _mapset._write_layers(
            config, layers, folder + "/plain", (), None, 128.0, False, None
        )

    whole = lambda: write_map_set(config, folder + "/set")  # noqa: E731
    whole(), straight()
    ratios = paired(whole, straight, args.rounds)
    lines.append(row("map set", ratios, f"{SIZE} x {SIZE}, 9 files and the manifest"))

    command = f"python benchmarks/bench_slicing.py --rounds {args.rounds}"
    text = "\n".join(
        [
            "## Interruptible work: slices and output sets (bench_slicing.py)",
            "",
            *header(command + " --write benchmarks/RESULTS.md"),
            f"Per-round ratio of interleaved runs, {args.rounds} rounds (below 1.0: the "
            "interruptible form is faster). Erosion on one thread, thermal on all.",
            "",
            "| work | median ratio | min | max | case |",
            "|---|---|---|---|---|",
            *lines,
        ]
    )
    print(text)
    if args.write:
        write_section(args.write, "bench_slicing", text)


if __name__ == "__main__":
    main()
