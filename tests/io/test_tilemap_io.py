"""Tile maps as files: CSV round trips, Tiled JSON maps with their tileset image."""

import base64
import contextlib
import gzip
import json
import pathlib
import zlib

import numpy as np
import pytest
import pytiled_parser
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image

from worldgen.io import _tilemap
from worldgen.io._tilemap import (
    read_tiled_json,
    read_tiles_csv,
    write_tiled_json,
    write_tiles_csv,
)
from worldgen.products import Tileset

COLOURS = [(0, 0, 128), (40, 90, 200), (230, 210, 150), (40, 160, 40)]
NAMES = ["deep water", "shallow water", "sand", "grass"]
TILES = np.array(
    [
        [0, 0, 1, 2, 3],
        [0, 1, 2, 3, 3],
        [1, 2, 2, 3, 0],
    ]
)

# ------------------------------------------------------------------- CSV


def test_csv_text_is_one_row_per_line(tmp_path):
    path = write_tiles_csv(tmp_path / "map.csv", TILES)
    assert path == tmp_path / "map.csv"
    assert path.read_text() == "0,0,1,2,3\n0,1,2,3,3\n1,2,2,3,0\n"


small_maps = hnp.arrays(
    st.sampled_from([np.uint8, np.int32, np.int64]),
    hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=9),
    elements=st.integers(0, 120),
)


@given(small_maps)
def test_csv_round_trip(tmp_path_factory, tiles):
    path = write_tiles_csv(tmp_path_factory.mktemp("csv") / "map.csv", tiles)
    back = read_tiles_csv(path)
    assert back.dtype == np.int64
    assert back.shape == tiles.shape
    assert np.array_equal(back, tiles)


