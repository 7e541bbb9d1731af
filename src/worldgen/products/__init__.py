"""What a window of the world becomes: layers, pictures, tile maps, meshes.

Everything here is computed in memory; :mod:`worldgen.io` writes it.

- :class:`MapConfig`, :func:`make_layers`, :func:`tile_layers`: the map
  pipeline (heights, bands, biomes, tile clean-up, tile ids).
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
- :class:`TerrainConfig`, :func:`make_terrain`, :func:`terrain_mesh`: the
  carved terrain (ridges, erosion, rivers) of a window and its mesh.
- :func:`heightfield_mesh`, :class:`Mesh`: triangle meshes.
"""

from worldgen.products._classify import DEFAULT_BANDS, DEFAULT_BIOMES, Band, BiomeTable, classify
from worldgen.products._maps import DEFAULT_RELIEF, MapConfig, MapLayers, make_layers, tile_layers
from worldgen.products._mesh import Mesh, heightfield_mesh
from worldgen.products._pictures import (
    PICTURE_HALO,
    MapPictures,
    map_pictures,
    relief_shade,
    shaded_colour,
)
from worldgen.products._shading import apply_shade, colour_ramp, hillshade, legend, normal_map
from worldgen.products._terrain import Terrain, TerrainConfig, make_terrain, terrain_mesh
from worldgen.products._tilemap import (
    Cleanup,
    autotile_masks,
    clean_tiles,
    fill_lakes,
    limit_steps,
    remove_isolated,
    remove_thin_water,
)
from worldgen.products._tileset import TILESETS, Tileset

__all__ = [
    "DEFAULT_BANDS",
    "DEFAULT_BIOMES",
    "DEFAULT_RELIEF",
    "PICTURE_HALO",
    "TILESETS",
    "Band",
    "BiomeTable",
    "Cleanup",
    "MapConfig",
    "MapLayers",
    "MapPictures",
    "Mesh",
    "Terrain",
    "TerrainConfig",
    "Tileset",
    "apply_shade",
    "autotile_masks",
    "classify",
    "clean_tiles",
    "colour_ramp",
    "fill_lakes",
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
    "shaded_colour",
    "terrain_mesh",
    "tile_layers",
]
