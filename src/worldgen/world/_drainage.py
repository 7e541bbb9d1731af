"""Drainage of whole landmasses: each region of the continent lattice solved once.

Every landmass lies inside one region of the continent lattice, with ocean
all round it (:mod:`~worldgen.world._continents`), so its drainage depends
on that region alone: there is no border for a river to stop at. A region
is solved at the *drainage level*, one sample every ``step =
continent_size / 512`` cells (128 cells by default), over the region's
square or block grown by the lattice's warp (a tenth of a square on each
side), about 614 x 614 samples for a square and 1228 x 1228 for a block:

1. The model's elevation and rainfall at those samples (band-limited for
   the level, as every field is).
2. Samples of other regions are outlets (they are ocean: every region's
   margin is); depressions are filled by a priority flood with a small
   slope (:func:`~worldgen.terrain.fill_depressions`). The filled heights
   then go through :data:`EVOLUTION_STEPS` steps of landscape evolution
   (:mod:`~worldgen.world._evolution`: uplift proportional to the filled
   elevation, :data:`UPLIFT` of it in all, against implicit stream-power
   erosion, after Braun and Willett 2013 and Cordonnier et al. 2016), and
   each sample drains to its steepest lower neighbour on that evolved
   surface (D8): a tree whose roots are the outlets, whose rivers follow
   dendritic valleys between divides. The evolved surface only routes the
   water; depths of lakes and water surfaces below are measured on the
   filled model elevation. Measured over three sets of landmasses of two
   worlds each (as ``tests/world/test_drainage.py`` measures), the network
   keeps to Hack's law with an exponent of 0.51-0.54 (0.44-0.46 on D8 over
   the filled heights alone) and Horton's bifurcation ratio 3.4-3.6.
3. Catchment (cells draining through a sample, land only) and discharge
   (m^3/s: the rainfall on that catchment, all of it running off) are summed
   down the tree.
4. Lakes: land samples the filling raised by more than
   :data:`LAKE_DEPTH` metres, grouped by their spill point (the first
   sample below the lake on the way down), kept where the lake is deeper
   than :data:`LAKE_MIN` somewhere and its spill point drains at least
   :func:`river_area` cells, so every lake has a river flowing out of it.
   Its level is the filled height at the spill point. Every lake drains:
   no basin is closed.
5. The *water surface* of a river at a sample is the lowest of the ground
   there (the model's elevation at full detail, at the river's point) and
   the surfaces upstream of it, and never below the level of the lake the
   water flows into: so it never rises downstream, nor into a lake.
6. Rivers: samples draining at least :func:`river_area` cells, followed a
   few samples out to sea (down the shelf) so that a river's mouth is in
   open water at every level of detail. Each river sample draws a
   *segment* to the sample it drains to, a Catmull-Rom curve through the
   sample's main tributary, itself, its receiver and the receiver's
   receiver, every point jittered by a hash of its lattice position (up to
   :data:`JITTER` of a step), so rivers meander and do not follow the
   lattice.

Solved regions are kept in memory (the last :data:`CACHED` of them, and
at most :data:`KEPT_BYTES` with the rivers each level shows of them); a
region's solution is a pure function of the config and the region, so
every window at every level sees the same rivers. :mod:`~worldgen.world._rivers` draws
them into windows.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import threading

import numpy as np

from worldgen._jit import kernel
from worldgen.noise._seed import derive_seed
from worldgen.terrain._rivers import fill_depressions
from worldgen.world import _climate, _continents, _elevation, _evolution, _scratch
from worldgen.world._config import WorldConfig
from worldgen.world._hash import uniform3
from worldgen.world._lod import sample_axes
from worldgen.world._window import Window

SAMPLES = 512  # drainage samples along a continent square
RIVER_SAMPLES = 8  # a river drains at least this many drainage samples of land
LAKE_DEPTH = 0.5  # metres the filling must raise a sample for a lake ...
LAKE_MIN = 4.0  # ... and somewhere in the lake at least this many
JITTER = 0.3  # of a step: how far a river's points move off the lattice
PIECES = 8  # straight pieces per segment
SEA_STEPS = 4  # samples a river is followed out to sea
SHELF = 0.12  # ... while the sea floor is above this share of the ocean depth
EPSILON = 1e-3  # metres: the slope the filling gives flats, per sample
CACHED = 128  # regions whose networks are kept in memory ...
KEPT_BYTES = 768 * 2**20  # ... in at most this many bytes, with what levels show of them
EVOLUTION_STEPS = _evolution.STEPS  # steps of landscape evolution ...
UPLIFT = 1.0  # ... over which the land rises by this share of its height
SECONDS_A_YEAR = 365.25 * 86400.0
_JITTER_TAG = 0x52495601
_OFFSETS = np.array(
    [[0, 1], [1, 1], [1, 0], [1, -1], [0, -1], [-1, -1], [-1, 0], [-1, 1]], dtype=np.int64
)
_OFFSETS.flags.writeable = False


def drainage_step(config: WorldConfig) -> int:
    """Cells between the drainage level's samples."""
    return config.continent_size // SAMPLES


