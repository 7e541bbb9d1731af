"""Rivers and lakes from a height field: depression filling, D8 flow, accumulation.

Height fields are float64 arrays of shape ``(H, W)`` indexed ``[row, col] =
[y, x]``, row 0 at the top (north). Water leaves the map through its border.

- :func:`fill_depressions`: raise every pit to its spill height (priority
  flood), optionally with a tiny slope so that no flat remains.
- :func:`flow_directions`: for each cell, the neighbour its water flows to
  (D8), with flats resolved toward their outlets.
- :func:`flow_accumulation`: how many cells drain through each cell.
- :func:`rivers`: all three, plus river and lake masks (:class:`RiverResult`).
- :func:`draw_rivers`: paint the masks onto a colour map.

Direction codes (:data:`D8_OFFSETS`) go clockwise from east, as the map is
drawn (south is down)::

    5 6 7       NW  N  NE
    4 . 0        W  .  E
    3 2 1       SW  S  SE

so code ``k`` is ESRI's direction ``2**k``; -1 means "flows nowhere".
"""

from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np
from numba import prange

from worldgen._checks import check_colour, check_real, height_field, rgb_image
from worldgen._jit import kernel, parallel_kernel

# (dy, dx) of direction code k: E, SE, S, SW, W, NW, N, NE.
D8_OFFSETS = np.array(
    [[0, 1], [1, 1], [1, 0], [1, -1], [0, -1], [-1, -1], [-1, 0], [-1, 1]], dtype=np.int64
)
D8_OFFSETS.flags.writeable = False
# Distance to the neighbour of code k: 1 along the axes, sqrt(2) diagonally.
_DISTANCES = np.array([1.0, math.sqrt(2.0)] * 4)
# Share of the cell count a river must drain when no threshold is given.
DEFAULT_RIVER_SHARE = 0.005
# The widest river draw_rivers paints: a disc of this radius in cells.
MAX_RIVER_RADIUS = 4


# ---------------------------------------------------------------- validation


def _check_epsilon(epsilon: object) -> float:
    value = check_real(epsilon, "epsilon")
    if value < 0.0:
        raise ValueError(
            f"epsilon must be >= 0 (0 fills pits flat, > 0 gives them a slope), got {epsilon!r}"
        )
    return value


def _check_directions(directions: object) -> np.ndarray:
    if isinstance(directions, (str, bytes)):
        raise TypeError(f"directions must be a 2-D array of D8 codes, got {directions!r}")
    array = np.asarray(directions)
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"directions must hold integer D8 codes, got dtype {array.dtype}; "
            "pass the output of flow_directions()"
        )
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(
            f"directions must be a non-empty 2-D array (H, W), got shape {array.shape}"
        )
    low, high = int(array.min()), int(array.max())
    if low < -1 or high > 7:
        raise ValueError(
            f"directions must hold codes -1 to 7 (see D8_OFFSETS), found values from "
            f"{low} to {high}"
        )
    return np.ascontiguousarray(array, dtype=np.int8)


def _check_outlets(outlets: object, heights: np.ndarray) -> np.ndarray:
    """A boolean (H, W) array of outlets, or an empty one for none."""
    if outlets is None:
        return np.zeros((0, 0), np.bool_)
    array = np.asarray(outlets)
    if array.dtype != np.bool_:
        raise TypeError(f"outlets must be an array of bool, got dtype {array.dtype}")
    if array.shape != heights.shape:
        raise ValueError(
            f"outlets must have the shape of heights {heights.shape}, got {array.shape}"
        )
    return np.ascontiguousarray(array)


def _check_threshold(threshold: object, cells: int) -> float:
    if threshold is None:
        return max(2.0, DEFAULT_RIVER_SHARE * cells)
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number of cells (> 0) or None, got {threshold!r}")
    value = float(threshold)
    if not (np.isfinite(value) and value > 0.0):
        raise ValueError(f"threshold must be a finite number of cells > 0, got {threshold!r}")
    return value


# ------------------------------------------------------------------- kernels


@kernel
def _heap_push(heap, size, key, stamp, item):
    # Binary min-heap of rows (key, stamp, item) ordered by (key, stamp);
    # stamps and items are integers below 2**53, exact in float64. The
    # caller guarantees room for one more row.
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent, 0] < key or (heap[parent, 0] == key and heap[parent, 1] < stamp):
            break
        heap[i, 0] = heap[parent, 0]
        heap[i, 1] = heap[parent, 1]
        heap[i, 2] = heap[parent, 2]
        i = parent
    heap[i, 0] = key
    heap[i, 1] = stamp
    heap[i, 2] = item
    return size + 1


