"""The terrain pipeline: a map, carved by water and time, ready for a mesh.

    map layers -> DLA ridges (optional) -> hydraulic erosion -> thermal
    erosion -> rivers and lakes -> mesh

Unlike the map layers, erosion and rivers depend on the whole field (a
droplet may travel ``lifetime`` cells; water gathers from a whole basin), so
the terrain is made for the map as a whole, not window by window.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen.noise._seed import derive_seed
from worldgen.noise._validate import (
    check_bool,
    check_instance,
    check_int,
    check_positive,
    check_range,
)
from worldgen.terrain._dla import dla_mountains
from worldgen.terrain._erosion import ErosionResult, HydraulicErosion, erode, thermal_erode
from worldgen.terrain._maps import MapConfig, MapLayers, make_layers
from worldgen.terrain._mesh import Mesh, heightfield_mesh
from worldgen.terrain._rivers import RiverResult, rivers
from worldgen.terrain._shaping import HeightCurve

# Tags for derived seeds.
_EROSION, _DLA = 0x45524F44, 0x444C41


@dataclasses.dataclass(frozen=True)
class TerrainConfig:
    """How a map becomes terrain; every part has a documented default.

    Parameters
    ----------
    droplets : int, optional
        Hydraulic erosion droplets (default: one per four cells; 0: none).
    erosion : HydraulicErosion
        Droplet parameters (the well-known CPU defaults).
    thermal : int
        Thermal erosion iterations after the droplets (default 0).
    dla : float
        How much of DLA mountain ridges to blend into the heights, 0 to 1
        (default 0: none).
    rivers : bool
        Find rivers and lakes (default True).
    river_threshold : float, optional
        Cells draining through a cell for it to be a river (default: 0.5%
        of the cells).
    multiplier : float, optional
        Mesh height of a height of 1.0, in cells (default: a quarter of the
        map's larger side, as the shading assumes).
    stride : int
        Mesh level of detail: every ``stride``-th sample (default 1).
    """

    droplets: int | None = None
    erosion: HydraulicErosion = dataclasses.field(default_factory=HydraulicErosion)
    thermal: int = 0
    dla: float = 0.0
    rivers: bool = True
    river_threshold: float | None = None
    multiplier: float | None = None
    stride: int = 1

    def __post_init__(self):
        if self.droplets is not None:
            check_int(self.droplets, "droplets", 0, 2**40)
        check_int(self.thermal, "thermal", 0, 10**6)
        check_instance(self.erosion, "erosion", HydraulicErosion)
        check_range(self.dla, "dla", 0.0, 1.0)
        check_bool(self.rivers, "rivers")
        if self.river_threshold is not None:
            check_positive(self.river_threshold, "river_threshold")
        if self.multiplier is not None:
            check_positive(self.multiplier, "multiplier")
        check_int(self.stride, "stride", 1, 2**20)


@dataclasses.dataclass
class Terrain:
    """A carved map.

    Attributes
    ----------
    layers : MapLayers
        The map it was made from.
    heights : float64 (H, W)
        Heights after DLA blending and erosion, in [0, 1].
    erosion : ErosionResult or None
        Where material was eroded and deposited.
    rivers : RiverResult or None
        Flow, rivers and lakes, on land only (below the sea level they are
        cleared).
    sea_level : float
        The top of the water bands.
    """

    layers: MapLayers
    heights: np.ndarray
    erosion: ErosionResult | None
    rivers: RiverResult | None
    sea_level: float


def make_terrain(map_config: MapConfig, config: TerrainConfig, *, progress=None) -> Terrain:
    """Make the map, then carve it as ``config`` says.

    ``progress``, if given, is called with each stage name as it starts and,
    during hydraulic erosion, as ``progress("erosion", done, total)``.
    """

    def stage(name: str, *counts: int) -> None:
        if progress is not None:
            progress(name, *counts)

    check_instance(map_config, "map_config", MapConfig)
    check_instance(config, "config", TerrainConfig)
    layers = make_layers(map_config, progress=stage)
    heights = map_config.unit_elevation(layers.elevation)
    seed = map_config.terrain.seed
    if config.dla > 0.0:
        stage("ridges")
        h, w = heights.shape
        ridges = dla_mountains(max(h, w), seed=derive_seed(seed, _DLA))[:h, :w]
        heights = (1.0 - config.dla) * heights + config.dla * ridges
    result = None
    droplets = heights.size // 4 if config.droplets is None else config.droplets
    if droplets:
        stage("erosion", 0, droplets)
        result = erode(
            heights,
            droplets,
            seed=derive_seed(seed, _EROSION),
            params=config.erosion,
            progress=lambda done, total: stage("erosion", done, total),
        )
        heights = result.heights
    if config.thermal:
        stage("thermal")
        heights = thermal_erode(heights, config.thermal)
    heights = np.clip(heights, 0.0, 1.0)
    level = map_config.sea_level
    flow = None
    if config.rivers:
        stage("rivers")
        flow = rivers(heights, threshold=config.river_threshold)
        land = heights > level
        flow = dataclasses.replace(flow, river=flow.river & land, lakes=flow.lakes & land)
    return Terrain(layers, heights, result, flow, level)


def terrain_mesh(terrain: Terrain, config: TerrainConfig) -> Mesh:
    """The terrain's mesh, the sea flattened at sea level."""
    h, w = terrain.heights.shape
    multiplier = max(h, w) / 4 if config.multiplier is None else config.multiplier
    level = terrain.sea_level
    curve = HeightCurve(((0.0, level), (level, level), (1.0, 1.0))) if 0.0 < level < 1.0 else None
    return heightfield_mesh(
        terrain.heights, multiplier=multiplier, curve=curve, stride=config.stride
    )
