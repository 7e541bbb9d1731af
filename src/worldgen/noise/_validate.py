"""Checks on what users pass in, with errors that say how to fix it."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

AXES = ("x", "y", "z", "w")
# Scaled coordinates stay below this, so lattice arithmetic never overflows.
COORD_LIMIT = 2.0**62


def check_choice(value: object, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        valid = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {valid}, got {value!r}")
    return value


def check_int(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


def check_bool(value: object, name: str) -> bool:
    """``value`` as a bool (Python or numpy), or an error naming ``name``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_instance(value: object, name: str, cls: type) -> None:
    """An error naming ``name`` unless ``value`` is a ``cls``."""
    if not isinstance(value, cls):
        raise TypeError(
            f"{name} must be a {cls.__name__}, got {type(value).__name__} {value!r}; "
            f"build one with {cls.__name__}(...)"
        )


def check_pair(value: object, name: str) -> tuple[float, float]:
    """Two finite floats ``(x, y)``, or an error naming ``name``."""
    if (
        not isinstance(value, (tuple, list, np.ndarray))
        or len(value) != 2
        or not all(
            isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and np.isfinite(v)
            for v in value
        )
    ):
        raise ValueError(f"{name} must be two finite numbers (x, y), got {value!r}")
    return (float(value[0]), float(value[1]))


def check_real(value: object, name: str) -> float:
    """A finite float from any real number (Python or numpy), or an error
    naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if not np.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def check_positive(value: object, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive number, got {value!r}")
    number = float(value)
    if not (np.isfinite(number) and number > 0.0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return number


def check_range(value: object, name: str, low: float, high: float) -> float:
    """A float from ``low`` to ``high``, or an error naming ``name``."""
    number = check_real(value, name)
    if not low <= number <= high:
        raise ValueError(f"{name} must be a number from {low:g} to {high:g}, got {value!r}")
    return number


_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


def check_dtype(dtype: object) -> np.dtype:
    # A failed resolution must not be compared as None: numpy's
    # ``dtype('f8') == None`` is True.
    # Only a type, dtype or name: numpy would also read a value (np.float64(1.0))
    # or None as float64.
    if not isinstance(dtype, (type, np.dtype, str)):
        raise ValueError(
            f"dtype must be numpy.float64 or numpy.float32 (the type), got {dtype!r} of type "
            f"{type(dtype).__name__}"
        )
    try:
        resolved = np.dtype(dtype)
    except (TypeError, ValueError):
        resolved = None
    if resolved is None or resolved not in _DTYPES:
        raise ValueError(f"dtype must be numpy.float64 or numpy.float32, got {dtype!r}")
    return resolved


def coordinate_arrays(coords: Sequence[object]) -> tuple[list[np.ndarray], tuple[int, ...]]:
    """Float64 arrays of the given coordinates and their broadcast shape."""
    arrays = []
    for name, value in zip(AXES, coords):
        # Finiteness is checked with the extent, from the same two reductions.
        arrays.append(_as_float(value, name, finite=False))
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(f"{n}{a.shape}" for n, a in zip(AXES, arrays))
        raise ValueError(
            f"coordinate shapes do not broadcast: {shapes}; pass arrays of one "
            "shape, or shapes numpy can broadcast together"
        ) from None
    return arrays, shape


def axis_vectors(coords: Sequence[object]) -> list[np.ndarray]:
    """Float64 1-D arrays of the given grid axes."""
    vectors = []
    for name, value in zip(AXES, coords):
        array = _as_float(value, name)
        if array.ndim != 1:
            raise ValueError(
                f"{name}: a grid axis must be a 1-D array of coordinates, got shape "
                f"{array.shape}; use worldgen.noise.axis(start, count, step) to make one"
            )
        vectors.append(np.ascontiguousarray(array))
    return vectors


def check_extent(arrays: Sequence[np.ndarray], top_frequency: float, offset: float) -> None:
    for name, array in zip(AXES, arrays):
        if array.size == 0:
            continue
        # Two reductions, no temporary: np.abs(array) would cost as much as
        # sampling a cheap noise at every point.
        largest = max(abs(float(np.max(array))), abs(float(np.min(array))))
        if not np.isfinite(largest):
            raise ValueError(f"{name}: coordinates must be finite; found NaN or infinity")
        if largest * top_frequency + offset >= COORD_LIMIT:
            raise ValueError(
                f"{name}: coordinates are too large (max |{name}| = {largest:g}); "
                f"keep |{name}| * (highest octave frequency {top_frequency:g}) below 2**62"
            )


def dimension_count(coords: Sequence[object], what: str, supported: Sequence[int]) -> int:
    given = [c is not None for c in coords]
    if not given[0]:
        raise ValueError(f"{what}: the x coordinate is required")
    count = given.index(False) if False in given else len(given)
    if any(given[count:]):
        missing = AXES[count]
        raise ValueError(f"{what}: {missing} is missing; give coordinates in the order x, y, z, w")
    if count not in supported:
        dims = ", ".join(str(d) for d in supported)
        raise ValueError(
            f"{what} supports {dims} dimensions, got {count} coordinate(s) "
            f"({', '.join(AXES[:count])})"
        )
    return count


def _as_float(value: object, name: str, *, finite: bool = True) -> np.ndarray:
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}")
    try:
        array = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be a number or an array of numbers: {exc}") from None
    if array.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold real numbers, got dtype {array.dtype}; use .astype(numpy.float64)"
        )
    array = array.astype(np.float64, copy=False)
    if finite and array.size and not np.isfinite(array).all():
        raise ValueError(f"{name}: coordinates must be finite; found NaN or infinity")
    return array
