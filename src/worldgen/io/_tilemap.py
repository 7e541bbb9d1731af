"""Tile maps as files: plain CSV, and maps for the Tiled map editor.

A tile map is a 2-D array of non-negative integer class ids, shape (H, W),
row 0 at the top. :func:`write_tiled_json` writes the Tiled JSON map format
(https://doc.mapeditor.org/en/stable/reference/json-map-format/) together
with a tileset image of flat colours, one square per class, so the map opens
in Tiled as it is and can be painted over there.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import numbers
import os
import pathlib
import zlib
from collections.abc import Sequence

import numpy as np
from PIL import Image

from worldgen.io._atomic import atomic_output
from worldgen.io._image import PNG_COMPRESS_LEVEL
from worldgen.terrain._tilemap import check_tiles

# The JSON format version and the Tiled release whose format is written.
TILED_VERSION = "1.10"
TILED_RELEASE = "1.10.2"
# High bits of a Tiled global tile id that flip or rotate the tile.
_GID_FLAGS = 0xF0000000


def write_tiles_csv(path: str | os.PathLike, tiles: np.ndarray) -> pathlib.Path:
    """Write a tile map as comma-separated class ids, one map row per line.

    Parameters
    ----------
    path : path-like
        Where to write; the file appears atomically.
    tiles : ndarray of int, shape (H, W)
        Class ids, non-negative.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    TypeError, ValueError
        If ``tiles`` is not a non-empty 2-D array of non-negative integers.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "map.csv"
    >>> _ = write_tiles_csv(path, np.array([[0, 1, 2], [3, 3, 0]]))
    >>> print(path.read_text(), end="")
    0,1,2
    3,3,0
    >>> read_tiles_csv(path)
    array([[0, 1, 2],
           [3, 3, 0]])
    """
    tiles = check_tiles(tiles)
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        tmp.write_bytes(_csv_bytes(tiles))
    return target


def _csv_bytes(tiles: np.ndarray) -> bytes:
    # Class ids are small: join looked-up digit strings row by row, an order
    # of magnitude faster than numpy.savetxt on big maps.
    top = int(tiles.max())
    if top >= 1 << 16:
        return "\n".join(",".join(map(str, row)) for row in tiles.tolist()).encode() + b"\n"
    digits = np.array([str(i).encode() for i in range(top + 1)], dtype=object)
    return b"".join(b",".join(digits[row]) + b"\n" for row in tiles)


def read_tiles_csv(path: str | os.PathLike) -> np.ndarray:
    """Read a tile map written by :func:`write_tiles_csv`.

    Parameters
    ----------
    path : path-like
        A file of comma-separated integers, one map row per line, every row
        the same length.

    Returns
    -------
    ndarray of int64, shape (H, W)

    Raises
    ------
    ValueError
        If the file is empty, rows differ in length, or a value is not a
        non-negative integer.
    """
    source = pathlib.Path(path)
    text = source.read_text()
    if not text.strip():
        raise ValueError(f"{source}: the file holds no tile rows")
    try:
        tiles = np.loadtxt(io.StringIO(text), dtype=np.int64, delimiter=",", ndmin=2)
    except ValueError as exc:
        raise ValueError(
            f"{source}: not a tile CSV (comma-separated integers, rows of one length): {exc}"
        ) from None
    try:
        return check_tiles(tiles)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def _check_colours(colours: object, classes: int) -> np.ndarray:
    hint = "give colours as a sequence of (r, g, b) tuples of integers 0-255, one per class id"
    if isinstance(colours, (str, bytes)):
        raise TypeError(f"colours: {hint}; got {colours!r}")
    try:
        table = np.asarray(colours)
    except Exception:  # ragged lists and the like
        raise TypeError(f"colours: {hint}") from None
    if table.ndim != 2 or table.shape[1] != 3 or table.shape[0] == 0:
        raise ValueError(f"colours: {hint}; got an array of shape {table.shape}")
    if table.dtype.kind not in "iu":
        raise TypeError(f"colours: {hint}; got dtype {table.dtype}")
    if table.min() < 0 or table.max() > 255:
        raise ValueError(f"colours: {hint}; found a value outside 0-255")
    if table.shape[0] < classes:
        raise ValueError(
            f"colours has {table.shape[0]} entries but tiles holds class ids up to "
            f"{classes - 1}; give one colour for each class id from 0 to {classes - 1}"
        )
    return table.astype(np.uint8)


def _check_names(names: object, count: int) -> list[str]:
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
        raise TypeError(f"names must be a sequence of strings, one per colour, got {names!r}")
    if len(names) != count:
        raise ValueError(f"names has {len(names)} entries but colours has {count}; give one each")
    if not all(isinstance(name, str) for name in names):
        raise TypeError("names must be a sequence of strings, one per colour")
    return list(names)


def write_tiled_json(
    path: str | os.PathLike,
    tiles: np.ndarray,
    *,
    colours: Sequence[tuple[int, int, int]],
    names: Sequence[str] | None = None,
    tile_size: int = 16,
    encoding: str = "csv",
) -> pathlib.Path:
    """Write a tile map in the Tiled map editor's JSON format, with its tileset image.

    Parameters
    ----------
    path : path-like
        The JSON file to write, such as ``"world.json"``. The tileset image
        is written beside it as ``<stem>_tileset.png`` (``world_tileset.png``)
        and referenced by that relative name.
    tiles : ndarray of int, shape (H, W)
        Class ids, non-negative.
    colours : sequence of (r, g, b)
        One colour per class id, integers 0-255, covering every id in
        ``tiles``. The tileset has one tile per colour, in this order.
    names : sequence of str, optional
        One name per colour, stored as a string property ``name`` on each
        tile of the tileset.
    tile_size : int
        Width and height of a tile in pixels, from 1 to 4096.
    encoding : {'csv', 'base64'}
        How the layer's tile ids are stored: ``'csv'``, a JSON array (easy
        to read); ``'base64'``, zlib-compressed little-endian uint32 ids in
        base64 (Tiled's compact form, much smaller and faster on big maps).

    Returns
    -------
    pathlib.Path
        The path of the JSON file.

    Raises
    ------
    TypeError, ValueError
        If ``tiles`` is not a non-empty 2-D array of non-negative integers,
        ``colours`` are not RGB triples in 0-255 or miss a class id in
        ``tiles``, ``names`` does not give one string per colour, or
        ``tile_size`` is out of range. Nothing is written then.

    Notes
    -----
    The map is orthogonal, finite, rendered right-down, with one tile layer
    whose data are global tile ids in row-major order, gid = class id + 1
    (gid 0, Tiled's empty cell, is never written), and one embedded tileset
    with ``firstgid`` 1 whose image is a single row of flat squares, tile
    ``i`` filled with ``colours[i]``. The image is moved into place before
    the JSON, so the map never refers to an image that is not there.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> tiles = np.array([[0, 1], [1, 2]])
    >>> path = write_tiled_json(folder / "world.json", tiles,
    ...                         colours=[(0, 0, 128), (230, 210, 150), (40, 160, 40)])
    >>> sorted(p.name for p in folder.iterdir())
    ['world.json', 'world_tileset.png']
    >>> read_tiled_json(path)
    array([[0, 1],
           [1, 2]])
    """
    tiles = check_tiles(tiles)
    table = _check_colours(colours, int(tiles.max()) + 1)
    count = table.shape[0]
    labels = None if names is None else _check_names(names, count)
    if isinstance(tile_size, bool) or not isinstance(tile_size, numbers.Integral):
        raise TypeError(f"tile_size must be an integer from 1 to 4096 (pixels), got {tile_size!r}")
    if not 1 <= tile_size <= 4096:
        raise ValueError(f"tile_size must be an integer from 1 to 4096 (pixels), got {tile_size!r}")
    size = int(tile_size)
    if encoding not in ("csv", "base64"):
        raise ValueError(f"encoding must be 'csv' or 'base64', got {encoding!r}")

    target = pathlib.Path(path)
    image_path = target.with_name(f"{target.stem}_tileset.png")
    pixels = np.repeat(np.repeat(table[np.newaxis], size, axis=0), size, axis=1)
    image = Image.fromarray(pixels)

    height, width = tiles.shape
    tileset = {
        "columns": count,
        "firstgid": 1,
        "image": image_path.name,
        "imageheight": size,
        "imagewidth": size * count,
        "margin": 0,
        "name": f"{target.stem} classes",
        "spacing": 0,
        "tilecount": count,
        "tileheight": size,
        "tilewidth": size,
    }
    if labels is not None:
        tileset["tiles"] = [
            {"id": i, "properties": [{"name": "name", "type": "string", "value": label}]}
            for i, label in enumerate(labels)
        ]
    gids = tiles.ravel().astype(np.int64) + 1
    if encoding == "csv":
        layer: dict = {"data": gids.tolist()}
    else:
        packed = zlib.compress(gids.astype("<u4").tobytes())
        layer = {
            "compression": "zlib",
            "data": base64.b64encode(packed).decode(),
            "encoding": "base64",
        }
    layer |= {
        "height": height,
        "id": 1,
        "name": "classes",
        "opacity": 1,
        "type": "tilelayer",
        "visible": True,
        "width": width,
        "x": 0,
        "y": 0,
    }
    document = {
        "compressionlevel": -1,
        "height": height,
        "infinite": False,
        "layers": [layer],
        "nextlayerid": 2,
        "nextobjectid": 1,
        "orientation": "orthogonal",
        "renderorder": "right-down",
        "tiledversion": TILED_RELEASE,
        "tileheight": size,
        "tilesets": [tileset],
        "tilewidth": size,
        "type": "map",
        "version": TILED_VERSION,
        "width": width,
    }
    text = json.dumps(document, separators=(",", ":"))

    with atomic_output(target) as tmp_json:
        tmp_json.write_text(text)
        with atomic_output(image_path) as tmp_png:
            image.save(tmp_png, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return target


def _layer_gids(layer: dict, source: pathlib.Path) -> np.ndarray:
    data = layer.get("data")
    if layer.get("encoding", "csv") == "csv":
        message = f"{source}: the tile layer's data must be an array of tile ids"
        try:
            gids = np.array(data)
        except (ValueError, OverflowError):
            raise ValueError(message) from None
        if gids.ndim != 1 or gids.dtype.kind not in "iu":
            raise ValueError(message)
        if gids.size and (gids.min() < 0 or gids.max() > 0xFFFFFFFF):
            raise ValueError(message)
        return gids.astype(np.int64)
    if layer["encoding"] != "base64" or not isinstance(data, str):
        raise ValueError(f"{source}: unknown tile layer encoding {layer['encoding']!r}")
    raw = base64.b64decode(data)
    compression = layer.get("compression", "")
    if compression == "zlib":
        raw = zlib.decompress(raw)
    elif compression == "gzip":
        raw = gzip.decompress(raw)
    elif compression:
        raise ValueError(
            f"{source}: tile layer compression {compression!r} is not supported; in Tiled, "
            "set the map's tile layer format to CSV, or base64 uncompressed, zlib or gzip"
        )
    return np.frombuffer(raw, dtype="<u4").astype(np.int64)


def read_tiled_json(path: str | os.PathLike) -> np.ndarray:
    """Read the class map back from a Tiled JSON map.

    Parameters
    ----------
    path : path-like
        A map written by :func:`write_tiled_json`, or saved by Tiled from
        one: finite, with exactly one tile layer in CSV or base64 (plain,
        zlib or gzip) encoding.

    Returns
    -------
    ndarray of int64, shape (H, W)
        Class ids, gid - 1. Tiled's flip and rotation flags are ignored.

    Raises
    ------
    ValueError
        If the file is not such a map, or a cell is empty (gid 0).
    """
    source = pathlib.Path(path)
    try:
        document = json.loads(source.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source}: not a JSON file: {exc}") from None
    if not isinstance(document, dict) or document.get("type", "map") != "map":
        raise ValueError(f"{source}: not a Tiled JSON map")
    if document.get("infinite", False):
        raise ValueError(f"{source}: infinite maps are not supported; give the map a fixed size")
    layers = [
        layer
        for layer in document.get("layers", [])
        if isinstance(layer, dict) and layer.get("type") == "tilelayer"
    ]
    if len(layers) != 1:
        raise ValueError(f"{source}: expected exactly one tile layer, found {len(layers)}")
    layer = layers[0]
    height, width = layer.get("height"), layer.get("width")
    if not (isinstance(height, int) and isinstance(width, int) and height > 0 and width > 0):
        raise ValueError(f"{source}: the tile layer needs positive integer width and height")
    gids = _layer_gids(layer, source) & ~_GID_FLAGS
    if gids.size != height * width:
        raise ValueError(
            f"{source}: the tile layer holds {gids.size} tiles, expected "
            f"{width} x {height} = {width * height}"
        )
    if (gids == 0).any():
        raise ValueError(
            f"{source}: the tile layer has {int((gids == 0).sum())} empty cells (gid 0); "
            "paint every cell, a class map has no empty cells"
        )
    return gids.reshape(height, width) - 1