@given(
    hnp.arrays(
        np.int64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=12),
        elements=st.one_of(st.integers(0, 12), st.integers(0, 2**16 + 5)),
    ),
    st.sampled_from([np.uint8, np.uint16, np.int32, np.int64, np.uint64]),
)
def test_csv_is_what_pythons_csv_module_reads(tmp_path_factory, tiles, dtype):
    # Every value spelled in decimal, small ids (through the digit table)
    # and big ones alike, read back by the standard library's reader.
    import csv

    if tiles.max() <= np.iinfo(dtype).max:
        tiles = tiles.astype(dtype)
    path = write_tiles_csv(tmp_path_factory.mktemp("csv") / "map.csv", tiles)
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    assert rows == [[str(v) for v in row] for row in tiles.tolist()]
    assert path.read_bytes().endswith(b"\n") and b"\r" not in path.read_bytes()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"holds no tile rows"),
        ("\n\n", r"holds no tile rows"),
        ("1,2,3\n4,5\n", r"not a tile CSV"),
        ("1,2\n3,x\n", r"not a tile CSV"),
        ("1,2\n3,-4\n", r"class ids must be non-negative, found -4"),
    ],
)
def test_bad_csv(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_tiles_csv(path)


def test_bad_tiles_write_no_csv(tmp_path):
    with pytest.raises(TypeError, match=r"tiles must hold integer class ids"):
        write_tiles_csv(tmp_path / "map.csv", np.zeros((2, 2)))
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------- Tiled JSON

# The fields written, with their JSON types, from the format reference
# (https://doc.mapeditor.org/en/stable/reference/json-map-format/).
MAP_FIELDS = {
    "compressionlevel": int,
    "height": int,
    "infinite": bool,
    "layers": list,
    "nextlayerid": int,
    "nextobjectid": int,
    "orientation": str,
    "renderorder": str,
    "tiledversion": str,
    "tileheight": int,
    "tilesets": list,
    "tilewidth": int,
    "type": str,
    "version": str,
    "width": int,
}
LAYER_FIELDS = {
    "data": list,
    "height": int,
    "id": int,
    "name": str,
    "opacity": (int, float),
    "type": str,
    "visible": bool,
    "width": int,
    "x": int,
    "y": int,
}
TILESET_FIELDS = {
    "columns": int,
    "firstgid": int,
    "image": str,
    "imageheight": int,
    "imagewidth": int,
    "margin": int,
    "name": str,
    "spacing": int,
    "tilecount": int,
    "tileheight": int,
    "tilewidth": int,
}


def check_fields(obj, fields, what):
    assert isinstance(obj, dict), what
    for name, kind in fields.items():
        assert name in obj, f"{what}: {name} missing"
        value = obj[name]
        # JSON has no separate bool and int; Python's bool is an int subclass.
        assert isinstance(value, kind), f"{what}: {name} = {value!r} is not {kind}"
        if kind is int or kind == (int, float):
            assert not isinstance(value, bool), f"{what}: {name} = {value!r} is a bool"


def validate_tiled_map(doc):
    """The structure Tiled needs to open a finite orthogonal map with one tileset."""
    check_fields(doc, MAP_FIELDS, "map")
    assert doc["type"] == "map"
    assert doc["orientation"] == "orthogonal"
    assert doc["renderorder"] == "right-down"
    assert doc["infinite"] is False
    assert doc["nextlayerid"] > max(layer["id"] for layer in doc["layers"])
    assert doc["nextobjectid"] >= 1
    assert len(doc["layers"]) == 1
    layer = doc["layers"][0]
    check_fields(layer, LAYER_FIELDS, "layer")
    assert layer["type"] == "tilelayer"
    assert "encoding" not in layer or layer["encoding"] == "csv"
    assert (layer["width"], layer["height"]) == (doc["width"], doc["height"])
    assert len(layer["data"]) == doc["width"] * doc["height"]
    assert all(isinstance(gid, int) and gid >= 1 for gid in layer["data"])
    assert len(doc["tilesets"]) == 1
    tileset = doc["tilesets"][0]
    check_fields(tileset, TILESET_FIELDS, "tileset")
    assert tileset["firstgid"] == 1
    assert (tileset["tilewidth"], tileset["tileheight"]) == (doc["tilewidth"], doc["tileheight"])
    assert tileset["margin"] == 0 and tileset["spacing"] == 0
    assert tileset["imagewidth"] == tileset["columns"] * tileset["tilewidth"]
    assert tileset["imageheight"] == tileset["tileheight"]
    assert tileset["tilecount"] == tileset["columns"]
    assert max(layer["data"]) <= tileset["firstgid"] + tileset["tilecount"] - 1
    for tile in tileset.get("tiles", []):
        check_fields(tile, {"id": int, "properties": list}, "tile")
        assert 0 <= tile["id"] < tileset["tilecount"]
        for prop in tile["properties"]:
            check_fields(prop, {"name": str, "type": str}, "property")
            assert prop["type"] == "string" and isinstance(prop["value"], str)
    return layer, tileset


def test_tiled_map_has_the_documented_fields(tmp_path):
    path = write_tiled_json(tmp_path / "world.json", TILES, colours=COLOURS, tile_size=8)
    assert path == tmp_path / "world.json"
    doc = json.loads(path.read_text())
    layer, tileset = validate_tiled_map(doc)
    assert (doc["width"], doc["height"]) == (5, 3)
    assert (doc["tilewidth"], doc["tileheight"]) == (8, 8)
    assert layer["data"] == [
        1, 1, 2, 3, 4,
        1, 2, 3, 4, 4,
        2, 3, 3, 4, 1,
    ]  # fmt: skip
    assert tileset["image"] == "world_tileset.png"
    assert (tileset["imagewidth"], tileset["imageheight"], tileset["tilecount"]) == (32, 8, 4)
    assert "tiles" not in tileset


def test_tileset_image_has_one_flat_square_per_class(tmp_path):
    write_tiled_json(tmp_path / "world.json", TILES, colours=COLOURS, tile_size=8)
    with Image.open(tmp_path / "world_tileset.png") as image:
        assert image.format == "PNG"
        assert image.size == (32, 8)
        pixels = np.asarray(image.convert("RGB"))
    for index, colour in enumerate(COLOURS):
        square = pixels[:, 8 * index : 8 * index + 8]
        assert (square == colour).all()


def test_names_become_tile_properties(tmp_path):
    path = write_tiled_json(tmp_path / "world.json", TILES, colours=COLOURS, names=NAMES)
    _, tileset = validate_tiled_map(json.loads(path.read_text()))
    assert tileset["tiles"] == [
        {"id": i, "properties": [{"name": "name", "type": "string", "value": name}]}
        for i, name in enumerate(NAMES)
    ]


def test_more_colours_than_classes_are_all_in_the_tileset(tmp_path):
    path = write_tiled_json(tmp_path / "m.json", np.zeros((2, 2), np.uint8), colours=COLOURS)
    _, tileset = validate_tiled_map(json.loads(path.read_text()))
    assert tileset["tilecount"] == 4
    assert read_tiled_json(path).tolist() == [[0, 0], [0, 0]]


@given(small_maps, st.integers(1, 5))
def test_tiled_round_trip(tmp_path_factory, tiles, tile_size):
    folder = tmp_path_factory.mktemp("tiled")
    colours = [(i, 255 - i, (7 * i) % 256) for i in range(121)]
    path = write_tiled_json(folder / "m.json", tiles, colours=colours, tile_size=tile_size)
    validate_tiled_map(json.loads(path.read_text()))
    back = read_tiled_json(path)
    assert back.shape == tiles.shape
    assert np.array_equal(back, tiles)
    with Image.open(folder / "m_tileset.png") as image:
        assert image.size == (121 * tile_size, tile_size)


def test_rewriting_replaces_both_files(tmp_path):
    write_tiled_json(tmp_path / "w.json", TILES, colours=COLOURS)
    write_tiled_json(tmp_path / "w.json", TILES[:1, :2], colours=COLOURS[:1], tile_size=4)
    assert read_tiled_json(tmp_path / "w.json").tolist() == [[0, 0]]
    with Image.open(tmp_path / "w_tileset.png") as image:
        assert image.size == (4, 4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json", "w_tileset.png"]


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"colours": COLOURS[:3]}, ValueError, r"colours has 3 entries but tiles holds class ids up to 3"),
        ({"colours": [(0, 0)] * 4}, ValueError, r"colours: give colours as a sequence of \(r, g, b\)"),
        ({"colours": [(0, 0, 256)] * 4}, ValueError, r"found a value outside 0-255"),
        ({"colours": [(0.5, 0, 0)] * 4}, TypeError, r"got dtype float64"),
        ({"colours": [(0, 0, 0), (1, 2)]}, TypeError, r"colours: give colours as"),
        ({"colours": COLOURS, "names": NAMES[:2]}, ValueError, r"names has 2 entries but colours has 4"),
        ({"colours": COLOURS, "names": "sand"}, TypeError, r"names must be a sequence of strings"),
        ({"colours": COLOURS, "names": [1, 2, 3, 4]}, TypeError, r"names must be a sequence"),
        ({"colours": COLOURS, "tile_size": 0}, ValueError, r"tile_size must be an integer from 1 to 4096"),
        ({"colours": COLOURS, "tile_size": 8.0}, TypeError, r"tile_size must be an integer"),
    ],
)  # fmt: skip
def test_bad_options_write_nothing(tmp_path, options, error, message):
    with pytest.raises(error, match=message):
        write_tiled_json(tmp_path / "world.json", TILES, **options)
    assert list(tmp_path.iterdir()) == []


