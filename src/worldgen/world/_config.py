"""The world model's config: what shapes continents, ranges and climate."""

from __future__ import annotations

import dataclasses
import math

from worldgen.noise._seed import check_seed
from worldgen.noise._validate import check_choice, check_int, check_range

MIN_CONTINENT = 1024
WINDS = (
    "west",
    "east",
    "north",
    "south",
    "north-west",
    "north-east",
    "south-west",
    "south-east",
)
MAX_CONTINENT = 2**20


@dataclasses.dataclass(frozen=True)
class WorldConfig:
    """Everything that shapes a world; every default documented.

    A world is laid out in world cells (one cell is one metre across, one
    block of the voxel world); heights are metres above sea level. See
    :mod:`worldgen.world._fields` for how each field is made.

    Parameters
    ----------
    seed : int
        Any 64-bit integer.
    continent_size : int
        Side, in cells, of the squares that each hold at most one landmass
        (a power of two from 1024 to 2**20; default 65536). A landmass and
        every river basin on it stay at least ``continent_size / 32`` cells
        inside its square, so no landmass is larger than this and ocean
        always separates neighbouring squares. Mountain ranges, hills and
        the climate's reach scale with it: a world with
        ``continent_size = 4096`` is a world of islands.
    land_fraction : float
        The share of the world that is land, on average over many squares
        (0.02 to 0.35; default 0.2). Land is spread unevenly: some parts of
        the world hold large continents, others open ocean.
    relief : float
        Height, in metres, of the highest peaks (10 to 4000; default 240,
        which fits the voxel world's default column of 320 blocks with the
        sea at 62).
    ocean_depth : float
        Depth, in metres, of the open ocean floor (1 to 10000; default 90).
    ranges : float
        How mountainous the world is, 0 to 2 (default 1): the share of the
        boundaries between plate-like regions that rise into ranges, and
        how high they rise.
    roughness : float
        How ragged coasts are, 0 to 2 (default 1): 0 gives smooth
        coastlines, 2 fjords, bays and a scatter of islands.
    temperature : float
        Mean temperature, in degrees Celsius, at sea level on the latitude of
        the origin (-30 to 40; default 12). Temperature follows latitude-like
        bands with a period of ``8 * continent_size`` cells north to south
        (warmer to the south of the origin), falls with height by
        ``lapse_rate`` and wanders with a little noise.
    lapse_rate : float
        Degrees Celsius lost per metre of height (0 to 1; default 0.06, ten
        times Earth's, since the world's mountains are low).
    rainfall : float
        Scale of rainfall (0.1 to 10; default 1).
    wind : {'west', 'east', 'north', 'south', 'north-west', 'north-east', 'south-west', 'south-east'}
        Where the prevailing wind blows from (x grows east, y south;
        default 'west': a westerly).
    """

    seed: int = 0
    continent_size: int = 65536
    land_fraction: float = 0.2
    relief: float = 240.0
    ocean_depth: float = 90.0
    ranges: float = 1.0
    roughness: float = 1.0
    temperature: float = 12.0
    lapse_rate: float = 0.06
    rainfall: float = 1.0
    wind: str = "west"

    def __post_init__(self):
        object.__setattr__(self, "seed", check_seed(self.seed))
        size = check_int(self.continent_size, "continent_size", MIN_CONTINENT, MAX_CONTINENT)
        if size & (size - 1):
            raise ValueError(
                f"continent_size must be a power of two from {MIN_CONTINENT} to "
                f"{MAX_CONTINENT}, got {self.continent_size!r} (try "
                f"{2 ** round(math.log2(size))})"
            )
        object.__setattr__(self, "continent_size", size)
        for name, lo, hi in (
            ("land_fraction", 0.02, 0.35), ("relief", 10.0, 4000.0),
            ("ocean_depth", 1.0, 10000.0), ("ranges", 0.0, 2.0), ("roughness", 0.0, 2.0),
            ("temperature", -30.0, 40.0), ("lapse_rate", 0.0, 1.0), ("rainfall", 0.1, 10.0),
        ):  # fmt: skip
            object.__setattr__(self, name, float(check_range(getattr(self, name), name, lo, hi)))
        check_choice(self.wind, "wind", WINDS)

    # -- scales derived from the continent size (cells)

    @property
    def margin(self) -> float:
        """Cells along each border of a continent square that are always
        ocean: no land, no river basin reaches into them."""
        return self.continent_size / 32

    @property
    def plate_size(self) -> float:
        """Spacing of the plate-like regions whose meeting lines raise ranges."""
        return self.continent_size / 4

    @property
    def belt_width(self) -> float:
        """Half-width (cells) of a mountain belt."""
        return self.continent_size / 40

    @property
    def fetch(self) -> float:
        """How far (cells) upwind a cell's rainfall looks."""
        return self.continent_size / 4

    @property
    def latitude_period(self) -> float:
        """Cells from one warm band to the next, north to south."""
        return 8.0 * self.continent_size
