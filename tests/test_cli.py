"""The command line, through typer's test runner."""

import json

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from worldgen.cli import app
from worldgen.io import read_tiled_json, read_tiles_csv

runner = CliRunner()
SMALL = ["--width", "96", "--height", "64"]
MAP_SET = [
    "height.png", "colour.png", "normal.png", "biomes.png", "biomes_legend.png",
    "tilemap.json", "tilemap_tileset.png", "tilemap.csv", "tiles.csv", "autotile.csv",
    "tilemap_tileset.tsx", "tilemap.png",
]  # fmt: skip


def test_map_with_defaults_writes_the_map_set(tmp_path):
    result = runner.invoke(app, ["map", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*MAP_SET, "worldgen-set.json"])
    for name in MAP_SET:
        assert str(tmp_path / name) in result.output
    with Image.open(tmp_path / "height.png") as image:
        assert image.size == (512, 512) and image.mode == "I;16"
    with Image.open(tmp_path / "colour.png") as image:
        assert image.size == (512, 512) and image.mode == "RGB"
    layer = json.loads((tmp_path / "tilemap.json").read_text())["layers"][0]
    assert layer["width"] == 512 and layer["encoding"] == "base64"
    tiles = read_tiled_json(tmp_path / "tilemap.json")
    assert tiles.shape == (512, 512)
    assert np.array_equal(tiles, read_tiles_csv(tmp_path / "tilemap.csv"))