def river_area(config: WorldConfig) -> float:
    """Cells of land a river drains at least: :data:`RIVER_SAMPLES`
    drainage samples."""
    return float(RIVER_SAMPLES * drainage_step(config) ** 2)


@dataclasses.dataclass(frozen=True)
class Region:
    """One region of the continent lattice: a square (``scale`` 1) or a
    merged 2 x 2 block of squares (``scale`` 2) at lattice position
    ``(i, j)`` in units of its own size."""

    scale: int
    i: int
    j: int

    def box(self, config: WorldConfig) -> tuple[int, int, int, int]:
        """``(x0, y0, x1, y1)``: the cells that can hold its landmass (its
        square or block grown by the lattice's warp), end exclusive."""
        size = self.scale * config.continent_size
        grow = math.ceil(_continents.WARP * config.continent_size)
        return (self.i * size - grow, self.j * size - grow,
                (self.i + 1) * size + grow, (self.j + 1) * size + grow)  # fmt: skip

    def window(self, config: WorldConfig) -> Window:
        """The drainage level's samples over :meth:`box` (one sample more
        all round, always ocean)."""
        step = drainage_step(config)
        x0, y0, x1, _ = self.box(config)
        x0, y0 = (x0 // step - 1) * step, (y0 // step - 1) * step
        n = -(-(x1 - x0) // step) + 1
        return Window(x0, y0, n, n, step)


def regions_near(config: WorldConfig, x0: float, y0: float, x1: float, y1: float) -> list[Region]:
    """The regions whose :meth:`Region.box` meets the rectangle ``[x0, x1] x
    [y0, y1]`` of cells, in a fixed order."""
    size = config.continent_size
    grow = _continents.WARP + 1e-9
    i0, i1 = math.floor(x0 / size - grow), math.floor(x1 / size + grow)
    j0, j1 = math.floor(y0 / size - grow), math.floor(y1 / size + grow)
    cols = np.arange(i0, i1 + 1, dtype=np.int64)
    rows = np.arange(j0, j1 + 1, dtype=np.int64)
    ci = np.tile(cols, rows.size)
    cj = np.repeat(rows, cols.size)
    merged = _merged(config, ci >> 1, cj >> 1)
    found = {}
    for i, j, m in zip(ci.tolist(), cj.tolist(), merged.tolist(), strict=True):
        region = Region(2, i >> 1, j >> 1) if m else Region(1, i, j)
        bx0, by0, bx1, by1 = region.box(config)
        if bx0 <= x1 and x0 < bx1 and by0 <= y1 and y0 < by1:
            found[region] = None
    return list(found)


def _merged(config: WorldConfig, bi: np.ndarray, bj: np.ndarray) -> np.ndarray:
    seed = np.uint64(derive_seed(config.seed, _continents._MERGE))
    return _continents._merges(seed, bi, bj)


def _members(config: WorldConfig, window: Window, region: Region, warp: tuple = ()) -> np.ndarray:
    """Which samples of ``window`` lie in ``region`` (by their warped
    position, as the continents place them); ``warp``: the warp noises'
    values at the samples (flat, as the relief of ``window`` has them),
    made here if not given."""
    cols, rows = sample_axes(window)
    step = float(window.step)
    if not warp:
        warp = tuple(n.grid(config.seed, cols, rows, step) for n in _continents.warp_noises(config))
    wx, wy = (np.ascontiguousarray(w, dtype=np.float64).reshape(-1) for w in warp)
    out = np.empty(window.shape, dtype=np.bool_)
    _members_kernel(
        np.ascontiguousarray(cols, dtype=np.float64), np.ascontiguousarray(rows, dtype=np.float64),
        wx, wy, _continents.WARP, float(config.continent_size),
        np.uint64(derive_seed(config.seed, _continents._MERGE)), np.int64(region.scale),
        np.int64(region.i), np.int64(region.j), out,
    )  # fmt: skip
    return out


_MERGED = _continents.MERGED


@kernel
def _members_kernel(cols, rows, wx, wy, warp, size, seed, scale, ri, rj, out):
    # out[r, c]: whether sample (cols[c], rows[r]) lies in region (scale,
    # ri, rj) by its warped position (wx, wy: the warp noises, row by row):
    # the square (i, j) it falls in, and whether that square's 2 x 2 block
    # is merged into one region (the hash only where the block or square is
    # the region's). numpy's order of operations, so the same bits:
    # cols / size + WARP * wx, floored.
    n = 0
    for r in range(rows.size):
        for c in range(cols.size):
            i = np.int64(math.floor(cols[c] / size + warp * wx[n]))
            j = np.int64(math.floor(rows[r] / size + warp * wy[n]))
            if scale == 2:
                inside = (i >> 1) == ri and (j >> 1) == rj
                out[r, c] = inside and uniform3(seed, i >> 1, j >> 1, 0) < _MERGED
            else:
                inside = i == ri and j == rj
                out[r, c] = inside and not uniform3(seed, i >> 1, j >> 1, 0) < _MERGED
            n += 1


@dataclasses.dataclass(frozen=True)
class Segments:
    """A region's river segments, one per river sample (arrays of length n).

    Attributes
    ----------
    points : float64, shape (n, PIECES + 1, 2)
        The curve from the sample to its receiver, ``(x, y)`` in cells.
    surface : float64, shape (n, 2)
        Water surface (metres) at the two ends; never rising.
    discharge : float64
        m^3/s flowing down the segment.
    area : float64
        Cells of land it drains.
    width, depth : float64
        Metres (cells) across, and of water at the bed.
    box : float64, shape (n, 4)
        ``(x0, y0, x1, y1)`` around the curve; segments are sorted by
        ``y0``.
    """

    points: np.ndarray
    surface: np.ndarray
    discharge: np.ndarray
    area: np.ndarray
    width: np.ndarray
    depth: np.ndarray
    box: np.ndarray

    @property
    def nbytes(self) -> int:
        """Bytes of its arrays."""
        return sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self))


