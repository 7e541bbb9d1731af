"""The explorer's HTTP surface, through the ASGI test client."""

import asyncio
import json
import logging
import re
import subprocess
import sys
import threading

import httpx2
import pytest
from starlette.testclient import TestClient

from worldgen import ParameterError
from worldgen.web import LAYERS, NATIVE_ZOOM, _app, build_config, create_app, tile_png, world_key
from worldgen.web._app import TileCache, host_allowed

CENTRE = 2 ** (NATIVE_ZOOM - 1)


@pytest.fixture(scope="module")
def client():
    # A generous time limit: the first tiles compile the kernels they use.
    app = create_app(defaults={"seed": 2}, timeout=600.0)
    with TestClient(app, base_url="http://localhost") as c:
        yield c


@pytest.fixture(scope="module")
def key(client):
    return client.get("/layers").json()[0]["worldgen"]["key"]


@pytest.mark.parametrize(
    "url",
    ["/", "/static/js/main.js", "/static/explorer.css", "/static/vendor/three/three.module.js"],
)
def test_the_pages_files_are_checked_before_each_use(client, url):
    # Unversioned URLs: a browser kept the scripts it guessed fresh (from
    # their age) past an upgrade, beside the new page. Now it asks each
    # time, and an unchanged file is a 304.
    r = client.get(url)
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache"
    again = client.get(url, headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


def test_layers_are_tilejson_3(client, key):
    docs = client.get("/layers").json()
    assert [d["name"] for d in docs] == list(LAYERS)
    for doc in docs:
        assert doc["tilejson"] == "3.0.0"
        assert doc["tiles"] == [f"http://localhost/w/{key}/{doc['name']}/{{z}}/{{x}}/{{y}}.png"]
        assert 0 <= doc["minzoom"] <= doc["maxzoom"] == NATIVE_ZOOM
        assert len(doc["bounds"]) == 4
    assert {d["name"]: d.get("encoding") for d in docs}["height"] == "terrarium"
    one = client.get(f"/w/{key}/height.json").json()
    assert one == docs[2]


def test_tilejson_centres_on_the_spawn(client, key):
    """A map library opening a layer's TileJSON lands where the page does,
    on the world's spawn; ``center`` was world cell (0, 0), open ocean in
    most worlds."""
    from worldgen.web._tiles import lnglat_to_cell
    from worldgen.web._worlds import spawn_of

    spawn = spawn_of(build_config({}, {"preset": "continents", "seed": 2}))
    assert spawn != [0, 0]
    for doc in client.get("/layers").json():
        lng, lat, zoom = doc["center"]
        x, z = lnglat_to_cell(lng, lat)
        assert abs(x - spawn[0]) < 1e-3 and abs(z - spawn[1]) < 1e-3, (doc["name"], x, z)
        assert zoom == NATIVE_ZOOM - 1


def test_tile_bytes_are_the_librarys_and_cached_forever(client, key):
    config = build_config({}, {"preset": "continents", "seed": 2})
    assert key == world_key(config)
    for layer in LAYERS:
        url = f"/w/{key}/{layer}/{NATIVE_ZOOM}/{CENTRE}/{CENTRE - 1}.png"
        r = client.get(url)
        assert r.status_code == 200
        assert r.headers["content-type"] == "image/png"
        assert r.content == tile_png(config, layer, NATIVE_ZOOM, CENTRE, CENTRE - 1)
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
        etag = r.headers["etag"]
        assert re.fullmatch(r'"[0-9a-f]{32}"', etag)  # strong
        again = client.get(url, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == etag
        other = client.get(url, headers={"If-None-Match": '"0123"'})
        assert other.status_code == 200 and other.content == r.content
        listed = client.get(url, headers={"If-None-Match": f'"0123", {etag} ,"4567"'})
        assert listed.status_code == 304  # one of a list matches
        assert client.get(url, headers={"If-None-Match": "*"}).status_code == 304
        near = client.get(url, headers={"If-None-Match": etag[:-2] + '"'})
        assert near.status_code == 200
        weak = client.get(url, headers={"If-None-Match": f"W/{etag}"})
        assert weak.status_code == 304  # If-None-Match compares weakly (RFC 9110)


def test_page_worlds_get_their_own_keys_and_tiles(client, key):
    r = client.get("/worlds?seed=11&octaves=4&sea=0.45&preset=classic-islands")
    assert r.status_code == 200
    body = r.json()
    assert body["key"] != key
    assert body["params"]["seed"] == 11 and body["params"]["sea"] == pytest.approx(0.45)
    config = build_config({}, {"seed": 11, "octaves": 4, "sea": 0.45, "preset": "classic-islands"})
    tile = client.get(f"/w/{body['key']}/colour/9/255/256.png")
    assert tile.content == tile_png(config, "colour", 9, 255, 256)
    assert client.get("/worlds").json()["key"] == key  # no parameters: the server's world


def test_a_classic_maps_voxel_layer_says_whose_world_it_shows(client, key):
    # A classic map has no voxel world: its voxel tiles and chunks are the
    # default world's of its seed, which the layer's TileJSON says.
    body = client.get("/worlds?preset=classic-islands&seed=11").json()
    voxel = {d["name"]: d for d in body["layers"]}["voxel"]
    note = voxel["worldgen"]["note"]
    assert "default world" in note and "seed 11" in note and "no voxel world" in note
    assert client.get(f"/w/{body['key']}/voxel.json").json() == voxel
    assert [d["name"] for d in body["layers"] if "note" in d["worldgen"]] == ["voxel"]
    world = client.get("/worlds?preset=islands&seed=11").json()
    assert not any("note" in d["worldgen"] for d in world["layers"])


def test_point_readout(client, key):
    r = client.get(f"/w/{key}/point?x=-7&z=12").json()
    assert (r["x"], r["z"]) == (-7, 12)
    assert 0.0 <= r["height"] <= 1.0 and isinstance(r["biome"], str)


def test_chunks_are_bounded_meshes(client, key):
    r = client.get(f"/w/{key}/chunks?x=5&z=-3&radius=8")
    body = r.json()
    assert body["origin"] == [-3, -11] and body["size"] == 16
    solid = body["solid"]
    assert len(solid["positions"]) == len(solid["colours"]) > 0
    assert len(solid["positions"]) % 9 == 0  # whole triangles
    xs = solid["positions"][0::3]
    assert min(xs) >= -3 and max(xs) <= 13


BAD = [
    ("/w/{key}/rivers/3/0/0.png", 404, "layer must be one of"),
    ("/w/{key}/colour/17/0/0.png", 404, "tile z must be from 0 to 16"),
    ("/w/{key}/colour/-1/0/0.png", 400, "tile z must be an integer in ASCII digits with no sign"),
    ("/w/{key}/colour/3/8/0.png", 404, "tile x must be from 0 to 7"),
    ("/w/{key}/colour/3/0/-1.png", 400, "tile y must be an integer in ASCII digits"),
    # One URL per tile: no space, sign, underscore, leading zero or other digits.
    ("/w/{key}/colour/3/%200/0.png", 400, "tile x must be an integer in ASCII digits"),
    ("/w/{key}/colour/3/+1/0.png", 400, "tile x must be an integer in ASCII digits"),
    ("/w/{key}/colour/3/1_0/0.png", 400, "tile x must be an integer in ASCII digits"),
    ("/w/{key}/colour/3/%D9%A3/0.png", 400, "tile x must be an integer in ASCII digits"),
    ("/w/{key}/colour/3/0/01.png", 400, "tile y must be an integer in ASCII digits"),
    ("/w/{key}/colour/3/0/1%0A.png", 400, "tile y must be an integer in ASCII digits"),
    ("/w/{key}/colour/3/%31/0.png", 400, "tile URLs are written without percent-encoding"),
    ("/w/{key}/%63olour/3/1/0.png", 400, "/colour/3/1/0.png"),
    ("/w/{key}/point?x=%201&z=1", 400, "x must be an integer (ASCII digits"),
    ("/w/{key}/point?x=1_0&z=1", 400, "x must be an integer (ASCII digits"),
    ("/w/{key}/point?x=1&z=%D9%A3", 400, "z must be an integer (ASCII digits"),
    ("/w/{key}/point?z=1", 400, "x is required: an integer"),
    ("/w/{key}/point?x=1&z=" + "9" * 32, 400, "z must be within +-"),
    ("/w/{key}/point?x=-" + "1" * 31 + "&z=1", 400, "x must be within +-"),
    ("/w/{key}/chunks?x=1&z=1&radius=+8", 400, "radius must be an integer"),
    ("/w/{key}/colour/3/1.5/0.png", 400, "tile x must be an integer"),
    ("/w/{key}/colour/z/0/0.png", 400, "tile z must be an integer"),
    ("/w/{key}/colour/3/0/99999999999999999999999999.png", 400, "tile y must be within"),
    ("/w/{key}/voxel/11/0/0.png", 404, "tile z must be from 12 to 16"),
    ("/w/0123456789abcdef0123/colour/3/0/0.png", 404, "unknown world"),
    ("/w/nope/layers", 404, "unknown world"),
    ("/w/{key}/nope.json", 404, "unknown layer"),
    ("/worlds?seed=abc", 400, "seed must be an integer"),
    ("/worlds?seed=1_000", 400, "seed must be an integer in plain digits"),
    ("/worlds?seed=%201", 400, "seed must be an integer in plain digits"),
    ("/worlds?seed=%D9%A3", 400, "seed must be an integer in plain digits"),  # Arabic-Indic 3
    ("/worlds?relief=2_40", 400, "relief must be a number in plain digits"),
    ("/worlds?seed=99999999999999999999999", 400, "seed"),
    ("/worlds?scale=-1&preset=classic", 400, "scale"),
    ("/worlds?scale=nan&preset=classic", 400, "scale"),
    ("/worlds?scale=1e308&preset=classic", 400, "use a smaller scale"),
    ("/worlds?octaves=1000&preset=classic", 400, "octaves"),
    ("/worlds?sea=1.5&preset=classic", 400, "sea must be a number between 0 and 1"),
    ("/worlds?preset=moon", 400, "preset must be one of"),
    ("/worlds?colour=red", 400, "unknown parameter 'colour'"),
    ("/worlds?scale=50", 400, "scale applies to the classic presets"),
    ("/worlds?preset=classic&land_fraction=0.3", 400, "land_fraction applies to the world"),
    ("/worlds?land_fraction=0.9", 400, "land_fraction"),
    ("/worlds?continent_size=5000", 400, "continent_size must be a power of two"),
    ("/w/{key}/point?x=1", 400, "z is required"),
    ("/w/{key}/point?x=1&z=1e999", 400, "z must be an integer"),
    ("/w/{key}/point?x=1&z=99999999999", 400, "z must be within"),
    ("/worlds?scale=1e-300&preset=classic", 400, "scale=1e-300"),
    ("/worlds?scale=1e-9&preset=classic", 400, "cannot be sampled over the whole map"),
    ("/worlds?octaves=32&lacunarity=4&preset=classic", 400, "lacunarity=4.0 with octaves=32"),
    ("/w/{key}/chunks?x=1&z=1&radius=500", 400, "radius must be from 1 to 64"),
    ("/w/{key}/chunks?x=1&z=1&radius=0", 400, "radius must be from 1 to 64"),
    ("/w/{key}/chunks?x=1&z=1&radius=-3", 400, "radius must be from 1 to 64"),
    ("/worlds?sea=0&preset=classic", 400, "sea must be a number between 0 and 1"),
    ("/worlds?sea=5e-324&preset=classic", 400, "sea=5e-324 leaves no room between the height"),
    ("/worlds?sea=0.9999999999999999&preset=classic", 400, "choose a sea level further from 0"),
    ("/worlds?sea=-0.5&preset=classic", 400, "sea must be a number between 0 and 1"),
    ("/worlds?seed=-99999999999999999999999", 400, "seed"),
    ("/worlds?seed=" + "9" * 5000, 400, "seed must be an integer of at most 30 digits"),
    ("/worlds?octaves=-" + "1" * 4400, 400, "octaves must be an integer of at most 30"),
    ("/worlds?octaves=-5", 400, "octaves"),
    ("/worlds?scale=-1e308", 400, "scale"),
    ("/w/{key}/point?x=-99999999999&z=0", 400, "x must be within"),
    ("/w/{key}/export?x=-99999999999999&z=0&width=5&height=5", 400, "x must be within"),
    ("/w/{key}/export?x=1099511627776&z=0&width=1&height=1", 400, "x must be within"),
    ("/w/{key}/export?x=0&z=-549755813889&width=1&height=1", 400, "z must be within"),
    ("/w/{key}/export?x=0&z=0&width=-5&height=5", 400, "width must be"),
    ("/w/{key}/export?x=0&z=0&width=0&height=5", 400, "width must be"),
    ("/w/{key}/export?x=0&z=0&width=5", 400, "height is required"),
    # The centre exported of a wide view starts past the reach that x had.
    (
        "/w/{key}/export?x=549755813888&z=0&width=1099511627776&height=1",
        400,
        "x + (width - 1024) // 2 = 1099511627264, where the exported centre starts, must be",
    ),
    (
        "/w/{key}/export?x=0&z=549755813888&width=1&height=2048",
        400,
        "z + (height - 1024) // 2 = 549755814400, where",
    ),
    # A misspelt or repeated parameter is not passed over.
    ("/w/{key}/chunks?x=1&z=1&radious=8", 400, "unknown parameter 'radious'; valid: x, z, radius"),
    ("/w/{key}/point?x=1&z=1&x=2", 400, "x is given twice; give it once"),
    ("/w/{key}/export?x=0&z=0&width=5&height=5&format=tif", 400, "unknown parameter 'format'"),
    ("/worlds?seed=1&seed=2", 400, "seed is given twice; give it once"),
    ("/no/such/page", 404, "Not Found"),
]


@pytest.mark.parametrize(("url", "status", "message"), BAD)
def test_bad_input_is_a_one_line_json_4xx(client, key, url, status, message):
    r = client.get(url.format(key=key))
    assert r.status_code == status
    assert r.headers["content-type"] == "application/json"
    assert "\n" not in r.text and "Traceback" not in r.text
    assert message in json.loads(r.text)["error"]


def test_export_says_what_it_holds(client, key):
    whole = client.get(f"/w/{key}/export?x=-3&z=7&width=20&height=12")
    assert whole.status_code == 200
    assert whole.headers["x-worldgen-note"] == "the whole view: 20 x 12 cells"
    assert whole.headers["x-worldgen-window"] == "20 x 12 cells from -3, 7"
    cut = client.get(f"/w/{key}/export?x=0&z=0&width=3000&height=10")
    assert cut.headers["x-worldgen-window"] == "1024 x 10 cells from 988, 0"
    assert cut.headers["x-worldgen-note"].startswith(
        "the centre 1024 x 10 cells of the 3000 x 10 cells in view (an export holds at most 1024"
    )


def test_exports_at_the_ends_of_their_reach_are_made(client, key):
    # Up to REACH from the centre; the margins the map set adds
    # stay within a window's reach (they gave a 422 past 2^40 - 10^4).
    for x, z in ((-(2**39), 2**39 - 16), (2**39, -(2**39))):
        r = client.get(f"/w/{key}/export?x={x}&z={z}&width=16&height=16")
        assert r.status_code == 200, r.text


def test_errors_echo_what_was_sent_cut_short(client, key):
    digits = "9" * 60000
    for url in (f"/w/{key}/colour/0/0/{digits}.png", f"/w/{key}/point?x={digits}&z=0"):
        r = client.get(url)
        assert r.status_code == 400
        error = r.json()["error"]
        assert len(error) <= _app.ERROR_CHARS and " ... " in error, error


def test_wrong_method_is_a_json_405(client):
    r = client.post("/layers")
    assert r.status_code == 405 and "error" in r.json()
    # The methods it allows, as RFC 9110 asks of a 405 (in any order).
    assert {m.strip() for m in r.headers["allow"].split(",")} == {"GET", "HEAD"}


def _gated_product():
    """A tile product that waits for a gate, so tests control the load."""
    gate = threading.Event()

    def product(config, layer, z, x, y):
        gate.wait(10)
        return b"tile %d %d %d" % (z, x, y)

    return gate, product


def test_bound_on_inflight_work_gives_503_and_time_limit_504():
    gate, slow = _gated_product()
    calls = []

    def product(*args):
        calls.append(args[2:])
        return slow(*args)

    app = create_app(workers=1, max_inflight=2, timeout=0.5, product=product)
    key = app.state.explorer.worlds.default

    async def flood():
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://localhost") as c:
            urls = [f"/w/{key}/colour/5/{i}/0.png" for i in range(6)]
            first = await asyncio.gather(*(c.get(u) for u in urls))
            gate.set()
            await asyncio.sleep(0.2)
            while app.state.explorer.inflight:
                await asyncio.sleep(0.05)
            later = await c.get(urls[0])
            return [r.status_code for r in first], later, first

    codes, later, first = asyncio.run(flood())
    assert sorted(codes) == [503, 503, 503, 503, 504, 504]
    assert all("error" in r.json() for r in first)
    busy = [r.json()["error"] for r in first if r.status_code == 503]
    assert busy[0] == "server busy: too much work under way to start this tile; retry soon"
    # The slow tile finished after its 504 and was kept: not made again.
    assert later.status_code == 200 and later.content == b"tile 5 0 0"
    assert calls.count((5, 0, 0)) == 1 and len(calls) == 2
    app.state.explorer.pool.shutdown()


def test_work_stopped_at_the_time_limit_says_what_and_how_to_get_it(monkeypatch):
    # Chunks (as exports) are dropped at their 504: a retry would start over.
    from worldgen.web import _voxels

    gate = threading.Event()
    monkeypatch.setattr(_voxels, "chunk_meshes", lambda *args: gate.wait(10) and b"{}")
    app = create_app(timeout=0.3, product=lambda *args: gate.wait(10) and b"tile")
    try:
        with TestClient(app, base_url="http://localhost") as c:
            key = app.state.explorer.worlds.default
            chunks = c.get(f"/w/{key}/chunks?x=0&z=0&radius=4")
            tile = c.get(f"/w/{key}/colour/3/0/0.png")
    finally:
        gate.set()
    assert chunks.status_code == 504
    assert chunks.json()["error"] == (
        "chunks took longer than 0.3 s, the server's time limit, and was stopped: ask for "
        "less, or start the server with a longer --timeout"
    )
    assert tile.status_code == 504  # kept once made: a retry gets it
    assert tile.json()["error"] == "tile took longer than 0.3 s; retry"


def test_a_refusal_of_the_library_is_a_422_not_a_crash():
    def product(config, layer, z, x, y):
        raise ParameterError("coordinates are too large", "x")

    with TestClient(create_app(product=product), base_url="http://localhost") as c:
        key = c.get("/layers").json()[0]["worldgen"]["key"]
        r = c.get(f"/w/{key}/colour/3/0/0.png")
    assert r.status_code == 422 and r.json() == {"error": "coordinates are too large"}


@pytest.mark.parametrize("error", [ValueError, TypeError, KeyError])
def test_a_fault_in_a_computation_is_a_logged_500_not_the_clients_error(caplog, error):
    # Any ValueError or TypeError was a 422: a bug looked like a bad request.
    def product(config, layer, z, x, y):
        raise error("secret detail of the fault")

    with TestClient(create_app(product=product), base_url="http://localhost") as c:
        key = c.get("/layers").json()[0]["worldgen"]["key"]
        r = c.get(f"/w/{key}/colour/3/0/0.png")
    assert r.status_code == 500
    assert r.json() == {"error": "internal error making this tile; please report it"}
    faults = [rec for rec in caplog.records if rec.name == "worldgen.web"]
    assert len(faults) == 1 and faults[0].levelno == logging.ERROR
    assert "secret detail of the fault" in caplog.text and "Traceback" in caplog.text
    assert "in product" in caplog.text  # the worker's frames, not only the await


def _same_tile_at_once(app, gate: threading.Event, count: int) -> list:
    """The answers to ``count`` requests for one tile sent at once, ``gate``
    (the product's) opened once they all wait."""
    key = app.state.explorer.worlds.default

    async def same():
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://localhost") as c:
            url = f"/w/{key}/colour/5/1/1.png"
            pending = [asyncio.ensure_future(c.get(url)) for _ in range(count)]
            await asyncio.sleep(0.2)
            gate.set()
            return await asyncio.gather(*pending)

    return asyncio.run(same())


def test_a_fault_shared_by_requests_that_waited_for_it_is_logged_once(caplog):
    gate, slow = _gated_product()

    def product(*args):
        slow(*args)
        raise ValueError("a bug")

    app = create_app(workers=2, product=product)
    responses = _same_tile_at_once(app, gate, 3)
    assert [r.status_code for r in responses] == [500] * 3
    assert len([r for r in caplog.records if r.name == "worldgen.web"]) == 1
    app.state.explorer.pool.shutdown()


def test_same_tile_requested_at_once_is_made_once():
    calls = []
    gate, slow = _gated_product()

    def product(*args):
        calls.append(args)
        return slow(*args)

    app = create_app(workers=2, max_inflight=1, product=product)
    responses = _same_tile_at_once(app, gate, 5)
    assert [r.status_code for r in responses] == [200] * 5  # none refused: one computation
    assert len(calls) == 1
    app.state.explorer.pool.shutdown()


def test_tile_cache_evicts_as_many_as_it_takes():
    cache = TileCache(capacity=10)
    for key in "abc":
        cache.put(key, b"123")
    cache.put("big", b"x" * 9)  # needs all three out
    assert [cache.get(k) is None for k in "abc"] == [True, True, True]
    assert cache.get("big") is not None and cache.size == 9 and len(cache) == 1


def test_tile_cache_is_bounded_and_least_recently_used():
    cache = TileCache(capacity=10)
    cache.put("a", b"1234")
    cache.put("b", b"1234")
    assert cache.get("a") is not None  # a is now the most recent
    cache.put("c", b"1234")
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("c") is not None
    assert cache.size == 8 and len(cache) == 2
    cache.put("huge", b"x" * 11)
    assert cache.get("huge") is None and cache.size == 8


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"max_inflight": 0}, "max_inflight"),
        ({"timeout": -1.0}, "timeout"),
        ({"workers": 0}, "workers"),
    ],
)
def test_bad_server_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        create_app(**kwargs)


