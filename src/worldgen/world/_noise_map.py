"""Noise maps with the parameters of the well-known Unity terrain tutorials."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from worldgen.noise import Fractal, axis, by_name
from worldgen.noise._generators import BASES
from worldgen.noise._seed import check_seed
from worldgen.noise._validate import (
    check_choice,
    check_instance,
    check_int,
    check_pair,
    check_positive,
)
from worldgen.world._window import Window

NORMALIZATIONS = ("local", "global", "none")
MODES = ("fbm", "billow", "turbulence", "ridged")


@dataclasses.dataclass(frozen=True)
class NoiseMap:
    """A fractal noise height field over a map's pixel grid.

    Pixel column ``i``, row ``j`` samples the noise at
    ``((i - width / 2 + offset[0]) / scale, (j - height / 2 + offset[1]) / scale)``:
    the map is centred (zooming with ``scale`` keeps its middle in place) and
    ``offset`` pans it in world units (pixels).

    Parameters
    ----------
    seed : int
        Any 64-bit integer.
    width, height : int
        The map's size in pixels; they fix its centre. Windows (see
        :meth:`generate`) may cover any part of the plane.
    scale : float
        Pixels per noise lattice cell at the first octave (> 0; bigger is
        smoother). The tutorials' "scale".
    offset : (float, float)
        Pan in world units (pixels), added before dividing by ``scale``.
    octaves, persistence, lacunarity, mode
        As for :class:`worldgen.noise.Fractal`.
    noise : {'perlin', 'value', 'simplex', 'cellular'}
        The base noise.
    normalize : {'local', 'global', 'none'}
        ``'local'`` stretches this map's own min..max to 0..1, as the
        tutorials do: pretty, but every window is stretched differently.
        ``'global'`` maps a range derived from the fractal's amplitudes to
        0..1, the same for every window, so windows meet without seams:
        ``mean +- 3 sigma`` where, for octave amplitudes ``a_o``, ``sigma =
        sigma_1 * sqrt(sum a_o^2) / sum a_o`` and ``mean``, ``sigma_1`` are
        those of one shaped octave (measured once on a fixed grid; see
        :func:`octave_statistics`); the range is clipped to the documented
        bounds and values beyond it (about 0.3%) are clipped to 0 or 1.
        ``'none'`` keeps the raw values (also seamless).

    Examples
    --------
    >>> m = NoiseMap(seed=3, width=64, height=32)
    >>> m.generate().shape
    (32, 64)
    >>> whole = NoiseMap(width=64, height=64, normalize="global").generate()
    >>> part = NoiseMap(width=64, height=64, normalize="global").generate(Window(16, 8, 8, 8))
    >>> bool((whole[8:16, 16:24] == part).all())
    True
    """

    seed: int = 0
    width: int = 512
    height: int = 512
    scale: float = 128.0
    offset: tuple[float, float] = (0.0, 0.0)
    octaves: int = 6
    persistence: float = 0.5
    lacunarity: float = 2.0
    noise: str = "perlin"
    mode: str = "fbm"
    normalize: str = "local"

    def __post_init__(self):
        check_seed(self.seed)
        object.__setattr__(self, "seed", int(self.seed))
        check_int(self.width, "width", 1, 2**20)
        check_int(self.height, "height", 1, 2**20)
        check_positive(self.scale, "scale")
        object.__setattr__(self, "offset", check_pair(self.offset, "offset"))
        check_choice(self.noise, "noise", tuple(BASES))
        check_choice(self.mode, "mode", MODES)
        check_choice(self.normalize, "normalize", NORMALIZATIONS)
        fractal = self.fractal  # validates octaves, persistence and lacunarity
        # The map's own pixels must stay where lattice arithmetic is exact.
        extent = (max(self.width, self.height) + max(map(abs, self.offset))) / self.scale
        if not extent * float(np.max(fractal._plan(2).freqs)) < 2.0**52:
            raise ValueError(
                f"scale={self.scale!r} and offset={self.offset!r} put the map too far out: "
                "(max(width, height) + |offset|) / scale * (highest octave frequency) must "
                "stay below 2**52; raise scale or lower offset"
            )

    @property
    def fractal(self) -> Fractal:
        """The noise sampled, in lattice units."""
        base = by_name(self.noise, seed=self.seed)
        return Fractal(base, self.octaves, self.persistence, self.lacunarity, self.mode)

    @property
    def window(self) -> Window:
        """The whole map."""
        return Window(0, 0, self.width, self.height)

    def world_axes(self, window: Window) -> tuple[np.ndarray, np.ndarray]:
        """World coordinates (pixels from the map's centre, plus the offset)
        of the window's columns and rows."""
        cols = window.x + window.step * np.arange(window.width, dtype=np.float64)
        rows = window.y + window.step * np.arange(window.height, dtype=np.float64)
        return (
            cols - self.width / 2 + self.offset[0],
            rows - self.height / 2 + self.offset[1],
        )

    def raw(self, window: Window | None = None) -> np.ndarray:
        """The noise values of ``window`` (default: the whole map), shape
        ``(H, W)``, before normalisation."""
        window = self.window if window is None else window
        if not isinstance(window, Window):
            raise TypeError(f"window must be a Window(x, y, width, height) or None, got {window!r}")
        wx, wy = self.world_axes(window)
        return self.fractal.grid(wx / self.scale, wy / self.scale)

    def generate(self, window: Window | None = None, *, halo: int = 0) -> np.ndarray:
        """Heights of ``window`` (default: the whole map), shape ``(H, W)``,
        normalised as configured (in [0, 1] unless ``normalize='none'``).

        With ``halo``, the window grown by that many cells on every side,
        shape ``(H + 2 halo, W + 2 halo)``, whose middle is the window's
        heights: ``'local'`` stretches the window's own range, not the
        halo's."""
        window = self.window if window is None else window
        if not isinstance(window, Window):
            raise TypeError(f"window must be a Window(x, y, width, height) or None, got {window!r}")
        halo = check_int(halo, "halo", 0, 2**20)
        values = self.raw(window.grown(halo))
        if self.normalize == "none":
            return values
        if self.normalize == "global":
            lo, hi = global_range(self.fractal)
        else:
            inner = values[halo : values.shape[0] - halo, halo : values.shape[1] - halo]
            lo, hi = float(inner.min()), float(inner.max())
        if hi <= lo:
            return np.zeros_like(values)
        return np.clip((values - lo) / (hi - lo), 0.0, 1.0)


@functools.lru_cache(maxsize=64)
def octave_statistics(fractal: Fractal) -> tuple[float, float]:
    """Mean and standard deviation of one shaped octave of ``fractal``.

    Measured on a fixed 256 x 256 grid of the base noise with seed 0 (64
    lattice cells each way), shaped by the fractal's mode: the same numbers
    on every run, whatever the seed or window.
    """
    one = dataclasses.replace(fractal, base=fractal.base.with_seed(0), octaves=1)
    x = axis(0.123, 256, 0.25)
    values = one.grid(x, x + 0.5)
    return float(values.mean()), float(values.std())


def global_range(fractal: Fractal, spread: float = 3.0) -> tuple[float, float]:
    """The window-independent range that ``normalize='global'`` maps to 0..1.

    Examples
    --------
    >>> from worldgen.noise import Perlin
    >>> lo, hi = global_range(Fractal(Perlin(), octaves=6))
    >>> -0.5 < lo < -0.4 and 0.4 < hi < 0.5
    True
    """
    check_instance(fractal, "fractal", Fractal)
    spread = check_positive(spread, "spread")
    mean, sigma = octave_statistics(fractal)
    amps = fractal._plan(2).amps
    sigma *= float(np.sqrt((amps**2).sum()) / amps.sum())
    lo, hi = fractal.bounds(2)
    return max(lo, mean - spread * sigma), min(hi, mean + spread * sigma)
