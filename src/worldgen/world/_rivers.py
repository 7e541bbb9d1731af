"""Rivers, lakes and the sea in any window, drawn from the regions' drainage.

A window's water is made from the drainage of every region near it
(:mod:`~worldgen.world._drainage`), sample by sample:

- **Sea** where the model's elevation is below 0.
- **Lake** where a lake of the drainage level is among the four drainage
  samples around the sample and the ground is below its level.
- **River** within half a river's width of a segment's curve (and never
  narrower than 1.5 samples, so a river is a connected line at every
  level), when the river drains at least ``(VISIBLE * step)^2`` cells:
  big rivers show from far out, small ones as one zooms in. Where several
  segments cover a sample, the lowest water surface wins. The surface
  along a segment runs linearly between its ends, so it never rises
  downstream.
- **Carving**, at steps of at most :data:`CARVE_STEP` cells: a river's
  bed is its surface less its depth (so the bed never rises downstream
  either), and its banks slope down to it at :data:`BANK_SLOPE` (the
  ground is lowered, never raised, beside a river).

Every rule is pointwise given the regions' drainage, a pure function of
the config: a window made alone equals the same samples of a bigger one.
A sample depends on the regions whose :meth:`~worldgen.world._drainage.
Region.box` is within :data:`REACH` cells (plus a step) of it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from worldgen._jit import kernel
from worldgen.world import _drainage
from worldgen.world._config import WorldConfig
from worldgen.world._lod import sample_axes
from worldgen.world._window import Window

DRY, RIVER, LAKE, SEA = 0, 1, 2, 3
VISIBLE = 16.0  # a river shows at step s when it drains (VISIBLE s)^2 cells
MIN_HALF_WIDTH = 0.75  # samples: rivers stay 8-connected
CARVE_STEP = 4  # carve beds and banks at steps up to this
# Products draw rivers in windows of steps up to continent_size / this
# (1024 cells by default: a window of 256 samples then meets a few dozen
# regions of the continent lattice at most, each solved once; far coarser,
# one window would solve hundreds).
DRAWN_SPAN = 64


def drawn(config: WorldConfig, window: Window) -> bool:
    """Whether products draw rivers in ``window`` (its step is at most
    ``continent_size / DRAWN_SPAN``)."""
    return window.step <= config.continent_size // DRAWN_SPAN


BANK_SLOPE = 0.5  # metres a cell beside a river
BANK = 12.0  # cells of bank at most
REACH = BANK + 64.0  # cells: a bank and more than the widest river's half-width


@dataclasses.dataclass
class Water:
    """A window's water (arrays of its shape).

    Attributes
    ----------
    kind : uint8
        0 dry, 1 river, 2 lake, 3 sea.
    surface : float64 or None
        Water surface (metres): the river's or the lake's level, 0 on the
        sea, the ground elsewhere (None when not asked for).
    discharge : float32 or None
        m^3/s in rivers, 0 elsewhere (None when not asked for).
    ground : float64
        The elevation with river beds and banks carved (the model's at
        steps above :data:`CARVE_STEP`).
    """

    kind: np.ndarray
    surface: np.ndarray | None
    discharge: np.ndarray | None
    ground: np.ndarray


def _bounds(cols: np.ndarray, rows: np.ndarray, step: int) -> tuple[float, float, float, float]:
    """``(x0, x1, y0, y1)``: the cells a window's samples cover."""
    half = 0.5 * step
    return (
        float(cols[0]) - half, float(cols[-1]) + half, float(rows[0]) - half, float(rows[-1]) + half
    )  # fmt: skip


def solved(config: WorldConfig, window: Window) -> bool:
    """Whether the water of ``window`` is drawn without solving a region:
    its step draws no rivers, or every region :func:`water` would read is
    solved and kept (:func:`~worldgen.world._drainage.kept`)."""
    if not drawn(config, window):
        return True
    x0, x1, y0, y1 = _bounds(*sample_axes(window), window.step)
    reach = REACH + window.step
    return all(
        _drainage.kept(config, region)
        for region in _drainage.regions_near(config, x0 - reach, y0 - reach, x1 + reach, y1 + reach)
    )