def test_a_config_file_alone_is_the_servers_world():
    # As `worldgen map --config`: the file's map, with a preset only if one
    # is asked for (the continents world took the place of a classic file's).
    classic = {"terrain": {"seed": 7, "scale": 300.0, "octaves": 3}}
    worlds = create_app(classic).state.explorer.worlds
    params = worlds.get(worlds.default)[1]
    assert (params["preset"], params["seed"], params["scale"], params["octaves"]) == (
        "none",
        7,
        300.0,
        3,
    )
    worlds = create_app(classic, {"preset": "islands"}).state.explorer.worlds
    assert worlds.get(worlds.default)[1]["preset"] == "islands"
    worlds = create_app().state.explorer.worlds
    assert worlds.get(worlds.default)[1]["preset"] == "continents"  # no file: the default world


def test_worlds_send_the_seed_as_a_string_too(client):
    # A JSON number past 2**53 is rounded in a browser; the string is exact.
    for asked, seed in [("9007199254740993", 2**53 + 1), ("-5", 2**64 - 5)]:
        body = client.get(f"/worlds?seed={asked}").json()
        assert body["seed"] == str(seed)
        assert body["params"]["seed"] == seed  # the number, as before
        again = client.get(f"/worlds?seed={body['seed']}").json()
        assert again["key"] == body["key"]


