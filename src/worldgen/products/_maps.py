"""The map pipeline: a seed and a config become a set of layers.

    heights -> bands (tiles) and biomes -> clean-up of the tile classes
            -> transition tile ids

The heights come from one of two sources:

- the world model (``MapConfig.world``, a :class:`~worldgen.world.WorldConfig`):
  continents, ranges and climate in metres (:mod:`worldgen.world`), mapped
  to unit heights with the sea level at the top of the water bands
  (:meth:`MapConfig.unit_from_metres`); biomes are the world's. Its pixel
  grid is the world's cell grid (pixel ``(x, y)`` is world cell ``(x,
  y)``), and the map's default window is centred on the world's spawn.
- the classic noise map (``world=None``): noise map -> mask -> height
  curve, and biomes from elevation x moisture (x temperature) noise, as
  the well-known Unity tutorial makes them, bit for bit as it always was.

Every step up to the bands and biomes is pointwise in world coordinates, so
with ``normalize='global'`` or ``'none'`` a window made alone equals the same
window cut from a bigger map, byte for byte. The clean-up and the tile ids
look at neighbours a bounded distance away (:attr:`MapConfig.tile_halo`), so
they are made on the window plus that halo, from the same pure function of
world position, and cropped: a window's tiles equal the same window of a
bigger map's too.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen._jit import kernel
from worldgen.noise._seed import derive_seed
from worldgen.noise._validate import check_instance, check_positive, check_real
from worldgen.products._classify import (
    DEFAULT_BANDS,
    DEFAULT_BIOMES,
    WATER_BANDS,
    Band,
    BiomeTable,
    check_bands,
    classify,
)
from worldgen.products._tilemap import Cleanup, autotile_masks, clean_tiles
from worldgen.products._tileset import Tileset
from worldgen.world._config import WorldConfig
from worldgen.world._noise_map import NoiseMap
from worldgen.world._shaping import HeightCurve, Mask
from worldgen.world._window import Window

DEFAULT_RELIEF = 128.0
"""How many cells high a height of 1.0 stands in the pictures, by default: a
quarter of the default 512 x 512 map's side, as its pictures always had."""

# Tags for the climate fields' derived seeds.
_MOISTURE, _TEMPERATURE = 0x4D4F4953, 0x54454D50


@kernel
def _unit_from_metres(e, sea, relief, depth, out):
    for k in range(e.size):
        if e[k] >= 0.0:
            v = sea + (1.0 - sea) * e[k] / relief
        else:
            v = sea * (1.0 + e[k] / depth)
        out[k] = min(max(v, 0.0), 1.0)


