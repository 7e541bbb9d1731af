"""The public noise generators: configs that sample themselves.

Every generator is a frozen dataclass (``dataclasses.replace`` is the
setter) that validates itself on construction and compiles, per number of
dimensions, to a *plan* of arrays that the drivers in ``_sampling`` run.
Sampling has two forms:

- ``noise(x, y, ...)``: coordinates as scalars or broadcastable arrays;
  returns a float for scalars, otherwise an array of the broadcast shape.
- ``noise.grid(x, y, ...)``: one 1-D vector per axis; returns an array of
  shape ``(len(w), len(z), len(y), len(x))`` (the axes given, slowest
  first, so ``(H, W)`` in 2D), equal bit for bit to the point form at the
  same coordinates.
"""

from __future__ import annotations

import dataclasses
import functools
import numbers
from typing import ClassVar, NamedTuple

import numba
import numpy as np

from worldgen.noise import _sampling
from worldgen.noise._seed import check_seed, derive_seed, permutation
from worldgen.noise._validate import (
    COORD_LIMIT,
    axis_vectors,
    check_bool,
    check_choice,
    check_dtype,
    check_extent,
    check_int,
    check_positive,
    check_range,
    check_real,
    coordinate_arrays,
    dimension_count,
)

# The natural period of the 256-entry hash: every lattice noise repeats
# after 256 cells unless given a period of its own.
HASH_PERIOD = 256
MAX_PERIOD = 2**53
MAX_OCTAVES = 32
# Fractal amplitudes (and their sum) stay below this, so that no weighted
# sample overflows; octave frequencies stay below COORD_LIMIT.
MAX_AMPLITUDE = 1e300

_POINTS = {
    1: _sampling.points1,
    2: _sampling.points2,
    3: _sampling.points3,
    4: _sampling.points4,
}
_GRIDS = {2: _sampling.grid2, 3: _sampling.grid3, 4: _sampling.grid4}


class Plan(NamedTuple):
    """The arrays a driver needs; see ``_sampling``."""

    tag: np.ndarray
    perms: np.ndarray
    periods: np.ndarray
    iopts: np.ndarray
    jitter: float
    freqs: np.ndarray
    offsets: np.ndarray
    amps: np.ndarray
    mode: int
    total: float


def _check_period(period: object, name: str = "period") -> int | tuple[int, ...] | None:
    if period is None:
        return None
    if isinstance(period, (tuple, list, np.ndarray)):
        if not 1 <= len(period) <= 4:
            raise ValueError(f"{name} must be one integer or one per axis (1 to 4), got {period!r}")
        return tuple(check_int(p, name, 1, MAX_PERIOD) for p in period)
    return check_int(period, name, 1, MAX_PERIOD)


def _canonical(noise: Noise) -> None:
    """Check the seed and period of a lattice noise and store them as Python
    ints (numpy integers are accepted and converted)."""
    check_seed(noise.seed)
    object.__setattr__(noise, "seed", int(noise.seed))
    if hasattr(noise, "period"):
        object.__setattr__(noise, "period", _check_period(noise.period))


def _periods(period: int | tuple[int, ...] | None, ndim: int, what: str) -> np.ndarray:
    if period is None:
        return np.full(4, HASH_PERIOD, dtype=np.int64)
    if isinstance(period, int):
        return np.full(4, period, dtype=np.int64)
    if len(period) != ndim:
        raise ValueError(
            f"{what}: period has {len(period)} entries but the noise is sampled in "
            f"{ndim}D; give one integer, or one per axis"
        )
    return np.array(list(period) + [HASH_PERIOD] * (4 - ndim), dtype=np.int64)


