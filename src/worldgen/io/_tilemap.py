"""Tile maps as files: plain CSV, and maps for the Tiled map editor.

A tile map is a 2-D array of non-negative integer class ids, shape (H, W),
row 0 at the top. :func:`write_tiled_json` writes the Tiled JSON map format
(https://doc.mapeditor.org/en/stable/reference/json-map-format/) together
with its tileset image: flat colours, one square per class, or a generated
transition tileset (:class:`~worldgen.terrain.Tileset`) with a Tiled terrain
(wang) set, also written as a TSX file, so the map opens in Tiled as it is
and Tiled's terrain brush keeps working on it.
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
from xml.etree import ElementTree

import deflate
import numpy as np

from worldgen._jit import kernel
from worldgen.io._atomic import atomic_file
from worldgen.io._image import _png_pieces
from worldgen.products._tilemap import check_tiles
from worldgen.products._tileset import TILESETS, Tileset

# The JSON format version and the Tiled release whose format is written.
TILED_VERSION = "1.10"
TILED_RELEASE = "1.10.2"
# High bits of a Tiled global tile id that flip or rotate the tile.
_GID_FLAGS = 0xF0000000
# The tileset property that tells how many tiles each class has.
TILES_PER_CLASS = "tiles per class"
# The most classes (rows of tiles) a transition tileset is drawn with.
_MOST_BANDS = 256


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
    text = _csv_bytes(tiles)
    with atomic_file(target) as out:
        out.write(text)
    return target


def _csv_bytes(tiles: np.ndarray) -> bytes | memoryview:
    # Class ids are small: each value's digits are copied from a table of
    # the numbers up to the largest, by a compiled loop (about 20 times
    # faster than joining digit strings in Python; a 2048 x 2048 map's
    # three tile maps took a second of a terrain job).
    top = int(tiles.max())
    if top >= 1 << 16:
        return "\n".join(",".join(map(str, row)) for row in tiles.tolist()).encode() + b"\n"
    numbers = [str(i).encode() for i in range(top + 1)]
    table = np.frombuffer(b"".join(numbers), dtype=np.uint8)
    starts = np.zeros(top + 2, dtype=np.int64)
    starts[1:] = np.cumsum([len(n) for n in numbers])
    ids = tiles.astype(np.uint16, copy=False)
    # digits (each value's length), commas and newlines, counted by the
    # same kernel given no room to write
    out = np.empty(_write_csv(ids, table, starts, np.empty(0, np.uint8)), dtype=np.uint8)
    _write_csv(ids, table, starts, out)
    return out.data


@kernel
def _write_csv(ids, table, starts, out):
    # The rows of ``ids`` as decimal text into ``out``: value v's digits are
    # table[starts[v]:starts[v + 1]], a comma after each value but a row's
    # last, which a newline follows. With an empty ``out``, only the text's
    # length (one kernel for both, loaded once a run).
    rows, cols = ids.shape
    if out.size == 0:
        size = ids.size
        for r in range(rows):
            for c in range(cols):
                v = ids[r, c]
                size += starts[v + 1] - starts[v]
        return size
    n = 0
    for r in range(rows):
        for c in range(cols):
            v = ids[r, c]
            for k in range(starts[v], starts[v + 1]):
                out[n] = table[k]
                n += 1
            out[n] = 44 if c < cols - 1 else 10
            n += 1
    return n


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
    text = _read_text(source, "a tile CSV")
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
    tileset: str = "flat",
    tile_ids: np.ndarray | None = None,
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
    tileset : {'flat', 'blob47', 'edge16'}
        ``'flat'``: one flat colour per class. ``'blob47'`` or ``'edge16'``:
        the transition tileset of :class:`~worldgen.terrain.Tileset` drawn
        from ``colours`` (classes are bands in order, ``tile_size`` at least
        4), with a Tiled wang set whose colours are the classes; the tileset
        is also written as ``<stem>_tileset.tsx``.
    tile_ids : ndarray of int, shape (H, W), optional
        For a transition tileset, the tile of each cell, as
        :meth:`Tileset.tile_ids` gives it with a halo (what
        :func:`~worldgen.terrain.make_layers` returns); each must be a tile
        of the cell's class. By default they are found from ``tiles``,
        taking outside the map as the cell's own class.

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
        ``tile_size`` is out of range, or a transition tileset is given more
        than 256 colours. Nothing is written then.

    Notes
    -----
    The map is orthogonal, finite, rendered right-down, with one tile layer
    whose data are global tile ids in row-major order, gid = class id + 1
    (gid 0, Tiled's empty cell, is never written), and one embedded tileset
    with ``firstgid`` 1 whose image is a single row of flat squares, tile
    ``i`` filled with ``colours[i]``. The image is moved into place before
    the JSON, so the map never refers to an image that is not there.

    With a transition tileset, class ``c``'s tiles are row ``c`` of the
    image and gid = tile id + 1; the tileset has an int property ``tiles per
    class`` (47 or 16) and one wang set, named ``bands``, of type ``mixed``
    (blob47) or ``edge`` (edge16): wang colour ``c + 1`` is class ``c``
    (named after ``names``, drawn in its colour, shown by its plain tile),
    and every tile has a wang id (:meth:`Tileset.wang_ids`).

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
    if tileset not in TILESETS:
        raise ValueError(f"tileset must be one of {', '.join(TILESETS)}, got {tileset!r}")
    if tileset != "flat" and count > _MOST_BANDS:
        raise ValueError(
            f"colours has {count} entries; a {tileset} tileset draws at most {_MOST_BANDS} "
            "classes (a row of tiles each); give fewer colours, or use tileset='flat'"
        )

    target = pathlib.Path(path)
    image_path = target.with_name(f"{target.stem}_tileset.png")
    tsx_path = target.with_name(f"{target.stem}_tileset.tsx")
    if tileset == "flat":
        pixels = np.repeat(np.repeat(table[np.newaxis], size, axis=0), size, axis=1)
        columns, rows, gids = count, 1, tiles.ravel().astype(np.int64) + 1
        if tile_ids is not None:
            raise ValueError("tile_ids are only for a transition tileset; leave them out")
    else:
        kind = Tileset(tileset, size)
        pixels = kind.draw(table)
        columns, rows = kind.tiles_per_band, count
        gids = _tile_gids(tile_ids, tiles, kind)
    image = _png_pieces(pixels)

    height, width = tiles.shape
    tiled_tileset: dict = {
        "columns": columns,
        "firstgid": 1,
        "image": image_path.name,
        "imageheight": size * rows,
        "imagewidth": size * columns,
        "margin": 0,
        "name": f"{target.stem} classes",
        "spacing": 0,
        "tilecount": columns * rows,
        "tileheight": size,
        "tilewidth": size,
    }
    if tileset == "flat" and labels is not None:
        tiled_tileset["tiles"] = [
            {"id": i, "properties": [{"name": "name", "type": "string", "value": label}]}
            for i, label in enumerate(labels)
        ]
    if tileset != "flat":
        tiled_tileset["properties"] = [{"name": TILES_PER_CLASS, "type": "int", "value": columns}]
        tiled_tileset["wangsets"] = [_wang_set(kind, table, labels)]
    if encoding == "csv":
        layer: dict = {"data": gids.tolist()}
    else:
        # libdeflate's level 6: zlib's format, in half of zlib's own CPU
        # (a 2048 x 2048 layer: 57 -> 26 ms) and a little smaller.
        packed = deflate.zlib_compress(np.ascontiguousarray(gids, dtype="<u4"), 6)
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
        "tilesets": [tiled_tileset],
        "tilewidth": size,
        "type": "map",
        "version": TILED_VERSION,
        "width": width,
    }
    text = json.dumps(document, separators=(",", ":"))

    with atomic_file(target) as out_json:
        out_json.write(text.encode())  # ASCII: json.dumps escapes the rest
        with atomic_file(image_path) as out_png:
            for piece in image:
                out_png.write(piece)
        if tileset != "flat":
            with atomic_file(tsx_path) as out_tsx:
                out_tsx.write(_tsx_bytes(tiled_tileset))
    return target


def _tile_gids(tile_ids: object, tiles: np.ndarray, kind: Tileset) -> np.ndarray:
    """The layer's global tile ids, row-major: ``tile_ids`` + 1, checked to
    be tiles of the classes in ``tiles`` (or found from ``tiles``)."""
    if tile_ids is None:
        return kind.tile_ids(tiles).ravel().astype(np.int64) + 1
    ids = check_tiles(tile_ids, "tile_ids")
    if ids.shape != tiles.shape:
        raise ValueError(
            f"tile_ids has shape {ids.shape} but tiles has {tiles.shape}; give one each"
        )
    if ids.dtype.itemsize <= 2:
        # Tile ids as make_layers gives them (uint16): checked and made
        # global ids in one compiled pass, as uint32, the layer's type.
        gids = np.empty(ids.size, dtype=np.uint32)
        matches = _gids_of_tiles(ids, tiles, kind.tiles_per_band, gids)
    else:
        gids = ids.ravel().astype(np.int64)
        matches = np.array_equal(gids.reshape(ids.shape) // kind.tiles_per_band, tiles)
        gids += 1
    if not matches:
        raise ValueError(
            f"tile_ids are not {kind.kind} tiles of the classes in tiles; "
            "make them with Tileset.tile_ids from the same tiles"
        )
    return gids


@kernel
def _gids_of_tiles(ids, tiles, per, gids):
    # gids = ids + 1, row-major; whether every id // per equals its class.
    rows, cols = ids.shape
    matches = True
    n = 0
    for r in range(rows):
        for c in range(cols):
            v = ids[r, c]
            if v // per != tiles[r, c]:
                matches = False
            gids[n] = v + 1
            n += 1
    return matches


def _wang_set(kind: Tileset, colours: np.ndarray, labels: list[str] | None) -> dict:
    """Tiled's wang set for a transition tileset: one colour per class."""
    per = kind.tiles_per_band
    names = labels if labels is not None else [f"class {i}" for i in range(len(colours))]
    return {
        "colors": [
            {
                "color": "#{:02x}{:02x}{:02x}".format(*(int(v) for v in colour)),
                "name": name,
                "probability": 1,
                "tile": c * per + per - 1,  # the plain tile: every neighbour the same
            }
            for c, (colour, name) in enumerate(zip(colours, names))
        ],
        "name": "bands",
        "tile": -1,
        "type": kind.wang_type,
        "wangtiles": [
            {"tileid": i, "wangid": wang.tolist()}
            for i, wang in enumerate(kind.wang_ids(len(colours)))
        ],
    }


