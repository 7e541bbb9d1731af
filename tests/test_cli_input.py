"""The command line as a new user meets it: help that shows every default,
--version, shipped example configs, progress when piped, and the options
that no other test passed (terrain --seed / --config, world)."""

import os
import re
import subprocess
import sys
import tomllib

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from worldgen import cli
from worldgen.config import map_config, voxel_config
from worldgen.products import MapConfig
from worldgen.voxel import VoxelConfig

runner = CliRunner()
COMMANDS = ("map", "terrain", "world", "serve", "animate", "wobble", "config")


def _help(command: str) -> str:
    result = runner.invoke(cli.app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_a_default_for_every_option(command):
    text = _help(command)
    rows = [line for line in text.splitlines() if re.search(r"│ +--[a-z]", line)]
    # An option's help may wrap onto following rows; join each option's rows.
    options: dict[str, str] = {}
    name = None
    for line in text.splitlines():
        match = re.match(r"│ (--[a-z-]+)", line)  # continuation rows are indented
        if match:
            name = match.group(1)
            options[name] = line
        elif name and line.startswith("│"):
            options[name] += line
    assert rows and options
    missing = [n for n, body in options.items() if n != "--help" and "[default:" not in body]
    assert missing == []


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_shows_no_value_for_a_flag(command):
    # A flag takes no value: its row must not show one (typer prints <bool>).
    args = ["--help"] if command is None else [command, "--help"]
    result = runner.invoke(cli.app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "--help" in result.output
    assert "<bool>" not in result.output


def test_map_help_shows_the_documented_defaults():
    text = re.sub(r"[│\s]+", " ", _help("map"))
    for option, default in [("--seed", "0"), ("--width", "512"), ("--octaves", "6")]:
        assert re.search(rf"{option} .*?\[default: \(?{default}\)?\]", text)
    assert "counted from the map centre" in text


def test_help_keeps_the_config_tables_it_names():
    # Square brackets are rich markup in help: "[world]" must still be shown.
    text = re.sub(r"[│\s]+", " ", _help("world"))
    assert "its world model in a [world] table" in text


def test_version():
    result = runner.invoke(cli.app, ["--version"])
    assert result.exit_code == 0
    assert re.fullmatch(r"worldgen \d+\.\d+\.\d+\S*\n", result.output)


@pytest.mark.parametrize("name", ["map", "world"])
def test_shipped_examples_are_every_default(name):
    from worldgen.config import example

    result = runner.invoke(cli.app, ["config", "--example", name])
    assert result.exit_code == 0
    assert result.output == example(name)
    data = tomllib.loads(result.output)
    if name == "map":
        assert map_config(data) == MapConfig()
    else:
        assert voxel_config(data) == VoxelConfig()


def test_shipped_map_example_names_every_key():
    # "every key at its default": each field of each table and of the top
    # level is written out ([world] is commented out, [biomes] described).
    import dataclasses

    from worldgen.config import _TABLES, example

    data = tomllib.loads(example("map"))
    missing = [
        f"[{table}] {field.name}"
        for table, cls in _TABLES.items()
        if table != "world"
        for field in dataclasses.fields(cls)
        if field.name not in data.get(table, {})
    ]
    missing += [
        field.name
        for field in dataclasses.fields(MapConfig)
        if field.name not in (*data, "world", "biomes")
    ]
    assert missing == []
    commented = example("map").split("# [world]")[1].split("\n\n")[0]
    from worldgen.world import WorldConfig

    assert all(f"# {field.name} = " in commented for field in dataclasses.fields(WorldConfig))


def test_readme_config_example_works_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = runner.invoke(cli.app, ["config", "--example", "map"]).output
    text = text.replace("width = 512", "width = 48").replace("height = 512", "height = 32")
    (tmp_path / "my_map.toml").write_text(text)
    result = runner.invoke(
        cli.app, ["map", "--out", "mine", "--config", "my_map.toml", "--seed", "3"]
    )
    assert result.exit_code == 0, result.output
    assert "48x32, seed 3" in result.output
    with Image.open(tmp_path / "mine" / "height.png") as image:
        assert image.size == (48, 32)


def test_piped_runs_log_each_stage(tmp_path):
    result = runner.invoke(
        cli.app, ["map", "--out", str(tmp_path), "--width", "16", "--height", "8"]
    )
    assert result.exit_code == 0
    stages = re.findall(r"\[ *\d+\.\ds\] ([a-z-]+)", result.output)
    assert stages == ["noise", "shaping", "climate", "classes", "clean-up", "pictures", "files"]


def test_first_run_says_it_is_compiling(tmp_path, monkeypatch):
    monkeypatch.setattr(cli._common, "_needs_compiling", lambda: True)
    result = runner.invoke(
        cli.app, ["map", "--out", str(tmp_path), "--width", "8", "--height", "8"]
    )
    assert result.exit_code == 0
    assert "compiling kernels (once" in result.output


def test_kernels_are_found_cached_after_a_run():
    from worldgen.noise import Perlin

    Perlin().grid(np.zeros(2), np.zeros(2))
    assert cli._common._needs_compiling() is False


def test_wobble_takes_the_largest_seed(tmp_path):
    for seed in ("18446744073709551615", "-1"):
        out = tmp_path / seed
        result = runner.invoke(cli.app, ["wobble", "--out", str(out), "--seed", seed])
        assert result.exit_code == 0, result.output
    assert (tmp_path / "-1" / "wobble.svg").read_bytes() == (
        tmp_path / "18446744073709551615" / "wobble.svg"
    ).read_bytes()


def _terrain(out, *args):
    base = ["terrain", "--out", str(out), "--width", "32", "--height", "32", "--droplets", "50"]
    result = runner.invoke(cli.app, [*base, "--no-rivers", "--stride", "4", *args])
    assert result.exit_code == 0, result.output
    return result.output, (out / "height.png").read_bytes()


def test_terrain_seed_and_config_are_used(tmp_path):
    _, zero = _terrain(tmp_path / "a", "--preset", "classic-islands")
    text, seven = _terrain(tmp_path / "b", "--preset", "classic-islands", "--seed", "7")
    assert "seed 7" in text and seven != zero
    _, world_zero = _terrain(tmp_path / "w0")
    text, world_seven = _terrain(tmp_path / "w7", "--seed", "7")
    assert "seed 7" in text and world_seven != world_zero
    config = tmp_path / "c.toml"
    config.write_text('[terrain]\nseed = 7\nscale = 6.4\nnormalize = "global"\n'
                      '[mask]\nshape = "radial"\nradius = 15.2\n')  # fmt: skip
    text, from_file = _terrain(tmp_path / "c", "--config", str(config))
    assert "seed 7" in text and from_file == seven  # the islands preset at 32 x 32, seed 7
    _, other_scale = _terrain(tmp_path / "d", "--config", str(config), "--scale", "3")
    assert other_scale != from_file


def _world(out, *args):
    return runner.invoke(
        cli.app, ["world", "--out", str(out), "--radius", "8", "--mesh-radius", "8", *args]
    )


def test_world_writes_its_set_and_uses_seed_and_config(tmp_path):
    result = _world(tmp_path / "a", "--threads", "1")
    assert result.exit_code == 0, result.output
    names = {p.name for p in (tmp_path / "a").iterdir()}
    assert {"world.db", "world_map.png", "section.png", "region.glb"} <= names
    seeded = _world(tmp_path / "b", "--seed", "5")
    assert "seed 5" in seeded.output
    a = (tmp_path / "a" / "world_map.png").read_bytes()
    assert (tmp_path / "b" / "world_map.png").read_bytes() != a
    config = tmp_path / "w.toml"
    config.write_text("seed = 5\ntrees = false\n")
    from_file = _world(tmp_path / "c", "--config", str(config))
    assert from_file.exit_code == 0 and "seed 5" in from_file.output
    again = _world(tmp_path / "d", "--config", str(config), "--seed", "0", "--trees")
    assert "seed 0" in again.output
    assert (tmp_path / "d" / "world_map.png").read_bytes() == a


@pytest.mark.parametrize("threads", ["0", "-1"])
def test_world_refuses_bad_thread_counts_before_making_a_store(tmp_path, threads):
    result = _world(tmp_path, "--threads", threads)
    assert result.exit_code == 1
    assert "threads must be an integer from 1" in result.output
    assert not (tmp_path / "world.db").exists()


def test_version_from_a_fresh_interpreter():
    done = subprocess.run(
        [sys.executable, "-m", "worldgen.cli", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.startswith("worldgen ")


@pytest.mark.parametrize(
    ("error", "code", "text"),
    [
        (MemoryError(), 1, "out of memory"),
        (RuntimeError("boom"), 1, "internal error: RuntimeError: boom"),
        (KeyboardInterrupt(), 130, "interrupted"),
    ],
)
def test_run_turns_every_failure_into_one_line(monkeypatch, capsys, error, code, text):
    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr("worldgen.motion.sketch_shapes", fail)
    monkeypatch.delenv("WORLDGEN_DEBUG", raising=False)
    assert cli.run(["wobble", "--out", "unused"]) == code
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and text in lines[0]


@pytest.mark.parametrize("where", ["escaping", "printing"])
def test_ctrl_c_outside_a_commands_own_handling_is_one_line(monkeypatch, capsys, tmp_path, where):
    # Typer ends a command that a Ctrl-C stops outside its try (while it
    # imports the library, or prints the files it wrote) with 130, silently.
    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    if where == "escaping":  # as from an import at the top of a command
        monkeypatch.setattr("worldgen.noise._seed.check_seed", stop)
        monkeypatch.setattr("worldgen.cli._animate._USER_ERRORS", (ValueError,))
    else:
        monkeypatch.setattr("worldgen.cli._animate._out.print", stop)
    assert cli.run(["wobble", "--out", str(tmp_path / "w")]) == 130
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert lines == ["interrupted: nothing is left half-written"]


def test_an_error_during_the_stages_is_one_line_when_piped(capsys, tmp_path):
    # The progress bar, stopped when piped, wrote a blank line before it.
    assert cli.run(["map", "--tile", "0", "--out", str(tmp_path / "m")]) == 1
    assert capsys.readouterr().err == "error: --tile must be a positive integer, got 0\n"


def test_a_full_disk_is_one_line_naming_the_output(monkeypatch, capsys, tmp_path):
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("worldgen.io.write_svg_polylines", full)
    out = tmp_path / "shapes"
    assert cli.run(["wobble", "--out", str(out)]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert f"out: could not write the files into {out} (No space left on device)" in lines[0]
    assert lines[0].endswith("free some space there or choose another directory")
    assert not out.exists()


@pytest.mark.parametrize(
    ("command", "small"),
    [
        ("animate", ["--frames", "2"]),
        ("wobble", []),
        ("map", ["--width", "32", "--height", "32"]),
        ("terrain", ["--width", "32", "--height", "32"]),
    ],
)
def test_an_out_that_is_a_file_names_the_option(capsys, tmp_path, command, small):
    # It said "out: ... is a file", not the --out the user typed.
    (tmp_path / "a-file").write_text("")
    assert cli.run([command, "--out", str(tmp_path / "a-file"), *small]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: --out: {tmp_path / 'a-file'} is a file"), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


@pytest.mark.parametrize("amplitude", ["nan", "inf", "-1", "2e6"])
def test_wobble_amplitude_out_of_range_names_its_range(capsys, tmp_path, amplitude):
    # nan was refused as "Input should be less than or equal to 1000000".
    assert cli.run(["wobble", "--amplitude", amplitude, "--out", str(tmp_path / "w")]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert (
        f"--amplitude must be a number of pixels from 0 to 1,000,000 (the drawing is 400 x 300), got {float(amplitude)!r}"
        in lines[0]
    )
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize("command", ["map", "terrain", "world", "animate", "wobble"])
def test_an_empty_out_is_refused_not_taken_as_here(capsys, tmp_path, monkeypatch, command):
    # --out "$DIR" with DIR unset wrote the set into the current directory.
    monkeypatch.chdir(tmp_path)
    assert cli.run([command, "--out", ""]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and "'--out': it is empty; name a directory" in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_a_negative_seed_is_recorded_as_every_set_records_it(tmp_path):
    # map and world recorded seed -5 as 18446744073709551611 (2**64 - 5),
    # wobble and animate as -5.
    from worldgen.io import read_manifest

    abouts = {}
    for command, extra in (
        ("map", ["--width", "16", "--height", "16"]),
        ("wobble", []),
        ("animate", ["--width", "8", "--height", "8", "--frames", "2"]),
    ):
        out = tmp_path / command
        assert cli.run([command, "--seed", "-5", "--out", str(out), *extra]) == 0
        (entry,) = read_manifest(out)
        abouts[command] = entry["about"]
    for command, about in abouts.items():
        assert f"seed {2**64 - 5}" in about and "seed -5" not in about, (command, about)


def test_usage_errors_exit_2_with_one_line(capsys):
    assert cli.run(["map", "--width", "abc"]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and "--width" in lines[0]


@pytest.mark.parametrize("command", ["map", "terrain", "serve"])
def test_a_voxel_world_config_given_to_a_map_command_says_so(tmp_path, command):
    # It said "'str' object is not a mapping" (the world's terrain = "3d").
    example = runner.invoke(cli.app, ["config", "--example", "world"])
    path = tmp_path / "world.toml"
    path.write_text(example.output)
    args = [command, "--config", str(path)]
    args += ["--port", "0"] if command == "serve" else ["--out", str(tmp_path / "out")]
    result = runner.invoke(cli.app, args)
    assert result.exit_code == 1
    assert "is a voxel world's config (for worldgen world)" in result.output, result.output
    assert "worldgen config --example map" in result.output
    assert not (tmp_path / "out").exists()


def test_window_corners_past_the_reach_are_refused_naming_the_option(tmp_path):
    # Near 2^40 the map set's margins left a window's reach: refused with a
    # number nobody typed (np.int64(1099511632640)).
    for option, value in (("--x", "1099511627000"), ("--y", "-549755813889")):
        result = runner.invoke(cli.app, ["map", "--out", str(tmp_path / "out"), option, value])
        assert result.exit_code == 1
        assert f"{option} must be an integer from -549755813888 to 549755813888" in result.output
    assert not (tmp_path / "out").exists()
    edge = ["--x", "-549755813888", "--y", "549755813800", "--width", "16", "--height", "16"]
    result = runner.invoke(cli.app, ["map", "--out", str(tmp_path / "edge"), *edge])
    assert result.exit_code == 0, result.output


def _never(*args, **kwargs):
    raise AssertionError("the work began before the options were checked")


@pytest.mark.parametrize("fps", ["1000", "0.001", "0", "-5", "nan", "inf"])
def test_animate_refuses_an_fps_before_making_the_frames(monkeypatch, capsys, tmp_path, fps):
    # The frames were all made (35 s of CPU for 2000 of them) before --fps
    # was refused by the GIF writer.
    monkeypatch.setattr("worldgen.motion.preset_frames", _never)
    assert cli.run(["animate", "--fps", fps, "--out", str(tmp_path / "a")]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "--fps must be from 0.01 to 100" in lines[0] and f"got {float(fps)!r}" in lines[0]
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("animate", ["--frames", "0"], "--frames must be an integer from 1 to 10000, got 0"),
        ("animate", ["--width", "0"], "--width must be an integer from 1 to 65535, got 0"),
        ("animate", ["--height", "70000"], "--height must be an integer from 1 to 65535"),
        # A GIF's sides are 16-bit: "internal error: OverflowError" once made.
        (
            "animate",
            ["--width", "65536", "--height", "1", "--frames", "1"],
            "--width must be an integer from 1 to 65535",
        ),
        ("animate", ["--seed", str(2**64)], "--seed must fit in 64 bits"),
        ("wobble", ["--wavelength", "-1"], "--wavelength must be a number of pixels from"),
        ("wobble", ["--amplitude", "-1"], "--amplitude must be a number of pixels from"),
        ("wobble", ["--seed", str(2**64)], "--seed must fit in 64 bits"),
    ],
)
def test_animate_and_wobble_errors_name_the_option(capsys, tmp_path, command, args, message):
    # They named the library's parameter: "frames must be ...".
    assert cli.run([command, *args, "--out", str(tmp_path / "o")]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], lines
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("wavelength", ["0.0004", "1e300"])
def test_wobble_refuses_a_wavelength_far_from_the_drawing(
    monkeypatch, capsys, tmp_path, wavelength
):
    # 0.0004 px wrote a 490 MB SVG of a 400 x 300 drawing (3 GB of memory,
    # minutes); 1e300 was refused for "a line whose shortest segment is 120".
    monkeypatch.setattr("worldgen.motion.wobble", _never)
    assert cli.run(["wobble", "--wavelength", wavelength, "--out", str(tmp_path / "w")]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "--wavelength must be a number of pixels from 0.1 to 1,000,000" in lines[0]
    assert not (tmp_path / "w").exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_config_to_a_full_disk_is_one_line_not_an_internal_error():
    # `worldgen config > /dev/full` said "internal error: OSError ... please report it".
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "worldgen.cli", "config"],
            stdout=full, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "internal error" not in lines[0], lines
    assert (
        lines[0].startswith("error: could not write the example config") and "No space" in lines[0]
    )


def test_config_into_a_closed_pipe_is_quiet():
    # `worldgen config | head -1`: a reader that stops early is no error to
    # report (the full disk's one line must not catch it).
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "worldgen.cli", "config"],
            stdout=write, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    finally:
        os.close(write)
    assert done.returncode == 1 and done.stderr == ""


def test_animate_memory_refusal_names_the_options(monkeypatch, capsys, tmp_path):
    # It named the library's parameters and a way out the command line has
    # not: "frames, width, height: ... (from Python, ... start=...)".
    monkeypatch.setenv("WORLDGEN_MEMORY_LIMIT", "1M")
    monkeypatch.setattr("worldgen.motion.preset_frames", _never)
    assert cli.run(["animate", "--out", str(tmp_path / "a")]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: --frames, --width, --height: 48 frames of 160 x 120 needs")
    assert "start=" not in lines[0]
    assert not (tmp_path / "a").exists()
