"""The explorer's server against bad clients, on the loopback interface:
half-sent requests, clients that never read, clients that go away, foreign
``Host`` names, Ctrl-C with a client stuck. Every test bounds its time and
its requests and stops its servers itself."""

import asyncio
import contextlib
import json
import logging
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from tests.web.serving import closed_after, served
from worldgen.web import create_app
from worldgen.web._server import (
    REQUEST_TIMEOUT,
    SEND_BUFFER,
    PacedResponses,
    listen,
    make_server,
)

ROOT = pathlib.Path(__file__).parents[2]


@contextlib.contextmanager
def running(app, **limits):
    """``app`` served on 127.0.0.1 by a thread; yields ``(host, port)``."""
    sock = listen("127.0.0.1", 0)
    server = make_server(app, **limits)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield sock.getsockname()
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        assert not thread.is_alive()


def process(*argv: str):
    """A server process (``python -m ...``) printing its URL; yields
    ``(proc, (host, port))``, and stops it. Its allocator gives big blocks
    back to the system when freed, so that its resident memory is what it
    holds."""
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(2**17)}
    return served([sys.executable, "-m", *argv], cwd=ROOT, env=env)


def get(address, path: str, timeout: float = 30.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(
            f"http://{address[0]}:{address[1]}{path}", timeout=timeout
        ) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def raw(address, data: bytes, *, rcvbuf: int | None = None) -> socket.socket:
    """A connection that sent ``data`` (and, with ``rcvbuf``, a small
    receive buffer, as a client that does not read keeps)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(30)
    sock.connect(address)
    if data:
        sock.sendall(data)
    return sock


def rss(pid: int) -> int:
    """Resident memory of a process, bytes."""
    text = pathlib.Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", text).group(1)) * 1024


def test_half_sent_requests_are_closed_within_10_s():
    host = b"Host: 127.0.0.1\r\n"
    halves = {
        "nothing": b"",
        "part of the request line": b"GET /lay",
        "headers without their end": b"GET /layers HTTP/1.1\r\n" + host,
        "a body cut short": b"POST /layers HTTP/1.1\r\n"
        + host
        + b"Content-Length: 100\r\n\r\n0123",
    }
    with running(create_app()) as address:
        start = time.monotonic()
        socks = {name: raw(address, data) for name, data in halves.items()}
        drip = socks["one byte a second"] = raw(address, b"G")

        def slowly() -> None:  # the rest of a request line, one byte a second
            for byte in b"ET /layers HTTP/1.1\r\n":
                time.sleep(1.0)
                try:
                    drip.send(bytes([byte]))
                except OSError:
                    return

        threading.Thread(target=slowly, daemon=True).start()
        for name, sock in socks.items():
            seconds, said = closed_after(sock, start + 10.0 - time.monotonic())
            assert seconds < float("inf") and time.monotonic() - start < 10.0, name
            if not name.startswith("a body"):  # nothing answered yet: a 408 says why
                assert said.startswith(b"HTTP/1.1 408 "), (name, said[:100])
        for sock in socks.values():
            sock.close()
        # A well-behaved client is served as ever.
        assert get(address, "/layers")[0] == 200
    assert REQUEST_TIMEOUT <= 10.0


def test_foreign_host_is_refused():
    """A web page that points its own DNS name at 127.0.0.1 (DNS rebinding)
    cannot use the server: only loopback names (and hosts given) are
    served."""
    with running(create_app(hosts=("box.lan",))) as address:

        def ask(host: bytes) -> bytes:
            with raw(address, b"GET /layers HTTP/1.1\r\nHost: " + host + b"\r\n\r\n") as s:
                s.settimeout(30)
                return s.recv(200).split(b"\r\n", 1)[0]

        port = str(address[1]).encode()
        for host in (b"evil.example", b"evil.example:" + port, b"127.0.0.1.evil.example",
                     b"localhost.evil.example", b"", b"[::2]:" + port):  # fmt: skip
            assert b" 400 " in ask(host), host
        for host in (b"127.0.0.1:" + port, b"localhost:" + port, b"LOCALHOST",
                     b"127.1.2.3", b"[::1]:" + port, b"box.lan:" + port):  # fmt: skip
            assert b" 200 " in ask(host), host
        assert get(address, "/layers")[0] == 200
        with raw(address, b"GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n") as s:
            s.settimeout(30)
            reply = closed_after(s, 2.0)[1] or s.recv(4096)
        assert b"not served here" in reply


def test_never_reading_clients_leave_memory_bounded():
    """50 clients each ask for a 4 MB response and never read it: once the
    answers are out, the server holds at most the paced budget (16 MB) and
    some slack, where it would hold all 50 responses and their copies (over
    200 MB) in its send buffers without the bound; it keeps answering
    others, and cuts the stuck clients off after the send timeout."""
    size = 4 * 2**20
    argv = ("tests.web.stub_server", "--paced-bytes", str(16 * 2**20), "--send-timeout", "8")
    with process(*argv) as (proc, address):
        key = json.loads(get(address, "/layers")[1])[0]["worldgen"]["key"]
        for i in range(3):  # warm up: full-size responses read by a good client
            status, body = get(address, f"/w/{key}/colour/16/{i}/0.png")
            assert status == 200 and len(body) == size
        before = rss(proc.pid)
        start = time.monotonic()
        clients = [
            raw(address, b"GET /w/%s/colour/16/%d/1.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                % (key.encode(), 100 + i), rcvbuf=4096)
            for i in range(50)
        ]  # fmt: skip
        for sock in clients:  # every one answered (or turned away): its status line came
            sock.settimeout(max(0.1, start + 60 - time.monotonic()))
            assert len(sock.recv(12, socket.MSG_PEEK)) == 12
        # The tiles were made faster than they were answered (a passing peak);
        # what stays, while the stuck clients are held, is what is bounded.
        held = settled(lambda: rss(proc.pid))
        assert time.monotonic() - start < 7.0, "measured after the send timeout"
        grown = held - before
        assert grown < 48 * 2**20, f"grew {grown / 2**20:.0f} MB"
        began = time.monotonic()
        assert get(address, "/layers", timeout=5)[0] == 200
        assert time.monotonic() - began < 2.0
        answers = []
        for sock in clients:
            seconds, said = closed_after(sock, 30.0)
            assert seconds < 30.0
            answers.append(said.split(b"\r\n", 1)[0])
            sock.close()
        assert any(b" 200 " in a for a in answers)  # served until cut off
        assert any(b" 503 " in a for a in answers)  # past the budget: retry later
        assert proc.poll() is None


def send_queue(port: int, peer: int) -> int:
    """Bytes in the kernel's send queue of the server's end (local ``port``)
    of the loopback connection to ``peer`` (from /proc/net/tcp)."""
    for line in pathlib.Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = (int(f.split(":")[1], 16) for f in fields[1:3])
        if (local, remote) == (port, peer):
            return int(fields[4].split(":")[0], 16)
    raise AssertionError(f"no connection from {port} to {peer}")


def test_a_client_that_does_not_read_is_held_in_a_small_send_buffer():
    # Linux grows a socket's send buffer up to tcp_wmem (4 MB by default):
    # a whole 4 MB response sat in the kernel for a client that read
    # nothing, where the server meant to hold a piece of it.
    argv = ("tests.web.stub_server", "--send-timeout", "3")
    with process(*argv) as (_, address):
        key = json.loads(get(address, "/layers")[1])[0]["worldgen"]["key"]
        sock = raw(
            address,
            b"GET /w/%s/colour/16/7/1.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % key.encode(),
            rcvbuf=4096,
        )
        peer = sock.getsockname()[1]
        deadline = time.monotonic() + 10
        while not send_queue(address[1], peer) and time.monotonic() < deadline:
            time.sleep(0.05)  # the answer has begun
        queued = settled(lambda: send_queue(address[1], peer), tolerance=0)
        assert queued <= 2 * SEND_BUFFER + 2**16, f"{queued / 2**20:.1f} MB in the send queue"
        seconds, _ = closed_after(sock, 15.0)  # cut off after the send timeout
        assert seconds < 15.0
        sock.close()


def settled(measure, *, tolerance: int = 2 * 2**20, pause: float = 0.25, limit: float = 4.0):
    """``measure()`` once two readings ``pause`` apart agree within
    ``tolerance`` (or after ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    last = measure()
    while time.monotonic() < deadline:
        time.sleep(pause)
        now = measure()
        if abs(now - last) <= tolerance:
            return now
        last = now
    return last


def _exports_spy(monkeypatch):
    """Record each export's start and how it ended; each stage of an export
    takes at least a tenth of a second, as on a slow machine, so that an
    export cannot finish before its client is seen gone."""
    import worldgen.web._export as export

    events = []
    original = export.write_map_set

    def spy(*args, progress, **kwargs):
        def slow(*stage):
            time.sleep(0.1)
            progress(*stage)

        events.append(("start", time.monotonic()))
        try:
            result = original(*args, progress=slow, **kwargs)
        except export.Stopped:
            events.append(("stopped", time.monotonic()))
            raise
        events.append(("finished", time.monotonic()))
        return result

    monkeypatch.setattr(export, "write_map_set", spy)
    return events


def test_a_paced_response_stopped_before_its_head_gives_back_its_bytes():
    # Its head waits while the connection's buffer is full (a client that
    # does not read); a stop then ended in an UnboundLocalError (a
    # traceback, not the quiet stop) and the bytes stayed counted.
    async def app(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"x" * 100})

    async def stopped(message) -> None:
        raise asyncio.CancelledError

    paced = PacedResponses(app, piece=10, budget=1000)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(paced({"type": "http"}, None, stopped))
    assert paced.size == 0 and not paced.held


def test_dropped_exports_stop_their_work(monkeypatch):
    """Clients that ask for exports and go away: queued exports never run,
    running ones stop at their next stage, and a tile asked for next is
    served at once (no 504)."""
    events = _exports_spy(monkeypatch)
    app = create_app(workers=2)
    key = app.state.explorer.worlds.default
    with running(app) as address:
        assert get(address, f"/w/{key}/export?x=0&z=0&width=24&height=16")[0] == 200  # compiled
        events.clear()
        dropped = [
            raw(address, b"GET /w/%s/export?x=%d&z=0&width=1024&height=1024 HTTP/1.1\r\n"
                b"Host: localhost\r\n\r\n" % (key.encode(), 5000 * i))
            for i in range(8)
        ]  # fmt: skip
        time.sleep(0.5)
        for sock in dropped:
            sock.close()
        gone = time.monotonic()
        status, _ = get(address, f"/w/{key}/colour/10/500/500.png", timeout=20)
        assert status == 200
        assert time.monotonic() - gone < 10.0
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and sum(e == "start" for e, _ in events) > sum(
            e in ("stopped", "finished") for e, _ in events
        ):
            time.sleep(0.05)
        kinds = [e for e, _ in events]
        assert 1 <= kinds.count("start") <= 2, kinds  # the rest never started
        assert kinds.count("finished") == 0 and kinds.count("stopped") == kinds.count("start")
        assert max(t for _, t in events) - gone < 5.0
        assert app.state.explorer.inflight == 0


def test_url_is_printed_once_the_port_listens():
    command = [sys.executable, "-m", "worldgen.cli", "serve", "--port", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        try:
            port = int(re.search(r"127\.0\.0\.1:(\d+)/", p.stdout.readline()).group(1))
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                pass  # no retry: refused would fail here
        finally:
            p.kill()
            p.wait(10)


def test_ctrl_c_with_a_stuck_client_stops_within_a_second():
    argv = ("worldgen.cli", "serve", "--port", "0")
    with process(*argv) as (proc, address):
        assert get(address, "/layers")[0] == 200  # up and running
        stuck = raw(
            address,
            b"GET /static/vendor/three/three.core.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            rcvbuf=4096,
        )
        half = raw(address, b"GET /lay")
        idle = raw(address, b"")
        time.sleep(0.5)
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(10)
        seconds = time.monotonic() - start
        err = proc.stderr.read()
        for sock in (stuck, half, idle):
            sock.close()
    assert seconds < 1.0, seconds
    assert proc.returncode == 0, err
    assert "Traceback" not in err and err.strip().splitlines() == ["worldgen explorer stopped"]


def test_ctrl_c_as_soon_as_the_url_shows_stops_with_one_line():
    # The URL is shown before the server runs: a Ctrl-C then was an
    # "interrupted" exit 130, or a RuntimeWarning of a coroutine never awaited.
    for _ in range(3):
        with process("worldgen.cli", "serve", "--port", "0") as (proc, _address):
            proc.send_signal(signal.SIGINT)
            proc.wait(10)
            err = proc.stderr.read()
        assert proc.returncode == 0, err
        assert err.strip().splitlines() == ["worldgen explorer stopped"], err


def test_ctrl_c_with_a_tile_in_the_making_stops_within_2_s():
    # A cold zoom-7 tile away from the spawn solves the drainage of dozens
    # of regions: seconds of compiled kernels, which cannot be stopped. The
    # server neither waits for them nor says more than its one line.
    with process("worldgen.cli", "serve", "--port", "0") as (proc, address):
        key = json.loads(get(address, "/worlds")[1])["key"]

        def ask() -> None:
            with contextlib.suppress(OSError):  # closed at the stop
                get(address, f"/w/{key}/colour/7/90/70.png")

        tile = threading.Thread(target=ask, daemon=True)
        tile.start()
        time.sleep(1.0)
        assert tile.is_alive(), "the tile was made before the stop; take a slower one"
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
        seconds = time.monotonic() - start
        err = proc.stderr.read()
    assert seconds < 2.0, seconds
    assert proc.returncode == 0, err
    assert err.strip().splitlines() == ["worldgen explorer stopped"], err


def test_requests_cancelled_at_a_stop_end_quietly(caplog):
    # uvicorn cancels the requests still open SHUTDOWN_GRACE seconds after
    # a stop and printed each one's traceback as an error of the app.
    async def stuck(scope, receive, send) -> None:
        if scope["type"] == "http":
            await asyncio.sleep(60)  # deaf to its client going away

    # uvicorn's loggers do not propagate, and its config resets their
    # handlers as the server is made: listen once it runs.
    log = logging.getLogger("uvicorn.error")
    try:
        with running(stuck) as address:
            log.addHandler(caplog.handler)
            sock = raw(address, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            time.sleep(0.3)
        sock.close()
    finally:
        log.removeHandler(caplog.handler)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_open_without_a_browser_says_so(tmp_path):
    command = [sys.executable, "-m", "worldgen.cli", "serve", "--port", "0", "--open"]
    env = {**os.environ, "BROWSER": "false", "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as p:
        try:
            assert "worldgen explorer at" in p.stdout.readline()
            line = p.stderr.readline()
            assert "no web browser found here: open http://127.0.0.1:" in line
        finally:
            p.kill()
            p.wait(10)
