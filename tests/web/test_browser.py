"""The explorer page in a real Chromium (Debian's), driven by Playwright.

Skipped only where no Chromium can be had; set ``WORLDGEN_CHROMIUM`` to a
browser binary to use another one. With ``WORLDGEN_SCREENSHOT=PATH`` the
first test also writes its screenshot there (the README's picture is made
so: ``WORLDGEN_SCREENSHOT=docs/explorer.png pytest tests/web/test_browser.py``).
"""

import io
import os
import pathlib
import shutil
import socket
import threading
import time
import urllib.parse
import zipfile

import numpy as np
import pytest
from PIL import Image

from worldgen.web import create_app
from worldgen.web._app import STATIC
from worldgen.world import WorldConfig, spawn

CHROMIUM = os.environ.get("WORLDGEN_CHROMIUM") or next(
    filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium here (.ci/run installs Debian's chromium package)"
)
# WebGL without a GPU: Chromium's software rasteriser.
FLAGS = ["--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist"]
MAP = {"x": 240, "y": 0, "width": 860, "height": 620}  # the map's part of the page
LOADED = "window.explorer && window.explorer.ready && window.explorer.map.areTilesLoaded()"
# Milliseconds a view may take to load: a new world's far-out view solves many
# landmasses, and the tests share the machine with other work.
LOAD_LIMIT = 180_000
SEA = np.array([0x1D, 0x2A, 0x44])  # the map's background colour
SPAWN = spawn(WorldConfig(seed=0))  # where the page opens without x and z
WATER = [np.array(c) for c in ((40, 70, 150), (60, 110, 190))]  # the water bands' colours


@pytest.fixture(scope="module")
def server():
    import uvicorn

    assert (STATIC / "vendor" / "maplibre-gl" / "maplibre-gl.mjs").exists(), (
        "the page's libraries are missing: they are committed under static/vendor "
        "(scripts/refresh_vendor.py remakes them)"
    )
    app = create_app(defaults={"seed": 0})
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    server.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


class Page:
    """A page of the explorer with its console errors and tile requests."""

    def __init__(self, browser, server):
        self.context = browser.new_context(viewport={"width": 1100, "height": 620})
        self.page = self.context.new_page()
        self.errors = []
        self.tiles = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("requestfinished", self._finished)
        self.server = server

    def _finished(self, request):
        if request.url.endswith(".png") and "/w/" in request.url:
            self.tiles.append(request.url)

    def open(self, hash_=""):
        self.page.goto(self.server + hash_)
        self.wait()

    def wait(self):
        self.page.wait_for_function(LOADED, timeout=LOAD_LIMIT)
        time.sleep(0.3)  # one more frame drawn
        self.page.wait_for_function(LOADED, timeout=LOAD_LIMIT)

    def map_pixels(self, clip: dict | None = MAP) -> np.ndarray:
        """The map's part of the page as RGB (``clip=None``: the whole window)."""
        png = self.page.screenshot(clip=clip)
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)

    def state(self) -> dict:
        return dict(urllib.parse.parse_qsl(self.page.evaluate("window.location.hash")[1:]))

    def close(self):
        self.context.close()


@pytest.fixture
def page(browser, server):
    p = Page(browser, server)
    yield p
    p.close()


def shows_terrain(pixels: np.ndarray) -> bool:
    """More than a background: many colours, mostly not the empty sea."""
    distinct = len(np.unique(pixels.reshape(-1, 3), axis=0))
    background = np.all(np.abs(pixels - SEA) <= 2, axis=-1).mean()
    return distinct > 200 and background < 0.5


def test_page_loads_without_errors_and_shows_tiles(page, tmp_path):
    page.open("#zoom=15")
    pixels = page.map_pixels()
    assert shows_terrain(pixels)
    assert len(page.tiles) >= 4
    assert page.errors == []
    shot = tmp_path / "explorer.png"
    page.page.screenshot(path=str(shot))
    if os.environ.get("WORLDGEN_SCREENSHOT"):
        target = pathlib.Path(os.environ["WORLDGEN_SCREENSHOT"])
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, target)
    stats = page.page.text_content("#stats")
    assert "tiles/s" in stats and "ms per tile" in stats


def test_dragging_loads_new_tiles(page):
    page.open("#zoom=14")
    before, seen = page.map_pixels(), set(page.tiles)
    mouse = page.page.mouse
    mouse.move(900, 450)
    mouse.down()
    for step in range(1, 11):
        mouse.move(900 - 50 * step, 450 - 25 * step)  # stays over the map
    mouse.up()
    page.wait()
    after = page.map_pixels()
    assert set(page.tiles) - seen  # new tiles were fetched
    assert shows_terrain(after) and np.abs(after - before).mean() > 5
    state = page.state()
    # The page opened on the spawn and the URL follows the drag.
    assert float(state["x"]) > SPAWN[0] + 500 and float(state["z"]) > SPAWN[1] + 200
    assert page.errors == []


