"""Tile products: one library function per layer, (config, z, x, y) -> image.

Every layer is computed from the window the tile samples (see
:mod:`worldgen.web._tiles`), at the zoom's level of detail, grown by a halo
of one sample where a picture looks at neighbours (hillshading), and
cropped back, so each pixel depends only on the config and the world cells
around it: tiles of one zoom meet without seams, and a tile at the native
zoom equals the same pixels of the CLI's map (away from that map's
one-pixel border).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen._errors import ParameterError
from worldgen.io._image import png_bytes
from worldgen.products._maps import MapConfig, make_layers
from worldgen.products._pictures import BIOME_SHADE, relief_shade, shaded_colour
from worldgen.products._shading import apply_shade, colour_ramp
from worldgen.web._tiles import HALF, check_tile, tile_step, tile_window
from worldgen.world._rivers import drawn, solved
from worldgen.world._window import Window


@dataclasses.dataclass(frozen=True)
class Layer:
    """A tile layer: what it shows and the zooms it is served at."""

    name: str
    description: str
    min_zoom: int = 0
    encoding: str | None = None


VOXEL_ZOOM = 12
"""The voxel layer's first zoom (a pixel is 16 x 16 columns there, one at
zoom 16)."""

LAYERS = {
    layer.name: layer
    for layer in (
        Layer("colour", "Height bands in their colours, hillshaded (as colour.png)"),
        Layer("biomes", "Biomes in their palette colours, hillshaded (as biomes.png)"),
        Layer(
            "height",
            "Elevation in metres above sea level (the sea floor negative), "
            "terrarium-encoded: (R * 256 + G + B / 256) - 32768",
            encoding="terrarium",
        ),
        Layer("hillshade", "Relief shading, lit from the north-west at 45 degrees"),
        Layer("temperature", "Temperature at the surface, -20 (blue) to 35 degrees C (red)"),
        Layer("rainfall", "Rainfall, 0 (ochre) to 3000 mm a year (blue); the sea dark"),
        Layer(
            "voxel",
            "The voxel world seen from above, its top blocks and trees (from zoom 12)",
            VOXEL_ZOOM,
        ),
    )
}
"""The layers served, by name."""


def relief(config: MapConfig) -> float:
    """World cells high a height of 1.0 stands, for shading: the map's
    :attr:`~worldgen.products.MapConfig.relief`, as ``worldgen map`` uses."""
    return config.relief


def check_layer(layer: object) -> Layer:
    """The :class:`Layer` called ``layer``; ValueError naming the layers if
    there is none."""
    if not isinstance(layer, str) or layer not in LAYERS:
        raise ValueError(f"layer must be one of {', '.join(LAYERS)}, got {layer!r}")
    return LAYERS[layer]


def check_windowed(config: MapConfig) -> MapConfig:
    """Tiles need a seamless map: a classic map normalised ``'local'`` is
    refused."""
    if not config.seamless:
        raise ParameterError(
            "tiles need terrain normalize='global' or 'none' (seamless); "
            "'local' stretches every window differently",
            "normalize",
        )
    return config


def check_pyramid(config: MapConfig) -> MapConfig:
    """Check that ``config`` can be sampled over the whole tile pyramid
    (the noise refuses coordinates too large for its octaves): a 2 x 2
    window on the pyramid's corners is made once."""
    check_windowed(config)
    ox, oy = config.origin
    corners = Window(ox - HALF, oy - HALF, 2, 2, 2 * HALF)
    try:
        config.elevation(corners)
        if config.world is None:
            make_layers(config, corners)
    except ValueError as exc:
        # Coordinates too large for the octaves, or (a scale near the
        # largest float) the scale of the coarsest tiles overflowing.
        hint = (
            "use a smaller scale"
            if "got inf" in str(exc)
            else "use a larger scale, fewer octaves or a smaller lacunarity"
        )
        raise ParameterError(
            f"this world cannot be sampled over the whole map ({exc}): {hint}"
        ) from None
    return config


