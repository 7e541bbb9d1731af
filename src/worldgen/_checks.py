"""Checks shared by the terrain modules: height fields, numbers, colours."""

from __future__ import annotations

import numbers

import numpy as np

from worldgen.noise._validate import check_real

Colour = tuple[int, int, int]


def finite_values(values: object, name: str) -> np.ndarray:
    """The float64 values of a finite array of real numbers (any shape), or
    an error naming ``name``."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers, got {values!r}")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of numbers: {exc}") from None
    if array.dtype.kind not in "iuf":
        raise TypeError(
            f"{name} must hold real numbers, got dtype {array.dtype}; use .astype(numpy.float64)"
        )
    array = array.astype(np.float64, copy=False)
    # The least and the greatest value are finite only if every value is
    # (NaN carries through both), without a mask of the array's size.
    if array.size and not (np.isfinite(array.min()) and np.isfinite(array.max())):
        raise ValueError(f"{name} must be finite; found NaN or infinity")
    return array


def height_field(heights: object, name: str = "heights") -> np.ndarray:
    """The float64 values of a finite, non-empty (H, W) array (not copied if
    already float64), or an error naming ``name``."""
    array = finite_values(heights, name)
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array (H, W), got shape {array.shape}")
    return array


def check_unit_interval(value: object, name: str) -> float:
    """A float from 0 to 1, or an error naming ``name``."""
    number = check_real(value, name)
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"{name} must be a number from 0 to 1, got {value!r}")
    return number


def check_colour(colour: object, name: str) -> Colour:
    """An (r, g, b) tuple of ints 0-255, or an error naming ``name``."""
    if (
        not isinstance(colour, (tuple, list, np.ndarray))
        or len(colour) != 3
        or not all(
            isinstance(c, numbers.Integral) and not isinstance(c, bool) and 0 <= c <= 255
            for c in colour
        )
    ):
        raise ValueError(f"{name} must be three integers 0-255 (r, g, b), got {colour!r}")
    return (int(colour[0]), int(colour[1]), int(colour[2]))


def rgb_image(rgb: object, name: str = "rgb") -> np.ndarray:
    """A non-empty (H, W, 3) uint8 image, or an error naming ``name``."""
    array = np.asarray(rgb)
    if array.ndim != 3 or array.shape[2] != 3 or 0 in array.shape:
        raise ValueError(f"{name} must be a non-empty (H, W, 3) RGB array, got shape {array.shape}")
    if array.dtype != np.uint8:
        if array.dtype.kind not in "iu" or array.min() < 0 or array.max() > 255:
            raise TypeError(
                f"{name} must hold uint8 values 0-255, got dtype {array.dtype}; "
                "use numpy.clip(rgb, 0, 255).astype(numpy.uint8)"
            )
        array = array.astype(np.uint8)
    return array