def test_failure_while_writing_leaves_old_files_and_no_parts(tmp_path, monkeypatch):
    write_tiled_json(tmp_path / "w.json", TILES, colours=COLOURS)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    atomic_file = _tilemap.atomic_file

    @contextlib.contextmanager
    def broken_write(path):
        with atomic_file(path) as out:
            if ".png" in pathlib.Path(path).name:  # the tileset image, after the JSON's part
                raise OSError("disk full")
            yield out

    monkeypatch.setattr(_tilemap, "atomic_file", broken_write)
    with pytest.raises(OSError, match="disk full"):
        write_tiled_json(tmp_path / "w.json", TILES[:2], colours=COLOURS)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


# ----------------------------------------------------- reading Tiled maps


def saved_map(tmp_path, **layer_changes):
    """A map as write_tiled_json makes it, with its layer edited as Tiled might."""
    path = write_tiled_json(tmp_path / "m.json", TILES, colours=COLOURS)
    doc = json.loads(path.read_text())
    doc["layers"][0].update(layer_changes)
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("compression", "pack"),
    [("", lambda b: b), ("zlib", zlib.compress), ("gzip", gzip.compress)],
)
def test_read_base64_layers(tmp_path, compression, pack):
    raw = (TILES.astype("<u4") + 1).tobytes()
    data = base64.b64encode(pack(raw)).decode()
    path = saved_map(tmp_path, encoding="base64", compression=compression, data=data)
    assert np.array_equal(read_tiled_json(path), TILES)