_NO_FLOW = np.empty((0, 0), np.float32)  # discharge is recorded only when asked for


def water(
    config: WorldConfig, window: Window, elevation: np.ndarray, *, surfaces: bool = True
) -> Water:
    """The water of ``window`` whose model elevation is ``elevation``
    (``surfaces=False``: only the kinds and the ground, what a picture
    reads; the surface and the discharge are then None)."""
    shape = window.shape
    step = window.step
    cols, rows = sample_axes(window)
    x0, x1, y0, y1 = _bounds(cols, rows, step)
    reach = REACH + step
    carve = step <= CARVE_STEP
    # Drawn in place: the kinds (the sea first, where nothing else is
    # drawn), the ground (the elevation, river beds and banks cut into it
    # as the rivers are drawn), the lowest river surface (the water surface
    # at the end) and the winning river's discharge.
    elevation = np.ascontiguousarray(elevation, dtype=np.float64)
    kind = np.empty(shape, np.uint8)
    ground = np.empty(shape)
    _sea(elevation, kind, ground)
    best = np.full(shape, np.inf)
    flow = np.zeros(shape, np.float32) if surfaces else _NO_FLOW
    min_area = max(_drainage.river_area(config), (VISIBLE * step) ** 2)
    extra = BANK if carve else 0.0
    min_hw = MIN_HALF_WIDTH * step
    lakes = []
    for region in _drainage.regions_near(config, x0 - reach, y0 - reach, x1 + reach, y1 + reach):
        solved = _drainage.network(config, region)
        # Segments are sorted by their northern edge, and none is taller
        # than two drainage steps and a bit (jitter and the curve's swing).
        tall = 3.0 * solved.window.step
        far = (max(0.5 * solved.widest, min_hw) if solved.segments.width.size else 0.0) + extra
        shown = _drainage.visible(config, region, min_area, solved)
        if shown.index.size:
            lo = int(shown.north.searchsorted(y0 - far - tall, side="left"))
            hi = int(shown.north.searchsorted(y1 + far, side="right"))
            if lo < hi:
                seg = shown.segments
                _draw(
                    seg.points, seg.surface, seg.discharge, seg.depth, seg.width, seg.box,
                    shown.index[lo:hi], min_hw, cols, rows, float(step), carve, BANK,
                    BANK_SLOPE, kind, best, ground, flow,
                )  # fmt: skip
        j0, j1, i0, i1 = solved.lakes
        g = solved.window
        if j0 <= j1 and _meets(rows, g.y, g.step, j0, j1) and _meets(cols, g.x, g.step, i0, i1):
            # Only the lakes' runs are kept for later, not the network: a
            # window meeting thousands of regions holds at most the cache's.
            lakes.append((solved.run_start, solved.lake_runs, solved.run_levels, g))
    for run_start, lake_runs, run_levels, g in lakes:
        _lakes(
            run_start, lake_runs, run_levels, g.width, g.height, g.x, g.y, float(g.step), cols,
            rows, elevation, surfaces, kind, best, ground, flow,
        )  # fmt: skip
    if not surfaces:
        return Water(kind, None, None, ground)
    _surface(kind, ground, best)
    return Water(kind, best, flow, ground)


