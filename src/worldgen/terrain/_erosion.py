"""Erosion of height fields: hydraulic (water droplets) and thermal (slumping).

Height fields are float64 arrays of shape ``(H, W)`` indexed ``[row, col] =
[y, x]``. Positions inside them are ``(x, y)`` in cell units, with cell
``(i, j)`` at ``x = i, y = j``; the field is the bilinear interpolation of
the cells, so it is defined on ``[0, W - 1] x [0, H - 1]``.

- :func:`erode` with :class:`HydraulicErosion`: droplets run downhill,
  picking up material where they speed up and dropping it where they slow
  down, after Hans Theobald Beyer, "Implementation of a method for hydraulic
  erosion" (bachelor's thesis, TU Munich, 2015), as popularised by Sebastian
  Lague's "Hydraulic Erosion" (2019).
- :func:`thermal_erode`: material slides off slopes steeper than a talus
  slope, after Musgrave, Kolb and Mace, "The synthesis and rendering of
  eroded fractal terrains" (SIGGRAPH 1989).

Both return new arrays and leave their input untouched; the work is done by
compiled kernels, and the same arguments give the same bytes on every run
and in any thread count.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import math
import numbers
import queue
import threading
from collections.abc import Callable

import numba
import numpy as np
from numba import prange

from worldgen._checks import check_real, check_unit_interval, height_field
from worldgen._errors import ParameterError
from worldgen._jit import interruptible, kernel, parallel_kernel
from worldgen.noise._seed import check_seed
from worldgen.noise._validate import check_positive

_GOLDEN = 0x9E3779B97F4A7C15
# Heights are kept within this magnitude so that slopes, their squares and
# the droplets' speeds stay far from overflow.
HEIGHT_LIMIT = 1e100
RADIUS_LIMIT = 16
"""Widest erosion brush: a droplet moves a cell a step and spreads each
step's erosion over the cells within ``radius``, so the work of a step
grows with the radius squared (25 cells at the default 3, 797 at 16,
205,857 at 256, which ran for hours on a big map). Lague's own range is 2
to 8; a wider brush smooths rather than carves."""
LIFETIME_LIMIT = 1024
"""Most steps of a droplet: the work of a droplet, and the halo of windowed
erosion (``lifetime + radius + 1``), grow with it; Lague's default is 30,
and with the default evaporation a droplet keeps 0.004 % of its water
after 1,000 steps."""
# The 8 neighbours used by thermal erosion, N E S W then NW NE SW SE, and
# their distances; the border value thermal erosion pads the map with.
_DY = (-1, 0, 1, 0, -1, -1, 1, 1)
_DX = (0, 1, 0, -1, -1, 1, -1, 1)
_DISTANCES = np.array([1.0, 1.0, 1.0, 1.0, *[math.sqrt(2.0)] * 4])
_BORDER = 1e300
# Work per call of a compiled kernel: Python handles Ctrl-C (and progress
# moves) only between calls, so long runs are cut into slices of about a
# tenth of a second. Slicing changes no result: droplets run in the same
# order on the same arrays, and every thermal step reads only the last.
_DROPLET_STEPS_PER_SLICE = 2**20  # droplets x lifetime, with the default brush
_DEFAULT_BRUSH_CELLS = 25  # cells of the default brush (radius 3)
_THERMAL_CELLS_PER_SLICE = 2**22  # iterations x cells


# ---------------------------------------------------------------- validation


MAX_DROPLETS_PER_CELL = 256
"""Most hydraulic erosion droplets per cell: more only deepens the same
valleys, and would run for hours on a big map."""
MAX_THERMAL_PER_SIDE = 2
"""Most thermal erosion iterations per cell of height + width: material
moves at most a cell a step, so slopes settle long before."""


def _check_count(value: object, name: str, low: int, high: int | None = None, fix: str = "") -> int:
    """``value`` as an int from ``low`` to ``high``, or an error naming
    ``name``; ``fix``, said past the range, is how to get what was wanted."""
    within = f"from {low} to {high}" if high is not None else f">= {low}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer {within}, got {value!r}")
    if int(value) < low or int(value) >= 2**63 or (high is not None and int(value) > high):
        why = f"; {fix}" if fix and int(value) > low else ""
        raise ParameterError(f"{name} must be an integer {within}, got {value!r}{why}", name)
    return int(value)


def _check_heights(heights: object) -> np.ndarray:
    """A C-contiguous float64 copy of a finite (H, W) field of moderate size."""
    array = height_field(heights)
    largest = max(-float(array.min()), float(array.max()))  # the largest |height|
    if largest > HEIGHT_LIMIT:
        raise ValueError(
            f"heights must lie within +-{HEIGHT_LIMIT:g}, found {largest:g}; rescale the map"
        )
    return np.array(array, dtype=np.float64, order="C", copy=True)


# ------------------------------------------------------------------- configs


@dataclasses.dataclass(frozen=True)
class HydraulicErosion:
    """Parameters of droplet erosion; the defaults are Sebastian Lague's.

    Parameters
    ----------
    radius : int
        Erosion brush radius in cells, 1 to :data:`RADIUS_LIMIT` (16): a
        droplet removes material from the cells closer than ``radius`` to
        its cell. 1 erodes the droplet's cell alone. Default 3.
    inertia : float
        From 0 to 1: how much of its previous direction a droplet keeps; at
        0 it always flows straight downhill. A new droplet has no direction,
        so at 1 it never moves. Default 0.05.
    capacity : float
        Sediment capacity factor, > 0: how much a droplet can carry per unit
        of drop, speed and water. Default 4.0.
    min_capacity : float
        The least a droplet can carry, > 0, so that it still erodes on
        nearly flat ground. Default 0.01.
    erode_speed : float
        From 0 to 1: the fraction of its spare capacity a droplet fills by
        eroding in one step. Default 0.3.
    deposit_speed : float
        From 0 to 1: the fraction of its surplus sediment a droplet drops in
        one step. Default 0.3.
    evaporate_speed : float
        From 0 to 1: the fraction of its water a droplet loses per step.
        Default 0.01.
    gravity : float
        > 0: how fast droplets gain speed going downhill. Default 4.0.
    lifetime : int
        1 to :data:`LIFETIME_LIMIT` (1024): the most steps a droplet takes.
        Default 30.
    initial_water : float
        > 0: a new droplet's water. Default 1.0.
    initial_speed : float
        > 0: a new droplet's speed. Default 1.0.

    Raises
    ------
    TypeError
        If a field is not a number (``radius`` and ``lifetime``: an integer).
    ValueError
        If a field is out of its range (a :class:`~worldgen.ParameterError`
        for ``radius`` and ``lifetime``, whose bounds keep the work bounded).

    Examples
    --------
    >>> import dataclasses
    >>> params = dataclasses.replace(HydraulicErosion(), radius=2, inertia=0.3)
    >>> params.radius, params.lifetime
    (2, 30)
    """

    radius: int = 3
    inertia: float = 0.05
    capacity: float = 4.0
    min_capacity: float = 0.01
    erode_speed: float = 0.3
    deposit_speed: float = 0.3
    evaporate_speed: float = 0.01
    gravity: float = 4.0
    lifetime: int = 30
    initial_water: float = 1.0
    initial_speed: float = 1.0

    def __post_init__(self) -> None:
        _check_count(
            self.radius, "radius", 1, RADIUS_LIMIT,
            "a step's work grows with the radius squared; for broader, smoother valleys "
            "erode a smaller map and scale it up, or add thermal erosion",
        )  # fmt: skip
        _check_count(
            self.lifetime, "lifetime", 1, LIFETIME_LIMIT,
            "a droplet's work grows with its lifetime; lower evaporate_speed to let "
            "droplets carry further within it",
        )  # fmt: skip
        for name in ("inertia", "erode_speed", "deposit_speed", "evaporate_speed"):
            check_unit_interval(getattr(self, name), name)
        for name in ("capacity", "min_capacity", "gravity", "initial_water", "initial_speed"):
            check_positive(getattr(self, name), name)


@dataclasses.dataclass(frozen=True, eq=False)
class ErosionResult:
    """What :func:`erode` did.

    Attributes
    ----------
    heights : ndarray of float64, shape (H, W)
        The eroded height field.
    eroded : ndarray of float64, shape (H, W)
        Material removed from each cell, summed over all droplets (>= 0).
    deposited : ndarray of float64, shape (H, W)
        Material dropped on each cell (>= 0).
    carried : float
        Sediment the droplets still carried when they stopped, summed; it
        leaves the map. ``eroded.sum() - deposited.sum() == carried`` up to
        rounding.
    """

    heights: np.ndarray
    eroded: np.ndarray
    deposited: np.ndarray
    carried: float


# ------------------------------------------------------------------- kernels


def _brush(radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    # Offsets (dy, dx) of the cells at distance d < radius from the centre,
    # in row-major order, their raw weights 1 - d / radius, those weights
    # normalised to sum 1, and the largest offset.
    dys, dxs, raws = [], [], []
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            squared = dy * dy + dx * dx
            if squared < radius * radius:
                dys.append(dy)
                dxs.append(dx)
                raws.append(1.0 - math.sqrt(squared) / radius)
    raw = np.array(raws, np.float64)
    weight_sum = 0.0
    for value in raws:
        weight_sum += value
    reach = max(abs(dy) for dy in dys)
    return np.array(dys, np.int64), np.array(dxs, np.int64), raw, raw / weight_sum, reach


@kernel
def _mix64(z):
    # SplitMix64's finaliser, on uint64.
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def _uniform(seed, n):
    # Output n (from 1) of the SplitMix64 stream started at ``seed``, as a
    # double in [0, 1) from its top 53 bits.
    z = _mix64(seed + np.uint64(_GOLDEN) * np.uint64(n))
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def _sample(flat, cols, ox, oy, cx, cy):
    # Height and gradient of the bilinear field at (cx + ox, cy + oy),
    # inside the map, from the cells (cx, cy) to (cx + 1, cy + 1) of the
    # flat (row-major) heights with ``cols`` columns. The droplet kernels
    # index their flat arrays with unsigned integers (never negative here):
    # numba then emits no wraparound for negative indices (a shift, a mask
    # and an add per index), which lay on every step's chain of dependent
    # operations.
    i = np.uint64(cy * cols + cx)
    nw = flat[i]
    ne = flat[i + np.uint64(1)]
    sw = flat[i + np.uint64(cols)]
    se = flat[i + np.uint64(cols + 1)]
    gx = (ne - nw) * (1.0 - oy) + (se - sw) * oy
    gy = (sw - nw) * (1.0 - ox) + (se - ne) * ox
    h = nw * (1.0 - ox) * (1.0 - oy) + ne * ox * (1.0 - oy) + sw * (1.0 - ox) * oy + se * ox * oy
    return h, gx, gy


@kernel
def _droplet(
    heights,
    flat,
    field,
    out,
    flat_eroded,
    flat_deposited,
    eroded,
    deposited,
    brush_dy,
    brush_dx,
    brush_flat,
    brush_raw,
    brush_weight,
    reach,
    base_x,
    base_y,
    row0,
    x,
    y,
    floor,
    sea,
    inertia,
    capacity_factor,
    min_capacity,
    erode_speed,
    deposit_speed,
    evaporate_speed,
    gravity,
    lifetime,
    initial_water,
    initial_speed,
    fixed,
    lowest,
    heaviest,
    weight_sum,
    start,
):
    # One droplet from (base_x + x, base_y + y) on the heights ``heights``
    # (flat: ``flat``), adding its changes to ``field`` (flat: ``out``) and
    # to eroded and deposited; returns the sediment it dies with.
    # Sequential erosion passes the heights as the field (each droplet sees
    # the changes of those before it, and its own); a pass of independent
    # droplets passes a field of changes, which the droplet never reads. It
    # ends where the ground it reaches is below ``sea`` (-inf: nowhere), its
    # sediment carried off as at the field's edge. Its position is kept
    # relative to the cell (base_x, base_y), so that the same droplet makes
    # the same bits in every region it runs in (a position in the region's
    # own frame would round differently with the region's origin). The
    # field, eroded and deposited may hold only rows ``row0`` onwards of
    # the heights (a band's own arrays): writes are shifted by as many rows.
    # ``lowest``: at most the least ``height - floor`` of the heights (-inf:
    # unknown), ``heaviest`` the brush's largest weight: a step that erodes
    # at most ``lowest`` from any cell skips the test of each cell's room
    # (which would not clip; the same bits).
    # ``fixed``: the heights do not change while the droplet runs (a pass of
    # independent droplets), so a step starts from the sample the step
    # before ended on (the same cell and offsets: the same bits) instead of
    # reading the heights again, and the field is not written: the pass
    # makes its changes from what was eroded and deposited; its first
    # sample is ``start`` (height, gradient), which the pass took to see
    # whether it rains on the sea.
    # A step's erosion adds to the sediment what it took: the takes summed
    # in brush order, or, where none was cut to its cell's room and the
    # brush is whole, amount x ``weight_sum`` (the brush's weights summed
    # in order), which is what they add up to without a chain of additions.
    rows, cols = heights.shape
    xmax = float(cols - 1)
    ymax = float(rows - 1)
    size = brush_dy.shape[0]
    dx = 0.0
    dy = 0.0
    speed = initial_speed
    water = initial_water
    sediment = 0.0
    shift = np.uint64(row0 * cols)
    left = -float(base_x)
    right = xmax - base_x
    top = -float(base_y)
    bottom = ymax - base_y
    old, gx, gy = start
    for _ in range(lifetime):
        cx = min(base_x + math.floor(x), cols - 2)
        cy = min(base_y + math.floor(y), rows - 2)
        ox = x - (cx - base_x)
        oy = y - (cy - base_y)
        if not fixed:
            old, gx, gy = _sample(flat, cols, ox, oy, cx, cy)
        dx = dx * inertia - gx * (1.0 - inertia)
        dy = dy * inertia - gy * (1.0 - inertia)
        length = math.sqrt(dx * dx + dy * dy)
        if length == 0.0:
            break
        dx /= length
        dy /= length
        x += dx
        y += dy
        if x < left or x > right or y < top or y > bottom:
            break
        nx = min(base_x + math.floor(x), cols - 2)
        ny = min(base_y + math.floor(y), rows - 2)
        new, next_gx, next_gy = _sample(flat, cols, x - (nx - base_x), y - (ny - base_y), nx, ny)
        if new < sea:
            break
        delta = new - old
        capacity = -delta * speed * water * capacity_factor
        if not capacity > min_capacity:
            capacity = min_capacity
        if sediment > capacity or delta > 0.0:
            if delta > 0.0:
                amount = min(delta, sediment)
            else:
                amount = (sediment - capacity) * deposit_speed
            sediment -= amount
            i = np.uint64((cy - row0) * cols + cx)
            part = amount * (1.0 - ox) * (1.0 - oy)
            if not fixed:
                out[i] += part
            flat_deposited[i] += part
            i += np.uint64(1)
            part = amount * ox * (1.0 - oy)
            if not fixed:
                out[i] += part
            flat_deposited[i] += part
            i += np.uint64(cols - 1)
            part = amount * (1.0 - ox) * oy
            if not fixed:
                out[i] += part
            flat_deposited[i] += part
            i += np.uint64(1)
            part = amount * ox * oy
            if not fixed:
                out[i] += part
            flat_deposited[i] += part
        else:
            amount = min((capacity - sediment) * erode_speed, -delta)
            if cx >= reach and cy >= reach and cx + reach < cols and cy + reach < rows:
                centre = cy * cols + cx
                if amount * heaviest <= lowest:
                    # Every take is at most amount * heaviest (rounding keeps
                    # the order), so at most each cell's room. A loop of its
                    # own: one loop testing a flag per cell instead ran 0.92
                    # times as fast (10 paired runs of erode_cells).
                    for b in range(size):
                        cell = np.uint64(centre + brush_flat[b])
                        take = amount * brush_weight[b]
                        mine = cell - shift
                        if not fixed:
                            out[mine] -= take
                        flat_eroded[mine] += take
                    sediment += amount * weight_sum
                else:
                    gained = 0.0
                    cut = False
                    for b in range(size):
                        cell = np.uint64(centre + brush_flat[b])
                        take = amount * brush_weight[b]
                        room = flat[cell] - floor
                        if room < take:
                            take = room if room > 0.0 else 0.0
                            cut = True
                        mine = cell - shift
                        if not fixed:
                            out[mine] -= take
                        flat_eroded[mine] += take
                        gained += take
                    sediment += gained if cut else amount * weight_sum
            else:
                # Near the edge: renormalise over the cells inside.
                gained = 0.0
                total = 0.0
                for b in range(size):
                    by = cy + brush_dy[b]
                    bx = cx + brush_dx[b]
                    if 0 <= by < rows and 0 <= bx < cols:
                        total += brush_raw[b]
                for b in range(size):
                    by = cy + brush_dy[b]
                    bx = cx + brush_dx[b]
                    if 0 <= by < rows and 0 <= bx < cols:
                        take = amount * (brush_raw[b] / total)
                        room = heights[by, bx] - floor
                        if room < take:
                            take = room if room > 0.0 else 0.0
                        if not fixed:
                            field[by - row0, bx] -= take
                        eroded[by - row0, bx] += take
                        gained += take
                sediment += gained
        squared = speed * speed - delta * gravity
        speed = math.sqrt(squared) if squared > 0.0 else 0.0
        water *= 1.0 - evaporate_speed
        old, gx, gy = new, next_gx, next_gy
    return sediment


@kernel
def _erode_kernel(
    heights,
    eroded,
    deposited,
    brush_dy,
    brush_dx,
    brush_raw,
    brush_weight,
    reach,
    seed,
    first,
    last,
    floor,
    inertia,
    capacity_factor,
    min_capacity,
    erode_speed,
    deposit_speed,
    evaporate_speed,
    gravity,
    lifetime,
    initial_water,
    initial_speed,
    carried,
):
    # Droplets first..last-1 in order, changing heights, eroded and deposited
    # in place; returns ``carried`` plus the sediment they die with.
    rows, cols = heights.shape
    flat = heights.reshape(rows * cols)
    flat_eroded = eroded.reshape(rows * cols)
    flat_deposited = deposited.reshape(rows * cols)
    brush_flat = brush_dy * cols + brush_dx
    weight_sum = 0.0
    for b in range(brush_weight.size):
        weight_sum += brush_weight[b]
    for k in range(first, last):
        x = _uniform(seed, 2 * k + 1) * (cols - 1)
        y = _uniform(seed, 2 * k + 2) * (rows - 1)
        carried += _droplet(
            heights, flat, heights, flat, flat_eroded, flat_deposited, eroded, deposited,
            brush_dy, brush_dx, brush_flat, brush_raw, brush_weight, reach, 0, 0, 0, x, y, floor,
            -np.inf, inertia,
            capacity_factor, min_capacity, erode_speed, deposit_speed, evaporate_speed, gravity,
            lifetime, initial_water, initial_speed, False, -np.inf, 1.0, weight_sum,
            (0.0, 0.0, 0.0),
        )  # fmt: skip
    return carried


@kernel
def _cell_key(seed, p, gx, gy):
    # A 64-bit key for pass ``p`` of world cell (gx, gy): SplitMix64's
    # finaliser chained over the three integers (two's complement wraps
    # negative coordinates).
    key = _mix64(seed + np.uint64(_GOLDEN) * np.uint64(p + 1))
    key = _mix64(key ^ np.uint64(gx))
    return _mix64(key ^ (np.uint64(gy) * np.uint64(_GOLDEN)))


@kernel
def _erode_pass_kernel(
    heights,
    eroded,
    deposited,
    row0,
    brush_dy,
    brush_dx,
    brush_raw,
    brush_weight,
    reach,
    seed,
    x0,
    y0,
    first_key,
    rounds,
    first_row,
    last_row,
    first_col,
    last_col,
    chance,
    carried,
    floor,
    sea,
    inertia,
    capacity_factor,
    min_capacity,
    erode_speed,
    deposit_speed,
    evaporate_speed,
    gravity,
    lifetime,
    initial_water,
    initial_speed,
    lowest,
):
    # Droplets of one pass on ``heights`` (read only), what they erode and
    # deposit added to ``eroded`` and ``deposited``, which hold the rows of
    # the heights from ``row0`` on: rows ``first_row`` to ``last_row - 1`` and
    # columns ``first_col`` to ``last_col - 1``, in row-major world order;
    # cell (x0 + c, y0 + r) starts, for each of ``rounds`` keys from
    # ``first_key``, a droplet with probability ``chance`` at a hashed
    # point inside it, unless the ground there is below ``sea``. Returns
    # ``carried`` plus the sediment carried off, so that slices chained in
    # order add up as one call would. ``lowest``: at most the least height
    # less ``floor`` (-inf: not known), see _droplet.
    heaviest = 0.0
    weight_sum = 0.0
    for b in range(brush_weight.size):
        heaviest = max(heaviest, brush_weight[b])
        weight_sum += brush_weight[b]
    rows, cols = heights.shape
    flat = heights.reshape(rows * cols)
    flat_eroded = eroded.reshape(eroded.size)
    flat_deposited = deposited.reshape(deposited.size)
    brush_flat = brush_dy * cols + brush_dx
    # Each row's keys and start draws first, in loops of their own that
    # vectorise (a droplet runs for about one cell in eight), then its
    # droplets in the same order.
    width = max(last_col - first_col, 0)
    keys = np.empty((rounds, width), np.uint64)
    starts = np.empty((rounds, width), np.bool_)
    for r in range(first_row, last_row):
        for q in range(rounds):
            row_keys, row_starts = keys[q], starts[q]
            for i in range(width):
                key = _cell_key(seed, first_key + q, x0 + first_col + i, y0 + r)
                row_keys[i] = key
                row_starts[i] = _uniform(key, 1) < chance
        for i in range(width):
            c = first_col + i
            for q in range(rounds):
                if not starts[q, i]:
                    continue
                key = keys[q, i]
                x = _uniform(key, 2)
                y = _uniform(key, 3)
                # (c, r) is inside the region's last column and row, so it
                # is the droplet's first cell, at offsets (x, y).
                start = _sample(flat, cols, x, y, c, r)
                if start[0] < sea:
                    continue  # rain on the sea
                # A droplet of a pass writes no field (``fixed``): the eroded
                # arrays stand in for it.
                carried += _droplet(
                    heights, flat, eroded, flat_eroded, flat_eroded, flat_deposited, eroded, deposited,
                    brush_dy, brush_dx, brush_flat, brush_raw, brush_weight, reach, c, r, row0,
                    x, y, floor, sea, inertia, capacity_factor, min_capacity, erode_speed,
                    deposit_speed, evaporate_speed, gravity, lifetime, initial_water,
                    initial_speed, True, lowest, heaviest, weight_sum, start,
                )  # fmt: skip
    return carried


@parallel_kernel
def _thermal_kernel(current, following, share, iterations, limits, rate):
    # ``iterations`` steps from ``current`` (the heights inside a one-cell
    # border), using ``following`` and ``share`` (same shape) as scratch;
    # returns the array holding the result (``current`` after an even number
    # of steps, else ``following``). ``limits[k]``: the talus height
    # difference towards neighbour k. The border holds heights ``_BORDER``
    # in both height arrays (so no cell has excess over it) and shares 0 (so
    # it sends nothing); every excess is clamped at 0 and added, which adds
    # exactly 0.0 where the documented scheme adds nothing.
    rows = current.shape[0] - 2
    cols = current.shape[1] - 2
    for _ in range(iterations):
        # Pass 1: per cell, the material sent per unit of excess.
        for y in prange(1, rows + 1):
            for x in range(1, cols + 1):
                h = current[y, x]
                top = 0.0
                total = 0.0
                for k in range(8):
                    other = current[y + _DY[k], x + _DX[k]]
                    excess = max((h - other) - limits[k], 0.0)
                    total += excess
                    top = max(top, excess)
                share[y, x] = rate * top / total if total > 0.0 else 0.0
        # Pass 2: each cell loses what it sends and gains what it receives.
        for y in prange(1, rows + 1):
            for x in range(1, cols + 1):
                h = current[y, x]
                own = share[y, x]
                sent = 0.0
                received = 0.0
                for k in range(8):
                    other = current[y + _DY[k], x + _DX[k]]
                    theirs = share[y + _DY[k], x + _DX[k]]
                    sent += own * max((h - other) - limits[k], 0.0)
                    received += theirs * max((other - h) - limits[k], 0.0)
                following[y, x] = h - sent + received
        current, following = following, current
    return current


def _step_cost(params: HydraulicErosion, brush_cells: int) -> float:
    """A droplet's work in default droplet steps: a step erodes the cells
    of its brush, which grows with the radius squared (797 cells at 16),
    so wide brushes take proportionally smaller slices."""
    return params.lifetime * max(1.0, brush_cells / _DEFAULT_BRUSH_CELLS)


# ---------------------------------------------------------------- public API


def erode(
    heights: np.ndarray,
    droplets: int,
    *,
    seed: int = 0,
    params: HydraulicErosion = HydraulicErosion(),
    progress: Callable[[int, int], object] | None = None,
) -> ErosionResult:
    """Hydraulic erosion by ``droplets`` water droplets, one after another.

    Parameters
    ----------
    heights : array_like, shape (H, W)
        Finite heights, at least 2 x 2 cells, within +-1e100; not modified.
    droplets : int
        How many droplets to run, 0 to :data:`MAX_DROPLETS_PER_CELL` (256)
        per cell.
    seed : int
        Picks the droplets' start positions; any 64-bit integer.
    params : HydraulicErosion
        The droplets' physics; the defaults are Sebastian Lague's.
    progress : callable, optional
        Called as ``progress(done, total)`` after every hundredth of the
        droplets, or more often in long runs (and once with ``(0, 0)`` when
        there are none), ``done`` increasing to ``total = droplets``.

    Returns
    -------
    ErosionResult
        The new heights, the material eroded from and deposited on each
        cell, and the sediment carried off by droplets when they stopped.

    Raises
    ------
    TypeError
        If ``heights`` does not hold real numbers, ``droplets`` is not an
        integer, ``seed`` is not an int, ``params`` is not a
        :class:`HydraulicErosion` or ``progress`` is not callable.
    ValueError
        If ``heights`` is not a finite 2-D array of at least 2 x 2 cells
        within +-1e100, ``droplets`` is negative or ``seed`` does not fit in
        64 bits.

    Notes
    -----
    Droplet ``k`` starts at ``x = u(2k + 1) * (W - 1)``, ``y = u(2k + 2) *
    (H - 1)``, where ``u(n)`` is output ``n`` of the SplitMix64 stream
    seeded with ``seed`` (its finaliser applied to ``seed + n *
    0x9E3779B97F4A7C15`` modulo 2**64, the top 53 bits scaled to [0, 1)). Its direction is 0, its speed
    ``initial_speed``, its water ``initial_water`` and its sediment 0. Each
    step, at most ``lifetime`` of them:

    1. The height ``h`` and gradient ``g`` at the droplet are interpolated
       bilinearly from the four cells around it (the cell at
       ``(floor(x), floor(y))`` and the three to its east and south; on the
       map's last row or column the cell before it).
    2. ``dir = dir * inertia - g * (1 - inertia)``, normalised; a zero
       direction (flat ground) stops the droplet.
    3. The droplet moves one cell length along ``dir``. If it leaves
       ``[0, W - 1] x [0, H - 1]`` it stops there: nothing wraps around.
    4. ``delta = h(new position) - h(old position)``, and the capacity is
       ``max(-delta * speed * water * capacity, min_capacity)``.
    5. Going uphill (``delta > 0``) the droplet drops ``min(delta,
       sediment)`` to fill the pit behind it; carrying more than its
       capacity, it drops ``(sediment - capacity) * deposit_speed``. Either
       is spread over the four cells around the old position with bilinear
       weights. Otherwise it erodes ``min((capacity - sediment) *
       erode_speed, -delta)`` (never more than the drop, so it digs no hole)
       from the brush around the old position's cell: the cells at distance
       ``d < radius`` inside the map, weighted ``1 - d / radius`` and
       normalised to sum 1 over the cells inside. A cell gives at most what
       lies above the floor ``min(0, heights.min())``, so, as in Lague's
       code for maps in [0, 1], nothing is ever eroded below 0 (or below
       the input's lowest point if that is negative). The sediment gains
       what was taken: ``amount`` times the whole brush's weights summed
       in order where no cell gave less than its share and the brush lies
       inside the map, else the takes summed in the brush's row order.
    6. ``speed = sqrt(max(0, speed**2 - delta * gravity))``: going downhill
       (``delta < 0``) speeds the droplet up, going uphill slows it down.
       This is the physical sign: the kinetic energy grows by the drop
       times ``gravity``. Lague's C# code adds ``delta * gravity`` instead,
       which slows droplets going downhill and can take the square root of
       a negative number (SebLague/Hydraulic-Erosion issue 15).
    7. ``water *= 1 - evaporate_speed``.

    A droplet that stops keeps its sediment (it is not dropped); the total
    is returned as ``carried``. Droplets change the map for the ones after
    them, so they run in order in one serial kernel, called on slices of
    about a tenth of a second so that Ctrl-C stops a long run; the result
    is the same with or without ``progress``, however it is sliced, and in
    any thread count.

    Examples
    --------
    >>> import numpy as np
    >>> y, x = np.mgrid[0:32, 0:32]
    >>> heights = 0.5 + 0.25 * np.sin(x / 4.0) * np.cos(y / 5.0)
    >>> result = erode(heights, 500, seed=7)
    >>> bool(result.eroded.max() > 0.0), bool(np.allclose(
    ...     heights - result.heights, result.eroded - result.deposited))
    (True, True)
    >>> bool(np.isclose(result.eroded.sum() - result.deposited.sum(), result.carried))
    True
    """
    out = _check_heights(heights)
    if out.shape[0] < 2 or out.shape[1] < 2:
        raise ValueError(
            f"heights must have at least 2 rows and 2 columns for droplets to move "
            f"between cells, got shape {out.shape}"
        )
    most = MAX_DROPLETS_PER_CELL * out.size
    total = _check_count(droplets, "droplets", 0)
    if total > most:
        raise ValueError(
            f"droplets must be at most {MAX_DROPLETS_PER_CELL} per cell ({most:,} for this "
            f"{out.shape[0]} x {out.shape[1]} map), got {total:,}; more than a few per cell "
            "only deepens the same valleys"
        )
    state = check_seed(seed)
    if not isinstance(params, HydraulicErosion):
        raise TypeError(
            f"params must be a HydraulicErosion, got {type(params).__name__}; "
            "use HydraulicErosion(...) or dataclasses.replace(HydraulicErosion(), ...)"
        )
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable progress(done, total), got {progress!r}")

    brush_dy, brush_dx, brush_raw, brush_weight, reach = _brush(params.radius)
    floor = min(0.0, float(out.min()))
    eroded = np.zeros_like(out)
    deposited = np.zeros_like(out)
    step = max(1, int(_DROPLET_STEPS_PER_SLICE / _step_cost(params, brush_dy.size)))
    if progress is not None:
        step = min(step, max(1, -(-total // 100)))
    carried = 0.0
    done = 0
    while done < total:
        stop = min(total, done + step)
        carried = _erode_kernel(
            out,
            eroded,
            deposited,
            brush_dy,
            brush_dx,
            brush_raw,
            brush_weight,
            np.int64(reach),
            np.uint64(state),
            np.int64(done),
            np.int64(stop),
            floor,
            float(params.inertia),
            float(params.capacity),
            float(params.min_capacity),
            float(params.erode_speed),
            float(params.deposit_speed),
            float(params.evaporate_speed),
            float(params.gravity),
            np.int64(params.lifetime),
            float(params.initial_water),
            float(params.initial_speed),
            carried,
        )
        done = stop
        if progress is not None:
            progress(done, total)
    if progress is not None and total == 0:
        progress(0, 0)
    return ErosionResult(out, eroded, deposited, float(carried))


def thermal_erode(
    heights: np.ndarray, iterations: int, *, talus: float | None = None, rate: float = 0.5
) -> np.ndarray:
    """Thermal erosion: material slides off slopes steeper than ``talus``.

    Parameters
    ----------
    heights : array_like, shape (H, W)
        Finite heights within +-1e100; not modified.
    iterations : int
        How many simultaneous steps to take, 0 to
        :data:`MAX_THERMAL_PER_SIDE` (2) x (H + W).
    talus : float, optional
        The steepest stable slope, as a height difference per cell of
        distance (in the heights' own unit, so ``tan(angle)`` if heights
        are measured in cells), >= 0. By default ``4 / max(H, W)``, the
        value Jacob Olsen (2004) suggests for maps with heights in [0, 1].
    rate : float
        From 0 (exclusive) to 1: the fraction of the steepest excess a cell
        sheds per step. Default 0.5, which brings a lone pair of cells
        exactly to the talus slope; more can overshoot.

    Returns
    -------
    ndarray of float64, shape (H, W)
        The new heights. Material is conserved: their sum equals the
        input's up to rounding.

    Raises
    ------
    TypeError
        If ``heights`` does not hold real numbers or a parameter is not a
        number (``iterations``: an integer).
    ValueError
        If ``heights`` is not a finite non-empty 2-D array within +-1e100,
        ``iterations`` is negative, ``talus`` negative or ``rate`` outside
        (0, 1].

    Notes
    -----
    The scheme of Musgrave, Kolb and Mace (1989) on the 8 neighbours of
    each cell inside the map, a diagonal one at distance sqrt(2). For cell
    ``c`` and neighbour ``i`` at distance ``d_i``, the excess is ``e_i =
    h_c - h_i - talus * d_i``. If some ``e_i > 0``, the cell sends ``rate
    * max(e_i)`` in all, split among the neighbours with ``e_i > 0`` in
    proportion to ``e_i``. All cells are updated at once from the previous
    step's heights (``h_new = h - sent + received``), so the order of cells
    does not matter and each step runs in parallel by rows; no material
    crosses the map's edge. Long runs are made in slices of steps (about a
    tenth of a second each) so that Ctrl-C stops them; the result is the
    same. A flat map, or one nowhere steeper than
    ``talus``, is returned unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> heights = np.zeros((3, 3))
    >>> heights[1, 1] = 3.0
    >>> out = thermal_erode(heights, 1, talus=0.0)
    >>> float(out[1, 1]), float(out.sum())
    (1.5, 3.0)
    """
    out = _check_heights(heights)
    most = MAX_THERMAL_PER_SIDE * sum(out.shape)
    iterations = _check_count(iterations, "iterations", 0)
    if iterations > most:
        raise ValueError(
            f"iterations must be at most {MAX_THERMAL_PER_SIDE} x (height + width) = {most:,} "
            f"for this {out.shape[0]} x {out.shape[1]} map, got {iterations:,}: material moves "
            "at most a cell a step, so slopes settle long before"
        )
    if talus is None:
        slope = 4.0 / max(out.shape)
    else:
        slope = check_real(talus, "talus")
        if slope < 0.0:
            raise ValueError(f"talus must be a slope >= 0 (height per cell), got {talus!r}")
    rate = check_real(rate, "rate")
    if not 0.0 < rate <= 1.0:
        raise ValueError(f"rate must be a number in (0, 1], got {rate!r}; 0.5 is usual")
    limits = slope * _DISTANCES
    rows, cols = out.shape
    current = np.full((rows + 2, cols + 2), _BORDER)
    current[1:-1, 1:-1] = out
    following = current.copy()
    share = np.zeros((rows + 2, cols + 2))
    step = max(1, _THERMAL_CELLS_PER_SLICE // out.size)
    for done in range(0, iterations, step):
        count = min(step, iterations - done)
        with interruptible():
            _thermal_kernel(current, following, share, np.int64(count), limits, rate)
        if count % 2:
            current, following = following, current
    return current[1:-1, 1:-1].copy()


class ErosionStopped(RuntimeError):
    """Raised by :func:`erode_cells` when its ``stop`` event is set."""


PASSES = 2
"""Passes of independent droplets in windowed erosion (:func:`erode_cells`)."""
BAND_ROWS = 128
"""World rows of droplet starts per band: :func:`erode_cells` runs a pass's
bands on threads, each on its own arrays, and adds them up in band order."""


def erosion_reach(params: HydraulicErosion) -> int:
    """Cells from its start within which a droplet changes or reads the
    heights: it moves a cell a step for at most ``lifetime`` steps, erodes
    within ``radius`` and reads the cell beyond where it ends."""
    return params.lifetime + params.radius + 1


def erosion_halo(params: HydraulicErosion) -> int:
    """The cells :func:`erode_cells` needs around the cells it makes exactly:
    :data:`PASSES` times twice the reach and one."""
    return PASSES * (2 * erosion_reach(params) + 1)


def erode_cells(
    heights: np.ndarray,
    origin: tuple[int, int],
    density: float,
    *,
    seed: int,
    params: HydraulicErosion,
    sea_level: float | None = None,
    stop: threading.Event | None = None,
    progress: Callable[[int, int], object] | None = None,
    maps: tuple[slice, slice] | None = None,
) -> ErosionResult:
    """Hydraulic erosion of a region of the world in passes of independent droplets.

    The building block of windowed erosion (:mod:`worldgen.terrain._windowed`):
    unlike :func:`erode`, whose droplets run one after another over the
    whole field, here each world cell starts its own droplets, and the
    droplets of a pass all run on the heights the pass starts from, so a
    cell's result depends only on the heights within :func:`erosion_halo`
    cells of it. Cells at least that far from the region's edge come out
    the same, byte for byte, in every region that holds them.

    Parameters
    ----------
    heights : ndarray of float64, shape (H, W)
        Heights in [0, 1] of the cells ``origin[0] .. origin[0] + W - 1``
        (columns) and ``origin[1] .. origin[1] + H - 1`` (rows) of the world.
    origin : (int, int)
        World column and row of ``heights[0, 0]``.
    density : float
        Droplets per cell, 0 to :data:`MAX_DROPLETS_PER_CELL`.
    seed : int
        Any 64-bit integer.
    params : HydraulicErosion
        The droplets' physics.
    sea_level : float, optional
        Rain falls on land only: no droplet starts where the ground is
        below this height, and a droplet ends where it reaches such ground,
        its sediment carried off (the sea takes it). None: no sea.
    stop : threading.Event, optional
        Checked between slices of about a tenth of a second: once set, the
        work ends with :class:`ErosionStopped` (for worker threads, which
        Ctrl-C does not reach).
    progress : callable, optional
        ``progress(done, total)`` after each band of droplets is added in.
    maps : (slice, slice), optional
        The cells of ``heights`` (two slices of step 1) whose eroded and
        deposited material is wanted; default all. Only those are summed
        and kept: a caller that crops the region's exact cells needs no
        maps of the whole region, nor copies of their crops.

    Returns
    -------
    ErosionResult
        As for :func:`erode`: the heights of the region's shape, eroded and
        deposited of ``maps``; exact on the cells at least
        :func:`erosion_halo` from the region's edge.

    Notes
    -----
    With ``g = erosion_reach(params)`` and ``s = 2 g + 1``, pass ``k`` (1 to
    :data:`PASSES`) runs the droplets that start on the region shrunk by
    ``k s - g`` cells on each side, in world row-major order, each on the
    heights the pass starts from (it reads neither its own changes nor
    those of the pass's other droplets). The droplets starting in each
    band of :data:`BAND_ROWS` world rows add what they erode and deposit,
    in that order, to the band's own two arrays (on threads: one band
    each); a cell's change in the pass is the sum, over the bands in world
    order, of what the band deposited there less what it eroded, added to
    the heights when the pass is done (no cell goes below 0, or below where
    it was if it began lower). Pass ``k`` is then
    exact on the region shrunk by ``k s``: every droplet that can reach
    such a cell starts within ``g`` of it, and reads heights within ``g``
    of its start, which pass ``k - 1`` made exactly; a cell's changes are
    summed in the same order whatever the region and the thread count.

    In pass ``k``, cell ``(x, y)`` tries ``R = ceil(density / PASSES)``
    droplets ``q = 0 .. R - 1``, each starting with probability ``density /
    (PASSES R)`` at ``(x + u2, y + u3)``, where ``u1 < density / (PASSES R)``
    decides and ``u1, u2, u3`` are outputs 1-3 of the SplitMix64 stream
    keyed by a hash of ``(seed, (k - 1) R + q, x, y)``, unless the heights
    there are below ``sea_level``. Each droplet then moves as in
    :func:`erode`, with the floor at 0, and ends, before eroding or
    depositing, at the first step whose new height is below
    ``sea_level``.

    Droplets that all see the same heights are what makes a region's
    result its own: sequential droplets (each seeing the changes of those
    before it, as :func:`erode` runs them) make every cell depend on every
    droplet before it in the region, with no bound. Two passes keep the
    feedback that cuts valleys: the second pass's droplets follow the
    channels the first one cut.
    """
    out = _check_heights(heights)
    check_seed(seed)
    sea = -np.inf if sea_level is None else check_real(sea_level, "sea_level")
    density = float(density)
    if not 0.0 <= density <= MAX_DROPLETS_PER_CELL:
        raise ValueError(
            f"density must be 0 to {MAX_DROPLETS_PER_CELL} droplets per cell, got {density!r}"
        )
    rounds = max(1, math.ceil(density / PASSES))
    chance = density / (PASSES * rounds)
    brush_dy, brush_dx, brush_raw, brush_weight, reach = _brush(params.radius)
    rows, cols = out.shape
    kept_rows, kept_cols = (
        (range(rows), range(cols)) if maps is None else (range(rows)[maps[0]], range(cols)[maps[1]])
    )
    if kept_rows.step != 1 or kept_cols.step != 1:
        raise ValueError(f"maps must be two slices of step 1, got {maps!r}")
    # np.zeros, not zeros_like: the system hands out cleared pages as they
    # are first touched, with no pass writing zeros over them beforehand.
    eroded = np.zeros((len(kept_rows), len(kept_cols)))
    deposited = np.zeros(eroded.shape)
    carried = 0.0
    g = erosion_reach(params)
    x0, y0 = origin
    bands = []  # (pass, first row, last row, first column, last column)
    if density > 0.0:
        for k in range(PASSES):
            inset = max(0, (k + 1) * (2 * g + 1) - g)
            r0, r1, c0, c1 = inset, rows - 1 - inset, inset, cols - 1 - inset
            if r1 <= r0 or c1 <= c0:
                continue
            for b in range((y0 + r0) // BAND_ROWS, (y0 + r1 - 1) // BAND_ROWS + 1):
                first = max(r0, b * BAND_ROWS - y0)
                last = min(r1, (b + 1) * BAND_ROWS - y0)
                bands.append((k, first, last, c0, c1))
    constants = (
        np.int64(reach), np.uint64(seed & (2**64 - 1)), np.int64(x0), np.int64(y0),
    )  # fmt: skip
    physics = (
        0.0, sea, float(params.inertia), float(params.capacity), float(params.min_capacity),
        float(params.erode_speed), float(params.deposit_speed), float(params.evaporate_speed),
        float(params.gravity), np.int64(params.lifetime), float(params.initial_water),
        float(params.initial_speed),
    )  # fmt: skip

    halt = threading.Event()  # set when the caller's thread gives up
    # Cleared arrays for the bands (eroded, deposited: the most rows a band
    # changes), handed back once a band is added in: the same few for every
    # band, not two fresh arrays a band (each page of which the system would
    # fault in and clear again).
    spare: queue.SimpleQueue = queue.SimpleQueue()

    def run(band, lowest):
        # The band's droplets on their own arrays (the rows they can change),
        # in slices of rows of about _DROPLET_STEPS_PER_SLICE droplet steps,
        # so that Ctrl-C and ``stop`` are heard between them; chained, the
        # slices are one call. ``lowest``: the least height of the pass.
        k, first, last, c0, c1 = band
        lo, hi = max(0, first - g), min(rows, last + g)
        try:
            block = spare.get_nowait()
        except queue.Empty:
            block = np.zeros((2, min(rows, BAND_ROWS + 2 * g), cols))
        eroded_here, deposited_here = block[:, : hi - lo]
        sediment = 0.0
        work = (c1 - c0) * density / PASSES * _step_cost(params, brush_dy.size)
        step = max(1, int(_DROPLET_STEPS_PER_SLICE / work))
        for r in range(first, last, step):
            if halt.is_set() or (stop is not None and stop.is_set()):
                raise ErosionStopped("erosion stopped before its end")
            with interruptible():
                sediment = _erode_pass_kernel(
                    out, eroded_here, deposited_here, np.int64(lo), brush_dy, brush_dx,
                    brush_raw, brush_weight, *constants, np.int64(k * rounds),
                    np.int64(rounds), np.int64(r), np.int64(min(r + step, last)),
                    np.int64(c0), np.int64(c1), chance, sediment, *physics, lowest,
                )  # fmt: skip
        return lo, hi, block, sediment

    changes = np.zeros(out.shape)
    workers = numba.get_num_threads()
    pool = (
        concurrent.futures.ThreadPoolExecutor(workers) if workers >= 2 and len(bands) >= 2 else None
    )
    pending: collections.deque = collections.deque()
    done = 0
    try:
        for n, band in enumerate(bands):
            if n == 0 or bands[n - 1][0] != band[0]:
                # A pass's heights, which its droplets only read: no take
                # from a cell (floor 0) can outgrow this.
                lowest = float(out.min()) - 0.0
            if pool is None:
                pending.append(run(band, lowest))
            else:
                pending.append(pool.submit(run, band, lowest))
            # Each band's changes are added in band order, whatever the
            # threads: the sums (and so the bytes) do not depend on them.
            # A pass's droplets all read the heights it started from: the
            # changes reach the heights when the pass is done.
            last_of_pass = n + 1 == len(bands) or bands[n + 1][0] != band[0]
            while pending and (last_of_pass or len(pending) > 2 * workers):
                made = pending.popleft()
                lo, hi, block, sediment = made if pool is None else made.result()
                _add_band(
                    changes, eroded, deposited, block, np.int64(hi - lo), np.int64(lo),
                    np.int64(kept_rows.start), np.int64(kept_cols.start),
                )  # fmt: skip
                carried += sediment
                spare.put(block)
                done += 1
                if progress is not None:
                    progress(done, len(bands))
            if last_of_pass:
                _apply(out, changes, clear=n + 1 < len(bands))
    finally:
        halt.set()  # workers still running stop at their next slice
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return ErosionResult(out, eroded, deposited, float(carried))


@kernel
def _add_band(changes, eroded, deposited, block, rows, lo, top, left):
    # Adds the first ``rows`` rows of a band's arrays (``block``: eroded,
    # deposited), which hold the region's rows from ``lo`` on, to the
    # totals, and clears them for the next band, in one pass over memory.
    # ``changes`` (the whole region) gets the band's deposited less its
    # eroded; ``eroded`` and ``deposited`` hold the kept cells only, from
    # region row ``top`` and column ``left``, and get the band's own.
    cols = block.shape[2]
    kept_rows, kept_cols = eroded.shape
    for i in range(rows):
        changed = changes[lo + i]
        here_eroded = block[0, i]
        here_deposited = block[1, i]
        for j in range(cols):
            changed[j] += here_deposited[j] - here_eroded[j]
        r = lo + i - top
        if 0 <= r < kept_rows:
            out_eroded = eroded[r]
            out_deposited = deposited[r]
            for j in range(kept_cols):
                out_eroded[j] += here_eroded[left + j]
                out_deposited[j] += here_deposited[left + j]
        here_eroded[:] = 0.0
        here_deposited[:] = 0.0


@kernel
def _apply_kernel(heights, field, clear):
    # Adds a pass's changes to the heights (both flat), each cell held at
    # or above min(its height before, 0.0), and clears the changes if
    # ``clear``; one pass, with numpy's bits: np.minimum(h, 0.0) and
    # np.maximum(new, lowest) both give their second operand on a tie, so
    # a height of -0.0 has floor +0.0, and a new height equal to the floor
    # comes out as the floor.
    for i in range(heights.size):
        before = heights[i]
        lowest = before if before < 0.0 else 0.0
        after = before + field[i]
        heights[i] = after if after > lowest else lowest
        if clear:
            field[i] = 0.0


def _apply(heights: np.ndarray, field: np.ndarray, *, clear: bool = True) -> None:
    """Add a pass's changes to the heights and clear them (unless ``clear``
    is False: the last pass's changes are not read again). Erosion takes no
    cell below 0 (the floor), nor below where it was if it began lower."""
    _apply_kernel(heights.reshape(-1), field.reshape(-1), clear)  # C order: views
