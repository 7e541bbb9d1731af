"""The explorer: a tile server and a local page over the exact library.

- :func:`tile_image`, :func:`tile_png`, :data:`LAYERS`: one function per
  tile layer (colour, biomes, terrarium metres, hillshade, temperature,
  rainfall, voxel top-down), at the zoom's level of detail,
  ``(config, layer, z, x, y) -> pixels``.
- :func:`tile_window`, :func:`tile_origin`, :data:`NATIVE_ZOOM`: the tile
  pyramid over world cells (:mod:`worldgen.web._tiles` documents the
  mapping).
- :func:`world_key`, :func:`build_config`, :class:`Worlds`: page
  parameters -> a map config
  and the hash in its tile URLs.
- :func:`create_app`: the ASGI app (``worldgen serve`` runs it on uvicorn).
"""

from worldgen.web._app import create_app
from worldgen.web._products import LAYERS, point_info, terrarium, tile_image, tile_png
from worldgen.web._tiles import NATIVE_ZOOM, TILE, tile_origin, tile_step, tile_window
from worldgen.web._worlds import PARAMS, Worlds, build_config, world_key

__all__ = [
    "LAYERS",
    "NATIVE_ZOOM",
    "PARAMS",
    "TILE",
    "Worlds",
    "build_config",
    "create_app",
    "point_info",
    "terrarium",
    "tile_image",
    "tile_origin",
    "tile_png",
    "tile_step",
    "tile_window",
    "world_key",
]