def _tsx_bytes(tileset: dict) -> bytes:
    """The same tileset as a Tiled TSX file (XML), image beside it."""
    keys = ("name", "tilewidth", "tileheight", "spacing", "margin", "tilecount", "columns")
    root = ElementTree.Element(
        "tileset",
        {"version": TILED_VERSION, "tiledversion": TILED_RELEASE}
        | {key: str(tileset[key]) for key in keys},
    )
    properties = ElementTree.SubElement(root, "properties")
    for prop in tileset["properties"]:
        ElementTree.SubElement(
            properties, "property", {k: str(prop[k]) for k in ("name", "type", "value")}
        )
    ElementTree.SubElement(
        root,
        "image",
        {
            "source": tileset["image"],
            "width": str(tileset["imagewidth"]),
            "height": str(tileset["imageheight"]),
        },
    )
    wangsets = ElementTree.SubElement(root, "wangsets")
    for wang_set in tileset["wangsets"]:
        element = ElementTree.SubElement(
            wangsets,
            "wangset",
            {"name": wang_set["name"], "type": wang_set["type"], "tile": str(wang_set["tile"])},
        )
        for colour in wang_set["colors"]:
            ElementTree.SubElement(
                element,
                "wangcolor",
                {k: str(colour[k]) for k in ("name", "color", "tile", "probability")},
            )
        for tile in wang_set["wangtiles"]:
            ElementTree.SubElement(
                element,
                "wangtile",
                {"tileid": str(tile["tileid"]), "wangid": ",".join(map(str, tile["wangid"]))},
            )
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="UTF-8", xml_declaration=True) + b"\n"


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
    compression = layer.get("compression", "")
    if compression not in ("", "zlib", "gzip"):
        raise ValueError(
            f"{source}: tile layer compression {compression!r} is not supported; in Tiled, "
            "set the map's tile layer format to CSV, or base64 uncompressed, zlib or gzip"
        )
    try:
        raw = base64.b64decode(data, validate=True)
        if compression == "zlib":
            raw = zlib.decompress(raw)
        elif compression == "gzip":
            raw = gzip.decompress(raw)
        return np.frombuffer(raw, dtype="<u4").astype(np.int64)
    except (ValueError, zlib.error, OSError, EOFError) as exc:
        what = f"{compression}-compressed " if compression else ""
        raise ValueError(
            f"{source}: the tile layer's base64 {what}data is damaged ({exc}); save the map "
            "again from Tiled"
        ) from None


def _read_text(source: pathlib.Path, what: str) -> str:
    """A text file's contents, with an error naming the file if it is not
    UTF-8 text."""
    try:
        return source.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{source}: not a UTF-8 text file ({exc.reason}); expected {what}"
        ) from None


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
        Class ids: gid - 1, divided by the tileset's ``tiles per class``
        property when it has one (a transition tileset). Tiled's flip and
        rotation flags are ignored.

    Raises
    ------
    ValueError
        If the file is not such a map, or a cell is empty (gid 0).
    """
    source = pathlib.Path(path)
    try:
        document = json.loads(_read_text(source, "a Tiled JSON map"))
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
    return (gids.reshape(height, width) - 1) // _tiles_per_class(document, source)


def _tiles_per_class(document: dict, source: pathlib.Path) -> int:
    for tileset in document.get("tilesets", [])[:1]:
        for prop in tileset.get("properties", []) if isinstance(tileset, dict) else []:
            if isinstance(prop, dict) and prop.get("name") == TILES_PER_CLASS:
                value = prop.get("value")
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ValueError(f"{source}: {TILES_PER_CLASS!r} must be a positive integer")
                return value
    return 1