def terrarium(metres: np.ndarray) -> np.ndarray:
    """Encode heights in metres as terrarium RGB, shape ``(H, W, 3)`` uint8:
    ``metres + 32768 = R * 256 + G + B / 256`` (to 1/256 m, clipped to the
    encodable range 0..65535.996).

    Examples
    --------
    >>> terrarium(np.array([[0.0, 1.5]])).tolist()
    [[[128, 0, 0], [128, 1, 128]]]
    """
    v = np.clip(np.asarray(metres, dtype=np.float64) + 32768.0, 0.0, 65536.0 - 1.0 / 256)
    fixed = np.floor(v * 256.0).astype(np.int64)
    return np.stack([fixed >> 16, (fixed >> 8) & 255, fixed & 255], axis=-1).astype(np.uint8)


_TEMPERATURE_RAMP = [
    (-20.0, (60, 80, 200)), (0.0, (150, 200, 240)), (12.0, (245, 240, 200)),
    (24.0, (245, 160, 70)), (35.0, (200, 40, 30)),
]  # fmt: skip
_RAINFALL_RAMP = [
    (0.0, (200, 160, 90)), (500.0, (225, 215, 140)), (1200.0, (120, 190, 110)),
    (2000.0, (50, 140, 150)), (3000.0, (30, 70, 170)),
]  # fmt: skip
_SEA = np.array([24, 34, 60], dtype=np.uint8)


