"""The default map set: everything a map config makes, written to a folder."""

from __future__ import annotations

import dataclasses
import os
import pathlib
from collections.abc import Callable, Sequence

import numpy as np

from worldgen.io._heightmap import FORMATS, write_heightmap, write_tiles
from worldgen.io._image import write_rgb_png
from worldgen.io._mesh import MESH_FORMATS, write_mesh
from worldgen.io._tilemap import write_tiled_json, write_tiles_csv
from worldgen.terrain._classify import band_colours
from worldgen.terrain._maps import MapConfig, make_layers
from worldgen.terrain._pictures import PICTURE_HALO, map_pictures, shaded_colour
from worldgen.terrain._rivers import MAX_RIVER_RADIUS, draw_rivers
from worldgen.terrain._shading import legend
from worldgen.terrain._terrain import TerrainConfig, make_terrain, terrain_mesh
from worldgen.terrain._tilemap import autotile_masks
from worldgen.terrain._window import Window
from worldgen.terrain._windowed import crop_index

# The stages a map set goes through, for progress reports; a terrain set
# adds its own between "clean-up" and "pictures", and "mesh" at the end.
STAGES = ("noise", "shaping", "climate", "classes", "clean-up", "pictures", "files")
# Eroded or deposited height shown at full strength in erosion.png: about
# the 99th percentile with the default droplets.
EROSION_SHOWN = 0.04
TERRAIN_STAGES = (*STAGES[:5], "ridges", "erosion", "thermal", "rivers", *STAGES[5:], "mesh")


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
) -> list[pathlib.Path]:
    """Make a map and write its set of files into ``out``.

    Always written: ``height.png`` (16-bit greyscale heights), ``colour.png``
    (band colours with hillshading), ``normal.png`` (tangent-space normal
    map), ``biomes.png`` and ``biomes_legend.png``, ``tilemap.json`` (Tiled
    map editor, with ``tilemap_tileset.png``), ``tilemap.csv`` (the
    cleaned-up band classes) and ``autotile.csv`` (each tile's 8-neighbour
    autotile bitmask, see :func:`~worldgen.terrain.autotile_masks`). ``formats`` adds height
    maps in more formats (see :data:`worldgen.io.FORMATS`); ``tile`` also
    writes the heights cut into ``tile`` x ``tile`` PNGs under ``tiles/``.

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

    Returns
    -------
    list of pathlib.Path
        The files written, in order.
    """
    config = _check_options(config, formats, tile, relief)
    layers = make_layers(config, window, progress=progress)
    return _write_layers(config, window, layers, out, formats, tile, blend, progress)


