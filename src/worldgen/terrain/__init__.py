"""Processes on height fields: erosion, ridges and water.

- :func:`erode` (:class:`HydraulicErosion`), :func:`thermal_erode`:
  droplet and thermal erosion.
- :func:`fill_depressions`, :func:`flow_directions`,
  :func:`flow_accumulation`, :func:`rivers`, :func:`draw_rivers`: water;
  :func:`tiled_fill`, :func:`tiled_flow_accumulation`: the same, exact, in
  tiles, for maps larger than memory.
- :func:`dla_mountains`: branching ridges grown by diffusion-limited
  aggregation.

The map pipeline and its pictures moved to :mod:`worldgen.products`, the
noise map, windows, masks and curves to :mod:`worldgen.world`; their old
names here (``worldgen.terrain.MapConfig`` and the rest) still work for
this release.
"""

import importlib

from worldgen.terrain._dla import dla_mountains
from worldgen.terrain._erosion import ErosionResult, HydraulicErosion, erode, thermal_erode
from worldgen.terrain._rivers import (
    RiverResult,
    draw_rivers,
    fill_depressions,
    flow_accumulation,
    flow_directions,
    rivers,
)
from worldgen.terrain._tiled import tiled_fill, tiled_flow_accumulation

_MOVED = {
    **dict.fromkeys(
        ("NoiseMap", "global_range", "HeightCurve", "Mask", "falloff_curve", "Window"),
        "worldgen.world",
    ),
    **dict.fromkeys(
        (
            "DEFAULT_BANDS", "DEFAULT_BIOMES", "DEFAULT_RELIEF", "PICTURE_HALO", "TILESETS",
            "Band", "BiomeTable", "Cleanup", "MapConfig", "MapLayers", "MapPictures", "Mesh",
            "Terrain", "TerrainConfig", "Tileset", "apply_shade", "autotile_masks", "classify",
            "clean_tiles", "colour_ramp", "fill_lakes", "heightfield_mesh", "hillshade",
            "legend", "limit_steps", "make_layers", "make_terrain", "map_pictures",
            "normal_map", "relief_shade", "remove_isolated", "remove_thin_water",
            "shaded_colour", "terrain_mesh", "tile_layers",
        ),
        "worldgen.products",
    ),
}  # fmt: skip


def __getattr__(name: str):
    """The names that moved to :mod:`worldgen.world` and
    :mod:`worldgen.products`, for code written against earlier releases."""
    if name in _MOVED:
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'worldgen.terrain' has no attribute {name!r}")


__all__ = [
    "ErosionResult",
    "HydraulicErosion",
    "RiverResult",
    "dla_mountains",
    "draw_rivers",
    "erode",
    "fill_depressions",
    "flow_accumulation",
    "flow_directions",
    "rivers",
    "thermal_erode",
    "tiled_fill",
    "tiled_flow_accumulation",
]