def test_changing_the_seed_changes_the_tiles(page):
    page.open("#zoom=14")
    key = page.page.evaluate("window.explorer.world.key")
    before = page.map_pixels()
    page.page.fill("input[name=seed]", "77")
    page.page.wait_for_function(f"window.explorer.world.key !== '{key}'", timeout=30_000)
    page.wait()
    new_key = page.page.evaluate("window.explorer.world.key")
    assert any(f"/w/{new_key}/colour/" in url for url in page.tiles)
    after = page.map_pixels()
    assert shows_terrain(after) and np.abs(after - before).mean() > 10
    assert page.state()["seed"] == "77"
    assert page.errors == []


def test_seeds_past_2_to_the_53_stay_exact(page, browser, server):
    page.open("#seed=9007199254740993&zoom=8")
    assert page.page.input_value("input[name=seed]") == "9007199254740993"
    assert page.state()["seed"] == "9007199254740993"
    key = page.page.evaluate("window.explorer.world.key")
    page.page.fill("input[name=seed]", "-5")  # wrapped into 0 .. 2**64 - 1
    page.page.wait_for_function(f"window.explorer.world.key !== '{key}'", timeout=30_000)
    page.wait()
    assert page.page.input_value("input[name=seed]") == str(2**64 - 5)
    assert page.state()["seed"] == str(2**64 - 5)
    key = page.page.evaluate("window.explorer.world.key")
    again = Page(browser, server)
    try:  # the hash the page wrote opens the same world
        again.open(page.page.evaluate("window.location.hash"))
        assert again.page.evaluate("window.explorer.world.key") == key
        assert again.page.is_hidden("#error") and again.errors == []
    finally:
        again.close()
    assert page.errors == []


def test_the_url_round_trips_the_view(page, browser, server):
    view = (
        "#preset=classic&seed=5&octaves=5&sea=0.45&x=1234&z=-987&zoom=13.50&layer=biomes"
        "&pitch=40&bearing=30&terrain=0"
    )
    page.open(view)
    state = page.state()
    for name, value in urllib.parse.parse_qsl(view[1:]):
        if name in ("x", "z", "zoom", "pitch", "bearing"):
            assert float(state[name]) == pytest.approx(float(value), abs=1.0), name
        elif name in ("layer", "preset"):
            assert state[name] == value
        else:
            assert float(state[name]) == float(value), name
    assert page.page.is_checked("input[name=layer][value=biomes]")
    assert page.page.input_value("input[name=seed]") == "5"
    first = page.map_pixels()
    # The hash the page wrote reproduces the same picture in a fresh page.
    again = Page(browser, server)
    try:
        again.open(page.page.evaluate("window.location.hash"))
        assert again.state() == state
        assert np.abs(again.map_pixels() - first).mean() < 1.0
    finally:
        again.close()
    assert page.errors == []


def test_the_url_keeps_the_position_at_high_zoom(page, browser, server):
    # At zoom 21 a cell is 64 px: a whole-cell position would move the view.
    x, z = SPAWN[0] + 0.37, SPAWN[1] - 0.81
    page.open(f"#x={x}&z={z}&zoom=21&layer=colour&pitch=0&bearing=0")
    state = page.state()
    for name, value in (("x", x), ("z", z)):
        assert float(state[name]) == pytest.approx(value, abs=1 / 64 / 50), name
        assert len(state[name].partition(".")[2]) <= 4, state[name]  # a few digits
    first = page.map_pixels()
    again = Page(browser, server)
    try:  # the hash the page wrote shows the same picture
        again.open(page.page.evaluate("window.location.hash"))
        assert again.state() == state
        assert np.abs(again.map_pixels() - first).mean() < 0.5
    finally:
        again.close()
    page.open(f"#x={SPAWN[0]}&z={SPAWN[1]}&zoom=20")  # whole cells, as older links have
    assert page.state()["x"] == str(SPAWN[0]) and page.state()["z"] == str(SPAWN[1])
    assert page.errors == []


def test_an_unknown_layer_in_the_hash_shows_the_default_one(page):
    page.open("#zoom=14&layer=bogus")
    assert page.state()["layer"] == "colour"  # the hash is mended
    assert page.page.is_checked("input[name=layer][value=colour]")
    assert shows_terrain(page.map_pixels())
    assert page.errors == []