class Noise:
    """Sampling shared by every generator."""

    name: ClassVar[str] = "noise"
    dimensions: ClassVar[tuple[int, ...]] = (1, 2, 3, 4)

    def bounds(self, ndim: int) -> tuple[float, float]:
        """The closed interval every sample in ``ndim`` dimensions lies in.

        Raises
        ------
        TypeError
            If ``ndim`` is not an integer.
        ValueError
            If the noise has no ``ndim``-D form (see ``dimensions``).
        """
        if isinstance(ndim, (bool, np.bool_)) or not isinstance(ndim, numbers.Integral):
            raise TypeError(f"ndim must be an integer, one of {self.dimensions}, got {ndim!r}")
        if int(ndim) not in self.dimensions:
            raise ValueError(f"ndim must be one of {self.dimensions} for {self.name}, got {ndim!r}")
        return self._bounds(int(ndim))

    def _bounds(self, ndim: int) -> tuple[float, float]:
        raise NotImplementedError

    def with_seed(self, seed: int) -> Noise:
        """The same noise with another seed."""
        raise NotImplementedError

    def _plan(self, ndim: int) -> Plan:
        raise NotImplementedError

    def __call__(self, x, y=None, z=None, w=None, *, dtype=np.float64, unit: bool = False):
        """Sample at points.

        Parameters
        ----------
        x, y, z, w : float or array_like
            Coordinates in lattice units; give as many as the noise has
            dimensions, in order. Arrays broadcast against each other.
        dtype : numpy.float64 or numpy.float32
            Output type; float32 is the float64 result rounded.
        unit : bool
            Map the documented range :meth:`bounds` linearly onto [0, 1].

        Returns
        -------
        float or numpy.ndarray
            A float for scalar coordinates, otherwise an array of the
            broadcast shape.
        """
        coords = (x, y, z, w)
        ndim = dimension_count(coords, self.name, self.dimensions)
        dtype = check_dtype(dtype)
        unit = check_bool(unit, "unit")
        arrays, shape = coordinate_arrays(coords[:ndim])
        scalar = all(a.ndim == 0 for a in arrays)
        values = self._sample(ndim, arrays, shape, np.dtype(np.float64) if unit else dtype)
        values = self._finish(values, ndim, unit, dtype)
        return float(values[()]) if scalar else values

    def grid(self, x, y=None, z=None, w=None, *, dtype=np.float64, unit: bool = False):
        """Sample on the grid spanned by one coordinate vector per axis.

        Parameters
        ----------
        x, y, z, w : array_like, 1-D
            The coordinates along each axis (see :func:`axis`).
        dtype, unit
            As for calling the noise.

        Returns
        -------
        numpy.ndarray
            Shape ``(len(w), len(z), len(y), len(x))`` for the axes given,
            e.g. ``(H, W)`` in 2D: row ``j``, column ``i`` is the noise at
            ``(x[i], y[j])``.
        """
        coords = (x, y, z, w)
        ndim = dimension_count(coords, self.name, self.dimensions)
        dtype = check_dtype(dtype)
        unit = check_bool(unit, "unit")
        vectors = axis_vectors(coords[:ndim])
        values = self._sample_grid(ndim, vectors, np.dtype(np.float64) if unit else dtype)
        return self._finish(values, ndim, unit, dtype)

    def _finish(self, values: np.ndarray, ndim: int, unit: bool, dtype: np.dtype) -> np.ndarray:
        # With ``unit``, values are float64 here and rounded to ``dtype``
        # once, after the mapping.
        if not unit:
            return values
        lo, hi = self.bounds(ndim)
        return ((values - lo) / (hi - lo)).astype(dtype, copy=False)

    def _sample(self, ndim, arrays, shape, dtype) -> np.ndarray:
        plan = self._plan(ndim)
        check_extent(arrays, float(np.max(plan.freqs)), float(np.max(plan.offsets)))
        if ndim in (2, 3):
            plan = _sampling.wrapped_tag(plan)  # the coordinates are in range
        flat = [np.ascontiguousarray(np.broadcast_to(a, shape)).ravel() for a in arrays]
        out = np.empty(int(np.prod(shape)), dtype=dtype)
        if out.size:
            _POINTS[ndim](*plan, *flat, out)
        return out.reshape(shape)

    def _sample_grid(self, ndim, vectors, dtype) -> np.ndarray:
        plan = self._plan(ndim)
        check_extent(vectors, float(np.max(plan.freqs)), float(np.max(plan.offsets)))
        shape = tuple(v.size for v in reversed(vectors))
        out = np.empty(shape, dtype=dtype)
        if out.size:
            if ndim == 1:
                _sampling.points1(*plan, vectors[0], out)
            else:
                if ndim == 2:
                    plan = _sampling.classes_tag(plan, vectors[0])
                _GRIDS[ndim](*plan, *vectors, out, numba.get_num_threads())
        return out


