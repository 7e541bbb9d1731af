"""Rivers and lakes of the world model: continuous, descending, exact."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from worldgen.world import Window, WorldConfig, _drainage, _elevation, _rivers, spawn, world_fields
from worldgen.world._lod import sample_axes

CONFIG = WorldConfig(seed=7)
# Far origins: lattice positions of continent squares around the world.
FAR = [(k * 7919 % 600 - 300, k * 104729 % 600 - 300) for k in range(40)]


@numba.njit(cache=False)
def _stranded(kind, surface):
    # River samples that cannot reach the sea, a lake or the window's edge
    # without climbing: searched backwards from those ends, a river sample
    # is reached when it stands at or above a reached neighbour.
    height, width = kind.shape
    reached = np.zeros((height, width), np.bool_)
    queue = np.empty(height * width * 2, np.int64)
    top = 0
    for y in range(height):
        for x in range(width):
            edge = y == 0 or x == 0 or y == height - 1 or x == width - 1
            if kind[y, x] >= 2 or (kind[y, x] == 1 and edge):
                reached[y, x] = True
                queue[top] = y * width + x
                top += 1
    head = 0
    while head < top:
        p = queue[head]
        head += 1
        y = p // width
        x = p - y * width
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                yy = y + dy
                xx = x + dx
                if yy < 0 or xx < 0 or yy >= height or xx >= width or reached[yy, xx]:
                    continue
                if kind[yy, xx] == 1 and surface[yy, xx] >= surface[y, x]:
                    reached[yy, xx] = True
                    queue[top] = yy * width + xx
                    top += 1
    count = 0
    for y in range(height):
        for x in range(width):
            if kind[y, x] == 1 and not reached[y, x]:
                count += 1
    return count


@numba.njit(cache=False)
def _closed_lakes(kind):
    # Lakes (8-connected) that touch no river, no sea and no window edge.
    height, width = kind.shape
    seen = np.zeros((height, width), np.bool_)
    stack = np.empty(height * width, np.int64)
    closed = 0
    for sy in range(height):
        for sx in range(width):
            if kind[sy, sx] != 2 or seen[sy, sx]:
                continue
            seen[sy, sx] = True
            stack[0] = sy * width + sx
            top = 1
            drains = False
            while top > 0:
                top -= 1
                p = stack[top]
                y = p // width
                x = p - y * width
                if y == 0 or x == 0 or y == height - 1 or x == width - 1:
                    drains = True
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        yy = y + dy
                        xx = x + dx
                        if yy < 0 or xx < 0 or yy >= height or xx >= width:
                            continue
                        k = kind[yy, xx]
                        if k == 1 or k == 3:
                            drains = True
                        elif k == 2 and not seen[yy, xx]:
                            seen[yy, xx] = True
                            stack[top] = yy * width + xx
                            top += 1
            if not drains:
                closed += 1
    return closed


def _river_windows(count: int, size: int = 1024) -> list[Window]:
    """Windows of ``size`` cells centred on the biggest river mouth of the
    landmasses of far regions (regions with rivers only)."""
    out = []
    for i, j in FAR:
        x = (i + 0.5) * CONFIG.continent_size
        y = (j + 0.5) * CONFIG.continent_size
        for region in _drainage.regions_near(CONFIG, x, y, x, y):
            seg = _drainage.network(CONFIG, region).segments
            if not seg.area.size:
                continue
            k = int(np.argmax(seg.area))
            cx, cy = seg.points[k, 0]
            out.append(Window(int(cx) - size // 2, int(cy) - size // 2, size, size))
        if len(out) >= count:
            return out[:count]
    return out


@pytest.fixture(scope="module")
def far_windows():
    return _river_windows(20)


def test_rivers_never_stop_or_climb_and_lakes_drain(far_windows):
    assert len(far_windows) == 20
    totals = np.zeros(4, np.int64)
    for window in far_windows:
        f = world_fields(CONFIG, window, climate=False, rivers=True)
        totals += np.bincount(f.water_kind.ravel(), minlength=4)
        assert _stranded(f.water_kind, f.surface) == 0, window
        assert _closed_lakes(f.water_kind) == 0, window
        # River beds descend with the surface: the ground under a river
        # is its surface less a depth.
        river = f.water_kind == _rivers.RIVER
        assert (f.elevation[river] < f.surface[river]).all()
        # Banks by a mouth (whose surface is below the sea) cut no dry
        # ground below the sea: dry land under the sea's level was drawn.
        assert (f.elevation[f.water_kind == _rivers.DRY] >= 0.0).all(), window
    # The windows hold land, rivers and sea.
    assert totals[_rivers.RIVER] > 20 * 500
    assert totals[_rivers.SEA] > 0 and totals[_rivers.DRY] > 0


def test_stranded_counter_finds_a_river_that_ends_on_land():
    kind = np.zeros((5, 7), np.uint8)
    kind[2, 1:6] = 1
    kind[:, 6] = 3
    surface = np.zeros((5, 7))
    surface[2, 1:6] = [5.0, 4.0, 3.0, 2.0, 1.0]
    assert _stranded(kind, surface) == 0
    surface[2, 3] = 1.5  # a dip and a climb on the way
    assert _stranded(kind, surface) == 3
    kind[2, 5] = 0  # the river stops a cell before the sea
    surface[2, 3] = 3.0
    assert _stranded(kind, surface) == 4


def test_closed_lake_counter():
    kind = np.zeros((6, 6), np.uint8)
    kind[2:4, 2:4] = 2
    assert _closed_lakes(kind) == 1
    kind[4, 4] = 1
    assert _closed_lakes(kind) == 0


@pytest.mark.parametrize("step", [1, 4, 64, 1024])
def test_windows_equal_crops_at_every_level(far_windows, step):
    big = far_windows[3]
    cx, cy = big.x + big.width // 2, big.y + big.height // 2
    whole = Window(cx - 96 * step, cy - 64 * step, 192, 128, step)
    made = world_fields(CONFIG, whole, climate=False, rivers=True)
    for part in (Window(whole.x + 37 * step, whole.y + 5 * step, 61, 90, step),
                 Window(whole.x + 150 * step, whole.y + 100 * step, 42, 28, step)):  # fmt: skip
        alone = world_fields(CONFIG, part, climate=False, rivers=True)
        r0 = (part.y - whole.y) // step
        c0 = (part.x - whole.x) // step
        crop = (slice(r0, r0 + part.height), slice(c0, c0 + part.width))
        for name in ("water_kind", "surface", "discharge", "elevation"):
            assert getattr(alone, name).tobytes() == getattr(made, name)[crop].tobytes(), name


def test_a_river_crosses_tile_borders_and_goes_on(far_windows):
    window = far_windows[0]
    whole = world_fields(CONFIG, window, climate=False, rivers=True).water_kind
    tiles = window.tiles(256)
    crossings = 0
    for tile in tiles:
        kind = world_fields(CONFIG, tile, climate=False, rivers=True).water_kind
        r0, c0 = tile.y - window.y, tile.x - window.x
        assert kind.tobytes() == whole[r0 : r0 + tile.height, c0 : c0 + tile.width].tobytes()
    # Rivers cross the tiles' borders (a river sample on each side, side by
    # side) and, in the whole window, go on to the sea or a lake.
    for c in range(256, window.width, 256):
        left = whole[:, c - 1] == _rivers.RIVER
        right = np.zeros_like(left)
        for d in (-1, 0, 1):
            right |= np.roll(whole[:, c] == _rivers.RIVER, d)
        crossings += int((left & right).sum())
    made = world_fields(CONFIG, window, climate=False, rivers=True)
    assert _stranded(made.water_kind, made.surface) == 0
    assert crossings > 0


def test_threads_agree(far_windows):
    window = far_windows[5]
    before = numba.get_num_threads()
    made = []
    try:
        for threads in (1, 2):
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
            _drainage.network.cache_clear()
            f = world_fields(CONFIG, window, climate=False, rivers=True)
            made.append((f.water_kind.tobytes(), f.surface.tobytes(), f.elevation.tobytes()))
    finally:
        numba.set_num_threads(before)
    assert made[0] == made[1]


def test_width_grows_with_discharge(far_windows):
    for window in far_windows[:3]:
        seg = _drainage.solve(
            CONFIG,
            _drainage.regions_near(
                CONFIG, window.x + 512, window.y + 512, window.x + 512, window.y + 512
            )[0],
        ).segments
        order = np.argsort(seg.discharge)
        low, high = order[: order.size // 2], order[order.size // 2 :]
        assert seg.width[high].mean() > seg.width[low].mean()
    # and a big river's mouth is at least 3 cells wide at full detail
    assert max(_drainage.solve(CONFIG, r).segments.width.max()
               for r in _drainage.regions_near(CONFIG, 0, 0, 0, 0)) >= 3.0  # fmt: skip


def _drawn_plainly(window: Window, elevation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """River samples and the ground of a window, drawn the plain way: every
    visible segment near it, every piece of it, at every sample (lakes left
    out: the caller compares where there is none)."""
    step = window.step
    cols, rows = sample_axes(window)
    x, y = np.meshgrid(cols, rows)
    carve = step <= _rivers.CARVE_STEP
    min_area = max(_drainage.river_area(CONFIG), (_rivers.VISIBLE * step) ** 2)
    min_hw = _rivers.MIN_HALF_WIDTH * step
    best = np.full(x.shape, np.inf)
    bed = np.zeros(x.shape)
    bank = np.full(x.shape, np.inf)
    margin = _rivers.REACH + 2 * step
    near = _drainage.regions_near(
        CONFIG, cols[0] - margin, rows[0] - margin, cols[-1] + margin, rows[-1] + margin
    )
    for region in near:
        seg = _drainage.network(CONFIG, region).segments
        for s in np.flatnonzero(seg.area >= min_area):
            b = seg.box[s]
            if (b[0] > cols[-1] + margin or b[2] < cols[0] - margin
                    or b[1] > rows[-1] + margin or b[3] < rows[0] - margin):  # fmt: skip
                continue
            hw = max(0.5 * seg.width[s], min_hw)
            dist = np.full(x.shape, np.inf)
            at = np.zeros(x.shape)
            pieces = seg.points.shape[1] - 1
            for k in range(pieces):
                (ax, ay), (bx, by) = seg.points[s, k], seg.points[s, k + 1]
                dx, dy = bx - ax, by - ay
                length = dx * dx + dy * dy
                u = np.zeros(x.shape)
                if length > 0.0:
                    u = np.clip(((x - ax) * dx + (y - ay) * dy) / length, 0.0, 1.0)
                ex, ey = ax + u * dx - x, ay + u * dy - y
                d = ex * ex + ey * ey
                closer = d < dist
                dist[closer] = d[closer]
                at[closer] = ((k + u) / pieces)[closer]
            dist = np.sqrt(dist)
            surface = seg.surface[s, 0] + (seg.surface[s, 1] - seg.surface[s, 0]) * at
            wins = (dist <= hw) & (surface < best)
            best[wins] = surface[wins]
            bed[wins] = np.maximum(surface[wins], 0.0) - seg.depth[s]
            if carve:
                banks = (dist > hw) & (dist <= hw + _rivers.BANK)
                level = surface + _rivers.BANK_SLOPE * (dist - hw)
                bank[banks] = np.minimum(bank[banks], level[banks])
    river = (best < np.inf) & (elevation >= 0.0)
    ground = elevation.copy()
    if carve:
        ground[river] = bed[river]
        dry = ~river & (elevation >= 0.0)
        ground[dry] = np.minimum(elevation[dry], bank[dry])
    return river, ground


def _inland(window: Window) -> tuple[int, int]:
    """A point on the biggest river above the sea near ``window``'s centre."""
    cx, cy = window.x + window.width // 2, window.y + window.height // 2
    seg = _drainage.network(CONFIG, _drainage.regions_near(CONFIG, cx, cy, cx, cy)[0]).segments
    s = int(np.argmax(np.where(seg.surface[:, 1] > 2.0, seg.area, 0.0)))
    return int(seg.points[s, 4, 0]), int(seg.points[s, 4, 1])


