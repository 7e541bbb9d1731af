"""Tile math: a z/x/y tile pyramid over the world's cells.

The pyramid is the usual web-map one (tile ``(0, 0)`` at the north-west,
``2^z x 2^z`` tiles at zoom ``z``, 256 x 256 pixels each), laid over the
world's cells so that its centre is world cell ``(0, 0)``:

- At zoom :data:`NATIVE_ZOOM` one pixel is one world cell; at zoom ``z``
  one pixel stands for the ``step x step`` cells from its corner, ``step =
  2 ** (NATIVE_ZOOM - z)``, at the world's level of detail ``NATIVE_ZOOM -
  z`` (band-limited, see :mod:`worldgen.world._lod`), so a tile costs
  256 x 256 samples at every zoom and is an overview, not an aliased
  point sample, of the cells under it.
- Pixel ``(px, py)`` of tile ``(z, x, y)`` samples world cell
  ``X = (256 x + px) step - HALF``, ``Z = (256 y + py) step - HALF`` with
  ``HALF = 2 ** (NATIVE_ZOOM + 7)``: columns grow east, rows south.
- World cell ``(X, Z)`` is pixel ``(X + ox, Z + oy)`` of the map's own
  grid, ``(ox, oy)`` being :attr:`MapConfig.origin
  <worldgen.products.MapConfig.origin>`: the cell itself for a world, the
  centre of a classic map; it is column ``(X, Z)`` of the voxel world.

Neighbouring tiles sample neighbouring cells: the tiles of a zoom laid side
by side are one continuous grid, so they agree on every shared edge.
"""

from __future__ import annotations

import math

from worldgen.world._window import Window

TILE = 256
"""Pixels along a tile's side."""

NATIVE_ZOOM = 16
"""The zoom at which one pixel is one world cell (the deepest zoom served)."""

HALF = 2 ** (NATIVE_ZOOM + 7)
"""Cells from the pyramid's west (north) edge to its centre."""

EARTH_CIRCUMFERENCE = 40075016.686
"""Metres around the web map's equator (for the elevation tiles)."""

CELL_METRES = EARTH_CIRCUMFERENCE / (TILE * 2**NATIVE_ZOOM)
"""Metres of one world cell at the web map's equator, about 2.39."""


def check_tile(z: object, x: object, y: object, *, min_zoom: int = 0) -> tuple[int, int, int]:
    """Validate tile coordinates: integers with ``min_zoom <= z <=``
    :data:`NATIVE_ZOOM` and ``0 <= x, y < 2^z``.

    Raises
    ------
    TypeError
        If a coordinate is not an integer.
    ValueError
        If one is out of its range (the message says the range).
    """
    for name, value in (("z", z), ("x", x), ("y", y)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"tile {name} must be an integer, got {value!r}")
    if not min_zoom <= z <= NATIVE_ZOOM:
        raise ValueError(f"tile z must be from {min_zoom} to {NATIVE_ZOOM}, got {z}")
    for name, value in (("x", x), ("y", y)):
        if not 0 <= value < 2**z:
            raise ValueError(f"tile {name} must be from 0 to {2**z - 1} at zoom {z}, got {value}")
    return z, x, y


def tile_step(z: int) -> int:
    """World cells per pixel at zoom ``z``."""
    return 2 ** (NATIVE_ZOOM - z)


def tile_origin(z: int, x: int, y: int) -> tuple[int, int]:
    """World cell ``(X, Z)`` sampled by the tile's north-west pixel.

    Examples
    --------
    >>> tile_origin(NATIVE_ZOOM, 2**15, 2**15)
    (0, 0)
    >>> tile_origin(0, 0, 0) == (-HALF, -HALF)
    True
    """
    check_tile(z, x, y)
    step = tile_step(z)
    return x * TILE * step - HALF, y * TILE * step - HALF


def tile_window(
    z: int,
    x: int,
    y: int,
    *,
    origin: tuple[int, int] = (0, 0),
    halo: int = 0,
    tiles: int = 1,
) -> Window:
    """The window of a map's pixel grid that tile ``(z, x, y)`` samples (or
    the ``tiles x tiles`` block of tiles from it), grown by ``halo``
    samples on every side (for stages that look at neighbours).

    ``origin`` is the map's pixel of world cell ``(0, 0)`` (see the module
    docstring).

    Examples
    --------
    >>> tile_window(NATIVE_ZOOM, 2**15, 2**15)
    Window(x=0, y=0, width=256, height=256, step=1)
    >>> tile_window(NATIVE_ZOOM - 1, 2**14, 2**14, origin=(256, 256), halo=1)
    Window(x=254, y=254, width=258, height=258, step=2)
    """
    X, Z = tile_origin(z, x, y)
    if isinstance(tiles, bool) or not isinstance(tiles, int) or not 1 <= tiles <= 2**z - max(x, y):
        raise ValueError(f"tiles must be from 1 to {2**z - max(x, y)} here, got {tiles!r}")
    step = tile_step(z)
    side = TILE * tiles + 2 * halo
    ox, oy = origin
    return Window(X + ox - halo * step, Z + oy - halo * step, side, side, step)


def cell_to_lnglat(x: float, z: float) -> tuple[float, float]:
    """The web-mercator longitude and latitude of world cell ``(x, z)``:
    the inverse of :func:`lnglat_to_cell`, as the page computes it.

    Examples
    --------
    >>> cell_to_lnglat(0.0, 0.0)
    (0.0, 0.0)
    """
    size = TILE * 2**NATIVE_ZOOM
    mx, my = (x + HALF) / size, (z + HALF) / size
    lat = math.degrees(math.atan(math.sinh(math.pi * (1.0 - 2.0 * my))))
    return mx * 360.0 - 180.0, lat


def lnglat_to_cell(lng: float, lat: float) -> tuple[float, float]:
    """World cell ``(X, Z)`` (fractional) under a web-mercator longitude and
    latitude, as the page computes it for its cursor readout.

    Examples
    --------
    >>> lnglat_to_cell(0.0, 0.0)
    (0.0, 0.0)
    """
    mx = (lng + 180.0) / 360.0
    s = math.sin(math.radians(lat))
    my = 0.5 - math.log((1.0 + s) / (1.0 - s)) / (4.0 * math.pi)
    size = TILE * 2**NATIVE_ZOOM
    return mx * size - HALF, my * size - HALF


def cell_bounds() -> list[float]:
    """The pyramid's bounds ``[west, south, east, north]`` in degrees (all
    of web mercator; TileJSON's ``bounds``)."""
    return [-180.0, -85.05112877980659, 180.0, 85.05112877980659]