@functools.lru_cache(maxsize=256)
def _single_plan(kind: int, seed: int, periods: tuple, iopts: tuple, jitter: float) -> Plan:
    perms = permutation(seed)[None, :].copy()  # writable, like a fractal's: one compiled type
    return Plan(
        _sampling.KIND_TAGS[kind],
        perms,
        np.array([periods], dtype=np.int64),
        np.array(iopts, dtype=np.int64),
        jitter,
        np.ones(1),
        np.zeros((1, 4)),
        np.ones(1),
        _sampling.FBM,
        1.0,
    )


@dataclasses.dataclass(frozen=True)
class Perlin(Noise):
    """Ken Perlin's improved gradient noise in 1D to 4D.

    Parameters
    ----------
    seed : int
        Any integer that fits in 64 bits. 0 (the default) is Ken Perlin's own
        permutation table; 3D noise with seed 0 equals his Java reference
        implementation bit for bit.
    period : int or tuple of int, optional
        Make the noise repeat exactly every ``period`` lattice units (one
        integer for every axis, or one per axis). By default it repeats every
        256 units, the size of the hash table.

    Notes
    -----
    The construction and the gradient sets are documented in
    ``worldgen.noise._perlin``. Output bounds, found by maximising over the
    cell the best case every corner's gradient could give
    (``tests/reference/noise_bounds.py``): 1D and 2D [-1, 1],
    3D [-1.0363538113, 1.0363538113], 4D [-1.5365823341, 1.5365823341].
    Most samples lie well inside [-1, 1].

    Examples
    --------
    >>> from worldgen.noise import Perlin
    >>> Perlin()(3.14, 42.0, 7.0)
    0.13691995878400012
    >>> Perlin(seed=1).grid([0.5, 1.5], [0.25]).shape
    (1, 2)
    """

    seed: int = 0
    period: int | tuple[int, ...] | None = None

    name: ClassVar[str] = "Perlin noise"
    _BOUNDS: ClassVar[dict[int, float]] = {1: 1.0, 2: 1.0, 3: 1.0363538113, 4: 1.5365823341}

    def __post_init__(self):
        _canonical(self)

    def _bounds(self, ndim: int) -> tuple[float, float]:
        b = self._BOUNDS[ndim]
        return (-b, b)

    def with_seed(self, seed: int) -> Perlin:
        return dataclasses.replace(self, seed=seed)

    def _plan(self, ndim: int) -> Plan:
        periods = tuple(_periods(self.period, ndim, self.name).tolist())
        return _single_plan(_sampling.PERLIN, self.seed, periods, (2, 0, 0), 0.0)


_INTERPOLATIONS = ("linear", "cubic", "quintic")


@dataclasses.dataclass(frozen=True)
class Value(Noise):
    """Value noise in 1D to 4D: hashed lattice values blended smoothly.

    Parameters
    ----------
    seed : int
        Any integer that fits in 64 bits.
    period : int or tuple of int, optional
        As for :class:`Perlin`.
    interpolation : {'linear', 'cubic', 'quintic'}
        How corner values are blended: linear ``t``, cubic ``3t^2 - 2t^3``,
        or quintic ``6t^5 - 15t^4 + 10t^3`` (the default). Linear shows the
        lattice as creases; the smoother ones hide it.

    Notes
    -----
    Output lies in [-1, 1] in every dimension.

    Examples
    --------
    >>> from worldgen.noise import Value
    >>> -1.0 <= Value(interpolation="cubic")(0.3, 0.7) <= 1.0
    True
    """

    seed: int = 0
    period: int | tuple[int, ...] | None = None
    interpolation: str = "quintic"

    name: ClassVar[str] = "Value noise"

    def __post_init__(self):
        _canonical(self)
        check_choice(self.interpolation, "interpolation", _INTERPOLATIONS)

    def _bounds(self, ndim: int) -> tuple[float, float]:
        return (-1.0, 1.0)

    def with_seed(self, seed: int) -> Value:
        return dataclasses.replace(self, seed=seed)

    def _plan(self, ndim: int) -> Plan:
        periods = tuple(_periods(self.period, ndim, self.name).tolist())
        interp = _INTERPOLATIONS.index(self.interpolation)
        return _single_plan(_sampling.VALUE, self.seed, periods, (interp, 0, 0), 0.0)


