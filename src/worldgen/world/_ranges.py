"""Mountain ranges: uplift belts where plate-like regions meet.

Plates are the Voronoi regions of sites on a jittered lattice of spacing
``P = continent_size / 4`` (one site per lattice square, within a quarter
of a square of its centre). The line where two plates meet is a belt of
uplift when the pair collides: a hash of the pair gives how hard, and
``ranges`` sets how many pairs collide at all. Across the belt the uplift
falls off as ``exp(-(d / w)^2)`` of the distance ``d`` to the plates'
bisector (exact for the nearest two sites), with ``w`` the belt's
half-width (:attr:`WorldConfig.belt_width`); along it a slow noise makes
ranges rise, fall and break into separate massifs. Positions are domain
warped first, so belts bend instead of running straight.

Band limit: at sample spacing ``s`` the belt is widened to ``w' =
sqrt(w^2 + s^2 / 6)`` and lowered by ``w / w'`` (a Gaussian profile
convolved with a box of width ``s``, in its variance), so coarse samples
keep the belt's mass instead of missing or aliasing it.

The uplift is a pure function of position; windows evaluate it on a grid
aligned to world coordinates (every :func:`grid_spacing` cells) and
interpolate it (Catmull-Rom), so it is the same in every window.
"""

from __future__ import annotations

import math

import numpy as np

from worldgen._jit import kernel
from worldgen.noise._seed import derive_seed
from worldgen.world._config import WorldConfig
from worldgen.world._hash import uniform3
from worldgen.world._lod import Octaves, catmull_rom, interpolate

_SITES, _PAIRS, _WARP_X, _WARP_Y, _ALONG = (
    0x52414E01,
    0x52414E02,
    0x52414E03,
    0x52414E04,
    0x52414E05,
)
PLATE_JITTER = 0.25
# On each axis a site lies from PLATE_JITTER_EDGE to 1 - PLATE_JITTER_EDGE
# of its square (SLACK covers rounding).
PLATE_JITTER_EDGE = 0.5 - PLATE_JITTER
SLACK = 1e-7
SEARCH = 2  # lattice squares searched on each side


def warp_noises(config: WorldConfig) -> tuple[Octaves, Octaves]:
    """The plates' domain warp (half a plate and shorter)."""
    p = config.plate_size
    return (Octaves(_WARP_X, p / 2.0, 2), Octaves(_WARP_Y, p / 2.0, 2))


def along_noise(config: WorldConfig) -> Octaves:
    """The slow noise that raises and lowers ranges along their length."""
    return Octaves(_ALONG, config.plate_size / 3.0, 2)


@kernel
def _sites(seed, i0, j0, cols, rows):
    # Site positions (in plates) of lattice squares i0.., j0..
    out = np.empty((rows, cols, 2))
    for r in range(rows):
        for c in range(cols):
            i = i0 + c
            j = j0 + r
            out[r, c, 0] = i + 0.5 + PLATE_JITTER * (2.0 * uniform3(seed, i, j, 0) - 1.0)
            out[r, c, 1] = j + 0.5 + PLATE_JITTER * (2.0 * uniform3(seed, i, j, 1) - 1.0)
    return out


@kernel
def _site(seed, i, j):
    # The site of lattice square (i, j), in plates, from its hash (as
    # _sites tabulates it).
    sx = i + 0.5 + PLATE_JITTER * (2.0 * uniform3(seed, i, j, 0) - 1.0)
    sy = j + 0.5 + PLATE_JITTER * (2.0 * uniform3(seed, i, j, 1) - 1.0)
    return sx, sy


@kernel
def _site_at(seed, sites, i0, j0, i, j):
    # The site of lattice square (i, j): from the table, or hashed where
    # there is none (sites empty).
    if sites.shape[0] > 0:
        return sites[j - j0, i - i0, 0], sites[j - j0, i - i0, 1]
    return _site(seed, i, j)