@pytest.mark.parametrize("step", [1, 2, 4, 16, 256])
def test_rivers_drawn_as_plainly_drawn(far_windows, step):
    """Each segment measured only near itself, in place, gives the rivers
    and the ground of every segment measured at every sample."""
    for window in far_windows[:2]:
        cx, cy = _inland(window)
        small = Window(cx - 20 * step, cy - 16 * step, 40, 32, step)
        elevation = _elevation.elevation(CONFIG, small)
        made = _rivers.water(CONFIG, small, elevation)
        river, ground = _drawn_plainly(small, elevation)
        assert river.any()
        dry = made.kind != _rivers.LAKE
        assert np.array_equal(made.kind[dry] == _rivers.RIVER, river[dry])
        assert np.array_equal(made.ground[dry], ground[dry])


@pytest.mark.parametrize("step", [1, 4, 64])
def test_kinds_and_ground_alone_are_the_same(far_windows, step):
    """``surfaces=False`` (what pictures ask for) leaves out the surface
    and the discharge, and changes nothing else."""
    cx, cy = _inland(far_windows[1])
    small = Window(cx - 64 * step, cy - 48 * step, 128, 96, step)
    elevation = _elevation.elevation(CONFIG, small)
    full = _rivers.water(CONFIG, small, elevation)
    alone = _rivers.water(CONFIG, small, elevation, surfaces=False)
    assert alone.surface is None and alone.discharge is None
    assert alone.kind.tobytes() == full.kind.tobytes()
    assert alone.ground.tobytes() == full.ground.tobytes()
    assert (full.kind == _rivers.RIVER).any()