@dataclasses.dataclass(frozen=True)
class Drainage:
    """A region's solved drainage (see the module docstring).

    Attributes
    ----------
    region : Region
    window : Window
        The drainage level's samples.
    elevation : float64, (H, W)
        The model's elevation at them.
    receiver : int64, (H, W)
        Flat index of the sample each drains to, -1 for outlets.
    area : float64, (H, W)
        Cells of land draining through each sample.
    discharge : float64, (H, W)
        m^3/s through each sample.
    river : bool, (H, W)
        River samples.
    lake : float64, (H, W)
        Lake level (metres) at lake samples, ``-inf`` elsewhere.
    segments : Segments
    """

    region: Region
    window: Window
    elevation: np.ndarray
    receiver: np.ndarray
    area: np.ndarray
    discharge: np.ndarray
    river: np.ndarray
    lake: np.ndarray
    segments: Segments


def river_width(discharge: np.ndarray) -> np.ndarray:
    """Metres across a river carrying ``discharge`` m^3/s (hydraulic
    geometry, width ~ Q^0.5, Leopold and Maddock 1953), at least 1.5."""
    return np.maximum(4.0 * np.sqrt(discharge), 1.5)


def river_depth(discharge: np.ndarray) -> np.ndarray:
    """Metres of water in a river carrying ``discharge`` m^3/s (depth ~
    Q^0.4), from 0.5 to 6."""
    return np.minimum(0.5 + 0.5 * discharge**0.4, 6.0)


def solve(config: WorldConfig, region: Region) -> Drainage:
    """The drainage of ``region`` (see the module docstring), with every
    array; :func:`network` keeps what windows need."""
    # Its many region-sized temporaries, each made when an earlier one is
    # no longer used, share memory (see _scratch).
    with _scratch.reusing(_scratch.Pool()):
        return _solve(config, region)


