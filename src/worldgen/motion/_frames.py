"""Animated noise: frames sampled with time as an extra axis, and coloured presets.

A frame is the noise on the (x, y) grid of the image at one moment. Time
runs along the third axis (z = frame * speed), or, for animations that loop
seamlessly, around a circle in the third and fourth axes: a closed path
through 4D noise comes back to where it started, so the last frame flows
into the first.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from worldgen._jit import interruptible
from worldgen._memory import ANIMATION_BYTES_PER_PIXEL, check_memory
from worldgen.noise import Fractal, Noise, Perlin, axis
from worldgen.noise._generators import HASH_PERIOD
from worldgen.noise._validate import (
    check_bool,
    check_int,
    check_positive,
    check_range,
    check_real,
)
from worldgen.products._shading import _check_stops, colour_ramp

MAX_SIDE = 2**16
MAX_FRAMES = 2**20
MAX_PRESET_FRAMES = 10_000
"""Most frames of a ready-made animation: over ten minutes of GIF at 16 fps."""
# Frames sampled per call of the noise, so that Ctrl-C (handled between
# calls) stops a long animation within about a second.
_PIXELS_PER_SLICE = 2**20


def _check_noise(noise: object, loop: bool) -> None:
    """Check that ``noise`` can be sampled in 3D (4D when looping)."""
    if not isinstance(noise, Noise):
        raise TypeError(
            f"noise must be a worldgen.noise generator such as Perlin(seed), got {noise!r}"
        )
    ndim = 4 if loop else 3
    if ndim not in noise.dimensions:
        dims = ", ".join(f"{d}D" for d in noise.dimensions)
        need = (
            "loop=True samples 4D noise (x, y and a circle in z, w)"
            if loop
            else "frames sample 3D noise (x, y and time)"
        )
        raise ValueError(
            f"noise: {need}, but {noise.name} supports only {dims}; use Perlin, Value, "
            "Simplex or a Fractal of them" + (", or loop=False" if loop else "")
        )


def _sample_frames(
    noise: Noise,
    width: int,
    height: int,
    frames: int,
    *,
    scale: float,
    speed: float,
    loop: bool,
    start: int,
    rise: float,
) -> np.ndarray:
    """Frames ``start .. start + frames - 1`` in [0, 1], shape (frames, H, W).

    ``rise`` scrolls the image up by that many lattice units per frame: row
    ``j`` of frame ``f`` samples ``y = j / scale + f * rise``.
    """
    x = axis(0.0, width, 1.0 / scale)
    y = axis(0.0, height, 1.0 / scale)
    index = np.arange(start, start + frames, dtype=np.float64)
    out = np.empty((frames, height, width))
    # Every sample is a function of its own point: slices of the time axis,
    # and bands of rows of a frame bigger than a slice, give the bytes of
    # one whole grid.
    band = max(1, _PIXELS_PER_SLICE // width)
    if not loop and rise == 0.0:
        step = max(1, _PIXELS_PER_SLICE // (width * height))
        for first in range(0, frames, step):
            times = index[first : first + step] * speed
            for top in range(0, height, band):
                with interruptible():
                    out[first : first + step, top : top + band] = noise.grid(
                        x, y[top : top + band], times, unit=True
                    )
        return out
    radius = speed * frames / (2.0 * math.pi)
    angle = 2.0 * math.pi * index / frames
    with interruptible():
        for k, f in enumerate(index.tolist()):
            rows = y + f * rise
            for top in range(0, height, band):
                part = rows[top : top + band]
                if loop:
                    z = [radius * math.cos(angle[k])]
                    w = [radius * math.sin(angle[k])]
                    out[k, top : top + band] = noise.grid(x, part, z, w, unit=True)[0, 0]
                else:
                    out[k, top : top + band] = noise.grid(x, part, [f * speed], unit=True)[0]
    return out


def noise_frames(
    noise: Noise,
    width: int,
    height: int,
    frames: int,
    *,
    scale: float = 32.0,
    speed: float = 0.05,
    loop: bool = False,
    start: int = 0,
) -> np.ndarray:
    """Frames of an animated noise, with time as the third (and fourth) axis.

    Parameters
    ----------
    noise : worldgen.noise.Noise
        Any generator that can be sampled in 3D (or 4D with ``loop=True``):
        Perlin, Value, Simplex, a Fractal or Warp of them; Cellular noise
        only without ``loop``.
    width, height : int
        Frame size in pixels, 1 to 65536.
    frames : int
        Number of frames, >= 1. With ``loop=True`` it is also the period of
        the animation.
    scale : float
        Pixels per lattice unit, > 0: pixel ``(row j, col i)`` samples
        ``x = i / scale``, ``y = j / scale``.
    speed : float
        Distance travelled through the noise per frame, in lattice units,
        > 0. Around 0.02-0.1 gives smooth motion.
    loop : bool
        False: frame ``f`` samples 3D noise at ``z = f * speed``. True:
        frame ``f`` samples 4D noise at ``(z, w) = r * (cos(t), sin(t))``,
        ``t = 2 pi f / frames``, with ``r = speed * frames / (2 pi)`` so that
        the path length per frame is still ``speed``; frame ``frames``
        equals frame 0 (to rounding), so the animation loops seamlessly.
    start : int
        Index of the first frame, >= 0: an animation can be made in pieces,
        ``start=k`` giving frames ``k, k + 1, ...`` of the same sequence.

    Returns
    -------
    numpy.ndarray, shape (frames, H, W), float64
        Values in [0, 1]: the noise's documented range mapped onto [0, 1]
        (``unit=True``). 4D noise has a wider bound than 3D noise, so looping
        frames gather more tightly around the middle.

    Raises
    ------
    TypeError
        If ``noise`` is not a worldgen noise or a size is not an integer.
    ValueError
        If ``noise`` cannot be sampled in the dimensions needed, or a size,
        ``scale`` or ``speed`` is out of range.

    Examples
    --------
    >>> from worldgen.noise import Perlin
    >>> clip = noise_frames(Perlin(seed=1), 8, 4, 3, loop=True)
    >>> clip.shape, bool(clip.min() >= 0.0 and clip.max() <= 1.0)
    ((3, 4, 8), True)
    """
    loop = check_bool(loop, "loop")
    _check_noise(noise, loop)
    width = check_int(width, "width", 1, MAX_SIDE)
    height = check_int(height, "height", 1, MAX_SIDE)
    frames = check_int(frames, "frames", 1, MAX_FRAMES)
    start = check_int(start, "start", 0, MAX_FRAMES * 1024)
    scale = check_positive(scale, "scale")
    speed = check_positive(speed, "speed")
    # Keep the sampled coordinates far from where lattice arithmetic ends.
    if max(width, height) / scale >= 2**40:
        raise ValueError(f"scale={scale!r} is too small: keep max(width, height) / scale < 2**40")
    if speed * (start + frames) >= 2**40:
        raise ValueError(f"speed={speed!r} is too large: keep speed * (start + frames) < 2**40")
    _check_frames_memory(16, frames, width, height)
    return _sample_frames(
        noise,
        width,
        height,
        frames,
        scale=scale,
        speed=speed,
        loop=loop,
        start=start,
        rise=0.0,
    )


@dataclasses.dataclass(frozen=True)
class Preset:
    """A ready-made animation: a noise, a colour ramp and how they move.

    Parameters
    ----------
    noise : worldgen.noise.Noise
        Sampled in 3D, or 4D when looping; :func:`preset_frames` gives it the
        caller's seed.
    stops : tuple of (float, (int, int, int))
        Colour ramp over the [0, 1] values, blended (see
        :func:`worldgen.products._shading.colour_ramp`).
    scale : float
        Pixels per lattice unit, > 0 (default 32).
    speed : float
        Lattice units travelled through time per frame, > 0 (default 0.05).
    rise : float
        Lattice units the image scrolls upward per frame, >= 0 (default 0).
        When looping, it is rounded so that one loop scrolls a whole number
        ``P`` of units, and the noise is made to repeat every ``P`` units
        vertically, so the scrolled image comes back to its start.
    fade : float
        From 0 to 1 (default 0): values are multiplied by a vertical ramp
        from 1 at the bottom row to ``1 - fade`` at the top row.
    """

    noise: Noise
    stops: tuple
    scale: float = 32.0
    speed: float = 0.05
    rise: float = 0.0
    fade: float = 0.0

    def __post_init__(self):
        if not isinstance(self.noise, Noise):
            raise TypeError(f"noise must be a worldgen.noise generator, got {self.noise!r}")
        _check_stops(self.stops)
        object.__setattr__(self, "stops", tuple((t, tuple(c)) for t, c in self.stops))
        check_positive(self.scale, "scale")
        check_positive(self.speed, "speed")
        if not check_real(self.rise, "rise") >= 0.0:
            raise ValueError(f"rise must be a finite number >= 0, got {self.rise!r}")
        check_range(self.fade, "fade", 0.0, 1.0)


PRESETS: dict[str, Preset] = {
    "clouds": Preset(
        Fractal(Perlin(), octaves=5, mode="fbm"),
        (
            (0.42, (70, 130, 210)),
            (0.50, (160, 195, 240)),
            (0.58, (255, 255, 255)),
        ),
        scale=48.0,
        speed=0.03,
    ),
    "fire": Preset(
        Fractal(Perlin(), octaves=5, mode="turbulence"),
        (
            (0.00, (0, 0, 0)),
            (0.06, (110, 0, 0)),
            (0.13, (220, 70, 0)),
            (0.20, (255, 170, 20)),
            (0.28, (255, 250, 190)),
        ),
        scale=32.0,
        speed=0.06,
        rise=0.125,
        fade=1.0,
    ),
    "water": Preset(
        Fractal(Perlin(), octaves=5, mode="ridged"),
        (
            (0.40, (10, 45, 110)),
            (0.65, (25, 95, 175)),
            (0.85, (100, 185, 225)),
            (0.95, (235, 250, 255)),
        ),
        scale=40.0,
        speed=0.04,
    ),
}


def _check_frames_memory(per_pixel: int, frames: int, width: int, height: int) -> None:
    check_memory(
        per_pixel * frames * width * height,
        "frames, width, height",
        f"{frames:,} frames of {width} x {height}",
        "make fewer or smaller frames (from Python, make the animation in pieces: start=...)",
    )


def _tile_rows(noise: Noise, period: int) -> Noise:
    """``noise`` made to repeat every ``period`` units along y, in 4D."""
    periods = (HASH_PERIOD, period, HASH_PERIOD, HASH_PERIOD)
    if isinstance(noise, Fractal):
        return dataclasses.replace(noise, base=dataclasses.replace(noise.base, period=periods))
    if hasattr(noise, "period"):
        return dataclasses.replace(noise, period=periods)
    raise ValueError(f"rise with loop=True needs a noise with a period, got {noise.name}")


def preset_frames(
    name: str,
    *,
    seed: int = 0,
    width: int = 128,
    height: int = 128,
    frames: int = 32,
    loop: bool = True,
) -> np.ndarray:
    """Coloured frames of a ready-made animation.

    Parameters
    ----------
    name : {'clouds', 'fire', 'water'}
        A key of :data:`PRESETS`: drifting fBm clouds on a blue sky,
        turbulence flames that rise and fade toward the top, ridged
        caustics on water.
    seed : int
        Seed of the noise; any integer that fits in 64 bits.
    width, height : int
        Frame size in pixels, 1 to 65536.
    frames : int
        Number of frames, 1 to 10,000 (:data:`MAX_PRESET_FRAMES`).
    loop : bool
        Make the last frame flow into the first (see :func:`noise_frames`).

    Returns
    -------
    numpy.ndarray, shape (frames, H, W, 3), uint8
        RGB frames, ready for :func:`worldgen.io._animation.write_gif`.

    Raises
    ------
    ValueError
        If ``name`` is not a preset (the message lists them), or a size is
        out of range; :class:`~worldgen._memory.MemoryLimitError` if the
        frames would not fit in the memory available.

    Examples
    --------
    >>> clip = preset_frames("fire", width=16, height=8, frames=4)
    >>> clip.shape, clip.dtype
    ((4, 8, 16, 3), dtype('uint8'))
    """
    if not isinstance(name, str) or name not in PRESETS:
        valid = ", ".join(repr(k) for k in PRESETS)
        raise ValueError(f"name must be one of the presets {valid}, got {name!r}")
    preset = PRESETS[name]
    width = check_int(width, "width", 1, MAX_SIDE)
    height = check_int(height, "height", 1, MAX_SIDE)
    frames = check_int(frames, "frames", 1, MAX_PRESET_FRAMES)
    _check_frames_memory(ANIMATION_BYTES_PER_PIXEL, frames, width, height)
    loop = bool(loop)
    noise = preset.noise.with_seed(seed)
    rise = float(preset.rise)
    if loop and rise > 0.0:
        period = max(1, round(rise * frames))
        noise = _tile_rows(noise, period)
        rise = period / frames
    values = _sample_frames(
        noise,
        width,
        height,
        frames,
        scale=preset.scale,
        speed=preset.speed,
        loop=loop,
        start=0,
        rise=rise,
    )
    if preset.fade:
        top = 1.0 - preset.fade
        ramp = np.linspace(top, 1.0, height) if height > 1 else np.ones(1)
        values *= ramp[:, None]
    rgb = colour_ramp(values.reshape(frames * height, width), preset.stops, blend=True)
    return rgb.reshape(frames, height, width, 3)


__all__ = ["PRESETS", "Preset", "noise_frames", "preset_frames"]
