"""The explorer's ASGI app: a thin shell over the tile products.

Routes (``KEY`` is a world's key, see :func:`~worldgen.web._worlds.world_key`):

- ``GET /``: the page; ``GET /static/...``: its scripts and styles.
- ``GET /layers``: TileJSON 3.0.0 documents of the server's world's layers.
- ``GET /worlds?seed=..&scale=..``: register the world of those parameters
  (see :data:`~worldgen.web._worlds.PARAMS`); returns its key, parameters,
  layers, spawn and its seed again as a decimal string (a seed may pass
  2**53, past which a JSON number is not exact in a browser).
- ``GET /w/KEY/layers``, ``GET /w/KEY/LAYER.json``: TileJSON; a classic
  map's voxel layer has a ``worldgen.note`` saying that it shows the
  default world of the map's seed (a classic map has no voxel world).
- ``GET /w/KEY/LAYER/Z/X/Y.png``: a tile, cached forever by clients
  (``Cache-Control: immutable``, strong ETag, 304 on ``If-None-Match``).
- ``GET /w/KEY/point?x=X&z=Z``: height and biome of a world cell.
- ``GET /w/KEY/chunks?x=X&z=Z&radius=R``: greedy-meshed voxel chunks.
- ``GET /w/KEY/export?x=X&z=Z&width=W&height=H``: the map set of a window
  of world cells, as a zip.

Bad input is a 4xx with a one-line JSON body ``{"error": "..."}``: a
``Host`` other than a loopback name (or one the server was given) is
refused, so a web page cannot reach the server through a DNS name of its
own; tile coordinates are plain ASCII digits and tile URLs carry no
percent-encoding (one URL per tile); a query parameter a route does not
take, or one given twice, is refused, not passed over. Tile work runs on
two thread pools: work that may take seconds (tiles and cursor read-outs
whose rivers need a landmass's drainage solved first, voxel tiles and
chunks, exports) on one, every other tile on the other, so a view that is
solving landmasses does not hold up tiles that are quick to make. Each request waits at most
``timeout`` seconds (504), and past ``max_inflight`` computations at once
new ones get 503.
When every client waiting for a piece of work has gone, the work is
cancelled (an export stops at its next stage). Finished tiles stay in an
in-memory LRU cache of ``cache_bytes``. Large responses go out in pieces
(:class:`~worldgen.web._server.PacedResponses`); ``worldgen serve`` runs
the app with the limits of :mod:`worldgen.web._server`.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import dataclasses
import functools
import hashlib
import http
import ipaddress
import logging
import pathlib
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from worldgen._errors import ParameterError
from worldgen.noise._validate import check_int, check_positive
from worldgen.products._maps import MapConfig
from worldgen.web._products import (
    LAYERS,
    check_layer,
    point_info,
    point_is_slow,
    tile_is_slow,
    tile_png,
    voxel_note,
)
from worldgen.web._server import PacedResponses, every_address
from worldgen.web._tiles import HALF, NATIVE_ZOOM, cell_bounds, cell_to_lnglat, check_tile
from worldgen.web._worlds import PARAMS, Worlds, parse_params, spawn_of

STATIC = pathlib.Path(__file__).resolve().parent / "static"
log = logging.getLogger("worldgen.web")
IMMUTABLE = "public, max-age=31536000, immutable"
MAX_CHUNK_RADIUS = 64
"""Largest radius, in blocks, of a chunk request."""


class ClientError(Exception):
    """A request the server will not answer: status and a one-line reason."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


ERROR_CHARS = 400
"""Longest error message sent: what a client sent is echoed, cut short."""


def _error(status: int, message: str) -> JSONResponse:
    text = " ".join(str(message).split())
    if len(text) > ERROR_CHARS:
        half = (ERROR_CHARS - 5) // 2
        text = f"{text[:half]} ... {text[-half:]}"
    return JSONResponse({"error": text}, status_code=status)


