"""Noise speed: worldgen side by side with the peer libraries, on the cases
users run.

Cases (``CASES`` below): 2D Perlin at fine steps (1/128 from the origin;
1/100 and 0.0137 from far origins) and coarse steps (0.37 and 1/4, two to
four samples per lattice cell); 8-octave fBm at step 1/128, 1/100 ("scale
100") and 0.0137 with lacunarity 1.9; 3D Perlin on a 128^3 grid; 10^6
scattered 3D points in random order (the point form); 2D simplex, cellular
(F1, euclidean) and domain-warped grids.

Each library is driven its fastest documented way (``PEERS`` below) and
outputs float32 where it can choose (worldgen's float32 is its float64
result rounded). Every library offering a case runs it once per round,
rounds interleaved, so that a slow spell of the shared machine hits all of
them alike. At 1 thread a call is timed by the calling thread's CPU time
(``time.thread_time``: time the machine gives to other processes does not
count), at 2 threads by wall time. For every round the peer's time is
divided by worldgen's time in the same round (above 1: worldgen faster);
the table gives the median of these paired ratios and their spread
(min-max over rounds).

Also measured, each in a fresh interpreter: ``import worldgen.noise``, and
the first call of three cases with an empty numba cache (compilation) and
with a warm one (loading cached machine code).

A peer that cannot be imported stops the script with its error, unless
``--allow-missing`` is given; then the report names it at the top.

Peers: ``pip install -e ".[bench]"`` then ``pip install --no-build-isolation
"pyfastnoisesimd>=0.4.2"`` (it builds against numpy's headers without
declaring them). Run from the project root:

    python benchmarks/bench_noise.py --rounds 15 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import dataclasses
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
from worldgen.noise import Cellular, Fractal, Perlin, Simplex, Warp, axis


@dataclasses.dataclass(frozen=True)
class Case:
    """One benchmark case: what is sampled, where, and how many samples.

    Grids have ``size`` samples per axis at lattice step ``step``, starting
    at sample index ``start`` on every axis (origin ``start * step``, so that
    libraries that take integer grid origins see the same coordinates).
    """

    title: str
    kind: str  # perlin, fbm, simplex, cellular, warp or points
    ndim: int
    size: int
    step: float = 1.0
    start: int = 0
    octaves: int = 1
    lacunarity: float = 2.0

    @property
    def samples(self) -> int:
        return self.size if self.kind == "points" else self.size**self.ndim

    def axes(self, dtype=np.float64) -> list[np.ndarray]:
        """Every axis's coordinates in lattice units (x first)."""
        return [axis(self.start * self.step, self.size, self.step).astype(dtype)] * self.ndim

    def indices(self) -> np.ndarray:
        """Sample indices along one axis, as float32 (exact below 2**24)."""
        return np.arange(self.start, self.start + self.size, dtype=np.float32)


GAIN = 0.5
FAR = 123_457  # a far origin, in samples
CASES = {
    "A": Case("2D Perlin 1024^2, step 1/128, origin 0", "perlin", 2, 1024, 1 / 128),
    "A2": Case("2D Perlin 1024^2, step 1/100, far origin", "perlin", 2, 1024, 1 / 100, FAR),
    "A3": Case("2D Perlin 1024^2, step 0.0137, far origin", "perlin", 2, 1024, 0.0137, FAR),
    "A4": Case("2D Perlin 1024^2, step 0.37 (coarse)", "perlin", 2, 1024, 0.37, FAR),
    "A5": Case("2D Perlin 1024^2, step 1/4 (coarse)", "perlin", 2, 1024, 1 / 4, FAR),
    "B": Case("2D fBm 8 oct. 1024^2, step 1/128", "fbm", 2, 1024, 1 / 128, 0, 8),
    "B2": Case("2D fBm 8 oct. 1024^2, step 1/100, far origin", "fbm", 2, 1024, 1 / 100, FAR, 8),
    "B3": Case(
        "2D fBm 8 oct. 1024^2, step 0.0137, lacunarity 1.9", "fbm", 2, 1024, 0.0137, FAR, 8, 1.9
    ),
    "C": Case("3D Perlin 128^3, step 1/16", "perlin", 3, 128, 1 / 16),
    "C2": Case("3D Perlin 128^3, step 0.037, far origin", "perlin", 3, 128, 0.037, FAR),
    "D": Case("3D Perlin at 10^6 scattered points, random order", "points", 3, 1_000_000),
    "E": Case("2D simplex 1024^2, step 1/100", "simplex", 2, 1024, 1 / 100, FAR),
    "F": Case("2D cellular F1 512^2, step 1/32", "cellular", 2, 512, 1 / 32, FAR),
    "G": Case("2D Perlin warped by Perlin 512^2, step 1/64", "warp", 2, 512, 1 / 64, FAR),
}

