"""Depression filling and flow accumulation of maps larger than memory, in tiles.

Both functions read their input and write their output tile by tile
through *array-likes* (anything with ``.shape`` and numpy-style 2-D slice
reading and writing: numpy arrays, memmaps, zarr arrays), and give exactly
the bytes of the whole-map :func:`~worldgen.terrain.fill_depressions`
(``epsilon=0``) and :func:`~worldgen.terrain.flow_accumulation`. Each runs
in three steps: a task per tile that reads the tile and returns what its
perimeter needs to know; a solve over the perimeters of all tiles in this
process (memory proportional to the perimeter cells, about ``4 / tile``
of the map); a task per tile that reads the tile again and writes its
output. The tasks are module-level functions with picklable arguments, run
by ``map(function, arguments)``: the builtin ``map`` by default, or e.g. a
process pool's or a Dask client's, with tasks in other processes writing
disjoint tiles.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import numpy as np

from worldgen._jit import kernel
from worldgen.terrain._rivers import (
    D8_OFFSETS,
    _accumulation_kernel,
    _fill,
    _heap_pop,
    _heap_push,
    _heap_room,
    _pair_pop,
    _pair_push,
)

_NO_OUTLETS = np.zeros((0, 0), np.bool_)


# --------------------------------------------------------------- the tiling


def _check(source: object, out: object, tile: object, name: str) -> tuple[int, int, int]:
    shape = getattr(source, "shape", None)
    if shape is None or not hasattr(source, "__getitem__"):
        raise TypeError(
            f"{name} must be an array-like with .shape and slicing (numpy, zarr), "
            f"got {type(source).__name__}"
        )
    if len(shape) != 2 or 0 in shape:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {tuple(shape)}")
    if getattr(out, "shape", None) != tuple(shape) or not hasattr(out, "__setitem__"):
        raise ValueError(
            f"out must be a writable array-like of the shape of {name} {tuple(shape)}, "
            f"got {getattr(out, 'shape', type(out).__name__)}"
        )
    if isinstance(tile, bool) or not isinstance(tile, numbers.Integral) or not 2 <= tile <= 2**16:
        raise ValueError(f"tile must be an integer from 2 to 65536, got {tile!r}")
    return int(shape[0]), int(shape[1]), int(tile)


def _tiles(height: int, width: int, tile: int) -> list[tuple[int, int, int, int]]:
    """(y0, y1, x0, x1) of every tile, row by row."""
    return [
        (y, min(y + tile, height), x, min(x + tile, width))
        for y in range(0, height, tile)
        for x in range(0, width, tile)
    ]


def _perimeter(th: int, tw: int) -> np.ndarray:
    """(P, 2) local (y, x) of a th x tw tile's perimeter cells, each once."""
    ring = np.zeros((th, tw), bool)
    ring[[0, -1], :] = True
    ring[:, [0, -1]] = True
    return np.argwhere(ring)


def _run(map_: Callable | None, function, arguments: list) -> list:
    return list((map if map_ is None else map_)(function, arguments))


# ------------------------------------------------------- depression filling


@kernel
def _slot(key, bits):
    # Fibonacci hashing: the top ``bits`` bits of key times 2**64 / golden ratio.
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))


@kernel
def _keep_lowest(table, weights, bits, key, weight):
    # Open addressing (keys >= 0, -1 empty): the lowest weight per key.
    # Returns 1 for a new key, else 0.
    mask = table.size - 1
    i = _slot(key, bits)
    while True:
        k = table[i]
        if k == key:
            if weight < weights[i]:
                weights[i] = weight
            return 0
        if k < 0:
            table[i] = key
            weights[i] = weight
            return 1
        i = (i + 1) & mask