@kernel
def _draw(points, ends, discharge, depths, widths, boxes, order, min_hw, cols, rows, step,
          carve, bank_cells, slope, kind, best, ground, flow):  # fmt: skip
    # The segments in order whose box, grown by their reach, meets the
    # window's samples, over samples of land (kind 0 or 1). A river
    # sample's ground is its bed (where beds are carved) and its flow the
    # discharge (where ``flow`` is not empty) of the segment with the
    # lowest surface, the first of those in order; a bank lowers the ground
    # of dry samples, down to the sea level at most.
    x0 = cols[0]
    y0 = rows[0]
    half_step = 0.5 * step
    wx0, wx1 = x0 - half_step, cols[cols.size - 1] + half_step
    wy0, wy1 = y0 - half_step, rows[rows.size - 1] + half_step
    pieces = points.shape[1] - 1
    flows = flow.size > 0
    near = np.empty(cols.size)
    at = np.empty(cols.size)
    first = np.empty(pieces, np.int64)
    last = np.empty(pieces, np.int64)
    top = np.empty(pieces, np.int64)
    bottom = np.empty(pieces, np.int64)
    for s in order:
        hw = max(0.5 * widths[s], min_hw)
        reach = hw + (bank_cells if carve else 0.0)
        if (
            boxes[s, 0] - reach > wx1 or boxes[s, 2] + reach < wx0
            or boxes[s, 1] - reach > wy1 or boxes[s, 3] + reach < wy0
        ):  # fmt: skip
            continue
        c0 = max(int(np.ceil((boxes[s, 0] - reach - x0) / step)), 0)
        c1 = min(int(np.floor((boxes[s, 2] + reach - x0) / step)), cols.size - 1)
        r0 = max(int(np.ceil((boxes[s, 1] - reach - y0) / step)), 0)
        r1 = min(int(np.floor((boxes[s, 3] + reach - y0) / step)), rows.size - 1)
        if c1 < c0:
            continue
        # Each piece is measured only at the samples within reach of its
        # box (and a cell more, far above rounding): a piece farther from a
        # sample than its reach is never the nearest one of a sample within
        # reach, so every sample drawn has the nearest piece, the same
        # distance and the same position along the curve as over the whole
        # rectangle. Each piece's run of a row is a loop that vectorises.
        far = reach + 1.0
        for k in range(pieces):
            ax = points[s, k, 0]
            bx = points[s, k + 1, 0]
            ay = points[s, k, 1]
            by = points[s, k + 1, 1]
            first[k] = max(int(np.ceil((min(ax, bx) - far - x0) / step)), c0)
            last[k] = min(int(np.floor((max(ax, bx) + far - x0) / step)), c1)
            top[k] = max(int(np.ceil((min(ay, by) - far - y0) / step)), r0)
            bottom[k] = min(int(np.floor((max(ay, by) + far - y0) / step)), r1)
            if last[k] < first[k]:  # no column within reach
                bottom[k] = top[k] - 1
        for r in range(r0, r1 + 1):
            y = rows[r]
            lo = c1 + 1
            hi = c0 - 1
            for k in range(pieces):
                if top[k] <= r <= bottom[k]:
                    lo = min(lo, first[k])
                    hi = max(hi, last[k])
            if hi < lo:
                continue
            near[lo : hi + 1] = np.inf
            at[lo : hi + 1] = 0.0
            for k in range(pieces):
                if r < top[k] or r > bottom[k]:
                    continue
                ax = points[s, k, 0]
                ay = points[s, k, 1]
                dx = points[s, k + 1, 0] - ax
                dy = points[s, k + 1, 1] - ay
                length = dx * dx + dy * dy
                cross = (y - ay) * dy
                for c in range(first[k], last[k] + 1):
                    x = cols[c]
                    u = 0.0
                    if length > 0.0:
                        u = min(max(((x - ax) * dx + cross) / length, 0.0), 1.0)
                    ex = ax + u * dx - x
                    ey = ay + u * dy - y
                    d = ex * ex + ey * ey
                    if d < near[c]:
                        near[c] = d
                        at[c] = (k + u) / pieces
            for c in range(lo, hi + 1):
                dist = np.sqrt(near[c])
                if dist > reach or kind[r, c] == 3:
                    continue
                surface = ends[s, 0] + (ends[s, 1] - ends[s, 0]) * at[c]
                if dist <= hw:
                    if surface < best[r, c]:
                        best[r, c] = surface
                        kind[r, c] = 1
                        if carve:
                            ground[r, c] = max(surface, 0.0) - depths[s]
                        if flows:
                            flow[r, c] = discharge[s]
                elif carve and kind[r, c] == 0:
                    # A bank slopes down to the river, but never cuts dry
                    # ground below the sea (by a mouth, whose surface is
                    # below it): such ground would be dry land under water.
                    level = surface + slope * (dist - hw)
                    if level < ground[r, c]:
                        ground[r, c] = max(level, min(ground[r, c], 0.0))