# Scattered points: uniform in a cube of 512 lattice units around the
# origin, in random order; float32 (what the C++ peers take), and worldgen
# samples the very same values.
_POINTS = (
    np.random.default_rng(13).uniform(-256.0, 256.0, size=(3, CASES["D"].size)).astype(np.float32)
)


def worldgen_cases() -> dict[str, Callable[[], object]]:
    f32 = np.float32
    calls = {}
    for key, case in CASES.items():
        if case.kind == "points":
            x, y, z = (np.ascontiguousarray(a, dtype=np.float64) for a in _POINTS)
            calls[key] = lambda x=x, y=y, z=z: Perlin()(x, y, z, dtype=f32)
            continue
        noise = {
            "perlin": Perlin(),
            "fbm": Fractal(Perlin(), case.octaves, GAIN, case.lacunarity),
            "simplex": Simplex(),
            "cellular": Cellular(),
            "warp": Warp(Perlin(), Perlin(seed=1), amplitude=1.0),
        }[case.kind]
        axes = case.axes()
        calls[key] = lambda noise=noise, axes=axes: noise.grid(*axes, dtype=f32)
    return calls


def peer_noise(workers: int):
    import noise

    calls = {}
    for key, case in CASES.items():
        oct_, lac = case.octaves, case.lacunarity
        if case.kind == "points":
            pts = _POINTS.astype(np.float64).T.tolist()
            calls[key] = lambda pts=pts: [noise.pnoise3(x, y, z) for x, y, z in pts]
        elif case.kind in ("perlin", "fbm") and case.ndim == 2:
            c = case.axes()[0].tolist()
            calls[key] = lambda c=c, o=oct_, la=lac: [
                [noise.pnoise2(x, y, o, GAIN, la) for x in c] for y in c
            ]
        elif case.kind == "perlin" and case.ndim == 3:
            c = case.axes()[0].tolist()
            calls[key] = lambda c=c: [[[noise.pnoise3(x, y, z) for x in c] for y in c] for z in c]
        elif case.kind == "simplex":
            c = case.axes()[0].tolist()
            calls[key] = lambda c=c: [[noise.snoise2(x, y) for x in c] for y in c]
    return calls


def peer_opensimplex(workers: int):
    # OpenSimplex has no Perlin noise: it is compared on the simplex case.
    import opensimplex

    opensimplex.seed(1)
    calls = {}
    for key, case in CASES.items():
        if case.kind == "simplex":
            c = case.axes()[0]
            calls[key] = lambda c=c: opensimplex.noise2array(c, c)
    return calls