@dataclasses.dataclass(frozen=True)
class Simplex(Noise):
    """Simplex noise in 2D to 4D.

    Parameters
    ----------
    seed : int
        Any integer that fits in 64 bits.

    Notes
    -----
    Output lies in [-1, 1] (scaled by the reciprocal of its exact bound; see
    ``worldgen.noise._simplex``). Simplex noise does not tile: its lattice is
    skewed, so no integer period repeats it.

    Examples
    --------
    >>> from worldgen.noise import Simplex
    >>> abs(Simplex(seed=3)(0.5, 0.5, 0.5)) <= 1.0
    True
    """

    seed: int = 0

    name: ClassVar[str] = "Simplex noise"
    dimensions: ClassVar[tuple[int, ...]] = (2, 3, 4)

    def __post_init__(self):
        _canonical(self)

    def _bounds(self, ndim: int) -> tuple[float, float]:
        return (-1.0, 1.0)

    def with_seed(self, seed: int) -> Simplex:
        return dataclasses.replace(self, seed=seed)

    def _plan(self, ndim: int) -> Plan:
        periods = (HASH_PERIOD,) * 4
        return _single_plan(_sampling.SIMPLEX, self.seed, periods, (0, 0, 0), 0.0)


_FEATURES = ("f1", "f2", "f2-f1")
_METRICS = ("euclidean", "manhattan", "chebyshev")


@dataclasses.dataclass(frozen=True)
class Cellular(Noise):
    """Cellular (Worley) noise in 2D and 3D: distances to scattered points.

    Parameters
    ----------
    seed : int
        Any integer that fits in 64 bits.
    period : int or tuple of int, optional
        As for :class:`Perlin`.
    feature : {'f1', 'f2', 'f2-f1'}
        Distance to the nearest point, to the second nearest, or their
        difference (bright cell borders).
    metric : {'euclidean', 'manhattan', 'chebyshev'}
        How distance is measured.
    jitter : float
        How far from its cell's centre a point may wander, from 0 (a regular
        grid of points) to 1 (anywhere in the cell, the default).

    Notes
    -----
    Output is a distance in lattice units, in ``[0, bound]``: with
    ``a = (1 + jitter) / 2`` and ``d`` dimensions, F1 is at most the metric's
    size of ``(a, ..., a)`` and F2 (and F2 - F1) of ``(a + 0.5, a, ..., a)``;
    with jitter 1 in 2D and euclidean distance, F1 <= 1.414 and F2 <= 1.803.

    Examples
    --------
    >>> from worldgen.noise import Cellular
    >>> Cellular(feature="f2-f1")(0.2, 0.9) >= 0.0
    True
    """

    seed: int = 0
    period: int | tuple[int, ...] | None = None
    feature: str = "f1"
    metric: str = "euclidean"
    jitter: float = 1.0

    name: ClassVar[str] = "Cellular noise"
    dimensions: ClassVar[tuple[int, ...]] = (2, 3)

    def __post_init__(self):
        _canonical(self)
        check_choice(self.feature, "feature", _FEATURES)
        check_choice(self.metric, "metric", _METRICS)
        check_range(self.jitter, "jitter", 0.0, 1.0)

    def _bounds(self, ndim: int) -> tuple[float, float]:
        a = 0.5 + 0.5 * float(self.jitter)
        first = a if self.feature == "f1" else a + 0.5
        if self.metric == "euclidean":
            top = float(np.sqrt(first**2 + (ndim - 1) * a**2))
        elif self.metric == "manhattan":
            top = first + (ndim - 1) * a
        else:
            top = first
        return (0.0, top)

    def with_seed(self, seed: int) -> Cellular:
        return dataclasses.replace(self, seed=seed)

    def _plan(self, ndim: int) -> Plan:
        periods = tuple(_periods(self.period, ndim, self.name).tolist())
        iopts = (0, _FEATURES.index(self.feature), _METRICS.index(self.metric))
        return _single_plan(_sampling.CELLULAR, self.seed, periods, iopts, float(self.jitter))


_MODES = ("fbm", "billow", "turbulence", "ridged")


def octave_offset(seed: int, octave: int, axis: int) -> float:
    """The coordinate shift of one fractal octave along one axis.

    A multiple of 2**-16 in [0, 256), so that shifted coordinates stay exact
    and tiling survives; octave 0 is not shifted.
    """
    if octave == 0:
        return 0.0
    return (derive_seed(seed, 4 * (octave + 1024) + axis) >> 40) / 65536.0


