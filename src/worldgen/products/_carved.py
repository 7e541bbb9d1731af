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
from worldgen.products._terrain import Terrain, TerrainConfig, carve_and_water
from worldgen.terrain._erosion import ErosionResult
from worldgen.terrain._rivers import MAX_RIVER_RADIUS, RiverResult, draw_rivers
from worldgen.terrain._windowed import World, crop_index
from worldgen.world._window import Window


@dataclasses.dataclass(frozen=True, eq=False)
class CarvedWindow:
    """A carved window and its products, each cropped to the window.

    Attributes
    ----------
    terrain : Terrain
        The carved terrain of the window; its ``layers`` (the map's layers
        before carving) and ``carved`` are None: ``height`` and ``carved``
        below hold what the files need.
    carved : MapLayers
        The map's layers remade from the carved heights (classes, tiles,
        biomes, water) with the tile halo; without their ``elevation``,
        ``moisture`` and ``temperature`` (None).
    colour : numpy.ndarray of uint8, (H, W, 3)
        The shaded colour map of the carved heights, rivers and lakes drawn.
    pictured : numpy.ndarray of float64, (H + 2 h, W + 2 h)
        Carved unit heights of the window grown by ``h =``
        :data:`~worldgen.terrain.PICTURE_HALO`, for the map pictures.
    height : numpy.ndarray of float64, (H, W)
        The map's unit heights before carving, for the height files (a
        view of the grown window's).
    """

    terrain: Terrain
    carved: MapLayers
    colour: np.ndarray
    pictured: np.ndarray
    height: np.ndarray


def _crop_erosion(erosion: ErosionResult | None, inner) -> ErosionResult | None:
    if erosion is None:
        return None
    eroded, deposited = erosion.eroded[inner], erosion.deposited[inner]
    net = float(eroded.sum() - deposited.sum())
    return ErosionResult(erosion.heights[inner], eroded, deposited, net)


def _crop_flow(flow: RiverResult | None, inner) -> RiverResult | None:
    if flow is None:
        return None
    fields = ("filled", "directions", "accumulation", "river", "lakes")
    return RiverResult(*(getattr(flow, f)[inner] for f in fields), flow.threshold)


def carve_window(
    config: MapConfig,
    terrain_config: TerrainConfig,
    window: Window,
    *,
    blend: bool = False,
    progress=None,
    shared: bool = True,
) -> CarvedWindow:
    """Carve ``window`` of the map and make its pictures and layers.

    Rivers paint up to ``MAX_RIVER_RADIUS`` cells around them, slopes reach
    ``PICTURE_HALO`` and the tile maps ``config.tile_halo``: the window is
    carved that much larger and cropped. The window and the river regions
    it meets are carved once (:meth:`World.prepare`); ``shared`` as for
    :class:`~worldgen.terrain._windowed.World` (False for a window made
    once: nothing is kept in the process-wide caches). ``progress(stage,
    *counts)`` hears the stages as they start.
    """

    def stage(name: str, *counts: int) -> None:
        if progress is not None:
            progress(name, *counts)

    if window.step != 1:
        raise ValueError(
            f"window: carving works on every cell, so its window needs step 1, got step "
            f"{window.step}; carve the window at full detail (levels are for the map's layers)"
        )
    local = not config.seamless
    if local and window != config.window:
        raise ValueError(
            f"a window other than the whole map ({config.window}) needs "
            f"normalize='global' or 'none', got normalize='local' with {window}"
        )
    halo = 0 if local else max(MAX_RIVER_RADIUS + PICTURE_HALO, config.tile_halo)
    grown = window.grown(halo)
    world = World(config, terrain_config, shared=shared)
    stage("noise")
    heights, erosion, flow, before = carve_and_water(world, grown, stage)
    world.release()
    # Cropped views of the grown window's arrays: the window's cells.
    inner = crop_index(window, grown)
    height = before[inner]  # a view: no copy beside the grown window's
    multiplier = config.relief if terrain_config.multiplier is None else terrain_config.multiplier
    terrain = Terrain(
        None, heights[inner], _crop_erosion(erosion, inner), _crop_flow(flow, inner),
        config.sea_level, window, float(multiplier), None,
    )  # fmt: skip
    if local:
        colour = shaded_colour(config, heights, blend=blend, halo=0)
        if flow is not None:
            colour = draw_rivers(colour, flow)
        pictured = np.pad(heights, PICTURE_HALO, mode="edge")
    else:
        painted = window.grown(MAX_RIVER_RADIUS)
        around = heights[crop_index(painted.grown(PICTURE_HALO), grown)]
        colour = shaded_colour(config, around, blend=blend, halo=PICTURE_HALO)
        if flow is not None:
            colour = draw_rivers(colour, _crop_flow(flow, crop_index(painted, grown)))
        colour = colour[crop_index(window, painted)]
        pictured = heights[crop_index(window.grown(PICTURE_HALO), grown)]
    # Lakes and rivers are water in the layers (biomes, classes, tiles).
    fresh = None if flow is None else flow.river | flow.lakes
    carved = layers_from_heights(
        config, window, heights, halo=halo, fresh_water=fresh, progress=stage, climate=False
    )
    return CarvedWindow(
        terrain=terrain, carved=carved, colour=colour, pictured=pictured, height=height
    )
