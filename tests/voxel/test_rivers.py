"""River beds of the voxel world: the world's rivers, filled with water on a
solid bed, continuous across chunk borders."""

import hashlib

import numpy as np
import pytest

from worldgen.voxel import CHUNK, VoxelConfig, generate_chunk, generate_region
from worldgen.voxel._blocks import AIR, LAVA, WATER
from worldgen.world import Window, world_fields

CONFIG = VoxelConfig(seed=0)
# 8 x 8 chunks where a river of seed 0 runs (15 blocks wide), inland.
CX0, CZ0, SIDE = -5078, -5298, 8


@pytest.fixture(scope="module")
def chunks():
    """Blocks of the 8 x 8 chunks, each made alone, assembled (Y, Z, X)."""
    rows = []
    for cz in range(CZ0, CZ0 + SIDE):
        rows.append(
            np.concatenate(
                [generate_chunk(CONFIG, cx, cz).blocks for cx in range(CX0, CX0 + SIDE)], axis=2
            )
        )
    return np.concatenate(rows, axis=1)


def river_water(blocks, config=CONFIG):
    """Columns holding water above the sea: river water (Z, X)."""
    y = np.arange(blocks.shape[0])[:, None, None] + config.y_min
    return ((blocks == WATER) & (y > config.sea_level)).any(axis=0)


def test_chunks_made_alone_equal_the_region(chunks):
    blocks, _ = generate_region(CONFIG, CX0 * CHUNK, CZ0 * CHUNK, SIDE * CHUNK, SIDE * CHUNK)
    assert np.array_equal(chunks, blocks)
    digest = hashlib.sha256(chunks.tobytes()).hexdigest()
    assert digest == FROZEN_RIVER_REGION


# Generator version 6: the world's rivers (the region moved to where one
# runs, routed over the evolved surface); version 5's digest, of other
# chunks, was c0de156fbf51....
FROZEN_RIVER_REGION = "c8883569c0f89d9fe0785edd0624673b476aa9359163721ae9184bb0e4a01e46"


def test_river_beds_hold_water_on_a_solid_bed(chunks):
    river = river_water(chunks)
    assert river.sum() > 200
    fluid = (chunks == WATER) | (chunks == LAVA)
    assert not (fluid[1:] & (chunks[:-1] == AIR)).any()
    # Without rivers, none of that water is there.
    dry, _ = generate_region(
        VoxelConfig(seed=0, rivers=False), CX0 * CHUNK, CZ0 * CHUNK, SIDE * CHUNK, SIDE * CHUNK
    )
    assert not river_water(dry).any()


def test_river_beds_connect_across_chunk_borders(chunks):
    # Columns whose top block is water (the world's rivers and lakes, see
    # test_river_water_is_the_world_rivers, whose rivers never stop): the
    # river crosses chunk borders and one stretch spans several chunks.
    top = chunks.shape[0] - 1 - np.argmax(chunks[::-1] != AIR, axis=0)
    wet = np.take_along_axis(chunks, top[None], axis=0)[0] == WATER
    size = SIDE * CHUNK
    crossings = 0
    for axis in (0, 1):
        for edge in range(CHUNK - 1, size - 1, CHUNK):
            here = wet.take(edge, axis=axis)
            there = np.pad(wet.take(edge + 1, axis=axis), 1)
            near = there[:-2] | there[1:-1] | there[2:]
            crossings += int((here & near).any())
    assert crossings >= 4
    # One stretch of river spans several chunks.
    labels = _components(wet)
    spans = [
        len({(z // CHUNK, x // CHUNK) for z, x in zip(*np.nonzero(labels == k))})
        for k in range(1, labels.max() + 1)
    ]
    assert max(spans) >= 4


def _components(mask):
    """8-connected components of a 2-D mask, labelled 1, 2, ..."""
    labels = np.zeros(mask.shape, np.int64)
    count = 0
    for start in zip(*np.nonzero(mask)):
        if labels[start]:
            continue
        count += 1
        stack = [start]
        labels[start] = count
        while stack:
            z, x = stack.pop()
            for dz in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    n = (z + dz, x + dx)
                    if 0 <= n[0] < mask.shape[0] and 0 <= n[1] < mask.shape[1]:
                        if mask[n] and not labels[n]:
                            labels[n] = count
                            stack.append(n)
    return labels


def test_river_water_is_the_world_rivers(chunks):
    # Columns whose top is water are the world's rivers and lakes.
    top = chunks.shape[0] - 1 - np.argmax(chunks[::-1] != AIR, axis=0)
    wet = np.take_along_axis(chunks, top[None], axis=0)[0] == WATER
    size = SIDE * CHUNK
    kind = world_fields(
        CONFIG.world, Window(CX0 * CHUNK, CZ0 * CHUNK, size, size), climate=False, rivers=True
    ).water_kind
    assert np.array_equal(wet, kind > 0)
