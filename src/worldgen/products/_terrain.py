"""The terrain pipeline: a map, carved by water and time, ready for a mesh.

    map layers -> DLA ridges (optional) -> hydraulic erosion -> thermal
    erosion -> rivers and lakes -> mesh

Every stage is a pure function of (map config, terrain config, window):
erosion and ridges come from fixed world tiles blended together, thermal
erosion from a halo, rivers from fixed world regions or the island's whole
land (see :mod:`worldgen.terrain._windowed` for what each depends on and
how far). So a window carved alone equals the same window of a bigger map,
byte for byte. The whole-map functions (:func:`~worldgen.terrain.erode`,
:func:`~worldgen.terrain.thermal_erode`, :func:`~worldgen.terrain.rivers`)
remain for carving one finite height field.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen.noise._validate import (
    check_bool,
    check_instance,
    check_int,
    check_positive,
    check_range,
)
from worldgen.products._maps import MapConfig, MapLayers, layers_from_heights, make_layers
from worldgen.products._mesh import Mesh, Surface, heightfield_surface
from worldgen.terrain._erosion import ErosionResult, HydraulicErosion
from worldgen.terrain._rivers import RiverResult
from worldgen.terrain._windowed import World, crop_index, overlap
from worldgen.world._shaping import HeightCurve
from worldgen.world._window import Window

# Default river threshold: this share of the area of one noise lattice cell
# (``scale**2`` cells) must drain through a cell.
RIVER_AREA = 0.006


@dataclasses.dataclass(frozen=True)
class TerrainConfig:
    """How a map becomes terrain; every part has a documented default.

    Parameters
    ----------
    droplets : int, optional
        Hydraulic erosion droplets (default: one per four cells; 0: none);
        rain falls on land only: none starts below the sea level.
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
        Cells draining through a cell for it to be a river, > 0 (default:
        ``RIVER_AREA * MapConfig.feature_scale**2``: about 390 cells for
        the ``continents`` preset, 175 for ``islands``, 44 for
        ``archipelago``, 63 for ``classic-islands`` at 512 x 512): a
        constant of the configs, never of the window's size.
    min_lake : int
        Lakes (filled pits) smaller than this many cells are not kept
        (default 12), so that erosion's small pits do not speckle the land.
    river_region : int
        Side of the world regions that rivers are computed on for maps
        without a mask, in cells (default 1024).
    river_halo : int
        Cells each region is grown by for its drainage (default 256).
    multiplier : float, optional
        Mesh height of a height of 1.0, in cells (default: the map's
        ``relief``, the height scale of its shading, 128 cells unless set;
        the same for every window).
    stride : int
        Mesh level of detail: every ``stride``-th sample (default 1).
    """

    droplets: int | None = None
    erosion: HydraulicErosion = dataclasses.field(default_factory=HydraulicErosion)
    thermal: int = 0
    dla: float = 0.0
    rivers: bool = True
    river_threshold: float | None = None
    min_lake: int = 12
    river_region: int = 1024
    river_halo: int = 256
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
        check_int(self.min_lake, "min_lake", 0, 2**40)
        check_int(self.river_region, "river_region", 16, 2**16)
        check_int(self.river_halo, "river_halo", 0, 2**16)
        if self.multiplier is not None:
            check_positive(self.multiplier, "multiplier")
        check_int(self.stride, "stride", 1, 2**20)

    def threshold(self, map_config: MapConfig) -> float:
        """The river threshold in cells for ``map_config``."""
        if self.river_threshold is not None:
            return float(self.river_threshold)
        return max(2.0, RIVER_AREA * map_config.feature_scale**2)


@dataclasses.dataclass
class Terrain:
    """A carved window of a map.

    Attributes
    ----------
    layers : MapLayers or None
        The map it was made from (before carving); None where it was not
        needed (see :func:`~worldgen.products._carved.carve_window`).
    heights : float64 (H, W)
        Heights after DLA blending and erosion, in [0, 1].
    erosion : ErosionResult or None
        Where material was eroded and deposited; ``carried`` is the net
        material that left the window.
    rivers : RiverResult or None
        Flow, rivers and lakes, on land only (below the sea level they are
        cleared). Outside every river region (beyond an island's sea)
        directions are -1 and accumulation 1.
    sea_level : float
        The top of the water bands.
    window : Window
        The window carved.
    multiplier : float
        Mesh height of a height of 1.0, in cells.
    carved : MapLayers
        The map's layers remade from the final heights (``elevation`` is
        ``heights``; classes, tiles and biomes follow it), so that tile
        maps and pictures agree with the carved terrain and its mesh.
    """

    layers: MapLayers | None
    heights: np.ndarray
    erosion: ErosionResult | None
    rivers: RiverResult | None
    sea_level: float
    window: Window | None = None
    multiplier: float = 1.0
    carved: MapLayers | None = None

    def crop(self, window: Window) -> Terrain:
        """The cells of ``window`` (which must lie inside this terrain's
        window): every array cut the same way."""
        if self.window is None or overlap(window, self.window) != window:
            raise ValueError(f"window {window} must lie inside the terrain's window {self.window}")
        inner = crop_index(window, self.window)

        def layers(these: MapLayers | None) -> MapLayers | None:
            if these is None:
                return None
            return MapLayers(
                *(
                    None if a is None else a[inner].copy()
                    for a in (getattr(these, f.name) for f in dataclasses.fields(these))
                )
            )

        erosion = self.erosion
        if erosion is not None:
            eroded, deposited = erosion.eroded[inner].copy(), erosion.deposited[inner].copy()
            net = float(eroded.sum() - deposited.sum())
            erosion = ErosionResult(self.heights[inner].copy(), eroded, deposited, net)
        flow = self.rivers
        if flow is not None:
            flow = RiverResult(
                *(getattr(flow, f)[inner].copy() for f in _RIVER_FIELDS), flow.threshold
            )
        return dataclasses.replace(
            self,
            layers=layers(self.layers),
            heights=self.heights[inner].copy(),
            erosion=erosion,
            rivers=flow,
            window=window,
            carved=layers(self.carved),
        )


_RIVER_FIELDS = ("filled", "directions", "accumulation", "river", "lakes")


def make_terrain(
    map_config: MapConfig,
    config: TerrainConfig,
    *,
    window: Window | None = None,
    progress=None,
) -> Terrain:
    """Make a window of the map, then carve it as ``config`` says.

    Parameters
    ----------
    map_config : MapConfig
        The map.
    config : TerrainConfig
        How to carve it.
    window : Window, optional
        The cells to make (default: the whole map). Any window of the plane
        works; the result equals the same cells of any bigger window.
    progress : callable, optional
        Called with each stage name as it starts and, during hydraulic
        erosion, as ``progress("erosion", done, total)`` over world tiles.

    Returns
    -------
    Terrain

    Raises
    ------
    TypeError
        If ``window`` is not a :class:`Window`.
    ValueError
        If the map is normalised ``'local'`` and ``window`` is not the whole
        map (a window of a locally stretched map is not the crop of the
        whole: use ``normalize='global'`` or ``'none'``).

    Notes
    -----
    What each stage depends on and how far is documented in
    :mod:`worldgen.terrain._windowed`. Cached world tiles and regions make
    neighbouring windows cheaper; the results never depend on the cache,
    the order of windows or the thread count.
    """

    def stage(name: str, *counts: int) -> None:
        if progress is not None:
            progress(name, *counts)

    check_instance(map_config, "map_config", MapConfig)
    check_instance(config, "config", TerrainConfig)
    if window is None:
        window = map_config.window
    elif not isinstance(window, Window):
        raise TypeError(f"window must be a Window(x, y, width, height), got {window!r}")
    if not map_config.seamless and window != map_config.window:
        raise ValueError(
            f"a window other than the whole map ({map_config.window}) needs normalize='global' "
            f"or 'none', got normalize='local' with {window}"
        )
    layers = make_layers(map_config, window, progress=stage)
    world = World(map_config, config)
    heights, erosion, flow, _ = carve_and_water(world, window, stage)
    multiplier = map_config.relief if config.multiplier is None else config.multiplier
    fresh = None if flow is None else flow.river | flow.lakes
    carved = layers_from_heights(map_config, window, heights, fresh_water=fresh)
    return Terrain(
        layers, heights, erosion, flow, map_config.sea_level, window, float(multiplier), carved
    )


def carve_and_water(
    world: World, window: Window, stage
) -> tuple[np.ndarray, ErosionResult | None, RiverResult | None, np.ndarray]:
    """The final heights, erosion maps and rivers of ``window``, from one
    carving of the window and the river regions it meets, and the map's
    heights before carving; ``stage(name, *counts)`` hears the stages.
    Arrays cut from ``world``'s own carving are views unless it is
    shared."""
    if world.config.dla > 0.0:
        stage("ridges")
    before = world.prepare(window, progress=stage)
    heights, erosion = world.carve(window, copy=world.shared)
    flow = None
    if world.config.rivers:
        stage("rivers")
        if world.map_config.world is not None:
            heights, flow = _world_water(world, window, heights, before)
        else:
            flow = world.water(window, heights)
    return heights, erosion, flow, before


def _world_water(
    world: World, window: Window, heights: np.ndarray, before: np.ndarray
) -> tuple[np.ndarray, RiverResult]:
    """A world's own rivers and lakes (:mod:`worldgen.world._rivers`, drawn
    at their widths, their beds already carved into the map's heights):
    erosion leaves their cells at the world's carved ground, so no river
    climbs in the final heights either."""
    kinds, discharge = world.world_water(window)
    discharge = discharge.astype(np.float64)
    river, lakes = kinds == 1, kinds == 2
    heights = np.where(river | lakes, before, heights)
    heights.setflags(write=False)  # also the rivers' filled heights below
    # The accumulation holds the discharge (m^3/s); an endless threshold
    # keeps draw_rivers from widening rivers drawn at their own widths.
    flow = RiverResult(heights, np.full(window.shape, -1, np.int8), discharge, river, lakes, np.inf)
    return heights, flow


def terrain_mesh(terrain: Terrain, config: TerrainConfig) -> Mesh:
    """The terrain's mesh, the sea flattened at sea level; its height
    multiplier is ``config.multiplier`` or the terrain's (a constant of the
    map, not of the window)."""
    return terrain_surface(terrain, config).mesh()


def terrain_surface(terrain: Terrain, config: TerrainConfig) -> Surface:
    """The :class:`~worldgen.products._mesh.Surface` of :func:`terrain_mesh`,
    whose mesh can be made (and written) a band of rows at a time."""
    multiplier = terrain.multiplier if config.multiplier is None else config.multiplier
    level = terrain.sea_level
    curve = HeightCurve(((0.0, level), (level, level), (1.0, 1.0))) if 0.0 < level < 1.0 else None
    return heightfield_surface(
        terrain.heights, multiplier=multiplier, curve=curve, stride=config.stride
    )