@kernel
def _apart(v, lo):
    # How far v lies outside [lo + EDGE - SLACK, lo + 1 - EDGE + SLACK]: at
    # most its distance from any site coordinate of square lo on that axis.
    a = lo + (PLATE_JITTER_EDGE - SLACK)
    b = lo + (1.0 - PLATE_JITTER_EDGE + SLACK)
    if v < a:
        return a - v
    if v > b:
        return v - b
    return 0.0


@kernel
def _uplift(
    xs, ys, wx, wy, along, needed, sites, i0, j0, seed, pairs, plate, temperature, share, out
):  # fmt: skip
    # Soft plate membership: w_i = exp(-d_i^2 / T) / sum over the sites,
    # kept for the three nearest; uplift = 4 sum over their pairs of
    # strength_ij * w_i * w_j, a smooth belt along each bisector. Points
    # not needed (needed empty: all are) are left as they are.
    #
    # The three nearest of the (2 SEARCH + 1)^2 sites around a point, and
    # their order: ascending distance, and among equal distances the
    # first in the search order (the squares row by row). The nine squares
    # around the point's own are measured first (from the table of sites,
    # or where there is none from their hashes); the third nearest of them
    # bounds the third nearest of all, so an outer square whose every
    # possible site (its jitter box) lies farther cannot hold one of the
    # three. Every outer site lies at least 1 + EDGE squares away across
    # the point's own square's nearest side: when that is beyond the
    # bound, no outer square is looked at (most points).
    every = needed.size == 0
    for k in range(xs.size):
        if not every and not needed[k]:
            continue
        x = (xs[k] + wx[k]) / plate
        y = (ys[k] + wy[k]) / plate
        ci = int(np.floor(x))
        cj = int(np.floor(y))
        # The three nearest as (distance, search order), in scalars.
        d0 = d1 = d2 = np.inf
        o0 = o1 = o2 = 0
        for n in range(9):
            r = n // 3
            c = n - 3 * r
            sx, sy = _site_at(seed, sites, i0, j0, ci - 1 + c, cj - 1 + r)
            d = (x - sx) * (x - sx) + (y - sy) * (y - sy)
            o = (r + 1) * (2 * SEARCH + 1) + (c + 1)
            if d < d2:  # the nine come in search order: ties stay behind
                if d < d1:
                    d2, o2 = d1, o1
                    if d < d0:
                        d1, o1, d0, o0 = d0, o0, d, o
                    else:
                        d1, o1 = d, o
                else:
                    d2, o2 = d, o
        fx = x - ci
        fy = y - cj
        m = min(min(fx, 1.0 - fx), min(fy, 1.0 - fy)) + (1.0 + PLATE_JITTER_EDGE - SLACK)
        if m * m <= d2:
            side = 2 * SEARCH + 1
            bound = d2
            for o in range(side * side):
                r = o // side
                c = o - side * r
                if abs(r - SEARCH) <= 1 and abs(c - SEARCH) <= 1:
                    continue
                i = ci - SEARCH + c
                j = cj - SEARCH + r
                ax = _apart(x, float(i))
                ay = _apart(y, float(j))
                if ax * ax + ay * ay > bound:
                    continue
                sx, sy = _site_at(seed, sites, i0, j0, i, j)
                d = (x - sx) * (x - sx) + (y - sy) * (y - sy)
                if d < d2 or (d == d2 and o < o2):
                    if d < d1 or (d == d1 and o < o1):
                        d2, o2 = d1, o1
                        if d < d0 or (d == d0 and o < o0):
                            d1, o1, d0, o0 = d0, o0, d, o
                        else:
                            d1, o1 = d, o
                    else:
                        d2, o2 = d, o
        w1 = np.exp(-(d1 - d0) / temperature)
        w2 = np.exp(-(d2 - d0) / temperature)
        total = 1.0 + w1 + w2
        u = 0.0
        for a in range(3):
            oa = o0 if a == 0 else (o1 if a == 1 else o2)
            wa = (1.0 if a == 0 else (w1 if a == 1 else w2)) / total
            for b in range(a + 1, 3):
                ob = o1 if b == 1 else o2
                wb = (w1 if b == 1 else w2) / total
                if wa * wb < 1e-9:
                    continue
                ai = ci - SEARCH + oa % (2 * SEARCH + 1)
                aj = cj - SEARCH + oa // (2 * SEARCH + 1)
                bi = ci - SEARCH + ob % (2 * SEARCH + 1)
                bj = cj - SEARCH + ob // (2 * SEARCH + 1)
                if ai < bi or (ai == bi and aj < bj):
                    pi, pj, qi, qj = ai, aj, bi, bj
                else:
                    pi, pj, qi, qj = bi, bj, ai, aj
                beta = uniform3(pairs, pi, pj, (qi - pi + 8) * 32 + (qj - pj + 8))
                strength = min(max((beta - (1.0 - share)) / 0.2, 0.0), 1.0)
                u += 4.0 * strength * wa * wb
        rise = min(max(0.6 + 0.9 * along[k], 0.0), 1.0)
        out[k] = min(u, 1.0) * rise


