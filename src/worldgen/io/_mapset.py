"""The default map set: everything a map config makes, written to a folder."""

from __future__ import annotations

import dataclasses
import math
import os
import pathlib
from collections.abc import Callable, Sequence

import numpy as np

from worldgen._memory import (
    MAP_BYTES_PER_CELL,
    MESH_BYTES_PER_VERTEX,
    TERRAIN_BYTES_PER_CELL,
    check_memory,
)
from worldgen.io._heightmap import FORMATS, write_array, write_heightmap, write_tiles
from worldgen.io._image import png_bytes, write_png_bytes, write_rgb_png
from worldgen.io._mesh import MESH_FORMATS, write_mesh
from worldgen.io._outset import output_set
from worldgen.io._raster import PYRAMID_SOURCE, TILEJSON
from worldgen.io._tilemap import write_tiled_json, write_tiles_csv
from worldgen.noise._validate import check_instance
from worldgen.products._carved import carve_window
from worldgen.products._classify import band_colours
from worldgen.products._maps import MapConfig, make_layers
from worldgen.products._pictures import map_pictures
from worldgen.products._shading import legend
from worldgen.products._terrain import TerrainConfig, terrain_surface
from worldgen.products._tileset import Tileset
from worldgen.terrain._erosion import MAX_DROPLETS_PER_CELL, MAX_THERMAL_PER_SIDE
from worldgen.world._window import Window

# The stages a map set goes through, for progress reports; a terrain set
# adds its own between "clean-up" and "pictures", and "mesh" at the end.
STAGES = ("noise", "shaping", "climate", "classes", "clean-up", "pictures", "files")
# The largest side of tilemap.png, in pixels (unless the map has more cells):
# a bigger map is drawn with smaller tiles.
PREVIEW_PIXELS = 2048
# The most files ``tile`` may cut the heights into (a 4096 x 4096 map in
# tiles of 32): each is written and synced on its own, about a minute for
# these, and a 512 x 512 map in tiles of 1 (262,144 files) ran for hours.
MAX_TILE_FILES = 16384
# Eroded or deposited height shown at full strength in erosion.png: about
# the 99th percentile with the default droplets.
EROSION_SHOWN = 0.04
# Cells of each band of rows erosion.png is made in (its temporaries those
# of a band, not of the picture).
_PICTURE_BAND_CELLS = 1 << 18
TERRAIN_STAGES = ("noise", "ridges", "erosion", "thermal", "rivers", *STAGES[2:], "mesh")
# File names of the extra height map formats: each its own, so that none
# overwrites the 16-bit ``height.png``.
HEIGHT_FILES = {
    "png16": "height.png",
    "png8": "height8.png",
    "raw16": "height.raw",
    "r16": "height.r16",
    "tiff": "height.tif",
    "npy": "height.npy",
}