def peer_fastnoiselite(workers: int):
    from pyfastnoiselite.pyfastnoiselite import (
        CellularDistanceFunction,
        CellularReturnType,
        FastNoiseLite,
        FractalType,
        NoiseType,
    )

    calls = {}
    for key, case in CASES.items():
        if case.kind == "warp":  # gen_from_coords does not apply its domain warp
            continue
        gen = FastNoiseLite(1)
        gen.noise_type = {
            "simplex": NoiseType.NoiseType_OpenSimplex2,
            "cellular": NoiseType.NoiseType_Cellular,
        }.get(case.kind, NoiseType.NoiseType_Perlin)
        if case.kind == "cellular":
            gen.cellular_distance_function = (
                CellularDistanceFunction.CellularDistanceFunction_Euclidean
            )
            gen.cellular_return_type = CellularReturnType.CellularReturnType_Distance
        if case.kind == "fbm":
            gen.fractal_type = FractalType.FractalType_FBm
            gen.fractal_octaves = case.octaves
            gen.fractal_gain = GAIN
            gen.fractal_lacunarity = case.lacunarity
        if case.kind == "points":
            gen.frequency = 1.0
            coords = np.ascontiguousarray(_POINTS)
        else:
            gen.frequency = case.step
            mesh = np.meshgrid(*[case.indices()] * case.ndim, indexing="ij")[::-1]
            coords = np.ascontiguousarray(np.stack([m.ravel() for m in mesh]))
        calls[key] = lambda gen=gen, coords=coords: gen.gen_from_coords(coords)
    return calls


def peer_fastnoisesimd(workers: int):
    # pyfastnoisesimd 0.4.2 calls np.product, which numpy 2 removed.
    np.product = np.prod  # noqa: NPY003, NPY201
    import pyfastnoisesimd as fns

    calls = {}
    for key, case in CASES.items():
        gen = fns.Noise(seed=1, numWorkers=workers)
        gen.perturb.perturbType = fns.PerturbType.NoPerturb
        gen.noiseType = {
            "fbm": fns.NoiseType.PerlinFractal,
            "simplex": fns.NoiseType.Simplex,
            "cellular": fns.NoiseType.Cellular,
        }.get(case.kind, fns.NoiseType.Perlin)
        if case.kind == "fbm":
            gen.fractal.fractalType = fns.FractalType.FBM
            gen.fractal.octaves = case.octaves
            gen.fractal.gain = GAIN
            gen.fractal.lacunarity = case.lacunarity
        if case.kind == "cellular":
            gen.cell.returnType = fns.CellularReturnType.Distance
            gen.cell.distanceFunc = fns.CellularDistanceFunction.Euclidean
        if case.kind == "warp":
            gen.perturb.perturbType = fns.PerturbType.Gradient
            gen.perturb.amp = 1.0
            gen.perturb.frequency = case.step
        if case.kind == "points":
            gen.frequency = 1.0
            coords = fns.empty_coords(case.size)
            coords[:] = _POINTS
            calls[key] = lambda gen=gen, coords=coords: gen.genFromCoords(coords)
            continue
        gen.frequency = case.step
        s, n = case.start, case.size
        # Its "2D" is 3D noise on a plane; [N, 1, N] lets a second worker help.
        shape, start = ([n, 1, n], [s, 0, s]) if case.ndim == 2 else ([n] * 3, [s] * 3)
        calls[key] = lambda gen=gen, shape=shape, start=start: gen.genAsGrid(shape, start)
    return calls


def peer_vnoise(workers: int):
    import vnoise

    gen = vnoise.Noise()
    calls = {}
    for key, case in CASES.items():
        if case.kind == "points":
            x, y, z = (a.astype(np.float64) for a in _POINTS)
            calls[key] = lambda x=x, y=y, z=z: gen.noise3(x, y, z, grid_mode=False)
        elif case.kind in ("perlin", "fbm"):
            c = case.axes()[0]
            method = gen.noise2 if case.ndim == 2 else gen.noise3
            calls[key] = lambda m=method, c=c, case=case: m(
                *[c] * case.ndim,
                octaves=case.octaves,
                persistence=GAIN,
                lacunarity=case.lacunarity,
                grid_mode=True,
            )
    return calls


