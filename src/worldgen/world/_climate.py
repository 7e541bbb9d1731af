"""Climate: temperature from latitude and height, rainfall carried by the wind.

Temperature (degrees Celsius)
    ``T = temperature + 20 sin(2 pi y / (8 continent_size)) - lapse_rate *
    max(e, 0) + 3 n``: latitude-like bands north to south (y grows south,
    the origin at a mid latitude, warmer to the south), cooler with height,
    and a slow noise ``n`` (a fifth of a continent square and shorter). A
    cell's temperature depends on that cell alone.

Rainfall (millimetres a year)
    The prevailing wind (``wind``, the direction it blows toward) carries
    moisture ``m`` in [0, 1] across the world, in the manner of mapgen4's
    rainfall sweep (Red Blob Games): over the sea it evaporates back toward
    saturation (``dm/ds = (1 - m) / E``), over land it rains out, faster
    where the ground rises along the wind (orographic rain: ``dm/ds = -m
    (1 / B + max(0, de/ds) * 2 / relief)``). Windward slopes are wet,
    lee sides dry (rain shadows), and the air dries out far inland. The
    rain at a cell is ``R = rainfall * 2400 * m * (1 / B + 2 max(0, de/ds)
    / relief) * B / 2 + 120`` mm. ``E = continent_size / 32``, ``B =
    continent_size / 10``.

    To keep windows exact the sweep is bounded: the moisture at a point is
    integrated from a fixed start (``m = 0.5``) at :attr:`WorldConfig.fetch`
    (a quarter of a continent square) upwind, in steps of ``g`` cells, over
    the elevation band-limited to ``g``. A point's rainfall depends on the
    elevation along that line only. Rainfall is computed on points of a grid
    aligned to world coordinates (every ``g = max(256, 8 step)`` cells) and
    interpolated (Catmull-Rom) to the window's samples, so it is the same
    in every window at a given level. (After ``fetch`` cells of land the air
    keeps ``exp(-fetch / B) = 8%`` of its moisture, so the bounded start
    changes little.)
"""

from __future__ import annotations

import math

import numpy as np

from worldgen._jit import kernel
from worldgen.world import _scratch
from worldgen.world._config import WorldConfig
from worldgen.world._elevation import relief_points
from worldgen.world._lod import Octaves, catmull_rom, interpolate

_TEMPERATURE = 0x434C4901
LATITUDE_SWING = 20.0  # degrees between the origin's latitude and the warmest band
TEMPERATURE_NOISE = 3.0  # degrees
RAIN_MAX = 2400.0  # mm a year at saturation on flat land
RAIN_MIN = 120.0  # mm a year everywhere (other winds, storms)
START = 0.35  # moisture at the start of the fetch
MIXING = 0.2  # share of moisture taken from each neighbour across the wind, per step
OROGRAPHIC_MAX = 3.0  # rain on the steepest windward slopes, in flat land's at the same moisture


def temperature_noise(config: WorldConfig) -> Octaves:
    return Octaves(_TEMPERATURE, config.continent_size / 5.0, 3)


