"""The command line, through typer's test runner."""

import numpy as np
from PIL import Image
from typer.testing import CliRunner

from worldgen.cli import app

runner = CliRunner()


def test_map_with_defaults_writes_a_16_bit_png(tmp_path):
    result = runner.invoke(app, ["map", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    path = tmp_path / "noise.png"
    assert f"wrote {path}" in result.output
    with Image.open(path) as image:
        assert image.size == (512, 512)
        pixels = np.asarray(image)
    assert pixels.dtype == np.uint16
    assert pixels.min() == 0 and pixels.max() == 65535


def test_map_options_are_passed_through(tmp_path):
    args = [
        "map",
        "--out",
        str(tmp_path),
        "--width",
        "64",
        "--height",
        "32",
        "--seed",
        "-5",
        "--noise",
        "simplex",
        "--mode",
        "ridged",
        "--octaves",
        "3",
        "--bits",
        "8",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    with Image.open(tmp_path / "noise.png") as image:
        assert image.size == (64, 32) and image.mode == "L"
    again = tmp_path / "again"
    runner.invoke(app, [*args[:2], str(again), *args[3:]])
    assert (again / "noise.png").read_bytes() == (tmp_path / "noise.png").read_bytes()


def test_bad_parameters_give_one_red_line_and_exit_1(tmp_path):
    result = runner.invoke(app, ["map", "--out", str(tmp_path), "--octaves", "40"])
    assert result.exit_code == 1
    assert "error: octaves must be an integer from 1 to 32, got 40" in result.output
    assert not (tmp_path / "noise.png").exists()
    result = runner.invoke(app, ["map", "--out", str(tmp_path), "--scale", "0"])
    assert result.exit_code == 1 and "scale must be a finite number > 0" in result.output
    result = runner.invoke(app, ["map", "--out", str(tmp_path), "--bits", "12"])
    assert result.exit_code == 1 and "bits must be 8 or 16" in result.output
    assert list(tmp_path.iterdir()) == []


def test_unknown_noise_name_is_refused(tmp_path):
    result = runner.invoke(app, ["map", "--out", str(tmp_path), "--noise", "pelrin"])
    assert result.exit_code == 2
    assert "pelrin" in result.output