_EVERY = np.empty(0, dtype=np.bool_)


def _uplift_at(config, xs, ys, spacing, wx, wy, along, needed=None) -> np.ndarray:
    """Uplift at the points (flat arrays); with ``needed`` (flat bool), only
    at the points where it is true (0 at the others)."""
    out = np.zeros(xs.size)
    if needed is not None and not needed.all():
        count = int(np.count_nonzero(needed))
        bounds_x, bounds_y = xs[needed], ys[needed]
    else:
        needed, count, bounds_x, bounds_y = _EVERY, xs.size, xs, ys
    if not count or config.ranges <= 0.0:
        return out
    seed = config.seed
    plate = config.plate_size
    # Lattice squares the warped positions may fall in, and SEARCH around.
    reach = plate / 6.0 + 1.0
    i0 = math.floor((float(bounds_x.min()) - reach) / plate) - SEARCH
    j0 = math.floor((float(bounds_y.min()) - reach) / plate) - SEARCH
    i1 = math.floor((float(bounds_x.max()) + reach) / plate) + SEARCH
    j1 = math.floor((float(bounds_y.max()) + reach) / plate) + SEARCH
    site_seed = np.uint64(derive_seed(seed, _SITES))
    # A table of sites costs two hashes a site; hashing them at each point,
    # two for each site it looks at: the nine around it, and seldom one of
    # the outer squares.
    if (i1 - i0 + 1) * (j1 - j0 + 1) <= 9 * count:
        sites = _sites(site_seed, i0, j0, i1 - i0 + 1, j1 - j0 + 1)
    else:  # far more plates than points: each point hashes its own
        sites = np.empty((0, 0, 2))
    w = config.belt_width
    wide = math.sqrt(w * w + spacing * spacing / 6.0)
    share = 0.45 * min(config.ranges, 1.5)
    # Half-width w where the profile 4 s (1 - s), s logistic in the
    # distance to the bisector (about one plate apart), falls to a half.
    temperature = 2.0 * wide / (1.7627 * plate)
    _uplift(
        xs, ys, wx * (plate / 6.0), wy * (plate / 6.0), along, needed, sites, i0, j0, site_seed,
        np.uint64(derive_seed(seed, _PAIRS)), plate, temperature, share, out,
    )  # fmt: skip
    return out * (w / wide)


def uplift_points(
    config: WorldConfig, xs: np.ndarray, ys: np.ndarray, spacing: float
) -> np.ndarray:
    """Uplift in [0, 1] at cell positions ``xs, ys`` (flat float64),
    band-limited for ``spacing``."""
    seed = config.seed
    wx, wy = (n.points(seed, xs, ys, spacing) for n in warp_noises(config))
    along = along_noise(config).points(seed, xs, ys, spacing)
    return _uplift_at(config, xs, ys, spacing, wx, wy, along)