def _solve(config: WorldConfig, region: Region) -> Drainage:
    window = region.window(config)
    step = window.step
    # The relief's warp is the one the samples' regions are found with.
    made = _elevation.relief(config, window, uplift_everywhere=False)
    ground = made.elevation.reshape(window.shape)
    outside = ~_members(config, window, region, made.warp)
    del made
    # The solve needs the land and a few samples of sea round it (rivers are
    # followed SEA_STEPS samples out): the rest is ocean, an outlet anyway.
    land = (ground >= 0.0) & ~outside
    rows = np.flatnonzero(land.any(axis=1))
    cols = np.flatnonzero(land.any(axis=0))
    if rows.size:
        pad = SEA_STEPS + 2
        r0, r1 = max(rows[0] - pad, 0), min(rows[-1] + pad + 1, window.height)
        c0, c1 = max(cols[0] - pad, 0), min(cols[-1] + pad + 1, window.width)
    else:
        r0, r1, c0, c1 = 0, 3, 0, 3
    window = Window(window.x + c0 * step, window.y + r0 * step, c1 - c0, r1 - r0, step)
    ground = np.ascontiguousarray(ground[r0:r1, c0:c1])
    outside = np.ascontiguousarray(outside[r0:r1, c0:c1])
    outside[0, :] = outside[-1, :] = outside[:, 0] = outside[:, -1] = True
    land = (ground >= 0.0) & ~outside
    axes = sample_axes(window)
    rain = _climate.rainfall(config, *axes, step)
    filled = fill_depressions(ground, epsilon=EPSILON, outlets=outside)
    # The sea that drains to the outlets stays as it is; the land rises
    # and wears.
    routing = _evolution.evolve(
        filled,
        outside | (filled < 0.0),
        uplift=np.maximum(filled, 0.0) * (UPLIFT / EVOLUTION_STEPS),
        steps=EVOLUTION_STEPS,
        epsilon=EPSILON,
    )
    order = descending_order(routing)
    cell_area = float(step) * float(step)
    runoff = rain * (cell_area / 1000.0 / SECONDS_A_YEAR)
    n = routing.size
    receiver, donor, seaward = (_scratch.empty(n, np.int64) for _ in range(3))
    area, discharge = _scratch.empty(n), _scratch.empty(n)
    river = _scratch.empty(n, np.bool_)
    _network(
        routing, outside, land, order, runoff, cell_area, river_area(config), ground,
        -SHELF * config.ocean_depth, SEA_STEPS, _OFFSETS, receiver, area, discharge, donor,
        river, seaward,
    )  # fmt: skip
    del seaward
    # The ground at each river's point, at full detail.
    px, py = _jittered(config, window)
    at = np.flatnonzero(river)
    fine = np.zeros(river.size)
    fine[at] = _elevation.relief_points(config, px.ravel()[at], py.ravel()[at], 1.0).elevation
    spill = _scratch.empty(n, np.int64)
    depth, deepest, lake, floor, surface, upstream = (_scratch.empty(n) for _ in range(6))
    _lakes_and_surfaces(
        filled, ground, land, order, receiver, area, river, fine, river_area(config),
        LAKE_DEPTH, LAKE_MIN, depth, spill, deepest, lake, floor, surface, upstream,
    )  # fmt: skip
    del depth, spill, deepest, floor, upstream
    lake = lake.reshape(window.shape)
    shape = window.shape
    receiver, area, discharge, river = (
        v.reshape(shape) for v in (receiver, area, discharge, river)
    )
    segments = _segments(px, py, receiver, donor, surface, discharge, area, river)
    return Drainage(region, window, ground, receiver, area, discharge, river, lake, segments)


@dataclasses.dataclass(frozen=True)
class Network:
    """What windows need of a region's drainage: its river segments, and
    its lakes on the drainage samples of ``window``; ``widest`` is the
    widest segment's width (0 without segments), ``lakes`` the rows and
    columns ``(j0, j1, i0, i1)`` of ``window`` that hold every lake (end
    inclusive; ``j1 < j0`` when there are none). The lakes are kept row by
    row in runs of samples: row j's runs are
    ``lake_runs[run_start[j]:run_start[j + 1]]``, each ``(first column,
    last column, offset)``, whose levels are ``run_levels[offset: offset +
    last - first + 1]`` (the lake samples in row-major order)."""

    segments: Segments
    window: Window
    widest: float
    lakes: tuple[int, int, int, int]
    run_start: np.ndarray
    lake_runs: np.ndarray
    run_levels: np.ndarray

    @property
    def nbytes(self) -> int:
        """Bytes of its arrays."""
        return (
            self.segments.nbytes
            + self.run_start.nbytes
            + self.lake_runs.nbytes
            + self.run_levels.nbytes
        )