def test_a_changed_hash_and_back_and_forward_apply_in_place(page):
    page.open("#zoom=8")
    worlds = []
    page.page.on("request", lambda r: "/worlds?" in r.url and worlds.append(r.url))
    length = page.page.evaluate("history.length")
    # Typed in the address bar: the same document, another world and view.
    page.page.goto(page.server + "#seed=7&x=1000&z=-2000&zoom=5&layer=biomes")
    page.page.wait_for_function("window.explorer.world.params.seed === '7'", timeout=30_000)
    page.wait()
    state = page.state()
    assert state["seed"] == "7" and state["layer"] == "biomes"
    assert float(state["x"]) == pytest.approx(1000, abs=2)
    assert float(state["z"]) == pytest.approx(-2000, abs=2)
    assert float(state["zoom"]) == pytest.approx(5, abs=0.01)
    assert page.page.is_checked("input[name=layer][value=biomes]")
    assert page.page.evaluate("window.explorer.map.getLayoutProperty('biomes', 'visibility')") == (
        "visible"
    )
    page.page.go_back()
    page.page.wait_for_function("window.explorer.world.params.seed === '0'", timeout=30_000)
    page.wait()
    state = page.state()
    assert state["layer"] == "colour" and float(state["zoom"]) == pytest.approx(8, abs=0.01)
    assert page.page.input_value("input[name=seed]") == "0"
    page.page.go_forward()
    page.page.wait_for_function("window.explorer.world.params.seed === '7'", timeout=30_000)
    page.wait()
    assert page.state()["layer"] == "biomes"
    # A view alone moves the map and asks for no world.
    asked = len(worlds)
    hash_ = page.page.evaluate("window.location.hash").replace("zoom=5.00", "zoom=6.50")
    page.page.goto(page.server + hash_)
    page.page.wait_for_function("Math.abs(window.explorer.map.getZoom() - 6.5) < 0.01")
    page.wait()
    assert len(worlds) == asked == 3
    # The page's own writes replace the entry: no new history, no loop.
    assert page.page.evaluate("history.length") == length + 2
    assert page.page.is_hidden("#error") and page.errors == []


def test_3d_terrain_and_the_voxel_chunk_view_open(page):
    page.open("#zoom=15&x=300&z=200&pitch=60&terrain=1")
    assert page.page.evaluate("Boolean(window.explorer.map.getTerrain())")
    assert any("/height/" in url for url in page.tiles)  # elevation tiles draped
    assert shows_terrain(page.map_pixels())
    page.page.mouse.click(670, 330)
    assert page.page.evaluate("window.explorer.copied").count(" ") == 1
    page.page.click(".maplibregl-popup-content button")
    page.page.wait_for_function("window.explorer.voxels", timeout=LOAD_LIMIT)
    time.sleep(0.5)
    assert page.page.evaluate("window.explorer.voxels.triangles") > 1000
    box = page.page.locator("#voxels-view canvas").bounding_box()
    png = page.page.screenshot(clip=box)
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)
    # A drawn mesh, not a blank canvas (its clear colour 0x9cc3e6).
    drawn = np.abs(pixels - np.array([0x9C, 0xC3, 0xE6])).max(axis=-1) > 10
    assert drawn.mean() > 0.2 and len(np.unique(pixels.reshape(-1, 3), axis=0)) > 10
    # The view is above the map's zoom buttons, which it covers.
    zoom_in = page.page.locator(".maplibregl-ctrl-zoom-in").bounding_box()
    x, y = zoom_in["x"] + zoom_in["width"] / 2, zoom_in["y"] + zoom_in["height"] / 2
    assert page.page.evaluate(
        f"document.getElementById('voxels').contains(document.elementFromPoint({x}, {y}))"
    )
    # The canvas follows the window, larger and smaller.
    fits = (
        "(() => { const v = document.getElementById('voxels-view'), c = v.querySelector('canvas');"
        " return c.clientWidth === v.clientWidth && c.clientHeight === v.clientHeight; })()"
    )
    for size in ({"width": 1400, "height": 900}, {"width": 900, "height": 500}):
        page.page.set_viewport_size(size)
        page.page.wait_for_function(fits, timeout=30_000)
    page.page.click("#voxels-close")
    assert page.page.is_hidden("#voxels")
    assert page.errors == []