@kernel
def _heap_pop(heap, size):
    # Remove the root row (read it first); returns the new size.
    size -= 1
    key = heap[size, 0]
    stamp = heap[size, 1]
    item = heap[size, 2]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        right = child + 1
        if right < size and (
            heap[right, 0] < heap[child, 0]
            or (heap[right, 0] == heap[child, 0] and heap[right, 1] < heap[child, 1])
        ):
            child = right
        if key < heap[child, 0] or (key == heap[child, 0] and stamp < heap[child, 1]):
            break
        heap[i, 0] = heap[child, 0]
        heap[i, 1] = heap[child, 1]
        heap[i, 2] = heap[child, 2]
        i = child
    if size > 0:
        heap[i, 0] = key
        heap[i, 1] = stamp
        heap[i, 2] = item
    return size


@kernel
def _heap_room(heap, size):
    # The heap itself, or a copy twice as tall when it is full.
    if size < heap.shape[0]:
        return heap
    # Copied by a loop: a slice assignment would compile numba's message
    # for mismatched shapes (string formatting, about 5 s of a first run).
    bigger = np.empty((2 * heap.shape[0], 3), np.float64)
    for i in range(size):
        for k in range(3):
            bigger[i, k] = heap[i, k]
    return bigger


@kernel
def _floor(value, epsilon):
    # The least height a cell reached from a cell of ``value`` may have.
    if epsilon > 0.0:
        raised = value + epsilon
        if raised > value:
            return raised
        return np.nextafter(value, np.inf)
    return value


@kernel
def _priority_flood_kernel(heights, epsilon, offsets, outlets):
    # Works on a copy padded by one closed cell all round, so neighbours
    # need no bounds checks; cells are indices into the flattened copy.
    # The flood starts from the border and from the cells where ``outlets``
    # (shape (H, W), or (0, 0) for none) is True.
    height, width = heights.shape
    stride = width + 2
    level = np.empty((height + 2) * stride, np.float64)
    closed = np.ones((height + 2) * stride, np.bool_)
    for y in range(height):
        for x in range(width):
            level[(y + 1) * stride + x + 1] = heights[y, x]
            closed[(y + 1) * stride + x + 1] = False
    step = np.empty(8, np.int64)
    for k in range(8):
        step[k] = offsets[k, 0] * stride + offsets[k, 1]
    heap = np.empty((2 * (height + width) + 1024, 3), np.float64)
    size = 0
    counter = 0
    # Cells raised to (or level with) the cell that reached them leave in
    # height order anyway, so they wait in a FIFO, not in the heap.
    pit = np.empty(height * width, np.int64)
    head = 0
    tail = 0
    # Cells the flood reaches from below keep their height; they are
    # climbed in a FIFO and enter the heap only if they border a lower cell
    # not yet reached.
    climb = np.empty(height * width, np.int64)
    for y in range(height):
        across = 1 if y == 0 or y == height - 1 else max(width - 1, 1)
        for x in range(0, width, across):
            c = (y + 1) * stride + x + 1
            if not closed[c]:
                closed[c] = True
                size = _heap_push(heap, size, level[c], counter, c)
                counter += 1
    if outlets.shape[0] > 0:
        for y in range(height):
            for x in range(width):
                c = (y + 1) * stride + x + 1
                if outlets[y, x] and not closed[c]:
                    closed[c] = True
                    heap = _heap_room(heap, size)
                    size = _heap_push(heap, size, level[c], counter, c)
                    counter += 1
    while size > 0 or head < tail:
        if head < tail and (size == 0 or level[pit[head]] <= heap[0, 0]):
            c = pit[head]
            head += 1
            if head == tail:
                head = 0
                tail = 0
        else:
            c = np.int64(heap[0, 2])
            size = _heap_pop(heap, size)
        floor = _floor(level[c], epsilon)
        for k in range(8):
            n = c + step[k]
            if closed[n]:
                continue
            closed[n] = True
            if level[n] <= floor:
                level[n] = floor
                pit[tail] = n
                tail += 1
                continue
            climb[0] = n
            top = 1
            bottom = 0
            while bottom < top:
                m = climb[bottom]
                bottom += 1
                floor_m = _floor(level[m], epsilon)
                lower = False
                for j in range(8):
                    q = m + step[j]
                    if closed[q]:
                        continue
                    if level[q] >= floor_m:
                        closed[q] = True
                        climb[top] = q
                        top += 1
                    else:
                        lower = True
                if lower:
                    heap = _heap_room(heap, size)
                    size = _heap_push(heap, size, level[m], counter, m)
                    counter += 1
    out = np.empty((height, width), np.float64)
    for y in range(height):
        for x in range(width):
            out[y, x] = level[(y + 1) * stride + x + 1]
    return out