@kernel
def _labelled_flood(heights, labels, offsets, bits):
    # Priority flood from the perimeter cells, each with its own label
    # (labels[y, x] >= 0 there, -1 elsewhere): every cell gets the label of
    # the seed whose flood reached it, and where two floods meet, the pair
    # gets an edge weighted by the higher of the two levels (the lowest
    # such weight per pair is kept, in a table of 2**bits slots). Returns
    # the edges (a, b, weight), or None if more than half the table would
    # be used (call again with more bits). The flood is the one of
    # _flat_fill_kernel (pits filled from a queue, slopes climbed), which
    # gives every cell the same level as a strict priority flood (the
    # lowest highest height of a path from a seed), so the edges make the
    # same spill levels.
    height, width = heights.shape
    stride = width + 2
    total = (height + 2) * stride
    level = np.full(total, np.inf)
    label = np.full(total, -2, np.int32)  # -2: outside the tile, -1: not reached
    for y in range(height):
        row = (y + 1) * stride + 1
        for x in range(width):
            level[row + x] = heights[y, x]
            label[row + x] = np.int32(labels[y, x])
    step = np.empty(8, np.int64)
    for k in range(8):
        step[k] = offsets[k, 0] * stride + offsets[k, 1]
    heap = np.empty(2 * (2 * (height + width) + 1024), np.float64)
    size = 0
    for y in range(height):
        row = (y + 1) * stride + 1
        for x in range(width):
            if labels[y, x] >= 0:
                heap, size = _pair_push(heap, size, level[row + x], row + x)
    table = np.full(1 << bits, -1, np.int64)
    weights = np.empty(1 << bits, np.float64)
    count = 0
    queue = np.empty(height * width, np.int64)
    while size > 0:
        c = np.int64(heap[1])
        size = _pair_pop(heap, size)
        floor = level[c]
        queue[0] = c
        head = 0
        tail = 1
        waiting = 0
        while head < tail:
            m = queue[head]
            head += 1
            lm = level[m]
            own = label[m]
            wait = False
            for j in range(8):
                q = m + step[j]
                other = label[q]
                if other >= 0:
                    if other != own:
                        lo, hi = (own, other) if own < other else (other, own)
                        key = np.int64(lo) * 4294967296 + np.int64(hi)
                        count += _keep_lowest(table, weights, bits, key, max(lm, level[q]))
                    continue
                if other == -2:
                    continue
                lq = level[q]
                if lm == floor:
                    label[q] = own
                    if lq <= floor:
                        level[q] = floor
                    queue[tail] = q
                    tail += 1
                elif lq >= lm:
                    label[q] = own
                    queue[tail] = q
                    tail += 1
                elif not wait:
                    wait = True
                    for i in range(8):
                        r = q + step[i]
                        if label[r] >= 0 and level[r] < lq:
                            wait = False
                            break
            if wait:
                queue[waiting] = m
                waiting += 1
        if 2 * count > table.size:
            return None
        for i in range(waiting):
            m = queue[i]
            heap, size = _pair_push(heap, size, level[m], m)
    out_a = np.empty(count, np.int64)
    out_b = np.empty(count, np.int64)
    out_w = np.empty(count, np.float64)
    n = 0
    for i in range(table.size):
        if table[i] >= 0:
            out_a[n] = table[i] >> 32
            out_b[n] = table[i] & 4294967295
            out_w[n] = weights[i]
            n += 1
    return out_a, out_b, out_w


def _read_heights(source, box) -> np.ndarray:
    y0, y1, x0, x1 = box
    # A copy: a tile as wide as a C-ordered map is a view of it, and
    # _fill_finish writes the spill levels into the tile's perimeter.
    heights = np.array(source[y0:y1, x0:x1], dtype=np.float64, order="C")
    if not np.isfinite(heights).all():
        y, x = np.argwhere(~np.isfinite(heights))[0]
        raise ValueError(f"heights must be finite; heights[{y0 + y}, {x0 + x}] is not")
    return heights


