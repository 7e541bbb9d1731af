"""Quick tiles while a view solves landmasses: the explorer's two lanes.

Where a view first shows rivers, its tiles solve the drainage of the
landmasses they meet (seconds each; zoom 10 of the ``islands`` preset meets
dozens). Per round, in the app (in-process, two tile threads, a fresh
``islands`` world of a new seed so nothing is solved): 12 cold zoom-10
colour tiles around the spawn are asked at once, and while they are being
made, 5 zoom-7 tiles (no rivers drawn there), one after another. Reported:
the wall time each quick tile waited (a latency: what a user sees), and
the time the cold tiles took in all.

    python benchmarks/bench_lanes.py --rounds 3 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import httpx2

from _report import header, write_section


async def _round(seed: int) -> tuple[list[float], float, list[int]]:
    from worldgen.web import NATIVE_ZOOM, create_app
    from worldgen.web._tiles import HALF
    from worldgen.world import spawn

    app = create_app(defaults={"preset": "islands", "seed": seed}, workers=2, timeout=300)
    explorer = app.state.explorer
    key = explorer.worlds.default
    x0, y0 = spawn(explorer.worlds.get(key)[0].world)

    def url(z: int, dx: int, dy: int) -> str:
        side = 256 * 2 ** (NATIVE_ZOOM - z)
        return f"/w/{key}/colour/{z}/{(x0 + HALF) // side + dx}/{(y0 + HALF) // side + dy}.png"

    transport = httpx2.ASGITransport(app=app)
    try:
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://localhost", timeout=600
        ) as client:
            await client.get(url(3, 0, 0))  # the kernels loaded
            start = time.monotonic()
            cold = [
                asyncio.ensure_future(client.get(url(10, dx, dy)))
                for dx in range(-2, 2)
                for dy in range(-1, 2)
            ]
            await asyncio.sleep(0.2)
            waits = []
            for dx in range(-2, 3):
                asked = time.monotonic()
                answer = await client.get(url(7, dx, 0))
                assert answer.status_code == 200, answer.text
                waits.append(time.monotonic() - asked)
            codes = [r.status_code for r in await asyncio.gather(*cold)]
            return waits, time.monotonic() - start, codes
    finally:
        explorer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    waits, firsts, totals, codes = [], [], [], []
    for r in range(args.rounds):
        w, total, c = asyncio.run(_round(seed=1000 + r))
        waits += w
        firsts.append(w[0])
        totals.append(total)
        codes += c
        print(f"round {r}: quick tiles waited {[round(x, 3) for x in w]} s; cold {total:.1f} s")
    command = f"python benchmarks/bench_lanes.py --rounds {args.rounds}" + (
        f" --write {args.write}" if args.write else ""
    )
    lines = ["## Quick tiles while a view solves landmasses (bench_lanes.py)", ""]
    lines += header(command)
    lines += [
        f"The `islands` preset, a fresh seed per round, {args.rounds} rounds, in-process app "
        "with two tile threads: 12 cold zoom-10 colour tiles asked at once (each solves the "
        "drainage of the landmasses it meets), and meanwhile 5 zoom-7 tiles one after "
        "another. Wall time (a latency), median (min-max).",
        "",
        "| | seconds |",
        "|---|---|",
        f"| the first quick tile's wait | {statistics.median(firsts):.3f} "
        f"({min(firsts):.3f}-{max(firsts):.3f}) |",
        f"| any quick tile's wait | {statistics.median(waits):.3f} "
        f"({min(waits):.3f}-{max(waits):.3f}) |",
        f"| the 12 cold tiles in all | {statistics.median(totals):.1f} "
        f"({min(totals):.1f}-{max(totals):.1f}) |",
        "",
        f"Answers of the cold tiles: {sorted(set(codes))}.",
    ]
    out = "\n".join(lines)
    print(out)
    if args.write:
        write_section(args.write, "lanes", out)


if __name__ == "__main__":
    main()