@kernel
def _pair_push(heap, size, key, item):
    # Binary min-heap of (key, item) pairs side by side in one float64 array
    # (items are cell indices below 2**53, exact); ties leave in any order.
    if 2 * size + 2 > heap.size:
        bigger = np.empty(2 * heap.size, np.float64)
        # A loop, not a slice assignment: that would compile numba's shape
        # mismatch message (seconds of a first run).
        for k in range(2 * size):
            bigger[k] = heap[k]
        heap = bigger
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if heap[2 * parent] <= key:
            break
        heap[2 * i] = heap[2 * parent]
        heap[2 * i + 1] = heap[2 * parent + 1]
        i = parent
    heap[2 * i] = key
    heap[2 * i + 1] = item
    return heap, size + 1


@kernel
def _pair_pop(heap, size):
    # Remove the root (read it first); returns the new size. The hole goes
    # down to a leaf by the smaller child, then the last pair climbs from
    # there (one comparison a level on the way down).
    size -= 1
    key = heap[2 * size]
    item = heap[2 * size + 1]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap[2 * child + 2] < heap[2 * child]:
            child += 1
        heap[2 * i] = heap[2 * child]
        heap[2 * i + 1] = heap[2 * child + 1]
        i = child
    while i > 0:
        parent = (i - 1) >> 1
        if heap[2 * parent] <= key:
            break
        heap[2 * i] = heap[2 * parent]
        heap[2 * i + 1] = heap[2 * parent + 1]
        i = parent
    if size > 0:
        heap[2 * i] = key
        heap[2 * i + 1] = item
    return size


@kernel
def _flat_fill_kernel(heights, offsets, outlets):
    # The flat fill (epsilon 0) of _priority_flood_kernel, faster: its values
    # are unique (each cell's lowest path to an exit), so the order in which
    # equal heights leave the heap does not matter. On a copy padded by one
    # closed cell of height +inf all round; cells are indices into it.
    height, width = heights.shape
    stride = width + 2
    level = np.full((height + 2) * stride, np.inf)
    closed = np.ones((height + 2) * stride, np.bool_)
    for y in range(height):
        row = (y + 1) * stride + 1
        for x in range(width):
            level[row + x] = heights[y, x]
            closed[row + x] = False
    step = np.empty(8, np.int64)
    for k in range(8):
        step[k] = offsets[k, 0] * stride + offsets[k, 1]
    heap = np.empty(2 * (2 * (height + width) + 1024), np.float64)
    size = 0
    for y in range(height):
        across = 1 if y == 0 or y == height - 1 else max(width - 1, 1)
        for x in range(0, width, across):
            c = (y + 1) * stride + x + 1
            if not closed[c]:
                closed[c] = True
                heap, size = _pair_push(heap, size, level[c], c)
    if outlets.shape[0] > 0:
        for y in range(height):
            for x in range(width):
                c = (y + 1) * stride + x + 1
                if outlets[y, x] and not closed[c]:
                    closed[c] = True
                    heap, size = _pair_push(heap, size, level[c], c)
    queue = np.empty(height * width, np.int64)
    while size > 0:
        c = np.int64(heap[1])
        size = _pair_pop(heap, size)
        floor = level[c]
        # One queue from c: cells at the flood level reach every neighbour
        # not yet reached, raising those below it (the pit); cells above it
        # keep their heights and reach their neighbours at least as high
        # (climbing, as in Zhou, Sun and Fu 2016). A climbed cell with a
        # lower neighbour not yet reached waits in the heap at its height,
        # unless that neighbour borders a lower reached cell: that one is
        # still queued or in the heap (a cell done leaves only neighbours
        # lower than itself unreached) and will reach it.
        queue[0] = c
        head = 0
        tail = 1
        waiting = 0  # cells to put in the heap, kept in the queue's used part
        while head < tail:
            m = queue[head]
            head += 1
            lm = level[m]
            wait = False
            for j in range(8):
                q = m + step[j]
                if closed[q]:
                    continue
                lq = level[q]
                if lm == floor:
                    closed[q] = True
                    if lq <= floor:
                        level[q] = floor
                    queue[tail] = q
                    tail += 1
                elif lq >= lm:
                    closed[q] = True
                    queue[tail] = q
                    tail += 1
                elif not wait:
                    wait = True
                    for i in range(8):
                        r = q + step[i]
                        if closed[r] and level[r] < lq:
                            wait = False
                            break
            if wait:
                queue[waiting] = m
                waiting += 1
        # Outside the loop above: a heap that may grow (a new array) there
        # would keep the compiler from holding the arrays in registers.
        for i in range(waiting):
            m = queue[i]
            heap, size = _pair_push(heap, size, level[m], m)
    out = np.empty((height, width), np.float64)
    for y in range(height):
        row = (y + 1) * stride + 1
        for x in range(width):
            out[y, x] = level[row + x]
    return out