class _Kept:
    """Least recently used values by key, at most ``items`` of those whose
    keys start with ``"network"`` and ``nbytes`` bytes in all (a value's
    bytes by ``size(value)``); thread-safe. A value is made outside the
    lock, once: a thread that needs a value another thread is making waits
    for it (neighbouring tiles made at once need the same landmasses)."""

    def __init__(self, items: int, nbytes: int):
        self.items = items
        self.nbytes = nbytes
        self._values: collections.OrderedDict = collections.OrderedDict()
        self._making: dict[tuple, threading.Event] = {}
        self._lock = threading.Lock()
        self._used = 0
        self._networks = 0
        self.hits = self.misses = 0

    def get(self, key: tuple, make, size):
        while True:
            with self._lock:
                found = self._values.get(key)
                if found is not None:
                    self._values.move_to_end(key)
                    self.hits += 1
                    return found[0]
                making = self._making.get(key)
                if making is None:
                    self.misses += 1
                    making = self._making[key] = threading.Event()
                    break
            # Another thread is making it: take it when kept (or, if that
            # failed or it is gone again, make it here).
            making.wait()
        try:
            value = make()
            with self._lock:
                if key not in self._values:
                    self._values[key] = (value, size(value))
                    self._used += self._values[key][1]
                    self._networks += key[0] == "network"
                    while len(self._values) > 1 and (
                        self._used > self.nbytes or self._networks > self.items
                    ):
                        self._drop(next(iter(self._values)))
        finally:
            with self._lock:
                del self._making[key]
            making.set()
        return value

    def has(self, key: tuple) -> bool:
        """Whether a value of ``key`` is kept (it is not marked used)."""
        with self._lock:
            return key in self._values

    def _drop(self, key: tuple) -> None:
        _, size = self._values.pop(key)
        self._used -= size
        self._networks -= key[0] == "network"

    def clear(self, kind: str | None = None) -> None:
        """Forget the values whose keys start with ``kind`` (all without)."""
        with self._lock:
            for key in [k for k in self._values if kind is None or k[0] == kind]:
                self._drop(key)

    @property
    def used(self) -> int:
        """Bytes of the values kept."""
        return self._used

    @property
    def networks(self) -> int:
        """Networks kept."""
        return self._networks


_KEPT = _Kept(CACHED, KEPT_BYTES)
CacheInfo = collections.namedtuple("CacheInfo", "hits misses maxsize currsize")


def network(config: WorldConfig, region: Region) -> Network:
    """The river segments and lakes of ``region`` (solved once, then kept:
    the last :data:`CACHED` regions, in at most :data:`KEPT_BYTES`)."""
    return _KEPT.get(("network", config, region), lambda: _network_of(config, region), _size)


def kept(config: WorldConfig, region: Region) -> bool:
    """Whether :func:`network` has ``region`` solved and kept (no solve)."""
    return _KEPT.has(("network", config, region))


def _size(value) -> int:
    if isinstance(value, Network):
        return value.nbytes
    own, index, north = value
    seg = 0 if own is None else own.nbytes
    return seg + index.nbytes + north.nbytes


def _clear_networks() -> None:
    _KEPT.clear("network")


def _network_info() -> CacheInfo:
    return CacheInfo(_KEPT.hits, _KEPT.misses, CACHED, _KEPT.networks)


network.cache_clear = _clear_networks  # as functools.lru_cache's
network.cache_info = _network_info