def peer_perlin_numpy(workers: int):
    # Only grids from the origin whose lattice divides the sample count.
    import perlin_numpy as pn

    calls = {}
    for key, case in CASES.items():
        res = case.size * case.step
        if case.start or res != round(res) or case.kind not in ("perlin", "fbm"):
            continue
        shape, res = (case.size,) * case.ndim, (round(res),) * case.ndim
        if case.kind == "fbm":
            if case.ndim != 2 or case.lacunarity != 2:
                continue
            calls[key] = lambda s=shape, r=res, o=case.octaves: pn.generate_fractal_noise_2d(
                s, r, o, GAIN, 2
            )
        elif case.ndim == 2:
            calls[key] = lambda s=shape, r=res: pn.generate_perlin_noise_2d(s, r)
        else:
            calls[key] = lambda s=shape, r=res: pn.generate_perlin_noise_3d(s, r)
    return calls


# Each peer's factory (given the thread count) and how it is driven.
PEERS = {
    "pyfastnoisesimd": (
        peer_fastnoisesimd,
        "genAsGrid / genFromCoords, AVX-512 where present, numWorkers = threads; "
        "warp = its gradient perturbation",
    ),
    "pyfastnoiselite": (
        peer_fastnoiselite,
        "gen_from_coords on float32 coordinates (one thread, holds the GIL); "
        "simplex = OpenSimplex2",
    ),
    "opensimplex": (peer_opensimplex, "noise2array (numba, parallel); simplex case only"),
    "vnoise": (peer_vnoise, "noise2/noise3, grid_mode for grids (numpy, one thread)"),
    "noise": (peer_noise, "pnoise2/pnoise3/snoise2 called per sample (C, one thread)"),
    "perlin-numpy": (peer_perlin_numpy, "generate_*_noise (numpy, one thread); origin-0 grids"),
}
SERIAL = "worldgen, 1 thread"


def _serial(fn: Callable[[], object], count: int) -> Callable[[], object]:
    def call():
        numba.set_num_threads(1)
        try:
            return fn()
        finally:
            numba.set_num_threads(count)

    return call


# Peers too slow to time every round: timed in this many rounds.
SLOW = {"noise": 3, "perlin-numpy": 5, "vnoise": 5}


def load_peers(workers: int, allow_missing: bool) -> tuple[dict, dict[str, str]]:
    """Every peer's calls; a peer that fails to load stops the run, or with
    ``allow_missing`` is reported as missing (never skipped silently)."""
    found, missing = {}, {}
    for name, (factory, _) in PEERS.items():
        try:
            found[name] = factory(workers)
        except ImportError as exc:
            missing[name] = f"{type(exc).__name__}: {exc}"
            print(f"\n*** PEER MISSING: {name}: {exc} ***\n", file=sys.stderr)
            if not allow_missing:
                sys.exit(
                    f"{name} is not installed; install the bench extra (see the module "
                    "docstring) or pass --allow-missing to report it as missing"
                )
    return found, missing


def measure(rounds: int, thread_counts: list[int], allow_missing: bool) -> tuple[dict, dict]:
    """Per thread count, per (library, case): the times of every round."""
    results, missing = {}, {}
    for count in thread_counts:
        numba.set_num_threads(count)
        clock = time.thread_time if count == 1 else time.perf_counter
        peers, missing = load_peers(count, allow_missing)
        contenders = {"worldgen": worldgen_cases(), **peers}
        if count > 1:
            # worldgen on one thread, timed alongside: does the second help?
            contenders[SERIAL] = {k: _serial(fn, count) for k, fn in worldgen_cases().items()}
        for fns in contenders.values():  # warm-up: compile, allocate, cache
            for fn in fns.values():
                fn()
        times: dict[str, dict[str, list[float | None]]] = {
            name: {case: [] for case in fns} for name, fns in contenders.items()
        }
        for r in range(rounds):
            for case in CASES:
                for name, fns in contenders.items():
                    if case not in fns:
                        continue
                    if r >= SLOW.get(name, rounds):
                        times[name][case].append(None)
                        continue
                    start = clock()
                    fns[case]()
                    times[name][case].append(clock() - start)
            print(f"{count} thread(s): round {r + 1}/{rounds}", file=sys.stderr)
        results[count] = times
    return results, missing


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
FIRST_CASES = ("A", "B", "C")