def test_the_readout_asks_nothing_past_the_edge_of_the_world(page):
    page.open(f"#x={SPAWN[0]}&z={SPAWN[1]}&zoom=1&pitch=80")
    points = []
    page.page.on("request", lambda r: "/point?" in r.url and points.append(r.url))
    page.page.mouse.move(670, 5)  # far up a view tilted to the horizon
    page.page.wait_for_function("!document.getElementById('readout').textContent.includes('move')")
    time.sleep(1)
    beyond = page.page.text_content("#readout")
    page.page.mouse.move(670, 310)  # the centre: the world
    page.page.wait_for_function(
        "document.getElementById('readout').textContent.includes(' m ')", timeout=120_000
    )
    for url in points:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        assert all(abs(int(query[k][0])) <= 2**23 for k in ("x", "z")), url
    assert points and page.errors == []
    assert beyond == "past the edge of the world"


def test_clicking_the_readout_copies_its_coordinates(page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.open("#zoom=12")
    page.page.mouse.move(670, 310)
    page.page.wait_for_function("document.getElementById('readout').textContent.startsWith('X ')")
    x, z = page.page.text_content("#readout").split()[1:4:2]
    page.page.click("#readout")
    page.page.wait_for_selector("#copied", state="visible", timeout=30_000)
    assert page.page.evaluate("navigator.clipboard.readText()") == f"{x} {z}"
    assert page.page.inner_text("#copied") == f"copied {x} {z}"
    # The confirmation is on top, where it can be read.
    box = page.page.locator("#copied").bounding_box()
    centre = f"document.elementFromPoint({box['x'] + box['width'] / 2}, {box['y'] + 3})"
    assert page.page.evaluate(f"{centre}.id") == "copied"
    page.page.wait_for_selector("#copied", state="hidden", timeout=30_000)  # for a moment
    # Without a clipboard (a page served over plain HTTP to another host)
    # the read-out's text is selected instead.
    page.page.evaluate("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
    page.page.click("#readout")
    page.page.wait_for_selector("#copied", state="visible", timeout=30_000)
    assert "Ctrl+C" in page.page.inner_text("#copied")
    selected = page.page.evaluate("String(window.getSelection())").split()
    assert selected[:4] == ["X", x, "Z", z]
    assert page.errors == []


PANEL = np.array([0xF4, 0xF2, 0xEC])  # the panel's background colour


def test_a_phone_sized_window_shows_the_map_and_a_panel_on_demand(page):
    page.page.set_viewport_size({"width": 320, "height": 640})
    page.open("#zoom=8")
    pixels = page.map_pixels(None)
    panel = np.all(np.abs(pixels - PANEL) <= 2, axis=-1)
    # The map has most of the window; the panel waits behind a button.
    assert panel.mean() < 0.05 and shows_terrain(pixels)
    assert page.page.locator("#map canvas").bounding_box()["width"] >= 160
    assert page.page.evaluate("document.documentElement.scrollWidth") <= 320
    page.page.click("#panel-toggle")
    assert np.all(np.abs(page.map_pixels(None) - PANEL) <= 2, axis=-1).mean() > 0.3  # drawn
    seed = page.page.locator("input[name=seed]").bounding_box()
    assert seed["x"] >= 0 and seed["x"] + seed["width"] <= 320
    key = page.page.evaluate("window.explorer.world.key")
    page.page.fill("input[name=seed]", "4")  # the panel works
    page.page.wait_for_function(f"window.explorer.world.key !== '{key}'", timeout=30_000)
    page.page.click("#panel-toggle")
    page.wait()
    pixels = page.map_pixels(None)
    assert np.all(np.abs(pixels - PANEL) <= 2, axis=-1).mean() < 0.05 and shows_terrain(pixels)
    assert page.errors == []


def test_export_downloads_the_map_set(page):
    page.open("#zoom=16&x=10&z=10")
    with page.page.expect_download() as download:
        page.page.click("#export")
    with zipfile.ZipFile(download.value.path()) as archive:
        names = set(archive.namelist())
    assert {"height.png", "colour.png", "biomes.png", "tilemap.json"} <= names
    page.page.wait_for_function("document.querySelector('#export-progress span').textContent")
    assert "done: the whole view" in page.page.inner_text("#export-progress span")
    assert page.errors == []


def _water_share(pixels: np.ndarray) -> float:
    """Share of the pixels drawn in a water band's colour (hillshading
    leaves the flat sea a little darker or lighter)."""
    near = [np.abs(pixels - c).max(axis=-1) <= 40 for c in WATER]
    return float(np.logical_or(*near).mean())


def test_zoom_3_shows_continents_and_oceans(page):
    page.open("#zoom=3")
    pixels = page.map_pixels()
    sea = _water_share(pixels)
    background = np.all(np.abs(pixels - SEA) <= 2, axis=-1).mean()
    land = 1.0 - sea - background
    assert sea > 0.3 and land > 0.05, (sea, land)
    # Land comes in continents: most land pixels have land all around.
    mask = ~np.logical_or(
        np.all(np.abs(pixels - SEA) <= 2, axis=-1),
        np.logical_or(*[np.abs(pixels - c).max(axis=-1) <= 40 for c in WATER]),
    )
    inner = mask[1:-1, 1:-1] & mask[:-2, 1:-1] & mask[2:, 1:-1] & mask[1:-1, :-2] & mask[1:-1, 2:]
    assert inner.sum() >= 0.5 * mask.sum()
    assert page.errors == []


def test_switching_preset_applies_its_parameters(page):
    page.open("#zoom=8")
    assert page.page.input_value("input[name=continent_size]") == "65536"
    assert not page.page.is_visible("input[name=scale]")
    key = page.page.evaluate("window.explorer.world.key")
    continents = page.map_pixels()
    page.page.select_option("select[name=preset]", "islands")
    page.page.wait_for_function(f"window.explorer.world.key !== '{key}'", timeout=30_000)
    page.wait()
    assert page.page.input_value("input[name=continent_size]") == "4096"
    assert page.page.input_value("input[name=relief]") == "160"
    # The map shows the new world, not the old one's tiles.
    islands = page.map_pixels()
    assert np.abs(islands - continents).mean() > 5
    key = page.page.evaluate("window.explorer.world.key")
    page.page.select_option("select[name=preset]", "classic")
    page.page.wait_for_function(f"window.explorer.world.key !== '{key}'", timeout=30_000)
    page.wait()
    assert np.abs(page.map_pixels() - islands).mean() > 5
    # The classic noise map's own parameters, not the last world's.
    assert page.page.input_value("input[name=scale]") == "128"
    assert page.page.input_value("input[name=octaves]") == "6"
    assert not page.page.is_visible("input[name=continent_size]")
    assert page.state()["preset"] == "classic" and "continent_size" not in page.state()
    assert page.page.is_hidden("#error") and page.errors == []


def test_a_refused_value_gives_way_to_the_one_in_use(page):
    page.open("#zoom=8")
    page.page.fill("input[name=continent_size]", "5")
    page.page.wait_for_selector("#error", state="visible", timeout=30_000)
    assert "continent_size" in page.page.inner_text("#error")
    assert page.page.input_value("input[name=continent_size]") == "5"
    page.page.evaluate("window.explorer.map.panBy([40, 0], {duration: 0})")
    page.page.wait_for_selector("#error", state="hidden")
    assert page.page.input_value("input[name=continent_size]") == "65536"
    assert page.state()["continent_size"] == "65536"
    # The same when a layer change clears the error.
    page.page.fill("input[name=relief]", "1")
    page.page.wait_for_selector("#error", state="visible", timeout=30_000)
    page.page.check("input[name=layer][value=biomes]")
    page.page.wait_for_selector("#error", state="hidden")
    assert page.page.input_value("input[name=relief]") == "240"
    # Leaving the field (the click) does not send the refused value again:
    # it did, and its error came back a moment later.
    page.page.wait_for_timeout(1500)
    assert page.page.is_hidden("#error")
    assert page.page.input_value("input[name=relief]") == "240"
    assert len(page.errors) == 2 and all("status of 400" in e for e in page.errors)


def test_a_new_preset_or_seed_opens_on_its_spawn(page):
    from worldgen.web._worlds import build_config

    page.open("#zoom=8")
    for name, value, params in [
        ("preset", "islands", {"preset": "islands", "seed": 0}),
        ("seed", "3", {"preset": "islands", "seed": 3}),
        ("relief", "300", None),  # the same place, higher
    ]:
        key = page.page.evaluate("window.explorer.world.key")
        before = page.state()
        if name == "preset":
            page.page.select_option("select[name=preset]", value)
        else:
            page.page.fill(f"input[name={name}]", value)
        page.page.wait_for_function(f"window.explorer.world.key !== '{key}'", timeout=30_000)
        page.wait()
        state = page.state()
        x, z = spawn(build_config({}, params).world) if params else (before["x"], before["z"])
        assert float(state["x"]) == pytest.approx(float(x), abs=2), name
        assert float(state["z"]) == pytest.approx(float(z), abs=2), name
        assert float(state["zoom"]) == pytest.approx(8, abs=0.01)
    assert page.page.is_hidden("#error") and page.errors == []


def _water(pixels: np.ndarray) -> np.ndarray:
    """Water on either layer: blue over red and at least green (the water
    bands and the voxel world's water and ice, shaded)."""
    r, g, b = pixels[..., 0], pixels[..., 1], pixels[..., 2]
    return (b > r + 30) & (b >= g)


def test_colour_and_voxel_layers_show_one_coastline(page):
    # The tile holding the spawn has the sea and land (tests/test_one_world.py).
    page.open(f"#x={SPAWN[0]}&z={SPAWN[1]}&zoom=16&layer=colour&pitch=0&bearing=0")
    colour = page.map_pixels()
    page.page.check("input[name=layer][value=voxel]")
    page.page.wait_for_function(
        "window.explorer.map.getLayoutProperty('voxel', 'visibility') === 'visible'"
    )
    page.wait()
    voxel = page.map_pixels()
    assert np.abs(voxel - colour).mean() > 5  # another picture
    sea, wet = _water(colour), _water(voxel)
    assert 0.05 < sea.mean() < 0.95
    assert (sea == wet).mean() > 0.98
    assert page.errors == []


def test_voxel_layer_note_and_errors_that_clear_and_fit(page):
    page.open(f"#x={SPAWN[0]}&z={SPAWN[1]}&zoom=10.4&layer=colour")
    assert page.page.is_hidden("#layer-note")
    page.page.check("input[name=layer][value=voxel]")
    page.page.wait_for_selector("#layer-note", state="visible")
    # The voxel tiles start at their zoom 12: 256-px tiles, drawn from the
    # map's (512-px) zoom 11 rounded, so from 10.5.
    assert "zoom 10.5" in page.page.text_content("#layer-note")
    assert not any("/voxel/" in url for url in page.tiles)
    page.page.evaluate("window.explorer.map.jumpTo({zoom: 10.6})")
    page.page.wait_for_selector("#layer-note", state="hidden")
    page.wait()
    assert any("/voxel/12/" in url for url in page.tiles)
    assert shows_terrain(page.map_pixels())  # the voxel layer's tiles of zoom 12
    # A long error stays inside the panel and clears when the layer changes.
    page.page.evaluate(
        "(() => { const e = document.getElementById('error');"
        " e.hidden = false; e.textContent = 'map: ' + 'x'.repeat(3000); })()"
    )
    error = page.page.locator("#error").bounding_box()
    panel = page.page.locator("#panel").bounding_box()
    assert error["x"] + error["width"] <= panel["x"] + panel["width"]
    assert error["height"] <= 0.5 * panel["height"]
    page.page.check("input[name=layer][value=colour]")
    page.page.wait_for_selector("#error", state="hidden")
    assert page.errors == []


def test_a_classic_preset_says_its_voxel_layer_is_another_world(page):
    page.open("#preset=classic&seed=5&x=0&z=0&zoom=12&layer=voxel")
    note = page.page.locator("#layer-note")
    assert note.is_visible()
    assert "default world of seed 5" in note.inner_text()
    assert "no voxel world" in note.inner_text()
    box = note.bounding_box()  # on the screen, inside the panel
    assert box["height"] > 10 and box["y"] + box["height"] <= 620
    page.page.check("input[name=layer][value=colour]")  # the map's own world
    page.page.wait_for_selector("#layer-note", state="hidden")
    page.page.check("input[name=layer][value=voxel]")
    key = page.page.evaluate("window.explorer.world.key")
    page.page.select_option("select[name=preset]", "islands")  # a world: its own voxels
    page.page.wait_for_function(f"window.explorer.world.key !== '{key}'", timeout=30_000)
    page.wait()
    assert page.page.is_hidden("#layer-note")
    assert page.errors == []


def _river_point(size: int = 21) -> tuple[int, int]:
    """A point of a big river of seed 0 inland, as the zoom-6 tiles draw it
    (a river pixel with land on most of its pixels around), in the upper
    middle of its tile (clear of the page's status box)."""
    from worldgen.web._tiles import tile_window
    from worldgen.world import Window, _drainage, world_fields

    world = WorldConfig(seed=0)
    step = 1024
    corner = tile_window(6, 0, 0)
    reach = 2 * world.continent_size
    box = (SPAWN[0] - reach, SPAWN[1] - reach, SPAWN[0] + reach, SPAWN[1] + reach)
    for region in _drainage.regions_near(world, *box):
        seg = _drainage.network(world, region).segments
        for k in np.argsort(-seg.area)[:3000]:
            if seg.area[k] < (16 * step) ** 2 or seg.surface[k, 0] < 10.0:
                continue
            x, z = (int(v) for v in seg.points[k, 0])
            x, z = x - x % step + step // 2, z - z % step + step // 2  # a pixel's centre
            i, j = (x - corner.x) // step % 256, (z - corner.y) // step % 256
            if not (40 < i < 216 and 30 < j < 150):
                continue
            half = size // 2 * step
            kinds = world_fields(
                world, Window(x - half - step // 2, z - half - step // 2, size, size, step),
                climate=False, rivers=True,
            ).water_kind  # fmt: skip
            if kinds[size // 2, size // 2] == 1 and (kinds == 0).mean() > 0.6:
                return x, z
    raise AssertionError("no inland river found")


def test_zoom_6_shows_a_big_river(browser, server):
    # A small view on the zoom-6 tile that holds the river: drawing a tile
    # solves the drainage of the dozen regions of the continent lattice it
    # spans.
    from worldgen.web._tiles import tile_window

    x, z = _river_point()
    w = tile_window(6, 0, 0)
    size = 256 * w.step
    tile = tile_window(6, (x - w.x) // size, (z - w.y) // size)
    cx, cz = tile.x + size // 2, tile.y + size // 2
    context = browser.new_context(viewport={"width": MAP["x"] + 256, "height": 256})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server + f"#x={cx}&z={cz}&zoom=6&layer=colour&pitch=0&bearing=0")
        page.wait_for_function(LOADED, timeout=300_000)
        time.sleep(0.3)
        page.wait_for_function(LOADED, timeout=LOAD_LIMIT)
        # Where the page draws the river's cell (grid.js's cellToLngLat).
        spot = page.evaluate(
            """([x, z]) => {
                const size = 256 * 2 ** 16, half = size / 2;
                const mx = (x + half) / size, my = (z + half) / size;
                const lat = Math.atan(Math.sinh(Math.PI * (1 - 2 * my))) * 180 / Math.PI;
                const p = window.explorer.map.project([mx * 360 - 180, lat]);
                const r = window.explorer.map.getCanvas().getBoundingClientRect();
                return [r.x + p.x, r.y + p.y, window.explorer.map.getZoom()];
            }""",
            [x, z],
        )
        pixels = np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB"))
        pixels = pixels.astype(np.int16)
    finally:
        context.close()
    px, py = round(spot[0]), round(spot[1])
    near = _water(pixels[py - 3 : py + 4, px - 3 : px + 4])
    around = _water(pixels[py - 10 : py + 11, px - 10 : px + 11])
    assert near.any(), "no river where it runs"
    assert around.mean() < 0.4  # on land: a river, not the sea
    assert errors == []


def test_a_field_cleared_to_be_retyped_sends_nothing(page):
    # An emptied field (or one holding '-' on the way to a negative
    # number) was left out of the parameters sent: a moment later the
    # server's default seed replaced the world, the view jumped to its
    # spawn and the field was filled with 0 under the typing.
    page.open("#seed=5&zoom=8")
    key = page.page.evaluate("window.explorer.world.key")
    before = page.state()
    page.page.fill("input[name=seed]", "")
    page.page.wait_for_timeout(1500)
    assert page.page.evaluate("window.explorer.world.key") == key
    assert page.page.input_value("input[name=seed]") == ""
    assert page.state()["seed"] == "5" and page.state()["x"] == before["x"]
    page.page.type("input[name=seed]", "-")
    page.page.wait_for_timeout(1000)
    assert page.page.evaluate("window.explorer.world.key") == key
    page.page.type("input[name=seed]", "7")
    page.page.wait_for_function(f"window.explorer.world.key !== '{key}'", timeout=30_000)
    page.wait()
    seed = str(2**64 - 7)  # a world's seed, as 64 bits without a sign
    assert page.state()["seed"] == seed
    assert page.page.input_value("input[name=seed]") == seed
    assert page.page.is_hidden("#error") and page.errors == []


def test_a_world_answered_late_does_not_replace_the_last_one_asked_for(page):
    # Seed 3's world is answered after seed 4's, asked for next: the page
    # showed the answers in the order they came, and ended on seed 3 with
    # 4 typed last.
    held = []
    page.page.route("**/worlds?*seed=3*", lambda route: held.append(route))
    page.open("#seed=5&zoom=8")
    key = page.page.evaluate("window.explorer.world.key")
    page.page.fill("input[name=seed]", "3")
    page.page.wait_for_timeout(1000)
    assert len(held) == 1 and page.page.evaluate("window.explorer.world.key") == key
    page.page.fill("input[name=seed]", "4")
    page.page.wait_for_function(f"window.explorer.world.key !== '{key}'", timeout=30_000)
    page.wait()
    four = page.page.evaluate("window.explorer.world.key")
    pixels = page.map_pixels()
    held[0].continue_()
    page.page.wait_for_timeout(1500)
    page.wait()
    assert page.page.evaluate("window.explorer.world.key") == four
    assert page.state()["seed"] == "4" and page.page.input_value("input[name=seed]") == "4"
    assert np.abs(page.map_pixels() - pixels).mean() < 1
    assert page.page.is_hidden("#error") and page.errors == []


def _open_voxels(page, x, y):
    page.page.evaluate("document.querySelectorAll('.maplibregl-popup').forEach((p) => p.remove())")
    page.page.mouse.click(x, y)
    cell = page.page.evaluate("window.explorer.copied")
    page.page.click(".maplibregl-popup-content button")
    return cell.replace(" ", ", ")


def test_voxel_chunks_answered_late_are_not_drawn(page):
    # The chunks of a view closed while loading came after the next view
    # was opened: they replaced it, title and all; with none opened, a
    # canvas drew behind the closed panel.
    held, holding = [], [True]
    page.open("#zoom=15&x=300&z=200")
    page.page.route(
        "**/chunks?*", lambda route: held.append(route) if holding[0] else route.continue_()
    )
    first = _open_voxels(page, 670, 330)
    page.page.click("#voxels-close")
    holding[0] = False
    second = _open_voxels(page, 800, 400)
    assert first != second and len(held) == 1
    page.page.wait_for_function("window.explorer.voxels", timeout=LOAD_LIMIT)
    title = page.page.inner_text("#voxels-title")
    assert f"around {second}:" in title
    held[0].continue_()
    page.page.wait_for_timeout(3000)
    assert page.page.inner_text("#voxels-title") == title
    assert page.page.locator("#voxels-view canvas").count() == 1
    # Closed while loading, none opened after: nothing comes back.
    holding[0] = True
    page.page.click("#voxels-close")
    _open_voxels(page, 670, 330)
    page.page.click("#voxels-close")
    assert len(held) == 2 and page.page.is_hidden("#voxels")
    held[1].continue_()
    page.page.wait_for_timeout(3000)
    assert page.page.is_hidden("#voxels")
    assert page.page.locator("#voxels-view canvas").count() == 0
    assert page.errors == []


def test_a_failed_readout_says_so_without_page_errors(page):
    # A read-out whose request failed (the server stopped) left an
    # uncaught error in the page at each cell, and one answered with an
    # error showed the bare coordinates with no word why.
    page.open("#zoom=12")
    page.page.route("**/point?*", lambda route: route.abort())
    page.page.mouse.move(600, 300)
    page.page.wait_for_function(
        "document.getElementById('readout').textContent.includes('no read-out')", timeout=30_000
    )
    page.page.unroute("**/point?*")
    page.page.route(
        "**/point?*",
        lambda route: route.fulfill(
            status=504, content_type="application/json", body='{"error": "took too long"}'
        ),
    )
    page.page.mouse.move(650, 320)
    page.page.wait_for_function(
        "document.getElementById('readout').textContent.includes('took too long')",
        timeout=30_000,
    )
    # The browser's own lines on the failed loads, and nothing else.
    assert [e for e in page.errors if not e.startswith("Failed to load resource")] == []


def test_an_error_answer_that_is_not_json_shows_its_status_and_text(page):
    # Every error body was parsed as JSON: a proxy's page or a plain-text
    # 500 showed the parser's complaint instead of the answer.
    page.open("#zoom=12")
    page.page.route(
        "**/point?*",
        lambda route: route.fulfill(
            status=502, content_type="text/html", body="<h1>Bad Gateway</h1> the proxy gave up"
        ),
    )
    page.page.mouse.move(600, 300)
    page.page.wait_for_function(
        "document.getElementById('readout').textContent.includes('no read-out')", timeout=30_000
    )
    readout = page.page.text_content("#readout")
    assert "502 Bad Gateway: Bad Gateway the proxy gave up" in readout, readout
    page.page.route(
        "**/worlds?*",
        lambda route: route.fulfill(
            status=500, content_type="text/plain", body="Internal Server Error"
        ),
    )
    page.page.fill("input[name=seed]", "77")
    page.page.wait_for_selector("#error", state="visible", timeout=30_000)
    error = page.page.text_content("#error")
    assert "500 Internal Server Error: Internal Server Error" in error, error
    assert "JSON" not in readout + error
    assert [e for e in page.errors if not e.startswith("Failed to load resource")] == []
