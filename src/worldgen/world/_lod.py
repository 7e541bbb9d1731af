"""Levels of detail: sample positions of a window and band-limited fractals.

A window's samples stand for blocks of ``step x step`` cells: sample ``i``
of a window whose left column is ``x`` covers cells ``x + i * step`` to
``x + (i + 1) * step - 1`` and is evaluated at their centre,
``x + i * step + (step - 1) / 2``. So the mean of the ``4 x 4`` samples of
the level below covers the same cells as the sample above them, and a
window at any step is the crop of any bigger window at that step whose
origin lies on the same grid.

A fractal evaluated at sample spacing ``s`` is *band-limited*: octave ``k``
(wavelength ``lambda_k`` cells) is kept whole while ``lambda_k >= 4 s``,
faded out by a smooth weight of its frequency until ``lambda_k = 2 s``
(the Nyquist limit) and then replaced by its mean. Cost per sample falls
with the level instead of rising, and a coarse sample is close to the mean
of the fine samples under it, instead of an aliased point of full detail.

On a window's grid, the octaves of wavelength ``32 s`` and more are
evaluated on a coarser grid, every ``4 s`` cells (aligned to world
coordinates, so the same points in every window at that step) and
interpolated by Catmull-Rom splines (eight points per shortest wavelength:
within about 1% of the octaves' own values); the shorter octaves are
evaluated at every sample. This is how production generators sample slow
fields (Minecraft's noise caves and density functions are interpolated
from a coarse grid), and it makes a sample cost little more than its
finest few octaves.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numba
import numpy as np

from worldgen._jit import kernel
from worldgen.noise import Fractal, Perlin
from worldgen.noise._generators import Plan
from worldgen.noise._sampling import classes_tag, grid2, points2, wrapped_tag
from worldgen.noise._seed import derive_seed
from worldgen.world import _scratch
from worldgen.world._window import Window

ALL, COARSE_PART, FINE_PART = 0, 1, 2
COARSE = 32.0  # octaves this many samples long and more are interpolated ...
GRID = 4.0  # ... from a grid this many samples apart


def sample_axes(window: Window) -> tuple[np.ndarray, np.ndarray]:
    """Cell positions (float64) of the window's columns and rows: block
    centres, see the module docstring."""
    half = (window.step - 1) / 2.0
    cols = (window.x + window.step * np.arange(window.width, dtype=np.int64)) + half
    rows = (window.y + window.step * np.arange(window.height, dtype=np.int64)) + half
    return cols.astype(np.float64), rows.astype(np.float64)


def fade(wavelength: float, spacing: float) -> float:
    """Weight of an octave of this wavelength at this sample spacing: 1 at
    four samples per wavelength or more, 0 at two or fewer, a quintic
    smoothstep of the frequency between."""
    t = (0.5 - spacing / wavelength) / 0.25
    t = min(max(t, 0.0), 1.0)
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


@functools.lru_cache(maxsize=64)
def _ridged_mean() -> float:
    """Mean of one ridged octave ``(1 - |n|)^2`` of 2D Perlin noise,
    measured once on a fixed grid (the value dropped octaves stand for)."""
    one = Fractal(Perlin(seed=0), octaves=1, mode="ridged")
    x = np.arange(512) * 0.173 + 0.05
    return float(one.grid(x, x + 0.31).mean())


@functools.lru_cache(maxsize=64)
def _octave_std() -> float:
    """Standard deviation of one octave of 2D Perlin noise (fixed grid)."""
    x = np.arange(512) * 0.173 + 0.05
    return float(Perlin(seed=0).grid(x, x + 0.31).std())


@dataclasses.dataclass(frozen=True)
class Octaves:
    """A fractal sum of 2D Perlin octaves in world cells, by level of detail.

    Octave ``k`` has wavelength ``wavelength / lacunarity**k`` cells and
    amplitude ``persistence**k``; the sum is divided by the sum of
    amplitudes (as :class:`~worldgen.noise.Fractal`), so fBm lies in
    Perlin's 2D range and ridged octaves ``(1 - |n|)^2`` in [0, 1].

    Parameters
    ----------
    tag : int
        Mixed into the world's seed: each field has its own noise.
    wavelength : float
        Cells per lattice cell of the first octave.
    octaves : int
        Number of octaves at full detail.
    persistence, lacunarity : float
        As for :class:`~worldgen.noise.Fractal`. The default lacunarity is
        not 2, so the octaves' lattices never line up and the sum has no
        period.
    mode : {'fbm', 'ridged'}
    """

    tag: int
    wavelength: float
    octaves: int
    persistence: float = 0.5
    lacunarity: float = 1.93
    mode: str = "fbm"

    def fractal(self, seed: int) -> Fractal:
        base = Perlin(seed=derive_seed(seed, self.tag))
        return Fractal(base, self.octaves, self.persistence, self.lacunarity, self.mode)

    def wavelengths(self) -> np.ndarray:
        return _wavelengths(self)

    def weights(self, spacing: float) -> np.ndarray:
        """Each octave's weight at this sample spacing (cells)."""
        return _weights(self, float(spacing))

    def mean(self, spacing: float) -> float:
        """The value the octaves stand for where they are not evaluated:
        0 for fBm, the ridged octaves' mean for ridged."""
        return _ridged_mean() if self.mode == "ridged" else 0.0

    def dropped_std(self, spacing: float) -> float:
        """Standard deviation of what the dropped (and faded) octaves would
        add, for fBm: the detail a sample at this spacing leaves out."""
        return _dropped_std(self, float(spacing))

    def _plan(self, seed: int, spacing: float, part: int = ALL) -> tuple[Plan | None, float, float]:
        return _band_plan(self, seed, float(spacing), part)

    def _direct(self, seed, cols, rows, spacing, part) -> np.ndarray:
        plan, factor, constant = self._plan(seed, spacing, part)
        if plan is None or not (rows.size and cols.size):
            return _scratch.full((rows.size, cols.size), constant)
        out = _scratch.empty((rows.size, cols.size))
        scale = 1.0 / self.wavelength
        xs = cols * scale
        plan = classes_tag(plan, xs)
        grid2(*plan, xs, rows * scale, out, numba.get_num_threads())
        if factor != 1.0:
            out *= factor
        if constant:
            out += constant
        return out

    def grid(
        self,
        seed: int,
        cols: np.ndarray,
        rows: np.ndarray,
        spacing: float,
        *,
        split: bool = True,
    ) -> np.ndarray:
        """Values on the grid of sample positions ``cols`` x ``rows`` of a
        window sampled every ``spacing`` cells (see :func:`sample_axes`),
        shape ``(len(rows), len(cols))``, band-limited for ``spacing``; with
        ``split``, the slow octaves interpolated from a coarser grid (see
        the module docstring), else every octave at every position."""
        direct = not split or spacing <= 0.0 or self.wavelength < COARSE * spacing
        if direct or not cols.size or not rows.size:
            return self._direct(seed, cols, rows, spacing, ALL)
        ix, wx, gx = _coarse_axis(float(cols[0]), cols.size, float(spacing))
        iy, wy, gy = _coarse_axis(float(rows[0]), rows.size, float(spacing))
        coarse = self._direct(seed, gx, gy, spacing, COARSE_PART)
        if self.wavelengths()[-1] < COARSE * spacing:
            # The fast octaves' array is ours: the sum is written over it
            # (each value read before it is written), not into a new one.
            fine = self._direct(seed, cols, rows, spacing, FINE_PART)
            return interpolate(coarse, ix, wx, iy, wy, add=fine, out=fine)
        return interpolate(coarse, ix, wx, iy, wy)

    def points(self, seed: int, xs: np.ndarray, ys: np.ndarray, spacing: float) -> np.ndarray:
        """Values at the cell positions ``(xs, ys)`` (any shape, equal)."""
        plan, factor, constant = self._plan(seed, spacing)
        shape = np.broadcast_shapes(np.shape(xs), np.shape(ys))
        out = np.full(math.prod(shape), constant)
        if plan is not None and out.size:
            scale = 1.0 / self.wavelength
            x, y = _flat(xs, shape) * scale, _flat(ys, shape) * scale
            kept = np.empty_like(out)
            points2(*wrapped_tag(plan, (x, y)), x, y, kept)
            out += kept * factor if factor != 1.0 else kept
        return out.reshape(shape)