def _fill(heights: np.ndarray, epsilon: float, outlets: np.ndarray) -> np.ndarray:
    """The priority flood of :func:`fill_depressions` on checked arrays."""
    if epsilon == 0.0 and not _mixed_zeros(heights):
        return _flat_fill_kernel(heights, D8_OFFSETS, outlets)
    return _priority_flood_kernel(heights, epsilon, D8_OFFSETS, outlets)


def _mixed_zeros(heights: np.ndarray) -> bool:
    """Whether ``heights`` holds both 0.0 and -0.0: the one case where equal
    heights differ in their bytes, so that which one a flat fill copies
    depends on the order of the flood (the classic kernel's is kept)."""
    zeros = heights == 0.0
    if not zeros.any():
        return False
    signs = np.signbit(heights[zeros])
    return bool(signs.any()) and not bool(signs.all())


@parallel_kernel
def _d8_kernel(filled, offsets, distances):
    height, width = filled.shape
    out = np.empty((height, width), np.int8)
    for y in prange(height):
        for x in range(width):
            z = filled[y, x]
            best = 0.0
            code = -1
            for k in range(8):
                yy = y + offsets[k, 0]
                xx = x + offsets[k, 1]
                if 0 <= yy < height and 0 <= xx < width:
                    slope = (z - filled[yy, xx]) / distances[k]
                    if slope > best:
                        best = slope
                        code = k
            out[y, x] = code
    return out


@kernel
def _resolve_flats_kernel(filled, directions, offsets):
    # Breadth-first search from every cell that drains (or lies on the
    # border) into the level interior cells that do not: each such cell
    # points to the neighbour it was reached from, one step nearer an exit.
    height, width = filled.shape
    queue = np.empty(height * width, np.int64)
    tail = 0
    for y in range(height):
        for x in range(width):
            border = y == 0 or y == height - 1 or x == 0 or x == width - 1
            if directions[y, x] < 0 and not border:
                continue
            for k in range(8):
                yy = y + offsets[k, 0]
                xx = x + offsets[k, 1]
                if (
                    0 < yy < height - 1
                    and 0 < xx < width - 1
                    and directions[yy, xx] < 0
                    and filled[yy, xx] == filled[y, x]
                ):
                    queue[tail] = y * width + x
                    tail += 1
                    break
    head = 0
    while head < tail:
        y = queue[head] // width
        x = queue[head] % width
        head += 1
        for k in range(8):
            yy = y + offsets[k, 0]
            xx = x + offsets[k, 1]
            if (
                0 < yy < height - 1
                and 0 < xx < width - 1
                and directions[yy, xx] < 0
                and filled[yy, xx] == filled[y, x]
            ):
                directions[yy, xx] = (k + 4) % 8
                queue[tail] = yy * width + xx
                tail += 1


@kernel
def _accumulation_kernel(directions, offsets, start):
    # Returns (accumulation, index of a cell pointing off the map or -1,
    # number of cells processed: fewer than all means a cycle). ``start``:
    # what each cell contributes itself (ones: a count of cells).
    height, width = directions.shape
    cells = height * width
    codes = directions.ravel()
    step = np.empty(8, np.int64)
    for k in range(8):
        step[k] = offsets[k, 0] * width + offsets[k, 1]
    remaining = np.zeros(cells, np.int8)
    accumulation = start.ravel().copy()
    for c in range(cells):
        d = codes[c]
        if d < 0:
            continue
        y = c // width
        yy = y + offsets[d, 0]
        xx = c - y * width + offsets[d, 1]
        if yy < 0 or yy >= height or xx < 0 or xx >= width:
            return accumulation.reshape((height, width)), c, 0
        remaining[c + step[d]] += 1
    # Kahn's topological order without a queue: from each cell nothing
    # drains into, follow the flow downstream while every donor of the next
    # cell is done. ``remaining`` is -1 once a cell has passed its water on.
    done = 0
    for start in range(cells):
        if remaining[start] != 0:
            continue
        c = start
        while True:
            remaining[c] = -1
            done += 1
            d = codes[c]
            if d < 0:
                break
            t = c + step[d]
            accumulation[t] += accumulation[c]
            remaining[t] -= 1
            if remaining[t] != 0:
                break
            c = t
    return accumulation.reshape((height, width)), -1, done


