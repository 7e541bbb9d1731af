"""The voxel world's config."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json

from worldgen._checks import check_colour
from worldgen.noise._seed import check_seed
from worldgen.noise._validate import check_bool, check_instance, check_int
from worldgen.voxel._blocks import PALETTE
from worldgen.world._config import WorldConfig

# Bumped whenever generation changes what a config makes, so that stores
# made by an older generator are never mixed with new chunks.
GENERATOR_VERSION = 6

TERRAINS = ("3d", "heightmap")


def _check_palette(palette: object) -> tuple[tuple[str, tuple[int, int, int]], ...]:
    if isinstance(palette, (str, bytes)) or not isinstance(palette, (tuple, list)):
        raise TypeError(f"palette must be a sequence of (name, (r, g, b)) pairs, got {palette!r}")
    checked = []
    for entry in palette:
        if not isinstance(entry, (tuple, list)) or len(entry) != 2 or not isinstance(entry[0], str):
            raise ValueError(f"palette entries must be (name, (r, g, b)) pairs, got {entry!r}")
        checked.append((entry[0], check_colour(entry[1], f"palette {entry[0]!r} colour")))
    return tuple(checked)


@dataclasses.dataclass(frozen=True)
class VoxelConfig:
    """Everything that makes a voxel world; every default documented.

    Parameters
    ----------
    seed : int
        Any 64-bit integer (the world's, when ``world`` is given).
    y_min, y_max : int
        The vertical range, ``y_min <= y < y_max``, as Minecraft's -64 to
        320 by default; its height must be a multiple of 8 (the 3D grid's
        vertical cell).
    sea_level : int
        The highest y that water fills (62).
    terrain : {'3d', 'heightmap'}
        How the ground is shaped: ``'3d'`` (the default), solid where a 3D
        density is positive, so cliffs lean out and overhangs and arches
        form in the mountains; ``'heightmap'``, solid up to one height per
        column (no overhangs).
    caves : bool
        Carve cheese caverns, spaghetti and noodle tunnels (True).
    aquifers : bool
        Fill caves below sea level with water and lava pockets, each with
        its own level (True); without, caves are dry.
    rivers : bool
        The world's rivers and lakes (True): beds carved to the world's
        carved ground and filled with water up to the water's surface
        (see :mod:`worldgen.world._rivers`), the same rivers as the map's.
    trees : bool
        Grow trees (True).
    ores : bool
        Scatter ores in the stone (True).
    palette : tuple of (name, (r, g, b))
        Block names and colours for pictures and meshes; the names must be
        the standard ones, in order (colours may change).
    world : WorldConfig, optional
        The world whose ground this is (default: the default world of
        ``seed``): a column's ground stands ``elevation`` blocks above the
        sea level (one block is one metre, one column one cell), so the
        voxel world has the map's coastlines, mountains and climate.

    Notes
    -----
    Chunks are 16 x 16 columns. :attr:`key` identifies the config and the
    generator version, for stores.

    Examples
    --------
    >>> VoxelConfig(seed=5).height
    384
    """

    seed: int = 0
    y_min: int = -64
    y_max: int = 320
    sea_level: int = 62
    terrain: str = "3d"
    caves: bool = True
    aquifers: bool = True
    rivers: bool = True
    trees: bool = True
    ores: bool = True
    palette: tuple[tuple[str, tuple[int, int, int]], ...] = PALETTE
    world: WorldConfig | None = None

    def __post_init__(self):
        # The canonical unsigned seed: -1 and 2**64 - 1 make the same chunks,
        # so they must have one store key.
        object.__setattr__(self, "seed", check_seed(self.seed))
        if self.world is None:
            object.__setattr__(self, "world", WorldConfig(seed=self.seed))
        else:
            check_instance(self.world, "world", WorldConfig)
            if self.seed not in (0, self.world.seed):
                raise ValueError(
                    f"seed={self.seed} differs from the world's seed {self.world.seed}; "
                    "give one of them"
                )
            object.__setattr__(self, "seed", self.world.seed)
        for name in ("y_min", "y_max", "sea_level"):
            object.__setattr__(self, name, check_int(getattr(self, name), name, -4096, 4096))
        height = self.y_max - self.y_min
        if height < 64 or height % 8:
            raise ValueError(
                f"y_max - y_min must be at least 64 and a multiple of 8, got {height} "
                f"(y_min={self.y_min}, y_max={self.y_max})"
            )
        if not self.y_min + 16 <= self.sea_level < self.y_max - 32:
            raise ValueError(
                f"sea_level must lie between y_min + 16 and y_max - 33, got {self.sea_level}"
            )
        if self.terrain not in TERRAINS:
            raise ValueError(f"terrain must be '3d' or 'heightmap', got {self.terrain!r}")
        for name in ("caves", "aquifers", "rivers", "trees", "ores"):
            object.__setattr__(self, name, check_bool(getattr(self, name), name))
        palette = _check_palette(self.palette)
        if [n for n, _ in palette] != [n for n, _ in PALETTE]:
            raise ValueError(
                "palette must name the standard blocks in order: "
                + ", ".join(n for n, _ in PALETTE)
            )
        object.__setattr__(self, "palette", palette)

    @property
    def height(self) -> int:
        """Blocks per column."""
        return self.y_max - self.y_min

    @property
    def summary(self) -> str:
        """A short human-readable account of what shapes the blocks: the
        world model's settings too, where they differ from its defaults."""
        default = WorldConfig(seed=self.world.seed)
        world = "".join(
            f", world {field.name}={getattr(self.world, field.name)!r}"
            for field in dataclasses.fields(self.world)
            if getattr(self.world, field.name) != getattr(default, field.name)
        )
        return (
            f"seed {self.seed}, y {self.y_min}..{self.y_max}, sea level {self.sea_level}, "
            f"{self.terrain} terrain, caves {self.caves}, aquifers {self.aquifers}, "
            f"rivers {self.rivers}, trees {self.trees}, ores {self.ores}{world}, "
            f"generator v{GENERATOR_VERSION}"
        )

    @property
    def key(self) -> str:
        """A SHA-256 of what shapes the blocks (not the colours) and the
        generator version (kept: stores and caches ask for it per chunk)."""
        return _key(self, GENERATOR_VERSION)


@functools.lru_cache(maxsize=64)
def _key(config: VoxelConfig, version: int) -> str:
    shape = {
        "version": version,
        **{k: v for k, v in dataclasses.asdict(config).items() if k != "palette"},
    }  # the world's fields too
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()