def _flat(values, shape: tuple[int, ...]) -> np.ndarray:
    """``values`` broadcast to ``shape``, as a flat float64 array (itself
    when it already is one of that size)."""
    if (
        isinstance(values, np.ndarray)
        and values.dtype == np.float64
        and values.ndim == 1
        and values.shape == shape
        and values.flags.c_contiguous
    ):
        return values
    return np.ascontiguousarray(np.broadcast_to(values, shape), dtype=np.float64).ravel()


# The octaves' per-level constants, computed once (read-only arrays).
@functools.lru_cache(maxsize=512)
def _wavelengths(octaves: Octaves) -> np.ndarray:
    out = octaves.wavelength / octaves.lacunarity ** np.arange(octaves.octaves)
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=1024)
def _weights(octaves: Octaves, spacing: float) -> np.ndarray:
    out = np.array([fade(w, spacing) for w in _wavelengths(octaves).tolist()])
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=1024)
def _dropped_std(octaves: Octaves, spacing: float) -> float:
    amps = octaves.persistence ** np.arange(octaves.octaves)
    lost = (1.0 - _weights(octaves, spacing)) * amps / amps.sum()
    return float(np.sqrt((lost**2).sum()) * _octave_std())


@functools.lru_cache(maxsize=512)
def _band_plan(
    octaves: Octaves, seed: int, spacing: float, part: int
) -> tuple[Plan | None, float, float]:
    """The plan of the octaves kept at ``spacing`` (amplitudes weighted and
    divided by the full sum), a factor for its values (the drivers return
    a lone fBm octave unweighted) and the constant the dropped ones add;
    of all octaves, or only the slow (``COARSE_PART``) or the fast ones."""
    full = octaves.fractal(seed)._plan(2)
    weights = octaves.weights(spacing)
    slow = octaves.wavelengths() >= COARSE * spacing
    keep = np.flatnonzero(weights > 0.0)
    if part == COARSE_PART:
        keep = keep[slow[keep]]
    elif part == FINE_PART:
        keep = keep[~slow[keep]]
    amps = full.amps / full.total
    mean = _ridged_mean() if octaves.mode == "ridged" else 0.0
    constant = 0.0 if part == FINE_PART else float(((1.0 - weights) * amps).sum() * mean)
    if keep.size == 0:
        return None, 1.0, constant
    weighted = (amps * weights)[keep].copy()
    factor = 1.0
    if keep.size == 1 and octaves.mode == "fbm":
        factor, weighted = float(weighted[0]), np.ones(1)
    plan = Plan(
        full.tag,
        full.perms[keep].copy(),
        full.periods[keep].copy(),
        full.iopts,
        full.jitter,
        full.freqs[keep].copy(),
        full.offsets[keep].copy(),
        weighted,
        full.mode,
        1.0,
    )
    return plan, factor, constant


