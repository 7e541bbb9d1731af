"""Height fields and what is done to them: maps, masks, biomes, tilemaps, shading.

- :class:`NoiseMap`, :class:`Window`: fractal noise maps with the familiar
  seed / scale / offset / octaves / persistence / lacunarity parameters,
  normalised locally, globally or not at all, made whole or by windows.
- :class:`Mask`, :class:`HeightCurve`: island falloff in world coordinates,
  height remapping.
- :class:`Band`, :func:`classify`, :class:`BiomeTable`: height bands and
  biomes (elevation x moisture x temperature).
- :func:`remove_thin_water`, :func:`remove_isolated`, :func:`fill_lakes`,
  :func:`limit_steps`, :func:`autotile_masks`: tile-map clean-up and
  autotiling; :class:`Cleanup`, :func:`clean_tiles`: the clean-up of a
  window with its halo.
- :class:`Tileset`: generated transition tilesets (47 blob or 16 edge
  tiles per band) and the tile ids, wang ids and pictures they give.
- :func:`colour_ramp`, :func:`hillshade`, :func:`apply_shade`,
  :func:`normal_map`, :func:`legend`: pictures.
- :func:`map_pictures`, :func:`shaded_colour`, :func:`relief_shade`,
  :data:`DEFAULT_RELIEF`: a window's pictures in world units, crops of the
  whole map's.
- :class:`MapConfig`, :func:`make_layers`, :func:`tile_layers`: the whole map
  pipeline.
- :func:`erode` (:class:`HydraulicErosion`), :func:`thermal_erode`:
  droplet and thermal erosion.
- :func:`fill_depressions`, :func:`flow_directions`,
  :func:`flow_accumulation`, :func:`rivers`, :func:`draw_rivers`: water;
  :func:`tiled_fill`, :func:`tiled_flow_accumulation`: the same, exact, in
  tiles, for maps larger than memory.
- :func:`dla_mountains`: branching ridges grown by diffusion-limited
  aggregation.
- :func:`heightfield_mesh`, :class:`Mesh`: triangle meshes.
- :class:`TerrainConfig`, :func:`make_terrain`: the carving pipeline.
"""

from worldgen.terrain._classify import DEFAULT_BANDS, DEFAULT_BIOMES, Band, BiomeTable, classify
from worldgen.terrain._dla import dla_mountains
from worldgen.terrain._erosion import ErosionResult, HydraulicErosion, erode, thermal_erode
from worldgen.terrain._maps import DEFAULT_RELIEF, MapConfig, MapLayers, make_layers, tile_layers
from worldgen.terrain._mesh import Mesh, heightfield_mesh
from worldgen.terrain._noise_map import NoiseMap, global_range
from worldgen.terrain._pictures import (
    PICTURE_HALO,
    MapPictures,
    map_pictures,
    relief_shade,
    shaded_colour,
)
from worldgen.terrain._rivers import (
    RiverResult,
    draw_rivers,
    fill_depressions,
    flow_accumulation,
    flow_directions,
    rivers,
)
from worldgen.terrain._shading import apply_shade, colour_ramp, hillshade, legend, normal_map
from worldgen.terrain._shaping import HeightCurve, Mask, falloff_curve
from worldgen.terrain._terrain import Terrain, TerrainConfig, make_terrain, terrain_mesh
from worldgen.terrain._tiled import tiled_fill, tiled_flow_accumulation
from worldgen.terrain._tilemap import (
    Cleanup,
    autotile_masks,
    clean_tiles,
    fill_lakes,
    limit_steps,
    remove_isolated,
    remove_thin_water,
)
from worldgen.terrain._tileset import TILESETS, Tileset
from worldgen.terrain._window import Window

__all__ = [
    "DEFAULT_BANDS",
    "DEFAULT_BIOMES",
    "DEFAULT_RELIEF",
    "PICTURE_HALO",
    "TILESETS",
    "Band",
    "BiomeTable",
    "Cleanup",
    "ErosionResult",
    "HeightCurve",
    "HydraulicErosion",
    "MapConfig",
    "MapLayers",
    "MapPictures",
    "Mask",
    "Mesh",
    "NoiseMap",
    "RiverResult",
    "Terrain",
    "TerrainConfig",
    "Tileset",
    "Window",
    "apply_shade",
    "autotile_masks",
    "classify",
    "clean_tiles",
    "colour_ramp",
    "dla_mountains",
    "draw_rivers",
    "erode",
    "falloff_curve",
    "fill_depressions",
    "fill_lakes",
    "flow_accumulation",
    "flow_directions",
    "global_range",
    "heightfield_mesh",
    "hillshade",
    "legend",
    "limit_steps",
    "make_layers",
    "make_terrain",
    "map_pictures",
    "normal_map",
    "relief_shade",
    "remove_isolated",
    "remove_thin_water",
    "rivers",
    "shaded_colour",
    "terrain_mesh",
    "thermal_erode",
    "tile_layers",
    "tiled_fill",
    "tiled_flow_accumulation",
]
