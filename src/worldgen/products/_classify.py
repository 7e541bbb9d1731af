"""Classification: height bands and biomes."""

from __future__ import annotations

import dataclasses
import itertools
import math
import numbers

import numpy as np

from worldgen._checks import Colour, check_colour, finite_values
from worldgen._jit import kernel
from worldgen.noise._validate import check_real


@dataclasses.dataclass(frozen=True)
class Band:
    """A height band: every height up to ``top`` (and above the band below)."""

    name: str
    top: float
    colour: Colour

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"band name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "top", check_real(self.top, f"band {self.name!r}: top"))
        object.__setattr__(self, "colour", check_colour(self.colour, f"band {self.name!r} colour"))


DEFAULT_BANDS = (
    Band("deep water", 0.30, (40, 70, 150)),
    Band("shallow water", 0.40, (60, 110, 190)),
    Band("sand", 0.45, (210, 200, 130)),
    Band("grass", 0.55, (90, 160, 60)),
    Band("grass 2", 0.60, (65, 125, 45)),
    Band("rock", 0.70, (110, 95, 80)),
    Band("rock 2", 0.90, (85, 75, 70)),
    Band("snow", 1.00, (245, 245, 250)),
)
WATER_BANDS = ("deep water", "shallow water")


def check_bands(bands) -> tuple[Band, ...]:
    if isinstance(bands, (str, bytes)) or not isinstance(bands, (tuple, list)):
        raise TypeError(f"bands must be a non-empty sequence of Band, got {bands!r}")
    bands = tuple(bands)
    if not bands or not all(isinstance(b, Band) for b in bands):
        raise ValueError("bands must be a non-empty sequence of Band")
    tops = [b.top for b in bands]
    if not all(t0 < t1 for t0, t1 in itertools.pairwise(tops)):
        raise ValueError(f"band tops must increase strictly, got {tops}")
    return bands


def classify(heights: np.ndarray, bands=DEFAULT_BANDS) -> np.ndarray:
    """The index of each height's band, shape of ``heights``, uint8.

    A height belongs to the first band whose ``top`` is at least the height;
    heights above the last top belong to the last band.

    Examples
    --------
    >>> classify(np.array([0.1, 0.35, 0.99, 1.5])).tolist()
    [0, 1, 7, 7]
    """
    bands = check_bands(bands)
    if len(bands) > 256:
        raise ValueError(f"at most 256 bands, got {len(bands)}")
    tops = np.array([b.top for b in bands])
    values = finite_values(heights, "heights")
    out = np.empty(values.shape, np.uint8)
    # (np.searchsorted's int64 indices were 8 bytes a height of fresh memory.)
    _classify(np.ascontiguousarray(values).reshape(-1), tops, out.reshape(-1))
    return out


@kernel
def tops_below(tops, height):
    """How many of ``tops[:-1]`` lie below ``height``: with the tops in
    increasing order, the index of the first band whose top is at least the
    height (the last band above every top), in a loop without branches."""
    k = 0
    for j in range(tops.size - 1):
        k += tops[j] < height
    return k


@kernel
def _classify(heights, tops, out):
    for k in range(heights.size):
        out[k] = tops_below(tops, heights[k])


def band_colours(bands=DEFAULT_BANDS) -> np.ndarray:
    """The bands' colours as a ``(len(bands), 3)`` uint8 array."""
    return np.array([b.colour for b in check_bands(bands)], dtype=np.uint8)


