"""Hand-drawn lines: polylines displaced sideways by 1D Perlin noise."""

from __future__ import annotations

import math
import numbers

import numpy as np

from worldgen.noise import Perlin
from worldgen.noise._validate import check_positive

# Resampled points per wavelength: Perlin noise turns at most about once per
# lattice unit, so eight points per unit draw its curves smoothly.
SAMPLES_PER_WAVELENGTH = 8
MAX_POINTS = 10_000_000


def _polyline(points: object) -> np.ndarray:
    if isinstance(points, (str, bytes)):
        raise TypeError(f"points must be an (N, 2) array of numbers, got {points!r}")
    try:
        array = np.asarray(points)
    except ValueError:  # ragged nested lists
        raise ValueError(
            "points must be an (N, 2) array with N >= 2; rows differ in length"
        ) from None
    if array.dtype.kind not in "iuf":
        raise TypeError(
            f"points must hold real numbers, got dtype {array.dtype}; use .astype(numpy.float64)"
        )
    if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] < 2:
        raise ValueError(f"points must be an (N, 2) array with N >= 2, got shape {array.shape}")
    array = array.astype(np.float64, copy=False)
    if not np.isfinite(array).all():
        raise ValueError("points must be finite; found NaN or infinity")
    return array


def wobble(
    points: np.ndarray, *, amplitude: float = 2.0, wavelength: float = 20.0, seed: int = 0
) -> np.ndarray:
    """Make a polyline look hand-drawn by displacing it sideways with noise.

    Parameters
    ----------
    points : array_like, shape (N, 2)
        The vertices ``(x, y)`` of an open polyline, N >= 2, finite. It must
        have a non-zero length; repeated vertices are allowed.
    amplitude : float
        Largest sideways displacement, in the units of ``points``, >= 0.
    wavelength : float
        Arc length over which the wobble goes through about one bend, > 0.
    seed : int
        Seed of the Perlin noise; give each stroke its own seed, or strokes
        will wobble alike near their starts.

    Returns
    -------
    numpy.ndarray, shape (M, 2), float64
        The wobbly polyline, from the same start point (which stays put:
        the noise is 0 at ``s = 0``) to near the same end point.

    Raises
    ------
    TypeError, ValueError
        If ``points`` is not a finite (N, 2) array with N >= 2 and non-zero
        length, a parameter is out of range, or the resampled line would
        need more than 10 million points.

    Notes
    -----
    The line is resampled along its arc length ``s`` every
    ``wavelength / 8`` units (eight points per wavelength), keeping every
    original vertex so that corners survive. Each point moves along its
    unit normal ``(-t_y, t_x)``, where the tangent ``t`` is the direction
    from the previous to the next resampled point (one-sided at the ends),
    by ``amplitude * Perlin(seed)(s / wavelength)``. 1D Perlin noise lies in
    [-1, 1], so no point moves more than ``amplitude``; it repeats every
    256 wavelengths.

    Examples
    --------
    >>> line = wobble([[0.0, 0.0], [100.0, 0.0]], amplitude=3.0, seed=2)
    >>> line.shape[1], line[0].tolist()
    (2, [0.0, 0.0])
    >>> bool(abs(line[:, 1]).max() <= 3.0)
    True
    """
    points = _polyline(points)
    if isinstance(amplitude, bool) or not isinstance(amplitude, numbers.Real):
        raise TypeError(f"amplitude must be a number >= 0, got {amplitude!r}")
    if not (math.isfinite(amplitude) and amplitude >= 0.0):
        raise ValueError(f"amplitude must be a finite number >= 0, got {amplitude!r}")
    wavelength = check_positive(wavelength, "wavelength")
    noise = Perlin(seed)

    steps = np.hypot(*np.diff(points, axis=0).T)
    vertices = np.concatenate([[0.0], np.cumsum(steps)])
    length = float(vertices[-1])
    if length == 0.0:
        raise ValueError("points must span a non-zero length; all vertices coincide")
    spacing = wavelength / SAMPLES_PER_WAVELENGTH
    # The count in floats first: a tiny wavelength makes it overflow an
    # integer (or the spacing 0).
    count = length / spacing + 1.0 if spacing > 0.0 else math.inf
    if count < 2.0 * MAX_POINTS:
        count = math.ceil(length / spacing) + 1
    if count + len(points) > MAX_POINTS:
        needed = length * SAMPLES_PER_WAVELENGTH / (MAX_POINTS - len(points) - 2)
        many = f"{count:.3g}" if math.isfinite(count) else "more than 1e308"
        raise ValueError(
            f"wobble would resample the line into {many} points (limit {MAX_POINTS:,}); "
            f"raise wavelength to at least {needed * 1.001:.3g}"
        )
    shortest = float(steps[steps > 0.0].min())
    if not spacing * 1e-9 < shortest:  # else real vertices would pass for near-duplicates
        raise ValueError(
            f"wavelength={wavelength!r} is too long for a line whose shortest segment is "
            f"{shortest:g} long: keep wavelength below 8e9 times that segment"
        )
    s = np.union1d(np.linspace(0.0, length, count), vertices)
    s = s[np.concatenate([[True], np.diff(s) > spacing * 1e-9])]  # no near-duplicates

    # Each resampled point lies on the first segment that reaches its arc
    # length; repeated vertices (zero-length segments) are skipped.
    keep = np.concatenate([[True], steps > 0.0])
    xs = np.interp(s, vertices[keep], points[keep, 0])
    ys = np.interp(s, vertices[keep], points[keep, 1])
    line = np.stack([xs, ys], axis=1)

    tangent = np.empty_like(line)
    tangent[1:-1] = line[2:] - line[:-2]
    tangent[0] = line[1] - line[0]
    tangent[-1] = line[-1] - line[-2]
    norm = np.hypot(tangent[:, 0], tangent[:, 1])
    # A sharp U-turn can cancel the central difference; fall back to the
    # incoming segment there.
    flat = norm == 0.0
    tangent[flat] = (line[1:] - line[:-1])[np.maximum(np.flatnonzero(flat) - 1, 0)]
    norm[flat] = np.hypot(tangent[flat, 0], tangent[flat, 1])
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1) / norm[:, None]

    offset = amplitude * noise(s / wavelength)
    return line + offset[:, None] * normal


__all__ = ["wobble"]
