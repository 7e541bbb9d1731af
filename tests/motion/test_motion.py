"""Animated noise, presets, wobbly lines and the files they are written to."""

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from worldgen.io._animation import (
    _frame_paths,
    write_gif,
    write_png_frames,
    write_svg_polylines,
)
from worldgen.motion._frames import (
    PRESETS,
    _sample_frames,
    _tile_rows,
    noise_frames,
    preset_frames,
)
from worldgen.motion._wobble import wobble
from worldgen.noise import Cellular, Fractal, Perlin, Simplex, axis

SVG = "{http://www.w3.org/2000/svg}"


# noise_frames -----------------------------------------------------------------


@pytest.mark.parametrize("loop", [False, True])
def test_frames_shape_range_and_determinism(loop):
    noise = Fractal(Perlin(seed=5), octaves=3)
    clip = noise_frames(noise, 20, 12, 6, loop=loop)
    assert clip.shape == (6, 12, 20)
    assert clip.dtype == np.float64
    assert clip.min() >= 0.0
    assert clip.max() <= 1.0
    assert np.array_equal(clip, noise_frames(noise, 20, 12, 6, loop=loop))
    assert not np.array_equal(clip[0], clip[1])  # it moves
    other = noise_frames(noise.with_seed(6), 20, 12, 6, loop=loop)
    assert not np.array_equal(clip, other)


def test_frames_sample_time_as_third_axis():
    noise = Perlin(seed=2)
    clip = noise_frames(noise, 9, 7, 4, scale=16.0, speed=0.1)
    expected = noise.grid(axis(0.0, 9, 1 / 16), axis(0.0, 7, 1 / 16), np.arange(4) * 0.1, unit=True)
    assert np.array_equal(clip, expected)


def test_loop_samples_a_circle_in_z_and_w():
    noise, frames, speed = Simplex(seed=4), 5, 0.2
    clip = noise_frames(noise, 6, 3, frames, scale=8.0, speed=speed, loop=True)
    r = speed * frames / (2 * math.pi)
    t = 2 * math.pi * 2 / frames
    x, y = axis(0.0, 6, 1 / 8), axis(0.0, 3, 1 / 8)
    expected = noise.grid(x, y, [r * math.cos(t)], [r * math.sin(t)], unit=True)[0, 0]
    assert np.array_equal(clip[2], expected)
    # Neighbouring frames are one chord of length ~speed apart on the circle.
    chord = 2 * r * math.sin(math.pi / frames)
    assert chord == pytest.approx(speed, rel=0.1)