def first_call_costs() -> dict:
    """Import and first-call times, each case in its own fresh interpreter:
    with an empty numba cache (compiling), then again with the cache warm."""
    runs: dict[str, dict[str, float]] = {"cold": {}, "warm": {}}
    for case in FIRST_CASES:
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


def ratio_cell(peer: list[float | None], ours: list[float | None]) -> str:
    """Median and min-max of the per-round ratios peer / worldgen."""
    ratios = [p / w for p, w in zip(peer, ours) if p is not None and w]
    if not ratios:
        return "-"
    mid = statistics.median(ratios)
    return f"**{mid:.2f}** ({min(ratios):.2f}-{max(ratios):.2f})"


def report(results: dict, first: dict, missing: dict, rounds: int, command: str) -> str:
    lines = ["## Noise speed (bench_noise.py)", "", *header(command)]
    if missing:
        lines += ["**MISSING PEERS (their columns are empty):**", ""]
        lines += [f"- **{name}**: {why}" for name, why in missing.items()]
        lines.append("")
    lines += [
        f"{rounds} interleaved rounds (the slowest peers in fewer: "
        + ", ".join(f"{k} {v}" for k, v in SLOW.items())
        + "). 1 thread: thread CPU time; 2 threads: wall time. Each cell is "
        "the **median** and the (min-max) over rounds of the paired ratio "
        "peer time / worldgen time in the same round: above 1, worldgen is "
        "faster. '-': the peer does not offer the case. worldgen's own rate is "
        f"its median, in million samples per second. At 2 threads, '{SERIAL}' is "
        "worldgen limited to one thread in the same rounds (wall time): above 1, "
        "the second thread helps.",
        "",
    ]
    for count, times in results.items():
        names = list(PEERS) + ([SERIAL] if count > 1 else [])
        lines += [f"### {count} thread{'s' if count > 1 else ''}", ""]
        lines.append("| case | worldgen Msamples/s | " + " | ".join(names) + " |")
        lines.append("|---" * (2 + len(names)) + "|")
        for key, case in CASES.items():
            ours = times["worldgen"][key]
            rate = case.samples / statistics.median(ours) / 1e6
            cells = [ratio_cell(times.get(n, {}).get(key, []), ours) for n in names]
            lines.append(f"| {key}: {case.title} | {rate:,.1f} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["How each peer is driven:", ""]
    lines += [f"- {name}: {how}" for name, (_, how) in PEERS.items()]
    lines += [
        "",
        "### Import and first call (a fresh interpreter per case, small grids)",
        "",
        "| | import worldgen.noise (slowest) | "
        + " | ".join(f"first {c}" for c in FIRST_CASES)
        + " |",
        "|---" * (2 + len(FIRST_CASES)) + "|",
    ]
    for label, run in first.items():
        desc = "empty numba cache (compiles)" if label == "cold" else "warm numba cache"
        cells = " | ".join(f"{run[c]:.2f} s" for c in FIRST_CASES)
        lines.append(f"| {desc} | {run['import']:.2f} s | {cells} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cases", nargs="+", choices=list(CASES), help="only these cases")
    parser.add_argument("--allow-missing", action="store_true", help="run without missing peers")
    parser.add_argument("--no-first-call", action="store_true", help="skip the first-call runs")
    parser.add_argument("--write", metavar="PATH", help="also write the report to PATH")
    args = parser.parse_args()
    if args.cases:
        for key in set(CASES) - set(args.cases):
            del CASES[key]
    command = "python benchmarks/bench_noise.py " + " ".join(sys.argv[1:])
    first = {} if args.no_first_call else first_call_costs()
    with threads(numba.config.NUMBA_NUM_THREADS):
        results, missing = measure(args.rounds, args.threads, args.allow_missing)
    text = report(results, first, missing, args.rounds, command)
    print(text)
    if args.write:
        write_section(args.write, "bench_noise", text)


if __name__ == "__main__":
    main()
