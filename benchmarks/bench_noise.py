"""Noise throughput: worldgen side by side with the peer libraries.

Cases (all on grids, samples at lattice step h):

- A: 2D Perlin, 1024 x 1024, one octave, h = 1/128
- B: 2D fBm, 8 octaves, persistence 0.5, lacunarity 2, same grid
- C: 3D Perlin, 128^3, h = 1/16

Each library is used its fastest documented way (see ``PEERS`` below) and
outputs float32 where it can choose (worldgen's float32 is its float64
result rounded). Calls of all libraries are interleaved, round after round,
so that a slow spell of the machine hits them alike; the table gives median
samples per second and each peer's median time over worldgen's.

Also measured, each in a fresh interpreter: ``import worldgen.noise``, and
the first call of each case with an empty numba cache (compilation) and with
a warm one (loading cached machine code).

Run from the project root (peers: ``pip install -e ".[bench]"``, then
pyfastnoisesimd as ``../shared/PEERS.md`` says):

    python benchmarks/bench_noise.py --rounds 15 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numba
import numpy as np

from _report import header, write_section
from worldgen import threads
from worldgen.noise import Fractal, Perlin, axis

N2 = 1024
N3 = 128
STEP2 = 1.0 / 128
STEP3 = 1.0 / 16
OCTAVES = 8

CASES = {
    "A": "2D Perlin 1024^2, step 1/128",
    "B": "2D fBm 8 octaves 1024^2, step 1/128",
    "C": "3D Perlin 128^3, step 1/16",
}
SAMPLES = {"A": N2 * N2, "B": N2 * N2, "C": N3**3}


def worldgen_cases() -> dict[str, Callable[[], object]]:
    x2 = axis(0.0, N2, STEP2)
    x3 = axis(0.0, N3, STEP3)
    perlin = Perlin()
    fbm = Fractal(Perlin(), octaves=OCTAVES, persistence=0.5, lacunarity=2.0)
    return {
        "A": lambda: perlin.grid(x2, x2, dtype=np.float32),
        "B": lambda: fbm.grid(x2, x2, dtype=np.float32),
        "C": lambda: perlin.grid(x3, x3, x3, dtype=np.float32),
    }


def peer_noise():
    import noise

    x2 = (np.arange(N2) * STEP2).tolist()
    x3 = (np.arange(N3) * STEP3).tolist()
    p2, p3 = noise.pnoise2, noise.pnoise3
    return {
        "A": lambda: [[p2(x, y) for x in x2] for y in x2],
        "B": lambda: [[p2(x, y, OCTAVES, 0.5, 2.0) for x in x2] for y in x2],
        "C": lambda: [[[p3(x, y, z) for x in x3] for y in x3] for z in x3],
    }


def peer_opensimplex():
    import opensimplex

    opensimplex.seed(1)
    x2 = axis(0.0, N2, STEP2)
    x3 = axis(0.0, N3, STEP3)

    def fbm():
        total = np.zeros((N2, N2))
        amp, freq = 1.0, 1.0
        for _ in range(OCTAVES):
            total += amp * opensimplex.noise2array(x2 * freq, x2 * freq)
            amp *= 0.5
            freq *= 2.0
        return total

    return {
        "A": lambda: opensimplex.noise2array(x2, x2),
        "B": fbm,
        "C": lambda: opensimplex.noise3array(x3, x3, x3),
    }


def peer_fastnoiselite():
    from pyfastnoiselite.pyfastnoiselite import FastNoiseLite, FractalType, NoiseType

    def make(fractal: bool, freq: float) -> FastNoiseLite:
        gen = FastNoiseLite(1)
        gen.noise_type = NoiseType.NoiseType_Perlin
        gen.frequency = freq
        if fractal:
            gen.fractal_type = FractalType.FractalType_FBm
            gen.fractal_octaves = OCTAVES
            gen.fractal_gain = 0.5
            gen.fractal_lacunarity = 2.0
        return gen

    i2 = np.arange(N2, dtype=np.float32)
    c2 = np.ascontiguousarray(np.stack([np.tile(i2, N2), np.repeat(i2, N2)]))
    i3 = np.arange(N3, dtype=np.float32)
    z, y, x = np.meshgrid(i3, i3, i3, indexing="ij")
    c3 = np.ascontiguousarray(np.stack([x.ravel(), y.ravel(), z.ravel()]))
    plain2, fbm2, plain3 = make(False, STEP2), make(True, STEP2), make(False, STEP3)
    return {
        "A": lambda: plain2.gen_from_coords(c2),
        "B": lambda: fbm2.gen_from_coords(c2),
        "C": lambda: plain3.gen_from_coords(c3),
    }


def peer_fastnoisesimd(workers: int):
    # pyfastnoisesimd 0.4.2 calls np.product, which numpy 2 removed.
    np.product = np.prod  # noqa: NPY003, NPY201
    import pyfastnoisesimd as fns

    def make(kind, freq: float):
        gen = fns.Noise(seed=1, numWorkers=workers)
        gen.noiseType = kind
        gen.frequency = freq
        gen.perturb.perturbType = fns.PerturbType.NoPerturb
        if kind == fns.NoiseType.PerlinFractal:
            gen.fractal.fractalType = fns.FractalType.FBM
            gen.fractal.octaves = OCTAVES
            gen.fractal.gain = 0.5
            gen.fractal.lacunarity = 2.0
        return gen

    plain2 = make(fns.NoiseType.Perlin, STEP2)
    fbm2 = make(fns.NoiseType.PerlinFractal, STEP2)
    plain3 = make(fns.NoiseType.Perlin, STEP3)
    # Its "2D" is 3D noise on a plane; [N, 1, N] lets a second worker help.
    return {
        "A": lambda: plain2.genAsGrid([N2, 1, N2]),
        "B": lambda: fbm2.genAsGrid([N2, 1, N2]),
        "C": lambda: plain3.genAsGrid([N3, N3, N3]),
    }


def peer_vnoise():
    import vnoise

    gen = vnoise.Noise()
    x2 = axis(0.0, N2, STEP2)
    x3 = axis(0.0, N3, STEP3)
    return {
        "A": lambda: gen.noise2(x2, x2, grid_mode=True),
        "B": lambda: gen.noise2(
            x2, x2, octaves=OCTAVES, persistence=0.5, lacunarity=2.0, grid_mode=True
        ),
        "C": lambda: gen.noise3(x3, x3, x3, grid_mode=True),
    }


def peer_perlin_numpy():
    import perlin_numpy as pn

    res2 = (round(N2 * STEP2),) * 2
    res3 = (round(N3 * STEP3),) * 3
    return {
        "A": lambda: pn.generate_perlin_noise_2d((N2, N2), res2),
        "B": lambda: pn.generate_fractal_noise_2d((N2, N2), res2, OCTAVES, 0.5, 2),
        "C": lambda: pn.generate_perlin_noise_3d((N3,) * 3, res3),
    }


# Each peer's thread story, printed under the table.
PEERS = {
    "noise": (peer_noise, "pnoise2/pnoise3 called per sample (C, GIL-bound, one thread)"),
    "opensimplex": (
        peer_opensimplex,
        "noise2array/noise3array (numba, parallel); fBm summed in numpy",
    ),
    "pyfastnoiselite": (
        peer_fastnoiselite,
        "gen_from_coords on float32 coordinates (one thread, holds the GIL)",
    ),
    "pyfastnoisesimd": (None, "genAsGrid, AVX-512 where present, numWorkers = threads"),
    "vnoise": (peer_vnoise, "noise2/noise3 with grid_mode (numpy, one thread)"),
    "perlin-numpy": (peer_perlin_numpy, "generate_*_noise (numpy, one thread)"),
}
# Peers too slow to time every round: timed this often.
SLOW = {"noise": 3, "perlin-numpy": 5, "vnoise": 5}


def available_peers(workers: int) -> dict[str, dict[str, Callable[[], object]]]:
    found = {}
    for name, (factory, _) in PEERS.items():
        try:
            found[name] = peer_fastnoisesimd(workers) if factory is None else factory()
        except ImportError as exc:
            print(f"skipping {name}: {exc}", file=sys.stderr)
    return found


def measure(rounds: int, thread_counts: list[int]) -> dict:
    results = {}
    for count in thread_counts:
        numba.set_num_threads(count)
        contenders = {"worldgen": worldgen_cases(), **available_peers(count)}
        for fns in contenders.values():  # warm-up: compile, allocate, cache
            for fn in fns.values():
                fn()
        times: dict[tuple[str, str], list[float]] = {}
        for r in range(rounds):
            for case in CASES:
                for name, fns in contenders.items():
                    if r >= SLOW.get(name, rounds):
                        continue
                    start = time.perf_counter()
                    fns[case]()
                    times.setdefault((name, case), []).append(time.perf_counter() - start)
        results[count] = {f"{n}|{c}": statistics.median(t) for (n, c), t in times.items()}
    return results


_FIRST_CALL = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from worldgen.noise import Fractal, Perlin, axis
t1 = time.perf_counter()
x2 = axis(0.0, 64, 1 / 128)
x3 = axis(0.0, 16, 1 / 16)
calls = {
    "A": lambda: Perlin().grid(x2, x2, dtype=np.float32),
    "B": lambda: Fractal(Perlin(), octaves=8).grid(x2, x2, dtype=np.float32),
    "C": lambda: Perlin().grid(x3, x3, x3, dtype=np.float32),
}
t2 = time.perf_counter()
calls[sys.argv[1]]()
print(json.dumps({"import": t1 - t0, "call": time.perf_counter() - t2}))
"""