def _fill_survey(arguments) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A tile's perimeter heights and the spill edges between its perimeter
    cells' floods."""
    source, box = arguments
    heights = _read_heights(source, box)
    ring = _perimeter(*heights.shape)
    labels = np.full(heights.shape, -1, np.int64)
    labels[ring[:, 0], ring[:, 1]] = np.arange(len(ring))
    # Room for 8 edges a perimeter cell (about 2 are found); more if needed.
    bits = max(10, int(len(ring) * 16).bit_length())
    found = None
    while found is None:
        found = _labelled_flood(heights, labels, D8_OFFSETS, bits)
        bits += 2
    a, b, w = found
    return heights[ring[:, 0], ring[:, 1]], a, b, w


def _fill_finish(arguments) -> None:
    """Fill a tile from its perimeter cells' spill levels; write it."""
    source, out, box, levels = arguments
    heights = _read_heights(source, box)
    ring = _perimeter(*heights.shape)
    heights[ring[:, 0], ring[:, 1]] = levels
    y0, y1, x0, x1 = box
    out[y0:y1, x0:x1] = _fill(heights, 0.0, _NO_OUTLETS)


@kernel
def _minimax(start, first, target, weight, nodes):
    # Spill level of every node: the lowest, over paths from the outside
    # (entered at ``start[node]``, +inf where it cannot be), of the highest
    # edge on the path. Edges of node u: target/weight[first[u]:first[u+1]].
    best = start.copy()
    done = np.zeros(nodes, np.bool_)
    heap = np.empty((nodes + 16, 3), np.float64)
    size = 0
    stamp = 0
    for u in range(nodes):
        if best[u] < np.inf:
            heap = _heap_room(heap, size)
            size = _heap_push(heap, size, best[u], stamp, u)
            stamp += 1
    while size > 0:
        u = np.int64(heap[0, 2])
        key = heap[0, 0]
        size = _heap_pop(heap, size)
        if done[u]:
            continue
        done[u] = True
        for e in range(first[u], first[u + 1]):
            v = target[e]
            level = max(key, weight[e])
            if level < best[v]:
                best[v] = level
                heap = _heap_room(heap, size)
                size = _heap_push(heap, size, level, stamp, v)
                stamp += 1
    return best