POLL = 0.1
"""Seconds between checks, while a request waits, that its client is still there."""
GRACE = 0.05
"""Seconds a running computation goes on once its last client has left, while
every other waiting request checks its own client at once: a thread freed by
the stop would otherwise start queued work whose client left at the same
time but has not been seen gone yet."""
_INTEGER = re.compile(r"-?[0-9]{1,30}")
_DIGITS = re.compile(r"-?[0-9]+")  # an integer, of any length
_TILE_INTEGER = re.compile(r"0|[1-9][0-9]{0,29}")


def _int(text: str | None, name: str, limit: int = 2**53) -> int:
    """A query integer: an optional minus and ASCII digits, nothing else."""
    if text is None:
        raise ClientError(400, f"{name} is required: an integer (ASCII digits, optional minus)")
    if _DIGITS.fullmatch(text) and not _INTEGER.fullmatch(text):
        raise ClientError(400, f"{name} must be within +-{limit}, got {text!r}")
    if not _INTEGER.fullmatch(text):
        raise ClientError(
            400, f"{name} must be an integer (ASCII digits, optional minus), got {text!r}"
        )
    value = int(text)
    if not -limit <= value <= limit:
        raise ClientError(400, f"{name} must be within +-{limit}, got {text!r}")
    return value


def _tile_int(text: str, name: str) -> int:
    """A tile coordinate of a URL path: ASCII digits with no sign, space,
    underscore or leading zero, so each tile has one URL."""
    if not _TILE_INTEGER.fullmatch(text):
        raise ClientError(
            400,
            f"{name} must be an integer in ASCII digits with no sign, space or leading "
            f"zero, got {text!r}",
        )
    value = int(text)
    if value > 2**40:
        raise ClientError(400, f"{name} must be within +-{2**40}, got {text!r}")
    return value


def _query(request: Request, names: Sequence[str]) -> dict[str, str]:
    """A request's query parameters: each of ``names`` at most once, no other."""
    out: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name not in names:
            raise ClientError(400, f"unknown parameter {name!r}; valid: {', '.join(names)}")
        if name in out:
            raise ClientError(400, f"{name} is given twice; give it once")
        out[name] = value
    return out


LOOPBACK_NAMES = ("localhost",)


def host_allowed(host: str, extra: Sequence[str] = ()) -> bool:
    """Whether a request's ``Host`` header (``name[:port]``) names this
    server: ``localhost``, a loopback address, or one of ``extra``; if
    ``extra`` holds the address of every interface (the server listens on
    all), any address (a page at an address is this server's own: only a
    DNS name can be pointed here by another site)."""
    name = host.strip().lower()
    if name.startswith("["):  # [v6]:port
        name = name[1 : name.find("]")] if "]" in name else ""
    elif name.count(":") == 1:
        name = name.rsplit(":", 1)[0]
    if not name:
        return False
    if name in LOOPBACK_NAMES or name in {e.lower() for e in extra}:
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_loopback or any(every_address(e) for e in extra)


