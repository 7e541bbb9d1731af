"""Everything the files of a carved window are made of, in one call.

:func:`carve_window` carves a window with the halos its pictures and tile
maps need and crops them back, so that every product equals the same
window cut from a bigger one's (with ``normalize='global'`` or ``'none'``;
a ``'local'`` map is whole anyway). The terrain set writer and the block
tasks of :mod:`worldgen.scale` both use it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen.products._maps import MapConfig, MapLayers, layers_from_heights
from worldgen.products._pictures import PICTURE_HALO, shaded_colour
from worldgen.products._terrain import Terrain, TerrainConfig, make_terrain
from worldgen.terrain._rivers import MAX_RIVER_RADIUS, draw_rivers
from worldgen.terrain._windowed import crop_index
from worldgen.world._window import Window


@dataclasses.dataclass(frozen=True, eq=False)
class CarvedWindow:
    """A carved window and its products, each cropped to the window.

    Attributes
    ----------
    terrain : Terrain
        The carved terrain of the window.
    carved : MapLayers
        The map's layers remade from the carved heights (classes, tiles,
        biomes) with the tile halo.
    colour : numpy.ndarray of uint8, (H, W, 3)
        The shaded colour map of the carved heights, rivers and lakes drawn.
    pictured : numpy.ndarray of float64, (H + 2 h, W + 2 h)
        Carved unit heights of the window grown by ``h =``
        :data:`~worldgen.terrain.PICTURE_HALO`, for the map pictures.
    height : numpy.ndarray of float64, (H, W)
        The map's unit heights before carving, for the height files.
    """

    terrain: Terrain
    carved: MapLayers
    colour: np.ndarray
    pictured: np.ndarray
    height: np.ndarray


def carve_window(
    config: MapConfig,
    terrain_config: TerrainConfig,
    window: Window,
    *,
    blend: bool = False,
    progress=None,
) -> CarvedWindow:
    """Carve ``window`` of the map and make its pictures and layers.

    Rivers paint up to ``MAX_RIVER_RADIUS`` cells around them, slopes reach
    ``PICTURE_HALO`` and the tile maps ``config.tile_halo``: the window is
    carved that much larger and cropped.
    """
    local = config.terrain.normalize == "local"
    halo = 0 if local else max(MAX_RIVER_RADIUS + PICTURE_HALO, config.tile_halo)
    grown = make_terrain(config, terrain_config, window=window.grown(halo), progress=progress)
    painted = window if local else window.grown(MAX_RIVER_RADIUS)
    around = grown if local else grown.crop(painted.grown(PICTURE_HALO))
    colour = shaded_colour(config, around.heights, blend=blend, halo=0 if local else PICTURE_HALO)
    if grown.rivers is not None:
        colour = draw_rivers(colour, grown.crop(painted).rivers)
    colour = colour[crop_index(window, painted)]
    terrain = grown.crop(window)
    if local:
        pictured = np.pad(terrain.heights, PICTURE_HALO, mode="edge")
        carved = terrain.carved
    else:
        pictured = grown.crop(window.grown(PICTURE_HALO)).heights
        carved = layers_from_heights(config, window, grown.heights, halo=halo)
    return CarvedWindow(
        terrain=terrain,
        carved=carved,
        colour=colour,
        pictured=pictured,
        height=config.unit_elevation(terrain.layers.elevation),
    )
