"""Serving the explorer on uvicorn, held against bad clients.

The app answers well-formed requests; this module keeps a client from
holding the server by other means:

- a request (line, headers and body) must arrive within
  :data:`REQUEST_TIMEOUT` seconds of its first byte (of the connection, for
  the first one); idle keep-alive connections close after
  :data:`IDLE_TIMEOUT`; a slow or silent client is answered ``408`` and
  closed;
- a client that stops reading its response for :data:`SEND_TIMEOUT`
  seconds is cut off; responses go out in pieces (see
  :class:`PacedResponses`) into socket send buffers of a fixed
  :data:`SEND_BUFFER` bytes, so the server holds at most a piece and that
  buffer of a response for a client that does not read, and the bytes of
  all responses waiting for slow clients are bounded;
- at most :data:`MAX_CONNECTIONS` connections are open at once (the newest
  beyond is closed at once);
- stopping (Ctrl-C) closes every connection within :data:`SHUTDOWN_GRACE`
  seconds, stuck or not, and the work of the requests still open is
  cancelled (see :class:`~worldgen.web._app.Explorer`).

Tests: ``tests/web/test_server.py`` drives a real server on the loopback
interface with each kind of bad client.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_TIMEOUT = 5.0
"""Seconds a request may take to arrive, from its first byte to its last."""
IDLE_TIMEOUT = 5.0
"""Seconds a keep-alive connection may wait idle for its next request."""
SEND_TIMEOUT = 20.0
"""Seconds a client may go without reading any of its response."""
MAX_CONNECTIONS = 512
"""Connections open at once; more are closed as they come."""
SEND_BUFFER = 128 * 1024
"""Bytes of a connection's socket send buffer (the system may double it):
fixed, so that the kernel does not grow it to megabytes for a client that
does not read (Linux grows it up to ``tcp_wmem``, 4 MB by default)."""
SHUTDOWN_GRACE = 0.2
"""Seconds connections get to finish when the server stops."""

_TIMED_OUT_BODY = b'{"error": "request not received in time; send it again"}'
_TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"content-length: %d\r\n\r\n%s" % (len(_TIMED_OUT_BODY), _TIMED_OUT_BODY)
)


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol with request, send and connection limits."""

    request_timeout = REQUEST_TIMEOUT
    send_timeout = SEND_TIMEOUT
    max_connections = MAX_CONNECTIONS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._reading: asyncio.TimerHandle | None = None
        self._stalled: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            transport.abort()
            return
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        self._arm()  # the first request must come in time too

    def data_received(self, data: bytes) -> None:
        if self._reading is None and self.conn.their_state is h11.IDLE:
            self._arm()  # a new request begins
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # received whole (or the connection is done)

    def _arm(self) -> None:
        self._disarm()
        self._reading = self.loop.call_later(self.request_timeout, self._request_timed_out)

    def _disarm(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
            self._reading = None

    def _request_timed_out(self) -> None:
        self._reading = None
        if self.transport.is_closing():
            return
        if self.conn.our_state is h11.IDLE:  # nothing sent yet: say why
            self.transport.write(_TIMED_OUT)
        self.transport.close()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stalled is None:
            self._stalled = self.loop.call_later(self.send_timeout, self.transport.abort)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        super().connection_lost(exc)

    def shutdown(self) -> None:
        super().shutdown()
        if not self.transport.is_closing():  # a response under way: a moment to finish
            self.loop.call_later(SHUTDOWN_GRACE, self.transport.abort)


def guarded_protocol(
    *,
    request_timeout: float = REQUEST_TIMEOUT,
    send_timeout: float = SEND_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
) -> type[GuardedProtocol]:
    """:class:`GuardedProtocol` with these limits (seconds, connections)."""
    return type(
        "GuardedProtocol",
        (GuardedProtocol,),
        {
            "request_timeout": request_timeout,
            "send_timeout": send_timeout,
            "max_connections": max_connections,
        },
    )


class PacedResponses:
    """ASGI middleware: a response body of more than ``piece`` bytes goes
    out in pieces of ``piece`` bytes, each after the client took the last
    (so flow control holds: a client that does not read keeps at most a
    piece in the server's buffers, and is cut off after
    :data:`SEND_TIMEOUT`), while the bytes of all paced responses under way
    stay within ``budget`` (past it, a response is replaced by a 503).
    """

    def __init__(self, app, *, piece: int = 64 * 1024, budget: int = 256 * 2**20):
        self.app = app
        self.piece = piece
        self.budget = budget
        self.held: dict[int, list] = {}  # id(body) -> [body, users]
        self.size = 0

    def _hold(self, body: bytes) -> bool:
        item = self.held.get(id(body))
        if item is None:
            if self.size + len(body) > self.budget:
                return False
            self.held[id(body)] = item = [body, 0]
            self.size += len(body)
        item[1] += 1
        return True

    def _release(self, body: bytes) -> None:
        item = self.held[id(body)]
        item[1] -= 1
        if not item[1]:
            del self.held[id(body)]
            self.size -= len(body)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: dict | None = None

        async def paced(message: dict) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message  # held until the body's size is known
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            head, start = start, None
            body = message.get("body", b"")
            if len(body) <= self.piece or message.get("more_body", False):
                await send(head)
                await send(message)
                return
            if not self._hold(body):
                await _busy(send)
                return
            view = memoryview(body)
            try:
                await send(head)
                for at in range(0, len(body), self.piece):
                    end = at + self.piece
                    await send(
                        {
                            "type": "http.response.body",
                            "body": bytes(view[at:end]),
                            "more_body": end < len(body),
                        }
                    )
            finally:
                view.release()
                self._release(body)

        await self.app(scope, receive, paced)


async def _busy(send) -> None:
    body = b'{"error": "server busy: too many large responses waiting for slow clients; retry"}'
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", b"1"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def every_address(host: str) -> bool:
    """Whether ``host`` is the address of every interface (``0.0.0.0``, ``::``)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def page_url(host: str, port: int) -> str:
    """The URL of the page of a server listening on ``(host, port)``: a
    loopback one for a server on every address (``0.0.0.0``, ``::``),
    which browsers do not open (``[::1]`` for ``::``: the IPv4 loopback is
    not always a dual-stack socket's)."""
    if every_address(host):
        host = "::1" if ":" in host else "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``(host, port)`` and listening (so a client may
    connect as soon as this returns; the server accepts once it runs)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def make_server(app, **limits: Any):
    """A ``uvicorn.Server`` for ``app`` with the guarded protocol (``limits``:
    see :func:`guarded_protocol`); run it with ``server.run(sockets=[sock])``."""
    import uvicorn

    config = uvicorn.Config(
        _CancelledAtStop(app),
        http=guarded_protocol(**limits),
        log_level="error",
        lifespan="on",
        timeout_keep_alive=IDLE_TIMEOUT,
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
        h11_max_incomplete_event_size=16 * 1024,
    )
    quiet = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _ClosedAtStop) for f in quiet.filters):
        quiet.addFilter(_ClosedAtStop())
    return uvicorn.Server(config)


class _CancelledAtStop:
    """ASGI wrapper: a request that uvicorn cancels as the server stops
    (one still open :data:`SHUTDOWN_GRACE` seconds after Ctrl-C) ends
    quietly; uvicorn would print its traceback as an error of the app."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        try:
            await self.app(scope, receive, send)
        except asyncio.CancelledError:
            if scope["type"] != "http":
                raise


class _ClosedAtStop(logging.Filter):
    """Drops uvicorn's error line on the connections still open when the
    server stops: closing them after :data:`SHUTDOWN_GRACE` is how it stops
    (their work is cancelled), not an error to show the user."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Cancel %s running task")
