"""Minecraft's region files (Anvil ``r.X.Z.mca``) and ``level.dat``.

A region file holds the 32 x 32 chunks of one region: an 8 KiB header of
two tables of 1,024 big-endian entries, indexed ``x + 32 z`` (x and z the
chunk's position in its region), then the chunks, each starting on a
4 KiB sector. The first table gives each chunk's first sector (3 bytes)
and sector count (1 byte), the second the time it was saved (seconds since
1970). A chunk is stored as its length in bytes (4 bytes, the compression
byte included), the compression (2: zlib) and its zlib-compressed NBT,
padded to a whole sector.
"""

from __future__ import annotations

import gzip
import io
import os
import pathlib
import struct
import zlib
from collections.abc import Mapping

from worldgen.io._atomic import atomic_output

REGION = 32
"""Chunks along each side of a region."""
SECTOR = 4096
_ZLIB = 2
_MAX_SECTORS = 255  # larger chunks go to separate .mcc files, which we never need


def region_name(rx: int, rz: int) -> str:
    """The file name of region ``(rx, rz)``: ``r.{rx}.{rz}.mca``."""
    return f"r.{rx}.{rz}.mca"


def write_region(
    path: str | os.PathLike, chunks: Mapping[tuple[int, int], bytes], *, timestamp: int = 0
) -> pathlib.Path:
    """Write a region file of the chunks given, atomically.

    Parameters
    ----------
    path : path-like
        The ``.mca`` file.
    chunks : mapping of (x, z) to bytes
        Each chunk's uncompressed NBT, by its position in the region
        (``0 <= x, z < 32``).
    timestamp : int
        The save time of every chunk, seconds since 1970.

    Raises
    ------
    ValueError
        If a position is outside the region or a chunk does not fit in 255
        sectors (about 1 MiB compressed).
    """
    locations = [0] * (REGION * REGION)
    body = io.BytesIO()
    sector = 2
    for (x, z), nbt in sorted(chunks.items(), key=lambda item: (item[0][1], item[0][0])):
        if not (0 <= x < REGION and 0 <= z < REGION):
            raise ValueError(f"chunk position in a region must be 0..31, got ({x}, {z})")
        data = zlib.compress(nbt)
        record = struct.pack(">IB", len(data) + 1, _ZLIB) + data
        count = -(-len(record) // SECTOR)
        if count > _MAX_SECTORS:
            raise ValueError(
                f"chunk ({x}, {z}) takes {count} sectors compressed; a region holds at most "
                f"{_MAX_SECTORS}"
            )
        body.write(record + bytes(count * SECTOR - len(record)))
        locations[x + REGION * z] = sector << 8 | count
        sector += count
    stamps = [timestamp if entry else 0 for entry in locations]
    header = struct.pack(">1024I", *locations) + struct.pack(">1024I", *stamps)
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        tmp.write_bytes(header + body.getvalue())
    return target


def write_nbt_file(path: str | os.PathLike, tag) -> pathlib.Path:
    """Write an :class:`nbtlib.File` (e.g. ``level.dat``, gzipped), atomically.

    The gzip header holds no time or file name (``nbtlib``'s own ``save``
    writes the clock's time and the temporary file's name there), so the
    same tag is the same bytes on every run."""
    target = pathlib.Path(path)
    with atomic_output(target) as tmp, open(tmp, "wb") as raw:
        if tag.gzipped:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed:
                tag.write(packed, tag.byteorder)
        else:
            tag.write(raw, tag.byteorder)
    return target
