"""PNG images, written with Pillow: greyscale height fields and RGB pictures."""

from __future__ import annotations

import os
import pathlib

import numpy as np
from PIL import Image

from worldgen._checks import finite_values
from worldgen.io._atomic import atomic_output

# zlib level 1 writes PNGs two to three times as fast as Pillow's default 6,
# and within a few percent of its size on maps.
PNG_COMPRESS_LEVEL = 1


def check_unit(values: object, name: str = "values") -> np.ndarray:
    """Float64 values of a non-empty 2-D array within [0, 1], or an error
    naming ``name``."""
    values = finite_values(values, name)
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array (H, W), got shape {values.shape}")
    if not (np.isfinite(values).all() and values.min() >= 0.0 and values.max() <= 1.0):
        raise ValueError(f"{name} must be finite and within [0, 1]; normalise them first")
    return values


def write_grey_png(path: str | os.PathLike, values: np.ndarray, *, bits: int = 8) -> pathlib.Path:
    """Write values in [0, 1] as an 8- or 16-bit greyscale PNG.

    Parameters
    ----------
    path : path-like
        Where to write; the file appears atomically.
    values : ndarray, shape (H, W)
        Heights in [0, 1]; row 0 is the top of the image.
    bits : {8, 16}
        Bit depth. Values are scaled by 255 or 65535 and rounded.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ValueError
        If ``values`` is not 2-D, holds NaN or values outside [0, 1], or
        ``bits`` is not 8 or 16.
    """
    values = check_unit(values)
    if isinstance(bits, bool) or not isinstance(bits, int | np.integer) or bits not in (8, 16):
        raise ValueError(f"bits must be 8 or 16, got {bits!r}")
    top = 255 if bits == 8 else 65535
    pixels = np.rint(values * top).astype(np.uint8 if bits == 8 else np.uint16)
    image = Image.fromarray(pixels)
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        image.save(tmp, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return target


def write_rgb_png(path: str | os.PathLike, rgb: np.ndarray) -> pathlib.Path:
    """Write an (H, W, 3) uint8 picture as a PNG, atomically."""
    rgb = np.asarray(rgb)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8 or 0 in rgb.shape:
        raise ValueError(
            f"rgb must be a non-empty (H, W, 3) uint8 array, got {rgb.dtype} {rgb.shape}"
        )
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        Image.fromarray(rgb).save(tmp, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return target