@pytest.mark.parametrize("name", ["land_fraction", "relief", "continent_size"])
def test_the_pages_bounds_are_the_servers(client, name):
    # The panel's input takes what the world takes, and no more.
    page = client.get("/").text
    tag = re.search(rf'<input name="{name}"[^>]*>', page).group(0)
    lo, hi = (float(re.search(rf'{end}="([^"]+)"', tag).group(1)) for end in ("min", "max"))
    for value, ok in [(lo, True), (hi, True), (lo - 0.001, False), (hi + 0.001, False)]:
        r = client.get(f"/worlds?preset=continents&{name}={value:.12g}")
        assert (r.status_code == 200) == ok, (value, r.text)


def test_serve_command_listens_on_loopback_and_prints_its_url():
    command = [sys.executable, "-m", "worldgen.cli", "serve", "--seed", "5", "--port", "0"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as proc:
        try:
            line = proc.stdout.readline()
            url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
            r = httpx2.get(url + "layers", timeout=30)
            assert r.status_code == 200
            assert r.json()[0]["worldgen"]["params"]["seed"] == 5
            assert httpx2.get(url, timeout=30).text.startswith("<!doctype html>")
        finally:
            proc.terminate()
            proc.wait(10)


def test_serve_command_rejects_a_bad_port():
    from typer.testing import CliRunner

    from worldgen.cli import app

    result = CliRunner().invoke(app, ["serve", "--port", "70000"])
    assert result.exit_code == 1
    assert result.output == "error: --port must be from 0 to 65535, got 70000\n"
    result = CliRunner().invoke(app, ["serve", "--timeout", "-1"])
    assert result.output == "error: --timeout must be a finite number > 0, got -1.0\n"


def test_serve_command_says_an_ipv6_host_goes_without_brackets():
    from typer.testing import CliRunner

    from worldgen.cli import app

    result = CliRunner().invoke(app, ["serve", "--host", "[::1]"])
    assert result.exit_code == 1
    assert (
        "error: --host must be an address or name such as 127.0.0.1 or ::1 (no brackets), got '[::1]'"
        in result.output
    )


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("localhost:8000", True),
        ("LOCALHOST", True),
        ("127.0.0.1:5", True),
        ("127.3.2.1", True),
        ("[::1]:8000", True),
        ("", False),
        (":8000", False),
        ("[]:80", False),
        ("192.168.1.5:8000", False),  # private, not this machine's loopback
        ("10.0.0.1", False),
        ("[fe80::1]:80", False),
        ("0.0.0.0", False),
        ("evil.example", False),
        ("localhost.evil.example", False),
    ],
)
def test_only_loopback_names_are_this_server(host, allowed):
    assert host_allowed(host) is allowed
    assert host_allowed("worldgen.lan:80", extra=("worldgen.lan",))


