"""The voxel world as Minecraft Java Edition sees it: chunks and the world's
``level.dat`` as NBT tags (:mod:`nbtlib`), for :mod:`worldgen.io`'s region
writer.

The chunk format is that of Minecraft 1.18 and later, as 1.20.4 writes it
(data version :data:`DATA_VERSION`): columns from y = -64 to 319 in 24
sections of 16 x 16 x 16 blocks, each with a ``block_states`` palette and
its indices packed into 64-bit longs (``max(4, ceil(log2(palette size)))``
bits each, no index split across two longs, ``y * 256 + z * 16 + x``
order), a ``biomes`` palette over 4 x 4 x 4 cells packed the same way
(``ceil(log2(size))`` bits), and the four heightmaps (9 bits a column:
one more than the height above -64 of its highest block of that kind).
Light is left for the game to compute (``isLightOn`` 0).
"""

from __future__ import annotations

import numpy as np

from worldgen.voxel._blocks import AIR, LAVA, LEAVES, NAMES, WATER
from worldgen.voxel._chunk import CHUNK, Chunk
from worldgen.world import BIOMES as WORLD_BIOMES

DATA_VERSION = 3700
"""Minecraft 1.20.4's data version: newer versions upgrade such chunks."""
VERSION_NAME = "1.20.4"
Y_MIN, Y_MAX = -64, 320
"""The vertical range of a Minecraft overworld column."""
SECTION = 16

# Minecraft's block state of each of our blocks (name, properties).
BLOCK_STATES: dict[str, tuple[str, dict[str, str]]] = {
    "air": ("minecraft:air", {}),
    "stone": ("minecraft:stone", {}),
    "dirt": ("minecraft:dirt", {}),
    "grass": ("minecraft:grass_block", {"snowy": "false"}),
    "sand": ("minecraft:sand", {}),
    "gravel": ("minecraft:gravel", {}),
    "water": ("minecraft:water", {"level": "0"}),
    "snow": ("minecraft:snow_block", {}),
    "ice": ("minecraft:ice", {}),
    "wood": ("minecraft:oak_log", {"axis": "y"}),
    "leaves": (
        "minecraft:oak_leaves",
        {"distance": "1", "persistent": "true", "waterlogged": "false"},
    ),
    "bedrock": ("minecraft:bedrock", {}),
    "coal ore": ("minecraft:coal_ore", {}),
    "iron ore": ("minecraft:iron_ore", {}),
    "gold ore": ("minecraft:gold_ore", {}),
    "diamond ore": ("minecraft:diamond_ore", {}),
    "lava": ("minecraft:lava", {"level": "0"}),
}
assert tuple(BLOCK_STATES) == NAMES

# Minecraft's biome for each of the world's biomes (worldgen.world.BIOMES).
BIOME_IDS: dict[str, str] = {
    "deep ocean": "minecraft:deep_ocean",
    "ocean": "minecraft:ocean",
    "beach": "minecraft:beach",
    "desert": "minecraft:desert",
    "savanna": "minecraft:savanna",
    "tropical forest": "minecraft:sparse_jungle",
    "rainforest": "minecraft:jungle",
    "grassland": "minecraft:plains",
    "temperate forest": "minecraft:forest",
    "temperate rainforest": "minecraft:dark_forest",
    "taiga": "minecraft:taiga",
    "tundra": "minecraft:snowy_plains",
    "snow": "minecraft:snowy_slopes",
    "alpine": "minecraft:stony_peaks",
    "fresh water": "minecraft:river",
}
assert tuple(BIOME_IDS) == tuple(name for name, _ in WORLD_BIOMES)
_BIOME_NAMES = tuple(BIOME_IDS.values())

# Blocks that a heightmap passes over: MOTION_BLOCKING stops at anything
# but air (every block of ours blocks motion or is a fluid), ..._NO_LEAVES
# also passes leaves, OCEAN_FLOOR passes the fluids too.
_NOT_AIR = np.array([i != AIR for i in range(len(NAMES))])
_NO_LEAVES = _NOT_AIR & np.array([i != LEAVES for i in range(len(NAMES))])
_FLOOR = _NOT_AIR & np.array([i not in (WATER, LAVA) for i in range(len(NAMES))])


