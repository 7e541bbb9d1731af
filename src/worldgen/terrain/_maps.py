"""The map pipeline: a seed and a config become a set of layers.

    noise map -> mask -> height curve -> bands (tiles) and biomes
                                       -> clean-up of the tile classes

Every step up to the bands and biomes is pointwise in world coordinates, so
with ``normalize='global'`` or ``'none'`` a window made alone equals the same
window cut from a bigger map, byte for byte. The clean-up looks at
neighbours (see :mod:`worldgen.terrain._tilemap`) and is applied to the
window as a whole.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen.noise._seed import derive_seed
from worldgen.noise._validate import check_int, check_positive
from worldgen.terrain._classify import (
    DEFAULT_BANDS,
    DEFAULT_BIOMES,
    WATER_BANDS,
    Band,
    BiomeTable,
    check_bands,
    classify,
)
from worldgen.terrain._noise_map import NoiseMap
from worldgen.terrain._shaping import HeightCurve, Mask
from worldgen.terrain._window import Window

DEFAULT_RELIEF = 128.0
"""How many cells high a height of 1.0 stands in the pictures, by default: a
quarter of the default 512 x 512 map's side, as its pictures always had."""

# Tags for the climate fields' derived seeds.
_MOISTURE, _TEMPERATURE = 0x4D4F4953, 0x54454D50


@dataclasses.dataclass(frozen=True)
class Cleanup:
    """Which tile clean-ups to run, in this order.

    Parameters
    ----------
    thin_water : bool
        Turn one-tile-wide water into land (to a fixed point).
    isolated : bool
        Give lone tiles the class of their neighbours.
    lake_size : int
        Fill enclosed water bodies smaller than this many tiles (0: keep all).
    """

    thin_water: bool = True
    isolated: bool = True
    lake_size: int = 0

    def __post_init__(self):
        check_int(self.lake_size, "lake_size", 0, 2**40)


@dataclasses.dataclass(frozen=True)
class MapConfig:
    """Everything that makes a map, with a documented default for each part.

    Parameters
    ----------
    terrain : NoiseMap
        The height noise (size, seed, scale, octaves, normalisation...).
    mask : Mask
        Island falloff, in world coordinates (default: none).
    curve : HeightCurve
        Height remapping after the mask (default: identity).
    bands : tuple of Band
        Height bands for the tile classes (default: deep water 0.30,
        shallow water 0.40, sand 0.45, grass 0.55, grass 2 0.60, rock 0.70,
        rock 2 0.90, snow 1.00).
    biomes : BiomeTable
        Biomes by elevation and moisture (and temperature).
    climate_scale : float
        Scale of the moisture and temperature noise relative to the terrain's
        (> 0; 2 = features twice as large).
    cleanup : Cleanup
        Tile clean-ups.
    relief : float
        The height scale of the pictures (hillshading, normal maps): how
        many cells high a height of 1.0 stands (> 0; default
        :data:`DEFAULT_RELIEF`, 128). A world unit, the same for every
        window, so a window's pictures are crops of a bigger map's.
    """

    terrain: NoiseMap = dataclasses.field(default_factory=NoiseMap)
    mask: Mask = dataclasses.field(default_factory=lambda: Mask("none"))
    curve: HeightCurve = dataclasses.field(default_factory=HeightCurve)
    bands: tuple[Band, ...] = DEFAULT_BANDS
    biomes: BiomeTable = DEFAULT_BIOMES
    climate_scale: float = 2.0
    cleanup: Cleanup = dataclasses.field(default_factory=Cleanup)
    relief: float = DEFAULT_RELIEF

    def __post_init__(self):
        object.__setattr__(self, "bands", check_bands(self.bands))
        check_positive(self.climate_scale, "climate_scale")
        check_positive(self.relief, "relief")

    def climate(self, tag: int) -> NoiseMap:
        """The moisture (or temperature) field: the terrain's noise map with
        a derived seed, a larger scale and four octaves."""
        t = self.terrain
        return dataclasses.replace(
            t,
            seed=derive_seed(t.seed, tag),
            scale=t.scale * self.climate_scale,
            octaves=min(t.octaves, 4),
            mode="fbm",
        )

    @property
    def water_classes(self) -> tuple[int, ...]:
        return tuple(i for i, b in enumerate(self.bands) if b.name in WATER_BANDS)

    @property
    def sea_level(self) -> float:
        """The top of the water bands (0 if there are none)."""
        water = self.water_classes
        return self.bands[max(water)].top if water else 0.0

    def elevation(self, window: Window | None = None, *, halo: int = 0) -> np.ndarray:
        """The heights of ``window`` (default: the whole map): noise, then
        the mask, then the height curve, shape ``(H, W)``; with ``halo``, of
        the window grown by that many cells on every side (see
        :meth:`NoiseMap.generate`)."""
        window = self.terrain.window if window is None else window
        heights = self.terrain.generate(window, halo=halo)
        wx, wy = self.terrain.world_axes(window.grown(halo))
        return self.curve(self.mask.apply(heights, wx, wy))

    def unit_elevation(self, elevation: np.ndarray) -> np.ndarray:
        """Elevation in [0, 1]: as made, or for ``normalize='none'`` mapped
        from the fractal's documented bounds."""
        if self.terrain.normalize != "none":
            return elevation
        lo, hi = self.terrain.fractal.bounds(2)
        return np.clip((elevation - lo) / (hi - lo), 0.0, 1.0)