@kernel
def _metres_from_unit(u, sea, relief, depth, out):
    # np.where(u >= sea, (u - sea) / (1.0 - sea) * relief, (u / sea - 1.0)
    # * depth), each value by the same arithmetic, without the temporaries;
    # u and out 2-D, u of any strides (a window cut from a bigger one's).
    land = 1.0 - sea
    for r in range(u.shape[0]):
        row, made = u[r], out[r]
        for c in range(u.shape[1]):
            if row[c] >= sea:
                made[c] = (row[c] - sea) / land * relief
            else:
                made[c] = (row[c] / sea - 1.0) * depth


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
    tileset : Tileset
        The tileset the tile map is drawn with (default: 47 blob tiles per
        band, 16 pixels); the clean-up ends by removing what it cannot draw
        (:func:`~worldgen.terrain.limit_steps`).
    world : WorldConfig, optional
        The world model the heights, climate and biomes come from (default
        None: the classic noise map of ``terrain``, ``mask`` and ``curve``).
        With a world, ``terrain`` gives only the map's default size (its
        ``width`` and ``height``); the noise, mask, curve, climate scale and
        biome table are not used; heights are metres, mapped to unit
        heights with 0 m at the sea level (the top of the water bands) and
        the world's ``relief`` at 1, the ocean depth at 0; and ``relief``
        (the pictures' height scale) follows from that mapping, so that
        slopes are true (a cell is a metre across).
    """

    terrain: NoiseMap = dataclasses.field(default_factory=NoiseMap)
    mask: Mask = dataclasses.field(default_factory=lambda: Mask("none"))
    curve: HeightCurve = dataclasses.field(default_factory=HeightCurve)
    bands: tuple[Band, ...] = DEFAULT_BANDS
    biomes: BiomeTable = DEFAULT_BIOMES
    climate_scale: float = 2.0
    cleanup: Cleanup = dataclasses.field(default_factory=Cleanup)
    relief: float = DEFAULT_RELIEF
    tileset: Tileset = dataclasses.field(default_factory=Tileset)
    world: WorldConfig | None = None

    def __post_init__(self):
        for name, cls in (
            ("terrain", NoiseMap), ("mask", Mask), ("curve", HeightCurve),
            ("biomes", BiomeTable), ("cleanup", Cleanup), ("tileset", Tileset),
        ):  # fmt: skip
            check_instance(getattr(self, name), name, cls)
        if self.world is not None:
            check_instance(self.world, "world", WorldConfig)
        object.__setattr__(self, "bands", check_bands(self.bands))
        check_positive(self.climate_scale, "climate_scale")
        if not 0.0 < check_real(self.relief, "relief") <= 1e100:
            raise ValueError(f"relief must be a number > 0 and at most 1e100, got {self.relief!r}")
        if self.world is not None:
            sea = self.sea_level
            if not 0.0 < sea < 1.0:
                raise ValueError(
                    f"a world's map needs water bands topping out between 0 and 1 (the sea "
                    f"level), got {sea!r}; give bands named 'deep water' or 'shallow water'"
                )
            # A unit of height is this many metres (cells) on land.
            object.__setattr__(self, "relief", self.world.relief / (1.0 - sea))

    # -- where the heights come from

    @property
    def seamless(self) -> bool:
        """Whether a window made alone equals the same window of a bigger
        map: always for a world, else unless normalised ``'local'``."""
        return self.world is not None or self.terrain.normalize != "local"

    @property
    def seed(self) -> int:
        """The world's seed (or the classic noise map's)."""
        return self.terrain.seed if self.world is None else self.world.seed

    @property
    def origin(self) -> tuple[int, int]:
        """The pixel of world cell ``(0, 0)``: ``(0, 0)`` for a world, the
        middle of the classic map (``(width // 2, height // 2)``)."""
        if self.world is not None:
            return (0, 0)
        return (self.terrain.width // 2, self.terrain.height // 2)

    @property
    def window(self) -> Window:
        """The map's default window: for a world, ``terrain.width x
        terrain.height`` cells around its spawn (see
        :func:`worldgen.world.spawn`); the whole classic map otherwise."""
        if self.world is None:
            return self.terrain.window
        from worldgen.world._spawn import default_window

        return default_window(self.world, self.terrain.width, self.terrain.height)

    @property
    def feature_scale(self) -> float:
        """Cells across a typical hill: the noise map's scale, or for a
        world its hills' (a 24th of a continent square, at most 256)."""
        if self.world is None:
            return self.terrain.scale
        return min(256.0, self.world.continent_size / 24.0)

    def unit_from_metres(self, metres: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
        """A world's metres as unit heights: 0 m at the sea level, the
        world's ``relief`` at 1 and its ocean depth at 0 (clipped); into
        ``out`` if given (a C-contiguous float64 array of their shape, which
        may be ``metres`` itself: each value is read before it is written)."""
        e = np.asarray(metres, dtype=np.float64)
        if out is None:
            out = np.empty(e.shape)
        elif not (
            isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == e.shape
            and out.flags.c_contiguous and out.flags.writeable
        ):  # fmt: skip
            raise ValueError(
                f"out must be a writeable C-contiguous float64 array of shape {e.shape}"
            )
        _unit_from_metres(
            e.ravel(), self.sea_level, self.world.relief, self.world.ocean_depth, out.reshape(-1)
        )
        return out

    def metres_from_unit(self, heights: np.ndarray) -> np.ndarray:
        """Unit heights as metres above sea level (below it negative): the
        inverse of :meth:`unit_from_metres` for a world; for the classic map
        ``relief`` metres (cells) to a unit of height above the sea level."""
        sea = self.sea_level
        u = np.asarray(heights, dtype=np.float64)
        if self.world is None:
            return (u - sea) * self.relief
        out = np.empty(u.shape)  # of any shape, a 0-d array's too
        # As rows: a 2-D crop is read where it lies, not copied first.
        rows = u if u.ndim == 2 else np.ascontiguousarray(u).reshape(1, -1)
        _metres_from_unit(
            rows, sea, float(self.world.relief), float(self.world.ocean_depth),
            out.reshape(rows.shape),
        )  # fmt: skip
        return out

    @property
    def tile_halo(self) -> int:
        """How many cells around a window its tile classes, tile ids and
        autotile masks depend on: the clean-up's reach, plus one for the
        masks."""
        return self.cleanup.reach(len(self.bands), self.tileset.connectivity) + 1

    def climate(self, tag: int) -> NoiseMap:
        """The classic map's moisture (or temperature) field: the terrain's
        noise map with a derived seed, a larger scale and four octaves."""
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
    def biome_names(self) -> tuple[str, ...]:
        """The names of the biome ids of :class:`MapLayers`."""
        if self.world is None:
            return self.biomes.names
        from worldgen.world._biomes import NAMES

        return NAMES

    def biome_palette(self) -> np.ndarray:
        """The biome colours, ``(len(biome_names), 3)`` uint8."""
        if self.world is None:
            return self.biomes.palette()
        from worldgen.world._biomes import palette

        return palette()

    @property
    def fresh_water_biome(self) -> int:
        """The biome id drawn where lakes and rivers lie on land: the
        world's fresh water, or the classic table's first (lowest) biome."""
        if self.world is None:
            return self.biomes.names.index(self.biomes.table[0][0][0])
        from worldgen.world._biomes import FRESH_WATER

        return FRESH_WATER

    @property
    def sea_level(self) -> float:
        """The top of the water bands (0 if there are none)."""
        water = self.water_classes
        return self.bands[max(water)].top if water else 0.0

    def elevation(self, window: Window | None = None, *, halo: int = 0) -> np.ndarray:
        """The heights of ``window`` (default: :attr:`window`), shape ``(H,
        W)``; with ``halo``, of the window grown by that many cells on every
        side: the world's metres as unit heights, or the classic noise,
        then the mask, then the height curve (see :meth:`NoiseMap.generate`)."""
        window = self.window if window is None else window
        if self.world is not None:
            return self.unit_from_metres(self.world_ground(window.grown(halo))[0])
        heights = self.terrain.generate(window, halo=halo)
        wx, wy = self.terrain.world_axes(window.grown(halo))
        return self.curve(self.mask.apply(heights, wx, wy))

    def world_ground(self, window: Window) -> tuple[np.ndarray, np.ndarray | None]:
        """A world's metres over ``window``, river beds and banks carved,
        and its water kinds (0 dry, 1 river, 2 lake, 3 sea); at steps above
        ``continent_size / 64`` (:func:`~worldgen.world._rivers.drawn`) the model's metres and
        None (no rivers drawn)."""
        ground, kind, _ = self.world_water(window, discharge=False)
        return ground, kind

    def world_water(
        self, window: Window, *, discharge: bool = True
    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """:meth:`world_ground` and the rivers' discharge (m^3/s, float32,
        0 off the rivers; None without ``discharge`` or where no rivers are
        drawn): the ``elevation``, ``water_kind`` and ``discharge`` of
        ``world_fields(config.world, window, climate=False, rivers=True)``,
        the same bytes."""
        from worldgen.world._fields import elevation
        from worldgen.world._rivers import drawn, water

        ground = elevation(self.world, window)
        if not drawn(self.world, window):
            return ground, None, None
        # As world_fields(..., rivers=True) draws them; the surfaces are not read.
        made = water(self.world, window, ground, surfaces=discharge)
        return made.ground, made.kind, made.discharge

    def unit_elevation(self, elevation: np.ndarray) -> np.ndarray:
        """Elevation in [0, 1]: as made, or for ``normalize='none'`` mapped
        from the fractal's documented bounds."""
        if self.world is not None or self.terrain.normalize != "none":
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
    biomes : uint8, index into ``config.biome_names``
    tile_ids : uint16, the tile of ``config.tileset`` drawing each cell
    autotile : uint8, each cell's 8-neighbour autotile bitmask of ``tiles``
        (see :func:`~worldgen.terrain.autotile_masks`), from the neighbours
        beyond the window too
    water : bool, water at the surface: the sea (heights in the water
        bands), and lakes and rivers where they were given
    """

    elevation: np.ndarray
    classes: np.ndarray
    tiles: np.ndarray
    moisture: np.ndarray
    temperature: np.ndarray | None
    biomes: np.ndarray
    tile_ids: np.ndarray | None = None
    autotile: np.ndarray | None = None
    water: np.ndarray | None = None


def make_layers(config: MapConfig, window: Window | None = None, *, progress=None) -> MapLayers:
    """Make every layer of ``window`` (default: the whole map).

    ``progress``, if given, is called with the name of each stage as it
    starts.

    The tile classes and ids are made from the classes of the window and
    :attr:`MapConfig.tile_halo` cells around it (see :func:`tile_layers`).
    With ``normalize='local'`` the heights depend on the window itself, so
    the map is taken as finite: its border classes are repeated outwards.
    """

    def stage(name: str) -> None:
        if progress is not None:
            progress(name)

    check_instance(config, "config", MapConfig)
    if window is not None:
        check_instance(window, "window", Window)
    window = config.window if window is None else window
    # Heights of the window and its tile halo in one call; the window's are
    # the same bytes made alone (not so for 'local', which gets no halo).
    halo = config.tile_halo if config.seamless else 0
    grown = window.grown(halo)
    stage("noise")
    fresh = None
    if config.world is not None:
        # The world's carved ground, its rivers and lakes fresh water.
        metres, kinds = config.world_ground(grown)
        around = config.unit_from_metres(metres)
        fresh = None if kinds is None else (kinds == 1) | (kinds == 2)
    else:
        around = config.elevation(grown)  # masked and curved too: both are cheap
    stage("shaping")
    return layers_from_heights(
        config, window, around, halo=halo, fresh_water=fresh, progress=progress
    )


def layers_from_heights(
    config: MapConfig,
    window: Window,
    heights: np.ndarray,
    *,
    halo: int = 0,
    fresh_water: np.ndarray | None = None,
    progress=None,
    climate: bool = True,
) -> MapLayers:
    """The layers of ``window`` with the given ``heights`` (e.g. after
    erosion): climate, classes, biomes and clean-up as :func:`make_layers`
    makes them.

    Without ``climate``, the layers' ``elevation``, ``moisture`` and
    ``temperature`` are None: the biomes are made without keeping the
    window's climate (or a copy of its heights) beside them.

    ``fresh_water`` (bool, the shape of ``heights``), if given, marks lakes
    and rivers: there the classes are water (the top water band, before
    the clean-up), the biome is fresh water (a classic map's above its sea
    level only) and :attr:`MapLayers.water` is true, as for the sea.

    ``heights`` are those of ``window.grown(halo)``. The tile classes and tile
    ids depend on :attr:`MapConfig.tile_halo` cells around the window: with a
    smaller ``halo`` the missing ring repeats the edge's classes, as for a
    finite map, so only cells that far inside equal a bigger window's.
    """

    def stage(name: str) -> None:
        if progress is not None:
            progress(name)

    core = (slice(halo, halo + window.height), slice(halo, halo + window.width))
    around = np.asarray(heights)
    if around.shape != (window.height + 2 * halo, window.width + 2 * halo):
        raise ValueError(
            f"heights must be those of the window grown by halo={halo}, shape "
            f"{(window.height + 2 * halo, window.width + 2 * halo)}, got {around.shape}"
        )
    heights = around[core]
    if climate:
        heights = heights.copy()  # the layers' own
    fresh = None
    if fresh_water is not None:
        fresh = np.asarray(fresh_water, dtype=bool)
        if fresh.shape != around.shape:
            raise ValueError(
                f"fresh_water must have the shape of heights, {around.shape}, got {fresh.shape}"
            )
    stage("climate")
    if config.world is None:
        moisture = config.climate(_MOISTURE).generate(window)
        temperature = None
        if len(config.biomes.temperature) > 1:
            temperature = config.climate(_TEMPERATURE).generate(window)
    elif climate:
        from worldgen.world._fields import world_fields

        fields = world_fields(config.world, window, elevation=config.metres_from_unit(heights))
        moisture, temperature, world_biomes = fields.rainfall, fields.temperature, fields.biome
        del fields  # its elevation, continentalness and belts: a big window's peak memory
    else:
        from worldgen.world._fields import biomes as made_biomes

        moisture = temperature = None
        # The metres of each strip of rows only, as its biomes are made.
        world_biomes = made_biomes(
            config.world, window, lambda rows: config.metres_from_unit(heights[rows])
        )
    stage("classes")
    around = classify(around, config.bands)
    water_classes = config.water_classes
    if fresh is not None and water_classes:
        around[fresh & ~np.isin(around, water_classes)] = max(water_classes)
    classes = around[core].copy()
    if config.world is None:
        biomes = config.biomes.classify(heights, moisture, temperature)
    else:
        biomes = world_biomes
    water = np.isin(classes, water_classes)
    if fresh is not None:
        inner = fresh[core]
        if config.world is None:  # a classic river ends where it meets the sea
            inner = inner & (heights > config.sea_level)
        # A world's rivers and lakes are fresh water all along, as world_fields says.
        biomes = np.where(inner, config.fresh_water_biome, biomes)
        water |= inner
    biomes = biomes.astype(np.uint8)
    stage("clean-up")
    need = config.tile_halo
    if halo < need:
        around = np.pad(around, need - halo, mode="edge")
    else:
        cut = halo - need
        around = around[cut : around.shape[0] - cut, cut : around.shape[1] - cut]
    tiles, ids, masks = tile_layers(config, around, need)
    if not climate:
        heights = moisture = temperature = None
    return MapLayers(heights, classes, tiles, moisture, temperature, biomes, ids, masks, water)


def tile_layers(
    config: MapConfig, classes: np.ndarray, halo: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cleaned tile classes, tile ids and autotile masks of a window,
    from its band classes with a halo.

    Parameters
    ----------
    config : MapConfig
        Its bands, clean-up and tileset are used.
    classes : ndarray of uint8, shape (H + 2 * halo, W + 2 * halo)
        Band classes of the window and ``halo`` cells around it, from any
        heights that are a pure function of world position (the noise map's,
        or eroded heights).
    halo : int
        At least :attr:`MapConfig.tile_halo` for the result to equal the same
        window of a bigger map.

    Returns
    -------
    tiles : ndarray of uint8, shape (H, W)
        Cleaned band classes.
    ids : ndarray of uint16, shape (H, W)
        Tile ids of ``config.tileset``.
    masks : ndarray of uint8, shape (H, W)
        8-neighbour autotile bitmasks of the cleaned classes.
    """
    steps = config.tileset.connectivity
    margin = 1 if halo > 0 else 0
    tiles = clean_tiles(
        classes, config.cleanup, water=config.water_classes, band_count=len(config.bands),
        steps=steps, halo=halo - margin,
    )  # fmt: skip
    ids = config.tileset.tile_ids(tiles, halo=margin)
    inner = (slice(margin, tiles.shape[0] - margin), slice(margin, tiles.shape[1] - margin))
    return tiles[inner], ids, autotile_masks(tiles, connectivity=8)[inner]