def test_terrain_says_why_unity_wants_another_size_in_a_note(tmp_path):
    # It printed the Python warning, with its file, line and source line.
    args = ["terrain", "--out", str(tmp_path), "--width", "48", "--height", "40",
            "--droplets", "500", "--export", "r16"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "note: Unity terrains want square heightmaps" in result.output
    assert "Warning" not in result.output and "_heightmap.py" not in result.output


def test_options_are_passed_through(tmp_path):
    args = ["map", "--out", str(tmp_path), *SMALL, "--preset", "classic", "--seed", "-5",
            "--noise", "simplex",
            "--mode", "ridged", "--octaves", "3", "--normalize", "global", "--mask", "radial",
            "--export", "raw16", "--export", "npy", "--tile", "32"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "note: Unity terrains want square heightmaps" in result.output
    assert (tmp_path / "height.raw").stat().st_size == 96 * 64 * 2
    assert np.load(tmp_path / "height.npy").shape == (64, 96)
    assert sorted(p.name for p in (tmp_path / "tiles").iterdir()) == sorted(
        f"height_x{i}_y{j}.png" for i in range(3) for j in range(2)
    )
    again = tmp_path / "again"
    runner.invoke(app, [*args[:2], str(again), *args[3:]])
    assert (again / "height.png").read_bytes() == (tmp_path / "height.png").read_bytes()


def test_config_file_and_overrides(tmp_path):
    config = tmp_path / "map.toml"
    config.write_text(
        '[terrain]\nseed = 3\nwidth = 40\nheight = 30\nscale = 20.0\n\n[mask]\nshape = "square"\nradius = 15.0\n'
    )
    base = runner.invoke(app, ["map", "--out", str(tmp_path / "a"), "--config", str(config)])
    assert base.exit_code == 0, base.output
    assert "(40x30, seed 3)" in base.output
    over = runner.invoke(
        app, ["map", "--out", str(tmp_path / "b"), "--config", str(config), "--seed", "4"]
    )
    assert "(40x30, seed 4)" in over.output
    same = runner.invoke(
        app, ["map", "--out", str(tmp_path / "c"), "--config", str(config), "--seed", "3"]
    )
    assert same.exit_code == 0
    assert (tmp_path / "a" / "height.png").read_bytes() == (
        tmp_path / "c" / "height.png"
    ).read_bytes()
    assert (tmp_path / "a" / "height.png").read_bytes() != (
        tmp_path / "b" / "height.png"
    ).read_bytes()


def test_clean_up_and_climate_options(tmp_path):
    args = ["map", *SMALL, "--preset", "classic", "--seed", "8"]
    plain = runner.invoke(
        app, [*args, "--out", str(tmp_path / "a"), "--no-thin-water", "--no-isolated"]
    )
    cleaned = runner.invoke(app, [*args, "--out", str(tmp_path / "b"), "--lake-size", "50"])
    wetter = runner.invoke(
        app, [*args, "--out", str(tmp_path / "c"), "--climate-scale", "0.5", "--relief", "10"]
    )
    assert plain.exit_code == cleaned.exit_code == wetter.exit_code == 0
    a = read_tiles_csv(tmp_path / "a" / "tilemap.csv")
    b = read_tiles_csv(tmp_path / "b" / "tilemap.csv")
    assert a.shape == b.shape == (64, 96) and not np.array_equal(a, b)
    assert (tmp_path / "c" / "biomes.png").read_bytes() != (
        tmp_path / "b" / "biomes.png"
    ).read_bytes()


def test_presets(tmp_path):
    for name in ("islands", "continents", "archipelago", "classic", "classic-islands"):
        result = runner.invoke(
            app, ["map", "--out", str(tmp_path / name), *SMALL, "--preset", name]
        )
        assert result.exit_code == 0, result.output


def test_bad_parameters_give_one_red_line_and_exit_1(tmp_path):
    for args, message in (
        (["--octaves", "40"], "error: --octaves must be an integer from 1 to 32, got 40"),
        (["--scale", "0"], "error: --scale must be a finite number > 0"),
        (["--config", str(tmp_path / "nope.toml")], "error: config file not found"),
        (["--tile", "0"], "error: --tile must be a positive integer"),
        (["--lake-size", "-1"], "error: --lake-size must be an integer from 0"),
        (["--preset", "classic", "--mask-radius", "-5"], "error: --mask-radius must be a"),
        (["--preset", "classic", "--power", "-1"], "error: --power must be a finite"),
    ):
        result = runner.invoke(app, ["map", "--out", str(tmp_path / "x"), *SMALL, *args])
        assert result.exit_code == 1, result.output
        assert message in result.output
        assert len(result.output.strip().splitlines()) == 1
    # The same errors from a config file name the file, its table and key.
    wide = tmp_path / "wide.toml"
    wide.write_text("[terrain]\nwidth = 0\n")
    result = runner.invoke(app, ["map", "--out", str(tmp_path / "x"), "--config", str(wide)])
    said = f"error: config file {wide}: [terrain] width must be an integer from 1"
    assert " ".join(result.output.split()).startswith(said), result.output
    result = runner.invoke(app, ["terrain", "--out", str(tmp_path / "x"), "--droplets", "-1"])
    assert result.output.startswith("error: --droplets must be an integer from 0"), result.output
    bad = tmp_path / "bad.toml"
    bad.write_text("[terrain]\nsead = 1\n")
    result = runner.invoke(app, ["map", "--out", str(tmp_path / "x"), "--config", str(bad)])
    assert result.exit_code == 1 and "unknown key 'sead' in [terrain]" in result.output


def test_a_tile_cutting_too_many_files_is_refused_before_any_work(tmp_path):
    # --tile 1 cut the default 512 x 512 map into 262,144 files, hours of
    # writing; a --tile past 2**20 failed only once the map was made.
    for args, message in (
        (["--tile", "1"], "tile 1 cuts this 512 x 512 map into 262,144 files (at most 16,384); "
                          "use a tile of 4 or more"),
        (["--tile", "2000000"], "tile must be a positive integer up to 1048576"),
    ):  # fmt: skip
        out = tmp_path / "x"
        result = runner.invoke(app, ["map", "--out", str(out), *args])
        assert result.exit_code == 1, result.output
        assert message in result.output and len(result.output.strip().splitlines()) == 1
        assert not out.exists()


@pytest.mark.parametrize("command", ["map", "terrain"])
def test_options_that_would_be_ignored_are_refused(tmp_path, command):
    # --block and --dask without the block-by-block exports, and --tile
    # with them, were silently ignored.
    cases = [
        (["--block", "512"], "error: --block applies only with --export zarr, cog or tiles"),
        (["--dask", "local"], "error: --dask applies only with --export zarr, cog or tiles"),
    ]
    if command == "map":
        cases.append(
            (["--tile", "32", "--export", "zarr"], "error: --tile cuts the map set's heights")
        )
    for args, message in cases:
        out = tmp_path / "x"
        result = runner.invoke(app, [command, "--out", str(out), *SMALL, *args])
        assert result.exit_code == 1, result.output
        assert message in result.output and len(result.output.strip().splitlines()) == 1
        assert not out.exists()


def test_unknown_choice_is_refused_by_the_parser(tmp_path):
    result = runner.invoke(app, ["map", "--out", str(tmp_path), "--noise", "pelrin"])
    assert result.exit_code == 2 and "pelrin" in result.output


def test_animate_writes_a_looping_gif(tmp_path):
    result = runner.invoke(app, ["animate", "--out", str(tmp_path), "--preset", "fire", "--frames", "6",
                                 "--width", "32", "--height", "24", "--png-frames"])  # fmt: skip
    assert result.exit_code == 0, result.output
    with Image.open(tmp_path / "fire.gif") as image:
        assert image.size == (32, 24) and image.n_frames >= 2
    assert len(list((tmp_path / "fire_frames").glob("fire_*.png"))) == 6
    bad = runner.invoke(app, ["animate", "--out", str(tmp_path), "--frames", "0"])
    assert bad.exit_code == 1 and "error: --frames" in bad.output


def test_wobble_writes_an_svg(tmp_path):
    import xml.etree.ElementTree as ET

    result = runner.invoke(app, ["wobble", "--out", str(tmp_path), "--seed", "3"])
    assert result.exit_code == 0, result.output
    root = ET.parse(tmp_path / "wobble.svg").getroot()
    assert len(root.findall("{http://www.w3.org/2000/svg}polyline")) == 4
    bad = runner.invoke(app, ["wobble", "--out", str(tmp_path), "--wavelength", "-1"])
    assert bad.exit_code == 1 and "error: --wavelength" in bad.output


def test_terrain_writes_the_map_set_eroded_map_and_glb(tmp_path):
    import trimesh

    result = runner.invoke(app, ["terrain", "--out", str(tmp_path), *SMALL, "--droplets", "2000",
                                 "--dla", "0.3", "--thermal", "2", "--mesh", "glb", "--mesh", "obj"])  # fmt: skip
    assert result.exit_code == 0, result.output
    names = {p.name for p in tmp_path.iterdir()}
    assert (
        set(MAP_SET) | {"eroded.png", "terrain.png", "erosion.png", "terrain.glb", "terrain.obj"}
        <= names
    )
    mesh = trimesh.load(tmp_path / "terrain.glb", force="mesh", process=False)
    assert len(mesh.vertices) == 96 * 64 and len(mesh.faces) == 2 * 95 * 63
    with Image.open(tmp_path / "eroded.png") as image:
        assert image.size == (96, 64) and image.mode == "I;16"
    bad = runner.invoke(app, ["terrain", "--out", str(tmp_path / "x"), *SMALL, "--dla", "2"])
    assert bad.exit_code == 1 and "error: --dla must be a number from 0 to 1" in bad.output
    assert not (tmp_path / "x").exists()


def test_world_rivers_flag_reaches_the_config(tmp_path):
    store = tmp_path / "shared.db"
    args = ["world", "--radius", "8", "--mesh-radius", "8", "--threads", "1", "--store", str(store)]
    first = runner.invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    # Without rivers the world's key differs: the store refuses to mix them.
    second = runner.invoke(app, [*args, "--no-rivers", "--out", str(tmp_path / "b")])
    assert second.exit_code == 1
    assert "holds another world" in second.output
    assert "--store FILE" in second.output and "delete the file" in second.output


def test_world_maps_refuse_classic_options_and_have_levels_and_water(tmp_path):
    refused = runner.invoke(app, ["map", "--out", str(tmp_path / "a"), *SMALL, "--octaves", "3"])
    assert refused.exit_code == 1
    assert "--octaves shapes the classic noise map" in refused.output
    both = [*SMALL, "--octaves", "3", "--scale", "9"]
    refused = runner.invoke(app, ["map", "--out", str(tmp_path / "a"), *both])
    assert "--scale, --octaves shape the classic noise map" in refused.output
    classic = [*SMALL, "--preset", "classic", "--land-fraction", "0.1"]
    refused = runner.invoke(app, ["map", "--out", str(tmp_path / "a"), *classic])
    assert "--land-fraction shapes the world model" in refused.output
    result = runner.invoke(
        app, ["map", "--out", str(tmp_path / "b"), *SMALL, "--level", "6", "--export", "npy"]
    )
    assert result.exit_code == 0, result.output
    assert "level 6" in result.output
    assert "open ocean" not in result.output  # it looked at 1 cell a sample
    water = np.load(tmp_path / "b" / "water.npy")
    assert water.dtype == bool and water.shape == (64, 96)
    assert water.any() and not water.all()  # the spawn's overview: coast and land
    classic = runner.invoke(
        app, ["map", "--out", str(tmp_path / "c"), *SMALL, "--preset", "classic", "--level", "2"]
    )
    assert classic.exit_code == 1 and "--level applies to world presets" in classic.output
    ocean = runner.invoke(
        app, ["map", "--out", str(tmp_path / "d"), *SMALL, "--x", "0", "--y", "0"]
    )
    assert ocean.exit_code == 0 and "open ocean" in ocean.output
