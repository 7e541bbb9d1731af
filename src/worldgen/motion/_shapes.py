"""Simple shapes to draw with a wobble."""

from __future__ import annotations

import numpy as np


def sketch_shapes() -> list[np.ndarray]:
    """A square, a circle, a five-pointed star and a wave, as polylines in a
    400 x 300 picture (y down), each an ``(N, 2)`` array.

    Examples
    --------
    >>> [s.shape[1] for s in sketch_shapes()]
    [2, 2, 2, 2]
    """
    square = np.array([[30, 40], [150, 40], [150, 160], [30, 160], [30, 40]], dtype=np.float64)
    t = np.linspace(0, 2 * np.pi, 65)
    circle = np.stack([270 + 70 * np.cos(t), 100 + 70 * np.sin(t)], axis=1)
    k = np.arange(11)
    radius = np.where(k % 2 == 0, 60.0, 25.0)
    angle = -np.pi / 2 + k * np.pi / 5
    star = np.stack([100 + radius * np.cos(angle), 235 + radius * np.sin(angle)], axis=1)
    x = np.linspace(200, 380, 40)
    wave = np.stack([x, 240 + 25 * np.sin((x - 200) / 180 * 3 * np.pi)], axis=1)
    return [square, circle, star, wave]
