"""Elevation in metres: continents, then ranges, hills and detail on the land.

    e = E(c) + L(c) * (M * U * (0.25 + 0.75 ridge) + H * hilly * (0.5 + 0.5 hills))

- ``c``: continentalness (:mod:`~worldgen.world._continents`), land where
  ``c >= 0``. ``E(c)`` is the continental profile, piecewise linear: the
  open ocean floor at ``-ocean_depth`` below ``c = -0.3``, the continental
  slope and shelf up to the coast at ``c = 0``, then coastal plains and
  lowlands rising to a fifth of ``relief`` far inland. At coarse levels
  ``E`` is averaged over the coast detail the samples leave out
  (``E[E(c + eps)]`` for a normal ``eps`` of the dropped octaves'
  spread, in closed form), so a coarse sample keeps the mean height of the
  coast it stands for.
- ``L(c)``: 0 at the coast, 1 from ``c = 0.05`` inland: the land factor
  (a smoothstep; at coarse levels the mean of a linear ramp over the coast
  detail left out, like ``E``). The sea floor carries no hills, so at full
  detail the coastline is exactly ``c = 0`` and the sea is where ``e < 0``.
- ``U``: uplift of the mountain belts (:mod:`~worldgen.world._ranges`);
  ``ridge``: ridged fractal noise, from ``continent_size / 48`` cells down
  to about 12; ``M = 0.73 relief``.
- ``hills``: the short half of the coast noise (from ``continent_size /
  24`` cells down to about 12), so coasts and hills share their bays and
  valleys; ``hilly``: a slow noise that makes some lowlands flat and
  others hilly; ``H = 0.12 relief``.

Every noise is band-limited by the window's step (:mod:`~worldgen.world._lod`).
Noises that only shape the land (ridges) are evaluated only on the
rectangle of samples that need them; elsewhere they take their mean, which
changes nothing where they are multiplied by zero.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from worldgen._jit import kernel
from worldgen.world import _continents, _ranges, _scratch
from worldgen.world._config import WorldConfig
from worldgen.world._lod import Octaves, octave_count, sample_axes
from worldgen.world._window import Window

_RIDGE, _HILLY = 0x454C4501, 0x454C4503
MOUNTAINS = 0.73  # of relief
HILLS = 0.12  # of relief
LAND_RAMP = 0.05  # c over which the land factor rises from 0 to 1


def ridge_noise(config: WorldConfig) -> Octaves:
    w = config.continent_size / 48.0
    return Octaves(_RIDGE, w, octave_count(w, 12.0), mode="ridged")


def hilliness_noise(config: WorldConfig) -> Octaves:
    return Octaves(_HILLY, config.continent_size / 12.0, 2)


def profile(config: WorldConfig) -> tuple[np.ndarray, np.ndarray]:
    """Knots ``(c, metres)`` of the continental profile ``E``."""
    d, r = config.ocean_depth, config.relief
    c = np.array([-0.30, -0.12, -0.035, 0.0, 0.03, 0.3, 0.8, 1.5])
    m = np.array([-d, -0.8 * d, -0.12 * d, 0.0, 0.006 * r, 0.06 * r, 0.15 * r, 0.2 * r])
    return c, m


# E[max(0, z + eps)] for eps ~ N(0, 1), z from -RAMP_SPAN to RAMP_SPAN:
# phi(z) + z Phi(z), tabulated once and read by linear interpolation
# (within 2e-7 of the closed form; the table is fixed, so every window
# reads the same values).
RAMP_SPAN = 6.0
RAMP_STEPS = 4096


def _ramp_table() -> np.ndarray:
    z = np.linspace(-RAMP_SPAN, RAMP_SPAN, RAMP_STEPS + 1)
    pdf = np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    cdf = 0.5 * np.array([math.erfc(-v / math.sqrt(2.0)) for v in z.tolist()])
    return pdf + z * cdf


_RAMP = _ramp_table()


@kernel
def _ramp_mean(x, sigma, table):
    # E[max(0, x + eps)] for eps ~ N(0, sigma^2), |x| <= RAMP_SPAN sigma.
    u = (x / sigma + RAMP_SPAN) * (RAMP_STEPS / (2.0 * RAMP_SPAN))
    i = min(int(u), RAMP_STEPS - 1)
    f = u - i
    return sigma * (table[i] + f * (table[i + 1] - table[i]))


def _slope_changes(knots: np.ndarray, metres: np.ndarray) -> np.ndarray:
    """How the slope of the piecewise linear profile changes at each knot
    (flat before the first and after the last)."""
    slopes = np.concatenate([[0.0], np.diff(metres) / np.diff(knots), [0.0]])
    return np.diff(slopes)


@kernel
def _ramp(x, sigma, table):
    # E[max(0, x + eps)], exact beyond RAMP_SPAN sigma.
    if x >= RAMP_SPAN * sigma:
        return x
    if x <= -RAMP_SPAN * sigma:
        return 0.0
    return _ramp_mean(x, sigma, table)


@kernel
def _profile(c, base, knots, changes, sigma, table):
    # E[F(c + eps)] for the piecewise linear F through the knots, flat
    # beyond them: F = m0 + sum of slope changes times ramps. Ramps more
    # than RAMP_SPAN sigma away are exact already (to 1e-10 of sigma).
    value = base
    for k in range(knots.size):
        x = c - knots[k]
        if x >= RAMP_SPAN * sigma:
            value += changes[k] * x
        elif x > -RAMP_SPAN * sigma:
            value += changes[k] * _ramp_mean(x, sigma, table)
    return value


@kernel
def _land(c, sigma, table):
    # The land factor: a smoothstep of c over LAND_RAMP at full detail; at
    # coarse levels the mean of a linear ramp over the coast detail left out.
    if sigma > 0.0:
        land = _ramp(c, sigma, table) - _ramp(c - LAND_RAMP, sigma, table)
        return min(max(land / LAND_RAMP, 0.0), 1.0)
    land = min(max(c / LAND_RAMP, 0.0), 1.0)
    return land * land * (3.0 - 2.0 * land)


# Coarse levels read E and the land factor from tables of c (for the
# window's spread sigma), every SMOOTH_STEP from SMOOTH_LO to SMOOTH_HI; past
# them E is flat and the land factor 0 or 1 for every sigma below 0.28.
SMOOTH_LO, SMOOTH_HI, SMOOTH_STEPS = -2.0, 3.0, 20000
SMOOTH_FROM = 0.01  # sigma from which the tables are used


@kernel
def _tabulate(base, knots, changes, sigma, table, profile_out, land_out):
    step = (SMOOTH_HI - SMOOTH_LO) / SMOOTH_STEPS
    for n in range(SMOOTH_STEPS + 1):
        c = SMOOTH_LO + n * step
        profile_out[n] = _profile(c, base, knots, changes, sigma, table)
        land_out[n] = _land(c, sigma, table)


@functools.lru_cache(maxsize=256)
def _smoothed(base: float, knots: tuple, changes: tuple, sigma: float):
    profile = np.empty(SMOOTH_STEPS + 1)
    land = np.empty(SMOOTH_STEPS + 1)
    _tabulate(base, np.array(knots), np.array(changes), sigma, _RAMP, profile, land)
    return profile, land


@kernel
def _read(table, c):
    u = (c - SMOOTH_LO) * (SMOOTH_STEPS / (SMOOTH_HI - SMOOTH_LO))
    u = min(max(u, 0.0), float(SMOOTH_STEPS))
    i = min(int(u), SMOOTH_STEPS - 1)
    return table[i] + (u - i) * (table[i + 1] - table[i])


@kernel
def _rise(land, uplift, ridge, hills, hilly, mountains, hill_amp):
    # What ranges and hills add on land.
    t = min(max((hilly + 0.25) / 0.6, 0.0), 1.0)
    t = t * t * (3.0 - 2.0 * t)
    rise = mountains * uplift * (0.25 + 0.75 * ridge)
    rise += hill_amp * (0.3 + 0.7 * t) * (0.5 + 0.5 * hills)
    return land * rise


@kernel
def _add_rise(land, uplift, ridge, hills, hilly, mountains, hill_amp, e):
    # e + what ranges and hills add where the land factor is above 0, else
    # e itself (a select, not a branch: loops of it are vectorised).
    rise = _rise(land, uplift, ridge, hills, hilly, mountains, hill_amp)
    return e + rise if land > 0.0 else e


@kernel
def _combine(
    c, uplift, ridge, hills, hilly, base, knots, changes, sigma, table, tab_e, tab_l,
    mountains, hill_amp, out,
):  # fmt: skip
    # One loop per case (tables, full detail, in between), so that each
    # runs without the others' branches: the same values as one loop. The
    # knots ascend (see profile), so a knot above the sample ends its sum.
    if tab_e.size > 0:
        for k in range(c.size):
            land = _read(tab_l, c[k])
            out[k] = _add_rise(
                land, uplift[k], ridge[k], hills[k], hilly[k], mountains, hill_amp,
                _read(tab_e, c[k]),
            )  # fmt: skip
    elif sigma == 0.0:
        # The profile's sums first (they stop at different knots), then the
        # land in a loop without branches.
        for k in range(c.size):
            e = base
            for q in range(knots.size):
                x = c[k] - knots[q]
                if x < 0.0:
                    break  # the knots ascend: no later one adds anything
                e += changes[q] * x
            out[k] = e
        for k in range(c.size):
            land = min(max(c[k] / LAND_RAMP, 0.0), 1.0)
            land = land * land * (3.0 - 2.0 * land)
            out[k] = _add_rise(
                land, uplift[k], ridge[k], hills[k], hilly[k], mountains, hill_amp, out[k]
            )  # fmt: skip
    else:  # _profile and _land written out: the same values, twice as fast
        span = RAMP_SPAN * sigma
        for k in range(c.size):
            ck = c[k]
            e = base
            for q in range(knots.size):
                x = ck - knots[q]
                if x >= span:
                    e += changes[q] * x
                elif x > -span:
                    e += changes[q] * _ramp_mean(x, sigma, table)
                else:
                    break  # the knots ascend: no later one adds anything
            x = ck - LAND_RAMP
            land = (
                (ck if ck >= span else (0.0 if ck <= -span else _ramp_mean(ck, sigma, table)))
                - (x if x >= span else (0.0 if x <= -span else _ramp_mean(x, sigma, table)))
            )  # fmt: skip
            land = min(max(land / LAND_RAMP, 0.0), 1.0)
            if land > 0.0:  # (a branch: this loop is not vectorised)
                e += _rise(land, uplift[k], ridge[k], hills[k], hilly[k], mountains, hill_amp)
            out[k] = e


@dataclasses.dataclass
class Relief:
    """Elevation and what it is made of, at a set of samples (flat arrays)."""

    elevation: np.ndarray  # metres above sea level
    continentalness: np.ndarray  # c: land where >= 0
    uplift: np.ndarray  # mountain belts, 0..1
    ridge: np.ndarray  # the ridged noise (its mean where no belt needs it)
    height: float  # metres of the highest ranges (M)
    land: np.ndarray  # bool: the land factor may be above 0 (the ridge is right)
    warp: tuple[np.ndarray, np.ndarray] = ()  # the lattice's warp noises (unscaled)

    @property
    def mountains(self) -> np.ndarray:
        """Metres the ranges add (before the land factor); 0 where the land
        factor is 0, the only samples where the ridge is left at its mean
        (which depends on the window), so that the field is exact."""
        return np.where(self.land, self.height * self.uplift * (0.25 + 0.75 * self.ridge), 0.0)


@kernel
def _land_masks(c, uplift, threshold):
    # Where the land factor may be above 0 (c above the threshold), and
    # where a mountain belt rises there too.
    land = np.empty(c.size, dtype=np.bool_)
    belts = np.empty(c.size, dtype=np.bool_)
    for k in range(c.size):
        land[k] = c[k] > threshold
        belts[k] = land[k] and uplift[k] > 0.0
    return land, belts


def _land_from(threshold: float, tab_l: np.ndarray) -> float:
    """A continentalness at or below which the land factor is 0 (the land
    adds nothing there): ``threshold`` at full and nearly full detail; at
    coarse levels, where it is read from the table ``tab_l`` (ascending),
    two entries below its first above 0 (``-inf`` if that is the first
    entry: the table holds its first value below its range)."""
    if tab_l.size == 0:
        return threshold
    first = int(np.argmax(tab_l > 0.0))
    if not tab_l[first] > 0.0:
        return math.inf
    if first < 2:
        return -math.inf
    return SMOOTH_LO + (first - 2) * ((SMOOTH_HI - SMOOTH_LO) / SMOOTH_STEPS)


def _relief(
    config: WorldConfig, xs, ys, spacing: float, noise, uplift, grid: bool, out=None
) -> Relief:
    """Shared by the grid and point forms: the samples at ``xs, ys`` (flat,
    or with ``grid`` a grid's columns and rows); ``noise(octaves, where=None)``
    gives an Octaves' values at the samples (flat; only where ``where`` is
    true need be right, the rest may hold the noise's mean) and ``uplift``
    the belts' (flat), or ``uplift(where)`` gives them right at least where
    ``where`` (flat bool) is true: wherever the land factor may be above 0,
    all the elevation needs. The elevation is written into ``out`` (flat,
    float64, contiguous) if given."""
    low, high = _continents.coast_noises(config)
    share_low, share_high = _continents.coast_shares(config)
    hills = noise(high)
    amplitude = _continents.COAST * config.roughness
    coast = _continents.coast_values(config, lambda n: hills if n == high else noise(n))
    warp = tuple(noise(n) for n in _continents.warp_noises(config))
    c = _continents.continentalness(
        config, xs, ys, coast, warp, grid=grid, warp_scale=_continents.WARP
    )
    sigma = amplitude * math.hypot(
        share_low * low.dropped_std(spacing), share_high * high.dropped_std(spacing)
    )
    knots, metres = profile(config)
    changes = _slope_changes(knots, metres)
    if sigma >= SMOOTH_FROM:
        tab_e, tab_l = _smoothed(float(metres[0]), tuple(knots), tuple(changes), sigma)
    else:
        tab_e = tab_l = np.empty(0)
    # At or below this continentalness the land factor is 0: where the
    # land's noises may be left at their means.
    threshold = _land_from(-RAMP_SPAN * sigma, tab_l)
    if callable(uplift):
        uplift = uplift(c > threshold)
    land, belts = _land_masks(c, uplift, threshold)
    ridge = noise(ridge_noise(config), belts)
    hilly = noise(hilliness_noise(config), land)
    mountains = MOUNTAINS * config.relief * min(config.ranges, 1.0)
    if out is None:
        out = np.empty(c.size)
    _combine(
        c, uplift, ridge, hills, hilly, float(metres[0]), knots, changes, sigma, _RAMP, tab_e,
        tab_l, mountains, HILLS * config.relief, out,
    )  # fmt: skip
    return Relief(out, c, uplift, ridge, mountains, land, warp)


@kernel
def _box(mask, width):
    # First and last row and column of the true entries of a flat mask of
    # rows ``width`` long (last row -1 if there are none). Each row is
    # searched from its ends for its first and last true entry only.
    r0 = c0 = mask.size
    r1 = c1 = -1
    for r in range(mask.size // width):
        start = r * width
        first = -1
        for c in range(width):
            if mask[start + c]:
                first = c
                break
        if first < 0:
            continue
        last = first
        for c in range(width - 1, first, -1):
            if mask[start + c]:
                last = c
                break
        r0 = min(r0, r)
        r1 = r
        c0 = min(c0, first)
        c1 = max(c1, last)
    return r0, r1, c0, c1


def _bounding(where: np.ndarray | None, shape: tuple[int, int]) -> tuple[slice, slice] | None:
    """The smallest rectangle of a flat mask over ``shape``, or None if empty
    (the whole grid when there is no mask)."""
    if where is None:
        return np.s_[:], np.s_[:]
    r0, r1, c0, c1 = _box(np.ascontiguousarray(where, dtype=np.bool_).ravel(), shape[1])
    if r1 < 0:
        return None
    return np.s_[r0 : r1 + 1], np.s_[c0 : c1 + 1]


def window_noise(config: WorldConfig, window: Window):
    """``noise(octaves, where=None)`` for the samples of ``window`` (flat),
    evaluating only on the rectangle around ``where`` (the rest at the
    noise's mean): a sample's value never depends on the rectangle."""
    cols, rows = sample_axes(window)
    step = float(window.step)

    def noise(octaves: Octaves, where: np.ndarray | None = None) -> np.ndarray:
        box = _bounding(where, window.shape)
        if box is not None and (box[0].indices(rows.size), box[1].indices(cols.size)) == (
            (0, rows.size, 1),
            (0, cols.size, 1),
        ):  # the whole window
            return octaves.grid(config.seed, cols, rows, step).ravel()
        mean = octaves.mean(step)
        if box is None:
            return _scratch.full(window.shape, mean).ravel()
        # The mean around the rectangle, the noise in it (each sample
        # written once).
        out = _scratch.empty(window.shape)
        rows_in, cols_in = box
        out[: rows_in.start] = mean
        out[rows_in.stop :] = mean
        out[rows_in, : cols_in.start] = mean
        out[rows_in, cols_in.stop :] = mean
        out[box] = octaves.grid(config.seed, cols[cols_in], rows[rows_in], step)
        return out.ravel()

    return noise


def relief(
    config: WorldConfig, window: Window, *, uplift_everywhere: bool = True, out=None
) -> Relief:
    """The relief of a window (arrays flat, row by row, ``H * W`` long).
    Without ``uplift_everywhere`` the uplift (and so the mountains) is
    right only where the land needs it (the elevation is the same): for
    callers that keep only the elevation. The elevation is written into
    ``out`` (float64, C-contiguous, ``H * W`` values) if given."""
    cols, rows = sample_axes(window)
    if config.ranges <= 0.0:
        uplift = np.zeros(cols.size * rows.size)
    elif uplift_everywhere:
        uplift = _ranges.uplift_grid(config, cols, rows, window.step).ravel()
    else:

        def uplift(where: np.ndarray) -> np.ndarray:
            where = where.reshape(window.shape)
            return _ranges.uplift_grid(config, cols, rows, window.step, where=where).ravel()

    noise = window_noise(config, window)
    if out is not None:
        out = out.reshape(-1)  # a view: the caller's array is written
    return _relief(config, cols, rows, float(window.step), noise, uplift, True, out)


def relief_points(config: WorldConfig, xs: np.ndarray, ys: np.ndarray, spacing: float) -> Relief:
    """The relief at cell positions ``xs, ys`` (flat float64 arrays),
    band-limited for ``spacing``; the uplift is evaluated at each point."""
    xs = np.ascontiguousarray(xs, dtype=np.float64).ravel()
    ys = np.ascontiguousarray(ys, dtype=np.float64).ravel()

    def noise(octaves: Octaves, where: np.ndarray | None = None) -> np.ndarray:
        return octaves.points(config.seed, xs, ys, spacing)

    uplift = _ranges.uplift_points(config, xs, ys, spacing)
    return _relief(config, xs, ys, spacing, noise, uplift, False)


def elevation(config: WorldConfig, window: Window, out: np.ndarray | None = None) -> np.ndarray:
    """Metres above sea level of the window's samples, shape ``(H, W)``;
    written into ``out`` (float64, C-contiguous, of that shape) if given,
    e.g. rows of a bigger window's array, which saves a copy."""
    made = relief(config, window, uplift_everywhere=False, out=out).elevation
    return made.reshape(window.shape) if out is None else out
