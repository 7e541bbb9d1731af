"""`worldgen map` writes the transition tileset, its Tiled terrain set and a tilemap picture."""

import json

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from worldgen.cli import app
from worldgen.io import read_tiled_json, read_tiles_csv

runner = CliRunner()
SMALL = ["--width", "96", "--height", "64", "--normalize", "global"]


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
        assert image.size == (2048, 2048) and image.mode == "RGB"  # the central 128 x 128 tiles
        picture = np.asarray(image)
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 500  # drawn tiles, not flat squares
    assert np.array_equal(read_tiled_json(tmp_path / "tilemap.json"),
                          read_tiles_csv(tmp_path / "tilemap.csv"))  # fmt: skip


@pytest.mark.parametrize(("kind", "columns"), [("edge16", 16), ("flat", 8)])
def test_tileset_and_tile_size_options(tmp_path, kind, columns):
    args = ["map", "--out", str(tmp_path), *SMALL, "--tileset", kind, "--tile-size", "8"]
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
    assert "tile_size must be an integer from 4 to 256" in result.output
    assert not (tmp_path / "tilemap.json").exists()
    result = runner.invoke(app, ["map", "--out", str(tmp_path), "--tileset", "hex"])
    assert result.exit_code == 2
