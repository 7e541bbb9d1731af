"""Transition tilesets: every drawable neighbourhood has a tile, wang ids agree
with the masks and with each other, and tiles meet without seams."""

import itertools

import numpy as np
import pytest

from worldgen.products import DEFAULT_BANDS, MapConfig, make_layers
from worldgen.products._classify import band_colours
from worldgen.products._tilemap import limit_steps
from worldgen.products._tileset import BLOB_MASKS, TILESETS, Tileset
from worldgen.world import NoiseMap, Window

COLOURS = band_colours(DEFAULT_BANDS)
BANDS = len(DEFAULT_BANDS)
# (dy, dx) of each entry of a Tiled wang id: top, top right, right, bottom
# right, bottom, bottom left, left, top left.
WANG_STEPS = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]
CONNECTIVITY = {"blob47": 8, "edge16": 4}


def expected_wang(block, kind):
    """The wang id a 3 x 3 block's centre must have, from the bands alone:
    an edge is the lower of the two cells' bands, a corner the lowest of the
    four cells around it (colour = band + 1); an edge set has no corners."""
    centre = int(block[1, 1])
    wang = []
    for dy, dx in WANG_STEPS:
        if dy and dx:
            if kind == "edge16":
                wang.append(0)
                continue
            around = [block[1 + dy, 1], block[1, 1 + dx], block[1 + dy, 1 + dx], centre]
            wang.append(int(min(around)) + 1)
        else:
            wang.append(min(centre, int(block[1 + dy, 1 + dx])) + 1)
    return wang


def drawable_blocks(kind, centre):
    """Every 3 x 3 block of bands around ``centre`` that the clean-up leaves
    as it is: neighbours (8 or 4) differ by at most one band."""
    values = [v for v in (centre - 1, centre, centre + 1) if 0 <= v < BANDS]
    for ring in itertools.product(values, repeat=8):
        block = np.insert(np.array(ring, dtype=np.uint8), 4, centre).reshape(3, 3)
        if np.array_equal(limit_steps(block, connectivity=CONNECTIVITY[kind]), block):
            yield block


@pytest.mark.parametrize("kind", ["blob47", "edge16"])
@pytest.mark.parametrize("centre", [0, 1, 4, BANDS - 1])
def test_every_neighbourhood_the_cleanup_allows_maps_to_a_tile_with_its_wang_id(kind, centre):
    tileset = Tileset(kind)
    wang = tileset.wang_ids(BANDS)
    used = set()
    count = 0
    for block in drawable_blocks(kind, centre):
        tile = int(tileset.tile_ids(block, halo=1)[0, 0])
        assert tile // tileset.tiles_per_band == centre
        assert wang[tile].tolist() == expected_wang(block, kind)
        used.add(tile)
        count += 1
    assert count > 100
    # Every tile of a band with bands below and above it is used by some
    # neighbourhood; band 0 has nothing below it and uses one tile.
    assert len(used) == (1 if centre == 0 else tileset.tiles_per_band)


@pytest.mark.parametrize("kind", ["blob47", "edge16"])
def test_what_the_cleanup_removes_is_exactly_what_no_tile_can_draw(kind):
    # A tile of band b has only the colours of bands b and b - 1 on its
    # edges (and corners), so two cells can share an edge (or corner) only
    # if their bands differ by at most one: the maps limit_steps leaves as
    # they are, and no others.
    tileset = Tileset(kind)
    wang = tileset.wang_ids(BANDS).astype(int)
    band = np.arange(len(wang)) // tileset.tiles_per_band
    used = wang > 0
    assert ((wang == band[:, None] + 1) | (wang == np.maximum(band, 1)[:, None]) | ~used).all()
    rng = np.random.default_rng(7)
    closes = 0
    for _ in range(400):
        centre = rng.integers(1, BANDS - 1)
        block = (centre + rng.integers(-1, 2, size=(3, 3))).astype(np.uint8)
        steps = CONNECTIVITY[kind]
        offsets = [(-1, 0), (0, 1), (1, 0), (0, -1), (-1, -1), (-1, 1), (1, -1), (1, 1)][:steps]
        close = all(
            abs(int(block[y, x]) - int(block[y + dy, x + dx])) <= 1
            for y in range(3) for x in range(3) for dy, dx in offsets
            if 0 <= y + dy < 3 and 0 <= x + dx < 3
        )  # fmt: skip
        assert close == np.array_equal(limit_steps(block, connectivity=steps), block)
        closes += close
    assert 5 < closes < 395


def test_blob_masks_are_the_47_reduced_masks():
    assert len(BLOB_MASKS) == 47 and BLOB_MASKS[0] == 0 and BLOB_MASKS[-1] == 255
    assert Tileset().masks.tolist() == BLOB_MASKS.tolist()
    assert [Tileset(k).tiles_per_band for k in TILESETS] == [47, 16, 1]
    assert [Tileset(k).wang_type for k in TILESETS] == ["mixed", "edge", None]


def test_flat_tiles_are_the_bands():
    tiles = np.array([[0, 3], [7, 2]], dtype=np.uint8)
    assert np.array_equal(Tileset("flat").tile_ids(tiles), tiles)
    assert Tileset("flat").wang_ids(3).tolist() == [[1] * 8, [2] * 8, [3] * 8]


SMALL = MapConfig(terrain=NoiseMap(seed=5, width=96, height=80, scale=24.0, normalize="global"))