def _network_of(config: WorldConfig, region: Region) -> Network:
    solved = solve(config, region)
    seg = solved.segments
    widest = float(seg.width.max()) if seg.width.size else 0.0
    wet = solved.lake > -np.inf
    rows, cols = np.flatnonzero(wet.any(axis=1)), np.flatnonzero(wet.any(axis=0))
    lakes = (0, -1, 0, -1)
    if rows.size:
        lakes = (int(rows[0]), int(rows[-1]), int(cols[0]), int(cols[-1]))
    edges = np.diff(np.pad(wet, ((0, 0), (1, 1))).view(np.int8), axis=1)
    j, first = np.nonzero(edges == 1)
    last = np.nonzero(edges == -1)[1] - 1
    runs = np.empty((j.size, 3), np.int64)
    runs[:, 0] = first
    runs[:, 1] = last
    runs[:, 2] = np.cumsum(last - first + 1) - (last - first + 1)
    start = np.zeros(wet.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(j, minlength=wet.shape[0]), out=start[1:])
    levels = solved.lake[wet]
    return Network(seg, solved.window, widest, lakes, start, runs, levels)


COMPACT = 0.25  # visible segments copied out when at most this share of a region's


@dataclasses.dataclass(frozen=True)
class Shown:
    """A region's river segments that drain at least some area: ``index``
    into ``segments`` (ascending, so sorted by their northern edges, as
    every region's segments are) and those edges, ``north``."""

    segments: Segments
    index: np.ndarray
    north: np.ndarray


def visible(
    config: WorldConfig, region: Region, min_area: float, net: Network | None = None
) -> Shown:
    """The river segments of ``region`` that drain ``min_area`` cells or
    more; kept, as the network is, for each level's ``min_area``
    (``net``: the region's network, if the caller has it).

    Where they are at most :data:`COMPACT` of the region's segments (the
    big rivers that far-out levels draw), they are copied out in their
    order, so that drawing a window reads them one after another rather
    than scattered among the others (most of the cost at those levels);
    the copies add at most that share of the network's size per level.
    """
    seg = (network(config, region) if net is None else net).segments
    own, index, north = _KEPT.get(
        ("visible", config, region, min_area), lambda: _shown(seg, min_area), _size
    )
    return Shown(seg if own is None else own, index, north)


def _shown(seg: Segments, min_area: float) -> tuple[Segments | None, np.ndarray, np.ndarray]:
    # (the copied segments or None for the network's, index, north)
    idx = np.flatnonzero(seg.area >= min_area)
    own = None
    if idx.size <= COMPACT * seg.area.size:
        own = Segments(*(getattr(seg, f.name)[idx] for f in dataclasses.fields(seg)))
        idx = np.arange(idx.size)
        seg = own
    return own, idx, np.ascontiguousarray(seg.box[idx, 1])


