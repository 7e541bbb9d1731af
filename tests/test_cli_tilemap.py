"""`worldgen map` writes the transition tileset, its Tiled terrain set and a tilemap picture."""

import json

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from worldgen.cli import app
from worldgen.io import read_tiled_json, read_tiles_csv

runner = CliRunner()
SMALL = ["--width", "96", "--height", "64", "--preset", "classic", "--normalize", "global"]


def tileset_of(folder):
    return json.loads((folder / "tilemap.json").read_text())["tilesets"][0]


def test_the_default_map_has_blob_transition_tiles_wang_sets_and_a_picture(tmp_path):
    result = runner.invoke(app, ["map", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for name in ("tilemap_tileset.png", "tilemap_tileset.tsx", "tilemap.png"):
        assert str(tmp_path / name) in result.output
    tileset = tileset_of(tmp_path)
    assert (tileset["columns"], tileset["tilecount"], tileset["tilewidth"]) == (47, 8 * 47, 16)
    (wang_set,) = tileset["wangsets"]
    assert wang_set["type"] == "mixed" and len(wang_set["wangtiles"]) == 8 * 47
    assert [c["name"] for c in wang_set["colors"]][:3] == ["deep water", "shallow water", "sand"]
    with Image.open(tmp_path / "tilemap_tileset.png") as image:
        assert image.size == (47 * 16, 8 * 16)
    with Image.open(tmp_path / "tilemap.png") as image:
        assert image.size == (2048, 2048) and image.mode == "RGB"
        picture = np.asarray(image)
    # Drawn tiles, not flat squares (those would give one colour a band).
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 100
    assert np.array_equal(read_tiled_json(tmp_path / "tilemap.json"),
                          read_tiles_csv(tmp_path / "tilemap.csv"))  # fmt: skip
    # The whole 512 x 512 map, each cell its tile of tiles.csv drawn at 4 pixels.
    from worldgen.products import DEFAULT_BANDS, Tileset
    from worldgen.products._classify import band_colours

    ids = read_tiles_csv(tmp_path / "tiles.csv")
    assert ids.shape == (512, 512)
    small = Tileset("blob47", tile_size=4)
    assert np.array_equal(picture, small.render(ids, small.draw(band_colours(DEFAULT_BANDS))))


def test_tiles_csv_holds_the_tiles_tilemap_json_draws(tmp_path):
    """The engine recipe (Godot's TileMapLayer, Unity): tiles.csv is each
    cell's tile in tilemap_tileset.png, exactly the gids of tilemap.json
    less one, on every cell."""
    import base64
    import zlib

    result = runner.invoke(app, ["map", "--out", str(tmp_path), *SMALL])
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "tilemap.json").read_text())
    (layer,) = [la for la in document["layers"] if la["type"] == "tilelayer"]
    raw = base64.b64decode(layer["data"])
    raw = zlib.decompress(raw) if layer.get("compression") == "zlib" else raw
    gids = np.frombuffer(raw, "<u4").reshape(64, 96).astype(np.int64)
    assert np.array_equal(read_tiles_csv(tmp_path / "tiles.csv"), gids - 1)
    classes = read_tiles_csv(tmp_path / "tilemap.csv")
    assert np.array_equal((gids - 1) // 47, classes)  # tile row = band


@pytest.mark.parametrize(("kind", "columns"), [("edge16", 16), ("flat", 8)])
def test_tileset_and_tile_size_options(tmp_path, kind, columns):
    args = ["map", "--out", str(tmp_path), *SMALL, "--tileset", kind,
            "--tile-size", "8"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    tileset = tileset_of(tmp_path)
    assert (tileset["columns"], tileset["tilewidth"]) == (columns, 8)  # flat: one row of bands
    assert ("wangsets" in tileset) == (kind != "flat")
    assert (tmp_path / "tilemap_tileset.tsx").exists() == (kind != "flat")
    with Image.open(tmp_path / "tilemap.png") as image:
        assert image.size == (96 * 8, 64 * 8)
    assert np.array_equal(read_tiled_json(tmp_path / "tilemap.json"),
                          read_tiles_csv(tmp_path / "tilemap.csv"))  # fmt: skip


def test_bad_tileset_options_fail_with_one_line(tmp_path):
    result = runner.invoke(app, ["map", "--out", str(tmp_path), *SMALL, "--tile-size", "2"])
    assert result.exit_code == 1
    assert "--tile-size must be an integer from 4 to 256" in result.output
    assert not (tmp_path / "tilemap.json").exists()
    result = runner.invoke(app, ["map", "--out", str(tmp_path), "--tileset", "hex"])
    assert result.exit_code == 2
