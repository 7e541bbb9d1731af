"""Tile products: one library function per layer, (config, z, x, y) -> image.

Every layer is computed from the window the tile samples (see
:mod:`worldgen.web._tiles`), grown by a halo of one sample where a picture
looks at neighbours (hillshading), and cropped back, so each pixel depends
only on the config and the world cells around it: tiles of one zoom meet
without seams, and a tile at the native zoom equals the same pixels of the
CLI's map (away from that map's one-pixel border).
"""

from __future__ import annotations

import dataclasses
import io

import numpy as np
from PIL import Image

from worldgen.products._maps import MapConfig, make_layers
from worldgen.products._pictures import BIOME_SHADE, relief_shade, shaded_colour
from worldgen.products._shading import apply_shade
from worldgen.web._tiles import CELL_METRES, HALF, NATIVE_ZOOM, check_tile, tile_step, tile_window
from worldgen.world._window import Window


@dataclasses.dataclass(frozen=True)
class Layer:
    """A tile layer: what it shows and the zooms it is served at."""

    name: str
    description: str
    min_zoom: int = 0
    encoding: str | None = None


LAYERS = {
    layer.name: layer
    for layer in (
        Layer("colour", "Height bands in their colours, hillshaded (as colour.png)"),
        Layer("biomes", "Biomes in their palette colours, hillshaded (as biomes.png)"),
        Layer(
            "height",
            "Elevation in metres, terrarium-encoded: (R * 256 + G + B / 256) - 32768",
            encoding="terrarium",
        ),
        Layer("hillshade", "Relief shading, lit from the north-west at 45 degrees"),
        Layer("voxel", "The voxel world seen from above (one column per pixel)", NATIVE_ZOOM),
    )
}
"""The layers served, by name."""


def relief(config: MapConfig) -> float:
    """World cells high a height of 1.0 stands, for shading and elevation:
    the map's :attr:`~worldgen.terrain.MapConfig.relief`, as ``worldgen map``
    uses."""
    return config.relief


def height_metres(config: MapConfig) -> float:
    """Metres of a height of 1.0 in the elevation tiles: :func:`relief`
    cells of :data:`~worldgen.web._tiles.CELL_METRES`, so 3D terrain keeps
    the proportions of the shading."""
    return relief(config) * CELL_METRES


def check_layer(layer: object) -> Layer:
    """The :class:`Layer` called ``layer``; ValueError naming the layers if
    there is none."""
    if not isinstance(layer, str) or layer not in LAYERS:
        raise ValueError(f"layer must be one of {', '.join(LAYERS)}, got {layer!r}")
    return LAYERS[layer]


def check_windowed(config: MapConfig) -> MapConfig:
    """Tiles need a seamless normalisation: ``'local'`` is refused."""
    if config.terrain.normalize == "local":
        raise ValueError(
            "tiles need terrain normalize='global' or 'none' (seamless); "
            "'local' stretches every window differently"
        )
    return config


def check_pyramid(config: MapConfig) -> MapConfig:
    """Check that ``config`` can be sampled over the whole tile pyramid
    (the noise refuses coordinates too large for its octaves): a 2 x 2
    window on the pyramid's corners is made once."""
    t = check_windowed(config).terrain
    corners = Window(t.width // 2 - HALF, t.height // 2 - HALF, 2, 2, 2 * HALF)
    try:
        make_layers(config, corners)
    except ValueError as exc:
        raise ValueError(
            f"this world cannot be sampled over the whole map ({exc}): "
            "use a larger scale, fewer octaves or a smaller lacunarity"
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


def _map_tiles(config: MapConfig, layer: str, z: int, x: int, y: int, n: int) -> np.ndarray:
    t = config.terrain
    window = tile_window(z, x, y, width=t.width, height=t.height, halo=1, tiles=n)
    layers = make_layers(config, window)
    heights = config.unit_elevation(layers.elevation)
    inner = (slice(1, -1), slice(1, -1))
    strength = relief(config) / tile_step(z)  # slopes in world units at every zoom
    if layer == "height":
        return terrarium(heights[inner] * height_metres(config))
    if layer == "colour":
        return shaded_colour(config, heights, relief=strength)
    shade = relief_shade(config, heights, relief=strength)
    if layer == "hillshade":
        return np.rint(shade * 255.0).astype(np.uint8)
    biomes = config.biomes.palette()[layers.biomes[inner]]
    return apply_shade(biomes, shade, strength=BIOME_SHADE)


def voxel_config(config: MapConfig):
    """The voxel world shown beside a map: the map's seed, defaults
    otherwise."""
    from worldgen.voxel import VoxelConfig

    return VoxelConfig(seed=config.terrain.seed)


def _voxel_tiles(config: MapConfig, z: int, x: int, y: int, n: int) -> np.ndarray:
    from worldgen.voxel import generate_region, top_down

    world = voxel_config(config)
    t = config.terrain
    w = tile_window(z, x, y, width=t.width, height=t.height, halo=1, tiles=n)
    blocks, _ = generate_region(world, w.x - t.width // 2, w.y - t.height // 2, w.width, w.height)
    image = top_down(blocks, y_min=world.y_min, sea_level=world.sea_level)
    return image[1:-1, 1:-1]


def tile_image(
    config: MapConfig, layer: str, z: int, x: int, y: int, *, tiles: int = 1
) -> np.ndarray:
    """The pixels of tile ``(z, x, y)`` of ``layer``, or of the ``tiles x
    tiles`` block of tiles from it made as one window (equal to those tiles
    laid side by side).

    Parameters
    ----------
    config : MapConfig
        The world; its terrain normalisation must be ``'global'`` or
        ``'none'`` (tiles of a ``'local'`` map would not meet).
    layer : str
        One of :data:`LAYERS`.
    z, x, y : int
        Tile coordinates (see :mod:`worldgen.web._tiles`); the voxel layer
        exists only at the native zoom.
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
    >>> from worldgen.terrain import NoiseMap
    >>> config = MapConfig(terrain=NoiseMap(normalize="global"))
    >>> tile_image(config, "height", 16, 2**15, 2**15).shape
    (256, 256, 3)
    """
    info = check_layer(layer)
    check_tile(z, x, y, min_zoom=info.min_zoom)
    check_windowed(config)
    if layer == "voxel":
        return _voxel_tiles(config, z, x, y, tiles)
    return _map_tiles(config, layer, z, x, y, tiles)


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes of a uint8 grey or RGB image (the same bytes for the same
    pixels). zlib level 1: noise tiles hardly compress further, and level 6
    takes about 2.5 times as long for the same size."""
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def tile_png(config: MapConfig, layer: str, z: int, x: int, y: int) -> bytes:
    """:func:`tile_image` as PNG bytes: what the explorer serves."""
    return encode_png(tile_image(config, layer, z, x, y))


def point_info(config: MapConfig, cell_x: int, cell_z: int) -> dict[str, object]:
    """Height (in [0, 1] and in the elevation tiles' metres) and biome of
    world cell ``(cell_x, cell_z)``, for the explorer's cursor readout."""
    t = check_windowed(config).terrain
    layers = make_layers(config, Window(cell_x + t.width // 2, cell_z + t.height // 2, 1, 1))
    height = float(config.unit_elevation(layers.elevation)[0, 0])
    return {
        "x": cell_x,
        "z": cell_z,
        "height": height,
        "metres": height * height_metres(config),
        "biome": config.biomes.names[int(layers.biomes[0, 0])],
        "water": height <= config.sea_level,
    }