def temperature(
    config: WorldConfig,
    elevation: np.ndarray,
    rows: np.ndarray,
    noise: np.ndarray,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Degrees Celsius at cells with these elevations, row positions (cells,
    broadcastable) and temperature noise values; written into ``out``
    (float64, of the broadcast shape) if given."""
    band = LATITUDE_SWING * np.sin(2.0 * np.pi * rows / config.latitude_period)
    start = config.temperature + band
    if (
        isinstance(elevation, np.ndarray)
        and isinstance(noise, np.ndarray)
        and elevation.ndim == 2
        and elevation.dtype == noise.dtype == np.float64
        and noise.shape == elevation.shape
        and np.shape(start) == (elevation.shape[0], 1)
        and (out is None or out.flags.c_contiguous)
    ):
        # A window's grid (rows down the first axis): one pass, the same
        # operations in the same order as the expression below.
        if out is None:
            out = _scratch.empty(elevation.shape)
        _temperature(
            np.ascontiguousarray(start[:, 0], dtype=np.float64), elevation, noise,
            config.lapse_rate, out,
        )  # fmt: skip
        return out
    made = start - config.lapse_rate * np.maximum(elevation, 0.0) + TEMPERATURE_NOISE * noise
    if out is None:
        return made
    out[...] = made
    return out


@kernel
def _temperature(start, elevation, noise, lapse_rate, out):
    # start[r] - lapse_rate * max(e, 0) + TEMPERATURE_NOISE * n, with
    # np.maximum's max (0 for -0.0, NaN for NaN).
    for r in range(out.shape[0]):
        for c in range(out.shape[1]):
            e = elevation[r, c]
            high = e if (e > 0.0 or e != e) else 0.0
            out[r, c] = (start[r] - lapse_rate * high) + TEMPERATURE_NOISE * noise[r, c]


def rain_spacing(config: WorldConfig, step: int) -> int:
    """Grid spacing (cells) of the rainfall for samples every ``step``
    cells: a 64th of a continent square, or eight steps when that is more."""
    return max(config.continent_size // 64, 8 * step)


WINDS = {
    "west": (1, 0), "east": (-1, 0), "north": (0, 1), "south": (0, -1),
    "north-west": (1, 1), "north-east": (-1, 1), "south-west": (1, -1), "south-east": (-1, -1),
}  # fmt: skip
"""Where the prevailing wind blows from, and its step (x, y) on the grid."""


@kernel
def _sweep(elev, dx, dy, steps, dist, evaporation, base, orographic, mixing):
    # Moisture and rain on the whole grid, carried ``steps`` times along
    # (dx, dy): each pass takes every point's upwind neighbour, mixes it
    # with that neighbour's two neighbours across the wind, and rains out
    # or evaporates at the point. After ``steps`` passes a point's values
    # depend on the cone of ``steps`` points upwind of it and no further.
    rows, cols = elev.shape
    m = np.full((rows, cols), START)
    rain = np.zeros((rows, cols))
    nxt = np.empty((rows, cols))
    px = -dy
    py = dx
    for _ in range(steps):
        for r in range(rows):
            for c in range(cols):
                ur = r - dy
                uc = c - dx
                if ur < 0 or ur >= rows or uc < 0 or uc >= cols:
                    nxt[r, c] = START
                    rain[r, c] = 0.0
                    continue
                carried = m[ur, uc]
                lr, lc, hr, hc = ur - py, uc - px, ur + py, uc + px
                if 0 <= lr < rows and 0 <= lc < cols and 0 <= hr < rows and 0 <= hc < cols:
                    carried = (1.0 - 2.0 * mixing) * carried + mixing * (m[lr, lc] + m[hr, hc])
                e = elev[r, c]
                if e < 0.0:
                    nxt[r, c] = carried + (1.0 - carried) * (1.0 - np.exp(-dist / evaporation))
                    rain[r, c] = 0.0
                else:
                    rate = base + orographic * max(e - max(elev[ur, uc], 0.0), 0.0) / dist
                    nxt[r, c] = carried * np.exp(-rate * dist)
                    rain[r, c] = nxt[r, c] * rate
        m, nxt = nxt, m
    return rain


def _rain_grid(config: WorldConfig, gx: np.ndarray, gy: np.ndarray, g: int) -> np.ndarray:
    """Rainfall at the grid points ``gx`` x ``gy`` (cells, spacing ``g``)."""
    dx, dy = WINDS[config.wind]
    steps = max(2, math.ceil(config.fetch / (g * math.hypot(dx, dy))))
    # The grid grown by each point's cone: ``k`` passes back it reaches
    # ``k`` points upwind and ``k`` across the wind (the mixing's
    # neighbours), so twice as far upwind on each axis in a diagonal wind.
    left, right = steps * max(dx + abs(dy), 0), steps * max(abs(dy) - dx, 0)
    top, bottom = steps * max(dy + abs(dx), 0), steps * max(abs(dx) - dy, 0)
    ex = (np.arange(-left, gx.size + right) * float(g)) + gx[0]
    ey = (np.arange(-top, gy.size + bottom) * float(g)) + gy[0]
    xs = np.broadcast_to(ex[None, :], (ey.size, ex.size)).ravel()
    ys = np.broadcast_to(ey[:, None], (ey.size, ex.size)).ravel()
    # The large-scale ground the wind rises over: detail below a 64th of a
    # continent square left out.
    smooth = max(float(g), config.continent_size / 64.0)
    elev = relief_points(config, xs, ys, smooth).elevation.reshape(ey.size, ex.size)
    size = config.continent_size
    base = 4.0 / size
    rain = _sweep(
        elev, dx, dy, steps, g * math.hypot(dx, dy), size / 32.0, base, 2.0 / config.relief,
        MIXING,
    )  # fmt: skip
    out = rain[top : top + gy.size, left : left + gx.size]
    # m * rate, scaled so that flat land at saturation gets RAIN_MAX.
    return config.rainfall * RAIN_MAX * np.minimum(out / base, OROGRAPHIC_MAX) + RAIN_MIN


def rainfall(
    config: WorldConfig,
    cols: np.ndarray,
    rows: np.ndarray,
    step: int,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Rainfall (mm a year) on the grid ``cols`` x ``rows`` (sample centres
    of a window at ``step``), interpolated from the aligned grid and never
    below the minimum; written into ``out`` (float64, C-contiguous, of that
    shape) if given."""
    g = rain_spacing(config, step)
    ix, wx, fx = catmull_rom(cols, g)
    iy, wy, fy = catmull_rom(rows, g)
    gx = (fx + np.arange(int(ix.max()) + 1, dtype=np.float64)) * g
    gy = (fy + np.arange(int(iy.max()) + 1, dtype=np.float64)) * g
    values = _rain_grid(config, gx, gy, g)
    rain = interpolate(values, ix, wx, iy, wy, out=out)
    return np.maximum(rain, RAIN_MIN, out=rain)