def test_lake_runs_hold_the_lakes(far_windows):
    """A network's runs of lake samples give back its solution's lake grid
    exactly (three regions with lakes, solved again)."""
    checked = 0
    regions = {
        region
        for window in far_windows[:6]
        for region in _drainage.regions_near(
            CONFIG, *(window.x + window.width // 2, window.y + window.height // 2) * 2
        )
    }
    for region in sorted(regions, key=lambda r: (r.scale, r.i, r.j)):
        net = _drainage.network(CONFIG, region)
        if not net.lake_runs.size:
            continue
        grid = np.full(net.window.shape, -np.inf)
        for j in range(grid.shape[0]):
            for first, last, at in net.lake_runs[net.run_start[j] : net.run_start[j + 1]]:
                assert first <= last and np.isneginf(grid[j, first : last + 1]).all()
                grid[j, first : last + 1] = net.run_levels[at : at + last - first + 1]
        assert grid.tobytes() == _drainage.solve(CONFIG, region).lake.tobytes()
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_a_window_holds_no_more_networks_than_the_cache(monkeypatch):
    # A window keeps only the lakes' runs of the regions it has read, not
    # their networks: one meeting thousands of regions (a coarse window
    # with rivers) held every network whose lakes it met, past the cache's
    # bound (22 GB in a scan of far windows). Here nothing is cached, and
    # three of the four regions have lakes in the window.
    import weakref

    world = WorldConfig(seed=0)
    window = Window(-90640, -95840, 128, 128, 1024)
    expected = world_fields(world, window, rivers=True)
    made, alive, lakes = [], [], []
    solve = _drainage._network_of

    def uncached(config, region):
        alive.append(sum(ref() is not None for ref in made))
        network = solve(config, region)
        made.append(weakref.ref(network))
        lakes.append(network.lakes[0] <= network.lakes[1])
        return network

    monkeypatch.setattr(_drainage, "network", uncached)
    fields = world_fields(world, window, rivers=True)
    assert len(made) == 4 and sum(lakes) >= 3
    assert max(alive) <= 1, alive
    for name in ("elevation", "water_kind", "surface", "discharge"):
        np.testing.assert_array_equal(getattr(fields, name), getattr(expected, name), name)


def test_the_kept_networks_stay_within_their_bytes(monkeypatch):
    # Networks (4-18 MB each in the default world) and what each level
    # shows of them are kept within KEPT_BYTES, not only CACHED networks:
    # a server drawing rivers held about 3 GB. What a level shows holds no
    # network that is no longer kept.
    import weakref

    x, y = spawn(CONFIG)
    regions = _drainage.regions_near(CONFIG, x, y, x + 2 * CONFIG.continent_size, y)[:3]
    sizes = [_drainage.network(CONFIG, r).nbytes for r in regions]
    budget = sum(sizes) - min(sizes) // 2  # all but about half of one
    kept = _drainage._Kept(_drainage.CACHED, budget)
    monkeypatch.setattr(_drainage, "_KEPT", kept)
    refs = []
    for region in regions:
        shown = _drainage.visible(CONFIG, region, _drainage.river_area(CONFIG))  # every river
        refs.append(weakref.ref(shown.segments))
        del shown
        assert kept.used <= budget
    assert kept.networks < len(regions) and kept.misses >= len(regions)
    assert refs[0]() is None, "a level's rivers held the network of a region no longer kept"
    again = _drainage.network(CONFIG, regions[0])  # solved again: the same
    fresh = _drainage._network_of(CONFIG, regions[0])
    for name in ("points", "surface", "width", "box"):
        assert getattr(again.segments, name).tobytes() == getattr(fresh.segments, name).tobytes()


def test_a_value_in_the_making_is_waited_for_not_made_twice():
    # Neighbouring tiles made at once need the same landmasses: 20 of 208
    # solves were a second solve of a region another thread was solving.
    import threading
    import time

    kept = _drainage._Kept(4, 2**20)
    made, started = [], threading.Event()

    def slow():
        made.append(1)
        started.set()
        time.sleep(0.3)
        return object()

    got = []
    first = threading.Thread(
        target=lambda: got.append(kept.get(("network", 1), slow, _eight_bytes))
    )
    first.start()
    started.wait(5)
    second = kept.get(("network", 1), slow, _eight_bytes)  # while the first is making it
    first.join()
    assert len(made) == 1 and got == [second]
    # A failed making lets the waiting thread make it itself.
    started.clear()

    def failing():
        started.set()
        time.sleep(0.2)
        raise RuntimeError("stopped")

    errors = []

    def fail_first():
        try:
            kept.get(("network", 2), failing, _eight_bytes)
        except RuntimeError as exc:
            errors.append(exc)

    first = threading.Thread(target=fail_first)
    first.start()
    started.wait(5)
    assert kept.get(("network", 2), lambda: "made", _eight_bytes) == "made"
    first.join()
    assert len(errors) == 1 and kept.has(("network", 2))


def _eight_bytes(value) -> int:
    return 8


def test_rivers_at_coarse_steps_are_refused_naming_the_parameter():
    # Above continent_size / 64 cells a sample (where no product draws
    # rivers) a window would solve the drainage of every region it meets.
    coarse = Window(0, 0, 4, 4, CONFIG.continent_size // _rivers.DRAWN_SPAN * 2)
    with pytest.raises(ValueError, match="rivers=True needs a window step of at most"):
        world_fields(CONFIG, coarse, rivers=True)
    assert world_fields(CONFIG, coarse).elevation.shape == (4, 4)