@dataclasses.dataclass
class MapLayers:
    """The layers of one window of a map, all of shape ``(H, W)``.

    Attributes
    ----------
    elevation : float64 in [0, 1] (unless ``normalize='none'``)
    classes : uint8, band index per tile, before clean-up
    tiles : uint8, band index per tile, after clean-up
    moisture : float64
    temperature : float64 or None (only if the biome table has that axis)
    biomes : uint8, index into ``config.biomes.names``
    """

    elevation: np.ndarray
    classes: np.ndarray
    tiles: np.ndarray
    moisture: np.ndarray
    temperature: np.ndarray | None
    biomes: np.ndarray


def make_layers(config: MapConfig, window: Window | None = None, *, progress=None) -> MapLayers:
    """Make every layer of ``window`` (default: the whole map).

    ``progress``, if given, is called with the name of each stage as it
    starts.
    """

    def stage(name: str) -> None:
        if progress is not None:
            progress(name)

    terrain = config.terrain
    window = terrain.window if window is None else window
    stage("noise")
    heights = config.elevation(window)  # masked and curved too: both are cheap
    stage("shaping")
    return layers_from_heights(config, window, heights, progress=progress)


def layers_from_heights(
    config: MapConfig, window: Window, heights: np.ndarray, *, progress=None
) -> MapLayers:
    """The layers of ``window`` with the given ``heights`` (e.g. after
    erosion): climate, classes, biomes and clean-up as :func:`make_layers`
    makes them."""
    from worldgen.terrain._tilemap import fill_lakes, remove_isolated, remove_thin_water

    def stage(name: str) -> None:
        if progress is not None:
            progress(name)

    stage("climate")
    moisture = config.climate(_MOISTURE).generate(window)
    temperature = None
    if len(config.biomes.temperature) > 1:
        temperature = config.climate(_TEMPERATURE).generate(window)
    stage("classes")
    classes = classify(heights, config.bands)
    biomes = config.biomes.classify(heights, moisture, temperature)
    stage("clean-up")
    tiles = classes
    water = config.water_classes
    if config.cleanup.thin_water and water:
        tiles = remove_thin_water(tiles, water)
    if config.cleanup.isolated:
        tiles = remove_isolated(tiles)
    if config.cleanup.lake_size and water:
        land = next(i for i in range(len(config.bands)) if i not in water)
        tiles = fill_lakes(tiles, water, config.cleanup.lake_size, land)
    return MapLayers(heights, classes, tiles.astype(np.uint8), moisture, temperature, biomes)
