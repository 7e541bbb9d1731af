"""Pictures of a window of a map, in world units: shaded colour, normal and biome maps.

A picture of a window equals the same window cut from the picture of any
bigger window, byte for byte, because nothing in it depends on the window:

- Strength comes from world units. A cell is one world unit across and a
  height of 1.0 stands ``MapConfig.relief`` cells high (default
  :data:`~worldgen.terrain.DEFAULT_RELIEF`, 128), so the hillshade and the
  normal map see the same slope wherever and however big the window is (not
  a multiple of the window's size, not its min..max). A window sampled
  every ``step`` cells (a level of detail) takes its slopes over ``step``
  cells, as the explorer's tiles of that level do.
- Edges come from the world. Slopes use Horn's 3x3 operator, which reaches
  one cell (:data:`PICTURE_HALO`) beyond the window; the pictures are made
  from the window's heights with that halo, taken from the same pure height
  function, and cropped, instead of replicating the window's edge.
- Colours come from heights normalised ``'global'`` or ``'none'`` (mapped
  from the fractal's bounds, :meth:`MapConfig.unit_elevation`), which are
  pointwise. A map normalised ``'local'`` is stretched to its own range,
  so only the whole map has a meaning there.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen._checks import height_field
from worldgen.noise._validate import check_bool, check_int, check_positive
from worldgen.products._maps import MapConfig, MapLayers, make_layers
from worldgen.products._shading import (
    apply_shade,
    colour_ramp,
    hillshade,
    normal_map,
    shaded_bands,
    shaded_pictures,
)
from worldgen.world._window import Window

PICTURE_HALO = 1
"""Cells beyond a window that its pictures depend on (Horn's 3x3 slopes)."""

# How strongly the shade darkens the colour and the biome maps.
_COLOUR_SHADE = 0.6
BIOME_SHADE = 0.35
"""How strongly the shade darkens the biome maps."""


@dataclasses.dataclass
class MapPictures:
    """The pictures of one window of a map, all ``(H, W)`` or ``(H, W, 3)``.

    Attributes
    ----------
    height : float64 (H, W) in [0, 1]
        The heights as ``height.png`` stores them (``'none'`` mapped from
        the fractal's bounds).
    colour : uint8 (H, W, 3)
        Band colours with hillshading.
    normal : uint8 (H, W, 3)
        Tangent-space normal map (OpenGL convention, see :func:`normal_map`).
    biomes : uint8 (H, W, 3)
        Biome colours with a lighter hillshading.
    """

    height: np.ndarray
    colour: np.ndarray
    normal: np.ndarray
    biomes: np.ndarray


def _with_halo(heights: np.ndarray, halo: int) -> np.ndarray:
    """Heights with a one-cell halo: the given one's, or the edge replicated."""
    halo = check_int(halo, "halo", 0, PICTURE_HALO)
    if halo == 0:
        return np.pad(np.asarray(heights, dtype=np.float64), 1, mode="edge")
    if np.ndim(heights) != 2 or min(np.shape(heights)) < 3:
        raise ValueError(
            f"heights with a halo must be 2-D and at least 3 x 3, got shape {np.shape(heights)}"
        )
    return heights


def relief_shade(
    config: MapConfig, heights: np.ndarray, *, relief: float | None = None, halo: int = 1
) -> np.ndarray:
    """Hillshade of unit heights, water lit as a level surface at sea level.

    Parameters
    ----------
    config : MapConfig
        Gives the sea level (the top of the water bands) and the relief.
    heights : array_like, shape (H + 2 halo, W + 2 halo)
        Heights in [0, 1] (see :meth:`MapConfig.unit_elevation`) of the
        window and ``halo`` cells around it.
    relief : float, optional
        How many cells high a height of 1.0 stands (> 0; default
        ``config.relief``).
    halo : {1, 0}
        1: ``heights`` has the one-cell halo, from the same height function
        as the window, and the result is exactly the crop of a bigger
        window's. 0: ``heights`` is the window alone and its edge is
        replicated (for a finite map with nothing beyond it).

    Returns
    -------
    numpy.ndarray, shape (H, W), float64 in [0, 1]

    Examples
    --------
    >>> import numpy as np
    >>> relief_shade(MapConfig(), np.full((3, 4), 0.8)).shape
    (1, 2)
    """
    padded = _with_halo(heights, halo)
    relief = config.relief if relief is None else check_positive(relief, "relief")
    shade = hillshade(np.maximum(padded, config.sea_level), exaggeration=relief)
    return shade[1:-1, 1:-1]


def shaded_colour(
    config: MapConfig,
    heights: np.ndarray,
    *,
    relief: float | None = None,
    blend: bool = False,
    halo: int = 1,
    wet: np.ndarray | None = None,
) -> np.ndarray:
    """Band colours (stepped, or blended between band tops) with hillshading.

    ``heights``, ``relief`` and ``halo`` are as for :func:`relief_shade`;
    returns an ``(H, W, 3)`` uint8 picture of the window. ``wet`` (bool, the
    window's shape), if given, marks lakes and rivers: on land they take the
    top water band's colour, as in :func:`map_pictures`.

    Examples
    --------
    >>> import numpy as np
    >>> shaded_colour(MapConfig(), np.full((3, 3), 0.5)).shape
    (1, 1, 3)
    """
    check_bool(blend, "blend")
    padded = _with_halo(heights, halo)
    relief = config.relief if relief is None else check_positive(relief, "relief")
    water = config.water_classes
    top = config.bands[max(water)].top if water else None
    if wet is not None and top is not None:
        wet = np.asarray(wet, dtype=bool)
        if wet.shape != (padded.shape[0] - 2, padded.shape[1] - 2):
            raise ValueError(
                f"wet must have the window's shape {padded.shape[0] - 2, padded.shape[1] - 2}, "
                f"got {wet.shape}"
            )
    else:
        wet = None
    starts = range(0, padded.shape[0] - 2, _band_rows(padded.shape[1]))
    pieces = []
    for r0, part in zip(starts, _bands(padded)):
        # Lakes and rivers above the water bands take the top water band's
        # colour, as in map_pictures (the same bytes).
        rows = None if wet is None else wet[r0 : r0 + part.shape[0] - 2]
        if not blend:  # one pass, the same bytes
            bands = shaded_bands(
                part, config.sea_level, config.bands, exaggeration=relief,
                strength=_COLOUR_SHADE, wet=rows, wet_top=0.0 if top is None else top,
            )  # fmt: skip
            pieces.append(bands)
            continue
        shown = part[1:-1, 1:-1] if rows is None else _wet_at_top(part[1:-1, 1:-1], rows, top)
        pieces.append(
            _band_colours(config, shown, relief_shade(config, part, relief=relief), blend)
        )
    return _joined(pieces)


# Cells of a picture made at a time: every picture is pointwise but for the
# slopes, which reach one cell, so bands of rows with a one-row halo give
# the same bytes as the whole, with temporaries of a band only.
_BAND_CELLS = 2**19


def _band_rows(width: int) -> int:
    return max(1, _BAND_CELLS // max(1, width))


def _bands(padded: np.ndarray):
    """Heights with a one-cell halo, a band of rows (and that halo) at a time."""
    rows, step = padded.shape[0] - 2, _band_rows(padded.shape[1])
    for r0 in range(0, rows, step):
        yield padded[r0 : min(rows, r0 + step) + 2]


def _joined(bands) -> np.ndarray:
    """The pictures of the bands, one under the other."""
    bands = list(bands)
    return bands[0] if len(bands) == 1 else np.concatenate(bands)


def _wet_at_top(shown: np.ndarray, wet: np.ndarray, top: float) -> np.ndarray:
    """Heights with lakes and rivers above the water bands' ``top`` put at
    it (so they take its colour)."""
    return np.where(wet & (shown > top), top, shown)


def _band_colours(config: MapConfig, heights, shade, blend: bool) -> np.ndarray:
    stops = [(b.top, b.colour) for b in config.bands]
    return apply_shade(colour_ramp(heights, stops, blend=blend), shade, strength=_COLOUR_SHADE)


def map_pictures(
    config: MapConfig,
    window: Window | None = None,
    *,
    layers: MapLayers | None = None,
    blend: bool = False,
    heights: np.ndarray | None = None,
) -> MapPictures:
    """The pictures of ``window`` of a map (default: the whole map).

    Parameters
    ----------
    config : MapConfig
        The map; its ``relief`` is the shading's height scale.
    window : Window, optional
        The part of the map's pixel grid to picture. A window sampled every
        ``step`` cells (a level of detail) has its slopes over ``step``
        cells, so it shades as the explorer's tiles of that level do.
    layers : MapLayers, optional
        ``make_layers(config, window)``, if already made (its biomes are
        used; made here otherwise).
    blend : bool
        Blend the band colours instead of stepping them.
    heights : array_like, optional
        Unit heights of the window grown by :data:`PICTURE_HALO` cells to
        picture instead of the map's (e.g. carved ones, see
        :func:`~worldgen.terrain.make_terrain`).

    Returns
    -------
    MapPictures

    Notes
    -----
    With ``normalize='global'`` or ``'none'`` every picture of a window
    equals the same window cut from the pictures of a bigger one, byte for
    byte: the heights are a pure function of the window (made here with a
    one-cell halo for the slopes), and the shading strength is in world
    units. With ``'local'`` the heights are stretched to the window's own
    range (the halo with them), so only the whole map is meaningful.

    Examples
    --------
    >>> from worldgen.terrain import NoiseMap
    >>> config = MapConfig(terrain=NoiseMap(width=32, height=16, normalize="global"))
    >>> whole = map_pictures(config)
    >>> part = map_pictures(config, Window(8, 4, 8, 8))
    >>> bool((whole.normal[4:12, 8:16] == part.normal).all())
    True
    """
    check_bool(blend, "blend")
    window = config.window if window is None else window
    if layers is None:
        layers = make_layers(config, window)
    if layers.biomes.shape != window.shape:
        raise ValueError(
            f"layers must be those of the window, shape {window.shape}, got {layers.biomes.shape}"
        )
    if heights is None:
        heights = config.unit_elevation(config.elevation(window, halo=PICTURE_HALO))
    elif np.shape(heights) != window.grown(PICTURE_HALO).shape:
        raise ValueError(
            f"heights must be those of the window with a {PICTURE_HALO}-cell halo, shape "
            f"{window.grown(PICTURE_HALO).shape}, got {np.shape(heights)}"
        )
    palette = config.biome_palette()
    water = config.water_classes
    top = config.bands[max(water)].top if water else None
    colour, normal, biomes = [], [], []
    heights = np.asarray(heights)
    relief = config.relief / window.step  # a sample is step cells across
    if not blend and heights.dtype == np.float64 and _gentle(heights, relief):
        # One compiled pass, the same bytes as the bands below.
        wet = layers.water if layers.water is not None and top is not None else None
        colour, shaded, normal = shaded_pictures(
            np.ascontiguousarray(heights), config.sea_level, config.bands,
            exaggeration=relief, strength=_COLOUR_SHADE, wet=wet,
            wet_top=0.0 if top is None else top, biomes=layers.biomes, palette=palette,
            biome_strength=BIOME_SHADE, normal_strength=relief,
        )  # fmt: skip
        return MapPictures(height=heights[1:-1, 1:-1], colour=colour, normal=normal, biomes=shaded)
    starts = range(0, window.height, _band_rows(heights.shape[1]))
    for r0, part in zip(starts, _bands(heights)):
        shade = relief_shade(config, part, relief=relief)
        rows = layers.biomes[r0 : r0 + shade.shape[0]]
        biomes.append(apply_shade(palette[rows], shade, strength=BIOME_SHADE))
        shown = part[1:-1, 1:-1]
        if layers.water is not None and top is not None:
            # Lakes and rivers on land take the top water band's colour.
            shown = _wet_at_top(shown, layers.water[r0 : r0 + shade.shape[0]], top)
        colour.append(_band_colours(config, shown, shade, blend))
        normal.append(normal_map(part, strength=relief)[1:-1, 1:-1])
    return MapPictures(
        height=heights[1:-1, 1:-1],
        colour=_joined(colour),
        normal=_joined(normal),
        biomes=_joined(biomes),
    )


def _gentle(heights: np.ndarray, relief: float) -> bool:
    """Whether ``heights`` are finite and their slopes times ``relief``
    stay within what hillshade accepts (else the bands below make its
    error)."""
    heights = height_field(heights)
    return max(-float(heights.min()), float(heights.max())) * relief <= 1e150


__all__ = [
    "PICTURE_HALO",
    "MapPictures",
    "map_pictures",
    "relief_shade",
    "shaded_colour",
]