@functools.lru_cache(maxsize=64)
def _coarse_axis(start: float, count: int, spacing: float) -> tuple[np.ndarray, ...]:
    """Catmull-Rom indices and weights of a sample axis (``count`` samples
    every ``spacing`` cells from ``start``) on the coarse grid of points
    every ``GRID * spacing`` cells, and that grid's positions."""
    g = GRID * spacing
    half = (spacing - 1.0) / 2.0
    positions = (start - half) + spacing * np.arange(count, dtype=np.float64)
    idx, weights, first = catmull_rom(positions, g)
    grid = (first + np.arange(int(idx.max()) + 1, dtype=np.float64)) * g + half
    for array in (idx, weights, grid):
        array.flags.writeable = False
    return idx, weights, grid


@kernel
def _catmull_rom(positions, g, idx, weights):
    # See catmull_rom; returns the first grid index.
    n = positions.size
    cells = np.empty(n, dtype=np.int64)
    first = np.int64(0)
    for i in range(n):
        cells[i] = np.int64(np.floor(positions[i] / g))
        if i == 0 or cells[i] - 1 < first:
            first = cells[i] - 1
    for i in range(n):
        t = positions[i] / g - np.float64(cells[i])
        t2 = t * t
        t3 = t * t * t
        for m in range(4):
            idx[i, m] = cells[i] - first + (m - 1)
        weights[i, 0] = 0.5 * (-t3 + 2.0 * t2 - t)
        weights[i, 1] = 0.5 * (3.0 * t3 - 5.0 * t2 + 2.0)
        weights[i, 2] = 0.5 * (-3.0 * t3 + 4.0 * t2 + t)
        weights[i, 3] = 0.5 * (t3 - t2)
    return first