def test_read_ignores_flip_flags(tmp_path):
    gids = (TILES.ravel() + 1).astype(np.int64)
    gids[0] |= 0x80000000
    gids[1] |= 0x40000000 | 0x20000000
    path = saved_map(tmp_path, data=gids.tolist())
    assert np.array_equal(read_tiled_json(path), TILES)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"data": [0] * 15}, r"15 empty cells \(gid 0\)"),
        ({"data": [1] * 14}, r"holds 14 tiles, expected 5 x 3 = 15"),
        ({"data": ["1"] * 15}, r"data must be an array of tile ids"),
        ({"data": [-1] * 15}, r"data must be an array of tile ids"),
        ({"encoding": "base64", "compression": "zstd", "data": ""}, r"'zstd' is not supported"),
        ({"width": 0}, r"positive integer width and height"),
        ({"type": "objectgroup"}, r"expected exactly one tile layer, found 0"),
    ],
)
def test_read_bad_layers(tmp_path, changes, message):
    with pytest.raises(ValueError, match=message):
        read_tiled_json(saved_map(tmp_path, **changes))


def test_read_bad_maps(tmp_path):
    path = tmp_path / "m.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match=r"not a JSON file"):
        read_tiled_json(path)
    path.write_text(json.dumps({"type": "tileset"}))
    with pytest.raises(ValueError, match=r"not a Tiled JSON map"):
        read_tiled_json(path)
    path.write_text(json.dumps({"type": "map", "infinite": True, "layers": []}))
    with pytest.raises(ValueError, match=r"infinite maps are not supported"):
        read_tiled_json(path)
    two = saved_map(tmp_path)
    doc = json.loads(two.read_text())
    doc["layers"].append(dict(doc["layers"][0], id=2))
    two.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"expected exactly one tile layer, found 2"):
        read_tiled_json(two)


def test_base64_encoding_round_trips_and_is_tiled_compressed(tmp_path):
    tiles = np.random.default_rng(4).integers(0, 5, size=(40, 70))
    colours = [(i * 40, 0, 0) for i in range(5)]
    path = write_tiled_json(tmp_path / "map.json", tiles, colours=colours, encoding="base64")
    layer = json.loads(path.read_text())["layers"][0]
    assert layer["encoding"] == "base64" and layer["compression"] == "zlib"
    gids = np.frombuffer(zlib.decompress(base64.b64decode(layer["data"])), "<u4")
    assert np.array_equal(gids.reshape(40, 70), tiles + 1)
    assert np.array_equal(read_tiled_json(path), tiles)
    with pytest.raises(ValueError, match="encoding must be 'csv' or 'base64'"):
        write_tiled_json(tmp_path / "other.json", tiles, colours=colours, encoding="xml")


def test_csv_writer_handles_large_ids(tmp_path):
    tiles = np.array([[0, 70000], [3, 123456]])
    assert np.array_equal(read_tiles_csv(write_tiles_csv(tmp_path / "big.csv", tiles)), tiles)


# ------------------------------------------- transition tilesets, wang sets


@pytest.mark.parametrize(
    ("kind", "per", "wang_type"), [("blob47", 47, "mixed"), ("edge16", 16, "edge")]
)
def test_transition_tileset_loads_in_pytiled_parser_with_its_wang_set(
    tmp_path, kind, per, wang_type
):
    tileset = Tileset(kind, 8)
    path = write_tiled_json(tmp_path / "w.json", TILES, colours=COLOURS, names=NAMES, tile_size=8,
                            tileset=kind, encoding="base64")  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "w.json",
        "w_tileset.png",
        "w_tileset.tsx",
    ]
    for parsed in (
        pytiled_parser.parse_map(path).tilesets[1],
        pytiled_parser.parse_tileset(tmp_path / "w_tileset.tsx"),
    ):
        assert (parsed.tile_count, parsed.columns, parsed.tile_width) == (4 * per, per, 8)
        assert parsed.image.name == "w_tileset.png"
        (wang_set,) = parsed.wang_sets
        assert wang_set.wang_type == wang_type
        assert [c.name for c in wang_set.wang_colors] == NAMES
        assert [c.color[:3] for c in wang_set.wang_colors] == [tuple(c) for c in COLOURS]
        assert [c.tile for c in wang_set.wang_colors] == [b * per + per - 1 for b in range(4)]
        assert sorted(wang_set.wang_tiles) == list(range(4 * per))
        wang = tileset.wang_ids(4)
        for tile_id, wang_tile in wang_set.wang_tiles.items():
            assert wang_tile.wang_id == wang[tile_id].tolist()
    layer = pytiled_parser.parse_map(path).layers[0]
    gids = np.array(layer.data)
    assert np.array_equal(gids - 1, tileset.tile_ids(TILES))
    assert np.array_equal(read_tiled_json(path), TILES)
    with Image.open(tmp_path / "w_tileset.png") as image:
        assert image.size == (8 * per, 8 * 4)
        assert np.array_equal(
            np.asarray(image.convert("RGB")), tileset.draw(np.array(COLOURS, np.uint8))
        )


