"""Height maps as game engines and GIS tools import them."""

from __future__ import annotations

import os
import pathlib
import warnings

import numpy as np
from PIL import Image

from worldgen._checks import height_field
from worldgen.io._atomic import atomic_output, check_file_name
from worldgen.io._image import check_unit, write_grey_png
from worldgen.noise._validate import check_int

FORMATS = ("png16", "png8", "raw16", "r16", "tiff", "npy")
_SUFFIX = {
    "png16": ".png",
    "png8": ".png",
    "raw16": ".raw",
    "r16": ".r16",
    "tiff": ".tif",
    "npy": ".npy",
}


class HeightmapSizeWarning(UserWarning):
    """A height map's size is not what the target engine expects."""


def unity_size_note(shape: tuple[int, int]) -> str | None:
    """Why Unity's terrain importer would resize this map, or None.

    Unity wants square RAW height maps of side 2^n + 1 (33 ... 4097).

    Examples
    --------
    >>> unity_size_note((513, 513)) is None
    True
    >>> unity_size_note((512, 512))
    'Unity terrains want square heightmaps of side 2^n + 1 (e.g. 513); this one is 512x512'
    """
    h, w = shape
    side_ok = h == w and h >= 3 and ((h - 1) & (h - 2)) == 0
    if side_ok:
        return None
    return f"Unity terrains want square heightmaps of side 2^n + 1 (e.g. 513); this one is {w}x{h}"


def quantise16(heights: np.ndarray) -> np.ndarray:
    """Heights in [0, 1] as uint16, ``round(h * 65535)``."""
    return np.rint(check_unit(heights, "heights") * 65535.0).astype(np.uint16)


def write_raw16(path: str | os.PathLike, heights: np.ndarray) -> pathlib.Path:
    """Heights in [0, 1] as headerless 16-bit little-endian samples, row 0
    first (Unity's RAW "Windows" byte order; the same bytes as a ``.r16``).

    Warns with :class:`HeightmapSizeWarning` when Unity would not take the
    size as it is.
    """
    data = quantise16(heights).astype("<u2")
    note = unity_size_note(data.shape)
    if note:
        warnings.warn(note, HeightmapSizeWarning, stacklevel=2)
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        tmp.write_bytes(data.tobytes())
    return target


def write_float_tiff(path: str | os.PathLike, heights: np.ndarray) -> pathlib.Path:
    """Heights as a 32-bit float TIFF (any range float32 holds), which GIS
    tools and Unreal's importer read."""
    values = _float32_heights(heights, "a float32 TIFF")
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        Image.fromarray(values).save(tmp, format="TIFF")
    return target


def _float32_heights(heights: object, what: str) -> np.ndarray:
    """:func:`height_field` of ``heights`` as float32, or an error if one
    would not fit (it would be written as infinity)."""
    values = height_field(heights)
    if not (np.abs(values) <= np.finfo(np.float32).max).all():
        raise ValueError(f"heights must fit in float32 (|h| <= 3.4e38) for {what}")
    return values.astype(np.float32)


def write_npy(path: str | os.PathLike, heights: np.ndarray) -> pathlib.Path:
    """Heights ``(H, W)`` as a float32 ``.npy`` file."""
    values = _float32_heights(heights, "a .npy height map")
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        with open(tmp, "wb") as handle:
            np.save(handle, values)
    return target


def write_array(path: str | os.PathLike, values: np.ndarray) -> pathlib.Path:
    """A boolean or integer array as a ``.npy`` file, its dtype kept (e.g.
    ``water.npy``, ``surface.npy``), written atomically."""
    array = np.asarray(values)
    if array.dtype.kind not in "biu":
        raise TypeError(f"values must be a boolean or integer array, got dtype {array.dtype}")
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        with open(tmp, "wb") as handle:
            np.save(handle, array)
    return target


def _check_format(fmt: object) -> str:
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return fmt


def write_heightmap(path: str | os.PathLike, heights: np.ndarray, fmt: str) -> pathlib.Path:
    """Write ``heights`` in one of :data:`FORMATS` (``path`` without suffix
    gets the format's)."""
    fmt = _check_format(fmt)
    heights = height_field(heights)  # every format is of one 2-D map
    target = pathlib.Path(path)
    if not target.suffix:
        target = target.with_suffix(_SUFFIX[fmt])
    if fmt in ("png16", "png8"):
        return write_grey_png(target, heights, bits=16 if fmt == "png16" else 8)
    if fmt in ("raw16", "r16"):
        return write_raw16(target, heights)
    if fmt == "tiff":
        return write_float_tiff(target, heights)
    return write_npy(target, heights)


def write_tiles(
    directory: str | os.PathLike, name: str, heights: np.ndarray, tile: int, fmt: str = "png16"
) -> list[pathlib.Path]:
    """Cut ``heights`` into ``tile`` x ``tile`` pieces written as
    ``{name}_x{i}_y{j}`` and the format's suffix (column i, row j; the
    last ones may be smaller).

    ``name`` is a plain file name part (no folders), so every tile stays
    inside ``directory``. Neighbouring tiles share no pixels; to make tiles whose edges repeat
    their neighbours' (as some engines want), make the map one pixel larger
    and cut with overlapping windows instead.
    """
    tile = check_int(tile, "tile", 1, 2**20)
    name = check_file_name(name, "name")
    fmt = _check_format(fmt)
    heights = height_field(heights)
    paths = []
    directory = pathlib.Path(directory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HeightmapSizeWarning)
        for j, y in enumerate(range(0, heights.shape[0], tile)):
            for i, x in enumerate(range(0, heights.shape[1], tile)):
                piece = heights[y : y + tile, x : x + tile]
                # The suffix given, as a dotted name ("world.v2") would be
                # taken for one.
                tile_name = f"{name}_x{i}_y{j}{_SUFFIX[fmt]}"
                paths.append(write_heightmap(directory / tile_name, piece, fmt))
    return paths
