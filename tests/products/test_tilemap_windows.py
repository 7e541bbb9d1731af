"""The tile map is a pure function of the window: whole or in tiles, anywhere, any thread count."""

import dataclasses
import random

import numpy as np
import pytest

from worldgen import threads
from worldgen.products import Cleanup, MapConfig, Tileset, make_layers
from worldgen.world import Mask, NoiseMap, Window

# Islands with lakes, thin channels and steep shores, so that every clean-up
# step and every tile kind has work to do.
ISLANDS = MapConfig(
    terrain=NoiseMap(seed=21, width=1024, height=1024, scale=160.0, octaves=7, normalize="global"),
    mask=Mask("radial", radius=480.0),
    cleanup=Cleanup(lake_size=12),
)


def tiled(config, origin):
    """The 1024 x 1024 window at ``origin`` made whole, and its 16 tiles of
    256 x 256 made alone in a shuffled order and put together."""
    window = Window(origin, 0, 1024, 1024)
    whole = make_layers(config, window)
    parts = window.tiles(256)
    random.Random(origin).shuffle(parts)
    tiles = np.zeros_like(whole.tiles)
    ids = np.zeros_like(whole.tile_ids)
    masks = np.zeros_like(whole.autotile)
    for part in parts:
        layers = make_layers(config, part)
        cut = (slice(part.y, part.y + 256), slice(part.x - origin, part.x - origin + 256))
        tiles[cut] = layers.tiles
        ids[cut] = layers.tile_ids
        masks[cut] = layers.autotile
    return whole, tiles, ids, masks


@pytest.mark.parametrize(
    ("normalize", "origin"), [("global", 0), ("none", 0), ("global", 10**7), ("none", 10**7)]
)
def test_a_1024_tilemap_equals_its_16_tiles_made_alone(normalize, origin):
    config = dataclasses.replace(
        ISLANDS, terrain=dataclasses.replace(ISLANDS.terrain, normalize=normalize)
    )
    if normalize == "none":  # raw fBm lies within about [-0.45, 0.45]: bands to match
        bands = [dataclasses.replace(b, top=0.9 * b.top - 0.45) for b in ISLANDS.bands]
        config = dataclasses.replace(config, bands=tuple(bands))
    if normalize == "none" or origin:  # the island lies round the origin
        config = dataclasses.replace(config, mask=Mask("none"))
    whole, tiles, ids, masks = tiled(config, origin)
    assert np.array_equal(whole.tiles, tiles)
    assert np.array_equal(whole.tile_ids, ids)
    assert np.array_equal(whole.autotile, masks)
    # The clean-up changed cells near the tile borders too, so the halo mattered.
    changed = whole.tiles != whole.classes
    borders = np.zeros_like(changed)
    for line in range(256, 1024, 256):
        borders[line - 16 : line + 16, :] = borders[:, line - 16 : line + 16] = True
    assert (changed & borders).sum() > 5
    assert len(np.unique(whole.tiles)) >= 5


def test_with_only_the_masks_halo_the_tiles_would_differ(monkeypatch):
    # The test above can fail: with a halo of one cell (what the autotile
    # masks alone need) the clean-up near tile borders goes wrong. That each
    # part of the clean-up's reach is needed is shown on small maps in
    # test_tilemap.py::test_the_reach_is_needed.
    window = Window(0, 0, 512, 512)
    whole = make_layers(ISLANDS, window)
    monkeypatch.setattr(MapConfig, "tile_halo", property(lambda self: 1))
    ids = np.zeros_like(whole.tile_ids)
    for part in window.tiles(128):
        ids[part.y : part.y + 128, part.x : part.x + 128] = make_layers(ISLANDS, part).tile_ids
    assert not np.array_equal(ids, whole.tile_ids)


@pytest.mark.parametrize("kind", ["blob47", "edge16", "flat"])
def test_one_and_two_threads_give_the_same_tilemap(kind):
    config = dataclasses.replace(ISLANDS, tileset=Tileset(kind))
    window = Window(100, 200, 384, 256)
    with threads(1):
        one = make_layers(config, window)
    with threads(2):
        two = make_layers(config, window)
    assert np.array_equal(one.tiles, two.tiles)
    assert np.array_equal(one.tile_ids, two.tile_ids)