def test_tile_ids_given_are_written_and_checked(tmp_path):
    ids = Tileset().tile_ids(np.pad(TILES, 1, mode="wrap"), halo=1)
    path = write_tiled_json(
        tmp_path / "w.json", TILES, colours=COLOURS, tileset="blob47", tile_ids=ids
    )
    assert np.array_equal(
        np.array(json.loads(path.read_text())["layers"][0]["data"]), ids.ravel() + 1
    )
    assert np.array_equal(read_tiled_json(path), TILES)
    assert not np.array_equal(ids, Tileset().tile_ids(TILES))  # other masks at the border


@pytest.mark.parametrize("encoding", ["csv", "base64"])
def test_tile_ids_of_every_integer_type_write_the_same_map(tmp_path, encoding):
    # uint8 and uint16 ids are checked and made global ids by a compiled
    # pass, wider ones by numpy: the same files, the same refusals.
    rng = np.random.default_rng(3)
    tiles = rng.integers(0, 4, size=(40, 33))
    ids = Tileset().tile_ids(np.pad(tiles, 1, mode="reflect"), halo=1)
    made = []
    for k, dtype in enumerate([np.uint16, np.int64, np.int32, np.uint32]):
        path = write_tiled_json(
            tmp_path / f"{k}.json", tiles.astype(np.uint8), colours=COLOURS, encoding=encoding,
            tileset="blob47", tile_ids=ids.astype(dtype),
        )  # fmt: skip
        made.append(path.read_text().replace(f'"{k} classes"', "").replace(f"{k}_tileset", ""))
        wrong = ids.astype(dtype)
        wrong[17, 9] = (tiles[17, 9] + 1) % 4 * 47
        with pytest.raises(ValueError, match="tile_ids are not blob47 tiles"):
            write_tiled_json(
                tmp_path / "x.json", tiles, colours=COLOURS, tileset="blob47", tile_ids=wrong
            )
    assert made[1:] == made[:1] * 3
    assert np.array_equal(read_tiled_json(path), tiles)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"tileset": "wang"}, ValueError, r"tileset must be one of blob47, edge16, flat, got 'wang'"),
        ({"tileset": "blob47", "tile_size": 2}, ValueError, r"tile_size must be an integer from 4 to 256"),
        ({"tileset": "blob47", "tile_ids": np.zeros((2, 2), int)}, ValueError, r"tile_ids has shape \(2, 2\) but tiles has \(3, 5\)"),
        ({"tileset": "blob47", "tile_ids": TILES}, ValueError, r"tile_ids are not blob47 tiles of the classes in tiles"),
        ({"tile_ids": TILES}, ValueError, r"tile_ids are only for a transition tileset"),
    ],
)  # fmt: skip
def test_bad_tileset_options_write_nothing(tmp_path, options, error, message):
    with pytest.raises(error, match=message):
        write_tiled_json(tmp_path / "world.json", TILES, colours=COLOURS, **options)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("tileset", ["blob47", "edge16"])
def test_too_many_colours_for_a_transition_tileset_are_named(tmp_path, tileset):
    colours = [(i % 256, 0, 0) for i in range(257)]
    with pytest.raises(ValueError, match=rf"colours has 257 entries; a {tileset} tileset"):
        write_tiled_json(tmp_path / "world.json", TILES, colours=colours, tileset=tileset)
    assert list(tmp_path.iterdir()) == []


def test_read_rejects_a_bad_tiles_per_class_property(tmp_path):
    path = write_tiled_json(tmp_path / "w.json", TILES, colours=COLOURS, tileset="edge16")
    doc = json.loads(path.read_text())
    doc["tilesets"][0]["properties"][0]["value"] = 0
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"'tiles per class' must be a positive integer"):
        read_tiled_json(path)