def write_map_set(
    config: MapConfig,
    out: str | os.PathLike,
    *,
    window: Window | None = None,
    formats: Sequence[str] = (),
    tile: int | None = None,
    relief: float | None = None,
    blend: bool = False,
    progress: Callable[[str], None] | None = None,
    name: str = "out",
) -> list[pathlib.Path]:
    """Make a map and write its set of files into ``out``.

    Always written: ``height.png`` (16-bit greyscale heights), ``colour.png``
    (band colours with hillshading), ``normal.png`` (tangent-space normal
    map), ``biomes.png`` and ``biomes_legend.png``, ``tilemap.json`` (Tiled
    map editor, drawn with ``config.tileset``: ``tilemap_tileset.png``, and
    for a transition tileset its terrain set and ``tilemap_tileset.tsx``),
    ``tilemap.png`` (the whole tile map drawn with its tiles, smaller
    for maps of more than :data:`PREVIEW_PIXELS` / ``tile_size`` cells a
    side, see :func:`tilemap_picture`), ``tilemap.csv`` (the
    cleaned-up band classes), ``tiles.csv`` (each cell's tile in
    ``tilemap_tileset.png``, row-major: the ids ``tilemap.json`` draws, less
    one) and ``autotile.csv`` (each tile's 8-neighbour
    autotile bitmask, see :func:`~worldgen.terrain.autotile_masks`). ``formats`` adds height
    maps in more formats (see :data:`worldgen.io.FORMATS`), each under its
    own name (:data:`HEIGHT_FILES`: ``height8.png``, ``height.raw``,
    ``height.r16``, ``height.tif``, ``height.npy``); ``tile`` also writes
    the heights cut into ``tile`` x ``tile`` PNGs under ``tiles/`` (at
    most :data:`MAX_TILE_FILES` of them).

    The files are written aside and swapped in together, with the manifest
    ``worldgen-set.json`` last (see :func:`worldgen.io.output_set`): ``out``
    is checked before any work, and a run that fails, is interrupted or is
    killed never leaves a mix of two sets.

    Parameters
    ----------
    window : Window, optional
        The part of the map to make (default: the whole map).
    relief : float, optional
        How many cells high a height of 1.0 stands, for the shading
        (default: ``config.relief``; a world unit, so every window's
        pictures are crops of the whole map's, see
        :func:`~worldgen.terrain.map_pictures`).
    blend : bool
        Blend band colours instead of stepping them.
    progress : callable, optional
        Called with each stage name of :data:`STAGES` as it starts.
    name : str
        The parameter name errors use for ``out`` (the CLI: ``--out``).

    Returns
    -------
    list of pathlib.Path
        The files written, in order.
    """
    config = _check_options(config, formats, tile, relief)
    formats = _once(formats)
    _check_work(config, window=window, tile=tile)
    with output_set(out, command="map", about=_about(config), name=name) as files:
        _check_tiles_folder(files.out, tile)
        layers = make_layers(config, window, progress=progress)
        written = _write_layers(
            config, window, layers, files.staging, formats, tile, blend, progress
        )
    return files.final(written)


def _check_tiles_folder(out: pathlib.Path, tile: int | None) -> None:
    """Refuse, before any work, height tiles (``tile``) for a ``tiles/``
    that holds a z/x/y tile pyramid (``--export tiles``): the two would be
    mixed in one folder."""
    folder = out / "tiles"
    if tile is not None and any((folder / name).is_file() for name in (TILEJSON, PYRAMID_SOURCE)):
        raise FileExistsError(
            f"out: {folder} holds a z/x/y tile pyramid (--export tiles), which the height "
            "tiles (--tile) would be mixed with; leave --tile out, remove the pyramid, or "
            "choose another --out"
        )


def _about(config: MapConfig) -> str:
    t = config.terrain
    return f"{t.width}x{t.height}, seed {config.seed}"


_TOO_BIG = (
    "make a smaller map, or make the big one block by block with --export zarr "
    "(add --dask local to use every core; worldgen.scale.write_big_set in the library)"
)


