"""Configs from TOML, presets and overrides."""

import pytest

from worldgen.config import PRESETS, load_toml, map_config, merge, preset
from worldgen.world._shaping import Mask

TOML = """
climate_scale = 3.0

[terrain]
seed = 42
width = 300
height = 200
scale = 50.0
offset = [10.0, -5.0]
normalize = "global"

[mask]
shape = "radial"
radius = 90.0

[curve]
points = [[0.0, 0.0], [0.4, 0.4], [1.0, 1.0]]
smooth = true

[cleanup]
lake_size = 12

[[bands]]
name = "water"
top = 0.4
colour = [0, 0, 200]

[[bands]]
name = "land"
top = 1.0
colour = [0, 160, 0]
"""


def test_toml_file_becomes_a_map_config(tmp_path):
    path = tmp_path / "map.toml"
    path.write_text(TOML)
    config = map_config(load_toml(path))
    assert config.terrain.seed == 42 and config.terrain.offset == (10.0, -5.0)
    assert config.mask == Mask("radial", radius=90.0)
    assert config.curve.points == ((0.0, 0.0), (0.4, 0.4), (1.0, 1.0)) and config.curve.smooth
    assert config.cleanup.lake_size == 12 and config.climate_scale == 3.0
    assert [b.name for b in config.bands] == ["water", "land"]


def test_overrides_win_over_file_and_file_over_preset(tmp_path):
    path = tmp_path / "map.toml"
    path.write_text(TOML)
    data = merge(preset("classic-islands", 300, 200), load_toml(path))
    data = merge(data, {"terrain": {"seed": 7}})
    config = map_config(data)
    assert config.terrain.seed == 7  # command line
    assert config.terrain.scale == 50.0  # file over preset
    assert config.mask.radius == 90.0
    assert config.terrain.octaves == 6  # preset, untouched by the file


@pytest.mark.parametrize("name", PRESETS)
def test_presets_build(name):
    config = map_config(merge({"terrain": {"width": 128, "height": 96}}, preset(name, 128, 96)))
    # Every preset but the classic noise map (normalised to its own range)
    # is seamless; the first three are views of the world model.
    assert config.seamless == (name != "classic")
    assert (config.world is not None) == (name in ("continents", "islands", "archipelago"))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"terain": {}},
            r"unknown key 'terain' at the top of the file \(before any \[table\]\); valid: bands",
        ),
        ({"terrain": {"sead": 1}}, r"unknown key 'sead' in \[terrain\]; valid: height, lacunarity"),
        (
            {"mask": {"shape": "hexagon"}},
            r"mask shape must be one of 'none', 'square', 'radial', 'square-bump'",
        ),
        ({"terrain": {"scale": -1.0}}, r"scale must be a finite number > 0"),
        ({"bands": []}, r"\[\[bands\]\] must be a non-empty array"),
        (
            {"bands": [{"name": "a", "top": 0.5, "colour": [0, 0]}]},
            r"band 'a' colour must be three integers",
        ),
        ({"terrain": 3}, r"\[terrain\] must be a table"),
        # A band without its keys was Python's "Band.__init__() missing 2
        # required positional arguments"; an entry that is not a table said
        # "[bands] must be a table".
        ({"bands": [{"name": "a"}]}, r"missing key 'top', 'colour' in \[\[bands\]\]; each needs"),
        ({"bands": [1]}, r"\[\[bands\]\] must be an array of tables .*got an entry 1"),
        # A single [bands] table said "[[bands]] must be a non-empty array".
        (
            {"bands": {"name": "a", "top": 1.0, "colour": [1, 2, 3]}},
            r"\[bands\] is one table, .* under a \[\[bands\]\] line, with two brackets",
        ),
    ],
)
def test_bad_configs_name_the_problem(data, message):
    with pytest.raises(ValueError, match=message):
        map_config(data)


