"""The world's fields by (config, window, level): what every product is a view of.

The graph, from large to small::

    continents (squares, domes, coast noise) -> continentalness c
    plates -> uplift U of the mountain belts
    c, U, ridges, hills -> elevation e (metres above sea level)
    latitude, e, noise -> temperature T;   e along the wind -> rainfall R
    e, T, R -> biome;   e -> water (the sea: e < 0)

A window (:class:`~worldgen.world.Window`) is an origin and a shape in
world cells and a step: its level of detail is ``log2(step)``; each sample
stands for ``step x step`` cells and every field is band-limited for it
(:mod:`~worldgen.world._lod`). Every field is a pure function of the config
and the sample's position and step, so a window made alone equals the same
samples of any bigger window at the same step, byte for byte, in any thread
count.

What a cell depends on, and how far:

- elevation: the cell itself (noises are pointwise); the uplift comes from
  a grid of points every ``max(64, 4 step)`` cells around it (two on each
  side, Catmull-Rom);
- temperature: the cell's elevation and position;
- rainfall: points of a grid every ``max(256, 8 step)`` cells (two on each
  side), and for each the elevation along the line
  :attr:`~worldgen.world.WorldConfig.fetch` cells upwind of it;
- biome: temperature, rainfall and elevation of the cell, and two dither
  noises;
- rivers and lakes (``rivers=True``): the drainage of the region of the
  continent lattice that holds the cell's landmass, solved once for the
  whole region (:mod:`~worldgen.world._drainage`), and the river segments
  within :data:`~worldgen.world._rivers.BANK` cells plus a river's
  half-width.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen._memory import check_memory
from worldgen.noise._validate import check_bool, check_instance
from worldgen.world import _biomes, _climate, _elevation, _rivers, _scratch
from worldgen.world._config import WorldConfig
from worldgen.world._lod import sample_axes
from worldgen.world._window import Window

FIELDS = ("elevation", "temperature", "rainfall", "biome", "water")

# A window of more samples than this is made in strips of rows, each a
# window of its own (the same bytes: every field is exact in any window), so
# that the temporaries of the elevation, rivers and climate are those of a
# strip, not of the window.
STRIP_SAMPLES = 1 << 20
# How far from the world's centre a window's rivers may be drawn: the
# regions they come from are solved on windows of their own, which reach up
# to a block of two continent squares and its warp beyond a sample and
# must stay within a window's range.
RIVERS_REACH = 2**40 - 2**23
# The fewest rows of a strip: the slow fields' coarse grids (the uplift's,
# the rainfall's) are made again for each strip, with their margins.
STRIP_ROWS = 256


@dataclasses.dataclass
class WorldFields:
    """The fields of one window, each of shape ``(H, W)``.

    Attributes
    ----------
    elevation : float64
        Metres above sea level (negative under the sea).
    continentalness : float64
        ``c``, land where ``c >= 0`` (the coast at full detail); None when
        the elevation was given.
    uplift : float64 in [0, 1]
        The mountain belts (None when the elevation was given).
    mountains : float64
        Metres the ranges add to the land, before the coast's land factor;
        0 where that factor is 0 (None when the elevation was given).
    temperature : float64
        Degrees Celsius.
    rainfall : float64
        Millimetres a year.
    biome : uint8
        Index into :data:`~worldgen.world.BIOMES`.
    water : bool
        Water at the surface: the sea (and, with ``rivers``, lakes and
        rivers).
    water_kind : uint8
        With ``rivers``: 0 dry, 1 river, 2 lake, 3 sea.
    surface : float64
        With ``rivers``: the water surface (metres) where there is water,
        the ground elsewhere.
    discharge : float32
        With ``rivers``: m^3/s in rivers, 0 elsewhere.
    """

    elevation: np.ndarray
    continentalness: np.ndarray | None
    uplift: np.ndarray | None
    mountains: np.ndarray | None
    temperature: np.ndarray | None = None
    rainfall: np.ndarray | None = None
    biome: np.ndarray | None = None
    water: np.ndarray | None = None
    water_kind: np.ndarray | None = None
    surface: np.ndarray | None = None
    discharge: np.ndarray | None = None


def world_fields(
    config: WorldConfig,
    window: Window,
    *,
    climate: bool = True,
    elevation: np.ndarray | None = None,
    rivers: bool = False,
) -> WorldFields:
    """The fields of ``window`` (see the module docstring).

    Parameters
    ----------
    config : WorldConfig
    window : Window
        Any window of the plane; ``step`` is the level of detail.
    climate : bool
        Also make temperature, rainfall and biomes (default True).
    elevation : array_like, optional
        Metres above sea level to use instead of the model's for
        temperature, biomes and water (e.g. eroded heights), shape
        ``(H, W)``; rainfall still follows the model's ground upwind.
    rivers : bool
        Also draw rivers and lakes from the drainage of whole landmasses
        (:mod:`~worldgen.world._rivers`): ``elevation`` then holds the
        carved ground, ``water`` every kind of water (default False). Only
        at steps of at most ``continent_size / 64`` cells, where products
        draw them (:func:`~worldgen.world._rivers.drawn`), and in windows
        whose samples lie within :data:`RIVERS_REACH` cells of the centre.

    Returns
    -------
    WorldFields

    Examples
    --------
    >>> fields = world_fields(WorldConfig(seed=3), Window(0, 0, 4, 3, step=1024))
    >>> fields.elevation.shape, fields.biome.dtype.name
    ((3, 4), 'uint8')
    """
    check_instance(config, "config", WorldConfig)
    check_instance(window, "window", Window)
    climate = check_bool(climate, "climate")
    rivers = check_bool(rivers, "rivers")
    if rivers:
        _check_rivers(config, window)
    shape = window.shape
    if elevation is not None:
        elevation = np.asarray(elevation)
        if elevation.dtype.kind not in "iuf":
            raise TypeError(
                f"elevation must hold real numbers (metres), got dtype {elevation.dtype}; "
                "use .astype(numpy.float64)"
            )
        elevation = elevation.astype(np.float64, copy=False)
        if elevation.shape != shape:
            raise ValueError(
                f"elevation must have the window's shape {shape}, got {elevation.shape}"
            )
        if not np.isfinite(elevation).all():
            raise ValueError("elevation must be finite; found NaN or infinity")
    _check_fits(window, 1 + 32 * (elevation is None) + 17 * climate + 13 * rivers)
    return _made(config, window, climate, elevation, rivers)


def _check_rivers(config: WorldConfig, window: Window) -> None:
    """Refuse a window whose rivers are not drawn or lie too far out (see
    :func:`world_fields`)."""
    if not _rivers.drawn(config, window):
        # A sample is then wider than the rivers, and a window would solve
        # the drainage of every region it meets (thousands, an hour).
        limit = config.continent_size // _rivers.DRAWN_SPAN
        raise ValueError(
            f"rivers=True needs a window step of at most continent_size / "
            f"{_rivers.DRAWN_SPAN} = {limit} cells, got step {window.step}: pass "
            "rivers=False or a finer step"
        )
    x, y, s = window.x, window.y, window.step
    ends = (x, y, x + (window.width - 1) * s, y + (window.height - 1) * s)
    if max(map(abs, ends)) > RIVERS_REACH:
        raise ValueError(
            f"rivers=True needs a window whose samples lie within +-{RIVERS_REACH} cells "
            f"(2**40 - 2**23), got x from {ends[0]} to {ends[2]}, y from {ends[1]} to "
            f"{ends[3]}: pass rivers=False or a window nearer the origin"
        )


def _check_fits(window: Window, per_sample: int) -> None:
    """Refuse a window whose arrays returned, ``per_sample`` bytes a
    sample, need more memory than is available: at least those must fit
    (:func:`world_fields` would otherwise make the first strip of a window
    of 2**20 x 2**20 samples, 2**28 of them, before it ran out)."""
    check_memory(
        window.width * window.height * per_sample,
        "window",
        f"the fields of a {window.width} x {window.height} window",
        "make it in smaller windows (Window.tiles)",
    )


def _made(
    config: WorldConfig,
    window: Window,
    climate: bool,
    elevation: np.ndarray | None,
    rivers: bool,
    into: WorldFields | None = None,
) -> WorldFields:
    """:func:`world_fields` of checked arguments (the strips of a window
    are not checked again); the climate's fields written into those of
    ``into`` (arrays of the window's shape, C-contiguous) if given."""
    shape = window.shape
    if window.height >= 2 * _strip_rows(window):
        return _in_strips(config, window, climate, elevation, rivers)
    if elevation is None:
        made = _elevation.relief(config, window)
        elevation = made.elevation.reshape(shape)
        fields = WorldFields(
            elevation,
            made.continentalness.reshape(shape),
            made.uplift.reshape(shape),
            made.mountains.reshape(shape),
            water=elevation < 0.0,
        )
        del made
    else:
        fields = WorldFields(elevation, None, None, None, water=elevation < 0.0)
    if rivers:
        drawn = _rivers.water(config, window, elevation)
        fields.elevation = elevation = drawn.ground
        fields.water = drawn.kind != _rivers.DRY
        fields.water_kind = drawn.kind
        fields.surface = drawn.surface
        fields.discharge = drawn.discharge
    if climate:
        cols, rows = sample_axes(window)
        step = float(window.step)
        seed = config.seed
        noise = _climate.temperature_noise(config).grid(seed, cols, rows, step)
        dest = WorldFields(None, None, None, None) if into is None else into
        fields.temperature = _climate.temperature(
            config, elevation, rows[:, None], noise, out=dest.temperature
        )
        fields.rainfall = _climate.rainfall(config, cols, rows, window.step, out=dest.rainfall)
        dithers = tuple(n.grid(seed, cols, rows, step) for n in _biomes.dither_noises())
        fields.biome = _biomes.classify(
            config, elevation, fields.temperature, fields.rainfall, dithers, out=dest.biome
        )
        if rivers:
            fields.biome[
                (fields.water_kind == _rivers.RIVER) | (fields.water_kind == _rivers.LAKE)
            ] = _biomes.FRESH_WATER
    return fields


def _in_strips(
    config: WorldConfig,
    window: Window,
    climate: bool,
    elevation: np.ndarray | None,
    rivers: bool,
) -> WorldFields:
    """:func:`world_fields` of ``window`` made strip by strip (:func:`_strips`)."""
    # Given heights are the window's elevation unless rivers carve them.
    kept = elevation is not None and not rivers
    names = [f.name for f in dataclasses.fields(WorldFields)]
    out: WorldFields | None = None
    # Each strip's temporaries, and the parts copied out of it, in memory
    # that the previous strip's left (see _scratch).
    pool = _scratch.Pool()
    climate_names = ("temperature", "rainfall", "biome")
    for rows, strip in _strips(window):
        given = None if elevation is None else elevation[rows]
        # After the first strip the climate's fields are made in their
        # rows of the window's (contiguous), not copied there.
        into = None
        if out is not None and climate:
            into = WorldFields(
                None, None, None, None, **{name: getattr(out, name)[rows] for name in climate_names}
            )
        with _scratch.reusing(pool):
            part = _made(config, strip, climate, given, rivers, into)
        if kept:
            part.elevation = None
        if out is None:
            out = WorldFields(
                **{
                    name: None if (a := getattr(part, name)) is None
                    else np.empty(window.shape, a.dtype)
                    for name in names
                }
            )  # fmt: skip
        for name in names:
            a = getattr(part, name)
            if a is not None and not (into is not None and name in climate_names):
                getattr(out, name)[rows] = a
        del part
    if kept:
        out.elevation = elevation
    return out


def biomes(config: WorldConfig, window: Window, elevation) -> np.ndarray:
    """The ``biome`` of ``world_fields(config, window,
    elevation=elevation)``, the same bytes, made in strips of rows as it
    makes them but without the window's temperature, rainfall and water
    beside it (each strip's are temporaries of the strip).

    ``elevation``: metres of the window, shape ``(H, W)``, or a function
    of a slice of its rows that gives theirs, so that a big window's
    metres too are made a strip at a time.
    """
    check_instance(config, "config", WorldConfig)
    check_instance(window, "window", Window)
    if not callable(elevation):
        elevation = np.asarray(elevation, dtype=np.float64)
        if elevation.shape != window.shape:
            raise ValueError(
                f"elevation must have the window's shape {window.shape}, got {elevation.shape}"
            )
        elevation = elevation.__getitem__
    _check_fits(window, 1)
    out = np.empty(window.shape, np.uint8)
    pool = _scratch.Pool()
    for rows, strip in _strips(window):
        into = WorldFields(None, None, None, None, biome=out[rows])
        given = np.ascontiguousarray(elevation(rows), dtype=np.float64)
        with _scratch.reusing(pool):
            _made(config, strip, True, given, False, into)
        del given
    return out


def water_kinds(config: WorldConfig, window: Window) -> tuple[np.ndarray, np.ndarray]:
    """The ``water_kind`` and ``discharge`` of ``world_fields(config,
    window, climate=False, rivers=True)``, the same bytes, made in strips
    of rows as it makes them but without the fields it makes beside them
    (the relief's, the carved ground, the water surface)."""
    check_instance(config, "config", WorldConfig)
    check_instance(window, "window", Window)
    _check_rivers(config, window)
    _check_fits(window, 5)
    kind = np.empty(window.shape, np.uint8)
    discharge = np.empty(window.shape, np.float32)
    for rows, strip in _strips(window):
        # The model's elevation, as the relief has it (only the uplift is
        # left out where no land needs it).
        drawn = _rivers.water(config, strip, _elevation.elevation(config, strip))
        kind[rows] = drawn.kind
        discharge[rows] = drawn.discharge
        del drawn
    return kind, discharge


def _strip_rows(window: Window) -> int:
    """How many rows each strip of a big window has (:func:`_strips`)."""
    return max(STRIP_ROWS, STRIP_SAMPLES // window.width)


def _strips(window: Window):
    """(rows, strip): the strips of rows :func:`world_fields` makes a big
    window in, each a window of its own, with its rows' slice."""
    rows = _strip_rows(window)
    for top in range(0, window.height, rows):
        height = min(rows, window.height - top)
        strip = dataclasses.replace(window, y=window.y + top * window.step, height=height)
        yield slice(top, top + height), strip


def elevation(config: WorldConfig, window: Window) -> np.ndarray:
    """Metres above sea level of the window's samples, shape ``(H, W)``."""
    check_instance(config, "config", WorldConfig)
    check_instance(window, "window", Window)
    _check_fits(window, 8)
    if window.height < 2 * _strip_rows(window):
        return _elevation.elevation(config, window)
    # A big window in strips (the same bytes), with the temporaries of a
    # strip only: a dozen float64 arrays of the whole window otherwise.
    out = np.empty(window.shape)
    pool = _scratch.Pool()
    for rows, strip in _strips(window):
        # Each strip's heights made in their rows of ``out`` (contiguous),
        # its temporaries in the previous strip's.
        with _scratch.reusing(pool):
            _elevation.elevation(config, strip, out=out[rows])
    return out