def test_loop_comes_back_to_the_first_frame():
    noise = Fractal(Perlin(seed=9), octaves=4)
    frames = 12
    clip = noise_frames(noise, 16, 10, frames, loop=True)
    after = noise_frames(noise, 16, 10, frames, loop=True, start=frames)
    np.testing.assert_allclose(after[0], clip[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(after, clip, rtol=0, atol=1e-12)
    # Without loop, frame `frames` is somewhere else entirely.
    straight = noise_frames(noise, 16, 10, frames + 1)
    assert np.abs(straight[frames] - straight[0]).max() > 0.05


def test_start_continues_the_sequence():
    noise = Perlin(seed=1)
    whole = noise_frames(noise, 8, 8, 6)
    tail = noise_frames(noise, 8, 8, 3, start=3)
    assert np.array_equal(whole[3:], tail)


def test_frames_leave_the_noise_unchanged():
    noise = Fractal(Perlin(seed=3), octaves=2)
    before = repr(noise)
    noise_frames(noise, 4, 4, 2, loop=True)
    assert repr(noise) == before


def test_noise_without_4d_cannot_loop():
    with pytest.raises(ValueError, match=r"loop=True samples 4D noise.*Cellular noise supports"):
        noise_frames(Cellular(seed=1), 8, 8, 4, loop=True)
    assert noise_frames(Cellular(seed=1), 8, 8, 2).shape == (2, 8, 8)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (("perlin", 8, 8, 2), {}, TypeError, r"noise must be a worldgen.noise generator"),
        ((Perlin(), 0, 8, 2), {}, ValueError, r"width must be an integer from 1"),
        ((Perlin(), 8, 8.5, 2), {}, TypeError, r"height must be an integer"),
        ((Perlin(), 8, 8, 0), {}, ValueError, r"frames must be an integer from 1"),
        ((Perlin(), 8, 8, 2), {"scale": 0.0}, ValueError, r"scale must be a finite number > 0"),
        ((Perlin(), 8, 8, 2), {"speed": -1.0}, ValueError, r"speed must be a finite number > 0"),
        ((Perlin(), 8, 8, 2), {"start": -1}, ValueError, r"start must be an integer from 0"),
    ],
)
def test_bad_frame_arguments(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        noise_frames(*args, **kwargs)


# presets ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("loop", [True, False])
def test_preset_frames(name, loop):
    clip = preset_frames(name, width=24, height=16, frames=5, loop=loop)
    assert clip.shape == (5, 16, 24, 3)
    assert clip.dtype == np.uint8
    assert np.array_equal(clip, preset_frames(name, width=24, height=16, frames=5, loop=loop))
    assert not np.array_equal(clip, preset_frames(name, seed=1, width=24, height=16, frames=5))
    assert len(np.unique(clip.reshape(-1, 3), axis=0)) > 10  # a blended ramp, not flat


def test_fire_scrolls_upward_and_fades_to_the_top():
    clip = preset_frames("fire", width=64, height=64, frames=8).astype(np.float64)
    brightness = clip.sum(axis=3)
    assert brightness[:, :8].mean() < brightness[:, -8:].mean()
    assert (brightness[:, 0] == 0).all()  # fade=1: the top row is black


def test_rising_loop_scrolls_a_whole_noise_period():
    # preset_frames rounds the rise so that one loop scrolls the y period.
    frames, period = 8, 4
    noise = _tile_rows(PRESETS["fire"].noise, period)
    options = {"scale": 8.0, "speed": 0.06, "loop": True, "rise": period / frames}
    first = _sample_frames(noise, 12, 10, frames, start=0, **options)
    again = _sample_frames(noise, 12, 10, frames, start=frames, **options)
    np.testing.assert_allclose(again, first, rtol=0, atol=1e-12)
    # Rows move up: row j of frame 1 shows what row j + rise * scale showed in frame 0,
    # up to the change along the time circle.
    still = _sample_frames(noise, 12, 10, 2, start=0, **{**options, "speed": 1e-9})
    np.testing.assert_allclose(still[1, :-4], still[0, 4:], atol=1e-6)


def test_unknown_preset_lists_the_valid_names():
    with pytest.raises(ValueError, match=r"'clouds', 'fire', 'water', got 'smoke'"):
        preset_frames("smoke")


# wobble -----------------------------------------------------------------------


def _distance_to_segment(points, a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    t = np.clip((points - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    return np.hypot(*(points - (a + t[:, None] * (b - a))).T)


def test_wobble_stays_within_amplitude_of_the_line():
    line = np.array([[0.0, 0.0], [120.0, 30.0]])
    drawn = wobble(line, amplitude=3.0, wavelength=15.0, seed=4)
    assert drawn.dtype == np.float64
    assert drawn.ndim == 2
    assert drawn.shape[1] == 2
    assert len(drawn) >= 8 * math.hypot(120, 30) / 15
    assert np.array_equal(drawn[0], line[0])
    assert np.hypot(*(drawn[-1] - line[-1])) <= 3.0
    distance = _distance_to_segment(drawn, line[0], line[1])
    assert distance.max() <= 3.0 + 1e-9
    assert distance.max() > 0.5  # and it does wobble


def test_wobble_keeps_corners_and_handles_repeated_vertices():
    square = np.array([[0.0, 0.0], [50.0, 0.0], [50.0, 0.0], [50.0, 50.0], [0.0, 50.0]])
    drawn = wobble(square, amplitude=2.0, wavelength=10.0, seed=1)
    assert np.isfinite(drawn).all()
    distance = np.min(
        [_distance_to_segment(drawn, square[k], square[k + 1]) for k in (0, 2, 3)], axis=0
    )
    assert distance.max() <= 2.0 + 1e-9


def test_wobble_is_deterministic_and_differs_by_seed():
    line = [[0, 0], [40, 40], [80, 0]]
    first = wobble(line, seed=3)
    assert np.array_equal(first, wobble(line, seed=3))
    assert not np.allclose(first, wobble(line, seed=4))


def test_zero_amplitude_only_resamples():
    line = np.array([[0.0, 0.0], [10.0, 0.0]])
    drawn = wobble(line, amplitude=0.0, wavelength=8.0)
    assert np.array_equal(drawn[:, 1], np.zeros(len(drawn)))
    assert np.array_equal(drawn[:, 0], np.linspace(0.0, 10.0, len(drawn)))
    assert len(drawn) == 11


def test_wobble_leaves_input_alone():
    line = np.array([[0.0, 0.0], [30.0, 5.0]])
    before = line.copy()
    wobble(line)
    assert np.array_equal(line, before)


@pytest.mark.parametrize(
    ("points", "kwargs", "error", "message"),
    [
        ([[0.0, 0.0]], {}, ValueError, r"points must be an \(N, 2\) array with N >= 2"),
        (np.zeros((3, 3)), {}, ValueError, r"points must be an \(N, 2\) array"),
        ([[0.0, 0.0], [np.nan, 1.0]], {}, ValueError, r"points must be finite"),
        ([[1.0, 1.0], [1.0, 1.0]], {}, ValueError, r"non-zero length"),
        ([["a", "b"], ["c", "d"]], {}, TypeError, r"points must hold real numbers"),
        ([[0, 0], [1, 1]], {"amplitude": -1.0}, ValueError, r"amplitude must be a finite"),
        ([[0, 0], [1, 1]], {"wavelength": 0.0}, ValueError, r"wavelength must be a finite"),
        ([[0, 0], [1e9, 0]], {"wavelength": 1.0}, ValueError, r"raise wavelength"),
        # A tiny wavelength: the count overflowed an integer (or the spacing
        # was 0) before the limit was checked.
        ([[0, 0], [1, 1]], {"wavelength": 5e-324}, ValueError, r"more than 1e308 points"),
        ([[0, 0], [1, 1]], {"wavelength": 1e-310}, ValueError, r"raise wavelength to at least"),
        ([[0, 0], [1, 1]], {"wavelength": 1e-300}, ValueError, r"into 1.13e\+301 points"),
        ([[0, 0], [1, 1]], {"seed": 1.5}, TypeError, r"seed"),
    ],
)
def test_bad_wobble_input(points, kwargs, error, message):
    with pytest.raises(error, match=message):
        wobble(points, **kwargs)


# files ------------------------------------------------------------------------


@pytest.mark.parametrize("channels", [None, 3])
def test_gif_round_trip(tmp_path, channels):
    shape = (4, 10, 14) if channels is None else (4, 10, 14, 3)
    frames = np.random.default_rng(0).integers(0, 256, size=shape, dtype=np.uint8)
    path = write_gif(tmp_path / "clip.gif", frames, fps=10)
    assert path == tmp_path / "clip.gif"
    with Image.open(path) as image:
        assert image.n_frames == 4
        assert image.size == (14, 10)
        assert image.info["duration"] == 100
        assert image.info["loop"] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["clip.gif"]


@pytest.mark.parametrize("fps", [16.0, 24.0, 30.0, 7.0])
def test_a_gif_plays_at_its_frame_rate(tmp_path, fps):
    # Every frame was round(1000 / fps) ms, which a GIF stores in whole
    # hundredths: 16 fps played at 16.7, 30 at 33.3.
    frames = np.arange(48, dtype=np.uint8)[:, None, None] * np.ones((1, 4, 4), np.uint8)
    path = write_gif(tmp_path / "clip.gif", frames, fps=fps)
    with Image.open(path) as image:
        delays = []
        for k in range(image.n_frames):
            image.seek(k)
            delays.append(image.info["duration"])
    assert all(d % 10 == 0 for d in delays)
    assert abs(sum(delays) - 48 * 1000.0 / fps) <= 5.0  # within half a hundredth
    assert max(delays) - min(delays) <= 10


def test_gif_played_once_has_no_loop(tmp_path):
    frames = np.stack([np.zeros((3, 3), np.uint8), np.full((3, 3), 200, np.uint8)])
    path = write_gif(tmp_path / "once.gif", frames, loop=False)
    with Image.open(path) as image:
        assert "loop" not in image.info
        assert image.n_frames == 2


def test_preset_frames_write_as_gif(tmp_path):
    clip = preset_frames("water", width=16, height=12, frames=3)
    with Image.open(write_gif(tmp_path / "water.gif", clip)) as image:
        assert image.n_frames == 3
        assert image.size == (16, 12)


def test_png_frames_count_names_and_pixels(tmp_path):
    frames = np.random.default_rng(1).integers(0, 256, size=(3, 5, 7, 3), dtype=np.uint8)
    paths = write_png_frames(tmp_path / "out", frames, prefix="clouds")
    assert [p.name for p in paths] == ["clouds_0000.png", "clouds_0001.png", "clouds_0002.png"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [p.name for p in paths]
    for path, frame in zip(paths, frames):
        with Image.open(path) as image:
            assert np.array_equal(np.asarray(image), frame)


def test_png_frame_names_widen_for_long_sequences(tmp_path):
    names = [p.name for p in _frame_paths(tmp_path, "frame", 10001)]
    assert names[:2] == ["frame_00000.png", "frame_00001.png"]
    assert names[-1] == "frame_10000.png"
    assert names == sorted(names)
    assert [p.name for p in _frame_paths(tmp_path, "f", 10000)][-1] == "f_9999.png"


def test_svg_parses_and_holds_each_polyline(tmp_path):
    lines = [
        wobble([[0, 0], [50, 20]], seed=1),
        np.array([[1.0, 2.0], [3.25, -0.0001], [5.0, 6.0]]),
        [[0, 0], [10, 10]],
    ]
    path = write_svg_polylines(
        tmp_path / "lines.svg", lines, width=64, height=32.5, stroke="#336699"
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == f"{SVG}svg"
    assert root.get("version") == "1.1"
    assert (root.get("width"), root.get("height")) == ("64", "32.5")
    assert root.get("viewBox") == "0 0 64 32.5"
    polylines = root.findall(f"{SVG}polyline")
    assert len(polylines) == 3
    assert all(p.get("fill") == "none" and p.get("stroke") == "#336699" for p in polylines)
    assert polylines[1].get("points") == "1.000,2.000 3.250,0.000 5.000,6.000"
    first = np.array([pair.split(",") for pair in polylines[0].get("points").split()], float)
    np.testing.assert_allclose(first, lines[0], atol=5e-4)


def test_svg_escapes_the_stroke(tmp_path):
    path = write_svg_polylines(
        tmp_path / "a.svg", [[[0, 0], [1, 1]]], width=2, height=2, stroke='a"<b'
    )
    root = ET.fromstring(path.read_bytes())
    assert root.find(f"{SVG}polyline").get("stroke") == 'a"<b'


def test_empty_svg_is_still_valid(tmp_path):
    root = ET.fromstring(
        write_svg_polylines(tmp_path / "e.svg", [], width=1, height=1).read_bytes()
    )
    assert root.findall(f"{SVG}polyline") == []


@pytest.mark.parametrize(
    ("frames", "kwargs", "error", "message"),
    [
        (np.zeros((2, 3), np.uint8), {}, ValueError, r"frames must be a non-empty \(F, H, W\)"),
        (np.zeros((0, 3, 3), np.uint8), {}, ValueError, r"frames must be a non-empty"),
        (np.zeros((2, 3, 3, 4), np.uint8), {}, ValueError, r"frames must be a non-empty"),
        (np.zeros((2, 3, 3)), {}, TypeError, r"frames must hold uint8 values 0-255"),
        (np.full((2, 3, 3), 300), {}, TypeError, r"frames must hold uint8 values 0-255"),
        (np.zeros((2, 3, 3), np.uint8), {"fps": 0}, ValueError, r"fps must be from 0.01 to 100"),
        (np.zeros((2, 3, 3), np.uint8), {"fps": 500}, ValueError, r"fps must be from 0.01 to 100"),
        # A GIF's sides are 16-bit: Pillow's writer raised OverflowError.
        (np.zeros((1, 1, 65536), np.uint8), {}, ValueError, r"frames' sides must be at most 65535"),
    ],
)
def test_bad_gif_input_writes_nothing(tmp_path, frames, kwargs, error, message):
    with pytest.raises(error, match=message):
        write_gif(tmp_path / "x.gif", frames, **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_integer_frames_in_range_are_accepted(tmp_path):
    frames = np.arange(2 * 2 * 2).reshape(2, 2, 2) * 30
    paths = write_png_frames(tmp_path, frames)
    with Image.open(paths[1]) as image:
        assert np.asarray(image).tolist() == [[120, 150], [180, 210]]


@pytest.mark.parametrize("prefix", ["", "a/b", "..", 3])
def test_bad_prefix_writes_nothing(tmp_path, prefix):
    with pytest.raises(ValueError, match=r"prefix must be"):
        write_png_frames(tmp_path, np.zeros((2, 2, 2), np.uint8), prefix=prefix)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("polylines", "kwargs", "error", "message"),
    [
        ([[[0, 0]]], {}, ValueError, r"polylines\[0\] must be an \(N, 2\) array with N >= 2"),
        ([[[0, 0], [1, np.inf]]], {}, ValueError, r"polylines\[0\] must be finite"),
        (np.zeros((2, 2)), {}, TypeError, r"polylines must be a list of \(N, 2\) arrays"),
        ([[[0, 0], [1, 1]]], {"width": 0}, ValueError, r"width must be a finite number > 0"),
        ([[[0, 0], [1, 1]]], {"stroke": ""}, ValueError, r"stroke must be a non-empty"),
        ([[[0, 0], [1, 1]]], {"stroke_width": -1}, ValueError, r"stroke_width must be"),
    ],
)
def test_bad_svg_input_writes_nothing(tmp_path, polylines, kwargs, error, message):
    options = {"width": 10, "height": 10, **kwargs}
    with pytest.raises(error, match=message):
        write_svg_polylines(tmp_path / "x.svg", polylines, **options)
    assert list(tmp_path.iterdir()) == []


def test_failed_frame_leaves_no_files(tmp_path, monkeypatch):
    original = Image.Image.save
    saved = []

    def save_once(self, fp, *args, **kwargs):
        if saved:
            raise OSError("disk full")
        saved.append(fp)
        return original(self, fp, *args, **kwargs)

    monkeypatch.setattr(Image.Image, "save", save_once)
    with pytest.raises(OSError, match="disk full"):
        write_png_frames(tmp_path / "frames", np.zeros((3, 2, 2), np.uint8))
    assert len(saved) == 1  # the first frame was encoded, and then thrown away
    assert list((tmp_path / "frames").iterdir()) == []


def test_failed_gif_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "clip.gif"
    target.write_bytes(b"old")

    def broken(self, *args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(Image.Image, "save", broken)
    with pytest.raises(OSError, match="disk full"):
        write_gif(target, np.zeros((2, 2, 2), np.uint8))
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["clip.gif"]


def test_failed_svg_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "lines.svg"
    target.write_text("old")

    def broken(self, *args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(type(target), "write_text", broken)
    with pytest.raises(OSError, match="disk full"):
        write_svg_polylines(target, [[[0, 0], [1, 1]]], width=2, height=2)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["lines.svg"]
