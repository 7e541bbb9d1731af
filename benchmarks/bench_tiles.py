"""Cost of the explorer's tiles on the world model, by zoom.

Every tile is 256 x 256 samples of the default world at the zoom's level of
detail (one sample per 2^(16 - z) cells); a zoom-0 tile should cost no more
than a zoom-16 one. For each zoom, up to nine tiles near the spawn that
hold land (a tenth of their samples or more; nearest first) are made cold
and timed by the thread's CPU time, in interleaved rounds so that the
machine's load falls on every zoom alike; the report gives the median and
the spread of the CPU milliseconds per tile and per sample, for the
elevation alone, the colour tile (elevation with its halo, rivers and lakes
where the explorer draws them, colours, hillshade) and the PNG that is
served.

Cold means that the library holds nothing of the tile: it keeps no tiles
(the server's tile cache is the app's), and the caches a tile leaves for
its neighbours are cleared before each timing. What a running server
keeps for every tile stays: what depends on the level alone, and the
drainage of the landmasses near the tiles, solved here before the rounds
(the first tile near a landmass pays for that once; its cost is reported
apart).

Warm tiles are answered from the server's tile cache: the ASGI app is
called in this thread for tiles it has already made, and the CPU time per
answer gives tiles per second on one core (HTTP parsing and sockets, which
``bench_serve.py`` includes, left out).

``--compare SRC`` pairs this tree with another source tree (e.g. an
export of the previous main): two worker processes, one on each tree, make
the same served tiles in turn (which goes first alternating by round), and
the report gives the ratio of their CPU times per tile, which the
machine's load moves far less than either time.

    python benchmarks/bench_tiles.py --rounds 15 --write benchmarks/RESULTS.md
    python benchmarks/bench_tiles.py --rounds 15 --compare /tmp/old/src
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

import numba
import numpy as np

from _report import header, write_section
from worldgen.web import build_config, tile_image, tile_png
from worldgen.web._tiles import HALF, NATIVE_ZOOM, TILE, tile_window
from worldgen.world import Window, _drainage, _lod, _rivers, elevation, spawn

ZOOMS = tuple(range(NATIVE_ZOOM + 1))
PLACES = 9  # distinct tiles per zoom
LAND = 0.1  # a tile holds land when this share of its samples is land


def level_agreement(config, level: int) -> float:
    """RMS of (a level-L sample - the mean of the 4 x 4 level-(L-2) samples
    under it) over four places around the spawn, in standard deviations of
    the terrain there (as tests/world/test_model.py measures it)."""
    x0, y0 = spawn(config)
    step = 2**level
    errors, spreads = [], []
    for dx, dy in ((0, 0), (-40, 17), (33, -25), (10, 50)):
        cx, cy = x0 + dx * step, y0 + dy * step
        coarse = Window(cx - 16 * step, cy - 16 * step, 32, 32, step)
        fine = Window(coarse.x, coarse.y, 128, 128, step // 4)
        a = elevation(config, coarse)
        b = elevation(config, fine).reshape(32, 4, 32, 4).mean(axis=(1, 3))
        errors.append(((a - b) ** 2).mean())
        spreads.append(elevation(config, Window(cx - 64 * step, cy - 64 * step, 128, 128, step)))
    spread = float(np.concatenate([s.ravel() for s in spreads]).std())
    return float(np.sqrt(np.mean(errors))) / spread


def _clear() -> None:
    """Forget what a tile left behind for its neighbours: the coarse
    lattices' weights by position. What depends on the level alone (which
    octaves a level keeps, the tabulated elevation profile) stays, as it does
    in a running server after its first tile of each zoom."""
    _lod._coarse_axis.cache_clear()


def _land(config, tile) -> float:
    """Share of land in a tile, from a coarse look (32 x 32 samples)."""
    w = tile_window(*tile, origin=config.origin)
    return float((elevation(config.world, Window(w.x, w.y, 32, 32, w.step * 8)) >= 0).mean())


def _places(config, z: int) -> list[tuple[int, int, int]]:
    """Up to PLACES tiles of zoom ``z`` that hold land, nearest the spawn
    first (from the 5 x 5 tiles around it; 3 x 3 at zooms 6 and 7, whose
    tiles each meet dozens of the lattice's regions)."""
    x, y = spawn(config.world)
    step = 2 ** (NATIVE_ZOOM - z)
    tx, ty = (x + HALF) // (TILE * step), (y + HALF) // (TILE * step)
    r = 1 if z in (6, 7) else 2
    around = sorted(
        {
            (z, min(max(tx + dx, 0), 2**z - 1), min(max(ty + dy, 0), 2**z - 1))
            for dy in range(-r, r + 1)
            for dx in range(-r, r + 1)
        },
        key=lambda t: (max(abs(t[1] - tx), abs(t[2] - ty)), t[2], t[1]),
    )
    held = [t for t in around if _land(config, t) >= LAND]
    return (held or around)[:PLACES]


def _solve_near(config, tile, solves: list[float]) -> None:
    """Solve the drainage of the regions the tile's rivers read (timing
    each first solve), so that the timed tile finds them kept."""
    w = tile_window(*tile, origin=config.origin, halo=1)
    if not _rivers.drawn(config.world, w):
        return
    reach = _rivers.REACH + w.step
    x0, y0 = w.x - reach, w.y - reach
    x1, y1 = w.x + w.width * w.step + reach, w.y + w.height * w.step + reach
    for region in _drainage.regions_near(config.world, x0, y0, x1, y1):
        before = _drainage.network.cache_info().misses
        start = time.thread_time()
        solved = _drainage.network(config.world, region)
        if _drainage.network.cache_info().misses > before and solved.segments.area.size:
            solves.append(time.thread_time() - start)


def _time(fn) -> float:
    _clear()
    start = time.thread_time()
    fn()
    return (time.thread_time() - start) * 1e3


def _water_share(config, tile) -> float | None:
    """Share of river and lake pixels in the tile, None where rivers are not
    drawn."""
    window = tile_window(*tile, origin=config.origin)
    kinds = config.world_ground(window)[1]
    return None if kinds is None else float(((kinds == 1) | (kinds == 2)).mean())


def warm_tiles(tiles, repeat: int) -> float:
    """Tiles answered per CPU second by the app from its tile cache: each
    of ``tiles`` asked once (made), then all of them ``repeat`` times."""
    from worldgen.web import create_app

    app = create_app(workers=1)
    key = app.state.explorer.worlds.default

    async def get(path: str) -> int:
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
            "root_path": "", "query_string": b"", "headers": [(b"host", b"127.0.0.1")],
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
        }  # fmt: skip
        status = []

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await app(scope, receive, send)
        return status[0]

    async def run() -> float:
        paths = [f"/w/{key}/colour/{z}/{x}/{y}.png" for z, x, y in tiles]
        for path in paths:
            assert await get(path) == 200
        start = time.thread_time()
        for _ in range(repeat):
            for path in paths:
                assert await get(path) == 200
        return time.thread_time() - start

    seconds = asyncio.run(run())
    app.state.explorer.close()
    return len(tiles) * repeat / seconds