def _jittered(config: WorldConfig, window: Window) -> tuple[np.ndarray, np.ndarray]:
    """Each sample's river point: its centre moved by up to JITTER of a
    step, by a hash of its lattice position (the same in every region)."""
    cols, rows = sample_axes(window)
    step = window.step
    seed = np.uint64(derive_seed(config.seed, _JITTER_TAG))
    px = np.empty(window.shape)
    py = np.empty(window.shape)
    _jitter(seed, cols, rows, float(step), window.x // step, window.y // step, JITTER, px, py)
    return px, py


@kernel
def _jitter(seed, cols, rows, step, i0, j0, amount, px, py):
    for r in range(rows.size):
        for c in range(cols.size):
            i = i0 + c
            j = j0 + r
            px[r, c] = cols[c] + step * amount * (2.0 * uniform3(seed, i, j, 0) - 1.0)
            py[r, c] = rows[r] + step * amount * (2.0 * uniform3(seed, i, j, 1) - 1.0)


def descending_order(values: np.ndarray) -> np.ndarray:
    """``np.argsort(-values, axis=None, kind="stable")`` of finite float64
    ``values`` (the same indices, int64), by a radix sort: about half the
    time of numpy's merge sort on a region's samples."""
    n = values.size
    order = np.empty(n, np.int64)
    work = (_scratch.empty(n, np.uint64), _scratch.empty(n, np.uint64))
    work += (_scratch.empty(n, np.int64), _scratch.empty(n, np.int64))
    _descending(np.ascontiguousarray(values, dtype=np.float64).ravel(), order, *work)
    return order


@kernel
def _descending(values, order, keys, other_keys, index, other_index):
    # A stable sort, least significant byte first, of 64-bit keys whose
    # unsigned order is the order of -values: the bits of a float with the
    # sign bit set if it is positive, all bits flipped if negative; -0.0 is
    # first made 0.0 (numpy's comparisons find them equal, so their order
    # is the indices'). One pass counts every byte's values; a byte that
    # every key shares is skipped.
    n = values.size
    negated = keys.view(np.float64)
    for i in range(n):
        negated[i] = -values[i] + 0.0  # -0.0 + 0.0 is 0.0
    sign = np.uint64(1) << np.uint64(63)
    count = np.zeros((8, 256), np.int64)
    for i in range(n):
        b = keys[i]
        k = ~b if b & sign else b | sign
        keys[i] = k
        for d in range(8):
            count[d, (k >> np.uint64(8 * d)) & np.uint64(255)] += 1
    for i in range(n):
        index[i] = i
    for d in range(8):
        s = np.uint64(8 * d)
        if n == 0 or count[d, (keys[0] >> s) & np.uint64(255)] == n:
            continue
        total = 0
        for b in range(256):
            c = count[d, b]
            count[d, b] = total
            total += c
        for i in range(n):
            k = keys[i]
            digit = (k >> s) & np.uint64(255)
            at = count[d, digit]
            count[d, digit] = at + 1
            other_keys[at] = k
            other_index[at] = index[i]
        keys, other_keys = other_keys, keys
        index, other_index = other_index, index
    order[:] = index


@kernel
def _network(filled, outside, land, order, runoff, cell_area, min_area, ground, shelf,
             sea_steps, offsets, receiver, area, discharge, donor, river, seaward):  # fmt: skip
    # The last six: one entry a sample, set here (receiver, area,
    # discharge, donor and river are the results).
    height, width = filled.shape
    n = height * width
    receiver[:] = -1
    # D8: the steepest drop on the routing heights (every sample not an
    # outlet has a lower neighbour: the filling and the evolution see to it).
    for y in range(height):
        for x in range(width):
            p = y * width + x
            if outside[y, x]:
                continue
            best = 0.0
            for k in range(8):
                yy = y + offsets[k, 0]
                xx = x + offsets[k, 1]
                if yy < 0 or yy >= height or xx < 0 or xx >= width:
                    continue
                drop = filled[y, x] - filled[yy, xx]
                if k & 1:
                    drop /= math.sqrt(2.0)
                if drop > best:
                    best = drop
                    receiver[p] = yy * width + xx
    area[:] = 0.0
    discharge[:] = 0.0
    donor[:] = -1
    river[:] = False
    seaward[:] = 0  # samples a river has been followed out to sea
    # Sources first: sums, main tributaries and rivers, downward.
    for m in range(n):
        p = order[m]
        y = p // width
        x = p - y * width
        if land[y, x]:
            area[p] += cell_area
            discharge[p] += runoff[y, x]
            river[p] = area[p] >= min_area
        else:
            river[p] = 0 < seaward[p] <= sea_steps and ground[y, x] > shelf
        r = receiver[p]
        if r < 0:
            continue
        area[r] += area[p]
        discharge[r] += discharge[p]
        if donor[r] < 0 or area[p] > area[donor[r]]:
            donor[r] = p
        if river[p]:
            ry = r // width
            if not land[ry, r - ry * width]:
                seaward[r] = max(seaward[r], seaward[p] + 1)


@kernel
def _lakes_and_surfaces(filled, ground, land, order, receiver, area, river, fine, min_area,
                        lake_depth, lake_min, depth, spill, deepest, lake, floor, surface,
                        upstream):  # fmt: skip
    # The last seven: one entry a sample, set here (lake and surface are
    # the results).
    # Lakes: land samples raised by more than lake_depth, grouped by their
    # spill point (the first sample below the lake on the way down); kept
    # when the lake is deeper than lake_min somewhere and its spill point
    # drains min_area. Downstream first, so a receiver is done before it.
    height, width = filled.shape
    n = height * width
    flat_filled = filled.ravel()
    on_land = land.ravel()
    flat_ground = ground.ravel()
    for p in range(n):
        depth[p] = flat_filled[p] - flat_ground[p]
    spill[:] = -1
    deepest[:] = 0.0
    for m in range(n - 1, -1, -1):
        p = order[m]
        if not on_land[p] or depth[p] <= lake_depth:
            continue
        r = receiver[p]
        if r < 0:
            continue
        s = r if not (on_land[r] and depth[r] > lake_depth) else spill[r]
        spill[p] = s
        if s >= 0 and depth[p] > deepest[s]:
            deepest[s] = depth[p]
    lake[:] = -np.inf
    floor[:] = -np.inf  # the level of the first lake downstream
    for m in range(n - 1, -1, -1):
        p = order[m]
        s = spill[p]
        if s >= 0 and deepest[s] > lake_min and area[s] >= min_area:
            lake[p] = flat_filled[s]
            floor[p] = lake[p]
        elif receiver[p] >= 0:
            floor[p] = floor[receiver[p]]
    # Water surfaces, sources first: the lowest of the ground on the way,
    # never below the lake the water flows into.
    upstream[:] = np.inf
    for m in range(n):
        p = order[m]
        if lake[p] > -np.inf:
            raw = lake[p]
        elif river[p]:
            raw = min(flat_filled[p], fine[p]) if on_land[p] else min(0.0, fine[p])
        else:
            raw = flat_filled[p] if on_land[p] else 0.0
        surface[p] = max(floor[p], min(raw, upstream[p]))
        r = receiver[p]
        if r >= 0 and surface[p] < upstream[r]:
            upstream[r] = surface[p]


def _segments(px, py, receiver, donor, surface, discharge, area, river) -> Segments:
    flat_river = river.ravel()
    recv = receiver.ravel()
    starts = np.flatnonzero(flat_river & (recv >= 0))
    points = np.empty((starts.size, PIECES + 1, 2))
    ends = np.empty((starts.size, 2))
    box = np.empty((starts.size, 4))
    _curves(px.ravel(), py.ravel(), recv, donor, starts, PIECES, points, box)
    ends[:, 0] = surface[starts]
    ends[:, 1] = surface[recv[starts]]
    q = discharge.ravel()[starts]
    # By their northern edge, so a window finds its rows by bisection.
    order = np.argsort(box[:, 1], kind="stable")
    return Segments(
        points[order], ends[order], q[order], area.ravel()[starts][order],
        river_width(q[order]), river_depth(q[order]), box[order],
    )  # fmt: skip


@kernel
def _curves(px, py, receiver, donor, starts, pieces, out, box):
    # Catmull-Rom from P1 (the sample) to P2 (its receiver), through P0
    # (its main tributary, or P1 mirrored) and P3 (the receiver's
    # receiver, or P2 mirrored); the box (x0, y0, x1, y1) around its points.
    for s in range(starts.size):
        p1 = starts[s]
        p2 = receiver[p1]
        x1, y1, x2, y2 = px[p1], py[p1], px[p2], py[p2]
        p0 = donor[p1]
        if p0 >= 0:
            x0, y0 = px[p0], py[p0]
        else:
            x0, y0 = 2.0 * x1 - x2, 2.0 * y1 - y2
        p3 = receiver[p2]
        if p3 >= 0:
            x3, y3 = px[p3], py[p3]
        else:
            x3, y3 = 2.0 * x2 - x1, 2.0 * y2 - y1
        for k in range(pieces + 1):
            t = k / pieces
            t2 = t * t
            t3 = t2 * t
            out[s, k, 0] = 0.5 * (
                2.0 * x1 + (x2 - x0) * t + (2.0 * x0 - 5.0 * x1 + 4.0 * x2 - x3) * t2
                + (3.0 * x1 - x0 - 3.0 * x2 + x3) * t3
            )  # fmt: skip
            out[s, k, 1] = 0.5 * (
                2.0 * y1 + (y2 - y0) * t + (2.0 * y0 - 5.0 * y1 + 4.0 * y2 - y3) * t2
                + (3.0 * y1 - y0 - 3.0 * y2 + y3) * t3
            )  # fmt: skip
        # (Where a bound is 0.0 and -0.0 both, either is the bound: boxes
        # are only compared.)
        x_lo = x_hi = out[s, 0, 0]
        y_lo = y_hi = out[s, 0, 1]
        for k in range(1, pieces + 1):
            x_lo = min(x_lo, out[s, k, 0])
            x_hi = max(x_hi, out[s, k, 0])
            y_lo = min(y_lo, out[s, k, 1])
            y_hi = max(y_hi, out[s, k, 1])
        box[s, 0], box[s, 1], box[s, 2], box[s, 3] = x_lo, y_lo, x_hi, y_hi
