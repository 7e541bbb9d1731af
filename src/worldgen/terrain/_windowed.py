"""Windowed carving: DLA ridges, erosion, rivers and lakes as pure functions of a window.

Erosion and water need neighbours, so a window cannot be carved on its own
the way a noise window is made. Here every stage is defined on the whole
(infinite) plane of a map's pixel grid, from fixed world tiles and regions,
so any window is the crop of the same world and equals, byte for byte, the
same window cut from a bigger one, made in any order or thread count.

Hydraulic erosion (passes of independent droplets)
    Droplets are seeded per world cell, and run in two passes; every
    droplet of a pass runs on the heights the pass started from, and the
    pass's changes are summed, band by band of 128 world rows in world
    order (the bands on threads), before the next pass (see
    :func:`~worldgen.terrain._erosion.erode_cells`). A cell
    then depends only on the map's heights within the erosion halo (138
    cells with the default droplets: two passes of twice a droplet's reach,
    ``lifetime + radius + 1``, and one), so a window is eroded on itself
    grown by the halo and cropped: no tiles, no blending, no seams, and
    every window is the crop of any bigger one. The second pass's droplets
    follow the channels the first pass cut, which keeps the feedback that
    makes valleys.

    Rain falls on land only: no droplet starts where the ground is below
    the map's sea level, and a droplet ends where it reaches the sea, its
    sediment carried off. The seabed away from the coast is left as the
    map made it.

    Overhead: a window of ``W`` cells a side runs the droplets of about
    ``((W + 68)^2 + (W + 206)^2) / 2`` cells at the full density (1.3
    times a 1024^2 window's cells, 1.14 times a 2048^2 one's). Carved windows are kept in a small
    LRU cache, so that a window inside one is cropped from it.

DLA ridges
    Grown per world tile (``TILE + BAND`` square, with a seed hashed from
    the map's seed and the tile) and blended by a smooth partition of
    unity: in each axis a tile's weight rises from 0 to 1 across the
    ``BAND`` cells centred on its border, by the quintic ``6u^5 - 15u^4 +
    10u^3`` whose mirror image completes it to 1; the tiles' weighted
    ridges are summed in tile order (row, then column).

Thermal erosion
    Exact: ``n`` iterations of the thermal scheme read neighbours' heights
    and neighbours' shares, so a cell depends on cells within ``2 n``; a
    window is eroded with a halo of ``2 n`` cells and cropped. The talus
    slope is ``4 / max(width, height)`` of the map's nominal size.

Rivers and lakes
    A river depends on its whole catchment, which has no bound on an
    unmasked plane. Two cases:

    - Masked maps (islands, archipelagos): the mask lowers everything
      beyond its radius to the sea, so the land is finite. Hydrology is
      computed once over the mask's whole bounding box (plus a small
      margin) and every window draws from it: exact and continuous
      everywhere. (Boxes larger than ``MAX_BOX`` cells a side fall back to
      regions.)
    - Unmasked maps: the plane is cut into square regions of
      ``river_region`` cells, the grid centred on the map's nominal
      rectangle (so a map no bigger than a region lies in one), each
      computed on the region grown by ``river_halo`` cells (water leaves
      through that grown edge).
      Inside a region rivers are exact and continuous across any window or
      tile border; a river crossing a region border may change width or
      stop there, when its catchment reaches beyond the halo.

    The river threshold is a number of cells, a constant of the config
    (never the window's size); lakes (filled pits) smaller than
    ``min_lake`` cells are not drawn. Rivers and lakes are kept on land
    only.
"""

from __future__ import annotations

import collections
import math
import threading
from collections.abc import Callable

import numpy as np

from worldgen.noise._seed import derive_seed
from worldgen.terrain._dla import dla_mountains
from worldgen.terrain._erosion import (
    MAX_DROPLETS_PER_CELL,
    ErosionResult,
    erode_cells,
    erosion_halo,
    thermal_erode,
)
from worldgen.terrain._rivers import RiverResult, lake_sizes, rivers
from worldgen.world._window import Window