@dataclasses.dataclass(frozen=True)
class Fractal(Noise):
    """A fractal sum of octaves of a base noise.

    Octave ``o`` samples the base noise at frequency ``lacunarity**o`` with
    amplitude ``persistence**o``, its own derived seed and its own shift of
    the coordinates (octave 0 is the base noise itself), so that octaves do
    not line up at the origin. The sum is divided by the sum of amplitudes.

    Parameters
    ----------
    base : Perlin, Value, Simplex or Cellular
        The noise summed; its seed seeds every octave.
    octaves : int
        Number of octaves, 1 to 32.
    persistence : float
        Amplitude ratio between octaves (the "gain"), > 0.
    lacunarity : float
        Frequency ratio between octaves, > 0. It must be an integer when the
        base noise has a period, so that every octave tiles too.
    mode : {'fbm', 'billow', 'turbulence', 'ridged'}
        Per-octave shaping of the base value ``n``: fBm sums ``n``; billow
        ``2|n| - 1``; turbulence ``|n|``; ridged ``(1 - |n|)^2``.

    Notes
    -----
    With the base noise's range ``[lo, hi]`` (see :meth:`bounds`), fBm stays
    in ``[lo, hi]``; for the others, with ``|n|`` in ``[m, M]``: billow in
    ``[2m - 1, 2M - 1]``, turbulence in ``[m, M]``, ridged in
    ``[min (1 - |n|)^2, max (1 - |n|)^2]`` over that interval.

    Examples
    --------
    >>> from worldgen.noise import Fractal, Perlin
    >>> fbm = Fractal(Perlin(seed=7), octaves=6)
    >>> fbm.grid([0.0, 0.5, 1.0], [0.0, 0.5]).shape
    (2, 3)
    """

    base: Noise = dataclasses.field(default_factory=Perlin)
    octaves: int = 4
    persistence: float = 0.5
    lacunarity: float = 2.0
    mode: str = "fbm"

    name: ClassVar[str] = "Fractal noise"

    def __post_init__(self):
        if not isinstance(self.base, (Perlin, Value, Simplex, Cellular)):
            raise TypeError(
                "base must be a Perlin, Value, Simplex or Cellular noise, got "
                f"{type(self.base).__name__}; to warp a fractal, wrap it in Warp instead"
            )
        octaves = check_int(self.octaves, "octaves", 1, MAX_OCTAVES)
        persistence = check_positive(self.persistence, "persistence")
        lacunarity = check_positive(self.lacunarity, "lacunarity")
        check_choice(self.mode, "mode", _MODES)
        _check_growth(persistence, octaves, "persistence", MAX_AMPLITUDE, "amplitudes")
        _check_growth(lacunarity, octaves, "lacunarity", COORD_LIMIT, "frequencies")
        if isinstance(self.octaves, np.integer):
            object.__setattr__(self, "octaves", octaves)
        for name, value in (("persistence", persistence), ("lacunarity", lacunarity)):
            if isinstance(getattr(self, name), (np.floating, np.integer)):
                object.__setattr__(self, name, value)
        if getattr(self.base, "period", None) is not None:
            if lacunarity != int(lacunarity):
                raise ValueError(
                    "lacunarity must be an integer when the base noise has a period "
                    f"(period={self.base.period!r}), so that every octave tiles; "
                    f"got {self.lacunarity!r}"
                )
            periods = (
                self.base.period if isinstance(self.base.period, tuple) else (self.base.period,)
            )
            if max(periods) * lacunarity ** (self.octaves - 1) > MAX_PERIOD:
                raise ValueError(
                    "period * lacunarity**(octaves - 1) must stay below 2**53; "
                    "lower octaves, lacunarity or period"
                )

    @property
    def dimensions(self) -> tuple[int, ...]:  # type: ignore[override]
        return self.base.dimensions

    @property
    def seed(self) -> int:
        return self.base.seed

    def _bounds(self, ndim: int) -> tuple[float, float]:
        lo, hi = self.base._bounds(ndim)
        if self.mode == "fbm":
            return (lo, hi)
        small = 0.0 if lo <= 0.0 <= hi else min(abs(lo), abs(hi))
        large = max(abs(lo), abs(hi))
        if self.mode == "billow":
            return (2.0 * small - 1.0, 2.0 * large - 1.0)
        if self.mode == "turbulence":
            return (small, large)
        ends = ((1.0 - small) ** 2, (1.0 - large) ** 2)
        return (0.0 if small <= 1.0 <= large else min(ends), max(ends))

    def with_seed(self, seed: int) -> Fractal:
        return dataclasses.replace(self, base=self.base.with_seed(seed))

    def _plan(self, ndim: int) -> Plan:
        return _fractal_plan(self, ndim)


