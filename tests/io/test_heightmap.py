"""Height map exports: exact round trips in every format engines import."""

import numpy as np
import pytest
from PIL import Image

from worldgen.io._heightmap import (
    HeightmapSizeWarning,
    quantise16,
    unity_size_note,
    write_heightmap,
    write_raw16,
    write_tiles,
)

HEIGHTS = np.random.default_rng(3).random((33, 33))


def test_png16_round_trip_equals_quantised_heights(tmp_path):
    path = write_heightmap(tmp_path / "h", HEIGHTS, "png16")
    assert path.suffix == ".png"
    with Image.open(path) as image:
        assert image.mode == "I;16"
        back = np.asarray(image)
    assert np.array_equal(back, quantise16(HEIGHTS))


def test_raw16_is_little_endian_rows_first(tmp_path):
    heights = np.zeros((33, 33))
    heights[0, 1] = 1.0  # 65535 at byte offset 2
    heights[1, 0] = 0.5  # 32768 at row 1
    path = write_raw16(tmp_path / "h.raw", heights)
    data = path.read_bytes()
    assert len(data) == 33 * 33 * 2
    assert data[2:4] == b"\xff\xff"
    assert data[66:68] == (32768).to_bytes(2, "little")
    assert np.array_equal(np.frombuffer(data, "<u2").reshape(33, 33), quantise16(heights))


def test_r16_has_the_raw_bytes(tmp_path):
    raw = write_heightmap(tmp_path / "a", HEIGHTS, "raw16").read_bytes()
    r16 = write_heightmap(tmp_path / "b", HEIGHTS, "r16")
    assert r16.suffix == ".r16" and r16.read_bytes() == raw


def test_unity_size_is_checked():
    assert unity_size_note((513, 513)) is None and unity_size_note((33, 33)) is None
    assert "2^n + 1" in unity_size_note((512, 512))
    assert "600x513" in unity_size_note((513, 600))


def test_raw16_warns_about_sizes_unity_resizes(tmp_path):
    with pytest.warns(HeightmapSizeWarning, match="this one is 20x10"):
        write_raw16(tmp_path / "h.raw", np.zeros((10, 20)))
    assert (tmp_path / "h.raw").stat().st_size == 400


def test_float_tiff_and_npy_round_trips(tmp_path):
    raw = HEIGHTS * 3.0 - 1.0
    with Image.open(write_heightmap(tmp_path / "h", raw, "tiff")) as image:
        assert image.mode == "F"
        assert np.array_equal(np.asarray(image), raw.astype(np.float32))
    back = np.load(write_heightmap(tmp_path / "h", raw, "npy"))
    assert back.dtype == np.float32 and np.array_equal(back, raw.astype(np.float32))


def test_tiled_export_names_and_contents(tmp_path):
    paths = write_tiles(tmp_path, "terrain", HEIGHTS, 16)
    names = sorted(p.name for p in paths)
    assert names == sorted(f"terrain_x{i}_y{j}.png" for i in range(3) for j in range(3))
    with Image.open(tmp_path / "terrain_x1_y2.png") as image:
        assert np.array_equal(np.asarray(image), quantise16(HEIGHTS[32:48, 16:32]))


@pytest.mark.parametrize("fmt", ["png16", "r16", "npy"])
def test_tiles_of_a_dotted_name_get_the_formats_suffix(tmp_path, fmt):
    paths = write_tiles(tmp_path, "world.v2", HEIGHTS[:3, :5], 4, fmt)
    suffix = {"png16": ".png", "r16": ".r16", "npy": ".npy"}[fmt]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"world.v2_x0_y0{suffix}",
        f"world.v2_x1_y0{suffix}",
    ]
    assert sorted(p.name for p in paths) == sorted(p.name for p in tmp_path.iterdir())


@pytest.mark.parametrize(
    ("heights", "fmt", "message"),
    [
        (np.full((4, 4), 1.5), "png16", r"within \[0, 1\]"),
        (np.full((4, 4), np.nan), "raw16", "finite"),
        (np.zeros(4), "raw16", "2-D"),
        (np.zeros((4, 4)), "exr", "format must be one of png16, png8, raw16, r16, tiff, npy"),
        (np.full((4, 4), 1e39), "tiff", "heights must fit in float32"),
        (np.full((4, 4), -1e39), "npy", "heights must fit in float32"),
    ],
)
def test_bad_heights_write_nothing(tmp_path, heights, fmt, message):
    with pytest.raises(ValueError, match=message):
        write_heightmap(tmp_path / "h", heights, fmt)
    assert list(tmp_path.iterdir()) == []
