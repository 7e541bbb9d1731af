"""Blocks: ids, names and colours of the voxel world's palette."""

from __future__ import annotations

import numpy as np

# (name, colour); a block's id is its index. Air is 0. Solid blocks are
# everything but air and the fluids, water and lava (see SOLID).
PALETTE: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("air", (0, 0, 0)),
    ("stone", (125, 125, 125)),
    ("dirt", (134, 96, 67)),
    ("grass", (95, 159, 53)),
    ("sand", (219, 207, 163)),
    ("gravel", (136, 126, 126)),
    ("water", (46, 86, 180)),
    ("snow", (240, 251, 251)),
    ("ice", (145, 183, 253)),
    ("wood", (102, 81, 51)),
    ("leaves", (60, 120, 40)),
    ("bedrock", (40, 40, 40)),
    ("coal ore", (60, 60, 60)),
    ("iron ore", (200, 160, 130)),
    ("gold ore", (245, 210, 60)),
    ("diamond ore", (100, 220, 220)),
    ("lava", (230, 100, 20)),
)

NAMES = tuple(name for name, _ in PALETTE)
ID = {name: i for i, name in enumerate(NAMES)}

AIR = ID["air"]
STONE = ID["stone"]
DIRT = ID["dirt"]
GRASS = ID["grass"]
SAND = ID["sand"]
GRAVEL = ID["gravel"]
WATER = ID["water"]
SNOW = ID["snow"]
ICE = ID["ice"]
WOOD = ID["wood"]
LEAVES = ID["leaves"]
BEDROCK = ID["bedrock"]
COAL = ID["coal ore"]
IRON = ID["iron ore"]
GOLD = ID["gold ore"]
DIAMOND = ID["diamond ore"]
LAVA = ID["lava"]

# Per id: is it solid (not air, water or lava)? And its colour.
SOLID = np.array([name not in ("air", "water", "lava") for name in NAMES], dtype=np.bool_)
COLOURS = np.array([colour for _, colour in PALETTE], dtype=np.uint8)
