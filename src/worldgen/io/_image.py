"""PNG images: greyscale height fields, RGB pictures, RGBA tiles.

PNGs are encoded here (:func:`png_bytes`) rather than by Pillow, which
tries all five row filters on every row and deflates with zlib: every row
is filtered one way, by default "up" (its difference from the row above),
and deflated by libdeflate (the ``deflate`` package) at level 1. On colour
maps and tiles that takes about a quarter of Pillow's CPU at zlib level 1
(half of it the filter choice, half zlib's own bookkeeping), for files
about a tenth smaller. Pictures of flat colours (bands, biomes, climate
ramps) deflate better unfiltered (``row_filter="none"``): on the
explorer's colour, biome, temperature and rainfall tiles 0.6-0.8 of the
deflate CPU of "up", for files 0-15% smaller; smooth fields (heights,
hillshades) keep "up", which makes their files 15-25% smaller. Pillow reads
them back in the tests.
"""

from __future__ import annotations

import os
import pathlib
import struct
import zlib

import deflate
import numpy as np

from worldgen._checks import finite_values
from worldgen._jit import kernel
from worldgen.io._atomic import atomic_file

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Channels -> PNG colour type: grey, RGB, RGBA.
_COLOUR_TYPES = {1: 0, 3: 2, 4: 6}
# Row filters -> PNG filter type.
_FILTERS = {"none": 0, "up": 2}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(image: np.ndarray, *, row_filter: str = "up") -> bytes:
    """PNG bytes of a uint8 grey (H, W), RGB (H, W, 3) or RGBA (H, W, 4)
    image, or a uint16 grey one: the same bytes for the same pixels.

    ``row_filter`` is the PNG filter of every row: ``"up"`` (smooth fields)
    or ``"none"`` (flat colours; see the module docstring).

    Raises
    ------
    ValueError
        For any other array, naming its type and shape, or another
        ``row_filter``.
    """
    return b"".join(_png_pieces(image, row_filter))


def _png_pieces(image: np.ndarray, row_filter: str = "up") -> tuple[bytes, bytes, bytes]:
    """The bytes of :func:`png_bytes` in three pieces: all before the
    compressed pixels, the compressed pixels, all after them (so that the
    big middle piece is written as it is, not copied into one string)."""
    if row_filter not in _FILTERS:
        raise ValueError(f"row_filter must be 'up' or 'none', got {row_filter!r}")
    image = np.asarray(image)
    channels = 1 if image.ndim == 2 else (image.shape[2] if image.ndim == 3 else 0)
    wide = image.dtype == np.uint16 and channels == 1
    if (image.dtype != np.uint8 and not wide) or channels not in _COLOUR_TYPES or 0 in image.shape:
        raise ValueError(
            "image must be uint8 (H, W), (H, W, 3) or (H, W, 4), or uint16 (H, W), got "
            f"{image.dtype} {image.shape}"
        )
    height, width = image.shape[:2]
    # C order: a transposed (Fortran-ordered) array cannot be viewed as bytes row by row.
    flat = np.ascontiguousarray(image.astype(">u2") if wide else image)
    flat = flat.reshape(height, -1).view(np.uint8)
    rows = np.empty((height, flat.shape[1] + 1), dtype=np.uint8)
    rows[:, 0] = _FILTERS[row_filter]
    if row_filter == "up":
        rows[0, 1:] = flat[0]
        np.subtract(flat[1:], flat[:-1], out=rows[1:, 1:])
    else:
        rows[:, 1:] = flat
    return _pieces_of_rows(rows, width, 16 if wide else 8, _COLOUR_TYPES[channels])


def _pieces_of_rows(rows: np.ndarray, width: int, bits: int, colour_type: int):
    """:func:`_png_pieces` of the filtered rows (each its filter byte and
    bytes) of an image ``width`` pixels wide."""
    data = deflate.zlib_compress(rows, 1)
    header = struct.pack(">IIBBBBB", width, rows.shape[0], bits, colour_type, 0, 0, 0)
    # The IDAT chunk: its length and kind, the data, then the CRC of kind
    # and data (taken on the data where it is).
    crc = zlib.crc32(data, zlib.crc32(b"IDAT"))
    before = PNG_SIGNATURE + _chunk(b"IHDR", header) + struct.pack(">I", len(data)) + b"IDAT"
    return before, data, struct.pack(">I", crc) + _chunk(b"IEND", b"")


def write_png(path: str | os.PathLike, image: np.ndarray) -> pathlib.Path:
    """Write :func:`png_bytes` of ``image`` to ``path``, atomically."""
    target = pathlib.Path(path)
    pieces = _png_pieces(image)
    with atomic_file(target) as out:
        for piece in pieces:
            out.write(piece)
    return target


def write_png_bytes(path: str | os.PathLike, data: bytes) -> pathlib.Path:
    """Write PNG bytes already made (by :func:`png_bytes`) to ``path``,
    atomically: for a picture that is also embedded elsewhere (a mesh's
    texture), encoded once."""
    target = pathlib.Path(path)
    with atomic_file(target) as out:
        out.write(data)
    return target


def check_unit(values: object, name: str = "values") -> np.ndarray:
    """Float64 values of a non-empty 2-D array within [0, 1], or an error
    naming ``name``."""
    values = finite_values(values, name)
    if values.ndim != 2 or 0 in values.shape:
        raise ValueError(f"{name} must be a non-empty 2-D array (H, W), got shape {values.shape}")
    if not (values.min() >= 0.0 and values.max() <= 1.0):  # finite: checked above
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
    # The "up"-filtered rows of the quantised values (rint(values * 255) or
    # rint(values * 65535), 16 bits big-endian) made in one compiled pass:
    # the bytes png_bytes makes of those pixels.
    height, width = values.shape
    rows = np.empty((height, 1 + width * bits // 8), dtype=np.uint8)
    _grey_rows(values, float(255 if bits == 8 else 65535), bits == 16, rows)
    pieces = _pieces_of_rows(rows, width, bits, _COLOUR_TYPES[1])
    del rows
    target = pathlib.Path(path)
    with atomic_file(target) as out:
        for piece in pieces:
            out.write(piece)
    return target


@kernel
def _grey_rows(values, top, wide, rows):
    # Each row: the "up" filter's byte (2), then the bytes of
    # rint(value * top) as uint8 or big-endian uint16, less the same bytes
    # of the row above (none above the first), modulo 256.
    height, width = values.shape
    previous = np.zeros(rows.shape[1], np.uint8)
    current = np.empty(rows.shape[1], np.uint8)
    for r in range(height):
        rows[r, 0] = 2
        for c in range(width):
            if wide:
                q = np.uint16(np.rint(values[r, c] * top))
                current[1 + 2 * c] = np.uint8(q >> 8)
                current[2 + 2 * c] = np.uint8(q & 0xFF)
            else:
                current[1 + c] = np.uint8(np.rint(values[r, c] * top))
        for k in range(1, rows.shape[1]):
            rows[r, k] = np.uint8(current[k] - previous[k])
        previous, current = current, previous


def write_rgb_png(path: str | os.PathLike, rgb: np.ndarray) -> pathlib.Path:
    """Write an (H, W, 3) uint8 picture as a PNG, atomically."""
    rgb = np.asarray(rgb)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8 or 0 in rgb.shape:
        raise ValueError(
            f"rgb must be a non-empty (H, W, 3) uint8 array, got {rgb.dtype} {rgb.shape}"
        )
    return write_png(path, rgb)
