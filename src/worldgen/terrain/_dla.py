"""Mountains grown by diffusion-limited aggregation (DLA).

Random walkers stick to a growing tree; the tree's branches become ridges
whose height rises toward the trunk. The method follows Josh's description
in "Better Mountain Generators That Aren't Perlin Noise or Erosion" (2023):

1. Grow a DLA tree on a small grid from a seed cell in the centre, noting
   for each stuck cell the cell it stuck to (its parent).
2. Double the resolution, step by step. The *sharp* image redraws the tree
   at the new resolution: each cell becomes a 2 x 2 block holding its
   particle at a random one of its four cells, and each parent link is
   redrawn as a short line between the two particles, so that ridges wiggle
   instead of running ruler-straight. The DLA then goes on at the new
   resolution to add finer branches. The *blurred* image is the previous
   blurred image upscaled by linear interpolation and blurred, plus the
   sharp image's heights, blurred.
3. The blurred image of the last step, normalised to [0, 1], is the DLA
   height map, which :func:`dla_mountains` mixes with fBm.

Everything random is drawn from a counter-based hash of the seed, so the
same seed gives the same bytes on every machine.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from worldgen._checks import check_unit_interval
from worldgen._jit import kernel
from worldgen.noise._generators import Fractal, Perlin, axis
from worldgen.noise._seed import check_seed, derive_seed
from worldgen.noise._validate import check_int

# The first grid is at most this many cells wide when ``steps`` is not given.
START_SIZE = 32
MAX_SIZE = 8192
# The widest first grid: its walkers roam the whole grid, so its cost grows
# far faster than its cells (256: about a second at density 0.5).
MAX_START_SIZE = 256
# A chain of descendants this share of the map wide lifts a ridge cell to
# half height; each doubling's detail weighs DETAIL_GAIN times the last's.
RIDGE_SPAN = 0.25
DETAIL_GAIN = 0.6
# Lattice units of the blended fBm across the whole map.
FBM_EXTENT = 4.0
# Derived-seed tags: the walkers' random stream and the fBm.
_WALK_TAG, _FBM_TAG = 0, 1

# (dy, dx): the four walking steps N, E, S, W, then the diagonals. A walker
# sticks to the first occupied neighbour in this order, so an edge
# neighbour wins over a diagonal one.
_NEIGHBOURS = np.array(
    [[-1, 0], [0, 1], [1, 0], [0, -1], [-1, -1], [-1, 1], [1, -1], [1, 1]], dtype=np.int64
)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


class Tree(NamedTuple):
    """A DLA tree on a ``size`` x ``size`` grid.

    ``ys[i], xs[i]`` is the cell of particle ``i`` and ``parents[i]`` the
    particle it stuck to (-1 for the seed, particle 0). Parents come before
    their children, and every parent is one of its child's 8 neighbours.
    """

    ys: np.ndarray
    xs: np.ndarray
    parents: np.ndarray
    size: int


# ------------------------------------------------------------------- kernels


@kernel
def _random(seed, counter):
    # SplitMix64's finaliser of seed + golden * (counter + 1): a stream of
    # independent 64-bit values addressed by counter.
    z = seed + _GOLDEN * np.uint64(counter + 1)
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def _below(bits, n):
    # A uniform integer in [0, n) from the high 32 bits (n < 2**32).
    return np.int64(((bits >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@kernel
def _grow_kernel(grid, ys, xs, parents, count, target, seed, counter, neighbours):
    # Release walkers at random free cells; each walks N/E/S/W (a step off
    # the grid is a step in place) until one of its 8 neighbours is in the
    # tree, then sticks there. Returns the new count and counter.
    size = grid.shape[0]
    while count < target:
        while True:
            cell = _below(_random(seed, counter), size * size)
            counter += 1
            y = cell // size
            x = cell - y * size
            if grid[y, x] < 0:
                break
        bits = np.uint64(0)
        left = 0
        while True:
            parent = -1
            for k in range(8):
                yy = y + neighbours[k, 0]
                xx = x + neighbours[k, 1]
                if 0 <= yy < size and 0 <= xx < size and grid[yy, xx] >= 0:
                    parent = grid[yy, xx]
                    break
            if parent >= 0:
                break
            if left == 0:
                bits = _random(seed, counter)
                counter += 1
                left = 32
            d = np.int64(bits & np.uint64(3))
            bits >>= np.uint64(2)
            left -= 1
            yy = y + neighbours[d, 0]
            xx = x + neighbours[d, 1]
            if 0 <= yy < size and 0 <= xx < size:
                y = yy
                x = xx
        grid[y, x] = count
        ys[count] = y
        xs[count] = x
        parents[count] = parent
        count += 1
    return count, counter


@kernel
def _in_blocks(y, x, by0, bx0, by1, bx1):
    # Whether cell (y, x) lies in the 2 x 2 block at (by0, bx0) or (by1, bx1).
    return (y >> 1 == by0 and x >> 1 == bx0) or (y >> 1 == by1 and x >> 1 == bx1)


@kernel
def _upscale_tree_kernel(ys, xs, parents, count, size, capacity, seed, counter):
    # Each old cell becomes a 2 x 2 block holding its particle at a random
    # one of the four cells. A particle is then joined to its parent's
    # particle by a path through their two blocks: each step moves toward
    # the parent (diagonally if it can) without leaving the blocks, and
    # the path ends early on meeting a cell already in the tree, which
    # then becomes its parent. Parents are processed before children, and
    # no earlier path enters a child's block, so the result is a tree.
    grid = np.full((size, size), -1, np.int32)
    nys = np.empty(capacity, np.int64)
    nxs = np.empty(capacity, np.int64)
    nparents = np.empty(capacity, np.int64)
    renamed = np.empty(count, np.int64)
    path_y = np.empty(8, np.int64)
    path_x = np.empty(8, np.int64)
    m = 0
    for i in range(count):
        bits = _random(seed, counter)
        counter += 1
        y = 2 * ys[i] + np.int64(bits & np.uint64(1))
        x = 2 * xs[i] + np.int64((bits >> np.uint64(1)) & np.uint64(1))
        link = -1
        p = parents[i]
        if p >= 0:
            target = renamed[p]
            ty = nys[target]
            tx = nxs[target]
            n = 0
            cy = y
            cx = x
            while True:
                sy = (ty > cy) - (ty < cy)
                sx = (tx > cx) - (tx < cx)
                if sy != 0 and sx != 0 and _in_blocks(cy + sy, cx + sx, ys[i], xs[i], ys[p], xs[p]):
                    cy += sy
                    cx += sx
                elif sy != 0 and _in_blocks(cy + sy, cx, ys[i], xs[i], ys[p], xs[p]):
                    cy += sy
                else:
                    cx += sx
                if grid[cy, cx] >= 0:
                    link = grid[cy, cx]
                    break
                path_y[n] = cy
                path_x[n] = cx
                n += 1
            for j in range(n - 1, -1, -1):
                grid[path_y[j], path_x[j]] = m
                nys[m] = path_y[j]
                nxs[m] = path_x[j]
                nparents[m] = link
                link = m
                m += 1
        grid[y, x] = m
        nys[m] = y
        nxs[m] = x
        nparents[m] = link
        renamed[i] = m
        m += 1
    return grid, nys, nxs, nparents, m, counter


@kernel
def _sharp_kernel(ys, xs, parents, count, size, scale):
    # The tree drawn with heights 1 - 1 / (1 + (chain + 1) / scale), where
    # chain is the longest run of descendants below a cell (0 at a tip).
    chain = np.zeros(count, np.int64)
    for i in range(count - 1, 0, -1):
        p = parents[i]
        if chain[i] + 1 > chain[p]:
            chain[p] = chain[i] + 1
    image = np.zeros((size, size), np.float64)
    for i in range(count):
        image[ys[i], xs[i]] = 1.0 - 1.0 / (1.0 + (chain[i] + 1.0) / scale)
    return image


@kernel
def _blur_kernel(image):
    # The binomial filter (1, 4, 6, 4, 1) / 16 along rows, then columns,
    # with edge cells repeated beyond the border.
    height, width = image.shape
    rows = np.empty((height, width), np.float64)
    for y in range(height):
        for x in range(width):
            a = image[y, max(x - 2, 0)]
            b = image[y, max(x - 1, 0)]
            d = image[y, min(x + 1, width - 1)]
            e = image[y, min(x + 2, width - 1)]
            rows[y, x] = (a + e + 4.0 * (b + d) + 6.0 * image[y, x]) / 16.0
    out = np.empty((height, width), np.float64)
    for y in range(height):
        y0 = max(y - 2, 0)
        y1 = max(y - 1, 0)
        y3 = min(y + 1, height - 1)
        y4 = min(y + 2, height - 1)
        for x in range(width):
            out[y, x] = (
                rows[y0, x] + rows[y4, x] + 4.0 * (rows[y1, x] + rows[y3, x]) + 6.0 * rows[y, x]
            ) / 16.0
    return out


@kernel
def _upscale_linear_kernel(image):
    # Twice the size by bilinear interpolation between cell centres: new
    # cell i samples old coordinate (i + 0.5) / 2 - 0.5, clamped at the edges.
    height, width = image.shape
    out = np.empty((2 * height, 2 * width), np.float64)
    for y in range(2 * height):
        fy = min(max((y + 0.5) * 0.5 - 0.5, 0.0), height - 1.0)
        y0 = min(int(fy), height - 1)
        y1 = min(y0 + 1, height - 1)
        ty = fy - y0
        for x in range(2 * width):
            fx = min(max((x + 0.5) * 0.5 - 0.5, 0.0), width - 1.0)
            x0 = min(int(fx), width - 1)
            x1 = min(x0 + 1, width - 1)
            tx = fx - x0
            top = image[y0, x0] + tx * (image[y0, x1] - image[y0, x0])
            bottom = image[y1, x0] + tx * (image[y1, x1] - image[y1, x0])
            out[y, x] = top + ty * (bottom - top)
    return out


# ------------------------------------------------------------------- helpers


def _check_steps(steps: object, size: int) -> int:
    if steps is None:
        return ((size - 1) // START_SIZE).bit_length()
    most = size.bit_length() - 3  # floor(log2(size / 4))
    least = ((size - 1) // MAX_START_SIZE).bit_length()  # ceil(log2(size / MAX_START_SIZE))
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral):
        raise TypeError(f"steps must be an integer from {least} to {most} (or None), got {steps!r}")
    if not least <= int(steps) <= most:
        raise ValueError(
            f"steps must be an integer from {least} to {most} for size={size} (the first grid, "
            f"ceil(size / 2**steps) cells wide, must be 4 to {MAX_START_SIZE} cells: a random "
            f"walk on a wider one takes minutes), got {steps!r}"
        )
    return int(steps)


def _check_density(density: object) -> float:
    if isinstance(density, bool) or not isinstance(density, numbers.Real):
        raise TypeError(f"density must be a number in (0, 0.5], got {density!r}")
    value = float(density)
    if not (np.isfinite(value) and 0.0 < value <= 0.5):
        raise ValueError(
            f"density must be a number in (0, 0.5] (the share of cells in the tree), "
            f"got {density!r}"
        )
    return value


def _normalise(image: np.ndarray) -> np.ndarray:
    low = float(image.min())
    span = float(image.max()) - low
    if span <= 0.0:
        return np.zeros_like(image)
    return (image - low) / span


def _target(size: int, density: float) -> int:
    return max(2, math.ceil(density * size * size))


def _dla_levels(start: int, steps: int, density: float, seed: int) -> Iterator[Tree]:
    """The tree at each resolution: ``start`` cells wide, then doubled ``steps`` times."""
    stream = np.uint64(derive_seed(seed, _WALK_TAG))
    counter = 0
    size = start
    capacity = _target(size, density)
    grid = np.full((size, size), -1, np.int32)
    ys = np.empty(capacity, np.int64)
    xs = np.empty(capacity, np.int64)
    parents = np.empty(capacity, np.int64)
    ys[0] = xs[0] = size // 2
    parents[0] = -1
    grid[size // 2, size // 2] = 0
    count, counter = _grow_kernel(grid, ys, xs, parents, 1, capacity, stream, counter, _NEIGHBOURS)
    yield Tree(ys[:count], xs[:count], parents[:count], size)
    for _ in range(steps):
        size *= 2
        capacity = max(_target(size, density), 3 * count)
        grid, ys, xs, parents, count, counter = _upscale_tree_kernel(
            ys, xs, parents, count, size, capacity, stream, counter
        )
        count, counter = _grow_kernel(
            grid, ys, xs, parents, count, capacity, stream, counter, _NEIGHBOURS
        )
        yield Tree(ys[:count], xs[:count], parents[:count], size)


def _dla_heights(size: int, steps: int, density: float, seed: int) -> np.ndarray:
    """The DLA layer alone, normalised, on the full ``start * 2**steps`` grid."""
    start = -(-size // 2**steps)
    blurred = None
    for level, tree in enumerate(_dla_levels(start, steps, density, seed)):
        scale = 2.0**level * start * RIDGE_SPAN
        sharp = _sharp_kernel(tree.ys, tree.xs, tree.parents, tree.ys.size, tree.size, scale)
        detail = _blur_kernel(sharp) * DETAIL_GAIN**level
        if blurred is None:
            blurred = detail
        else:
            blurred = _blur_kernel(_upscale_linear_kernel(blurred)) + detail
    return _normalise(blurred)


# ---------------------------------------------------------------- public API


def dla_mountains(
    size: int,
    *,
    seed: int = 0,
    steps: int | None = None,
    density: float = 0.12,
    blend: float = 0.3,
) -> np.ndarray:
    """A square height map of branching mountain ridges grown by DLA.

    Parameters
    ----------
    size : int
        Width and height of the map in cells, 4 to 8192.
    seed : int
        Any integer that fits in 64 bits.
    steps : int, optional
        How many times the resolution doubles after the first DLA. The
        first grid is ``ceil(size / 2**steps)`` cells wide and must be 4 to
        256 cells (:data:`MAX_START_SIZE`). By default, the fewest steps that make it at most 32 cells
        wide (``ceil(log2(size / 32))``, at least 0): the first tree sets
        the main ridges, each doubling adds finer branches.
    density : float
        Share of the cells the tree covers after each step, in (0, 0.5].
        Higher gives more, shorter branches and takes longer.
    blend : float
        Weight of fBm in the result, from 0 (DLA alone) to 1 (fBm alone).

    Returns
    -------
    numpy.ndarray, shape (size, size), float64
        Heights in [0, 1], with 0 and 1 both attained (unless the map is
        flat).

    Raises
    ------
    TypeError
        If ``size``, ``seed`` or ``steps`` are not integers, or ``density``
        or ``blend`` not numbers.
    ValueError
        If a parameter is out of its range.

    Notes
    -----
    The stages are described in the module docstring. Choices made here:

    - Walkers start at uniformly random free cells and step north, east,
      south or west; a walker sticks as soon as one of its 8 neighbours is
      in the tree, to the first of them in the order N, E, S, W, NW, NE,
      SW, SE. Each grid is filled until ``density`` of its cells are in the
      tree (doubling the resolution halves the density, so each step adds
      about as many cells as the tree already has).
    - Sharp heights: a tree cell at step ``k`` (0 for the first grid, ``w``
      cells wide) gets ``1 - 1 / (1 + (c + 1) / (2**k * w / 4))``, where
      ``c`` is the longest chain of descendants below it (0 at a tip).
      Heights rise toward the trunk: a ridge whose branches reach a quarter
      of the map's width is at half height. As ``c / 2**k`` measures the
      chain in cells of the first grid, a ridge keeps its height from step
      to step while new tips stay low.
    - Blurred heights: the binomial filter (1, 4, 6, 4, 1) / 16 in each
      direction. Step 0 is the blurred sharp image; each later step is the
      previous one upscaled (bilinear, cell centres aligned) and blurred,
      plus the blurred sharp image of that step times ``0.6**k``, so that
      finer steps add smaller detail. The sum is normalised to [0, 1] and,
      if ``size`` is not the final grid's width, its centre is cut out.
    - The fBm is ``Fractal(Perlin(derive_seed(seed, 1)), octaves=6)``
      sampled on the same grid, 4 lattice units across the map, and
      normalised to [0, 1]. The result is
      ``(1 - blend) * dla + blend * fbm``, normalised to [0, 1] again.

    The random walks use SplitMix64's finaliser of
    ``derive_seed(seed, 0) + golden * (counter + 1)`` with a counter that
    every draw advances, so the result is the same on every machine.

    Examples
    --------
    >>> heights = dla_mountains(64, seed=3)
    >>> heights.shape, float(heights.min()), float(heights.max())
    ((64, 64), 0.0, 1.0)
    >>> bool((dla_mountains(64, seed=3) == heights).all())
    True
    """
    size = check_int(size, "size", 4, MAX_SIZE)
    seed = check_seed(seed)
    steps = _check_steps(steps, size)
    density = _check_density(density)
    blend = check_unit_interval(blend, "blend")
    dla = _dla_heights(size, steps, density, seed)
    if dla.shape[0] > size:
        cut = (dla.shape[0] - size) // 2
        dla = _normalise(dla[cut : cut + size, cut : cut + size])
    if blend == 0.0:
        return dla
    coords = axis(0.0, size, FBM_EXTENT / size)
    fbm = _normalise(Fractal(Perlin(derive_seed(seed, _FBM_TAG)), octaves=6).grid(coords, coords))
    return _normalise((1.0 - blend) * dla + blend * fbm)