TILE = 256
BAND = 64
# Masked maps whose land box is wider than this fall back to regions.
MAX_BOX = 4096
# Cells kept beyond a mask's radius, so that the box's edge is sea.
BOX_PAD = 8
# Tags for derived seeds (the same as the whole-map pipeline's).
EROSION_TAG, DLA_TAG = 0x45524F44, 0x444C41


class _LRU:
    """A small thread-safe least-recently-used cache."""

    def __init__(self, size: int):
        self.size = size
        self.items: collections.OrderedDict = collections.OrderedDict()
        self.lock = threading.Lock()

    def __contains__(self, key) -> bool:
        with self.lock:
            return key in self.items

    def put(self, key, value) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def get(self, key, make: Callable[[], object]):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = make()
        self.put(key, value)
        return value

    def find(self, accept: Callable[[object], bool]):
        """The most recently used ``(key, value)`` whose key ``accept``
        takes, or None."""
        with self.lock:
            for key in reversed(self.items):
                if accept(key):
                    self.items.move_to_end(key)
                    return key, self.items[key]
        return None

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


_RIDGES = _LRU(128)
_REGIONS = _LRU(4)
_RANGES = _LRU(16)
# Carved windows (final heights, eroded and deposited maps): a window inside
# one is cropped from it.
_CARVED = _LRU(2)


def clear_caches() -> None:
    """Forget every cached tile and region (results do not change)."""
    for cache in (_RIDGES, _REGIONS, _RANGES, _CARVED):
        cache.clear()


# ------------------------------------------------------------------ weights


def _ramp(u: np.ndarray) -> np.ndarray:
    u = np.clip(u, 0.0, 1.0)
    return u * u * u * (u * (u * 6.0 - 15.0) + 10.0)


