"""The default map set: everything a map config makes, written to a folder."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Sequence

import numpy as np

from worldgen.io._heightmap import FORMATS, write_heightmap, write_tiles
from worldgen.io._image import write_rgb_png
from worldgen.io._tilemap import write_tiled_json, write_tiles_csv
from worldgen.terrain._classify import band_colours
from worldgen.terrain._maps import MapConfig, MapLayers, make_layers
from worldgen.terrain._shading import apply_shade, colour_ramp, hillshade, legend, normal_map
from worldgen.terrain._tilemap import autotile_masks

# The stages a map set goes through, for progress reports.
STAGES = ("noise", "shaping", "climate", "classes", "clean-up", "pictures", "files")


def unit_heights(config: MapConfig, layers: MapLayers) -> np.ndarray:
    """Heights in [0, 1] for export: as made, or for ``normalize='none'``
    mapped from the fractal's documented bounds."""
    h = layers.elevation
    if config.terrain.normalize != "none":
        return h
    lo, hi = config.terrain.fractal.bounds(2)
    return np.clip((h - lo) / (hi - lo), 0.0, 1.0)


def shaded_colour_map(
    config: MapConfig, heights: np.ndarray, *, relief: float, blend: bool = False
) -> np.ndarray:
    """Band colours (stepped, or blended between band tops) with hillshading;
    water is shaded as a level surface at the top of the water bands."""
    stops = [(b.top, b.colour) for b in config.bands]
    rgb = colour_ramp(heights, stops, blend=blend)
    return apply_shade(rgb, _relief_shade(config, heights, relief), strength=0.6)


def _relief_shade(config: MapConfig, heights: np.ndarray, relief: float) -> np.ndarray:
    # Water is lit as a level surface at the top of the water bands.
    water = config.water_classes
    level = config.bands[max(water)].top if water else 0.0
    return hillshade(np.maximum(heights, level), exaggeration=relief)


def write_map_set(
    config: MapConfig,
    out: str | os.PathLike,
    *,
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
    relief : float, optional
        How many pixels high a height of 1.0 stands, for the shading
        (default: a quarter of the map's larger side).
    blend : bool
        Blend band colours instead of stepping them.
    progress : callable, optional
        Called with each stage name of :data:`STAGES` as it starts.

    Returns
    -------
    list of pathlib.Path
        The files written, in order.
    """
    for fmt in formats:
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if tile is not None and (isinstance(tile, bool) or not isinstance(tile, int) or tile < 1):
        raise ValueError(f"tile must be a positive integer, got {tile!r}")
    out = pathlib.Path(out)
    terrain = config.terrain
    relief = max(terrain.width, terrain.height) / 4 if relief is None else float(relief)
    if not (np.isfinite(relief) and relief > 0):
        raise ValueError(f"relief must be a finite number > 0, got {relief!r}")
    layers = make_layers(config, progress=progress)
    if progress is not None:
        progress("pictures")
    heights = unit_heights(config, layers)
    colour = shaded_colour_map(config, heights, relief=relief, blend=blend)
    biomes = config.biomes.palette()[layers.biomes]
    biomes = apply_shade(biomes, _relief_shade(config, heights, relief), strength=0.35)
    key = legend(config.biomes.names, [tuple(c) for c in config.biomes.palette()])
    if progress is not None:
        progress("files")
    written = [
        write_heightmap(out / "height.png", heights, "png16"),
        write_rgb_png(out / "colour.png", colour),
        write_rgb_png(out / "normal.png", normal_map(heights, strength=relief)),
        write_rgb_png(out / "biomes.png", biomes),
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
            written.append(write_heightmap(out / "height", heights, fmt))
    if tile is not None:
        written += write_tiles(out / "tiles", "height", heights, tile)
    return written