def _check_options(config: MapConfig, formats, tile, relief) -> MapConfig:
    """Validate before any work, so that bad options write nothing; the
    config with ``relief``, if given."""
    for fmt in formats:
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if tile is not None and (isinstance(tile, bool) or not isinstance(tile, int) or tile < 1):
        raise ValueError(f"tile must be a positive integer, got {tile!r}")
    return config if relief is None else dataclasses.replace(config, relief=relief)


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
    key = legend(config.biomes.names, [tuple(c) for c in config.biomes.palette()])
    if progress is not None:
        progress("files")
    written = [
        write_heightmap(out / "height.png", height_files, "png16"),
        write_rgb_png(out / "colour.png", pictures.colour),
        write_rgb_png(out / "normal.png", pictures.normal),
        write_rgb_png(out / "biomes.png", pictures.biomes),
        write_rgb_png(out / "biomes_legend.png", key),
    ]
    names = [b.name for b in config.bands]
    colours = [tuple(int(v) for v in c) for c in band_colours(config.bands)]
    tiled = write_tiled_json(
        out / "tilemap.json", layers.tiles, colours=colours, names=names, encoding="base64"
    )
    written += [tiled, tiled.with_name(f"{tiled.stem}_tileset.png")]
    written.append(write_tiles_csv(out / "tilemap.csv", layers.tiles))
    written.append(
        write_tiles_csv(out / "autotile.csv", autotile_masks(layers.tiles, connectivity=8))
    )
    for fmt in formats:
        if fmt != "png16":
            written.append(write_heightmap(out / "height", height_files, fmt))
    if tile is not None:
        written += write_tiles(out / "tiles", "height", height_files, tile)
    return written


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
) -> list[pathlib.Path]:
    """Make a map, carve it (:func:`~worldgen.terrain.make_terrain`) and
    write the map set (see :func:`write_map_set`) and the terrain's files.

    ``window`` (default: the whole map) carves and writes those cells only;
    every file then equals the same crop of a bigger window's. The map
    set's pictures, biomes and tile maps are made from the carved heights,
    its height files (``height.png``, ``height.<fmt>``) from the map's.

    Terrain files: ``eroded.png`` (16-bit heights after erosion) and
    ``eroded.<fmt>`` for each of ``formats`` (e.g. ``eroded.npy``, float64),
    ``terrain.png`` (shaded colour map of the eroded heights, rivers and
    lakes drawn), ``erosion.png`` (red where material was eroded, blue where
    it was deposited) and ``terrain.<fmt>`` for each of ``meshes``
    (``glb``, ``obj``, ``ply``, ``stl``), textured with ``terrain.png``.
    """
    config = _check_options(config, formats, tile, relief)
    for fmt in meshes:
        if fmt not in MESH_FORMATS:
            raise ValueError(f"mesh format must be one of {', '.join(MESH_FORMATS)}, got {fmt!r}")
    out = pathlib.Path(out)
    window = config.terrain.window if window is None else window
    # Rivers paint up to MAX_RIVER_RADIUS cells around them and slopes reach
    # PICTURE_HALO: carve that much more and crop, so that every picture
    # equals the crop of a bigger window's (a 'local' map is whole anyway).
    local = config.terrain.normalize == "local"
    halo = 0 if local else MAX_RIVER_RADIUS + PICTURE_HALO
    grown = make_terrain(config, terrain_config, window=window.grown(halo), progress=progress)
    painted = window if local else window.grown(MAX_RIVER_RADIUS)
    colour = shaded_colour(config, grown.heights, blend=blend, halo=0 if local else PICTURE_HALO)
    if grown.rivers is not None:
        colour = draw_rivers(colour, grown.crop(painted).rivers)
    colour = colour[crop_index(window, painted)]
    terrain = grown.crop(window)
    if local:
        pictured = np.pad(terrain.heights, PICTURE_HALO, mode="edge")
    else:
        pictured = grown.crop(window.grown(PICTURE_HALO)).heights
    written = _write_layers(
        config, window, terrain.carved, out, formats, tile, blend, progress,
        heights=pictured, height_files=config.unit_elevation(terrain.layers.elevation),
    )  # fmt: skip
    written.append(write_heightmap(out / "eroded.png", terrain.heights, "png16"))
    for fmt in formats:
        if fmt != "png16":
            written.append(write_heightmap(out / "eroded", terrain.heights, fmt))
    written.append(write_rgb_png(out / "terrain.png", colour))
    if terrain.erosion is not None:
        written.append(write_rgb_png(out / "erosion.png", _erosion_picture(terrain.erosion)))
    if progress is not None:
        progress("mesh")
    mesh = terrain_mesh(terrain, terrain_config)
    for fmt in meshes:
        written += write_mesh(out / f"terrain.{fmt}", mesh, texture=colour)
    return written


def _erosion_picture(result) -> np.ndarray:
    """Eroded material in red, deposited in blue, each at full strength from
    ``EROSION_SHOWN`` (a constant, so that a window's picture is the crop of
    a bigger one's)."""
    rgb = np.zeros((*result.eroded.shape, 3), dtype=np.uint8)
    rgb[..., 0] = np.rint(np.clip(result.eroded / EROSION_SHOWN, 0.0, 1.0) * 255)
    rgb[..., 2] = np.rint(np.clip(result.deposited / EROSION_SHOWN, 0.0, 1.0) * 255)
    return rgb