@dataclasses.dataclass(frozen=True)
class BiomeTable:
    """Biomes by elevation x moisture (x temperature).

    ``table[t][e][m]`` names the biome of temperature band ``t``, elevation
    band ``e`` and moisture band ``m``; each axis is split by its band tops
    (a value belongs to the first band whose top is at least the value, the
    last band taking the rest). Without a temperature axis, ``table`` has one
    temperature layer.

    The default follows Red Blob Games' "Making maps with noise" (a
    simplification of Whittaker's diagram): ocean and beach by elevation,
    then deserts, grassland, forests, taiga, tundra and snow by moisture.
    """

    elevation: tuple[float, ...]
    moisture: tuple[float, ...]
    table: tuple[tuple[tuple[str, ...], ...], ...]
    colours: tuple[tuple[str, Colour], ...]
    temperature: tuple[float, ...] = (1.0,)

    def __post_init__(self):
        for name in ("elevation", "moisture", "temperature"):
            tops = getattr(self, name)
            if (
                not isinstance(tops, (tuple, list))
                or not tops
                or not all(
                    isinstance(t, numbers.Real) and not isinstance(t, bool) and math.isfinite(t)
                    for t in tops
                )
                or not all(a < b for a, b in itertools.pairwise(tops))
            ):
                raise ValueError(
                    f"biome {name} tops must be a non-empty increasing sequence of numbers, "
                    f"got {tops!r:.100}"
                )
        shape = (len(self.temperature), len(self.elevation), len(self.moisture))
        table = np.asarray(self.table, dtype=object)
        if table.shape != shape:
            raise ValueError(
                f"biome table must have shape (temperature, elevation, moisture) = {shape}, "
                f"got {table.shape}"
            )
        colours = self.colours
        if not isinstance(colours, (tuple, list)) or not 1 <= len(colours) <= 256:
            raise ValueError(
                f"biome colours must be 1 to 256 (name, (r, g, b)) pairs, got {colours!r:.200}"
            )
        names = []
        for item in colours:
            if not (
                isinstance(item, (tuple, list))
                and len(item) == 2
                and isinstance(item[0], str)
                and item[0]
            ):
                raise ValueError(
                    f"biome colours must be (name, (r, g, b)) pairs with a non-empty name, "
                    f"got {item!r:.100}"
                )
            check_colour(item[1], f"biome {item[0]!r} colour")
            names.append(item[0])
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(
                f"biome colours name {', '.join(map(repr, twice))} more than once; give each "
                "biome one colour"
            )
        known = set(names)
        missing = sorted({str(n) for n in table.ravel()} - known)
        if missing:
            raise ValueError(f"biome table names biomes without a colour: {', '.join(missing)}")

    @property
    def names(self) -> tuple[str, ...]:
        """Biome names, in the order of the ids :meth:`classify` returns."""
        return tuple(name for name, _ in self.colours)

    def palette(self) -> np.ndarray:
        """Biome colours as a ``(len(names), 3)`` uint8 array."""
        return np.array([c for _, c in self.colours], dtype=np.uint8)

    def classify(self, elevation, moisture, temperature=None) -> np.ndarray:
        """Biome ids (indices into :attr:`names`), uint8, for fields of one shape."""
        e = finite_values(elevation, "elevation")
        m = finite_values(moisture, "moisture")
        if m.shape != e.shape:
            raise ValueError(f"moisture shape {m.shape} differs from elevation shape {e.shape}")
        ids = np.array(
            [[[self.names.index(n) for n in row] for row in layer] for layer in self.table],
            dtype=np.uint8,
        )
        ei = np.minimum(np.searchsorted(self.elevation, e, side="left"), len(self.elevation) - 1)
        mi = np.minimum(np.searchsorted(self.moisture, m, side="left"), len(self.moisture) - 1)
        if temperature is None:
            ti = np.zeros_like(ei)
        else:
            t = finite_values(temperature, "temperature")
            if t.shape != e.shape:
                raise ValueError(
                    f"temperature shape {t.shape} differs from elevation shape {e.shape}"
                )
            ti = np.minimum(
                np.searchsorted(self.temperature, t, side="left"), len(self.temperature) - 1
            )
        return ids[ti, ei, mi]


_RB = {
    "ocean": (54, 80, 140),
    "beach": (210, 195, 140),
    "scorched": (85, 85, 85),
    "bare": (136, 136, 136),
    "tundra": (187, 187, 170),
    "snow": (245, 245, 250),
    "temperate desert": (201, 210, 155),
    "shrubland": (136, 153, 119),
    "taiga": (153, 170, 119),
    "grassland": (136, 170, 85),
    "temperate deciduous forest": (103, 148, 89),
    "temperate rain forest": (68, 136, 85),
    "subtropical desert": (210, 185, 139),
    "tropical seasonal forest": (85, 153, 68),
    "tropical rain forest": (51, 119, 85),
}

# Moisture tops are the finest split used by any elevation band (Red Blob
# Games' thresholds); elevation tops: ocean, beach, lowland, midland,
# highland, mountain.
_M = (1 / 6, 1 / 3, 0.5, 2 / 3, 5 / 6, 1.0)
_ROWS = (
    ("ocean",) * 6,
    ("beach",) * 6,
    ("subtropical desert", "grassland", "tropical seasonal forest", "tropical seasonal forest",
     "tropical rain forest", "tropical rain forest"),
    ("temperate desert", "grassland", "grassland", "temperate deciduous forest",
     "temperate deciduous forest", "temperate rain forest"),
    ("temperate desert", "temperate desert", "shrubland", "shrubland", "taiga", "taiga"),
    ("scorched", "bare", "tundra", "snow", "snow", "snow"),
)  # fmt: skip

DEFAULT_BIOMES = BiomeTable(
    elevation=(0.40, 0.45, 0.60, 0.75, 0.88, 1.0),
    moisture=_M,
    table=(_ROWS,),
    colours=tuple(_RB.items()),
)