def _climate(config: MapConfig, window: Window) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Temperature (degrees C), rainfall (mm a year) and water of a window:
    the world's, or the classic map's temperature and moisture noises
    (0..1) spread over -10..30 degrees and 0..3000 mm."""
    if config.world is not None:
        from worldgen.world._fields import world_fields

        fields = world_fields(config.world, window, rivers=drawn(config.world, window))
        return fields.temperature, fields.rainfall, fields.water
    layers = make_layers(config, window)
    temperature = layers.temperature if layers.temperature is not None else layers.moisture * 0
    return -10.0 + 40.0 * temperature, 3000.0 * layers.moisture, layers.water


def _biome_ids(config: MapConfig, window: Window) -> np.ndarray:
    if config.world is not None:
        from worldgen.world._fields import world_fields

        return world_fields(config.world, window, rivers=drawn(config.world, window)).biome
    return make_layers(config, window).biomes


def _map_tiles(config: MapConfig, layer: str, z: int, x: int, y: int, n: int) -> np.ndarray:
    window = tile_window(z, x, y, origin=config.origin, halo=1, tiles=n)
    inner_window = tile_window(z, x, y, origin=config.origin, tiles=n)
    if layer in ("temperature", "rainfall"):
        temperature, rainfall, water = _climate(config, inner_window)
        if layer == "temperature":
            return colour_ramp(temperature, _TEMPERATURE_RAMP, blend=True)
        image = colour_ramp(rainfall, _RAINFALL_RAMP, blend=True)
        image[water] = _SEA
        return image
    if layer == "height":
        if config.world is not None:
            return terrarium(config.world_ground(inner_window)[0])
        return terrarium(
            config.metres_from_unit(config.unit_elevation(config.elevation(inner_window)))
        )
    wet = None
    if config.world is not None:
        metres, kinds = config.world_ground(window)
        heights = config.unit_from_metres(metres)
        if kinds is not None:
            wet = (kinds[1:-1, 1:-1] == 1) | (kinds[1:-1, 1:-1] == 2)
    else:
        heights = config.unit_elevation(config.elevation(window))
    strength = relief(config) / tile_step(z)  # slopes in world units at every zoom
    if layer == "colour":
        return shaded_colour(config, heights, relief=strength, wet=wet)
    shade = relief_shade(config, heights, relief=strength)
    if layer == "hillshade":
        return np.rint(shade * 255.0).astype(np.uint8)
    biomes = config.biome_palette()[_biome_ids(config, inner_window)]
    return apply_shade(biomes, shade, strength=BIOME_SHADE)


def voxel_config(config: MapConfig):
    """The voxel world shown beside a map: the map's world (a classic map:
    the default world of its seed)."""
    from worldgen.voxel import VoxelConfig
    from worldgen.world._config import WorldConfig

    world = config.world if config.world is not None else WorldConfig(seed=config.seed)
    return VoxelConfig(world=world)


def voxel_note(config: MapConfig) -> str | None:
    """What the page says of the voxel world beside a classic map, which
    has none of its own (see :func:`voxel_config`); ``None`` for a world."""
    if config.world is not None:
        return None
    return (
        f"The voxel layer and chunks show the default world of seed {config.seed}: "
        "this preset has no voxel world."
    )


def _voxel_tiles(config: MapConfig, z: int, x: int, y: int, n: int) -> np.ndarray:
    from worldgen.voxel._render import surface_view

    ox, oy = config.origin
    w = tile_window(z, x, y, origin=config.origin, tiles=n)
    return surface_view(voxel_config(config), Window(w.x - ox, w.y - oy, w.width, w.height, w.step))


def tile_image(
    config: MapConfig, layer: str, z: int, x: int, y: int, *, tiles: int = 1
) -> np.ndarray:
    """The pixels of tile ``(z, x, y)`` of ``layer``, or of the ``tiles x
    tiles`` block of tiles from it made as one window (equal to those tiles
    laid side by side).

    Parameters
    ----------
    config : MapConfig
        The world; a classic map must be normalised ``'global'`` or
        ``'none'`` (tiles of a ``'local'`` map would not meet).
    layer : str
        One of :data:`LAYERS`.
    z, x, y : int
        Tile coordinates (see :mod:`worldgen.web._tiles`); the voxel layer
        exists from :data:`VOXEL_ZOOM`.
    tiles : int
        Tiles along each side of the block (1: one tile).

    Returns
    -------
    numpy.ndarray, uint8
        ``(256 tiles, 256 tiles, 3)`` RGB, or ``(256 tiles, 256 tiles)``
        grey for the hillshade.

    Raises
    ------
    TypeError, ValueError
        For an unknown layer, tile coordinates outside the pyramid or a
        ``'local'`` normalisation.

    Examples
    --------
    >>> from worldgen.world import WorldConfig
    >>> config = MapConfig(world=WorldConfig(seed=3))
    >>> tile_image(config, "height", 16, 2**15, 2**15).shape
    (256, 256, 3)
    """
    info = check_layer(layer)
    check_tile(z, x, y, min_zoom=info.min_zoom)
    check_windowed(config)
    if layer == "voxel":
        return _voxel_tiles(config, z, x, y, tiles)
    return _map_tiles(config, layer, z, x, y, tiles)


def tile_is_slow(config: MapConfig, layer: str, z: int, x: int, y: int) -> bool:
    """Whether tile ``(z, x, y)`` of ``layer`` may take seconds rather than
    milliseconds: a voxel tile, or a tile of a world whose rivers need the
    drainage of a landmass that is not solved yet
    (:func:`~worldgen.world._rivers.solved`). Cheap: nothing is made."""
    if layer == "voxel":
        return True
    if config.world is None:
        return False
    return not solved(config.world, tile_window(z, x, y, origin=config.origin, halo=1))


def point_is_slow(config: MapConfig, cell_x: int, cell_z: int) -> bool:
    """Whether :func:`point_info` of a cell may take seconds: its rivers
    need the drainage of a landmass that is not solved yet."""
    if config.world is None:
        return False
    ox, oy = config.origin
    return not solved(config.world, Window(cell_x + ox, cell_z + oy, 1, 1))


# Layers of flat colours (bands, biomes, ramps) deflate faster and smaller
# with their rows unfiltered; heights and shades with the "up" filter.
_UNFILTERED = frozenset({"colour", "biomes", "temperature", "rainfall"})


def tile_png(config: MapConfig, layer: str, z: int, x: int, y: int) -> bytes:
    """:func:`tile_image` as PNG bytes: what the explorer serves."""
    image = tile_image(config, layer, z, x, y)
    return png_bytes(image, row_filter="none" if layer in _UNFILTERED else "up")


def point_info(config: MapConfig, cell_x: int, cell_z: int) -> dict[str, object]:
    """Height (in [0, 1] and in metres above sea level), biome and climate
    of world cell ``(cell_x, cell_z)``, for the explorer's cursor readout."""
    check_windowed(config)
    ox, oy = config.origin
    window = Window(cell_x + ox, cell_z + oy, 1, 1)
    height = float(config.unit_elevation(config.elevation(window))[0, 0])
    temperature, rainfall, water = _climate(config, window)
    return {
        "x": cell_x,
        "z": cell_z,
        "height": height,
        "metres": float(config.metres_from_unit(np.array(height))),
        "biome": config.biome_names[int(_biome_ids(config, window)[0, 0])],
        "temperature": float(temperature[0, 0]),
        "rainfall": float(rainfall[0, 0]),
        "water": bool(water[0, 0]),
    }