def test_unknown_preset_and_missing_or_broken_files(tmp_path):
    with pytest.raises(
        ValueError, match="preset must be one of continents, islands, archipelago, classic"
    ):
        preset("moon")
    with pytest.raises(ValueError, match="config file not found"):
        load_toml(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[terrain\nseed = ")
    with pytest.raises(ValueError, match="is not valid TOML"):
        load_toml(broken)


def test_world_config_from_toml(tmp_path):
    from worldgen.config import voxel_config

    path = tmp_path / "world.toml"
    path.write_text("seed = 7\nsea_level = 40\ntrees = false\n\n[palette]\ngrass = [10, 200, 10]\n")
    config = voxel_config(load_toml(path))
    assert (config.seed, config.sea_level, config.trees) == (7, 40, False)
    assert dict(config.palette)["grass"] == (10, 200, 10)
    # A top-level typo is at the top of the file, not in the [world] table
    # (the world model's own table), which is named when the typo is there.
    with pytest.raises(ValueError, match=r"unknown key 'sead' at the top of the file"):
        voxel_config({"sead": 1})
    with pytest.raises(ValueError, match=r"unknown key 'sead' in \[world\]"):
        voxel_config({"world": {"sead": 1}})
    with pytest.raises(ValueError, match=r"unknown block 'obsidian' in \[palette\]"):
        voxel_config({"palette": {"obsidian": [255, 0, 0]}})


def _run_with_config(tmp_path, text: str, command: str, *args: str, name: str = "map.toml"):
    """``worldgen COMMAND --config FILE --out OUT ARGS`` with ``text`` in
    FILE (``name`` under ``tmp_path``), refused with status 1: its result,
    FILE and OUT."""
    from typer.testing import CliRunner

    from worldgen.cli import app

    path = tmp_path / name
    path.write_text(text)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [command, "--config", str(path), "--out", str(out), *args])
    assert result.exit_code == 1, result.output
    return result, path, out


@pytest.mark.parametrize("key", ["terrain", "world", "mask", "tileset", "biomes"])
def test_a_table_written_as_a_value_is_refused_naming_the_file(tmp_path, key):
    """``terrain = 5`` failed with "'int' object is not a mapping" (merged
    with the options as a table); ``world = 1`` passed, the preset's world
    silently taking its place."""
    result, _, out = _run_with_config(tmp_path, f"{key} = 1\n", "map", name="bad.toml")
    assert f"bad.toml: [{key}] must be a table, got {key} = 1" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.parametrize(
    ("command", "text", "message"),
    [
        (
            "map",
            '[terrain]\nwidth = "64"\n',
            r"[terrain] width must be an integer from 1 to 1048576, got '64'",
        ),
        (
            "map",
            "[world]\nland_fraction = [1]\n",
            "[world] land_fraction must be a number, got [1]",
        ),
        ("map", 'climate_scale = "2"\n', "climate_scale must be a positive number, got '2'"),
        ("map", "seed = 3\n", "unknown key 'seed' at the top of the file"),
        ("terrain", "[terrain]\nwidth = 64.0\n", "[terrain] width must be an integer"),
        ("world", "y_max = 100.0\n", "y_max must be an integer from -4096 to 4096, got 100.0"),
        ("world", "[world]\nrelief = [1]\n", "[world] relief must be a number, got [1]"),
        # Was Python's "'int' object is not iterable".
        ("world", "[palette]\nstone = 5\n", "palette 'stone' colour must be three integers"),
    ],
)
def test_a_bad_value_in_a_file_names_the_file_table_and_key(tmp_path, command, text, message):
    """A wrong value in a config file was "width must be ..." with neither
    the file nor its table, and an array where a number goes was reported as
    a tuple (``land_fraction = [1]`` as ``(1,)``)."""
    result, path, out = _run_with_config(tmp_path, text, command, name="bad.toml")
    assert f"error: config file {path}: {message}" in " ".join(result.output.split())
    assert not out.exists()


def test_an_option_over_a_bad_file_value_is_named_as_the_option(tmp_path):
    result, _, _ = _run_with_config(tmp_path, "[terrain]\nwidth = 64\n", "map", "--width", "0")
    assert "error: --width must be an integer from 1 to 1048576, got 0" in result.output


@pytest.mark.parametrize("text", ["[terrain]\nwidth = 64\n", "climate_scale = 2.0\n", None])
def test_world_refuses_a_maps_config_saying_so(tmp_path, text):
    """``worldgen world --config`` of a map's config listed the map's tables
    as unknown keys at the top of the file."""
    from typer.testing import CliRunner

    from worldgen.cli import app
    from worldgen.config import example

    path = tmp_path / "map.toml"
    path.write_text(example("map") if text is None else text)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["world", "--config", str(path), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "is a map's config (for worldgen map, terrain and serve)" in result.output
    assert "worldgen config --example world" in result.output and not out.exists()
    # A world's config with a map's key in it is a world's, the key unknown.
    path.write_text("y_max = 256\nrelief = 100.0\n")
    result = CliRunner().invoke(app, ["world", "--config", str(path), "--out", str(out)])
    assert "unknown key 'relief' at the top of the file" in result.output, result.output


def test_the_map_examples_world_table_uncommented_is_the_default_world():
    """Uncommented as the example says, its [world] table took in the
    top-level ``climate_scale`` that followed it: "unknown key
    'climate_scale' in [world]"."""
    import re
    import tomllib

    from worldgen.config import example
    from worldgen.world import WorldConfig

    text = re.sub(r"^# ?(\[world\]|[a-z_]+ = .*)$", r"\1", example("map"), flags=re.M)
    assert "\n[world]\n" in text
    assert map_config(tomllib.loads(text)).world == WorldConfig()


def test_a_biomes_table_without_a_table_changes_the_default_classes():
    """``[biomes.colours]`` with one colour failed with "missing key
    'elevation', 'moisture', 'table' in [biomes]", though keys left out take
    their defaults."""
    import dataclasses

    from worldgen.products._classify import DEFAULT_BIOMES

    biomes = map_config({"biomes": {"colours": {"ocean": [0, 0, 0]}}}).biomes
    colours = tuple((n, (0, 0, 0) if n == "ocean" else c) for n, c in DEFAULT_BIOMES.colours)
    assert biomes == dataclasses.replace(DEFAULT_BIOMES, colours=colours)
    moisture = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0)[: len(DEFAULT_BIOMES.moisture)]
    assert map_config({"biomes": {"moisture": list(moisture)}}).biomes.moisture == moisture
    with pytest.raises(ValueError, match=r"missing key 'elevation', 'moisture' in \[biomes\]"):
        map_config({"biomes": {"table": [[["ocean"]]]}})


def test_a_local_normalisation_from_a_file_refused_for_a_window_names_the_file(tmp_path):
    """It said "normalize = 'local' (config)", naming neither file nor table."""
    text = '[terrain]\nnormalize = "local"\n'
    result, path, _ = _run_with_config(tmp_path, text, "map", "--x", "5")
    said = f"error: config file {path}: [terrain] normalize = 'local' stretches each window"
    assert " ".join(result.output.split()).startswith(said), result.output


def test_the_world_example_shows_its_world_table_and_every_block():
    """The world example had no [world] table, which ``worldgen world
    --config`` says holds the world model, and one block colour of 17 (the
    names with a space must be quoted)."""
    import re
    import tomllib

    from worldgen.config import example, voxel_config
    from worldgen.voxel import PALETTE, VoxelConfig

    text = example("world")
    assert [n for n in tomllib.loads(text)["palette"]] == [n for n, _ in PALETTE]
    text = re.sub(r"^# ?(\[world\]|[a-z_]+ = .*)$", r"\1", text, flags=re.M)
    assert "\n[world]\n" in text
    assert voxel_config(tomllib.loads(text)) == VoxelConfig()


def test_relief_over_a_files_world_is_the_worlds_relief(tmp_path):
    """``map --config`` of a file with a [world] table ignored ``--relief``
    (the same map as without it), which sets a world preset's relief."""
    from typer.testing import CliRunner

    from worldgen.cli import app

    size = "[terrain]\nwidth = 32\nheight = 32\n"
    option = tmp_path / "option.toml"
    option.write_text(f"[world]\nseed = 1\n\n{size}")
    keyed = tmp_path / "keyed.toml"
    keyed.write_text(f"[world]\nseed = 1\nrelief = 100.0\n\n{size}")
    runs = {
        "option": [str(option), "--relief", "100"],
        "keyed": [str(keyed)],
        "none": [str(option)],
    }
    for name, args in runs.items():
        result = CliRunner().invoke(app, ["map", "--out", str(tmp_path / name), "--config", *args])
        assert result.exit_code == 0, result.output
    for picture in ("height.png", "colour.png"):
        made = {name: (tmp_path / name / picture).read_bytes() for name in runs}
        assert made["option"] == made["keyed"]
    assert made["option"] != made["none"]


def test_a_bad_size_in_a_file_under_a_classic_preset_names_the_file(tmp_path):
    """A classic preset scaled to a ``width = "64"`` said Python's "'<' not
    supported between instances of 'int' and 'str'"."""
    text = '[terrain]\nwidth = "64"\n'
    result, path, _ = _run_with_config(tmp_path, text, "map", "--preset", "classic-islands")
    said = f"error: config file {path}: [terrain] width must be an integer from 1 to 1048576"
    assert " ".join(result.output.split()).startswith(said), result.output
    with pytest.raises(ValueError, match=r"\[terrain\] height must be an integer"):
        preset("classic", 64, [64])


@pytest.mark.parametrize("offset", ["3", "[1]", "[1, 2, 3]"])
def test_an_offset_option_over_a_bad_offset_in_a_file_names_the_file(tmp_path, offset):
    """``--offset-x`` over ``offset = 3`` said "'int' object is not
    subscriptable", over ``[1]`` was an internal error, and over ``[1, 2,
    3]`` passed, the third number dropped."""
    text = f"[terrain]\noffset = {offset}\n"
    result, path, _ = _run_with_config(
        tmp_path, text, "map", "--preset", "classic", "--offset-x", "5"
    )
    said = f"error: config file {path}: [terrain] offset must be two finite numbers (x, y), got"
    assert " ".join(result.output.split()).startswith(said), result.output


def test_a_bad_mask_radius_in_a_file_under_the_mask_option_names_the_file(tmp_path):
    """With ``--mask radial``, a file's ``radius = "x"`` in [mask] was
    blamed on the option: "--mask radius must be a positive number"."""
    result, path, _ = _run_with_config(
        tmp_path, '[mask]\nradius = "x"\n', "map", "--mask", "radial"
    )
    said = f"error: config file {path}: [mask] mask radius must be a positive number, got 'x'"
    assert " ".join(result.output.split()).startswith(said), result.output


@pytest.mark.parametrize("command", ["map", "terrain"])
@pytest.mark.parametrize("name", ["classic", "classic-islands"])
def test_a_classic_preset_over_a_file_of_a_world_is_refused(tmp_path, command, name):
    """``--preset classic`` asks for the classic noise map, but a file's
    ``[world]`` made the map a view of the world model all the same, with
    the classic bands (noise units, not metres) over the world's heights."""
    text = "[world]\nseed = 3\n"
    result, _, out = _run_with_config(tmp_path, text, command, "--preset", name)
    assert (
        f"--preset {name} is a classic noise map, but config file {tmp_path / 'map.toml'} "
        "has a [world] table"
    ) in " ".join(result.output.split())
    assert len(result.output.strip().splitlines()) <= 2 and not out.exists()


@pytest.mark.parametrize(
    ("command", "text", "said"),
    [
        ("map", '[curve]\nsmooth = "yes"\n', "[curve] smooth must be true or false, got 'yes'"),
        ("map", "[cleanup]\nthin_water = 1\n", "[cleanup] thin_water must be true or false, got 1"),
        ("world", 'caves = "no"\n', "caves must be true or false, got 'no'"),
    ],
)
def test_a_file_is_told_of_true_and_false_as_toml_writes_them(tmp_path, command, text, said):
    """TOML writes ``true`` and ``false``; the errors said Python's ``True
    or False`` (and ``[curve] curve smooth``)."""
    result, _, _ = _run_with_config(tmp_path, text, command)
    assert said in result.output, result.output