def first_call_costs() -> dict:
    """Import and first-call times, each case in its own fresh interpreter:
    with an empty numba cache (compiling), then again with the cache warm."""
    runs: dict[str, dict[str, float]] = {"cold": {}, "warm": {}}
    for case in CASES:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            for label in ("cold", "warm"):
                done = subprocess.run(
                    [sys.executable, "-c", _FIRST_CALL, case],
                    env=env, check=True, capture_output=True, text=True,
                )  # fmt: skip
                result = json.loads(done.stdout.strip().splitlines()[-1])
                runs[label][case] = result["call"]
                runs[label]["import"] = max(runs[label].get("import", 0.0), result["import"])
    return runs


def report(results: dict, first: dict, rounds: int, command: str) -> str:
    lines = [
        "## Noise throughput (bench_noise.py)",
        "",
        *header(command),
        f"Median of {rounds} interleaved rounds (fewer for the slowest peers: "
        + ", ".join(f"{k} {v}" for k, v in SLOW.items())
        + "). Rate in million samples per second; **ratio** = the peer's time / "
        "worldgen's time (above 1: worldgen is faster). worldgen outputs float32 "
        "(its float64 result rounded) and reproduces Ken Perlin's reference exactly.",
        "",
    ]
    for count, timings in results.items():
        names = sorted({key.split("|")[0] for key in timings}, key=lambda n: (n != "worldgen", n))
        lines += [f"### {count} thread{'s' if count > 1 else ''}", ""]
        lines.append(
            "| library | " + " | ".join(f"{c}: Msamples/s | {c}: ratio" for c in CASES) + " |"
        )
        lines.append("|---" * (1 + 2 * len(CASES)) + "|")
        for name in names:
            cells = []
            for case in CASES:
                t = timings.get(f"{name}|{case}")
                ours = timings[f"worldgen|{case}"]
                if t is None:
                    cells += ["-", "-"]
                else:
                    cells += [
                        f"{SAMPLES[case] / t / 1e6:,.1f}",
                        "1" if name == "worldgen" else f"{t / ours:,.2f}",
                    ]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["Cases: " + "; ".join(f"{k}: {v}" for k, v in CASES.items()) + ".", ""]
    lines += ["How each peer is driven:", ""]
    lines += [f"- {name}: {how}" for name, (_, how) in PEERS.items()]
    lines += [
        "",
        "### Import and first call (a fresh interpreter per case, small grids)",
        "",
        "| | import worldgen.noise (slowest) | first A | first B | first C |",
        "|---|---|---|---|---|",
    ]
    for label, run in first.items():
        desc = "empty numba cache (compiles)" if label == "cold" else "warm numba cache"
        lines.append(
            f"| {desc} | {run['import']:.2f} s | {run['A']:.2f} s | {run['B']:.2f} s | {run['C']:.2f} s |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--write", metavar="PATH", help="also write the report to PATH")
    args = parser.parse_args()
    command = "python benchmarks/bench_noise.py " + " ".join(sys.argv[1:])
    first = first_call_costs()
    with threads(numba.config.NUMBA_NUM_THREADS):
        results = measure(args.rounds, args.threads)
    text = report(results, first, args.rounds, command)
    print(text)
    if args.write:
        write_section(args.write, "bench_noise", text)


if __name__ == "__main__":
    main()
