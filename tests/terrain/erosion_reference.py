"""Slow, obviously correct erosion, for comparison with the compiled kernels.

Plain Python on lists of floats, one droplet, one step and one cell at a
time, written from the algorithm as ``worldgen.terrain._erosion`` documents
it, with none of the kernel's precomputed brushes or passes. The arithmetic
follows the documented order of operations, so the results must agree with
the kernels bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

# The 8 neighbours of a cell as (dy, dx): edges, then diagonals.
NEIGHBOURS = [(-1, 0), (0, 1), (1, 0), (0, -1), (-1, -1), (-1, 1), (1, -1), (1, 1)]


def splitmix64(seed, n):
    """Output ``n`` (from 1) of the SplitMix64 stream seeded with ``seed``."""
    z = (seed + n * GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def uniform(seed, n):
    """A double in [0, 1) from the top 53 bits of output ``n``."""
    return (splitmix64(seed, n) >> 11) / 2.0**53


def droplet_start(seed, k, width, height):
    """Where droplet ``k`` starts, as (x, y)."""
    seed &= MASK64
    return uniform(seed, 2 * k + 1) * (width - 1), uniform(seed, 2 * k + 2) * (height - 1)


def brush_cells(cx, cy, radius, width, height):
    """[(x, y, weight)] of the brush around cell (cx, cy), weights summing to 1."""
    cells = []
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            distance = math.sqrt(dx * dx + dy * dy)
            x, y = cx + dx, cy + dy
            if distance < radius and 0 <= x < width and 0 <= y < height:
                cells.append((x, y, 1.0 - distance / radius))
    total = 0.0
    for _, _, weight in cells:
        total += weight
    return [(x, y, weight / total) for x, y, weight in cells]


def whole_brush(radius):
    """The weights of the brush of a cell far from every edge."""
    reach = radius + 1
    return [
        weight for _, _, weight in brush_cells(reach, reach, radius, 2 * reach + 1, 2 * reach + 1)
    ]


def sum_in_order(values):
    total = 0.0
    for value in values:
        total += value
    return total


DEFAULT_PARAMS = {
    "radius": 3,
    "inertia": 0.05,
    "capacity": 4.0,
    "min_capacity": 0.01,
    "erode_speed": 0.3,
    "deposit_speed": 0.3,
    "evaporate_speed": 0.01,
    "gravity": 4.0,
    "lifetime": 30,
    "initial_water": 1.0,
    "initial_speed": 1.0,
}


def _params(params):
    p = dict(DEFAULT_PARAMS)
    if params is not None:
        p.update({name: getattr(params, name) for name in p})
    return p


def sample(grid, cx, cy, u, v):
    """Height and gradient at offsets (u, v) from cell (cx, cy)."""
    nw, ne = grid[cy][cx], grid[cy][cx + 1]
    sw, se = grid[cy + 1][cx], grid[cy + 1][cx + 1]
    gradient_x = (ne - nw) * (1.0 - v) + (se - sw) * v
    gradient_y = (sw - nw) * (1.0 - u) + (se - ne) * u
    height = nw * (1.0 - u) * (1.0 - v) + ne * u * (1.0 - v) + sw * (1.0 - u) * v + se * u * v
    return height, gradient_x, gradient_y


def droplet(grid, changes, eroded, deposited, c, r, x, y, floor, sea, p):
    """One droplet from (c + x, c + y), its position kept relative to cell
    (c, r), reading the heights ``grid`` and adding its changes to
    ``changes`` (``grid`` itself for droplets that see their own changes;
    None for a pass's droplets, whose changes are made from the others),
    ``eroded`` and ``deposited``; it ends where the ground is below ``sea``.
    Returns the sediment it dies with."""
    rows, cols = len(grid), len(grid[0])
    dir_x = dir_y = 0.0
    speed, water, sediment = p["initial_speed"], p["initial_water"], 0.0
    for _ in range(p["lifetime"]):
        cx = min(c + math.floor(x), cols - 2)
        cy = min(r + math.floor(y), rows - 2)
        u, v = x - (cx - c), y - (cy - r)
        old_height, gradient_x, gradient_y = sample(grid, cx, cy, u, v)

        dir_x = dir_x * p["inertia"] - gradient_x * (1.0 - p["inertia"])
        dir_y = dir_y * p["inertia"] - gradient_y * (1.0 - p["inertia"])
        length = math.sqrt(dir_x * dir_x + dir_y * dir_y)
        if length == 0.0:
            break
        dir_x /= length
        dir_y /= length

        x += dir_x
        y += dir_y
        if x < -float(c) or x > (cols - 1.0) - c or y < -float(r) or y > (rows - 1.0) - r:
            break

        nx, ny = min(c + math.floor(x), cols - 2), min(r + math.floor(y), rows - 2)
        new_height = sample(grid, nx, ny, x - (nx - c), y - (ny - r))[0]
        if new_height < sea:
            break
        delta = new_height - old_height
        capacity = -delta * speed * water * p["capacity"]
        if not capacity > p["min_capacity"]:
            capacity = p["min_capacity"]

        if sediment > capacity or delta > 0.0:
            if delta > 0.0:
                amount = min(delta, sediment)
            else:
                amount = (sediment - capacity) * p["deposit_speed"]
            sediment -= amount
            for i, j, part in [
                (cx, cy, amount * (1.0 - u) * (1.0 - v)),
                (cx + 1, cy, amount * u * (1.0 - v)),
                (cx, cy + 1, amount * (1.0 - u) * v),
                (cx + 1, cy + 1, amount * u * v),
            ]:
                if changes is not None:
                    changes[j][i] += part
                deposited[j][i] += part
        else:
            amount = min((capacity - sediment) * p["erode_speed"], -delta)
            cells = brush_cells(cx, cy, p["radius"], cols, rows)
            gained, cut = 0.0, False
            for i, j, weight in cells:
                take = amount * weight
                room = grid[j][i] - floor
                if room < take:
                    take, cut = max(0.0, room), True
                if changes is not None:
                    changes[j][i] -= take
                eroded[j][i] += take
                gained += take
            # The sediment gains the takes' sum; where none was cut to its
            # cell's room and the brush is whole, that is amount times the
            # brush's weights summed in order.
            whole = whole_brush(p["radius"])
            if not cut and len(cells) == len(whole):
                gained = amount * sum_in_order(whole)
            sediment += gained

        speed = math.sqrt(max(0.0, speed * speed - delta * p["gravity"]))
        water *= 1.0 - p["evaporate_speed"]
    return sediment


def erode(heights, droplets, seed=0, params=None):
    """(heights, eroded, deposited, carried) after ``droplets`` droplets,
    one after another, each seeing the changes of those before it."""
    p = _params(params)
    grid = np.asarray(heights, dtype=np.float64).tolist()
    rows, cols = len(grid), len(grid[0])
    eroded = [[0.0] * cols for _ in range(rows)]
    deposited = [[0.0] * cols for _ in range(rows)]
    floor = min(0.0, min(min(row) for row in grid))
    carried = 0.0
    for k in range(droplets):
        x, y = droplet_start(seed, k, cols, rows)
        carried += droplet(grid, grid, eroded, deposited, 0, 0, x, y, floor, -math.inf, p)
    return np.array(grid), np.array(eroded), np.array(deposited), carried


def mix64(z):
    """SplitMix64's finaliser."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def cell_key(seed, p, gx, gy):
    """The key of pass ``p`` of world cell (gx, gy)."""
    key = mix64((seed + GOLDEN * (p + 1)) & MASK64)
    key = mix64(key ^ (gx & MASK64))
    return mix64(key ^ ((gy * GOLDEN) & MASK64))


def erode_pass(heights, origin, cells, rounds, first_key, chance, seed, sea, params):
    """(eroded, deposited, carried) of one pass of independent droplets:
    each cell (c, r) of ``cells`` (row-major), for each of ``rounds`` keys
    from ``first_key``, starts a droplet with probability ``chance`` at a
    hashed point inside it, unless the ground there is below ``sea``. Every
    droplet reads the heights the pass started from (never its own changes,
    nor any other's) and adds what it erodes and deposits to ``eroded`` and
    ``deposited`` in turn; the floor is 0."""
    p = _params(params)
    grid = np.asarray(heights, dtype=np.float64).tolist()
    rows, cols = len(grid), len(grid[0])
    eroded = [[0.0] * cols for _ in range(rows)]
    deposited = [[0.0] * cols for _ in range(rows)]
    carried = 0.0
    for r, c in cells:
        for q in range(rounds):
            key = cell_key(seed, first_key + q, origin[0] + c, origin[1] + r)
            if not uniform(key, 1) < chance:
                continue
            x, y = uniform(key, 2), uniform(key, 3)
            if sample(grid, c, r, x, y)[0] < sea:
                continue
            carried += droplet(grid, None, eroded, deposited, c, r, x, y, 0.0, sea, p)
    return np.array(eroded), np.array(deposited), carried


def thermal_erode(heights, iterations, talus, rate=0.5):
    """Heights after ``iterations`` simultaneous steps of thermal erosion."""
    grid = np.asarray(heights, dtype=np.float64).tolist()
    rows, cols = len(grid), len(grid[0])

    def neighbours(x, y):
        for dy, dx in NEIGHBOURS:
            distance = 1.0 if dx == 0 or dy == 0 else math.sqrt(2.0)
            if 0 <= y + dy < rows and 0 <= x + dx < cols:
                yield x + dx, y + dy, distance

    for _ in range(iterations):
        # flow[(x, y, i, j)]: material moving from cell (x, y) to cell (i, j).
        flow = {}
        for y in range(rows):
            for x in range(cols):
                excess = {}
                for i, j, distance in neighbours(x, y):
                    e = (grid[y][x] - grid[j][i]) - talus * distance
                    if e > 0.0:
                        excess[(i, j)] = e
                if not excess:
                    continue
                total = 0.0
                for e in excess.values():
                    total += e
                top = max(excess.values())
                for (i, j), e in excess.items():
                    flow[(x, y, i, j)] = rate * top / total * e
        following = []
        for y in range(rows):
            row = []
            for x in range(cols):
                sent = 0.0
                received = 0.0
                for i, j, _ in neighbours(x, y):
                    sent += flow.get((x, y, i, j), 0.0)
                    received += flow.get((i, j, x, y), 0.0)
                row.append(grid[y][x] - sent + received)
            following.append(row)
        grid = following
    return np.array(grid)
