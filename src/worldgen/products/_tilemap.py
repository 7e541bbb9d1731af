"""Tile maps: clean-up rules and autotile masks.

A tile map is a 2-D integer array ``tiles`` of shape (H, W), indexed
``[row, col] = [y, x]``, holding small non-negative class ids (for example
0 deep water, 1 shallow water, 2 sand, 3 grass). Row 0 is the north edge and
column 0 the west edge.

- :func:`remove_thin_water`: water one cell thin between land on two
  opposite sides becomes land, repeated until nothing changes.
- :func:`remove_isolated`: a lone cell takes the most common class around it.
- :func:`fill_lakes`: small enclosed bodies of water become another class.
- :func:`autotile_masks`: per cell, which neighbours share its class, as
  engines use to pick edge and corner tiles.

Every function validates its input, returns a new array and leaves its input
untouched; the work is done by compiled kernels.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Iterable

import numpy as np

from worldgen._jit import kernel
from worldgen.noise._validate import check_bool, check_choice, check_int

# (dy, dx) of the 4-neighbours (N, E, S, W) followed by the diagonals.
_NEIGHBOURS = np.array(
    [[-1, 0], [0, 1], [1, 0], [0, -1], [-1, -1], [-1, 1], [1, -1], [1, 1]], dtype=np.int64
)


# ---------------------------------------------------------------- validation


def check_tiles(tiles: object, name: str = "tiles") -> np.ndarray:
    """A non-empty 2-D array of non-negative integer class ids, C-contiguous.

    The array may be the caller's own (no copy is made when none is needed),
    so callers must not write into it.
    """
    if isinstance(tiles, (str, bytes)):
        raise TypeError(f"{name} must be a 2-D array of integer class ids, got {tiles!r}")
    try:
        array = np.asarray(tiles)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be a 2-D array of integer class ids: {exc}") from None
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array (H, W), got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(
            f"{name} must hold integer class ids, got dtype {array.dtype}; use .astype(numpy.int64)"
        )
    if array.dtype.kind == "i" and array.min() < 0:
        raise ValueError(
            f"{name}: class ids must be non-negative, found {int(array.min())}; "
            "number the classes from 0"
        )
    return np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("="))


def _check_class_id(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative integer class id, got {value!r}")
    if not 0 <= int(value) < 2**63:
        raise ValueError(f"{name} must be a non-negative integer class id, got {value!r}")
    return int(value)


def _check_fill(fill: object, tiles: np.ndarray) -> int:
    fill = _check_class_id(fill, "fill")
    top = int(np.iinfo(tiles.dtype).max)
    if fill > top:
        raise ValueError(
            f"fill={fill} does not fit tiles of dtype {tiles.dtype} (largest {top}); "
            "use tiles.astype(numpy.int64)"
        )
    return fill


def _check_water(water: object) -> np.ndarray:
    if isinstance(water, numbers.Integral) and not isinstance(water, bool):
        water = [water]
    if isinstance(water, (str, bytes)) or not isinstance(water, Iterable):
        raise TypeError(f"water must be a collection of class ids such as {{0, 1}}, got {water!r}")
    ids = [_check_class_id(value, "water: each entry") for value in water]
    return np.array(sorted(set(ids)), dtype=np.int64)


def _wet(tiles: np.ndarray, water: np.ndarray) -> np.ndarray:
    # Which cells hold a water class; ids beyond the dtype's range never occur.
    if tiles.dtype.kind == "u" and water.size:
        water = water[water <= np.iinfo(tiles.dtype).max].astype(tiles.dtype)
    return np.isin(tiles, water)


def _check_connectivity(connectivity: object) -> int:
    if (
        isinstance(connectivity, bool)
        or not isinstance(connectivity, numbers.Integral)
        or connectivity not in (4, 8)
    ):
        raise ValueError(f"connectivity must be 4 or 8, got {connectivity!r}")
    return int(connectivity)


# ------------------------------------------------------------------- kernels


@kernel
def _thin_water_kernel(tiles, wet, fill, passes, offsets):
    # Simultaneous passes until a fixed point, or ``passes`` of them when
    # ``passes >= 0``. Each pass only re-examines the water cells next to a
    # cell converted by the pass before, since no other cell's neighbourhood
    # changed; ``fill < 0`` means "smallest trigger". Cells are kept as
    # (row, column) pairs, not flat indices (whose division was most of the
    # kernel's time).
    height, width = tiles.shape
    out = tiles.copy()
    wet = wet.copy()
    count = 0
    for y in range(height):
        for x in range(width):
            count += wet[y, x]
    candidates = np.empty((count, 2), np.int32)
    queued = wet.copy()
    count = 0
    for y in range(height):
        for x in range(width):
            if wet[y, x]:
                candidates[count, 0], candidates[count, 1] = y, x
                count += 1
    converted = np.empty((count, 2), np.int32)
    values = np.empty(count, np.int64)
    done_passes = 0
    while count > 0 and (passes < 0 or done_passes < passes):
        done_passes += 1
        done = 0
        for k in range(count):
            y, x = candidates[k, 0], candidates[k, 1]
            queued[y, x] = False
            best = -1
            if 0 < x < width - 1 and not wet[y, x - 1] and not wet[y, x + 1]:
                best = min(np.int64(out[y, x - 1]), np.int64(out[y, x + 1]))
            if 0 < y < height - 1 and not wet[y - 1, x] and not wet[y + 1, x]:
                pair = min(np.int64(out[y - 1, x]), np.int64(out[y + 1, x]))
                best = pair if best < 0 else min(best, pair)
            if best >= 0:
                converted[done, 0], converted[done, 1] = y, x
                values[done] = fill if fill >= 0 else best
                done += 1
        for k in range(done):
            y, x = converted[k, 0], converted[k, 1]
            out[y, x] = values[k]
            wet[y, x] = False
        count = 0
        for k in range(done):
            y, x = converted[k, 0], converted[k, 1]
            for d in range(4):
                yy = y + offsets[d, 0]
                xx = x + offsets[d, 1]
                if 0 <= yy < height and 0 <= xx < width and wet[yy, xx] and not queued[yy, xx]:
                    queued[yy, xx] = True
                    candidates[count, 0], candidates[count, 1] = yy, xx
                    count += 1
    return out


@kernel
def _isolated_kernel(tiles, offsets):
    height, width = tiles.shape
    out = tiles.copy()
    found = np.empty(offsets.shape[0], np.int64)
    for y in range(height):
        for x in range(width):
            own = tiles[y, x]
            n = 0
            alone = True
            for k in range(offsets.shape[0]):
                yy = y + offsets[k, 0]
                xx = x + offsets[k, 1]
                if yy < 0 or yy >= height or xx < 0 or xx >= width:
                    continue
                if tiles[yy, xx] == own:
                    alone = False
                    break
                found[n] = tiles[yy, xx]
                n += 1
            if not alone or n == 0:
                continue
            best = found[0]
            best_count = 0
            for i in range(n):
                votes = 0
                for j in range(n):
                    if found[j] == found[i]:
                        votes += 1
                if votes > best_count or (votes == best_count and found[i] < best):
                    best = found[i]
                    best_count = votes
            out[y, x] = best
    return out


@kernel
def _fill_lakes_kernel(tiles, wet, max_size, fill, offsets):
    # Breadth-first search with one queue for the whole map: each component
    # occupies the slice [start, tail) of it once its search is over.
    height, width = tiles.shape
    out = tiles.copy()
    seen = np.zeros((height, width), np.bool_)
    queue = np.empty(height * width, np.int64)
    tail = 0
    for y0 in range(height):
        for x0 in range(width):
            if not wet[y0, x0] or seen[y0, x0]:
                continue
            start = tail
            head = tail
            queue[tail] = y0 * width + x0
            tail += 1
            seen[y0, x0] = True
            on_border = False
            while head < tail:
                y = queue[head] // width
                x = queue[head] % width
                head += 1
                if y == 0 or y == height - 1 or x == 0 or x == width - 1:
                    on_border = True
                for d in range(4):
                    yy = y + offsets[d, 0]
                    xx = x + offsets[d, 1]
                    if 0 <= yy < height and 0 <= xx < width and wet[yy, xx] and not seen[yy, xx]:
                        seen[yy, xx] = True
                        queue[tail] = yy * width + xx
                        tail += 1
            if not on_border and tail - start < max_size:
                for k in range(start, tail):
                    out[queue[k] // width, queue[k] % width] = fill
    return out


@kernel
def _same(tiles, y, x, dy, dx, outside, at_least):
    yy = y + dy
    xx = x + dx
    if yy < 0 or yy >= tiles.shape[0] or xx < 0 or xx >= tiles.shape[1]:
        return outside
    if at_least:
        return tiles[yy, xx] >= tiles[y, x]
    return tiles[yy, xx] == tiles[y, x]


@kernel
def _masks4_kernel(tiles, outside, at_least):
    height, width = tiles.shape
    out = np.zeros((height, width), np.uint8)
    for y in range(height):
        for x in range(width):
            bits = 0
            if _same(tiles, y, x, -1, 0, outside, at_least):
                bits |= 1
            if _same(tiles, y, x, 0, 1, outside, at_least):
                bits |= 2
            if _same(tiles, y, x, 1, 0, outside, at_least):
                bits |= 4
            if _same(tiles, y, x, 0, -1, outside, at_least):
                bits |= 8
            out[y, x] = bits
    return out


@kernel
def _mask8(tiles, y, x, outside, at_least):
    # The 8-neighbour mask of cell (y, x), anywhere on the map.
    n = _same(tiles, y, x, -1, 0, outside, at_least)
    e = _same(tiles, y, x, 0, 1, outside, at_least)
    s = _same(tiles, y, x, 1, 0, outside, at_least)
    w = _same(tiles, y, x, 0, -1, outside, at_least)
    bits = 0
    if n and w and _same(tiles, y, x, -1, -1, outside, at_least):
        bits |= 1
    if n:
        bits |= 2
    if n and e and _same(tiles, y, x, -1, 1, outside, at_least):
        bits |= 4
    if w:
        bits |= 8
    if e:
        bits |= 16
    if s and w and _same(tiles, y, x, 1, -1, outside, at_least):
        bits |= 32
    if s:
        bits |= 64
    if s and e and _same(tiles, y, x, 1, 1, outside, at_least):
        bits |= 128
    return bits


@kernel
def _inner_masks8(above, row, below, at_least, out):
    # The masks of a row's cells that have all eight neighbours (x = 1 ..
    # W - 2 of an inner row), without bounds checks or branches, so that
    # the loop vectorises: the bits of _mask8.
    for x in range(1, row.size - 1):
        v = row[x]
        if at_least:
            nw, n, ne = above[x - 1] >= v, above[x] >= v, above[x + 1] >= v
            w, e = row[x - 1] >= v, row[x + 1] >= v
            sw, s, se = below[x - 1] >= v, below[x] >= v, below[x + 1] >= v
        else:
            nw, n, ne = above[x - 1] == v, above[x] == v, above[x + 1] == v
            w, e = row[x - 1] == v, row[x + 1] == v
            sw, s, se = below[x - 1] == v, below[x] == v, below[x + 1] == v
        out[x] = np.uint8(
            (n & w & nw) * 1 + n * 2 + (n & e & ne) * 4 + w * 8 + e * 16
            + (s & w & sw) * 32 + s * 64 + (s & e & se) * 128
        )  # fmt: skip


@kernel
def _masks8_kernel(tiles, outside, at_least):
    height, width = tiles.shape
    out = np.zeros((height, width), np.uint8)
    for y in range(height):
        if 0 < y < height - 1 and width > 2:
            _inner_masks8(tiles[y - 1], tiles[y], tiles[y + 1], at_least, out[y])
            out[y, 0] = _mask8(tiles, y, 0, outside, at_least)
            out[y, width - 1] = _mask8(tiles, y, width - 1, outside, at_least)
        else:
            for x in range(width):
                out[y, x] = _mask8(tiles, y, x, outside, at_least)
    return out


@kernel
def _steps_kernel(out, diagonal):
    # max(tiles[q] - d(p, q)) over every cell q, with d the step distance of
    # the four edge neighbours (city block) or, with ``diagonal``, all eight
    # (chessboard): the fixed point of simultaneous passes of "rise to one
    # below your highest neighbour", reached in two raster passes. A
    # shortest path from q to p can take its steps from the neighbours
    # before a cell in raster order first, then those after it, so the
    # forward pass carries every value along the first part and the
    # backward pass along the rest (the chamfer distance transform's two
    # passes, which are exact for these distances). In place, in the
    # classes' own type: values only rise, and ``out[...] - 1`` is taken in
    # int64.
    #
    # Each row of a pass in two steps: from the row before it (above in the
    # forward pass, below in the backward one, finished already), in loops
    # that vectorise; then along the row from the neighbour before it
    # (left, or right), which depends on the cell before and is a scan.
    height, width = out.shape
    best = np.empty(width, np.int64)
    for backward in (False, True):
        for i in range(height):
            y = height - 1 - i if backward else i
            row = out[y]
            for x in range(width):
                best[x] = row[x]
            if i > 0:
                near = out[y + 1] if backward else out[y - 1]
                for x in range(width):
                    best[x] = max(best[x], np.int64(near[x]) - 1)
                if diagonal:
                    for x in range(1, width):
                        best[x] = max(best[x], np.int64(near[x - 1]) - 1)
                    for x in range(width - 1):
                        best[x] = max(best[x], np.int64(near[x + 1]) - 1)
            if backward:
                row[width - 1] = best[width - 1]
                for x in range(width - 2, -1, -1):
                    row[x] = max(best[x], np.int64(row[x + 1]) - 1)
            else:
                row[0] = best[0]
                for x in range(1, width):
                    row[x] = max(best[x], np.int64(row[x - 1]) - 1)


# ---------------------------------------------------------------- public API


def remove_thin_water(
    tiles: np.ndarray,
    water: Iterable[int] | int,
    *,
    fill: int | None = None,
    passes: int | None = None,
) -> np.ndarray:
    """Turn water that is one cell thin between land into land, to a fixed point
    or for a given number of passes.

    Parameters
    ----------
    tiles : ndarray of int, shape (H, W)
        Class ids, non-negative.
    water : collection of int
        The class ids that count as water, such as ``{0, 1}`` (a single id
        is accepted too); every other class is land.
    fill : int, optional
        The class a converted cell takes. By default it takes the smallest
        land class among the neighbours that triggered the rule: the left
        and right neighbours, the upper and lower ones, or all four when
        both pairs are land. ``fill`` must not be a water class.
    passes : int, optional
        Stop after this many passes (0 or more). By default the rule is
        applied until nothing changes. A bounded count bounds how far a cell
        can influence the result: ``passes`` cells.

    Returns
    -------
    ndarray, shape (H, W)
        A new map with the input's dtype.

    Raises
    ------
    TypeError
        If ``tiles`` does not hold integers or ``water`` or ``fill`` are not
        class ids.
    ValueError
        If ``tiles`` is not a non-empty 2-D array, holds negative ids,
        ``fill`` is negative, a water class or too big for the dtype, or
        ``passes`` is negative.

    Notes
    -----
    The rule, a clean-up step common in noise-map tutorials: a water cell
    with land both to its left and to its right, or land both above and
    below, becomes land. It is applied to all cells at once, and again to
    the result, until nothing changes. Land never becomes water, so this
    ends after at most as many passes as there are water cells; the set of
    cells that end up converted does not depend on the order of the passes.
    Cells outside the map count as not land, so nothing is ever closed off
    across the map's edge.

    Conversions cascade: a converted cell can complete a pair for its
    neighbour on the next pass, so a one-cell-wide diagonal staircase of
    water is eaten from one end to the other however long it is. Influence
    therefore reaches arbitrarily far in principle, and a big map cut into
    tiles gives exactly the whole-map result only if each tile carries a halo
    wider than the longest such chain; no fixed halo is exact for every map.
    The edge rule above also means a tile's edge acts unlike the same cells
    inside the whole map, which is another reason for the halo.

    Examples
    --------
    >>> import numpy as np
    >>> tiles = np.array([[2, 2, 2, 2, 2, 2],
    ...                   [2, 0, 0, 2, 0, 2],
    ...                   [2, 0, 0, 2, 0, 3],
    ...                   [2, 2, 2, 2, 2, 2]])
    >>> remove_thin_water(tiles, water={0})
    array([[2, 2, 2, 2, 2, 2],
           [2, 0, 0, 2, 2, 2],
           [2, 0, 0, 2, 2, 3],
           [2, 2, 2, 2, 2, 2]])
    """
    tiles = check_tiles(tiles)
    water = _check_water(water)
    if fill is None:
        fill_id = -1
    else:
        fill_id = _check_fill(fill, tiles)
        if fill_id in water:
            raise ValueError(f"fill={fill_id} is a water class; give a land class as fill")
    limit = -1 if passes is None else check_int(passes, "passes", 0, 2**40)
    return _thin_water_kernel(
        tiles, _wet(tiles, water), np.int64(fill_id), np.int64(limit), _NEIGHBOURS
    )


def remove_isolated(tiles: np.ndarray, *, connectivity: int = 4) -> np.ndarray:
    """Replace each cell that shares its class with no neighbour.

    Parameters
    ----------
    tiles : ndarray of int, shape (H, W)
        Class ids, non-negative.
    connectivity : {4, 8}
        Which neighbours count: the four edge neighbours, or those and the
        four diagonal ones.

    Returns
    -------
    ndarray, shape (H, W)
        A new map with the input's dtype.

    Raises
    ------
    TypeError
        If ``tiles`` does not hold integers.
    ValueError
        If ``tiles`` is not a non-empty 2-D array or holds negative ids, or
        ``connectivity`` is not 4 or 8.

    Notes
    -----
    A cell none of whose neighbours (inside the map) has its class takes the
    most common class among those neighbours; ties go to the smallest id.
    All cells are decided from the input in one simultaneous pass, so two
    lone cells side by side each look at the other's original class. A cell
    with no neighbour inside the map (a 1 x 1 map) is kept.

    Examples
    --------
    >>> import numpy as np
    >>> tiles = np.array([[3, 3, 3],
    ...                   [3, 1, 2],
    ...                   [2, 2, 2]])
    >>> remove_isolated(tiles)
    array([[3, 3, 3],
           [3, 2, 2],
           [2, 2, 2]])
    """
    tiles = check_tiles(tiles)
    connectivity = _check_connectivity(connectivity)
    return _isolated_kernel(tiles, _NEIGHBOURS[:connectivity])


def fill_lakes(
    tiles: np.ndarray, water: Iterable[int] | int, max_size: int, fill: int
) -> np.ndarray:
    """Turn small enclosed bodies of water into class ``fill``.

    Parameters
    ----------
    tiles : ndarray of int, shape (H, W)
        Class ids, non-negative.
    water : collection of int
        The class ids that count as water, such as ``{0, 1}`` (a single id
        is accepted too).
    max_size : int
        Bodies of fewer than ``max_size`` cells are filled.
    fill : int
        The class filled bodies take (a water class relabels small lakes
        rather than removing them). Class ids are dense, as band indices
        are: at most one more than the largest class on the map or in
        ``water``.

    Returns
    -------
    ndarray, shape (H, W)
        A new map with the input's dtype.

    Raises
    ------
    TypeError
        If ``tiles`` does not hold integers, or ``water``, ``max_size`` or
        ``fill`` are not integers.
    ValueError
        If ``tiles`` is not a non-empty 2-D array or holds negative ids,
        ``max_size`` is not positive, or ``fill`` is negative, too big for
        the dtype, or skips classes (see ``fill``).

    Notes
    -----
    A body of water is a 4-connected region of cells whose classes are all
    in ``water`` (deep and shallow water together form one body). Bodies
    that touch the map's border are kept whatever their size, as they may
    continue beyond the map; on a map cut into tiles, a body's size and
    whether it reaches the border are only known with a halo as wide as the
    body, so lakes are best filled on the whole map. Regions are found by a
    breadth-first search in a compiled kernel.

    Examples
    --------
    >>> import numpy as np
    >>> tiles = np.array([[0, 2, 2, 2],
    ...                   [2, 2, 1, 2],
    ...                   [2, 2, 2, 2]])
    >>> fill_lakes(tiles, {0, 1}, max_size=2, fill=3)
    array([[0, 2, 2, 2],
           [2, 2, 3, 2],
           [2, 2, 2, 2]])
    """
    tiles = check_tiles(tiles)
    water = _check_water(water)
    if isinstance(max_size, bool) or not isinstance(max_size, numbers.Integral):
        raise TypeError(f"max_size must be a positive integer (a cell count), got {max_size!r}")
    if max_size < 1:
        raise ValueError(f"max_size must be a positive integer (a cell count), got {max_size!r}")
    fill = _check_fill(fill, tiles)
    top = max(int(tiles.max()), int(water.max()) if water.size else 0)
    if fill > top + 1:
        raise ValueError(
            f"fill={fill} skips classes: the map's classes (and water) run up to {top}, so "
            f"fill may be at most {top + 1}; class ids are dense, as band indices are"
        )
    limit = min(int(max_size), tiles.size + 1)
    return _fill_lakes_kernel(
        tiles, _wet(tiles, water), np.int64(limit), np.int64(fill), _NEIGHBOURS
    )


def autotile_masks(
    tiles: np.ndarray, *, connectivity: int = 4, edge: str = "same", match: str = "equal"
) -> np.ndarray:
    """Per cell, a bitmask of the neighbours that share its class.

    Game engines pick a cell's edge or corner tile from such a mask (Unity's
    Rule Tile, Godot's autotiles and terrain sets).

    Parameters
    ----------
    tiles : ndarray of int, shape (H, W)
        Class ids, non-negative.
    connectivity : {4, 8}
        4: bits N=1, E=2, S=4, W=8, so masks run from 0 to 15.
        8: bits NW=1, N=2, NE=4, W=8, E=16, SW=32, S=64, SE=128.
    edge : {"same", "different"}
        Whether a neighbour outside the map counts as having the cell's
        class or not.
    match : {"equal", "at-least"}
        Which neighbours count as sharing the cell's class: those of the
        same class, or (``"at-least"``, for classes in layers such as
        height bands) those whose class is the cell's or above it. The
        transition tilesets of :mod:`worldgen.products._tileset` use the
        latter: a cell draws the band below it where a neighbour is lower.

    Returns
    -------
    ndarray of uint8, shape (H, W)
        The masks; north is row ``y - 1`` and west is column ``x - 1``.

    Raises
    ------
    TypeError
        If ``tiles`` does not hold integers.
    ValueError
        If ``tiles`` is not a non-empty 2-D array or holds negative ids,
        ``connectivity`` is not 4 or 8, ``edge`` is not "same" or
        "different", or ``match`` is not "equal" or "at-least".

    Notes
    -----
    With 8-connectivity a corner bit is set only when the corner neighbour
    and both edge neighbours beside it share the cell's class: a corner
    seen past a missing edge does not change how the tile is drawn. This
    reduces the 256 raw masks to the 47 that occur, the usual "blob"
    tileset of 47 tiles.

    Examples
    --------
    >>> import numpy as np
    >>> tiles = np.array([[1, 1],
    ...                   [1, 0]])
    >>> autotile_masks(tiles, edge="different")
    array([[6, 8],
           [1, 0]], dtype=uint8)
    """
    tiles = check_tiles(tiles)
    connectivity = _check_connectivity(connectivity)
    outside = check_choice(edge, "edge", ("same", "different")) == "same"
    at_least = check_choice(match, "match", ("equal", "at-least")) == "at-least"
    if connectivity == 4:
        return _masks4_kernel(tiles, outside, at_least)
    return _masks8_kernel(tiles, outside, at_least)


def limit_steps(tiles: np.ndarray, *, connectivity: int = 8) -> np.ndarray:
    """Raise cells until neighbouring classes differ by at most one.

    Classes are taken as ordered layers (height bands: deep water 0,
    shallow water 1, sand 2, ...). A transition tileset draws a cell of
    class ``c`` over class ``c - 1`` (see :mod:`worldgen.products._tileset`),
    so it cannot draw a cell next to one two or more classes lower; this
    fills such steps with the classes in between.

    Parameters
    ----------
    tiles : ndarray of int, shape (H, W)
        Class ids, non-negative, in layer order.
    connectivity : {4, 8}
        Which neighbours must differ by at most one: the four edge
        neighbours (what a 16-tile edge set needs), or all eight (what the
        47-tile blob set needs, whose tiles also meet at corners).

    Returns
    -------
    ndarray, shape (H, W)
        A new map with the input's dtype; no cell is lower than before.

    Raises
    ------
    TypeError
        If ``tiles`` does not hold integers.
    ValueError
        If ``tiles`` is not a non-empty 2-D array or holds negative ids, or
        ``connectivity`` is not 4 or 8.

    Notes
    -----
    The result is the smallest map above ``tiles`` whose neighbours differ
    by at most one: each cell becomes ``max(tiles[q] - d(p, q))`` over all
    cells ``q``, with ``d`` the step distance (4-connected: city block,
    8-connected: chessboard), a grey-level dilation by a cone. It is reached
    by simultaneous passes of "rise to one below the highest neighbour".
    A cell ``q`` changes ``p`` only if ``tiles[q] - d > tiles[p]``, so a
    cell depends only on the cells fewer than ``tiles.max() - tiles.min()``
    steps away; for band classes, at most the number of bands less two.

    Raising rather than lowering follows the thin-water rule: what cannot be
    drawn is lifted toward land (deep water beside sand becomes shallow
    water), so land never turns into water.

    Examples
    --------
    >>> import numpy as np
    >>> limit_steps(np.array([[0, 0, 0, 3]]))
    array([[0, 1, 2, 3]])
    """
    tiles = check_tiles(tiles)
    connectivity = _check_connectivity(connectivity)
    # uint64 in int64, as numba would take ``out[...] - 1`` of uint64 in floats.
    out = tiles.astype(np.int64 if tiles.dtype == np.uint64 else tiles.dtype)
    _steps_kernel(out, connectivity == 8)
    return out.astype(tiles.dtype, copy=False)


@dataclasses.dataclass(frozen=True)
class Cleanup:
    """Which tile clean-ups to run, in this order.

    Parameters
    ----------
    thin_water : bool
        Turn one-tile-wide water into land (default on), for
        ``thin_water_passes`` passes.
    thin_water_passes : int
        How many passes of the thin-water rule (default 8, from 0 to 64);
        each pass lets a conversion reach one cell further.
    isolated : bool
        Give lone tiles the class of their neighbours (default on).
    lake_size : int
        Fill enclosed water bodies smaller than this many tiles (default 0:
        keep all).

    Notes
    -----
    Each step looks a bounded distance away, so the whole clean-up has a
    bounded reach (:meth:`reach`): the result at a cell depends only on the
    classes within that many cells, and a window cleaned with a halo that
    wide and cropped equals the same window of a bigger map (see
    :func:`clean_tiles`).
    """

    thin_water: bool = True
    thin_water_passes: int = 8
    isolated: bool = True
    lake_size: int = 0

    def __post_init__(self):
        for name in ("thin_water", "isolated"):
            object.__setattr__(self, name, check_bool(getattr(self, name), name))
        check_int(self.thin_water_passes, "thin_water_passes", 0, 64)
        check_int(self.lake_size, "lake_size", 0, 2**40)

    def reach(self, band_count: int, steps: int | None = None) -> int:
        """How far, in cells, a class can change the clean-up's result.

        Parameters
        ----------
        band_count : int
            The number of classes (bands), 1 to 256.
        steps : {None, 4, 8}
            The neighbourhood :func:`limit_steps` runs on last, as the
            tileset needs (None: not run).

        Returns
        -------
        int
            ``thin_water_passes`` (if ``thin_water``) + 1 (if ``isolated``)
            + ``lake_size - 1`` (if lakes are filled) + ``band_count - 2``
            (if ``steps``), never less than 0 for any term.

        Examples
        --------
        >>> Cleanup().reach(8, steps=8)
        15
        """
        band_count = check_int(band_count, "band_count", 1, 256)
        if steps is not None:
            _check_connectivity(steps)
        reach = self.thin_water_passes if self.thin_water else 0
        reach += 1 if self.isolated else 0
        reach += max(self.lake_size - 1, 0)
        return reach + (max(band_count - 2, 0) if steps is not None else 0)


def clean_tiles(
    classes: np.ndarray,
    cleanup: Cleanup,
    *,
    water: Iterable[int],
    band_count: int,
    steps: int | None = None,
    halo: int = 0,
) -> np.ndarray:
    """Clean up the band classes of a window given with a halo, and crop the halo.

    Parameters
    ----------
    classes : ndarray of int, shape (H + 2 * halo, W + 2 * halo)
        Band ids of the window and of ``halo`` cells around it, made by the
        same pure function of world position as any other window (heights,
        then :func:`~worldgen.terrain.classify`).
    cleanup : Cleanup
        Which clean-ups to run.
    water : collection of int
        The water classes.
    band_count : int
        The number of bands.
    steps : {None, 4, 8}
        Finish with :func:`limit_steps` on this neighbourhood, so that the
        tileset can draw every cell (None: leave steps as they are).
    halo : int
        Cells cut from each side of the result. With ``halo >=
        cleanup.reach(band_count, steps)`` the result equals the same window
        of the cleaned-up infinite map; with less (0 for a finite map) the
        cells near the border are cleaned as if nothing lay beyond it.

    Returns
    -------
    ndarray of uint8, shape (H, W)
        The cleaned classes of the window.

    Raises
    ------
    TypeError, ValueError
        If ``classes`` is not a 2-D array of class ids, ``cleanup`` is not a
        :class:`Cleanup`, or ``halo`` leaves nothing of the array.

    Notes
    -----
    The steps run in this order: thin water (``thin_water_passes`` passes),
    lone tiles (4-neighbours), small enclosed lakes (filled with the lowest
    land class), then :func:`limit_steps`. Each step's result at a cell
    depends only on its input within the step's reach, so their reaches add
    up (:meth:`Cleanup.reach`), and the differences a window's edge makes
    never get further in than that.

    Examples
    --------
    >>> import numpy as np
    >>> classes = np.array([[2, 2, 2, 2, 2],
    ...                     [2, 2, 0, 2, 2],
    ...                     [2, 2, 2, 2, 2]])
    >>> clean_tiles(classes, Cleanup(), water={0, 1}, band_count=3, halo=1)
    array([[2, 2, 2]], dtype=uint8)
    """
    tiles = check_tiles(classes, "classes")
    if not isinstance(cleanup, Cleanup):
        raise TypeError(f"cleanup must be a Cleanup, got {cleanup!r}")
    water = tuple(int(w) for w in _check_water(water))
    band_count = check_int(band_count, "band_count", 1, 256)
    halo = check_int(halo, "halo", 0, 2**20)
    if min(tiles.shape) <= 2 * halo:
        raise ValueError(
            f"classes of shape {tiles.shape} hold nothing inside a halo of {halo}; "
            "give the window plus the halo on every side"
        )
    if cleanup.thin_water and water:
        tiles = remove_thin_water(tiles, water, passes=cleanup.thin_water_passes)
    if cleanup.isolated:
        tiles = remove_isolated(tiles)
    if cleanup.lake_size and water:
        land = next((i for i in range(band_count) if i not in water), None)
        if land is not None:
            tiles = fill_lakes(tiles, water, cleanup.lake_size, land)
    if steps is not None:
        tiles = limit_steps(tiles, connectivity=steps)
    height, width = tiles.shape
    return tiles[halo : height - halo, halo : width - halo].astype(np.uint8)
