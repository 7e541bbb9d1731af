"""The voxel generator: seams, determinism and sanity of what it makes."""

import concurrent.futures
import hashlib

import numpy as np
import pytest

from worldgen.world._blocks import AIR, BEDROCK, DIRT, GRASS, ICE, LEAVES, SNOW, SOLID, WATER, WOOD
from worldgen.world._config import WorldConfig
from worldgen.world._generator import generate_region

CONFIG = WorldConfig(seed=3)


def chunk(config, cx, cz):
    return generate_region(config, 16 * cx, 16 * cz, 16, 16)


def test_chunks_made_alone_equal_one_big_region():
    big, big_heights = generate_region(CONFIG, -16, -32, 48, 48)
    for cz in range(-2, 1):
        for cx in range(-1, 2):
            blocks, heights = chunk(CONFIG, cx, cz)
            z, x = 16 * cz + 32, 16 * cx + 16
            assert np.array_equal(big[:, z : z + 16, x : x + 16], blocks)
            assert np.array_equal(big_heights[z : z + 16, x : x + 16], heights)


def test_a_tree_across_a_chunk_border_is_whole_in_both_chunks():
    # Find trunks within the crown's reach of a border between two chunks,
    # then check the neighbour holds the same leaves as the big region.
    x0, z0 = 160, -400  # a forest of seed 3
    big, _ = generate_region(CONFIG, x0, z0, 160, 160)
    crossings = 0
    for z, x in zip(*np.nonzero((big == WOOD).any(axis=0))):
        for dx in (-2, 2):
            if (x + dx) // 16 != x // 16 and 0 <= x + dx < 160:
                i, k = (x + dx) // 16, z // 16
                blocks, _ = chunk(CONFIG, x0 // 16 + i, z0 // 16 + k)
                assert np.array_equal(big[:, 16 * k : 16 * k + 16, 16 * i : 16 * i + 16], blocks)
                assert (blocks[:, z - 16 * k, x + dx - 16 * i] == LEAVES).any()
                crossings += 1
    assert crossings >= 3


def test_frozen_hash_of_a_5x5_chunk_region():
    digest = hashlib.sha256()
    for cz in range(-2, 3):
        for cx in range(-2, 3):
            blocks, heights = chunk(CONFIG, cx, cz)
            digest.update(blocks.tobytes())
            digest.update(heights.tobytes())
    assert digest.hexdigest() == FROZEN_5X5


FROZEN_5X5 = "9e2a94e101a49fe6613700bb7886e31e1e45db34dfeff3642aeb227fee111592"


def test_order_and_threads_do_not_matter():
    coords = [(cx, cz) for cz in range(-1, 2) for cx in range(-1, 2)]
    forward = {c: chunk(CONFIG, *c)[0] for c in coords}
    backward = {c: chunk(CONFIG, *c)[0] for c in reversed(coords)}
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        threaded = dict(zip(coords, (b for b, _ in pool.map(lambda c: chunk(CONFIG, *c), coords))))
    for c in coords:
        assert np.array_equal(forward[c], backward[c])
        assert np.array_equal(forward[c], threaded[c])


def test_seed_matters():
    assert not np.array_equal(chunk(CONFIG, 0, 0)[0], chunk(WorldConfig(seed=4), 0, 0)[0])


SANITY = [
    generate_region(WorldConfig(seed=s), x, z, 96, 96)
    for s, x, z in ((3, -512, -512), (11, 300, -40))
]


@pytest.mark.parametrize("region", range(len(SANITY)))
def test_water_only_open_to_the_sky_below_sea_level(region):
    blocks, _ = SANITY[region]
    sea = CONFIG.sea_level - CONFIG.y_min
    wet = (blocks == WATER) | (blocks == ICE)
    assert not wet[sea + 1 :].any()
    # Above any water block: only water, ice, air, or the leaves of a tree
    # on the shore, up to the sky.
    blocking = SOLID[blocks] & (blocks != ICE) & (blocks != LEAVES)
    above = np.maximum.accumulate(blocking[::-1], axis=0)[::-1]
    assert not (wet[:-1] & above[1:]).any()
    # No floating water: under water is water, ice or something solid.
    assert not ((blocks[1:] == WATER) & (blocks[:-1] == AIR)).any()
    assert wet.any()


@pytest.mark.parametrize("region", range(len(SANITY)))
def test_trees_stand_on_ground_and_bedrock_is_at_the_bottom(region):
    blocks, heights = SANITY[region]
    trunk = blocks[1:] == WOOD
    below = blocks[:-1]
    assert np.isin(below[trunk], [WOOD, GRASS, DIRT, SNOW]).all()
    assert (blocks[0] == BEDROCK).all()
    assert trunk.any()
    top = blocks.shape[0] - 1 - np.argmax(blocks[::-1] != AIR, axis=0)
    assert np.array_equal(heights, top + CONFIG.y_min)


def test_caves_exist_and_stay_underground_near_water():
    blocks, heights = SANITY[0]
    y = np.arange(blocks.shape[0])[:, None, None] + CONFIG.y_min
    underground_air = (blocks == AIR) & (y < heights[None] - 1)
    assert underground_air.mean() > 0.005


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"y_min": 0, "y_max": 60}, "y_max - y_min must be at least 64 and a multiple of 8"),
        ({"y_max": 321}, "multiple of 8"),
        ({"sea_level": 400}, "sea_level must lie between"),
        ({"caves": 1}, "caves must be True or False"),
        ({"seed": 2**64}, "seed must fit in 64 bits"),
        ({"palette": (("air", (0, 0, 0)),)}, "palette must name the standard blocks in order"),
    ],
)
def test_bad_world_config(kwargs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        WorldConfig(**kwargs)


def test_config_key_changes_with_shape_not_colours():
    a = WorldConfig(seed=1)
    assert a.key == WorldConfig(seed=1).key != WorldConfig(seed=2).key
    recoloured = tuple((n, (1, 2, 3)) for n, _ in a.palette)
    assert WorldConfig(seed=1, palette=recoloured).key == a.key
    assert WorldConfig(seed=1, caves=False).key != a.key
