"""Turning height fields into pictures: colour ramps, hillshading, normal maps, legends.

Height fields are float64 arrays of shape ``(H, W)`` indexed ``[row, col] =
[y, x]`` with row 0 at the top (north) and column 0 at the left (west). RGB
images are uint8 arrays of shape ``(H, W, 3)``.

Slopes are measured with Horn's 3x3 operator (the gradient GDAL's ``gdaldem``
and ESRI's hillshade use), replicating border pixels at the edges, so every
output has the shape of its input. For a window of a bigger world, shade the
window grown by one cell and crop (as :mod:`worldgen.products._pictures`
does), so that the edges see their true neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from worldgen._checks import (
    Colour,
    check_colour,
    check_real,
    check_unit_interval,
    height_field,
    rgb_image,
)
from worldgen._jit import kernel
from worldgen.noise._validate import check_bool, check_int, check_positive
from worldgen.products._classify import tops_below


def _check_stops(stops: object) -> tuple[np.ndarray, np.ndarray]:
    """Thresholds (n,) float64 and colours (n, 3) float64 from ramp stops."""
    if isinstance(stops, (str, bytes)) or not isinstance(stops, Sequence) or len(stops) == 0:
        raise ValueError(
            f"stops must be a non-empty sequence of (threshold, (r, g, b)) pairs, got {stops!r}"
        )
    thresholds = []
    colours = []
    for k, stop in enumerate(stops):
        if not isinstance(stop, (tuple, list)) or len(stop) != 2:
            raise ValueError(f"stops[{k}] must be a (threshold, (r, g, b)) pair, got {stop!r}")
        thresholds.append(check_real(stop[0], f"stops[{k}] threshold"))
        colours.append(check_colour(stop[1], f"stops[{k}] colour"))
    edges = np.array(thresholds)
    if np.any(np.diff(edges) <= 0.0):
        raise ValueError(f"stops: thresholds must be strictly increasing, got {thresholds}")
    return edges, np.array(colours, dtype=np.float64)


def colour_ramp(heights: np.ndarray, stops, *, blend: bool = False) -> np.ndarray:
    """Colour a height field with a ramp of (threshold, colour) stops.

    Parameters
    ----------
    heights : array_like, shape (H, W)
        Finite real values.
    stops : sequence of (float, (int, int, int))
        ``(threshold, (r, g, b))`` pairs with strictly increasing thresholds
        and colour channels from 0 to 255.
    blend : bool
        False (the default) gives bands: a pixel takes the colour of the
        first stop whose threshold is >= its height, and heights above the
        last threshold take the last colour. True interpolates the colours
        linearly between consecutive thresholds (rounded to the nearest
        integer), holding the first colour below the first threshold and
        the last colour above the last.

    Returns
    -------
    numpy.ndarray, shape (H, W, 3), uint8
        The RGB image.

    Raises
    ------
    TypeError
        If ``heights`` does not hold real numbers.
    ValueError
        If ``heights`` is not a finite non-empty 2-D array, or a stop is
        malformed, its thresholds do not increase or a colour channel lies
        outside 0-255.

    Examples
    --------
    >>> import numpy as np
    >>> stops = [(0.5, (0, 0, 255)), (1.0, (255, 255, 255))]
    >>> colour_ramp(np.array([[0.2, 0.7]]), stops).tolist()
    [[[0, 0, 255], [255, 255, 255]]]
    >>> colour_ramp(np.array([[0.75]]), stops, blend=True).tolist()
    [[[128, 128, 255]]]
    """
    heights = height_field(heights)
    edges, colours = _check_stops(stops)
    if not check_bool(blend, "blend"):
        index = np.minimum(np.searchsorted(edges, heights, side="left"), len(edges) - 1)
        return colours.astype(np.uint8)[index]
    out = np.empty((*heights.shape, 3), dtype=np.uint8)
    for channel in range(3):
        out[..., channel] = np.rint(np.interp(heights, edges, colours[:, channel]))
    return out


def _horn_gradient(heights: np.ndarray, cell_size: float) -> tuple[np.ndarray, np.ndarray]:
    """Slopes ``dh/dx`` (toward the east) and ``dh/dy`` (toward the north).

    Horn (1981): with the 3x3 window ``a b c / d e f / g h i`` (``a`` at the
    north-west), ``dh/dx = ((c + 2f + i) - (a + 2d + g)) / (8 cell)`` and
    ``dh/dy = ((a + 2b + c) - (g + 2h + i)) / (8 cell)``. Border pixels are
    replicated, which halves the slope across the outermost ring.
    """
    p = np.pad(heights, 1, mode="edge")
    north = p[:-2, :-2] + 2.0 * p[:-2, 1:-1] + p[:-2, 2:]
    south = p[2:, :-2] + 2.0 * p[2:, 1:-1] + p[2:, 2:]
    west = p[:-2, :-2] + 2.0 * p[1:-1, :-2] + p[2:, :-2]
    east = p[:-2, 2:] + 2.0 * p[1:-1, 2:] + p[2:, 2:]
    scale = 1.0 / (8.0 * cell_size)
    return (east - west) * scale, (north - south) * scale


def hillshade(
    heights: np.ndarray,
    *,
    azimuth: float = 315.0,
    altitude: float = 45.0,
    exaggeration: float = 1.0,
    cell_size: float = 1.0,
) -> np.ndarray:
    """Relief shading: how brightly a distant light lights each cell.

    Parameters
    ----------
    heights : array_like, shape (H, W)
        Finite heights, in the same unit as ``cell_size``.
    azimuth : float
        Direction the light comes from, in degrees clockwise from north
        (row 0 is north, column 0 west): 0 north, 90 east. The default, 315,
        lights the map from the north-west, the cartographic custom.
    altitude : float
        Angle of the light above the horizon, 0 to 90 degrees.
    exaggeration : float
        Vertical exaggeration (GDAL's z factor), > 0: slopes are multiplied
        by it.
    cell_size : float
        Horizontal distance between neighbouring cells, > 0.

    Returns
    -------
    numpy.ndarray, shape (H, W), float64
        Brightness in [0, 1]: 1 where the surface faces the light, 0 where
        it faces away or lies in its own shadow. A flat field gives
        ``sin(altitude)`` everywhere.

    Raises
    ------
    TypeError, ValueError
        If ``heights`` is not a finite non-empty 2-D array of numbers, or a
        parameter is not a finite number in its range.

    Notes
    -----
    The slopes ``p = dh/dx`` (east) and ``q = dh/dy`` (north) come from
    Horn's method (see ``_horn_gradient``), times ``exaggeration``, with
    border pixels replicated. The brightness is the cosine between the
    surface normal ``(-p, -q, 1)`` and the direction to the light
    ``(sin(az) cos(alt), cos(az) cos(alt), sin(alt))``, clipped at 0:

        shade = (sin(alt) - p sin(az) cos(alt) - q cos(az) cos(alt)) / sqrt(1 + p^2 + q^2)

    which is the formula of ``gdaldem hillshade`` (scaled to [0, 1] instead
    of 1-255). Cast shadows are not traced.

    Examples
    --------
    >>> import numpy as np
    >>> shade = hillshade(np.zeros((2, 3)), altitude=30.0)
    >>> np.allclose(shade, 0.5)
    True
    """
    heights = height_field(heights)
    az = np.radians(check_real(azimuth, "azimuth"))
    alt_degrees = check_real(altitude, "altitude")
    if not 0.0 <= alt_degrees <= 90.0:
        raise ValueError(f"altitude must be from 0 to 90 degrees, got {altitude!r}")
    alt = np.radians(alt_degrees)
    z = check_positive(exaggeration, "exaggeration")
    cell = check_positive(cell_size, "cell_size")
    with np.errstate(over="ignore", invalid="ignore"):
        dx, dy = _horn_gradient(heights, cell)
        dx *= z
        dy *= z
    # Slopes beyond 1e150 would overflow their squares (and shade NaN).
    if not ((np.abs(dx) <= 1e150).all() and (np.abs(dy) <= 1e150).all()):
        raise ValueError(
            "heights * exaggeration / cell_size give slopes beyond 1e150; lower "
            "exaggeration or rescale the heights"
        )
    lit = np.sin(alt) - (dx * np.sin(az) + dy * np.cos(az)) * np.cos(alt)
    shade = lit / np.sqrt(1.0 + dx * dx + dy * dy)
    return np.clip(shade, 0.0, 1.0)


def apply_shade(rgb: np.ndarray, shade: np.ndarray, *, strength: float = 0.5) -> np.ndarray:
    """Darken a colour map by a hillshade.

    Parameters
    ----------
    rgb : array_like, shape (H, W, 3), uint8
        The colour map, e.g. from :func:`colour_ramp`.
    shade : array_like, shape (H, W)
        Brightness in [0, 1], e.g. from :func:`hillshade`.
    strength : float
        From 0 (colours unchanged) to 1 (colours multiplied by the shade).

    Returns
    -------
    numpy.ndarray, shape (H, W, 3), uint8
        ``round(rgb * (1 - strength + strength * shade))``, per channel.

    Raises
    ------
    TypeError, ValueError
        If ``rgb`` is not an (H, W, 3) array of values 0-255, ``shade`` is
        not an (H, W) array of values in [0, 1], or ``strength`` is not in
        [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> rgb = np.full((1, 2, 3), 200, dtype=np.uint8)
    >>> apply_shade(rgb, np.array([[1.0, 0.0]]), strength=0.5)[..., 0].tolist()
    [[200, 100]]
    """
    rgb = rgb_image(rgb)
    shade = height_field(shade, "shade")
    if shade.shape != rgb.shape[:2]:
        raise ValueError(
            f"shade must have the shape of rgb without its channels, {rgb.shape[:2]}, "
            f"got {shade.shape}"
        )
    if shade.min() < 0.0 or shade.max() > 1.0:
        raise ValueError("shade must lie within [0, 1]; hillshade() gives such values")
    strength = check_unit_interval(strength, "strength")
    factor = (1.0 - strength) + strength * shade
    return np.rint(rgb * factor[..., None]).astype(np.uint8)


@kernel
def _shade_row(above, middle, below, sea, z, sin_alt, sin_az, cos_az, cos_alt, shades):
    # hillshade(max(heights, sea), exaggeration=z) of the inner cells of a
    # row (``middle``, between the rows ``above`` and ``below``): the same
    # arithmetic in the same order as hillshade and _horn_gradient. A loop
    # of its own, which vectorises (square root and division included).
    scale = 1.0 / 8.0
    for c in range(shades.size):
        a = max(above[c], sea)
        b = max(above[c + 1], sea)
        cc = max(above[c + 2], sea)
        d = max(middle[c], sea)
        f = max(middle[c + 2], sea)
        g = max(below[c], sea)
        h = max(below[c + 1], sea)
        i = max(below[c + 2], sea)
        north = a + 2.0 * b + cc
        south = g + 2.0 * h + i
        west = a + 2.0 * d + g
        east = cc + 2.0 * f + i
        dx = (east - west) * scale
        dy = (north - south) * scale
        dx *= z
        dy *= z
        lit = sin_alt - (dx * sin_az + dy * cos_az) * cos_alt
        shade = lit / np.sqrt(1.0 + dx * dx + dy * dy)
        shades[c] = min(max(shade, 0.0), 1.0)


@kernel
def _shaded_bands(
    padded, sea, tops, colours, z, sin_alt, sin_az, cos_az, cos_alt, strength, wet, wet_top, out,
    ordered,
):  # fmt: skip
    # hillshade(max(padded, sea), exaggeration=z) on the inner cells, the
    # stepped band colours of the heights there (those of wet cells above
    # wet_top at wet_top; wet has no rows when there are none), and
    # apply_shade: the same arithmetic in the same order as those
    # functions, fused. Each row in loops of its own, as _pictures: the
    # hillshade, the bands (see _row_bands), and the shading and rounding,
    # which vectorise.
    rows, cols = out.shape[0], out.shape[1]
    shades = np.empty(cols)
    band = np.empty(cols, np.int64)
    for r in range(rows):
        above, middle, below = padded[r], padded[r + 1], padded[r + 2]
        _shade_row(above, middle, below, sea, z, sin_alt, sin_az, cos_az, cos_alt, shades)
        _row_bands(middle, r, tops, wet, wet_top, ordered, band)
        row = out[r]
        for c in range(cols):
            factor = (1.0 - strength) + strength * shades[c]
            k = band[c]
            for ch in range(3):
                row[c, ch] = np.uint8(np.rint(colours[k, ch] * factor))


@kernel
def _row_bands(middle, r, tops, wet, wet_top, ordered, band):
    # The band of each inner cell of row r: the first k with tops[k] at or
    # above its height (the last band above every top); a wet cell above
    # wet_top is taken at wet_top (wet has no rows when there are none).
    # With the tops in order that is the count of tops (but the last)
    # below the height, a loop without branches that vectorises.
    cols = band.size
    if ordered:
        if wet.shape[0] > 0:
            for c in range(cols):
                height = middle[c + 1]
                if wet[r, c] and height > wet_top:
                    height = wet_top
                band[c] = tops_below(tops, height)
        else:
            for c in range(cols):
                band[c] = tops_below(tops, middle[c + 1])
    else:
        for c in range(cols):
            band[c] = _band_of(middle, r, c, tops, wet, wet_top)


@kernel
def _pictures(
    padded, sea, tops, colours, z, sin_alt, sin_az, cos_az, cos_alt, strength, wet, wet_top,
    biomes, palette, biome_strength, normal_strength, colour, shaded_biomes, normal, ordered,
):  # fmt: skip
    # In one pass, of the inner cells of ``padded``: the colour of
    # _shaded_bands, the biome colours shaded by the same hillshade
    # (apply_shade at ``biome_strength``) and normal_map(padded,
    # strength=normal_strength) of the heights as they are, each the same
    # arithmetic in the same order as those functions.
    # Each row in loops of their own: the band search, which does not
    # vectorise, apart from the shading and rounding of both pictures,
    # which do (gathering each cell's band and biome colour).
    rows, cols = colour.shape[0], colour.shape[1]
    shades = np.empty(cols)
    band = np.empty(cols, np.int64)
    for r in range(rows):
        above, middle, below = padded[r], padded[r + 1], padded[r + 2]
        _shade_row(above, middle, below, sea, z, sin_alt, sin_az, cos_az, cos_alt, shades)
        _normal_row(above, middle, below, -normal_strength, normal[r])
        _row_bands(middle, r, tops, wet, wet_top, ordered, band)
        row_colour, row_biomes, row_ids = colour[r], shaded_biomes[r], biomes[r]
        for c in range(cols):
            factor = (1.0 - strength) + strength * shades[c]
            k = band[c]
            for ch in range(3):
                row_colour[c, ch] = np.uint8(np.rint(colours[k, ch] * factor))
            factor = (1.0 - biome_strength) + biome_strength * shades[c]
            b = row_ids[c]
            for ch in range(3):
                row_biomes[c, ch] = np.uint8(np.rint(palette[b, ch] * factor))


@kernel
def _band_of(middle, r, c, tops, wet, wet_top):
    # The band of inner cell (r, c) by a search (the tops in any order).
    height = middle[c + 1]
    if wet.shape[0] > 0 and wet[r, c] and height > wet_top:
        height = wet_top
    k = 0
    while k < tops.size - 1 and tops[k] < height:
        k += 1
    return k


@kernel
def _normal_row(above, middle, below, minus, out):
    # normal_map(padded, strength=-minus) of the inner cells of a row
    # (``middle``, between ``above`` and ``below``) into ``out`` (W, 3): the
    # same arithmetic as normal_map, in a loop of its own, which vectorises.
    for c in range(out.shape[0]):
        north = above[c] + 2.0 * above[c + 1] + above[c + 2]
        south = below[c] + 2.0 * below[c + 1] + below[c + 2]
        west = above[c] + 2.0 * middle[c] + below[c]
        east = above[c + 2] + 2.0 * middle[c + 2] + below[c + 2]
        nx = minus * ((east - west) * 0.125)
        ny = minus * ((north - south) * 0.125)
        length = np.sqrt(nx * nx + ny * ny + 1.0)
        out[c, 0] = np.uint8(np.floor((nx / length + 1.0) * 127.5 + 0.5))
        out[c, 1] = np.uint8(np.floor((ny / length + 1.0) * 127.5 + 0.5))
        out[c, 2] = np.uint8(np.floor((1.0 / length + 1.0) * 127.5 + 0.5))


def shaded_pictures(
    padded: np.ndarray,
    sea: float,
    bands,
    *,
    exaggeration: float,
    strength: float,
    wet: np.ndarray | None,
    wet_top: float,
    biomes: np.ndarray,
    palette: np.ndarray,
    biome_strength: float,
    normal_strength: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``shaded_bands(padded, sea, bands, ...)``, the biome colours
    ``apply_shade(palette[biomes], shade, strength=biome_strength)`` by the
    same hillshade and ``normal_map(padded, strength=normal_strength)``
    of the inner cells, in one pass: (colour, biomes, normal), each (H, W,
    3) uint8, the bytes of those functions. ``padded`` is float64 with a
    one-cell halo, checked by the caller."""
    inner = (padded.shape[0] - 2, padded.shape[1] - 2)
    az, alt = np.radians(315.0), np.radians(45.0)
    tops = np.array([b.top for b in bands], dtype=np.float64)
    colours = np.array([b.colour for b in bands], dtype=np.float64)
    wet = np.empty((0, 0), dtype=np.bool_) if wet is None else np.asarray(wet, dtype=np.bool_)
    colour, shaded, normal = (np.empty((*inner, 3), dtype=np.uint8) for _ in range(3))
    _pictures(
        padded, float(sea), tops, colours, float(exaggeration), float(np.sin(alt)),
        float(np.sin(az)), float(np.cos(az)), float(np.cos(alt)), float(strength), wet,
        float(wet_top), np.ascontiguousarray(biomes), np.ascontiguousarray(palette, np.uint8),
        float(biome_strength), float(normal_strength), colour, shaded, normal,
        _in_order(tops),
    )  # fmt: skip
    return colour, shaded, normal


def shaded_bands(
    padded: np.ndarray,
    sea: float,
    bands,
    *,
    exaggeration: float,
    strength: float,
    wet: np.ndarray | None = None,
    wet_top: float = 0.0,
) -> np.ndarray:
    """Stepped band colours of the inner cells of ``padded`` (heights with a
    one-cell halo), darkened by the hillshade of ``max(padded, sea)``: the
    bytes of ``apply_shade(colour_ramp(inner, stops), hillshade(...)[1:-1,
    1:-1], strength)`` in one pass (``bands``: objects with ``top`` and
    ``colour``). Cells where ``wet`` (bool, the inner cells' shape) is true
    and the height above ``wet_top`` take the colour of ``wet_top`` (their
    shade still comes from their own heights)."""
    heights = height_field(padded)
    if min(heights.shape) < 3:
        raise ValueError(f"heights with a halo must be at least 3 x 3, got {heights.shape}")
    inner = (heights.shape[0] - 2, heights.shape[1] - 2)
    if wet is None:
        wet = np.empty((0, 0), dtype=np.bool_)
    elif np.shape(wet) != inner:
        raise ValueError(f"wet must have the inner cells' shape {inner}, got {np.shape(wet)}")
    z = check_positive(exaggeration, "exaggeration")
    az, alt = np.radians(315.0), np.radians(45.0)
    tops = np.array([b.top for b in bands], dtype=np.float64)
    colours = np.array([b.colour for b in bands], dtype=np.float64)
    out = np.empty((*inner, 3), dtype=np.uint8)
    _shaded_bands(
        heights, float(sea), tops, colours, float(z), float(np.sin(alt)), float(np.sin(az)),
        float(np.cos(az)), float(np.cos(alt)), float(check_unit_interval(strength, "strength")),
        np.asarray(wet, dtype=np.bool_), float(wet_top), out, _in_order(tops),
    )  # fmt: skip
    return out


def _in_order(tops: np.ndarray) -> bool:
    """Whether the band tops never fall (then a cell's band is the count
    of tops below it)."""
    return bool(np.all(tops[1:] >= tops[:-1]))


def normal_map(heights: np.ndarray, *, strength: float = 1.0, cell_size: float = 1.0) -> np.ndarray:
    """A tangent-space normal map of a height field, as game engines read it.

    Parameters
    ----------
    heights : array_like, shape (H, W)
        Finite heights, in the same unit as ``cell_size``.
    strength : float
        Multiplies the slopes before normalising, > 0: higher values give
        more pronounced relief.
    cell_size : float
        Horizontal distance between neighbouring cells, > 0.

    Returns
    -------
    numpy.ndarray, shape (H, W, 3), uint8
        Red is the normal's x (east), green its y (north, up the image),
        blue its z (out of the surface), each mapped from [-1, 1] to
        [0, 255]. A flat field gives (128, 128, 255).

    Raises
    ------
    TypeError, ValueError
        If ``heights`` is not a finite non-empty 2-D array of numbers, or
        ``strength`` or ``cell_size`` is not a finite number > 0.

    Notes
    -----
    OpenGL convention ("Y+", as Blender, Unity and Godot expect; DirectX
    engines flip the green channel): with Horn's slopes ``p = dh/dx``
    (east) and ``q = dh/dy`` (north, i.e. up the image; rows run south),

        n = normalize(-strength * p, -strength * q, 1)

    and each component ``c`` is stored as ``floor((c + 1) * 127.5 + 0.5)``.
    A surface rising to the east tilts its normal toward -x (red < 128).

    Examples
    --------
    >>> import numpy as np
    >>> normal_map(np.zeros((1, 1))).tolist()
    [[[128, 128, 255]]]
    """
    heights = height_field(heights)
    s = check_positive(strength, "strength")
    dx, dy = _horn_gradient(heights, check_positive(cell_size, "cell_size"))
    normal = np.stack([-s * dx, -s * dy, np.ones_like(dx)], axis=-1)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    return np.floor((normal + 1.0) * 127.5 + 0.5).astype(np.uint8)


def legend(
    names: Sequence[str], colours: Sequence[Colour], *, swatch: int = 16, padding: int = 4
) -> np.ndarray:
    """A legend: a column of colour swatches with their names beside them.

    Parameters
    ----------
    names : sequence of str
        One label per entry, top to bottom.
    colours : sequence of (int, int, int)
        One colour per entry, channels 0-255.
    swatch : int
        Side of each square swatch in pixels, 1 to 1024.
    padding : int
        Gap in pixels around and between the entries, 0 to 1024.

    Returns
    -------
    numpy.ndarray, shape (H, W, 3), uint8
        Black text and black-outlined swatches on white. The height grows
        with the number of entries and the width with the longest name.

    Raises
    ------
    TypeError, ValueError
        If the names are not strings, a colour is not three integers
        0-255, the two sequences differ in length or are empty, or
        ``swatch`` or ``padding`` is out of range.

    Notes
    -----
    Drawn with Pillow's ``ImageDraw`` in its default font
    (``ImageFont.load_default()``), so no font file is needed; the exact
    pixels depend on the Pillow version.

    Examples
    --------
    >>> image = legend(["water", "land"], [(40, 70, 150), (90, 160, 60)])
    >>> image.dtype, image.shape[2]
    (dtype('uint8'), 3)
    """
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError(f"names must be a sequence of strings, got {names!r}")
    if isinstance(colours, str) or not isinstance(colours, Sequence):
        raise TypeError(f"colours must be a sequence of (r, g, b) triples, got {colours!r}")
    if len(names) == 0:
        raise ValueError("names must hold at least one entry")
    if len(names) != len(colours):
        raise ValueError(
            f"names and colours must have the same length, got {len(names)} names "
            f"and {len(colours)} colours"
        )
    for k, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(f"names[{k}] must be a string, got {name!r}")
    fills = [check_colour(c, f"colours[{k}]") for k, c in enumerate(colours)]
    swatch = check_int(swatch, "swatch", 1, 1024)
    padding = check_int(padding, "padding", 0, 1024)

    font = ImageFont.load_default()
    boxes = [font.getbbox(name) for name in names]
    text_height = max(b[3] - b[1] for b in boxes)
    text_width = max(b[2] - b[0] for b in boxes)
    row = max(swatch, text_height)
    width = 3 * padding + swatch + text_width
    height = padding + len(names) * (row + padding)

    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    for k, (name, fill, box) in enumerate(zip(names, fills, boxes)):
        top = padding + k * (row + padding)
        y0 = top + (row - swatch) // 2
        draw.rectangle(
            [padding, y0, padding + swatch - 1, y0 + swatch - 1], fill=fill, outline="black"
        )
        ty = top + (row - (box[3] - box[1])) // 2 - box[1]
        draw.text((2 * padding + swatch - box[0], ty), name, fill="black", font=font)
    return np.asarray(image, dtype=np.uint8).copy()


__all__ = ["apply_shade", "colour_ramp", "hillshade", "legend", "normal_map"]