def catmull_rom(positions: np.ndarray, g: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Indices (n, 4), weights (n, 4) and first grid index of Catmull-Rom
    interpolation at ``positions`` (float64, n >= 1) from grid points
    ``k * g``: point ``i`` lies between grid points ``k`` and ``k + 1``,
    ``k = floor(positions[i] / g)``, at ``t = positions[i] / g - k``, and
    reads grid points ``k - 1`` to ``k + 2`` with weights ``(-t^3 + 2t^2 -
    t) / 2``, ``(3t^3 - 5t^2 + 2) / 2``, ``(-3t^3 + 4t^2 + t) / 2``, ``(t^3 -
    t^2) / 2``; indices count from the first grid point any position reads."""
    positions = np.ascontiguousarray(positions, dtype=np.float64)
    idx = np.empty((positions.size, 4), dtype=np.int64)
    weights = np.empty((positions.size, 4))
    first = _catmull_rom(positions, float(g), idx, weights)
    return idx, weights, int(first)


@kernel
def _across(values, j, ix, wx, row):
    # Row j of ``values`` interpolated across, at the columns of ix and wx.
    for c in range(ix.shape[0]):
        row[c] = (values[j, ix[c, 0]] * wx[c, 0] + values[j, ix[c, 1]] * wx[c, 1]) + (
            values[j, ix[c, 2]] * wx[c, 2] + values[j, ix[c, 3]] * wx[c, 3]
        )


@kernel
def _interpolate(values, ix, wx, iy, wy, add, out):
    # Each grid row is interpolated across once, when an output row first
    # reads it, into the slot ``j % 4`` of four rows (an output row reads
    # four consecutive grid rows, and the rows ascend): four rows of
    # temporaries instead of one for every grid row.
    nx = ix.shape[0]
    across = np.empty((4, nx))
    held = np.full(4, -1, np.int64)  # the grid row in each slot
    for r in range(iy.shape[0]):
        for m in range(4):
            j = iy[r, m]
            if held[j % 4] != j:
                _across(values, j, ix, wx, across[j % 4])
                held[j % 4] = j
        j0, j1, j2, j3 = iy[r, 0], iy[r, 1], iy[r, 2], iy[r, 3]
        w0, w1, w2, w3 = wy[r, 0], wy[r, 1], wy[r, 2], wy[r, 3]
        a0, a1, a2, a3 = across[j0 % 4], across[j1 % 4], across[j2 % 4], across[j3 % 4]
        o = out[r]
        if add.shape[0] == 0:
            for c in range(nx):
                o[c] = (a0[c] * w0 + a1[c] * w1) + (a2[c] * w2 + a3[c] * w3)
        else:
            extra = add[r]
            for c in range(nx):
                o[c] = ((a0[c] * w0 + a1[c] * w1) + (a2[c] * w2 + a3[c] * w3)) + extra[c]


_NOTHING = np.empty((0, 0))


def interpolate(values, ix, wx, iy, wy, *, add=None, out=None) -> np.ndarray:
    """Separable interpolation of grid ``values`` (ny, nx) with the indices
    and weights of :func:`catmull_rom` for columns and rows: ``(len(iy),
    len(ix))``, every sum in a fixed order (the same bytes in every
    window); plus ``add`` (of that shape), if given, in the same pass;
    written into ``out`` (float64, C-contiguous, of that shape; it may be
    ``add`` itself) if given."""
    if out is None:
        out = _scratch.empty((iy.shape[0], ix.shape[0]))
    extra = _NOTHING if add is None else np.ascontiguousarray(add, dtype=np.float64)
    values = np.ascontiguousarray(values, dtype=np.float64)
    # Read-only views: numba compiles a kernel once per set of argument
    # types, and read-only is a type of its own (the cached axes are).
    args = [_read_only(a) for a in (values, ix, wx, iy, wy, extra)]
    _interpolate(*args, out)
    return out


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


def octave_count(wavelength: float, finest: float, lacunarity: float = 1.93) -> int:
    """Octaves from ``wavelength`` down to about ``finest`` cells."""
    return max(1, math.floor(math.log(wavelength / finest) / math.log(lacunarity)) + 1)