SAVED = 1767225600
"""When the exported world was saved, in seconds since 1970 (2026-01-01
00:00 UTC): every chunk's time and the world's ``LastPlayed``. A fixed
moment, not the clock's, so that the same seed and options give the same
bytes on every run."""


def check_range(y_min: int, y_max: int) -> None:
    """Refuse a vertical range other than Minecraft's."""
    if (y_min, y_max) != (Y_MIN, Y_MAX):
        raise ValueError(
            f"the Minecraft export needs y_min={Y_MIN} and y_max={Y_MAX} (Minecraft's range), "
            f"got y_min={y_min}, y_max={y_max}; leave them at their defaults"
        )


def pack(indices: np.ndarray, bits: int) -> np.ndarray:
    """Palette indices packed as Minecraft packs them: ``64 // bits`` to a
    long, the first in the lowest bits, none split across two longs.

    Examples
    --------
    >>> pack(np.array([1, 2, 3]), 4)
    array([801])
    """
    per = 64 // bits
    count = -(-indices.size // per)
    padded = np.zeros(count * per, dtype=np.uint64)
    padded[: indices.size] = indices.ravel()
    shifts = np.arange(per, dtype=np.uint64) * np.uint64(bits)
    # The fields are disjoint, so a sum is their bitwise or.
    words = (padded.reshape(count, per) << shifts).sum(axis=1, dtype=np.uint64)
    return words.view(np.int64)


def chunk_tag(chunk: Chunk, biomes: np.ndarray):
    """The NBT of one chunk (an :class:`nbtlib.Compound`).

    Parameters
    ----------
    chunk : Chunk
        Blocks from y = -64 to 319.
    biomes : ndarray of int, shape (4, 4)
        The world's biome (index into :data:`worldgen.world.BIOMES`) of
        each 4 x 4 cell of columns, ``[z // 4, x // 4]``; every cell of a
        column has its column's.
    """
    from nbtlib import Byte, Compound, Int, List, Long, LongArray, String

    blocks = chunk.blocks
    if blocks.shape[0] != Y_MAX - Y_MIN:
        raise ValueError(f"chunk blocks must span y {Y_MIN}..{Y_MAX - 1}, got {blocks.shape[0]}")
    biome_ids, biome_index = np.unique(biomes, return_inverse=True)
    biome_palette = List[String]([String(_BIOME_NAMES[b]) for b in biome_ids])
    biome_data = {}
    if biome_ids.size > 1:
        cells = np.broadcast_to(biome_index.reshape(1, 4, 4), (4, 4, 4))
        biome_data["data"] = LongArray(pack(cells, (biome_ids.size - 1).bit_length()))
    states = {}  # the block states this chunk holds, made once
    index = np.zeros(len(NAMES), dtype=np.uint64)  # block id -> palette index
    sections = []
    solid = 0  # sections up to here hold more than air
    for s in range(blocks.shape[0] // SECTION):
        section = blocks[s * SECTION : (s + 1) * SECTION]
        # The palette in id order, as np.unique gives it, from a count.
        ids = np.flatnonzero(np.bincount(section.ravel(), minlength=len(NAMES)))
        for i in ids.tolist():
            if i not in states:
                states[i] = _state(NAMES[i])
        block_states = {"palette": List[Compound]([states[i] for i in ids.tolist()])}
        if ids.size > 1:
            bits = max(4, (ids.size - 1).bit_length())
            index[ids] = np.arange(ids.size, dtype=np.uint64)
            block_states["data"] = LongArray(pack(index[section], bits))
        if ids.size > 1 or ids[0] != AIR:
            solid = s + 1
        sections.append(
            Compound(
                {
                    "Y": Byte(Y_MIN // SECTION + s),
                    "block_states": Compound(block_states),
                    "biomes": Compound({"palette": biome_palette, **biome_data}),
                }
            )
        )
    # Every heightmap's block lies in the sections holding more than air.
    lower = blocks[: max(solid, 1) * SECTION]
    top = _height(_NOT_AIR[lower])
    heightmaps = Compound(
        {
            "MOTION_BLOCKING": LongArray(pack(top, 9)),
            "MOTION_BLOCKING_NO_LEAVES": LongArray(pack(_height(_NO_LEAVES[lower]), 9)),
            "OCEAN_FLOOR": LongArray(pack(_height(_FLOOR[lower]), 9)),
            "WORLD_SURFACE": LongArray(pack(top, 9)),
        }
    )
    return Compound(
        {
            "DataVersion": Int(DATA_VERSION),
            "xPos": Int(chunk.cx),
            "zPos": Int(chunk.cz),
            "yPos": Int(Y_MIN // SECTION),
            "Status": String("minecraft:full"),
            "LastUpdate": Long(0),
            "InhabitedTime": Long(0),
            "isLightOn": Byte(0),
            "sections": List[Compound](sections),
            "Heightmaps": heightmaps,
            "block_entities": List[Compound]([]),
            "block_ticks": List[Compound]([]),
            "fluid_ticks": List[Compound]([]),
            "structures": Compound({"References": Compound({}), "starts": Compound({})}),
        }
    )


def chunk_bytes(chunk: Chunk, biomes: np.ndarray) -> bytes:
    """:func:`chunk_tag` as uncompressed NBT bytes, for a region file."""
    import io

    from nbtlib import File

    buffer = io.BytesIO()
    File(chunk_tag(chunk, biomes)).write(buffer)
    return buffer.getvalue()


def _state(name: str):
    from nbtlib import Compound, String

    block, properties = BLOCK_STATES[name]
    tag = {"Name": String(block)}
    if properties:
        tag["Properties"] = Compound({k: String(v) for k, v in properties.items()})
    return Compound(tag)


def _height(mask: np.ndarray) -> np.ndarray:
    """One more than the layer of the highest block in ``mask`` (Y, 16, 16)
    per column, ``z * 16 + x`` order; 0 where there is none."""
    ny = mask.shape[0]
    first = np.argmax(mask[::-1], axis=0)
    return np.where(mask.any(axis=0), ny - first, 0).reshape(CHUNK * CHUNK)


def level_tag(seed: int, spawn: tuple[int, int, int], name: str, *, last_played: int = 0):
    """The NBT of ``level.dat`` (an :class:`nbtlib.File`, gzipped): a
    creative world with commands, spawn at ``spawn`` (x, y, z), and
    Minecraft's own overworld generator (seed ``seed``) beyond the chunks
    given."""
    from nbtlib import Byte, Compound, File, Float, Int, List, Long, String

    signed = seed - 2**64 if seed >= 2**63 else seed

    def dimension(kind: str, settings: str, source: dict):
        return Compound(
            {
                "type": String(f"minecraft:{kind}"),
                "generator": Compound(
                    {
                        "type": String("minecraft:noise"),
                        "settings": String(f"minecraft:{settings}"),
                        "biome_source": Compound({k: String(v) for k, v in source.items()}),
                    }
                ),
            }
        )

    multi = "minecraft:multi_noise"
    data = {
        "DataVersion": Int(DATA_VERSION),
        "version": Int(19133),
        "Version": Compound(
            {
                "Id": Int(DATA_VERSION),
                "Name": String(VERSION_NAME),
                "Series": String("main"),
                "Snapshot": Byte(0),
            }
        ),
        "LevelName": String(name),
        "SpawnX": Int(spawn[0]),
        "SpawnY": Int(spawn[1]),
        "SpawnZ": Int(spawn[2]),
        "SpawnAngle": Float(0.0),
        "GameType": Int(1),
        "allowCommands": Byte(1),
        "hardcore": Byte(0),
        "Difficulty": Byte(1),
        "initialized": Byte(1),
        "LastPlayed": Long(last_played),
        "Time": Long(0),
        "DayTime": Long(1000),
        "raining": Byte(0),
        "thundering": Byte(0),
        "DataPacks": Compound(
            {"Enabled": List[String]([String("vanilla")]), "Disabled": List[String]([])}
        ),
        "WorldGenSettings": Compound(
            {
                "seed": Long(signed),
                "generate_features": Byte(1),
                "bonus_chest": Byte(0),
                "dimensions": Compound(
                    {
                        "minecraft:overworld": dimension(
                            "overworld",
                            "overworld",
                            {"type": multi, "preset": "minecraft:overworld"},
                        ),
                        "minecraft:the_nether": dimension(
                            "the_nether", "nether", {"type": multi, "preset": "minecraft:nether"}
                        ),
                        "minecraft:the_end": dimension(
                            "the_end", "end", {"type": "minecraft:the_end"}
                        ),
                    }
                ),
            }
        ),
    }
    return File({"Data": Compound(data)}, gzipped=True)