class HostCheck:
    """ASGI middleware: 400 for a request whose ``Host`` is not this server's
    (see :func:`host_allowed`), against DNS rebinding."""

    def __init__(self, app, hosts: Sequence[str] = ()):
        self.app = app
        self.hosts = tuple(hosts)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if not host_allowed(host, self.hosts):
                every = "an address of this machine"
                names = (
                    *LOOPBACK_NAMES,
                    "127.0.0.1",
                    "[::1]",
                    *(every if every_address(h) else h for h in self.hosts),
                )
                allowed = ", ".join(dict.fromkeys(names))  # each once
                response = _error(
                    400,
                    f"host {host[:100]!r} is not served here (DNS rebinding?); open the page "
                    f"at one of: {allowed}",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class JsonErrors:
    """ASGI wrapper: a 4xx that ``app`` answers in plain text (the static
    files' answers to a bad ``Range`` header) goes out as the one-line JSON
    body ``{"error": "..."}`` every other bad request gets."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        start = None
        pieces: list[bytes] = []

        async def answer(message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", []))
                plain = headers.get(b"content-type", b"").startswith(b"text/plain")
                if 400 <= message["status"] < 500 and plain:
                    start = message  # held until its body is known
                    return
            elif start is not None and message["type"] == "http.response.body":
                pieces.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                body = b"".join(pieces).decode("utf-8", "replace").strip()
                text = body or http.HTTPStatus(start["status"]).phrase
                response = _error(start["status"], f"{text} (static file {scope['path']})")
                keep = [(k, v) for k, v in start.get("headers", []) if k == b"content-range"]
                response.raw_headers.extend(keep)
                await response(scope, receive, send)
                return
            await send(message)

        await self.app(scope, receive, answer)


class PageFiles(StaticFiles):
    """The page's files, checked by the browser before each use (``no-cache``,
    then a 304 while unchanged): their URLs hold no version, and a script
    a browser deemed fresh from its age would outlive an upgrade."""

    def file_response(self, *args, **kwargs) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        return response


class TileCache:
    """An LRU cache of ``(bytes, etag)`` by key, bounded in total bytes."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.size = 0
        self._items: collections.OrderedDict[Any, tuple[bytes, str]] = collections.OrderedDict()

    def get(self, key) -> tuple[bytes, str] | None:
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
        return item

    def put(self, key, data: bytes) -> tuple[bytes, str]:
        item = (data, '"' + hashlib.blake2b(data, digest_size=16).hexdigest() + '"')
        if len(data) > self.capacity:
            return item
        if key in self._items:
            self.size -= len(self._items.pop(key)[0])
        self._items[key] = item
        self.size += len(data)
        while self.size > self.capacity:
            _, (old, _) = self._items.popitem(last=False)
            self.size -= len(old)
        return item

    def __len__(self) -> int:
        return len(self._items)


class Gone(Exception):
    """The client closed its connection before its answer was ready."""


@dataclasses.dataclass(eq=False)
class Work:
    """A computation on the pool, shared by the requests that wait for it."""

    future: asyncio.Future | None  # set as soon as the work is submitted
    stop: threading.Event
    keep: Callable[[Any], None] | None
    waiters: int = 0
    started: bool = False  # set by the pool's thread as it begins
    logged: bool = False  # its failure is in the log (once, however many waited)


