"""Writing files: atomically, in formats other tools open.

- PNG images (greyscale 8/16-bit, RGB), height maps for engines (RAW16,
  ``.r16``, float32 TIFF, ``.npy``, tiled exports), tile maps (Tiled JSON,
  CSV), meshes (GLB, OBJ, PLY, STL), animations (GIF, PNG frames) and SVG
  drawings.
- :func:`write_map_set`, :func:`write_terrain_set`: everything a map (and
  terrain) config makes, into one folder; :func:`write_mesh`: meshes.
- :func:`write_cog`, :func:`write_tile_pyramid`: big rasters streamed
  block by block (Cloud-Optimized GeoTIFF, z/x/y PNG tiles).
- :func:`output_set`: a set of files written aside and swapped into a
  folder whole, with a manifest (:data:`MANIFEST`) written last.
"""

from worldgen.io._animation import write_gif, write_png_frames, write_svg_polylines
from worldgen.io._atomic import atomic_output
from worldgen.io._heightmap import (
    FORMATS,
    HeightmapSizeWarning,
    unity_size_note,
    write_array,
    write_heightmap,
    write_raw16,
    write_tiles,
)
from worldgen.io._image import write_grey_png, write_rgb_png
from worldgen.io._mapset import write_map_set, write_terrain_set
from worldgen.io._mesh import MESH_FORMATS, write_mesh
from worldgen.io._outset import MANIFEST, output_set, read_manifest
from worldgen.io._raster import write_cog, write_tile_pyramid
from worldgen.io._tilemap import read_tiled_json, read_tiles_csv, write_tiled_json, write_tiles_csv

__all__ = [
    "FORMATS",
    "MANIFEST",
    "MESH_FORMATS",
    "HeightmapSizeWarning",
    "atomic_output",
    "output_set",
    "read_manifest",
    "read_tiled_json",
    "read_tiles_csv",
    "unity_size_note",
    "write_array",
    "write_cog",
    "write_gif",
    "write_grey_png",
    "write_heightmap",
    "write_map_set",
    "write_mesh",
    "write_png_frames",
    "write_raw16",
    "write_rgb_png",
    "write_svg_polylines",
    "write_terrain_set",
    "write_tile_pyramid",
    "write_tiled_json",
    "write_tiles",
    "write_tiles_csv",
]