@pytest.mark.parametrize("every", ["0.0.0.0", "::"])
def test_a_server_on_every_address_is_opened_by_any_address(every):
    # --host 0.0.0.0 to show the world on another machine: that machine
    # names the server by its address, which no other site can point here.
    # An app per client: a client's end shuts its app's pools down.
    for host in ("192.168.1.5:8000", "[fe80::1]:80", "10.0.0.1"):
        with TestClient(create_app(hosts=(every,)), base_url=f"http://{host}") as c:
            assert c.get("/layers").status_code == 200, host
    with TestClient(create_app(hosts=(every,)), base_url="http://evil.example") as c:
        refused = c.get("/layers")
    assert refused.status_code == 400
    assert refused.json()["error"].endswith("[::1], an address of this machine")
    assert not host_allowed("evil.example", extra=(every,))


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:8000/"),  # browsers do not open 0.0.0.0
        ("::", "http://[::1]:8000/"),
        ("::1", "http://[::1]:8000/"),
        ("localhost", "http://localhost:8000/"),
        ("192.168.1.5", "http://192.168.1.5:8000/"),
    ],
)
def test_the_url_shown_opens_the_page(host, url):
    from worldgen.web._server import page_url

    assert page_url(host, 8000) == url


def test_a_foreign_host_is_told_each_name_once():
    # The server's own bind address may be a loopback name already listed.
    app = create_app(hosts=("127.0.0.1", "worldgen.lan"))
    with TestClient(app, base_url="http://evil.example") as c:
        answer = c.get("/worlds")
    assert answer.status_code == 400
    message = answer.json()["error"]
    assert "worldgen.lan" in message and message.count("127.0.0.1") == 1, message


