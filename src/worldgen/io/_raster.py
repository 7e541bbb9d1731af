"""Big rasters, streamed block by block: a Cloud-Optimized GeoTIFF of heights
and a z/x/y tile pyramid of a colour map.

Both writers read their *source* a block at a time: any object with
``.shape`` and numpy-style slicing ``source[y0:y1, x0:x1]`` (a numpy array,
a memmap, a zarr array), so a map far larger than memory is written with a
few blocks in memory.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import re
import warnings
from collections.abc import Callable

import numpy as np
from PIL import Image

from worldgen.io._atomic import atomic_output
from worldgen.io._image import png_bytes
from worldgen.noise._validate import check_int


def _shape(source: object, name: str, dims: int) -> tuple[int, ...]:
    shape = getattr(source, "shape", None)
    if shape is None or not hasattr(source, "__getitem__"):
        raise TypeError(
            f"{name} must be an array-like with .shape and slicing (numpy, zarr), "
            f"got {type(source).__name__}"
        )
    shape = tuple(int(n) for n in shape)
    if len(shape) != dims or 0 in shape:
        raise ValueError(f"{name} must be a non-empty {dims}-D array, got shape {shape}")
    return shape


def _directory_of(path: pathlib.Path, name: str) -> None:
    if not path.parent.is_dir():
        raise FileNotFoundError(f"{name}: the folder {path.parent} does not exist; make it first")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise PermissionError(f"{name}: cannot write into {path.parent}; choose another folder")


def write_cog(
    path: str | os.PathLike,
    source,
    *,
    block: int = 512,
    origin: tuple[int, int] = (0, 0),
    step: int = 1,
    cell_size: float = 1.0,
    metadata: dict[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pathlib.Path:
    """Write a height raster as a Cloud-Optimized GeoTIFF, block by block.

    Parameters
    ----------
    path : path-like
        The ``.tif`` to write; it appears atomically, whole.
    source : array-like, shape (H, W)
        Finite heights (numpy, zarr...), read ``block`` rows at a time
        (of a chunked source, whole chunks across).
    block : int
        Tile size of the GeoTIFF and of the reads, 128 to 4096, a multiple
        of 16 (GDAL's COG driver takes no smaller tiles).
    origin : (int, int)
        World cell ``(x, y)`` of the raster's top-left cell.
    step : int
        World cells a raster cell stands for across (a window's step, a
        level of detail's ``2**level``).
    cell_size : float
        Size of a cell in the geotransform's units.
    metadata : dict of str, optional
        Tags stored in the file (GDAL metadata), e.g. the config.
    progress : callable, optional
        ``progress(done, total)`` after each row of blocks.

    Returns
    -------
    pathlib.Path

    Notes
    -----
    float32, deflate with the floating-point predictor, tiles of ``block``
    cells and internal overviews (halving down to one tile), laid out by
    GDAL's COG driver (rasterio), so GDAL, QGIS and rasterio read it, and
    range requests read only the tiles they need. The geotransform puts the
    top-left corner at ``(x * cell_size, -y * cell_size)``, raster cells
    ``step * cell_size`` apart, with the y axis pointing down the map; there
    is no CRS (world cells are not on the Earth). A temporary tiled GeoTIFF
    beside it is written first, a block at a time, then converted with
    GDAL's cache bounded to 256 MB.
    """
    import rasterio
    import rasterio.errors
    import rasterio.shutil
    from rasterio._err import CPLE_BaseError
    from rasterio.transform import from_origin
    from rasterio.windows import Window as RasterWindow

    path = pathlib.Path(path)
    height, width = _shape(source, "source", 2)
    dtype = np.dtype(getattr(source, "dtype", np.float64))
    if dtype.kind not in "biuf":
        raise TypeError(f"source must hold real numbers, got dtype {dtype}; use .astype(float)")
    block = check_int(block, "block", 128, 4096)
    if block % 16:
        raise ValueError(f"block must be a multiple of 16, got {block}")
    if not (isinstance(origin, (tuple, list)) and len(origin) == 2):
        raise TypeError(f"origin must be a pair of integers (x, y), got {origin!r}")
    x0, y0 = (check_int(v, "origin", -(2**40), 2**40) for v in origin)
    step = check_int(step, "step", 1, 2**30)
    if not (isinstance(cell_size, (int, float)) and math.isfinite(cell_size) and cell_size > 0):
        raise ValueError(f"cell_size must be a positive finite number, got {cell_size!r}")
    if metadata is not None and not isinstance(metadata, dict):
        raise TypeError(f"metadata must be a dict of tags, got {metadata!r}")
    tags = {str(k): str(v) for k, v in (metadata or {}).items()}
    _directory_of(path, "path")
    rows = range(0, height, block)
    # A chunked source (zarr) decodes a whole chunk for any part of it: read
    # chunks wider than a tile whole (whole tiles of them), once a band.
    chunks = getattr(source, "chunks", None)
    span = block
    if isinstance(chunks, tuple) and len(chunks) == 2 and isinstance(chunks[1], int):
        span = -(-min(max(chunks[1], block), width) // block) * block
    with atomic_output(path) as tmp, warnings.catch_warnings():
        # World cells are not on the Earth: no CRS, and at origin (0, 0) with
        # cells of 1 the geotransform is the (flipped) identity.
        warnings.simplefilter("ignore", rasterio.errors.NotGeoreferencedWarning)
        warnings.simplefilter("ignore", PendingDeprecationWarning)  # rasterio's own affine use
        staged = tmp.with_name(tmp.name + ".tiled.tif")
        try:
            with rasterio.Env(GDAL_CACHEMAX=256):
                profile = {
                    "driver": "GTiff", "height": height, "width": width, "count": 1,
                    "dtype": "float32", "tiled": True, "blockxsize": block,
                    "blockysize": block, "compress": "deflate", "predictor": 3,
                    "BIGTIFF": "IF_SAFER",
                    "transform": from_origin(
                        x0 * cell_size, -y0 * cell_size, step * cell_size, step * cell_size
                    ),
                }  # fmt: skip
                with rasterio.open(staged, "w", **profile) as dst:
                    for done, y in enumerate(rows):
                        for x in range(0, width, span):
                            part = np.asarray(source[y : y + block, x : x + span], np.float32)
                            if not np.isfinite(part).all():
                                raise ValueError(
                                    f"source must be finite; a non-finite value lies in rows "
                                    f"{y}-{y + part.shape[0] - 1}"
                                )
                            window = RasterWindow(x, y, part.shape[1], part.shape[0])
                            dst.write(part, 1, window=window)
                        if progress is not None:
                            progress(done + 1, len(rows))
                    dst.update_tags(**tags)
                rasterio.shutil.copy(
                    staged, tmp, driver="COG", COMPRESS="DEFLATE", PREDICTOR="YES",
                    BLOCKSIZE=block, OVERVIEWS="AUTO", BIGTIFF="IF_SAFER",
                )  # fmt: skip
        except (rasterio.errors.RasterioIOError, CPLE_BaseError) as exc:
            # A full disk: 'Write failed', or libtiff's 'Write error at
            # scanline 128', 'IO error writing tag data'... GDAL removes the
            # COG it could not finish: it needs about twice the staged
            # file's size (its overviews are written aside first).
            done = staged.stat().st_size if staged.exists() else 0
            raise _no_room(exc, path, 2 * block * block * 4 + 2 * done) from None
        finally:
            staged.unlink(missing_ok=True)
    return path


def _no_room(exc: OSError, path: pathlib.Path, room: int) -> OSError:
    """GDAL's write error (it says only 'Write failed' or passes on
    libtiff's; libtiff printed the cause) as ENOSPC naming the folder when
    less than ``room`` bytes are free there; else ``exc`` itself."""
    import errno
    import shutil

    free = shutil.disk_usage(path.parent).free
    if free >= room:
        return exc
    clear = OSError(errno.ENOSPC, f"No space left on device ({free} bytes free)")
    clear.filename = str(path)
    return clear


TILEJSON = "tiles.json"
PYRAMID_SOURCE = ".worldgen-source.json"
"""In a pyramid's folder: which store its tiles were cut from, written
(by :func:`worldgen.scale.write_big_set`) before the first tile, so that a
rerun keeps only tiles of the same map."""


def pyramid_files(directory: pathlib.Path) -> list[pathlib.Path]:
    """The files of the tile pyramid in ``directory`` (``{z}/{x}/{y}.png``,
    ``tiles.json``, ``.worldgen-source.json``), none of any other file."""
    own = {TILEJSON, PYRAMID_SOURCE}
    return [
        p
        for p in sorted(directory.rglob("*"))
        if p.is_file()
        and (
            p.relative_to(directory).as_posix() in own
            or re.fullmatch(r"\d+/\d+/\d+\.png", p.relative_to(directory).as_posix())
        )
    ]


def write_tile_pyramid(
    directory: str | os.PathLike,
    source,
    *,
    tile: int = 256,
    name: str = "worldgen",
    progress: Callable[[int, int], None] | None = None,
) -> pathlib.Path:
    """Write a z/x/y pyramid of PNG tiles of a colour map, and its TileJSON.

    Parameters
    ----------
    directory : path-like
        Where ``{z}/{x}/{y}.png`` and ``tiles.json`` go (made if missing).
    source : array-like of uint8, shape (H, W, 3)
        The colour map, read a tile at a time.
    tile : int
        Tile size in pixels, 64 to 1024, a power of two.
    name : str
        The name in the TileJSON.
    progress : callable, optional
        ``progress(done, total)`` after each tile.

    Returns
    -------
    pathlib.Path
        The TileJSON (3.0.0) file; MapLibre and other web maps show the
        pyramid from it (served over HTTP).

    Notes
    -----
    The deepest zoom ``Z`` (the smallest with ``tile * 2**Z`` at least the
    map's larger side) is one pixel per cell, the map at the top-left of
    tile (0, 0); outside the map tiles are transparent (RGBA). Each lower
    zoom is made from its four children read back from disk, by the mean
    of every 2 x 2 pixels (each of R, G, B, A, rounded half up; transparent
    pixels are black, so edge pixels darken by the share of map they
    lack). Every tile is written atomically and a tile already on disk is
    kept, so a rerun after a crash or Ctrl-C writes only the missing tiles
    (and their missing parents) and ends with the same bytes;
    ``tiles.json`` is written last. Memory: a few tiles.
    """
    directory = pathlib.Path(directory)
    height, width, bands = _shape(source, "source", 3)
    dtype = np.dtype(getattr(source, "dtype", np.uint8))
    if bands != 3 or dtype != np.uint8:
        raise ValueError(
            f"source must be uint8 RGB (H, W, 3), got {dtype} {(height, width, bands)}"
        )
    tile = check_int(tile, "tile", 64, 1024)
    if tile & (tile - 1):
        raise ValueError(f"tile must be a power of two, got {tile}")
    top = max(0, math.ceil(math.log2(max(height, width) / tile)))
    counts = [
        (math.ceil(width / (tile << (top - z))), math.ceil(height / (tile << (top - z))))
        for z in range(top + 1)
    ]
    total = sum(nx * ny for nx, ny in counts)
    done = 0
    directory.mkdir(parents=True, exist_ok=True)
    # The deepest tiles a row at a time, as many across as a chunk of a
    # chunked source (zarr) holds: it decodes a whole chunk for any part.
    chunks = getattr(source, "chunks", None)
    across = 1
    if isinstance(chunks, tuple) and len(chunks) == 3 and isinstance(chunks[1], int):
        across = max(1, chunks[1] // tile)
    nx, ny = counts[top]
    for y in range(ny):
        for x0 in range(0, nx, across):
            run = range(x0, min(nx, x0 + across))
            targets = [directory / str(top) / str(x) / f"{y}.png" for x in run]
            if not all(target.exists() for target in targets):
                part = source[y * tile : (y + 1) * tile, x0 * tile : (run[-1] + 1) * tile]
                part = np.asarray(part, np.uint8)
            for x, target in zip(run, targets, strict=True):
                if not target.exists():
                    _write_png(target, _deepest(part, (x - x0) * tile, tile))
                done += 1
                if progress is not None:
                    progress(done, total)
    for z in range(top - 1, -1, -1):
        nx, ny = counts[z]
        for x in range(nx):
            for y in range(ny):
                target = directory / str(z) / str(x) / f"{y}.png"
                if not target.exists():
                    _write_png(target, _parent(directory, z + 1, x, y, tile, counts[z + 1]))
                done += 1
                if progress is not None:
                    progress(done, total)
    about = {
        "tilejson": "3.0.0",
        "name": str(name),
        "tiles": ["{z}/{x}/{y}.png"],
        "minzoom": 0,
        "maxzoom": top,
        "tileSize": tile,
        "bounds": _bounds(width / (tile << top), height / (tile << top)),
        "worldgen": {"width": width, "height": height, "tile": tile},
    }
    with atomic_output(directory / TILEJSON) as tmp:
        tmp.write_text(json.dumps(about, indent=1), encoding="utf-8")
    return directory / TILEJSON


def _deepest(row: np.ndarray, x: int, tile: int) -> np.ndarray:
    """The deepest tile whose left column is column ``x`` of ``row``, a
    row of the map's tiles."""
    rgba = np.zeros((tile, tile, 4), np.uint8)
    part = row[:, x : x + tile]
    rgba[: part.shape[0], : part.shape[1], :3] = part
    rgba[: part.shape[0], : part.shape[1], 3] = 255
    return rgba


def _parent(directory, z: int, x: int, y: int, tile: int, count) -> np.ndarray:
    """Tile (x, y) of zoom z - 1, from its four children at zoom z."""
    full = np.zeros((2 * tile, 2 * tile, 4), np.uint16)
    for dx in range(2):
        for dy in range(2):
            cx, cy = 2 * x + dx, 2 * y + dy
            if cx < count[0] and cy < count[1]:
                with Image.open(directory / str(z) / str(cx) / f"{cy}.png") as child:
                    full[dy * tile : (dy + 1) * tile, dx * tile : (dx + 1) * tile] = np.asarray(
                        child.convert("RGBA")
                    )
    total = full[0::2, 0::2] + full[1::2, 0::2] + full[0::2, 1::2] + full[1::2, 1::2]
    return ((total + 2) // 4).astype(np.uint8)


def _write_png(target: pathlib.Path, rgba: np.ndarray) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(target) as tmp:
        tmp.write_bytes(png_bytes(rgba))


def _bounds(fx: float, fy: float) -> list[float]:
    """[west, south, east, north] in degrees of the top-left ``fx`` x ``fy``
    share of the Web Mercator square, where the tiles hold the map."""

    def lat(f: float) -> float:
        return math.degrees(math.atan(math.sinh(math.pi * (1.0 - 2.0 * f))))

    return [-180.0, round(lat(min(fy, 1.0)), 6), round(-180.0 + 360.0 * min(fx, 1.0), 6), lat(0.0)]