def _worker() -> None:
    """Serve ``--compare``: each line on stdin is ``["solve", tiles]`` (solve
    the drainage near them and make the first; answers null) or ``["tile",
    tile]`` (make it cold; answers its CPU milliseconds)."""
    numba.set_num_threads(1)
    config = build_config({}, {"preset": "continents", "seed": 0})
    for line in sys.stdin:
        what, arg = json.loads(line)
        if what == "solve":
            for tile in arg:
                _solve_near(config, tuple(tile), [])
            tile_png(config, "colour", *arg[0])
            print("null", flush=True)
        else:
            print(
                json.dumps(_time(lambda t=tuple(arg): tile_png(config, "colour", *t))), flush=True
            )


def compare(zooms, places, rounds: int, other: str) -> list[str]:
    """Paired served-tile times of this tree and the tree at ``other``."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"this": os.path.join(here, "src"), "other": os.path.abspath(other)}
    workers = {
        name: subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": src},
        )
        for name, src in trees.items()
    }

    def ask(name: str, message) -> object:
        workers[name].stdin.write(json.dumps(message) + "\n")
        workers[name].stdin.flush()
        return json.loads(workers[name].stdout.readline())

    for z in zooms:
        for name in workers:
            ask(name, ["solve", places[z]])
    times = {(z, name): [] for z in zooms for name in workers}
    for r in range(rounds):
        for z in zooms:
            tile = places[z][r % len(places[z])]
            for name in ("this", "other") if r % 2 == 0 else ("other", "this"):
                times[z, name].append(ask(name, ["tile", tile]))
    for worker in workers.values():
        worker.stdin.close()
        worker.wait()
    load = os.getloadavg()
    lines = [
        f"Paired with the tree at `{other}`: served colour tiles (`png`) made in "
        f"turn by a worker process on each tree, {rounds} rounds; CPU ms per tile (median) "
        "and the ratio this / other per tile (median, 10th-90th percentile). Load average "
        f"after: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}.",
        "",
        "| zoom | other ms | this ms | this / other |",
        "|---|---|---|---|",
    ]
    for z in zooms:
        ratios = [a / b for a, b in zip(times[z, "this"], times[z, "other"], strict=True)]
        lines.append(
            f"| {z} | {statistics.median(times[z, 'other']):.1f} | "
            f"{statistics.median(times[z, 'this']):.1f} | {_spread(ratios, 2)} |"
        )
    return lines


def _spread(values, digits: int = 1) -> str:
    values = sorted(values)
    lo = values[len(values) // 10]
    hi = values[(9 * len(values)) // 10]
    return f"{statistics.median(values):.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--zooms", type=int, nargs="+", default=list(ZOOMS))
    parser.add_argument("--write", help="RESULTS.md to update")
    parser.add_argument("--compare", metavar="SRC", help="another source tree to pair with")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker()
        return 0
    numba.set_num_threads(1)
    zooms = args.zooms
    config = build_config({}, {"preset": "continents", "seed": 0})
    places = {z: _places(config, z) for z in zooms}
    solves: list[float] = []
    for z in zooms:
        for tile in places[z]:
            _solve_near(config, tile, solves)
        # Compile, and fill what depends on the level alone.
        tile_png(config, "colour", *places[z][0])
    water = {z: [_water_share(config, t) for t in places[z]] for z in zooms}
    land = {z: [_land(config, t) for t in places[z]] for z in zooms}
    misses = _drainage.network.cache_info().misses
    times = {(z, what): [] for z in zooms for what in ("elevation", "colour", "png")}
    for r in range(args.rounds):
        for z in zooms:
            tile = places[z][r % len(places[z])]
            window = tile_window(*tile, origin=config.origin)
            # The served tile first: nothing of this tile is in the CPU's
            # caches yet (the other two follow it, and find some).
            times[z, "png"].append(_time(lambda t=tile: tile_png(config, "colour", *t)))
            times[z, "elevation"].append(_time(lambda w=window: elevation(config.world, w)))
            times[z, "colour"].append(_time(lambda t=tile: tile_image(config, "colour", *t)))
    resolved = _drainage.network.cache_info().misses - misses
    every = [t for z in zooms for t in places[z]]
    warm = [warm_tiles(every, 20) for _ in range(3)]
    load = os.getloadavg()
    command = "python benchmarks/bench_tiles.py --rounds " + str(args.rounds)
    if args.zooms != list(ZOOMS):
        command += " --zooms " + " ".join(map(str, args.zooms))
    lines = header(command)
    lines += [
        "Cold tiles of the default world (`continents`, seed 0), one thread, CPU time per "
        f"tile over {args.rounds} rounds, each round one tile per zoom (up to {PLACES} "
        f"distinct tiles per zoom near the spawn holding at least {LAND:.0%} land, taken in "
        "turn); median, and the 10th to 90th percentile. `elevation`: the world model's "
        "heights of the tile; `colour`: the colour tile's pixels (heights with a one-sample "
        "halo, rivers and lakes from zoom 6, bands, hillshade); `png`: what is served (the "
        "colour tile and its PNG). The landmasses' drainage was solved before the rounds, "
        "as a running server keeps it (see below); "
        f"regions solved during the rounds: {resolved}. `land`: median share of land "
        "in the tiles; `rivers`: median share of river and lake pixels (- where not drawn). "
        f"Load average after: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} (CPU time still "
        "grows with the load: the cores' caches are shared).",
        "",
        "| zoom | level | land | rivers | elevation ms | colour ms | png ms | png ns per sample |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for z in zooms:
        cells = [_spread(times[z, what]) for what in ("elevation", "colour", "png")]
        per = statistics.median(times[z, "png"]) * 1e6 / (TILE * TILE)
        shares = [w for w in water[z] if w is not None]
        river = f"{statistics.median(shares):.1%}" if shares else "-"
        lines.append(
            f"| {z} | {NATIVE_ZOOM - z} | {statistics.median(land[z]):.0%} | {river} | "
            + " | ".join(cells)
            + f" | {per:.0f} |"
        )
    if solves:
        lines += [
            "",
            f"Drainage solved before the rounds: {len(solves)} regions holding land, "
            f"{statistics.median(solves):.2f} s of CPU each (median; "
            f"{min(solves):.2f}-{max(solves):.2f} s), once per region: the first tile near a "
            "landmass pays for it, every later tile finds it kept.",
        ]
    lines += [
        "",
        f"Warm tiles (answered from the tile cache by the app, in-process, {len(every)} "
        "distinct colour tiles asked 20 times each, three runs): "
        + ", ".join(f"{w:,.0f}" for w in warm)
        + " tiles per CPU second on one core.",
        "",
        "Levels of detail: how far a sample at level L (one per 2^L cells, zoom 16 - L) is "
        "from the mean of the 4 x 4 samples of level L - 2 under it, RMS in standard "
        "deviations of the terrain, four places around the spawn (the test holds levels "
        "2-10 to 0.2).",
        "",
        "| level | " + " | ".join(str(level) for level in range(2, 17, 2)) + " |",
        "|---" * 9 + "|",
        "| RMS / std | "
        + " | ".join(f"{level_agreement(config.world, level):.3f}" for level in range(2, 17, 2))
        + " |",
    ]
    if args.compare:
        command += f" --compare {args.compare}"
        lines[0] = f"Command: `{command}`  "
        lines += ["", *compare(zooms, places, args.rounds, args.compare)]
    text = "## Explorer tiles on the world model (bench_tiles.py)\n\n" + "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "tiles", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
