"""Fuzz the explorer's server with bad requests and bad clients, on the
loopback interface, one connection at a time (and a few at once).

A real server (uvicorn, with the limits of ``worldgen serve``) runs in a
thread. Each example sends one request, drawn from templates with bad
values: tile coordinates that are not plain ASCII digits, out of range or
huge; query parameters of every route with bad numbers; other methods,
foreign or missing ``Host`` names, malformed request lines, oversized
headers. Then the scripted bad clients: silent, half-sent, dripping,
never-reading and disconnecting ones. The outcome is one of:

- ``clear``: a 4xx (or 503 busy, 504 past the time limit) whose body is
  one line naming what is wrong (JSON ``{"error": ...}`` from the app;
  uvicorn's one line for a malformed request), or for a bad client, the
  connection closed within its limit and the server still serving others;
- ``accepted``: 200 or 304 with the route's content type;
- ``unclear``: a 5xx, a body of more than one line, a traceback;
- ``garbage``: an answer to what must be refused: a foreign ``Host`` (a
  page's DNS name pointed at the loopback interface), or a tile coordinate
  other than plain ASCII digits (so a tile has one URL);
- ``unbounded``: no answer, or a connection held, past its limit.

Run as a script (the tests run it in a subprocess)::

    python -m tests.fuzz.server --examples 100
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import urllib.parse

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._runner import Tally, Watchdog, fuzz_settings, main
from tests.web.serving import closed_after

ANSWER_LIMIT = 30.0  # seconds for any answer (tiles are made on one thread)
CLOSE_LIMIT = 10.0  # seconds for a bad client to be let go

NUMBERS = [
    "0", "1", "16", "17", "-1", " 0", "+1", "1_0", "\u0663", "01", "1.5", "", "nan", "inf",
    "1e3", "99999999999999999999", "-99999999999999999999", "0x10", "%00", "%20", "..",
    "1" * 300, "\u00b2", "\uff11",
]  # fmt: skip
LAYERS = ["colour", "biomes", "height", "hillshade", "voxel", "nope", "", "colour.png", ".."]
PARAMS = ["seed", "scale", "octaves", "persistence", "lacunarity", "sea", "preset", "colour"]
SERVED_HOSTS = ("127.0.0.1:{port}", "localhost", "[::1]:{port}")
HOSTS = ["127.0.0.1:{port}", "localhost", "[::1]:{port}", "evil.example", "", "127.0.0.1.nip.io",
         "localhost.evil.example", "10.0.0.1", "\u0131ocalhost"]  # fmt: skip


def _request(method: str, target: str, host: str | None, extra: str = "") -> bytes:
    lines = [f"{method} {target} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    lines.append("Connection: close")
    if extra:
        lines.append(extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape")


def exchange(address, data: bytes, limit: float = ANSWER_LIMIT) -> tuple[float, bytes]:
    """Send ``data``; read until the server closes. Returns the seconds it
    took (``inf`` past ``limit``) and what came back."""
    start = time.monotonic()
    with socket.create_connection(address, timeout=limit) as sock:
        try:
            sock.sendall(data)
        except OSError:
            pass  # the server may close early on a request it refuses
        seconds, got = closed_after(sock, limit)
    return (time.monotonic() - start if seconds < limit else seconds), got


def judge(seconds: float, reply: bytes, method: str = "GET") -> tuple[str, str]:
    if seconds == float("inf") or not reply:
        return "unbounded", f"no answer within {ANSWER_LIMIT:g} s"
    head, _, body = reply.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
    try:
        status = int(status_line.split()[1])
    except (IndexError, ValueError):
        return "unclear", f"not an HTTP answer: {status_line[:80]!r}"
    headers = head.decode("latin-1").lower()
    if "transfer-encoding: chunked" in headers:
        body = _dechunked(body)
    if status in (200, 304):
        return "accepted", ""
    if method == "HEAD" and 400 <= status < 500:
        return "clear", ""  # the GET's error line, without its body
    if status >= 500 and status not in (503, 504):  # busy, or slower than its limit
        return "unclear", f"{status}: {body[:120]!r}"
    if b"Traceback" in body or body.count(b"\n") > 1:
        return "unclear", f"{status} with a body of several lines: {body[:120]!r}"
    if "application/json" in headers:
        try:
            message = json.loads(body)["error"]
        except (ValueError, KeyError, TypeError):
            return "unclear", f"{status} with JSON that is not an error: {body[:120]!r}"
        return ("clear", "") if message.strip() else ("unclear", f"{status}: empty error")
    if 400 <= status < 500 and body.strip():
        return "clear", ""  # uvicorn's one line for a malformed request
    return "unclear", f"{status} with no reason: {body[:120]!r}"


def _canonical(target: str) -> bool:
    """False for a tile URL whose z, x or y is not plain ASCII digits."""
    match = re.fullmatch(r"/w/[^/]+/[^/]+/([^/]*)/([^/]*)/([^/]*)\.png", target)
    if match is None:
        return True
    return all(re.fullmatch(r"0|[1-9][0-9]*", urllib.parse.unquote(g)) for g in match.groups())


def _dechunked(body: bytes) -> bytes:
    out = b""
    while body:
        size, _, rest = body.partition(b"\r\n")
        try:
            count = int(size, 16)
        except ValueError:
            return out + body
        if count == 0:
            break
        out, body = out + rest[:count], rest[count + 2 :]
    return out


def targets(key: str) -> st.SearchStrategy[str]:
    number = st.sampled_from(NUMBERS)
    tile = st.builds(
        lambda layer, z, x, y: f"/w/{key}/{layer}/{z}/{x}/{y}.png",
        st.sampled_from(LAYERS), number, number, number,
    )  # fmt: skip
    point = st.builds(lambda x, z: f"/w/{key}/point?x={x}&z={z}", number, number)
    chunks = st.builds(lambda r: f"/w/{key}/chunks?x=3&z=5&radius={r}", number)
    export = st.builds(lambda x, w: f"/w/{key}/export?x={x}&z=0&width={w}&height=3", number, number)
    worlds = st.builds(
        lambda name, value: f"/worlds?{name}={value}", st.sampled_from(PARAMS), number
    )
    other = st.sampled_from([
        "/", "/layers", f"/w/{key}/layers", f"/w/{key}/colour.json", f"/w/{key}/nope.json",
        "/w/0000/layers", "/static/js/main.js", "/static/../../etc/passwd", "/static/nope.js",
        "/no/such/page", "*", "//", "/" + "a" * 5000, "/%ff%fe", "/w/%00/layers",
    ])  # fmt: skip
    return st.one_of(tile, point, chunks, export, worlds, other)


def run(examples: int) -> dict:
    from worldgen.web import create_app
    from worldgen.web._server import listen, make_server

    tally = Tally()
    app = create_app(workers=1, timeout=20.0)
    key = app.state.explorer.worlds.default
    sock = listen("127.0.0.1", 0)
    server = make_server(app, send_timeout=3.0)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    address = sock.getsockname()
    port = address[1]
    watchdog = Watchdog(tally, limit=3 * ANSWER_LIMIT)
    try:
        _requests(address, key, port, examples, tally, watchdog)
        _bad_clients(address, key, tally, watchdog)
    finally:
        watchdog.stop()
        server.should_exit = True
        thread.join(10)
        sock.close()
    return tally.report()


def _requests(address, key, port, examples, tally, watchdog) -> None:
    methods = st.sampled_from(["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"])
    hosts = st.one_of(st.just(f"127.0.0.1:{port}"), st.sampled_from(HOSTS), st.none())

    @fuzz_settings(examples)
    @given(method=methods, target=targets(key), host=hosts)
    def fuzz(method, target, host):
        host = None if host is None else host.format(port=port)
        served = {h.format(port=port) for h in SERVED_HOSTS}
        refuse = host not in served or not _canonical(target)
        label = f"{method} {target[:100]} Host={host!r}"
        with watchdog.watching(label):
            kind, detail = judge(*exchange(address, _request(method, target, host)), method)
        if kind == "accepted" and refuse:
            kind, detail = "garbage", "answered what must be refused"
        tally.add(kind, request=label, detail=detail)

    fuzz()
    malformed = [
        b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\nHost: localhost\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: localhost\r\nX: " + b"y" * 40000 + b"\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"\x00\xff\xfe\r\n\r\n", b"GET /\xff HTTP/1.1\r\nHost: localhost\r\n\r\n",
    ]  # fmt: skip
    for data in malformed:
        with watchdog.watching(repr(data[:60])):
            kind, detail = judge(*exchange(address, data))
        tally.add(kind, request=repr(data[:60]), detail=detail)


def _bad_clients(address, key: str, tally, watchdog) -> None:
    """Clients that do not play their part: each must be let go within
    CLOSE_LIMIT, and a good client served meanwhile."""
    good = _request("GET", "/layers", "localhost")

    def scenario(name: str, data: bytes, *, rcvbuf: int | None = None, read: bool = True):
        start = time.monotonic()
        sock = socket.socket()
        if rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(CLOSE_LIMIT + 20)
        sock.connect(address)
        try:
            if data:
                sock.sendall(data)
            served = judge(*exchange(address, good))[0] == "accepted"  # others still served
            limit = start + (CLOSE_LIMIT if read else CLOSE_LIMIT + 20) - time.monotonic()
            closed = closed_after(sock, limit)[0] < float("inf")
        finally:
            sock.close()
        if not served:
            return "unbounded", "a good client was not served meanwhile"
        if not closed:
            return "unbounded", "still held open"
        return "clear", ""

    cases = [
        ("silent", b"", {}),
        ("half a request line", b"GET /lay", {}),
        ("headers never ended", b"GET /layers HTTP/1.1\r\nHost: localhost\r\n", {}),
        ("a body cut short",
         b"POST /layers HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99\r\n\r\nab", {}),
        ("never reading a big answer",
         b"GET /static/vendor/three/three.core.js HTTP/1.1\r\nHost: localhost\r\n\r\n",
         {"rcvbuf": 4096, "read": False}),
    ]  # fmt: skip
    for name, data, options in cases:
        with watchdog.watching(f"bad client: {name}"):
            kind, detail = scenario(name, data, **options)
        tally.add(kind, request=f"bad client: {name}", detail=detail)
    # Clients that go away before their answer: the server keeps serving.
    for i in range(3):
        with socket.create_connection(address, timeout=10) as sock:
            target = f"/w/{key}/export?x={1000 * i}&z=0&width=900&height=900"
            sock.sendall(_request("GET", target, "localhost"))
    with watchdog.watching("after clients that went away"):
        kind, detail = judge(*exchange(address, good))
    tally.add(kind, request="good client after three that went away", detail=detail)


if __name__ == "__main__":
    main(run, __doc__, 100)