def _meets(axis: np.ndarray, origin: int, step: int, first: int, last: int) -> bool:
    """Whether samples at ``axis`` (ascending) read a drainage sample from
    ``first`` to ``last`` on that axis (a drainage level whose samples sit
    at the centres of blocks of ``step`` cells from ``origin``): as
    :func:`_lakes` reads them, each sample the two around it."""
    half = 0.5 * (step - 1.0)
    lo = math.floor((float(axis[0]) - origin - half) / step)
    hi = math.floor((float(axis[-1]) - origin - half) / step)
    return hi + 1 >= first and lo <= last


@kernel
def _first_from(values, bound, beyond):
    """The first index of ascending ``values`` whose value is at least
    ``bound`` (above it, with ``beyond``), else ``values.size``: what
    ``np.searchsorted`` gives with side "left" (or "right"), for a fifth
    of its compile (which also builds numba's complex comparisons)."""
    lo = 0
    hi = values.size
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] > bound or (values[mid] == bound and not beyond):
            hi = mid
        else:
            lo = mid + 1
    return lo


@kernel
def _lakes(start, runs, levels, width, height, gx0, gy0, gstep, cols, rows, elevation,
           surfaces, kind, surface, ground, flow):  # fmt: skip
    # Land samples below the highest lake level among the four drainage
    # samples around them (of a drainage window of height x width samples,
    # at block centres) are lake: the water at that level (the highest of
    # every region's), the ground uncarved and no flow. Only samples that
    # read a lake are visited, run by run of lake samples in the two
    # drainage rows around a row (``runs[start[j]:start[j + 1]]`` for row
    # j, see Network); the window's columns ascend, so the samples that
    # read a run are one run too. A sample is visited once for each of its
    # rows with a lake, each time for the highest level of that row's two:
    # it is lake where it is below either, at the highest of them.
    half = 0.5 * (gstep - 1.0)
    left = np.empty(cols.size, np.int64)
    for c in range(cols.size):
        left[c] = int(np.floor((cols[c] - gx0 - half) / gstep))
    lo = max(left[0], 0)
    hi = min(left[cols.size - 1], width - 2)
    for r in range(rows.size):
        j = int(np.floor((rows[r] - gy0 - half) / gstep))
        if j < 0 or j + 1 >= height:
            continue
        for q in range(start[j], start[j + 2]):
            i0, i1, at = runs[q, 0], runs[q, 1], runs[q, 2]
            if i1 < lo or i0 - 1 > hi:
                continue
            for c in range(
                _first_from(left, max(i0 - 1, lo), False), _first_from(left, min(i1, hi), True)
            ):
                i = left[c]
                level = levels[at + i - i0] if i >= i0 else -np.inf
                if i < i1:
                    level = max(level, levels[at + i + 1 - i0])
                e = elevation[r, c]
                if e < level and kind[r, c] != 3:
                    if kind[r, c] != 2:
                        kind[r, c] = 2
                        ground[r, c] = e
                        if surfaces:
                            surface[r, c] = level
                            flow[r, c] = 0.0
                    elif surfaces and level > surface[r, c]:
                        surface[r, c] = level


@kernel
def _sea(elevation, kind, ground):
    # The ground starts as the elevation; below 0 is the sea, the rest dry.
    height, width = elevation.shape
    for r in range(height):
        for c in range(width):
            e = elevation[r, c]
            ground[r, c] = e
            kind[r, c] = 3 if e < 0.0 else 0


@kernel
def _surface(kind, ground, best):
    # The water surface, in place of the rivers' lowest surfaces: 0 on the
    # sea, a river's surface (never below 0), a lake's level (set by
    # _lakes), the ground elsewhere.
    height, width = kind.shape
    for r in range(height):
        for c in range(width):
            k = kind[r, c]
            if k == 3:
                best[r, c] = 0.0
            elif k == 1:
                best[r, c] = max(best[r, c], 0.0)
            elif k == 0:
                best[r, c] = ground[r, c]
