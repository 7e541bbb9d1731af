"""Shaping height fields: island masks in world coordinates, height curves."""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen._checks import finite_values
from worldgen.noise._validate import (
    check_bool,
    check_choice,
    check_pair,
    check_positive,
    check_range,
)

MASK_SHAPES = ("none", "square", "radial", "square-bump")


def falloff_curve(t: np.ndarray, a: float = 3.0, b: float = 2.2) -> np.ndarray:
    """The falloff curve ``t^a / (t^a + (b - b t)^a)`` on ``t`` in [0, 1].

    0 at the centre, 1 at the edge, flat near both (a = 3, b = 2.2 keep most
    of the map land, as in the well-known Unity tutorial).

    Examples
    --------
    >>> falloff_curve(np.array([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """
    a = check_range(a, "a", 1e-3, 1e3)
    b = check_range(b, "b", 1e-3, 1e3)
    t = np.clip(finite_values(t, "t"), 0.0, 1.0)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        ta = t**a
        out = ta / (ta + (b - b * t) ** a)
        # Where both terms underflow (or overflow), the same curve written as
        # 1 / (1 + (b (1 - t) / t)^a) has no 0 / 0.
        lost = ~np.isfinite(out)
        if lost.any():
            out = np.where(lost, 1.0 / (1.0 + (b * (1.0 - t) / t) ** a), out)
    return out


@dataclasses.dataclass(frozen=True)
class Mask:
    """An island mask: how much to lower the land, by distance from a centre.

    Defined in world coordinates (the pixels of :class:`NoiseMap`, measured
    from the map's centre), so one island may span many tiles and every tile
    gets its part of it.

    Parameters
    ----------
    shape : {'none', 'square', 'radial', 'square-bump'}
        ``'square'``: the falloff curve of the chebyshev distance
        ``max(|dx|, |dy|) / radius``; ``'radial'``: of the euclidean distance;
        ``'square-bump'``: ``1 - (1 - nx^2)(1 - ny^2)`` with
        ``nx = dx / radius`` (Red Blob Games' square bump), rounder corners.
    radius : float
        Distance from the centre, in world units, where the falloff reaches 1.
    centre : (float, float)
        The island's centre in world units.
    a, b : float
        Falloff curve parameters (square and radial shapes).

    Examples
    --------
    >>> m = Mask("radial", radius=10.0)
    >>> m.falloff(np.array([0.0, 5.0, 10.0]), np.zeros(1))[0].round(3).tolist()
    [0.0, 0.086, 1.0]
    """

    shape: str = "square"
    radius: float = 256.0
    centre: tuple[float, float] = (0.0, 0.0)
    a: float = 3.0
    b: float = 2.2

    def __post_init__(self):
        check_choice(self.shape, "mask shape", MASK_SHAPES)
        check_positive(self.radius, "mask radius")
        check_range(self.a, "mask a", 1e-3, 1e3)
        check_range(self.b, "mask b", 1e-3, 1e3)
        object.__setattr__(self, "centre", check_pair(self.centre, "mask centre"))

    def falloff(self, wx: np.ndarray, wy: np.ndarray) -> np.ndarray:
        """Falloff in [0, 1] on the grid of world columns ``wx`` and rows
        ``wy``, shape ``(len(wy), len(wx))``."""
        dx = (finite_values(wx, "wx") - self.centre[0])[None, :] / self.radius
        dy = (finite_values(wy, "wy") - self.centre[1])[:, None] / self.radius
        if self.shape == "none":
            return np.zeros(np.broadcast_shapes(dx.shape, dy.shape))
        if self.shape == "square":
            return falloff_curve(np.maximum(np.abs(dx), np.abs(dy)), self.a, self.b)
        if self.shape == "radial":
            return falloff_curve(np.sqrt(dx * dx + dy * dy), self.a, self.b)
        nx = np.clip(dx, -1.0, 1.0)
        ny = np.clip(dy, -1.0, 1.0)
        return 1.0 - (1.0 - nx * nx) * (1.0 - ny * ny)

    def apply(self, heights: np.ndarray, wx: np.ndarray, wy: np.ndarray) -> np.ndarray:
        """``clip(heights - falloff, 0, 1)``: lower the land toward the edge."""
        heights = finite_values(heights, "heights")
        if self.shape == "none":
            return heights
        return np.clip(heights - self.falloff(wx, wy), 0.0, 1.0)