def _check_growth(ratio: float, octaves: int, name: str, limit: float, what: str) -> None:
    """Octave ``o`` has ``ratio**o`` as its amplitude or frequency: the sum
    of those (which bounds each of them) must stay below ``limit``."""
    total = term = 1.0
    for _ in range(octaves - 1):
        term *= ratio
        total += term
    if not total < limit:
        raise ValueError(
            f"{name}={ratio!r} with octaves={octaves} overflows: the octave {what} "
            f"({name}**octave) add up to {total:g}, above {limit:g}; lower {name} or octaves"
        )


@functools.lru_cache(maxsize=256)
def _fractal_plan(fractal: Fractal, ndim: int) -> Plan:
    base = fractal.base._plan(ndim)
    seed = fractal.base.seed
    count = fractal.octaves
    perms = np.empty((count, 512), dtype=np.uint64)
    periods = np.empty((count, 4), dtype=np.int64)
    freqs = np.empty(count)
    amps = np.empty(count)
    offsets = np.zeros((count, 4))
    freq = amp = 1.0
    for o in range(count):
        perms[o] = permutation(seed if o == 0 else derive_seed(seed, o))
        freqs[o] = freq
        amps[o] = amp
        if getattr(fractal.base, "period", None) is None:
            periods[o] = base.periods[0]
        else:
            periods[o] = base.periods[0] * round(freq)
        for axis in range(4):
            offsets[o, axis] = octave_offset(seed, o, axis)
        freq *= fractal.lacunarity
        amp *= fractal.persistence
    total = 0.0
    for amp in amps.tolist():  # in octave order, as documented
        total += amp
    mode = _MODES.index(fractal.mode)
    return Plan(
        base.tag, perms, periods, base.iopts, base.jitter, freqs, offsets, amps, mode, total
    )


BASES = {"perlin": Perlin, "value": Value, "simplex": Simplex, "cellular": Cellular}


def by_name(name: str, **params) -> Noise:
    """A base noise from its name, as configs and the command line give it.

    Parameters
    ----------
    name : {'perlin', 'value', 'simplex', 'cellular'}
    **params
        Fields of that generator (``seed``, ``period``, ...).

    Examples
    --------
    >>> by_name("value", seed=3, interpolation="linear")
    Value(seed=3, period=None, interpolation='linear')
    """
    check_choice(name, "noise", tuple(BASES))
    fields = {f.name for f in dataclasses.fields(BASES[name])}
    unknown = sorted(set(params) - fields)
    if unknown:
        raise ValueError(
            f"{name} noise has no parameter {', '.join(unknown)}; valid: {', '.join(sorted(fields))}"
        )
    return BASES[name](**params)


def axis(start: float, count: int, step: float) -> np.ndarray:
    """Coordinates ``start + i * step`` for ``i`` in ``range(count)``.

    The grid form of every noise takes such vectors; a window of a larger
    grid is the same call with another ``start``, and gives the same values.

    Examples
    --------
    >>> axis(0.0, 4, 0.25).tolist()
    [0.0, 0.25, 0.5, 0.75]
    """
    count = check_int(count, "count", 0, 2**40)
    start = check_real(start, "start")
    step = check_real(step, "step")
    span = max(count - 1, 0) * step
    if not (np.isfinite(span) and np.isfinite(start + span)):
        raise ValueError(
            f"axis(start={start!r}, count={count}, step={step!r}) overflows: the last "
            "coordinate start + (count - 1) * step must be finite; lower start, step or count"
        )
    return start + np.arange(count, dtype=np.float64) * step


__all__ = ["Cellular", "Fractal", "Noise", "Perlin", "Simplex", "Value", "axis", "by_name"]