def test_quick_tiles_are_not_held_up_by_slow_ones():
    # A tile that solves landmasses first (here: any zoom-10 tile, gated)
    # runs on the pool of slow work; quick tiles keep their own threads.
    gate, gated = _gated_product()

    def product(config, layer, z, x, y):
        if z == 10:
            return gated(config, layer, z, x, y)
        return b"quick %d" % z

    app = create_app(
        workers=1, timeout=5.0, product=product, slow_tile=lambda c, layer, z, x, y: z == 10
    )
    key = app.state.explorer.worlds.default

    async def both():
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://localhost") as c:
            slow = [asyncio.ensure_future(c.get(f"/w/{key}/colour/10/{i}/0.png")) for i in (1, 2)]
            await asyncio.sleep(0.1)
            quick = await c.get(f"/w/{key}/colour/3/0/0.png")
            waiting = not any(s.done() for s in slow)
            gate.set()
            return quick, waiting, await asyncio.gather(*slow)

    quick, waiting, slow = asyncio.run(both())
    assert quick.status_code == 200 and quick.content == b"quick 3"
    assert waiting  # the quick tile came back while the slow ones were still in the making
    assert [r.status_code for r in slow] == [200, 200]
    app.state.explorer.close()


def test_a_tile_is_slow_until_its_landmasses_are_solved():
    from worldgen.web import _products
    from worldgen.web._tiles import HALF
    from worldgen.world import _drainage, spawn

    config = build_config({}, {"preset": "continents", "seed": 0})
    x0, y0 = spawn(config.world)
    z = 8  # rivers drawn, a sample of 256 cells
    step = 2 ** (NATIVE_ZOOM - z)
    x, y = (x0 + HALF) // (256 * step), (y0 + HALF) // (256 * step)
    _drainage.network.cache_clear()
    assert _products.tile_is_slow(config, "colour", z, x, y)
    assert _products.tile_is_slow(config, "voxel", 16, CENTRE, CENTRE)
    assert not _products.tile_is_slow(config, "colour", 4, 0, 0)  # no rivers drawn at zoom 4
    assert _products.point_is_slow(config, x0, y0)
    tile_png(config, "colour", z, x, y)  # solves them
    assert not _products.tile_is_slow(config, "colour", z, x, y)
    assert not _products.point_is_slow(config, x0, y0)
    assert not _products.tile_is_slow(build_config({}, {"preset": "classic"}), "colour", z, x, y)