def _check_work(
    config: MapConfig,
    terrain_config: TerrainConfig | None = None,
    *,
    window: Window | None = None,
    tile: int | None = None,
    meshes: Sequence[str] = (),
) -> None:
    """Refuse, before any work, requests that would not fit in memory (a
    terrain's with its heaviest mesh format of ``meshes``) or would run for
    hours (for ``window``, default the whole map), or cut the heights into
    more than :data:`MAX_TILE_FILES` tiles."""
    if window is not None:
        check_instance(window, "window", Window)
    window = config.window if window is None else window
    w, h = window.width, window.height
    if tile is not None and -(-w // tile) * -(-h // tile) > MAX_TILE_FILES:
        least = max(1, math.isqrt(w * h // MAX_TILE_FILES))
        while -(-w // least) * -(-h // least) > MAX_TILE_FILES:
            least += 1
        raise ValueError(
            f"tile {tile} cuts this {w} x {h} map into {-(-w // tile) * -(-h // tile):,} "
            f"files (at most {MAX_TILE_FILES:,}); use a tile of {least} or more"
        )
    parameter, request, way_out = "width, height", f"a {w} x {h} map set", _TOO_BIG
    if terrain_config is None:
        need = MAP_BYTES_PER_CELL * w * h
    else:
        # n thermal iterations carve the window grown by 2 n cells a side.
        grown = 4 * terrain_config.thermal
        need = TERRAIN_BYTES_PER_CELL * (w + grown) * (h + grown)
        request = f"a {w} x {h} terrain set"
        if grown:
            parameter = "width, height, thermal"
            request += (
                f" with {terrain_config.thermal:,} thermal iterations (which carve "
                f"{grown // 2:,} more cells on each side)"
            )
            way_out = "use fewer thermal iterations (tens to hundreds are usual), or a smaller map"
        heaviest = max(meshes, key=MESH_BYTES_PER_VERTEX.__getitem__, default="glb")
        stride = terrain_config.stride
        mesh_need = MESH_BYTES_PER_VERTEX[heaviest] * -(-w // stride) * -(-h // stride)
        if mesh_need:
            parameter += ", mesh"
            article = "an" if heaviest in ("obj", "stl") else "a"
            request += f"{' and' if grown else ' with'} {article} {heaviest.upper()} mesh"
            if mesh_need > need:
                way_out = (
                    "write the mesh as glb or obj (made a band of rows at a time), keep "
                    "every n-th sample with --stride n, or make a smaller map"
                )
            need += mesh_need
        for name, side in (("width", w), ("height", h)):
            if side < 2:
                raise ValueError(
                    f"{name} must be at least 2 cells for a terrain (erosion moves between "
                    f"cells and the mesh needs two samples each way), got {side}"
                )
        # Droplets are spread over the map (a window erodes at the map's density).
        mw, mh = config.terrain.width, config.terrain.height
        most = MAX_DROPLETS_PER_CELL * mw * mh
        if terrain_config.droplets is not None and terrain_config.droplets > most:
            raise ValueError(
                f"droplets must be at most {MAX_DROPLETS_PER_CELL} per map cell ({most:,} for "
                f"this {mw} x {mh} map), got {terrain_config.droplets:,}; the default is one per "
                "four cells, and more than a few per cell only deepens the same valleys"
            )
        most = MAX_THERMAL_PER_SIDE * (w + h)
        if terrain_config.thermal > most:
            raise ValueError(
                f"thermal must be at most {MAX_THERMAL_PER_SIDE} x (width + height) = {most:,} "
                f"iterations for this {w} x {h} map, got {terrain_config.thermal:,}; slopes "
                "settle long before that (tens to hundreds of iterations are usual)"
            )
    check_memory(need, parameter, request, way_out)


def _check_options(config: MapConfig, formats, tile, relief) -> MapConfig:
    """Validate before any work, so that bad options write nothing; the
    config with ``relief``, if given."""
    check_instance(config, "config", MapConfig)
    for fmt in _names(formats, "formats"):
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if tile is not None and (isinstance(tile, bool) or not isinstance(tile, int) or tile < 1):
        raise ValueError(f"tile must be a positive integer, got {tile!r}")
    if tile is not None and tile > 2**20:  # as write_tiles takes it, after the work
        raise ValueError(f"tile must be a positive integer up to {2**20}, got {tile!r}")
    return config if relief is None else dataclasses.replace(config, relief=relief)


def _names(values: object, name: str) -> list[object]:
    """``values`` as a list, if it is a list or tuple (a lone string is refused)."""
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{name} must be a list of format names, got {values!r}")
    return list(values)


def _once(names: Sequence[str]) -> list[str]:
    """Checked format names, each once (a name given twice writes its file once)."""
    return list(dict.fromkeys(names))


def _write_layers(
    config, window, layers, out, formats, tile, blend, progress, heights=None, height_files=None
) -> list[pathlib.Path]:
    # ``heights``: unit heights of the window and a PICTURE_HALO around it
    # for the pictures, ``height_files``: for height.png and the exports, if
    # not the map's own (a terrain set's pictures show the carved heights,
    # its height files the map's).
    out = pathlib.Path(out)
    if progress is not None:
        progress("pictures")
    pictures = map_pictures(config, window, layers=layers, blend=blend, heights=heights)
    if height_files is None:
        height_files = pictures.height
    key = legend(config.biome_names, [tuple(c) for c in config.biome_palette()])
    if progress is not None:
        progress("files")
    written = [
        write_heightmap(out / "height.png", height_files, "png16"),
        write_rgb_png(out / "colour.png", pictures.colour),
        write_rgb_png(out / "normal.png", pictures.normal),
        write_rgb_png(out / "biomes.png", pictures.biomes),
        write_rgb_png(out / "biomes_legend.png", key),
    ]
    written += _write_tilemap(config, layers, out)
    written.append(write_tiles_csv(out / "tilemap.csv", layers.tiles))
    written.append(write_tiles_csv(out / "tiles.csv", layers.tile_ids))
    written.append(write_tiles_csv(out / "autotile.csv", layers.autotile))
    for fmt in formats:
        if fmt != "png16":
            written.append(write_heightmap(out / HEIGHT_FILES[fmt], height_files, fmt))
    if "npy" in formats:
        written.append(write_array(out / "water.npy", layers.water))
    if tile is not None:
        written += write_tiles(out / "tiles", "height", height_files, tile)
    return written


def _write_tilemap(config: MapConfig, layers, out: pathlib.Path) -> list[pathlib.Path]:
    """tilemap.json with its tileset (and TSX), and tilemap.png."""
    tileset = config.tileset
    names = [b.name for b in config.bands]
    colours = band_colours(config.bands)
    flat = tileset.kind == "flat"
    tiled = write_tiled_json(
        out / "tilemap.json", layers.tiles, colours=colours, names=names,
        tile_size=tileset.tile_size, encoding="base64", tileset=tileset.kind,
        tile_ids=None if flat else layers.tile_ids,
    )  # fmt: skip
    written = [tiled, tiled.with_name(f"{tiled.stem}_tileset.png")]
    if not flat:
        written.append(tiled.with_name(f"{tiled.stem}_tileset.tsx"))
    written.append(write_rgb_png(out / "tilemap.png", tilemap_picture(tileset, colours, layers)))
    return written


def tilemap_picture(tileset: Tileset, colours: np.ndarray, layers) -> np.ndarray:
    """The whole tile map drawn with its tiles, at most
    :data:`PREVIEW_PIXELS` a side: at ``tile_size`` pixels a cell if that
    fits, else with the same tiles drawn smaller (down to 4 pixels), else
    each cell a square of its tile's mean colour (1 to 3 pixels), else one
    pixel for every ``k``-th cell of every ``k``-th row."""
    ids = layers.tile_ids
    side = max(ids.shape)
    size = min(tileset.tile_size, max(1, PREVIEW_PIXELS // side))
    small = dataclasses.replace(tileset, tile_size=max(size, 4))
    image = small.draw(colours)
    if size >= 4:
        return small.render(ids, image)
    n = small.tile_size
    rows, cols = image.shape[0] // n, image.shape[1] // n
    means = image.reshape(rows, n, cols, n, 3).mean(axis=(1, 3)).reshape(rows * cols, 3)
    means = np.rint(means).astype(np.uint8)
    step = -(-side // PREVIEW_PIXELS)  # > 1 only past PREVIEW_PIXELS cells a side
    # Each tile's colour as one 3-byte item: np.take copies whole items, a
    # few times faster than indexing the (N, 3) rows.
    items = np.ascontiguousarray(means).view("V3").ravel()
    picked = ids[::step, ::step]
    cells = np.take(items, picked).view(np.uint8).reshape(*picked.shape, 3)
    if size == 1:
        return cells
    return np.repeat(np.repeat(cells, size, axis=0), size, axis=1)


def write_terrain_set(
    config: MapConfig,
    terrain_config: TerrainConfig,
    out: str | os.PathLike,
    *,
    formats: Sequence[str] = (),
    meshes: Sequence[str] = ("glb",),
    tile: int | None = None,
    relief: float | None = None,
    blend: bool = False,
    window: Window | None = None,
    progress: Callable[..., None] | None = None,
    name: str = "out",
) -> list[pathlib.Path]:
    """Make a map, carve it (:func:`~worldgen.terrain.make_terrain`) and
    write the map set (see :func:`write_map_set`) and the terrain's files.

    ``window`` (default: the whole map) carves and writes those cells only;
    every file then equals the same crop of a bigger window's. The map
    set's pictures, biomes and tile maps are made from the carved heights,
    its height files (``height.png``, ``height.<fmt>``) from the map's.

    Terrain files: ``eroded.png`` (16-bit heights after erosion) and
    ``eroded.<fmt>`` for each of ``formats`` (e.g. ``eroded.npy``, float32),
    ``terrain.png`` (shaded colour map of the eroded heights, rivers and
    lakes drawn), ``erosion.png`` (red where material was eroded, blue where
    it was deposited) and ``terrain.<fmt>`` for each of ``meshes``
    (``glb``, ``obj``, ``ply``, ``stl``), textured with ``terrain.png``.
    """
    config = _check_options(config, formats, tile, relief)
    check_instance(terrain_config, "terrain_config", TerrainConfig)
    for fmt in _names(meshes, "meshes"):
        if fmt not in MESH_FORMATS:
            raise ValueError(f"mesh format must be one of {', '.join(MESH_FORMATS)}, got {fmt!r}")
    formats, meshes = _once(formats), _once(meshes)
    _check_work(config, terrain_config, window=window, tile=tile, meshes=meshes)
    window = config.window if window is None else window
    with output_set(out, command="terrain", about=_about(config), name=name) as files:
        _check_tiles_folder(files.out, tile)
        written = _write_terrain(
            config, terrain_config, files.staging, formats, meshes, tile, blend, window, progress
        )
    return files.final(written)


def _write_terrain(
    config, terrain_config, out, formats, meshes, tile, blend, window, progress
) -> list[pathlib.Path]:
    made = carve_window(
        config, terrain_config, window, blend=blend, progress=progress, shared=False
    )
    # Only what the files need is kept, each freed once written; the
    # erosion's arrays (three of float64) only as their picture.
    terrain = dataclasses.replace(made.terrain, rivers=None, erosion=None)
    colour, carved, pictured, height = made.colour, made.carved, made.pictured, made.height
    erosion = None if made.terrain.erosion is None else _erosion_picture(made.terrain.erosion)
    del made
    written = _write_layers(
        config, window, carved, out, formats, tile, blend, progress,
        heights=pictured, height_files=height,
    )  # fmt: skip
    del carved, pictured, height
    written.append(write_heightmap(out / "eroded.png", terrain.heights, "png16"))
    for fmt in formats:
        if fmt != "png16":
            name = HEIGHT_FILES[fmt].replace("height", "eroded")
            written.append(write_heightmap(out / name, terrain.heights, fmt))
    # terrain.png is also the meshes' texture: encoded once.
    texture = png_bytes(colour)
    written.append(write_png_bytes(out / "terrain.png", texture))
    if erosion is not None:
        written.append(write_rgb_png(out / "erosion.png", erosion))
        del erosion
    if progress is not None:
        progress("mesh")
    mesh = terrain_surface(terrain, terrain_config)
    for fmt in meshes:
        written += write_mesh(out / f"terrain.{fmt}", mesh, texture=colour, texture_png=texture)
    return written


def _erosion_picture(result) -> np.ndarray:
    """Eroded material in red, deposited in blue, each at full strength from
    ``EROSION_SHOWN`` (a constant, so that a window's picture is the crop of
    a bigger one's)."""
    rgb = np.zeros((*result.eroded.shape, 3), dtype=np.uint8)
    rows = max(1, _PICTURE_BAND_CELLS // max(1, rgb.shape[1]))
    for top in range(0, rgb.shape[0], rows):
        band = slice(top, top + rows)
        for channel, amount in ((0, result.eroded), (2, result.deposited)):
            # rint(clip(amount / EROSION_SHOWN, 0, 1) * 255), in one
            # temporary of a band of rows
            shown = amount[band] / EROSION_SHOWN
            np.clip(shown, 0.0, 1.0, out=shown)
            shown *= 255
            rgb[band, :, channel] = np.rint(shown, out=shown)
    return rgb