@kernel
def _paint_kernel(
    out, river, lakes, accumulation, threshold, colour, lake_colour, widen, max_radius
):
    height, width = river.shape
    for y in range(height):
        for x in range(width):
            if not river[y, x]:
                continue
            radius = 0
            if widen and accumulation[y, x] > threshold:
                radius = min(int(0.5 * np.log2(accumulation[y, x] / threshold)), max_radius)
            reach = radius * (radius + 1)
            for dy in range(-radius, radius + 1):
                yy = y + dy
                if yy < 0 or yy >= height:
                    continue
                for dx in range(-radius, radius + 1):
                    xx = x + dx
                    if 0 <= xx < width and dy * dy + dx * dx <= reach:
                        for ch in range(3):
                            out[yy, xx, ch] = colour[ch]
    for y in range(height):
        for x in range(width):
            if lakes[y, x]:
                for ch in range(3):
                    out[y, x, ch] = lake_colour[ch]


@kernel
def _component_sizes_kernel(mask, offsets):
    # For each set cell, the size of its 8-connected component of set cells
    # (0 elsewhere): a flood fill from each unvisited set cell.
    height, width = mask.shape
    sizes = np.zeros((height, width), np.int64)
    seen = np.zeros((height, width), np.bool_)
    queue = np.empty(height * width, np.int64)
    for y0 in range(height):
        for x0 in range(width):
            if not mask[y0, x0] or seen[y0, x0]:
                continue
            seen[y0, x0] = True
            queue[0] = y0 * width + x0
            tail = 1
            head = 0
            while head < tail:
                cell = queue[head]
                head += 1
                y = cell // width
                x = cell - y * width
                for k in range(8):
                    yy = y + offsets[k, 0]
                    xx = x + offsets[k, 1]
                    if 0 <= yy < height and 0 <= xx < width and mask[yy, xx] and not seen[yy, xx]:
                        seen[yy, xx] = True
                        queue[tail] = yy * width + xx
                        tail += 1
            for n in range(tail):
                cell = queue[n]
                sizes[cell // width, cell % width] = tail
    return sizes


# ---------------------------------------------------------------- public API


def lake_sizes(lakes: np.ndarray) -> np.ndarray:
    """The size in cells of each lake cell's lake (8-connected), 0 off lakes.

    Parameters
    ----------
    lakes : array_like of bool, shape (H, W)
        A lake mask, e.g. :attr:`RiverResult.lakes`.

    Returns
    -------
    numpy.ndarray of int64, shape (H, W)

    Examples
    --------
    >>> import numpy as np
    >>> lake_sizes(np.array([[1, 1, 0, 0], [0, 0, 0, 1]], bool)).tolist()
    [[2, 2, 0, 0], [0, 0, 0, 1]]
    """
    mask = np.asarray(lakes)
    if mask.dtype != np.bool_ or mask.ndim != 2:
        raise TypeError(
            f"lakes must be a 2-D boolean array, got {mask.dtype} with shape {mask.shape}; "
            "pass RiverResult.lakes"
        )
    return _component_sizes_kernel(np.ascontiguousarray(mask), D8_OFFSETS)


def _directions(filled: np.ndarray) -> np.ndarray:
    """D8 codes of a validated C-contiguous float64 field, flats resolved."""
    directions = _d8_kernel(filled, D8_OFFSETS, _DISTANCES)
    if (directions[1:-1, 1:-1] < 0).any():
        _resolve_flats_kernel(filled, directions, D8_OFFSETS)
    return directions


def fill_depressions(
    heights: np.ndarray, *, epsilon: float = 0.0, outlets: np.ndarray | None = None
) -> np.ndarray:
    """Raise every depression to its spill height, so all water reaches the border.

    Parameters
    ----------
    heights : array_like, shape (H, W)
        Finite heights.
    epsilon : float
        0 (the default) fills each pit flat, to the height of its lowest
        exit. A value > 0 makes every filled cell at least ``epsilon``
        higher than the neighbour the flood reached it from, so that
        filled pits and flats slope gently toward their exits; where
        ``epsilon`` is too small to change a height, the next float up is
        used instead.
    outlets : array_like of bool, shape (H, W), optional
        Cells where water leaves besides the border (the sea, say): they
        keep their heights and drain what reaches them, as border cells do.

    Returns
    -------
    numpy.ndarray, shape (H, W), float64
        The filled heights: never below ``heights``, equal on the border
        (and the outlets) and wherever water already drained. With ``epsilon=0`` every
        interior cell has a path to the border that never climbs; with
        ``epsilon > 0`` every interior cell has a strictly lower neighbour.

    Raises
    ------
    TypeError
        If ``heights`` does not hold real numbers.
    ValueError
        If ``heights`` is not a finite non-empty 2-D array, or ``epsilon``
        is negative or not finite.

    Notes
    -----
    Priority-Flood (Barnes, Lehman and Mulla, "Priority-Flood: An optimal
    depression-filling and watershed-labeling algorithm", Computers &
    Geosciences 62, 2014): the border cells go into a min-heap; the lowest
    cell is taken out and each of its 8 neighbours not yet reached is
    raised to at least its height (plus ``epsilon``) and put in. The heap is
    a binary heap keyed by (height, insertion counter), so ties leave in
    the order they came and the result is deterministic.

    Two shortcuts save heap work without changing the result, which is the
    lowest surface with the properties above:

    - as in the paper's improved variant, cells the flood raises (or finds
      level with it) wait in a plain FIFO queue, which is already in height
      order;
    - as in Zhou, Sun and Fu ("An efficient variant of the Priority-Flood
      algorithm for filling depressions in raster digital elevation
      models", Computers & Geosciences 90, 2016), a cell the flood reaches
      from below keeps its own height, and so do the cells reached uphill
      from it; they are climbed with a FIFO queue, and only those that
      border a lower cell not yet reached go into the heap.

    Time O(n log n) for n cells, memory O(n).

    Examples
    --------
    >>> import numpy as np
    >>> heights = np.array([[5.0, 5.0, 5.0, 5.0],
    ...                     [5.0, 1.0, 2.0, 5.0],
    ...                     [5.0, 5.0, 4.0, 5.0],
    ...                     [5.0, 5.0, 3.0, 5.0]])
    >>> fill_depressions(heights)
    array([[5., 5., 5., 5.],
           [5., 4., 4., 5.],
           [5., 5., 4., 5.],
           [5., 5., 3., 5.]])
    """
    heights = np.ascontiguousarray(height_field(heights))
    epsilon = _check_epsilon(epsilon)
    filled = _fill(heights, epsilon, _check_outlets(outlets, heights))
    if not np.isfinite(filled).all():
        raise ValueError(
            f"epsilon={epsilon!r} overflows: filled heights must stay finite; lower epsilon"
        )
    return filled


def flow_directions(filled: np.ndarray) -> np.ndarray:
    """The D8 flow direction of every cell: toward its steepest-descent neighbour.

    Parameters
    ----------
    filled : array_like, shape (H, W)
        Finite heights, normally from :func:`fill_depressions`.

    Returns
    -------
    numpy.ndarray, shape (H, W), int8
        Codes 0 to 7 (E, SE, S, SW, W, NW, N, NE; see :data:`D8_OFFSETS`),
        or -1 for a cell with nowhere to flow: a border cell with no lower
        neighbour (an outlet: its water leaves the map) or, if ``filled``
        was not filled, the bottom of a pit.

    Raises
    ------
    TypeError
        If ``filled`` does not hold real numbers.
    ValueError
        If ``filled`` is not a finite non-empty 2-D array.

    Notes
    -----
    D8 (O'Callaghan and Mark, "The extraction of drainage networks from
    digital elevation data", 1984): a cell points to the neighbour with the
    largest drop per distance, the distance being 1 to the four edge
    neighbours and sqrt(2) to the diagonal ones; ties go to the lowest
    code. Border cells may point inward but never off the map.

    Interior cells with no lower neighbour (the flats a fill with
    ``epsilon=0`` leaves) are resolved afterwards by a breadth-first search
    that starts from every cell that has a direction or lies on the border
    and spreads across cells of exactly equal height: each flat cell points
    to the neighbour it was reached from, so its water crosses the flat by
    the fewest steps to the nearest exit. On a filled field every cell then
    drains to the border; the directions form a forest whose roots are the
    cells coded -1.

    Examples
    --------
    >>> import numpy as np
    >>> flow_directions(np.array([[3.0, 2.0, 1.0],
    ...                           [3.0, 2.0, 1.0]]))
    array([[ 0,  0, -1],
           [ 0,  0, -1]], dtype=int8)
    """
    return _directions(np.ascontiguousarray(height_field(filled, "filled")))


def flow_accumulation(directions: np.ndarray) -> np.ndarray:
    """How many cells drain through each cell, itself included.

    Parameters
    ----------
    directions : array_like of int, shape (H, W)
        D8 codes -1 to 7, as from :func:`flow_directions`.

    Returns
    -------
    numpy.ndarray, shape (H, W), float64
        The accumulation: at least 1 everywhere; the values at the cells
        coded -1 (the outlets) add up to the number of cells.

    Raises
    ------
    TypeError
        If ``directions`` does not hold integers.
    ValueError
        If ``directions`` is not a non-empty 2-D array, holds codes outside
        -1 to 7, points off the map, or contains a cycle.

    Notes
    -----
    Topological order in O(H W) time without recursion: count how many
    cells flow into each cell, then, from each cell nothing flows into,
    walk downstream passing the running count on, and continue past a cell
    only once all of its donors have passed theirs (Kahn's algorithm, with
    the walk in place of a queue).

    Examples
    --------
    >>> import numpy as np
    >>> flow_accumulation(np.array([[0, 0, 0, -1]]))
    array([[1., 2., 3., 4.]])
    """
    directions = _check_directions(directions)
    accumulation, off_map, done = _accumulation_kernel(
        directions, D8_OFFSETS, np.ones(directions.shape)
    )
    if off_map >= 0:
        y, x = divmod(int(off_map), directions.shape[1])
        raise ValueError(
            f"directions[{y}, {x}] = {int(directions[y, x])} points off the map; "
            "border cells must point inward or be -1"
        )
    if done < directions.size:
        raise ValueError(
            f"directions contain a cycle ({directions.size - int(done)} cells never reach "
            "a cell coded -1); pass the output of flow_directions() on a filled field"
        )
    return accumulation


@dataclasses.dataclass(frozen=True, eq=False)
class RiverResult:
    """Everything :func:`rivers` computes, each an array of shape (H, W).

    Attributes
    ----------
    filled : numpy.ndarray of float64
        The heights after :func:`fill_depressions`.
    directions : numpy.ndarray of int8
        D8 codes from :func:`flow_directions`.
    accumulation : numpy.ndarray of float64
        Cells draining through each cell, from :func:`flow_accumulation`.
    river : numpy.ndarray of bool
        ``accumulation >= threshold``.
    lakes : numpy.ndarray of bool
        Cells a flat fill (``epsilon=0``) raises: the filled pits.
    threshold : float
        The river threshold used, in cells.
    """

    filled: np.ndarray
    directions: np.ndarray
    accumulation: np.ndarray
    river: np.ndarray
    lakes: np.ndarray
    threshold: float


def rivers(
    heights: np.ndarray,
    *,
    threshold: float | None = None,
    epsilon: float = 0.0,
    outlets: np.ndarray | None = None,
) -> RiverResult:
    """Rivers and lakes of a height field.

    Parameters
    ----------
    heights : array_like, shape (H, W)
        Finite heights. Water leaves the map through its border.
    threshold : float, optional
        How many cells (itself included) must drain through a cell for it
        to be a river, > 0. By default 0.5% of the cell count, and at least
        2: about 21,000 cells on a 2048 x 2048 map.
    epsilon : float
        Passed to :func:`fill_depressions`: 0 (the default) fills pits
        flat, > 0 gives them a slope toward their exits.
    outlets : array_like of bool, shape (H, W), optional
        Cells where water leaves besides the border (the sea): passed to
        :func:`fill_depressions`, and they flow nowhere (code -1), so what
        reaches them ends there and they are never river or lake.

    Returns
    -------
    RiverResult
        The filled heights, D8 directions, accumulation, and the ``river``
        and ``lakes`` masks.

    Raises
    ------
    TypeError, ValueError
        If ``heights`` is not a finite non-empty 2-D array of numbers, or
        ``threshold`` or ``epsilon`` are out of range.

    Notes
    -----
    The lakes are the cells the flat fill raises above their own height
    (``filled > heights``; the fill copies spill heights exactly, so no
    tolerance is needed). With ``epsilon > 0`` they come from a second,
    flat fill, so the slope ``epsilon`` gives to flats and drained plains
    does not count as water. Rivers run on across lakes, along the
    directions that resolve the lake's flat surface.

    Examples
    --------
    >>> import numpy as np
    >>> heights = np.array([[9.0, 9.0, 9.0, 9.0, 9.0],
    ...                     [9.0, 5.0, 5.0, 5.0, 9.0],
    ...                     [9.0, 5.0, 1.0, 5.0, 9.0],
    ...                     [9.0, 5.0, 5.0, 5.0, 9.0],
    ...                     [9.0, 9.0, 3.0, 9.0, 9.0]])
    >>> result = rivers(heights, threshold=5)
    >>> result.lakes.astype(int)
    array([[0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 1, 0, 0],
           [0, 0, 0, 0, 0],
           [0, 0, 0, 0, 0]])
    >>> int(result.accumulation[4, 2]), int(result.river.sum())
    (25, 4)
    """
    heights = np.ascontiguousarray(height_field(heights))
    limit = _check_threshold(threshold, heights.size)
    epsilon = _check_epsilon(epsilon)
    sinks = _check_outlets(outlets, heights)
    filled = _fill(heights, epsilon, sinks)
    directions = _directions(filled)
    if sinks.size:
        directions[sinks] = -1
    accumulation, _, _ = _accumulation_kernel(directions, D8_OFFSETS, np.ones(directions.shape))
    river = accumulation >= limit
    flat = filled if epsilon == 0.0 else _fill(heights, 0.0, sinks)
    lakes = flat > heights
    if sinks.size:
        river &= ~sinks
        lakes &= ~sinks
    return RiverResult(
        filled=filled,
        directions=directions,
        accumulation=accumulation,
        river=river,
        lakes=lakes,
        threshold=limit,
    )


def draw_rivers(
    rgb: np.ndarray,
    result: RiverResult,
    *,
    colour: tuple[int, int, int] = (50, 100, 200),
    lake_colour: tuple[int, int, int] | None = None,
    widen: bool = True,
) -> np.ndarray:
    """Paint rivers and lakes onto a colour map.

    Parameters
    ----------
    rgb : array_like, shape (H, W, 3), uint8
        The colour map, e.g. from :func:`colour_ramp`; left untouched.
    result : RiverResult
        From :func:`rivers` on a height field of shape (H, W).
    colour : (int, int, int)
        River colour, channels 0-255.
    lake_colour : (int, int, int), optional
        Lake colour; by default the river colour.
    widen : bool
        Draw big rivers wider: a river cell is painted as a disc whose
        radius grows by one cell each time its accumulation quadruples
        beyond the threshold, ``floor(log2(accumulation / threshold) / 2)``,
        at most :data:`MAX_RIVER_RADIUS` (4), so that a window painted
        with a halo of 4 cells is the crop of a bigger one
        (0 is the cell alone; the disc holds the cells with
        ``dy**2 + dx**2 <= r * (r + 1)``). False paints river cells only.

    Returns
    -------
    numpy.ndarray, shape (H, W, 3), uint8
        A new image: rivers painted first, then lakes over them, so that
        rivers end at the shore.

    Raises
    ------
    TypeError
        If ``result`` is not a :class:`RiverResult` or ``rgb`` does not
        hold values 0-255.
    ValueError
        If ``rgb`` is not (H, W, 3) with the shape of ``result``, or a
        colour is not three integers 0-255.

    Examples
    --------
    >>> import numpy as np
    >>> result = rivers(np.array([[2.0, 2.0, 2.0], [2.0, 1.0, 2.0], [2.0, 2.0, 2.0]]))
    >>> image = draw_rivers(np.zeros((3, 3, 3), np.uint8), result, lake_colour=(0, 0, 255))
    >>> image[1, 1].tolist(), image[0, 1].tolist()
    ([0, 0, 255], [0, 0, 0])
    """
    rgb = rgb_image(rgb)
    if not isinstance(result, RiverResult):
        raise TypeError(f"result must be a RiverResult from rivers(), got {type(result).__name__}")
    if rgb.shape[:2] != result.river.shape:
        raise ValueError(
            f"rgb must have the shape of the river map plus 3 channels, "
            f"{(*result.river.shape, 3)}, got {rgb.shape}"
        )
    river_colour = np.array(check_colour(colour, "colour"), dtype=np.uint8)
    if lake_colour is None:
        lakes_colour = river_colour
    else:
        lakes_colour = np.array(check_colour(lake_colour, "lake_colour"), dtype=np.uint8)
    out = np.array(rgb, dtype=np.uint8, order="C")
    # The maps as they are (a crop of a bigger one is read in place, not
    # copied: the accumulation of a 2048 x 2048 crop is 34 MB of fresh
    # memory); the kernel reads them by index.
    _paint_kernel(
        out,
        np.asarray(result.river),
        np.asarray(result.lakes),
        np.asarray(result.accumulation, dtype=np.float64),
        float(result.threshold),
        river_colour,
        lakes_colour,
        bool(widen),
        np.int64(MAX_RIVER_RADIUS),
    )
    return out