CURVE_LIMIT = 1e100
"""Largest magnitude of a curve point's coordinate (and, squared, of the
slope between two points), so that the curve of finite heights is finite."""


@dataclasses.dataclass(frozen=True)
class HeightCurve:
    """Remap heights through control points, like an animation curve.

    Parameters
    ----------
    points : sequence of (x, y)
        Control points with strictly increasing x. Inputs below the first x
        or above the last take the end values.
    smooth : bool
        False (default): straight segments between points, so flat stretches
        stay exactly flat (e.g. everything below 0.4 at 0.4 for a level sea).
        True: a monotone cubic through the points (Fritsch-Carlson), which
        never overshoots between them.
    power : float
        Applied after the curve: ``h ** power`` (redistribution; > 1 flattens
        valleys and sharpens peaks). For inputs in [0, 1].

    Examples
    --------
    >>> sea = HeightCurve(((0.0, 0.4), (0.4, 0.4), (1.0, 1.0)))
    >>> sea(np.array([0.1, 0.4, 0.7])).tolist()
    [0.4, 0.4, 0.7]
    """

    points: tuple[tuple[float, float], ...] = ((0.0, 0.0), (1.0, 1.0))
    smooth: bool = False
    power: float = 1.0

    def __post_init__(self):
        try:
            pts = np.asarray(self.points, dtype=np.float64)
        except (TypeError, ValueError):
            pts = None
        if pts is None or pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 2:
            raise ValueError(f"curve points must be at least two (x, y) pairs, got {self.points!r}")
        if not np.isfinite(pts).all() or not (np.diff(pts[:, 0]) > 0).all():
            raise ValueError("curve points must be finite, with strictly increasing x")
        if not (np.abs(pts) <= CURVE_LIMIT).all():
            raise ValueError(
                f"curve points must lie within +-{CURVE_LIMIT:g}, got {self.points!r}; "
                "a curve maps heights of about [0, 1]"
            )
        with np.errstate(over="ignore", divide="ignore"):
            slopes = np.diff(pts[:, 1]) / np.diff(pts[:, 0])
        if not (np.abs(slopes) <= CURVE_LIMIT**2).all():
            raise ValueError(
                "curve points are too close together for the heights between them: the "
                f"slope between neighbours must stay within +-{CURVE_LIMIT**2:g}, got "
                f"{self.points!r}; space the points apart"
            )
        object.__setattr__(self, "points", tuple((float(x), float(y)) for x, y in pts))
        check_positive(self.power, "curve power")
        check_bool(self.smooth, "smooth")

    def __call__(self, heights: np.ndarray) -> np.ndarray:
        h = finite_values(heights, "heights")
        xs = np.array([p[0] for p in self.points])
        ys = np.array([p[1] for p in self.points])
        out = _monotone_cubic(h, xs, ys) if self.smooth else np.interp(h, xs, ys)
        if self.power != 1.0:
            with np.errstate(over="ignore"):
                out = np.power(np.clip(out, 0.0, None), self.power)
            if not np.isfinite(out).all():
                raise ValueError(
                    f"curve power={self.power!r} overflows on these heights (up to "
                    f"{float(np.max(h)):g}); a power is meant for heights in [0, 1]"
                )
        return out


def _monotone_cubic(h: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Fritsch-Carlson monotone piecewise cubic Hermite interpolation."""
    dx = np.diff(xs)
    slopes = np.diff(ys) / dx
    m = np.empty_like(xs)
    m[0], m[-1] = slopes[0], slopes[-1]
    m[1:-1] = np.where(
        slopes[:-1] * slopes[1:] > 0,
        2.0
        / (
            1.0 / np.where(slopes[:-1] == 0, 1, slopes[:-1])
            + 1.0 / np.where(slopes[1:] == 0, 1, slopes[1:])
        ),
        0.0,
    )
    flat = slopes == 0
    m[:-1][flat] = 0.0
    m[1:][flat] = 0.0
    x = np.clip(h, xs[0], xs[-1])
    k = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, len(xs) - 2)
    t = (x - xs[k]) / dx[k]
    t2, t3 = t * t, t * t * t
    return (
        (2 * t3 - 3 * t2 + 1) * ys[k]
        + (t3 - 2 * t2 + t) * dx[k] * m[k]
        + (-2 * t3 + 3 * t2) * ys[k + 1]
        + (t3 - t2) * dx[k] * m[k + 1]
    )