def _axis_weights(start: int, count: int, index: int) -> np.ndarray:
    """Weights of tile ``index`` on cells ``start .. start + count - 1`` of one axis."""
    d = np.arange(start - index * TILE, start - index * TILE + count, dtype=np.int64)
    rising = _ramp((d + (BAND // 2) + 0.5) / BAND)
    falling = _ramp((d - TILE + (BAND // 2) + 0.5) / BAND)
    return rising * (1.0 - falling)


def _tiles_over(start: int, count: int) -> range:
    """Tiles whose weight is non-zero somewhere on cells ``start .. start + count - 1``
    of one axis: tile ``i`` weighs cells ``i * TILE - BAND / 2 .. (i + 1) * TILE +
    BAND / 2 - 1``."""
    half = BAND // 2
    return range((start - half) // TILE, (start + count - 1 + half) // TILE + 1)


def overlap(a: Window, b: Window) -> Window | None:
    x0, y0 = max(a.x, b.x), max(a.y, b.y)
    x1 = min(a.x + a.width, b.x + b.width)
    y1 = min(a.y + a.height, b.y + b.height)
    if x1 <= x0 or y1 <= y0:
        return None
    return Window(x0, y0, x1 - x0, y1 - y0)


def _tile_seed(seed: int, tag: int, i: int, j: int) -> int:
    # Tile indices as small non-negative tags: the zigzag order 0, -1, 1, -2, ...
    def zigzag(k: int) -> int:
        return 2 * k if k >= 0 else -2 * k - 1

    return derive_seed(derive_seed(derive_seed(seed, tag), zigzag(i)), zigzag(j))


def _blend(
    window: Window, fetch_row: Callable[[int, list[int]], dict], fields: int
) -> list[np.ndarray]:
    """Sum of the tiles' fields weighted by the partition of unity, tile by
    tile in (row, column) order; ``fetch_row(j, columns)`` gives, for each
    column ``i``, tile ``(i, j)``'s fields on its weighted square (``TILE +
    BAND`` cells, from cell ``i * TILE - BAND / 2``). A row of tiles is
    dropped once it is summed."""
    half = BAND // 2
    out = [np.zeros(window.shape) for _ in range(fields)]
    columns = list(_tiles_over(window.x, window.width))
    for j in _tiles_over(window.y, window.height):
        wy = _axis_weights(window.y, window.height, j)
        rows = np.flatnonzero(wy)
        r0, r1 = int(rows[0]), int(rows[-1]) + 1
        tiles = fetch_row(j, columns)
        for i in columns:
            wx = _axis_weights(window.x, window.width, i)
            cols = np.flatnonzero(wx)
            c0, c1 = int(cols[0]), int(cols[-1]) + 1
            weight = wy[r0:r1, None] * wx[None, c0:c1]
            sy = window.y + r0 - (j * TILE - half)
            sx = window.x + c0 - (i * TILE - half)
            values = tiles[i]
            for k in range(fields):
                part = values[k][sy : sy + r1 - r0, sx : sx + c1 - c0]
                out[k][r0:r1, c0:c1] += weight * part
    return out


def _union(a: Window, b: Window) -> Window:
    x0, y0 = min(a.x, b.x), min(a.y, b.y)
    x1 = max(a.x + a.width, b.x + b.width)
    y1 = max(a.y + a.height, b.y + b.height)
    return Window(x0, y0, x1 - x0, y1 - y0)


def _inside(part: Window, whole: Window) -> bool:
    return overlap(part, whole) == part


def _area(window: Window) -> int:
    return window.width * window.height


# -------------------------------------------------------------------- world


class World:
    """The carving stages of one (map config, terrain config) pair, for any window.

    Every method is a pure function of the configs and its window; caches
    only save work.

    Parameters
    ----------
    map_config, config
        The map and how it is carved.
    shared : bool
        True (default): ridge tiles, river regions and carved windows go to
        the process-wide caches, so that later windows (tiles of a big map,
        the explorer's views) reuse them. False: they are kept by this
        object only, and freed with it: for one window made once.
    """

    def __init__(self, map_config, config, *, shared: bool = True):
        self.map_config = map_config
        self.config = config
        self.key = repr((map_config, config))
        self.shared = shared
        terrain = map_config.terrain
        self.seed = map_config.seed
        self.size = max(terrain.width, terrain.height)
        area = terrain.width * terrain.height
        droplets = area // 4 if config.droplets is None else config.droplets
        if droplets > MAX_DROPLETS_PER_CELL * area:
            raise ValueError(
                f"droplets must be at most {MAX_DROPLETS_PER_CELL} per map cell "
                f"({MAX_DROPLETS_PER_CELL * area:,} for this {terrain.width} x {terrain.height} "
                f"map), got {droplets:,}; the default is one per four cells"
            )
        self.density = droplets / area
        self.level = map_config.sea_level
        self.box = self._land_box()
        # Heights before erosion of one window, which the windows asked for
        # are cropped from while it covers them: (window, unit heights,
        # shaped heights).
        self._canvas: tuple[Window, np.ndarray, np.ndarray] | None = None
        # A world's water kinds and discharge, made beside the heights of
        # the last covered window: (window, kinds, discharge), the two None
        # where no rivers are drawn.
        self._world_water: tuple[Window, np.ndarray | None, np.ndarray | None] | None = None
        self._own: dict = {}  # this object's caches when not shared

    def _cached(self, cache: _LRU, key: tuple, make: Callable[[], object]):
        if self.shared:
            return cache.get((self.key, *key), make)
        mine = self._own.setdefault(id(cache), {})
        if key not in mine:
            mine[key] = make()
        return mine[key]

    def release(self) -> None:
        """Drop the heights and carved windows this object holds (results do
        not change; the process-wide caches are kept)."""
        self._canvas = self._world_water = None
        self._own.clear()

    # -- heights

    def _made_heights(self, window: Window) -> np.ndarray:
        """The map's heights in [0, 1] after mask and curve (as
        :func:`~worldgen.terrain.make_layers` makes them); ``'local'``
        normalisation stretches the whole map's range, so that a window is
        the crop of the whole map."""
        config = self.map_config
        terrain = config.terrain
        if config.world is not None:
            # The world's rivers come with its carved ground: kept for
            # world_water, so that they are not drawn again.
            self._world_water = None
            metres, kinds, discharge = config.world_water(window)
            self._world_water = (window, kinds, discharge)
            return config.unit_from_metres(metres, out=metres)  # in place: ours
        if config.seamless:
            return config.unit_elevation(config.elevation(window))
        lo, hi = _RANGES.get(repr(terrain), lambda: _range(terrain.raw()))
        raw = terrain.raw(window)
        heights = np.clip((raw - lo) / (hi - lo), 0.0, 1.0) if hi > lo else np.zeros_like(raw)
        wx, wy = terrain.world_axes(window)
        return config.curve(config.mask.apply(heights, wx, wy))

    def _ridges(self, i: int, j: int) -> tuple[np.ndarray]:
        def make():
            seed = _tile_seed(self.seed, DLA_TAG, i, j)
            return (dla_mountains(TILE + BAND, seed=seed),)

        return self._cached(_RIDGES, (i, j), make)

    def _ridge_row(self, j: int, columns: list[int]) -> dict:
        return {i: self._ridges(i, j) for i in columns}

    def cover(self, window: Window) -> None:
        """Make the heights before erosion of ``window`` at once, so that
        every window inside it (erosion regions, carved windows) is cut
        from them instead of made again: every height is a pure function
        of its cell, so a crop is the same bytes."""
        if self._canvas is not None and _inside(window, self._canvas[0]):
            return
        self._canvas = None  # before making the next one
        unit = self._made_heights(window)
        shaped = unit
        amount = self.config.dla
        if amount > 0.0:
            (ridges,) = _blend(window, self._ridge_row, 1)
            shaped = (1.0 - amount) * unit + amount * ridges
        self._canvas = (window, unit, shaped)

    def unit_heights(self, window: Window) -> np.ndarray:
        """The map's heights in [0, 1] of ``window`` (before ridges and
        erosion). Read only when cut from the covered window."""
        if self._canvas is not None and _inside(window, self._canvas[0]):
            return self._canvas[1][crop_index(window, self._canvas[0])]
        return self._made_heights(window)

    def shaped(self, window: Window) -> np.ndarray:
        """Heights in [0, 1] before erosion: the map's, DLA ridges blended
        in. Read only when cut from the covered window."""
        if self._canvas is not None and _inside(window, self._canvas[0]):
            return self._canvas[2][crop_index(window, self._canvas[0])]
        heights = self._made_heights(window)
        amount = self.config.dla
        if amount > 0.0:
            (ridges,) = _blend(window, self._ridge_row, 1)
            heights = (1.0 - amount) * heights + amount * ridges
        return heights

    def world_water(self, window: Window) -> tuple[np.ndarray, np.ndarray]:
        """A world's water kinds (uint8) and river discharge (float32) of
        ``window``, as :func:`~worldgen.world._fields.water_kinds` makes
        them (zeros where no rivers are drawn): cut from those made with
        the heights of the last covered window while it holds ``window``."""
        from worldgen.world._fields import water_kinds
        from worldgen.world._rivers import drawn

        kept = self._world_water
        if kept is not None and _inside(window, kept[0]):
            inner = crop_index(window, kept[0])
            if kept[1] is None:
                return np.zeros(window.shape, np.uint8), np.zeros(window.shape, np.float32)
            return kept[1][inner], kept[2][inner]
        if not drawn(self.map_config.world, window):
            return np.zeros(window.shape, np.uint8), np.zeros(window.shape, np.float32)
        return water_kinds(self.map_config.world, window)

    def span(self, window: Window) -> Window:
        """The window to carve for ``window`` and its rivers (whose water
        needs their regions' whole carved heights): a region that holds the
        window, or the window grown to the regions it meets when that is
        less work than carving them apart, else the window itself. Carved
        windows already kept count as done."""
        if (
            not self.config.rivers
            or self.map_config.world is not None  # a world's rivers are its own
            or self._kept(window) is not None
        ):
            return window
        grown = [g for _, g in self._regions(window)]
        for region in grown:
            if _inside(window, region):
                return region
        todo = [g for g in grown if not _inside(g, window) and self._kept(g) is None]
        union = window
        for region in todo:
            union = _union(union, region)
        apart = _area(window) + sum(_area(region) for region in todo)
        return union if _area(union) <= apart else window

    def _kept(self, window: Window):
        """A kept carving ``(span, arrays)`` whose span holds ``window``, or None."""
        if self.shared:
            found = _CARVED.find(lambda key: key[0] == self.key and _inside(window, key[1]))
            return None if found is None else (found[0][1], found[1])
        mine = self._own.get("carved", {})
        return next(((k, v) for k, v in mine.items() if _inside(window, k)), None)

    def prepare(self, window: Window, progress: Callable[..., None] | None = None) -> np.ndarray:
        """Carve :meth:`span` of ``window`` and keep it, so that
        :meth:`carve` and :meth:`water` of ``window`` are cut from it;
        return the map's heights of ``window`` before carving (as
        :meth:`unit_heights`). The heights made for the carving are
        dropped."""
        self.carve(self.span(window), progress=progress, copy=False)
        unit = np.array(self.unit_heights(window))
        self._canvas = None
        return unit

    def carve(
        self,
        window: Window,
        progress: Callable[..., None] | None = None,
        *,
        copy: bool = True,
    ) -> tuple[np.ndarray, ErosionResult | None]:
        """Final heights in [0, 1] and the erosion maps of ``window``
        (``copy=False``: views of the kept carving, read only)."""
        found = self._kept(window)
        if found is None:
            carved = self._carve(window, progress)
            if self.shared:
                for array in carved:
                    if array is not None:
                        array.setflags(write=False)
                _CARVED.put((self.key, window), carved)
            else:
                self._own.setdefault("carved", {})[window] = carved
            span = window
        else:
            span, carved = found
        inner = crop_index(window, span)
        heights, eroded, deposited = (None if a is None else a[inner] for a in carved)
        if copy:
            heights = heights.copy()
        if eroded is None:
            return heights, None
        if copy:
            eroded, deposited = eroded.copy(), deposited.copy()
        # What left the window (or went under the sea floor's clip).
        net = float(eroded.sum() - deposited.sum())
        return heights, ErosionResult(heights, eroded, deposited, net)

    def _carve(self, window: Window, progress: Callable[..., None] | None) -> tuple:
        iterations = self.config.thermal
        halo = 2 * iterations
        big = window.grown(halo)
        eroded = deposited = None
        if self.density > 0.0:
            region = big.grown(erosion_halo(self.config.erosion))
            self.cover(region)
            if progress is not None:
                progress("erosion", 0, 1)
            inner = crop_index(big, region)
            result = erode_cells(
                self.shaped(region),  # erode_cells works on its own copy
                (region.x, region.y),
                self.density,
                seed=derive_seed(self.seed, EROSION_TAG),
                params=self.config.erosion,
                sea_level=self.level,
                progress=None if progress is None else lambda d, t: progress("erosion", d, t),
                maps=inner,  # arrays of their own, of the cells kept
            )
            heights = result.heights[inner]
            if iterations:  # else clipped into an array of its own below
                heights = heights.copy()
            eroded, deposited = result.eroded, result.deposited
            del result
        else:
            self.cover(big)
            heights = self.shaped(big).copy()
        if iterations:
            if progress is not None:
                progress("thermal")
            heights = thermal_erode(heights, iterations, talus=4.0 / self.size)
        inner = crop_index(window, big)
        heights = np.clip(heights[inner], 0.0, 1.0)
        if eroded is not None and halo:
            eroded, deposited = eroded[inner].copy(), deposited[inner].copy()
        return heights, eroded, deposited

    # -- water

    def _land_box(self) -> Window | None:
        """The mask's land, plus a margin of sea, in pixel cells; None if
        the land is not bounded (or too big to take whole)."""
        config = self.map_config
        mask, terrain = config.mask, config.terrain
        if config.world is not None or mask.shape == "none" or terrain.normalize == "none":
            return None
        if float(config.curve(np.zeros((1, 1)))[0, 0]) > self.level:
            return None
        cx = mask.centre[0] + terrain.width / 2 - terrain.offset[0]
        cy = mask.centre[1] + terrain.height / 2 - terrain.offset[1]
        x0 = math.floor(cx - mask.radius) - BOX_PAD
        y0 = math.floor(cy - mask.radius) - BOX_PAD
        side = math.ceil(2 * mask.radius) + 2 * BOX_PAD + 1
        if side > MAX_BOX:
            return None
        return Window(x0, y0, side, side)

    def _regions(self, window: Window) -> list[tuple[Window, Window]]:
        """(core, grown) of each river region that meets ``window``."""
        if self.box is not None:
            return [(self.box, self.box)] if overlap(self.box, window) else []
        size, halo = self.config.river_region, self.config.river_halo
        terrain = self.map_config.terrain
        # The grid is centred on the map's nominal rectangle, so that a map
        # no bigger than a region (and a small halo around it) lies in one.
        x0, y0 = (terrain.width - size) // 2, (terrain.height - size) // 2
        out = []
        for ry in range((window.y - y0) // size, (window.y + window.height - 1 - y0) // size + 1):
            for rx in range(
                (window.x - x0) // size, (window.x + window.width - 1 - x0) // size + 1
            ):
                core = Window(x0 + rx * size, y0 + ry * size, size, size)
                out.append((core, core.grown(halo)))
        return out

    def _water(self, core: Window, grown: Window):
        def make():
            heights, _ = self.carve(grown, copy=False)
            result = rivers(heights, threshold=self.config.threshold(self.map_config))
            land = heights > self.level
            lakes = result.lakes & land
            if self.config.min_lake > 1:
                lakes &= lake_sizes(lakes) >= self.config.min_lake
            inner = crop_index(core, grown)
            return (
                result.filled[inner].copy(),
                result.directions[inner].copy(),
                result.accumulation[inner].copy(),
                (result.river & land)[inner].copy(),
                lakes[inner].copy(),
                result.threshold,
            )

        return self._cached(_REGIONS, ("water", core), make)

    def water(self, window: Window, heights: np.ndarray) -> RiverResult:
        """Rivers and lakes of ``window``, whose final heights are ``heights``."""
        filled = heights.copy()
        directions = np.full(window.shape, -1, np.int8)
        accumulation = np.ones(window.shape)
        river = np.zeros(window.shape, bool)
        lakes = np.zeros(window.shape, bool)
        threshold = float(self.config.threshold(self.map_config))
        for core, grown in self._regions(window):
            part = overlap(core, window)
            if part is None:
                continue
            values = self._water(core, grown)
            threshold = values[5]
            here = crop_index(part, window)
            for target, source in zip((filled, directions, accumulation, river, lakes), values[:5]):
                target[here] = source[crop_index(part, core)]
        return RiverResult(filled, directions, accumulation, river, lakes, threshold)


def _range(values: np.ndarray) -> tuple[float, float]:
    return float(values.min()), float(values.max())


def crop_index(part: Window, whole: Window) -> tuple[slice, slice]:
    """Index of the cells of ``part`` in an array holding ``whole``."""
    y, x = part.y - whole.y, part.x - whole.x
    return np.s_[y : y + part.height], np.s_[x : x + part.width]