@pytest.mark.parametrize(
    ("range_", "status", "message"),
    [
        ("bytes=999999999-", 416, "Requested Range Not Satisfiable"),
        ("bytes=abc", 400, "Range header: range must be requested"),
        ("bytes=5-2", 400, "Range header: start must be less than end"),
    ],
)
def test_a_bad_range_of_a_static_file_is_a_one_line_json_4xx(client, range_, status, message):
    # The static files answered these in plain text (416 with no body).
    r = client.get("/static/explorer.css", headers={"Range": range_})
    assert r.status_code == status and r.headers["content-type"] == "application/json"
    assert "\n" not in r.text and message in r.json()["error"]
    if status == 416:
        assert r.headers["content-range"].startswith("bytes */")
    whole = client.get("/static/explorer.css")
    part = client.get("/static/explorer.css", headers={"Range": "bytes=0-5"})
    assert part.status_code == 206 and part.content == whole.content[:6]


def test_the_page_offers_every_preset_a_world_can_have():
    # A server started with --config has the preset 'none', which the
    # page's menu lacked: it showed blank.
    import html.parser

    from worldgen.config import PRESETS
    from worldgen.web._app import STATIC

    values = []

    class Options(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "option":
                values.append(dict(attrs)["value"])

    Options().feed((STATIC / "index.html").read_text())
    assert sorted(values) == sorted([*PRESETS, "none"])