class Explorer:
    """The server's state: worlds, thread pool, cache and the work under way."""

    def __init__(
        self,
        worlds: Worlds,
        *,
        workers: int,
        max_inflight: int,
        timeout: float,
        cache_bytes: int,
        product: Callable[..., bytes],
        slow_tile: Callable[..., bool],
        lanes: int = 2,
    ):
        self.worlds = worlds
        self.pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="tiles")
        # Work that may take seconds has its own threads (with ``lanes`` 1,
        # where kernels must not run on two threads at once, the same).
        self.slow_pool = (
            concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="slow-tiles")
            if lanes > 1
            else self.pool
        )
        self.slow_tile = slow_tile
        self.max_inflight = max_inflight
        self.timeout = timeout
        self.cache = TileCache(cache_bytes)
        self.product = product
        self.inflight = 0
        self._pending: dict[Any, Work] = {}
        self._left: tuple[Any, asyncio.Event] | None = None  # (its loop, the event)

    async def run(
        self,
        key,
        fn: Callable[..., Any],
        *args,
        keep=None,
        request=None,
        stoppable=False,
        slow=False,
        what="tile",
    ) -> Any:
        """``fn(*args)`` on the pool (``slow``: the pool of work that may
        take seconds), at most once at a time per ``key``
        (later callers share the first one's result); 503 past the bound,
        504 past the time limit (its message names ``what`` was made);
        422 for a :class:`~worldgen.ParameterError` (the library refused
        what was asked), 500 for any other error (its traceback goes to the
        ``worldgen.web`` log, not to the client).
        ``keep(result)``, if given, is called when the work succeeds, even
        after a 504 (so slow tiles still get cached).

        While it waits, the call checks every :data:`POLL` seconds, and at
        once when another request's client is seen gone, that the client of
        ``request`` is still connected; when the last caller waiting for
        the work has gone (or, for work without ``keep``, given up at 504),
        the work is cancelled: dropped if it has not started, and, if
        ``stoppable``, told to stop through ``fn(*args, stop=event)`` (it
        raises once ``event`` is set), :data:`GRACE` seconds after its
        client was seen gone."""
        work = self._pending.get(key)
        if work is None:
            if request is not None and await request.is_disconnected():
                raise Gone  # its client left before the work began: never start it
            if self.inflight >= self.max_inflight:
                raise ClientError(
                    503, f"server busy: too much work under way to start this {what}; retry soon"
                )
            self.inflight += 1
            stop = threading.Event()
            call = functools.partial(fn, *args, **({"stop": stop} if stoppable else {}))

            made = Work(None, stop, keep)

            def begin() -> Any:
                made.started = True
                return call()

            pool = self.slow_pool if slow else self.pool
            future = made.future = asyncio.get_running_loop().run_in_executor(pool, begin)
            work = self._pending[key] = made

            def done(f: asyncio.Future) -> None:
                self.inflight -= 1
                if self._pending.get(key) is work:
                    del self._pending[key]
                if keep is not None and not f.cancelled() and f.exception() is None:
                    keep(f.result())

            future.add_done_callback(done)
        work.waiters += 1
        late = False  # a 504: tiles are still made and kept
        gone = False
        try:
            return await self._wait(work, request)
        except Gone:
            gone = True
            raise
        except TimeoutError:
            late = work.keep is not None
            if late:  # still in the making: a retry gets it
                raise ClientError(
                    504, f"{what} took longer than {self.timeout:g} s; retry"
                ) from None
            raise ClientError(
                504,
                f"{what} took longer than {self.timeout:g} s, the server's time limit, and was "
                "stopped: ask for less, or start the server with a longer --timeout",
            ) from None
        except ParameterError as exc:  # the library's refusal of what was asked
            raise ClientError(422, str(exc)) from None
        except Exception:  # a fault of the server's: its traceback to the log only
            if not work.logged:
                work.logged = True
                log.exception("making a %s failed (%s)", what, key)
            raise ClientError(500, f"internal error making this {what}; please report it") from None
        finally:
            work.waiters -= 1
            if not work.waiters and not work.future.done() and not late:
                if gone and work.started:
                    # The other waiting requests, woken by _wait as it saw
                    # the client gone, drop queued work whose clients left
                    # too before this stop frees a thread for it (GRACE).
                    try:
                        await asyncio.sleep(GRACE)
                    finally:
                        if not work.waiters and not work.future.done():
                            self._cancel(key, work)
                else:
                    self._cancel(key, work)

    async def _wait(self, work: Work, request) -> Any:
        # Wakes every POLL seconds, or at once when another request has
        # found its client gone, to check that this one's is still there.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError
            woken = asyncio.ensure_future(self._departures(loop).wait())
            try:
                await asyncio.wait(
                    {work.future, woken},
                    timeout=min(POLL, left),
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                woken.cancel()
            if work.future.done():
                return work.future.result()
            if request is not None and await request.is_disconnected():
                self._seen_gone()
                raise Gone

    def _departures(self, loop) -> asyncio.Event:
        """The event that wakes the requests waiting in ``loop`` when a
        client is seen gone (one per loop: an app may serve from several)."""
        if self._left is None or self._left[0] is not loop:
            self._left = (loop, asyncio.Event())
        return self._left[1]

    def _seen_gone(self) -> None:
        """Wake every waiting request to check its client now."""
        if self._left is not None:
            self._left[1].set()
            self._left = None

    def _cancel(self, key, work: Work) -> None:
        work.stop.set()
        work.future.cancel()  # drops it if not started; a started one sees stop
        if self._pending.get(key) is work:
            del self._pending[key]

    def close(self) -> None:
        """Cancel all work (the server stops)."""
        for key, work in list(self._pending.items()):
            self._cancel(key, work)
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.slow_pool.shutdown(wait=False, cancel_futures=True)

    def world(self, key: str):
        try:
            return self.worlds.get(key)
        except KeyError:
            raise ClientError(
                404, f"unknown world {key!r}: get a key from /worlds (it changes with the version)"
            ) from None


def _tilejson(
    request: Request, key: str, layer: str, world: tuple[MapConfig, dict], spawn: list[int]
) -> dict:
    config, params = world
    info = LAYERS[layer]
    base = str(request.base_url).rstrip("/")
    doc = {
        "tilejson": "3.0.0",
        "name": layer,
        "description": info.description,
        "version": "1.0.0",
        "scheme": "xyz",
        "tiles": [f"{base}/w/{key}/{layer}/{{z}}/{{x}}/{{y}}.png"],
        "minzoom": info.min_zoom,
        "maxzoom": NATIVE_ZOOM,
        "bounds": cell_bounds(),
        "center": [*cell_to_lnglat(*spawn), NATIVE_ZOOM - 1],  # where the page opens
        "tileSize": 256,
        "attribution": "worldgen",
        "worldgen": {"key": key, "params": dict(params)},
    }
    if info.encoding:
        doc["encoding"] = info.encoding
    note = voxel_note(config) if layer == "voxel" else None
    if note:  # the layer shows another world than the map's
        doc["worldgen"]["note"] = note
    return doc


def _layers(
    request: Request, key: str, world: tuple[MapConfig, dict], spawn: list[int]
) -> list[dict]:
    return [_tilejson(request, key, name, world, spawn) for name in LAYERS]


def create_app(
    file_data: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
    *,
    workers: int | None = None,
    max_inflight: int = 64,
    timeout: float = 60.0,
    cache_bytes: int = 128 * 2**20,
    product: Callable[..., bytes] = tile_png,
    slow_tile: Callable[..., bool] = tile_is_slow,
    hosts: Sequence[str] = (),
    paced_bytes: int = 256 * 2**20,
) -> Starlette:
    """The explorer's ASGI app.

    Parameters
    ----------
    file_data : mapping, optional
        A map config file's data (as :func:`worldgen.config.load_toml`
        reads it), under the page's parameters.
    defaults : mapping, optional
        The server world's parameters (``preset``, ``seed``... see
        :data:`~worldgen.web._worlds.PARAMS`); default: the file's map (as
        ``worldgen map --config``), or without one the ``continents``
        preset, seed 0.
    workers : int, optional
        Tile threads (default: the cores, or one where numba's threading
        layer must not be entered from two threads).
    max_inflight : int
        Tiles computed or queued at once; more get 503.
    timeout : float
        Seconds a request waits for its tile before a 504.
    cache_bytes : int
        Bytes of PNG kept in memory.
    product : callable
        ``(config, layer, z, x, y) -> bytes``; :func:`tile_png` (tests may
        slow it down).
    slow_tile : callable
        ``(config, layer, z, x, y) -> bool``: whether a tile goes to the
        pool of work that may take seconds; :func:`tile_is_slow`.
    hosts : sequence of str
        Names the ``Host`` header may give besides ``localhost`` and the
        loopback addresses (the address the server listens on, if another;
        ``0.0.0.0`` or ``::``: any address, see :func:`host_allowed`).
    paced_bytes : int
        Bytes of large responses under way to their clients at once; past
        it, new ones get 503 (see :class:`~worldgen.web._server.PacedResponses`).
    """
    import numba

    from worldgen.voxel._outputs import thread_safe_workers

    preset = {} if file_data else {"preset": "continents"}  # a file is a map of its own
    worlds = Worlds(file_data or {}, {**preset, **(defaults or {})})
    state = Explorer(
        worlds,
        workers=thread_safe_workers(
            None if workers is None else check_int(workers, "workers", 1, 256)
        ),
        lanes=1 if numba.threading_layer() == "workqueue" else 2,  # see thread_safe_workers
        max_inflight=check_int(max_inflight, "max_inflight", 1, 2**20),
        timeout=check_positive(timeout, "timeout"),
        cache_bytes=check_int(cache_bytes, "cache_bytes", 0, 2**40),
        product=product,
        slow_tile=slow_tile,
    )
    if isinstance(hosts, str) or not all(isinstance(h, str) for h in hosts):
        raise TypeError(f"hosts must be a sequence of host names, got {hosts!r}")
    paced_bytes = check_int(paced_bytes, "paced_bytes", 0, 2**40)

    files = PageFiles(directory=STATIC)

    async def index(request: Request) -> Response:
        return await files.get_response("index.html", request.scope)

    async def spawn_of_world(key: str, world: tuple[MapConfig, dict]) -> list[int]:
        # On the pool: the first search loads kernels (later ones are cached).
        return await state.run(("spawn", key), spawn_of, world[0], what="spawn")

    async def layers(request: Request) -> Response:
        key = worlds.default
        world = worlds.get(key)
        return JSONResponse(_layers(request, key, world, await spawn_of_world(key, world)))

    async def register(request: Request) -> Response:
        try:
            asked = parse_params(_query(request, tuple(PARAMS)))
        except (TypeError, ValueError) as exc:
            raise ClientError(400, str(exc)) from None
        try:  # on the pool: the check samples the noise
            world = await state.run(
                ("world", *sorted(asked.items())),
                worlds.build,
                asked,
                request=request,
                what="world",
            )
        except ClientError as exc:
            raise ClientError(400 if exc.status == 422 else exc.status, str(exc)) from None
        key = worlds.insert(world)
        params = world[1]
        spawn = await spawn_of_world(key, world)
        return JSONResponse(
            {
                "key": key,
                "params": params,
                "seed": str(params["seed"]),
                "layers": _layers(request, key, world, spawn),
                "spawn": spawn,
            }
        )

    async def world_layers(request: Request) -> Response:
        key = request.path_params["key"]
        world = state.world(key)
        return JSONResponse(_layers(request, key, world, await spawn_of_world(key, world)))

    async def tilejson(request: Request) -> Response:
        key, layer = request.path_params["key"], request.path_params["layer"]
        world = state.world(key)
        if layer not in LAYERS:
            raise ClientError(404, f"unknown layer {layer!r}; layers: {', '.join(LAYERS)}")
        spawn = await spawn_of_world(key, world)
        return JSONResponse(_tilejson(request, key, layer, world, spawn))

    async def tile(request: Request) -> Response:
        p = request.path_params
        config = state.world(p["key"])[0]
        try:
            info = check_layer(p["layer"])
        except ValueError as exc:
            raise ClientError(404, str(exc)) from None
        z, x, y = (_tile_int(p[n], f"tile {n}") for n in ("z", "x", "y"))
        if b"%" in request.scope.get("raw_path", b""):  # one URL per tile
            raise ClientError(
                400,
                f"tile URLs are written without percent-encoding: ask for "
                f"/w/{p['key']}/{info.name}/{z}/{x}/{y}.png",
            )
        try:
            check_tile(z, x, y, min_zoom=info.min_zoom)
        except ValueError as exc:
            raise ClientError(404, str(exc)) from None
        cache_key = (p["key"], info.name, z, x, y)
        item = state.cache.get(cache_key)
        if item is None:

            def keep(data: bytes) -> None:
                state.cache.put(cache_key, data)

            args = (config, info.name, z, x, y)
            slow = state.slow_tile(*args)
            data = await state.run(
                cache_key, state.product, *args, keep=keep, request=request, slow=slow
            )
            item = state.cache.get(cache_key) or state.cache.put(cache_key, data)
        data, etag = item
        headers = {"Cache-Control": IMMUTABLE, "ETag": etag}
        # Weak comparison, as RFC 9110 asks for If-None-Match: W/"x" is "x".
        match = request.headers.get("if-none-match", "")
        tags = [t.strip().removeprefix("W/") for t in match.split(",")]
        if etag.removeprefix("W/") in tags or match.strip() == "*":
            return Response(status_code=304, headers=headers)
        return Response(data, media_type="image/png", headers=headers)

    async def point(request: Request) -> Response:
        key = request.path_params["key"]
        config = state.world(key)[0]
        q = _query(request, ("x", "z"))
        x, z = _int(q.get("x"), "x", HALF), _int(q.get("z"), "z", HALF)
        info = await state.run(
            ("point", key, x, z), point_info, config, x, z, request=request,
            slow=point_is_slow(config, x, z), what="point read-out",
        )  # fmt: skip
        return JSONResponse(info)

    async def chunks(request: Request) -> Response:
        from worldgen.web._voxels import chunk_meshes

        key = request.path_params["key"]
        config = state.world(key)[0]
        q = _query(request, ("x", "z", "radius"))
        x, z = _int(q.get("x"), "x", HALF), _int(q.get("z"), "z", HALF)
        radius = _int(q.get("radius", "32"), "radius")
        if not 1 <= radius <= MAX_CHUNK_RADIUS:
            raise ClientError(
                400, f"radius must be from 1 to {MAX_CHUNK_RADIUS} blocks, got {radius}"
            )
        data = await state.run(
            ("chunks", key, x, z, radius), chunk_meshes, config, x, z, radius,
            request=request, slow=True, what="chunks",
        )  # fmt: skip
        return Response(data, media_type="application/json")

    async def export(request: Request) -> Response:
        from worldgen.web._export import export_note, export_window, export_zip
        from worldgen.world._window import REACH

        key = request.path_params["key"]
        config = state.world(key)[0]
        q = _query(request, ("x", "z", "width", "height"))
        box = [_int(q.get(n), n, REACH) for n in ("x", "z")]
        box += [_int(q.get(n), n, 2**40) for n in ("width", "height")]
        try:
            x, z, w, h = export_window(*box)
        except ValueError as exc:
            raise ClientError(400, str(exc)) from None
        data = await state.run(
            ("export", key, x, z, w, h), export_zip, config, x, z, w, h,
            request=request, stoppable=True, slow=True, what="export",
        )  # fmt: skip
        name = f"worldgen-{key[:8]}-{x}_{z}-{w}x{h}.zip"
        headers = {
            "Content-Disposition": f'attachment; filename="{name}"',
            "X-Worldgen-Window": f"{w} x {h} cells from {x}, {z}",
            "X-Worldgen-Note": export_note(*box),
        }
        return Response(data, media_type="application/zip", headers=headers)

    async def client_error(request: Request, exc: ClientError) -> Response:
        headers = {"Retry-After": "1"} if exc.status == 503 else None
        response = _error(exc.status, str(exc))
        if headers:
            response.headers.update(headers)
        return response

    async def http_error(request: Request, exc: HTTPException) -> Response:
        response = _error(exc.status_code, exc.detail)
        response.headers.update(exc.headers or {})  # a 405's Allow
        return response

    async def gone(request: Request, exc: Gone) -> Response:
        return Response(status_code=499)  # nobody reads it

    async def server_error(request: Request, exc: Exception) -> Response:
        return _error(500, f"internal error ({type(exc).__name__}); please report it")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        yield
        state.close()

    routes = [
        Route("/", index),
        Route("/layers", layers),
        Route("/worlds", register),
        Route("/w/{key}/layers", world_layers),
        Route("/w/{key}/point", point),
        Route("/w/{key}/chunks", chunks),
        Route("/w/{key}/export", export),
        Route("/w/{key}/{layer}.json", tilejson),
        Route("/w/{key}/{layer}/{z}/{x}/{y}.png", tile),
        Mount("/static", JsonErrors(files), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(HostCheck, hosts=tuple(hosts)),
            Middleware(PacedResponses, budget=paced_bytes),
        ],
        exception_handlers={
            ClientError: client_error,
            Gone: gone,
            HTTPException: http_error,
            Exception: server_error,
        },
        lifespan=lifespan,
    )
    app.state.explorer = state
    return app
