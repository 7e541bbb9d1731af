"""Rivers and lakes of the world model: continuous, descending, exact."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from worldgen.world import Window, WorldConfig, _drainage, _rivers, world_fields

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
