"""Load test of ``worldgen serve`` on the loopback address.

Starts the server as its own process (``worldgen serve --port 0``, default
options: tile threads sized to the cores, at most 64 tiles in the making,
60 s time limit), then per round sends 200 concurrent requests for 200
distinct tiles (zoom 14, the colour, biomes, height and hillshade layers in
turn) of a world no request has asked for yet (a fresh seed: a cold cache),
the same 200 again (warm: answered from memory), and the same 200 with their
ETags (304). A cold burst past the in-flight bound is answered 503 by
design; "cold, retried" repeats those after the server's Retry-After until
every tile is served. Anything other than 200, 304 or 503 (or a failed
connection) is an error.

    python benchmarks/bench_serve.py --rounds 3 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import time

import httpx2

from _report import header, write_section

LAYERS = ("colour", "biomes", "height", "hillshade")
CONCURRENT = 200
WARM_REPEAT = 5  # warm and 304 bursts per round


def start_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "worldgen.cli", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if match is None:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, match.group(0)


def tile_urls(key: str) -> list[str]:
    z, base = 14, 2**13 - 7
    return [
        f"/w/{key}/{LAYERS[i % len(LAYERS)]}/{z}/{base + i % 15}/{base + i // 15}.png"
        for i in range(CONCURRENT)
    ]


async def burst(client, urls, etags=None, retry=False):
    """All ``urls`` at once; returns (latencies in s, statuses, wall s)."""

    async def one(url):
        headers = {"If-None-Match": etags[url]} if etags else {}
        start = time.perf_counter()
        while True:
            try:
                r = await client.get(url, headers=headers)
            except httpx2.HTTPError as exc:
                return time.perf_counter() - start, f"error {type(exc).__name__}", None
            if r.status_code == 503 and retry:
                await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                continue
            return time.perf_counter() - start, r.status_code, r.headers.get("etag")

    start = time.perf_counter()
    results = await asyncio.gather(*(one(u) for u in urls))
    wall = time.perf_counter() - start
    return [r[0] for r in results], [r[1] for r in results], wall, [r[2] for r in results]


def p99(values):
    return statistics.quantiles(values, n=100)[98]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid``, all threads."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(base: str, rounds: int, pid: int) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"cold": [], "cold, retried": [], "warm": [], "304": []}

    async def measured(mode, urls, repeat=1, **options):
        # A client per burst: the server closes connections idle for
        # IDLE_TIMEOUT, as a burst's early connections are by its end.
        # Cached answers take little CPU: their bursts are repeated, so
        # that the clock's ticks (10 ms) are a small part of the total.
        lat, codes, wall = [], [], 0.0
        cpu = cpu_seconds(pid)
        for _ in range(repeat):
            async with client() as c:
                one_lat, one_codes, one_wall, tags = await burst(c, urls, **options)
            lat, codes, wall = lat + one_lat, codes + one_codes, wall + one_wall
        out[mode].append(summary(lat, codes, wall, cpu_seconds(pid) - cpu))
        return tags

    def client():
        limits = httpx2.Limits(max_connections=CONCURRENT, max_keepalive_connections=CONCURRENT)
        return httpx2.AsyncClient(base_url=base, limits=limits, timeout=120)

    for r in range(rounds):
        for mode in ("cold", "cold, retried"):
            seed = 1000 + 2 * r + (mode != "cold")
            async with client() as c:
                key = (await c.get(f"/worlds?seed={seed}")).json()["key"]
            urls = tile_urls(key)
            await measured(mode, urls, retry=mode != "cold")
        tags = await measured("warm", urls, repeat=WARM_REPEAT)
        await measured("304", urls, repeat=WARM_REPEAT, etags=dict(zip(urls, tags)))
    return out


def summary(latencies, codes, wall, cpu) -> dict:
    served = sum(c in (200, 304) for c in codes)
    odd = sorted({str(c) for c in codes if c not in (200, 304, 503)})
    if odd:
        print("unexpected answers:", ", ".join(odd), file=sys.stderr)
    return {
        "median_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * p99(latencies),
        "tiles_per_s": served / wall,
        "ok": served,
        "busy": sum(c == 503 for c in codes),
        "errors": sum(c not in (200, 304, 503) for c in codes),
        "wall_s": wall,
        "per_cpu_s": served / max(cpu, 1e-9),
    }


def spread(rows, name, fmt="{:.0f}"):
    values = [row[name] for row in rows]
    med = statistics.median(values)
    return f"{fmt.format(med)} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def report(results: dict[str, list[dict]], command: str, load: str) -> str:
    lines = [
        "## Explorer load test (bench_serve.py)",
        "",
        *header(command),
        f"{CONCURRENT} concurrent requests per burst on 127.0.0.1, distinct zoom-14 tiles of four "
        "layers; the server with its default options in its own process. Median over rounds "
        f"(min-max in brackets). Load average while measuring: {load}.",
        "",
        "| burst | median latency ms | p99 latency ms | tiles/s | tiles per server CPU s "
        "| 200/304 | 503 (by design) | errors |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for mode, rows in results.items():
        lines.append(
            f"| {mode} | {spread(rows, 'median_ms')} | {spread(rows, 'p99_ms')} | "
            f"{spread(rows, 'tiles_per_s')} | {spread(rows, 'per_cpu_s')} | "
            f"{sum(r['ok'] for r in rows)} | "
            f"{sum(r['busy'] for r in rows)} | {sum(r['errors'] for r in rows)} |"
        )
    cold = [r["tiles_per_s"] for r in results["cold, retried"]]
    warm = [r["tiles_per_s"] for r in results["warm"]]
    ratios = [w / c for w, c in zip(warm, cold)]
    lines += [
        "",
        f"Warm over cold (retried) tiles/s, per round: {', '.join(f'{x:.0f}x' for x in ratios)}.",
        "A cold burst computes at most 64 tiles at once and answers the rest 503 with "
        "`Retry-After: 1`; the retried burst shows the time to serve all 200. Memory stays "
        "bounded: the cache keeps at most 128 MiB of PNG. The warm and 304 rows are "
        f'{WARM_REPEAT} bursts each (a new client for each burst). "Tiles per server CPU s": '
        "tiles answered over the CPU time of the server's process (every thread: HTTP, the "
        "app, the tile workers) during the bursts; the clients run in another process.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()
    proc, base = start_server()
    try:
        # Compile the kernels once, outside the measured rounds.
        httpx2.get(
            base + "w/" + httpx2.get(base + "worlds").json()["key"] + "/colour/3/0/0.png",
            timeout=300,
        )
        results = asyncio.run(run(base, args.rounds, proc.pid))
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    finally:
        proc.terminate()
        proc.wait(10)
    command = "python benchmarks/bench_serve.py " + " ".join(sys.argv[1:])
    text = report(results, command.strip(), load)
    print(text)
    if args.write:
        write_section(args.write, "serve", text)
    if any(r["errors"] for rows in results.values() for r in rows):
        raise SystemExit("errors in the load test")


if __name__ == "__main__":
    main()