def grid_spacing(step: int) -> int:
    """Spacing of the grid the uplift is evaluated on for samples every
    ``step`` cells: 64 cells, or four steps when that is more."""
    return max(64, 4 * step)


def uplift_grid(
    config: WorldConfig,
    cols: np.ndarray,
    rows: np.ndarray,
    step: int,
    *,
    where: np.ndarray | None = None,
) -> np.ndarray:
    """Uplift in [0, 1] on the grid of cell positions ``cols`` x ``rows`` (sample
    centres of a window at ``step``), interpolated from the aligned grid;
    with ``where`` (bool, ``(len(rows), len(cols))``), right only where it
    is true (the grid points no such sample reads are left at 0)."""
    g = grid_spacing(step)
    seed = config.seed

    def field(gx: np.ndarray, gy: np.ndarray, needed: np.ndarray | None) -> np.ndarray:
        xs = np.broadcast_to(gx[None, :], (gy.size, gx.size)).ravel()
        ys = np.broadcast_to(gy[:, None], (gy.size, gx.size)).ravel()
        wx, wy = (
            n.grid(seed, gx, gy, float(step), split=False).ravel() for n in warp_noises(config)
        )
        along = along_noise(config).grid(seed, gx, gy, float(step), split=False).ravel()
        flat = None if needed is None else needed.ravel()
        return _uplift_at(config, xs, ys, float(step), wx, wy, along, flat).reshape(
            gy.size, gx.size
        )

    # The splines overshoot where a belt's edge meets the flat between
    # belts: clipped, the uplift stays in [0, 1], and where it is 0 it adds
    # nothing (the elevation evaluates the ridges only where it is above 0).
    out = on_coarse_grid(field, cols, rows, g, where=where)
    return np.clip(out, 0.0, 1.0, out=out)


@kernel
def _needed(where, ix, iy, needed):
    # The grid points the true samples of where read: the 4 x 4 from each
    # sample's first column ix[c, 0] and row iy[r, 0].
    ny, nx = needed.shape
    first = np.zeros((ny, nx), dtype=np.bool_)
    for r in range(where.shape[0]):
        j = iy[r, 0]
        for c in range(where.shape[1]):
            if where[r, c]:
                first[j, ix[c, 0]] = True
    for j in range(ny):
        for i in range(nx):
            if first[j, i]:
                for m in range(4):
                    for n in range(4):
                        needed[j + m, i + n] = True


def on_coarse_grid(
    field, cols: np.ndarray, rows: np.ndarray, g: int, *, where: np.ndarray | None = None
) -> np.ndarray:
    """``field(gx, gy, needed)`` (grid axes -> values ``(len(gy),
    len(gx))``) evaluated on the points ``(k g, l g)`` around the grid
    ``cols`` x ``rows`` and interpolated to it by separable Catmull-Rom:
    the same at a position in every window. With ``where`` (bool, ``(len(rows),
    len(cols))``) the field need only be right at the grid points
    ``needed`` (bool, ``(len(gy), len(gx))``) that those samples read, and
    the result is right only there; else ``needed`` is None."""
    ix, wx, fx = catmull_rom(cols, g)
    iy, wy, fy = catmull_rom(rows, g)
    nx, ny = int(ix.max()) + 1, int(iy.max()) + 1
    gx = (fx + np.arange(nx, dtype=np.float64)) * g
    gy = (fy + np.arange(ny, dtype=np.float64)) * g
    needed = None
    if where is not None:
        needed = np.zeros((ny, nx), dtype=np.bool_)
        _needed(np.ascontiguousarray(where, dtype=np.bool_), ix, iy, needed)
    values = field(gx, gy, needed)
    return interpolate(values, ix, wx, iy, wy)
