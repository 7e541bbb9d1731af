"""`worldgen map --x/--y`: windows of a map and the normalisation rule."""

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from worldgen.cli import app

runner = CliRunner()


@pytest.fixture
def small_map(tmp_path):
    config = tmp_path / "map.toml"
    config.write_text("[terrain]\nseed = 3\nwidth = 96\nheight = 64\nscale = 30.0\n")
    return config


def _heights(tmp_path, name, *args):
    out = tmp_path / name
    result = runner.invoke(app, ["map", "--out", str(out), "--export", "npy", *args])
    assert result.exit_code == 0, result.output
    return np.load(out / "height.npy"), result.output


def test_a_window_is_a_crop_of_the_map_normalised_globally(tmp_path, small_map):
    whole, _ = _heights(tmp_path, "whole", "--config", str(small_map), "--normalize", "global")
    part, said = _heights(
        tmp_path, "part", "--config", str(small_map), "--x", "40", "--y", "24",
        "--width", "32", "--height", "16",
    )  # fmt: skip
    assert part.shape == (16, 32)
    np.testing.assert_array_equal(part, whole[24:40, 40:72])
    for name in ("height", "colour", "normal", "biomes"):
        with (
            Image.open(tmp_path / "whole" / f"{name}.png") as a,
            Image.open(tmp_path / "part" / f"{name}.png") as b,
        ):
            assert np.asarray(a)[24:40, 40:72].tobytes() == np.asarray(b).tobytes(), name
    assert "32x16 at x 40, y 24 of the 96x64 map, seed 3" in said
    # Beyond the map's nominal size the world goes on.
    far, _ = _heights(
        tmp_path, "far", "--config", str(small_map), "--x", "-20", "--y", "50",
        "--width", "40", "--height", "30", "--normalize", "none",
    )  # fmt: skip
    none, _ = _heights(tmp_path, "none", "--config", str(small_map), "--normalize", "none")
    np.testing.assert_array_equal(far[:14, 20:], none[50:, :20])


def test_a_window_as_big_as_the_map_is_still_a_window(tmp_path, small_map):
    """--x 0 --y 0 over the whole map: normalised 'global' as every window
    (so it joins the windows beside it), and the output says so; 'local'
    only when asked."""
    glob, _ = _heights(tmp_path, "glob", "--config", str(small_map), "--normalize", "global")
    origin, said = _heights(tmp_path, "origin", "--config", str(small_map), "--x", "0", "--y", "0")
    np.testing.assert_array_equal(origin, glob)
    assert "heights normalised 'global' so that windows join" in said
    east, _ = _heights(tmp_path, "east", "--config", str(small_map), "--x", "96", "--y", "0")
    beyond, _ = _heights(
        tmp_path, "beyond", "--config", str(small_map), "--x", "0", "--y", "0",
        "--width", "192", "--height", "64",
    )  # fmt: skip
    np.testing.assert_array_equal(np.hstack([origin, east]), beyond)  # neighbours join
    plain, _ = _heights(tmp_path, "plain", "--config", str(small_map))
    local, _ = _heights(
        tmp_path, "local", "--config", str(small_map), "--x", "0", "--y", "0",
        "--normalize", "local",
    )  # fmt: skip
    np.testing.assert_array_equal(plain, local)
    assert plain.min() == 0.0 and plain.max() == 1.0  # 'local' stretches the map to 0..1


def test_a_window_defaults_to_global_normalisation(tmp_path, small_map):
    part, _ = _heights(tmp_path, "part", "--config", str(small_map), "--y", "8")
    glob, _ = _heights(
        tmp_path, "glob", "--config", str(small_map), "--y", "8", "--normalize", "global"
    )
    np.testing.assert_array_equal(part, glob)
    assert part.shape == (64, 96)


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["--preset", "classic", "--normalize", "local"], "--normalize local"),
        (["--config", "LOCAL"], "config file LOCAL: [terrain] normalize = 'local'"),
    ],
)
def test_local_normalisation_of_a_window_is_an_error(tmp_path, args, where):
    local = tmp_path / "local.toml"
    local.write_text('[terrain]\nnormalize = "local"\nwidth = 64\nheight = 64\n')
    args = [str(local) if a == "LOCAL" else a for a in args]
    where = where.replace("LOCAL", str(local))
    out = tmp_path / "x"
    result = runner.invoke(app, ["map", "--out", str(out), "--x", "16", *args])
    assert result.exit_code == 1, result.output
    assert f"error: {where} stretches each window to its own range" in result.output
    assert "use --normalize global (the default for windows) or none" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_bad_window_values_name_the_option(tmp_path):
    result = runner.invoke(app, ["map", "--out", str(tmp_path), "--x", str(2**41)])
    assert result.exit_code == 1 and "error: --x must be an integer" in result.output


def test_a_window_at_a_level_starts_at_x_y_and_is_a_crop_of_a_bigger_one(tmp_path):
    """--x/--y with --level: the window's top-left is world cell (X, Y) as
    without a level, so windows of any size are crops of a bigger one (it
    was moved to keep the centre of the level-0 window: a 37 x 53 window at
    -25468, -30668 began at -25524, -30748)."""
    level = ["--level", "2"]
    big, _ = _heights(
        tmp_path, "big", *level, "--x", "-25400", "--y", "-30600", "--width", "80",
        "--height", "96",
    )  # fmt: skip
    part, said = _heights(
        tmp_path, "part", *level, "--x", "-25268", "--y", "-30436", "--width", "37",
        "--height", "53",
    )  # fmt: skip
    assert "37x53 at x -25268, y -30436, level 2" in said
    water = np.load(tmp_path / "part" / "water.npy")
    assert water.any() and not water.all()  # a coast
    np.testing.assert_array_equal(part, big[41:94, 33:70])
