"""Where a world is worth seeing: the coast of the landmass nearest the origin.

As Minecraft looks for a spawn point on land, the commands open a world on
its landmass nearest the origin, at a stretch of coast near its highest
ground: a default window there shows sea, shore, lowland and mountains.

The search is a pure function of the config: the continent squares are
visited ring by ring outwards from the origin (nearest square centres
first); the first square with land is sampled every 128th of a square, and
its spot is the land sample within two samples of the sea whose elevation
is highest (nearest the origin among equals). Around that spot, a 4096
cell square is sampled every 16 cells and the 512-cell window whose land
share is nearest 60% (highest ground among equals) gives the spawn: its
centre.
"""

from __future__ import annotations

import functools

import numpy as np

from worldgen.world._config import WorldConfig
from worldgen.world._elevation import elevation
from worldgen.world._window import Window

VIEW = 512  # cells across the view the spawn is chosen for
FINE = 16  # sample spacing of the refinement


def _squares(rings: int) -> list[tuple[int, int]]:
    """Squares (i, j) ring by ring, nearest centre first within a ring."""
    out = []
    for ring in range(rings + 1):
        cells = [
            (i, j)
            for j in range(-ring - 1, ring + 1)
            for i in range(-ring - 1, ring + 1)
            if max(abs(i + 0.5), abs(j + 0.5)) > ring - 0.5
            and max(abs(i + 0.5), abs(j + 0.5)) <= ring + 0.5
        ]
        cells.sort(key=lambda c: ((c[0] + 0.5) ** 2 + (c[1] + 0.5) ** 2, c[1], c[0]))
        out += [c for c in cells if c not in out]
    return out


def _near(mask: np.ndarray, steps: int) -> np.ndarray:
    """Cells within ``steps`` (chebyshev) of a true cell of ``mask``."""
    grown = mask.copy()
    for _ in range(steps):
        g = grown.copy()
        g[1:, :] |= grown[:-1, :]
        g[:-1, :] |= grown[1:, :]
        g[:, 1:] |= grown[:, :-1]
        g[:, :-1] |= grown[:, 1:]
        grown = g
    return grown


@functools.lru_cache(maxsize=32)
def spawn(config: WorldConfig) -> tuple[int, int]:
    """The world cell ``(x, y)`` the commands centre their default view on.

    Examples
    --------
    >>> x, y = spawn(WorldConfig(seed=3, continent_size=4096))
    >>> isinstance(x, int) and isinstance(y, int)
    True
    """
    size = config.continent_size
    step = size // 128
    spot = None
    for i, j in _squares(6):
        # Squares of odd rows are shifted half a square east (brick lattice).
        x0 = int((i + 0.5 * (j & 1)) * size)
        e = elevation(config, Window(x0, j * size, 128, 128, step))
        land = e >= 0.0
        if land.sum() < 16:
            continue
        shore = land & _near(~land, 2)
        candidates = shore if shore.any() else land
        rows, cols = np.nonzero(candidates)
        xs = x0 + cols * step + step // 2
        ys = j * size + rows * step + step // 2
        order = np.lexsort((xs**2 + ys**2, -e[rows, cols]))
        spot = int(xs[order[0]]), int(ys[order[0]])
        break
    if spot is None:  # no land near the origin at all
        return 0, 0
    side = 4096 // FINE
    fine = elevation(config, Window(spot[0] - 2048, spot[1] - 2048, side, side, FINE))
    land = (fine >= 0.0).astype(np.float64)
    k = VIEW // FINE
    share = _box_mean(land, k)
    peak = _box_max(fine, k)
    score = -np.abs(share - 0.6) + 1e-6 * peak
    r, c = np.unravel_index(int(np.argmax(score)), score.shape)
    return spot[0] - 2048 + int(c) * FINE + VIEW // 2, spot[1] - 2048 + int(r) * FINE + VIEW // 2


def _box_mean(values: np.ndarray, k: int) -> np.ndarray:
    """Means of every k x k box (top-left at each index that fits)."""
    s = np.pad(values, ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    return (s[k:, k:] - s[:-k, k:] - s[k:, :-k] + s[:-k, :-k]) / (k * k)


def _box_max(values: np.ndarray, k: int) -> np.ndarray:
    """Maxima of every k x k box (top-left at each index that fits)."""
    rows = np.max(np.lib.stride_tricks.sliding_window_view(values, k, axis=0), axis=-1)
    return np.max(np.lib.stride_tricks.sliding_window_view(rows, k, axis=1), axis=-1)


def default_window(config: WorldConfig, width: int, height: int) -> Window:
    """The ``width x height`` window of full detail centred on the spawn."""
    x, y = spawn(config)
    return Window(x - width // 2, y - height // 2, width, height)


__all__ = ["default_window", "spawn"]