@pytest.mark.parametrize("kind", ["blob47", "edge16"])
def test_neighbouring_tiles_of_a_map_agree_on_their_shared_edges_and_corners(kind):
    config = MapConfig(terrain=SMALL.terrain, tileset=Tileset(kind))
    layers = make_layers(config)
    wang = config.tileset.wang_ids(BANDS)[layers.tile_ids].astype(np.int64)  # (H, W, 8)
    assert np.array_equal(layers.tile_ids // config.tileset.tiles_per_band, layers.tiles)
    assert len(np.unique(layers.tiles)) >= 5
    top, top_right, right, bottom_right, bottom, bottom_left, left, top_left = range(8)
    assert np.array_equal(wang[:, :-1, right], wang[:, 1:, left])
    assert np.array_equal(wang[:-1, :, bottom], wang[1:, :, top])
    if kind == "blob47":
        # The four tiles round a corner point give it one colour.
        point = wang[:-1, :-1, bottom_right]
        for other in (wang[:-1, 1:, bottom_left], wang[1:, :-1, top_right], wang[1:, 1:, top_left]):
            assert np.array_equal(point, other)


@pytest.mark.parametrize("kind", ["blob47", "edge16"])
def test_a_drawn_map_has_no_seams_between_tiles(kind):
    # Across a tile edge the colour changes no more than between two pixel
    # columns inside a tile: the borders and the grain run on. An edge set
    # knows nothing of its corners, so a border along one edge may stop at
    # the tile's corner; there only the middle of each edge is compared.
    config = MapConfig(terrain=SMALL.terrain, tileset=Tileset(kind, 16))
    layers = make_layers(config)
    picture = config.tileset.render(layers.tile_ids, config.tileset.draw(COLOURS)).astype(float)
    if kind == "edge16":
        rows = np.arange(picture.shape[0]) % 16
        picture = picture[(rows == 7) | (rows == 8)]
    steps = np.abs(np.diff(picture, axis=1)).sum(axis=2)  # (rows, W*16 - 1)
    seams = steps[:, 15::16]
    inside = steps[:, 7::16]
    assert seams.mean() <= 1.5 * inside.mean()
    assert np.percentile(seams, 99.5) <= 1.5 * np.percentile(inside, 99.5)
    # The same is not true of tiles picked without their masks.
    shuffled = config.tileset.render(layers.tile_ids[:, ::-1], config.tileset.draw(COLOURS))
    shuffled = shuffled[: picture.shape[0]] if kind == "blob47" else shuffled[7::16]
    other = np.abs(np.diff(shuffled.astype(float), axis=1)).sum(axis=2)
    assert other[:, 15::16].mean() > 1.5 * inside.mean()


def test_tiles_show_the_band_below_along_lower_edges():
    size = 16
    image = Tileset("edge16", size).draw(COLOURS, seed=3)
    tiles = image.reshape(BANDS, size, 16, size, 3).transpose(0, 2, 1, 3, 4)
    sand = tiles[2]  # sand over shallow water
    north_open = sand[15 & ~1]  # every neighbour sand or higher but the north one
    assert np.abs(north_open[0].astype(int) - COLOURS[1]).max() < 40  # top row: water
    assert np.abs(north_open[-1].astype(int) - COLOURS[2]).max() < 40  # bottom row: sand
    assert np.abs(sand[15].astype(int) - COLOURS[2]).max() < 40  # plain sand
    assert (tiles[0] == tiles[0][15]).all()  # deep water has nothing below it


def test_render_places_each_tile():
    tileset = Tileset("blob47", 4)
    image = tileset.draw(COLOURS)
    ids = np.array([[0, 47 * 3 + 46], [47 * 2 + 5, 46]], dtype=np.uint16)
    picture = tileset.render(ids, image)
    assert picture.shape == (8, 8, 3)
    assert np.array_equal(picture[4:, :4], image[2 * 4 : 3 * 4, 5 * 4 : 6 * 4])
    assert np.array_equal(picture[:4, 4:], image[3 * 4 : 4 * 4, 46 * 4 : 47 * 4])


def test_tile_ids_of_a_window_with_a_halo_equal_the_whole_maps():
    layers = make_layers(SMALL)
    part = make_layers(SMALL, Window(20, 30, 40, 25))
    assert np.array_equal(part.tile_ids, layers.tile_ids[30:55, 20:60])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: Tileset("wang"), ValueError, r"tileset kind must be one of 'blob47', 'edge16', 'flat'"),
        (lambda: Tileset(tile_size=2), ValueError, r"tile_size must be an integer from 4 to 256"),
        (lambda: Tileset().tile_ids(np.zeros((2, 2), int), halo=1), ValueError, r"hold nothing inside a halo of 1"),
        (lambda: Tileset().draw(COLOURS.astype(float)), ValueError, r"colours must be a \(bands, 3\) uint8 array"),
        (lambda: Tileset().render(np.array([[376]]), Tileset().draw(COLOURS)), ValueError, r"the tileset has 376"),
        (lambda: Tileset("edge16").render(np.array([[0]]), Tileset().draw(COLOURS)), ValueError, r"is not a edge16 tileset"),
        (lambda: MapConfig(tileset="blob47"), TypeError, r"tileset must be a Tileset"),
    ],
)  # fmt: skip
def test_bad_tileset_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