class _Perimeters:
    """The perimeter cells of every tile, numbered tile after tile.

    ``cells``: global (y, x) of each; ``tile``: its tile's index;
    ``start``: where each tile's cells begin (and, last, their count).
    """

    def __init__(self, height: int, width: int, side: int):
        self.width = width
        self.side = side
        self.boxes = _tiles(height, width, side)
        rings = [_perimeter(y1 - y0, x1 - x0) for y0, y1, x0, x1 in self.boxes]
        self.cells = np.concatenate(
            [ring + np.array([box[0], box[2]]) for box, ring in zip(self.boxes, rings)]
        )
        self.tile = np.concatenate([np.full(len(ring), t) for t, ring in enumerate(rings)])
        self.start = np.cumsum([0] + [len(ring) for ring in rings])
        self._key = self.cells[:, 0] * width + self.cells[:, 1]
        self._order = np.argsort(self._key)

    def of(self, t: int) -> slice:
        """The numbers of tile ``t``'s cells."""
        return slice(self.start[t], self.start[t + 1])

    def tile_at(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The tile holding each cell (y, x)."""
        return (y // self.side) * ((self.width + self.side - 1) // self.side) + x // self.side

    def find(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The numbers of the perimeter cells at (y, x)."""
        found = np.searchsorted(self._key, y * self.width + x, sorter=self._order)
        return self._order[found]


def _neighbours_across(ring: _Perimeters, height: int, width: int):
    """Pairs (i, j) of perimeter cells that are 8-neighbours in different tiles."""
    pairs_i, pairs_j = [], []
    for dy, dx in D8_OFFSETS.tolist():
        y = ring.cells[:, 0] + dy
        x = ring.cells[:, 1] + dx
        inside = (y >= 0) & (y < height) & (x >= 0) & (x < width)
        keep = inside & (ring.tile_at(y, x) != ring.tile)
        pairs_i.append(np.nonzero(keep)[0])
        pairs_j.append(ring.find(y[keep], x[keep]))
    return np.concatenate(pairs_i), np.concatenate(pairs_j)


def tiled_fill(heights, out, *, tile: int = 1024, map: Callable | None = None) -> None:
    """Fill the depressions of a height field tile by tile, into ``out``.

    Parameters
    ----------
    heights : array-like, shape (H, W)
        Finite heights, read a tile at a time.
    out : array-like, shape (H, W)
        Where the filled heights go (float64 or wider), written a tile at a
        time; equal, byte for byte, to ``fill_depressions(heights)``.
    tile : int
        Tile side in cells (2 to 65536).
    map : callable, optional
        ``map(function, arguments)`` running the per-tile tasks (default:
        the builtin ``map``; a process pool's or ``distributed`` client's
        run them elsewhere).

    Notes
    -----
    Barnes, "Parallel priority-flood depression filling for trillion cell
    digital elevation models" (Computers & Geosciences 96, 2016). With
    ``epsilon = 0`` a filled height is the lowest, over paths to the map's
    border, of the highest height on the path, so it can be assembled from
    tiles exactly:

    1. per tile, a priority flood from every perimeter cell, each with its
       own label, records the lowest level at which each pair of floods
       meets (the saddle between them inside the tile);
    2. a graph of all perimeter cells, joined by those saddles, by their
       height to 8-neighbours in other tiles, and to the outside at their
       own height on the map's border, gives each perimeter cell its spill
       level (the lowest highest edge of a path from the outside: a
       priority flood over the graph);
    3. per tile, a priority flood from the perimeter cells at their spill
       levels fills the inside.

    The values are copies of heights, never computed, so the bytes equal
    the whole-map fill. Memory: a tile per task, and the perimeter cells'
    graph in this process.
    """
    height, width, tile = _check(heights, out, tile, "heights")
    ring = _Perimeters(height, width, tile)
    surveys = _run(map, _fill_survey, [(heights, box) for box in ring.boxes])
    cells = ring.cells
    own = np.concatenate([s[0] for s in surveys])
    a = np.concatenate([s[1] + ring.start[t] for t, s in enumerate(surveys)])
    b = np.concatenate([s[2] + ring.start[t] for t, s in enumerate(surveys)])
    w = np.concatenate([s[3] for s in surveys])
    i, j = _neighbours_across(ring, height, width)
    src = np.concatenate([a, b, i])
    dst = np.concatenate([b, a, j])
    weight = np.concatenate([w, w, np.maximum(own[i], own[j])])
    order = np.argsort(src, kind="stable")
    first = np.searchsorted(src[order], np.arange(len(cells) + 1))
    edge = (cells[:, 0] == 0) | (cells[:, 0] == height - 1)
    edge |= (cells[:, 1] == 0) | (cells[:, 1] == width - 1)
    start = np.where(edge, own, np.inf)
    levels = _minimax(start, first, dst[order], weight[order], len(cells))
    _run(
        map,
        _fill_finish,
        [(heights, out, box, levels[ring.of(t)]) for t, box in enumerate(ring.boxes)],
    )


# -------------------------------------------------------- flow accumulation


@kernel
def _prepare(codes, y0, x0, height, width, offsets):
    # One pass over a tile's codes: the first bad cell (a code outside -1
    # to 7, or one pointing off the map) as (y, x), or (-1, -1); the mask
    # of cells whose flow leaves the tile; the codes with those set to -1.
    th, tw = codes.shape
    leaves = np.zeros((th, tw), np.bool_)
    inside = np.empty((th, tw), np.int8)
    for y in range(th):
        for x in range(tw):
            d = codes[y, x]
            inside[y, x] = -1
            if d < -1 or d > 7:
                return y, x, leaves, inside
            if d < 0:
                continue
            yy = y + offsets[d, 0]
            xx = x + offsets[d, 1]
            if not (0 <= y0 + yy < height and 0 <= x0 + xx < width):
                return y, x, leaves, inside
            if 0 <= yy < th and 0 <= xx < tw:
                inside[y, x] = d
            else:
                leaves[y, x] = True
    return -1, -1, leaves, inside


def _read_directions(source, box, height, width):
    """A tile's codes (int64), the cells whose flow leaves it, and the codes
    with those cells' set to -1; bad codes refused as the whole map does."""
    y0, y1, x0, x1 = box
    codes = np.asarray(source[y0:y1, x0:x1])
    if codes.dtype.kind not in "iu":
        raise TypeError(
            f"directions must hold integer D8 codes, got dtype {codes.dtype}; "
            "pass the output of flow_directions()"
        )
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    y, x, leaves, inside = _prepare(codes, y0, x0, height, width, D8_OFFSETS)
    if y >= 0:
        code = codes[y, x]
        if not -1 <= code <= 7:
            raise ValueError(
                f"directions must hold codes -1 to 7 (see D8_OFFSETS), found {code} at "
                f"directions[{y0 + y}, {x0 + x}]"
            )
        raise ValueError(
            f"directions[{y0 + y}, {x0 + x}] = {code} points off the map; "
            "border cells must point inward or be -1"
        )
    return codes, leaves, inside


def _local(inside: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Accumulation within the tile (flow leaving it stops), each cell
    contributing ``start``."""
    accumulation, _, done = _accumulation_kernel(inside, D8_OFFSETS, start)
    if done < inside.size:
        raise ValueError(
            "directions contain a cycle; pass the output of flow_directions() on a filled field"
        )
    return accumulation


@kernel
def _exits(codes, leaves, ring, offsets):
    # For each perimeter cell, the index (in ``ring``) of the cell where its
    # downstream path leaves the tile, or -1 if the path ends at a sink
    # inside. Each cell's answer is kept once found, so every cell is
    # walked at most once.
    th, tw = codes.shape
    known = np.full((th, tw), -2, np.int64)  # -2: not yet known
    for p in range(ring.shape[0]):
        if leaves[ring[p, 0], ring[p, 1]]:
            known[ring[p, 0], ring[p, 1]] = p
    path = np.empty(th * tw, np.int64)
    out = np.empty(ring.shape[0], np.int64)
    for p in range(ring.shape[0]):
        y = ring[p, 0]
        x = ring[p, 1]
        length = 0
        while known[y, x] == -2:
            path[length] = y * tw + x
            length += 1
            d = codes[y, x]
            if d < 0:
                known[y, x] = -1
                break
            y += offsets[d, 0]
            x += offsets[d, 1]
        answer = known[y, x]
        for i in range(length):
            known[path[i] // tw, path[i] % tw] = answer
        out[p] = answer
    return out


def _flow_survey(arguments):
    """A tile's local accumulation on its perimeter, each perimeter cell's
    exit, and the code of each perimeter cell."""
    source, box, height, width = arguments
    codes, leaves, inside = _read_directions(source, box, height, width)
    accumulation = _local(inside, np.ones(codes.shape))
    ring = _perimeter(*codes.shape)
    exits = _exits(codes, leaves, ring, D8_OFFSETS)
    return accumulation[ring[:, 0], ring[:, 1]], exits, codes[ring[:, 0], ring[:, 1]]


def _flow_finish(arguments) -> None:
    """The tile's accumulation: what enters at a perimeter cell flows down
    its path as that cell's own contribution would."""
    source, out, box, height, width, inflow = arguments
    codes, _, inside = _read_directions(source, box, height, width)
    start = np.ones(codes.shape)
    ring = _perimeter(*codes.shape)
    start[ring[:, 0], ring[:, 1]] += inflow
    y0, y1, x0, x1 = box
    out[y0:y1, x0:x1] = _local(inside, start)


@kernel
def _propagate(total, exit_of, target):
    # Topological order over the exit cells (Kahn): an exit cell's total
    # (local accumulation, plus what enters the tile upstream of it) passes
    # into the cell it flows to (``target``, another tile's perimeter cell)
    # and on to that cell's exit. Returns each perimeter cell's inflow and
    # how many exits were done (fewer than all: a cycle).
    nodes = total.shape[0]
    waiting = np.zeros(nodes, np.int64)
    for e in range(nodes):
        if target[e] >= 0 and exit_of[target[e]] >= 0:
            waiting[exit_of[target[e]]] += 1
    inflow = np.zeros(nodes, np.float64)
    queue = np.empty(nodes, np.int64)
    tail = 0
    exits = 0
    for e in range(nodes):
        if target[e] >= 0:
            exits += 1
            if waiting[e] == 0:
                queue[tail] = e
                tail += 1
    head = 0
    while head < tail:
        e = queue[head]
        head += 1
        t = target[e]
        inflow[t] += total[e]
        s = exit_of[t]
        if s >= 0:
            total[s] += total[e]
            waiting[s] -= 1
            if waiting[s] == 0 and target[s] >= 0:
                queue[tail] = s
                tail += 1
    return inflow, head, exits


def tiled_flow_accumulation(
    directions,
    out,
    *,
    tile: int = 1024,
    map: Callable | None = None,
) -> None:
    """How many cells drain through each cell, tile by tile, into ``out``.

    Parameters
    ----------
    directions : array-like of int, shape (H, W)
        D8 codes -1 to 7 (as from :func:`~worldgen.terrain.flow_directions`),
        read a tile at a time.
    out : array-like, shape (H, W)
        Where the accumulation goes (float64), written a tile at a time;
        equal, byte for byte, to ``flow_accumulation(directions)``.
    tile : int
        Tile side in cells (2 to 65536).
    map : callable, optional
        ``map(function, arguments)`` running the per-tile tasks, as for
        :func:`tiled_fill`.

    Raises
    ------
    TypeError, ValueError
        As :func:`~worldgen.terrain.flow_accumulation`: non-integer codes,
        codes outside -1 to 7, a cell pointing off the map, a cycle.

    Notes
    -----
    Barnes, "Parallel non-divergent flow accumulation for trillion cell
    digital elevation models" (ISPRS Journal 2018): per tile, the
    accumulation of the flow inside it and, for each perimeter cell, the
    cell where its path leaves the tile; over all tiles, the flow leaving
    each tile is passed (in topological order of these exits) to the tiles
    it enters; per tile again, what enters at each perimeter cell is added
    along its path. Counts are integers in float64, so sums in any order
    are exact and the bytes equal the whole-map accumulation.
    """
    height, width, tile = _check(directions, out, tile, "directions")
    ring = _Perimeters(height, width, tile)
    surveys = _run(map, _flow_survey, [(directions, box, height, width) for box in ring.boxes])
    total = np.concatenate([s[0] for s in surveys])
    exit_of = np.concatenate(
        [np.where(s[1] >= 0, s[1] + ring.start[t], -1) for t, s in enumerate(surveys)]
    )
    codes = np.concatenate([s[2] for s in surveys])
    # The cell each perimeter cell flows to, if that lies in another tile.
    d = np.maximum(codes, 0)
    y = ring.cells[:, 0] + D8_OFFSETS[d, 0]
    x = ring.cells[:, 1] + D8_OFFSETS[d, 1]
    leaves = (codes >= 0) & (ring.tile_at(y, x) != ring.tile)
    target = np.full(len(codes), -1, np.int64)
    target[leaves] = ring.find(y[leaves], x[leaves])
    inflow, done, exits = _propagate(total, exit_of, target)
    if done < exits:
        raise ValueError(
            f"directions contain a cycle ({exits - done} tile exits never reach a cell "
            "coded -1); pass the output of flow_directions() on a filled field"
        )
    _run(
        map,
        _flow_finish,
        [
            (directions, out, box, height, width, inflow[ring.of(t)])
            for t, box in enumerate(ring.boxes)
        ],
    )
