"""Domain warping: sample a noise at coordinates displaced by other noise."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from worldgen.noise._generators import Fractal, Noise, Perlin
from worldgen.noise._seed import check_seed, derive_seed
from worldgen.noise._validate import COORD_LIMIT, check_real


@dataclasses.dataclass(frozen=True)
class Warp(Noise):
    """A noise sampled at coordinates pushed around by another noise.

    ``Warp(base, warp, amplitude)(p) = base(p + amplitude * d(p))`` where
    component ``k`` of the displacement ``d`` is ``warp`` reseeded with
    ``derive_seed(seed, k)`` (``seed`` being the warp noise's own), so that
    the axes are displaced independently. This is Inigo Quilez's domain
    warping; nesting ``Warp`` in ``Warp`` warps the warp.

    Parameters
    ----------
    base : Noise
        The noise that is sampled.
    warp : Noise
        The noise that displaces the coordinates (often a :class:`Fractal`).
    amplitude : float
        Largest displacement per unit of warp output, in lattice units, >= 0.

    Notes
    -----
    The output range is the base noise's range. The grid form warps a grid
    into scattered points, so it is as fast as the point form of the base.

    Examples
    --------
    >>> from worldgen.noise import Fractal, Perlin, Warp
    >>> warped = Warp(Perlin(seed=1), Fractal(Perlin(seed=2), octaves=3), amplitude=2.0)
    >>> warped.grid([0.0, 0.5], [0.0, 0.5]).shape
    (2, 2)
    """

    base: Noise = dataclasses.field(default_factory=Perlin)
    warp: Noise = dataclasses.field(default_factory=lambda: Fractal(Perlin(seed=1)))
    amplitude: float = 1.0

    name: ClassVar[str] = "Warped noise"

    def __post_init__(self):
        for field in ("base", "warp"):
            if not isinstance(getattr(self, field), Noise):
                raise TypeError(f"{field} must be a worldgen noise, got {getattr(self, field)!r}")
        amp = check_real(self.amplitude, "amplitude")
        if not 0.0 <= amp < COORD_LIMIT:
            raise ValueError(
                f"amplitude must be a finite number >= 0 and below 2**62, got {self.amplitude!r}"
            )
        object.__setattr__(self, "amplitude", amp)

    @property
    def dimensions(self) -> tuple[int, ...]:  # type: ignore[override]
        return tuple(d for d in self.base.dimensions if d in self.warp.dimensions)

    @property
    def seed(self) -> int:
        return self.base.seed

    def _bounds(self, ndim: int) -> tuple[float, float]:
        return self.base._bounds(ndim)

    def with_seed(self, seed: int) -> Warp:
        check_seed(seed)
        return dataclasses.replace(
            self, base=self.base.with_seed(seed), warp=self.warp.with_seed(derive_seed(seed, 1))
        )

    def _components(self, ndim: int) -> list[Noise]:
        seed = self.warp.seed
        return [self.warp.with_seed(derive_seed(seed, k)) for k in range(ndim)]

    def _sample(self, ndim, arrays, shape, dtype) -> np.ndarray:
        moved = [
            a + self.amplitude * part(*arrays) for a, part in zip(arrays, self._components(ndim))
        ]
        return np.asarray(self.base(*moved, dtype=dtype), dtype=dtype)

    def _sample_grid(self, ndim, vectors, dtype) -> np.ndarray:
        shape = tuple(v.size for v in reversed(vectors))
        # Axis k of the grid is array axis ndim - 1 - k.
        axes = [
            v.reshape([-1 if a == ndim - 1 - k else 1 for a in range(ndim)])
            for k, v in enumerate(vectors)
        ]
        moved = [
            np.broadcast_to(a, shape) + self.amplitude * part.grid(*vectors)
            for a, part in zip(axes, self._components(ndim))
        ]
        return self.base(*moved, dtype=dtype)


__all__ = ["Warp"]
