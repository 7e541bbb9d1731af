"""``worldgen animate`` and ``worldgen wobble``: noise in motion."""

from __future__ import annotations

import enum
from typing import Annotated

from worldgen.cli._common import _USER_ERRORS, OUT, Opt, Out, _err, _fail, _out, app


class Animation(enum.StrEnum):
    clouds = "clouds"
    fire = "fire"
    water = "water"


@app.command("animate")
def animate_command(
    out: Out = OUT,
    preset: Annotated[Animation, Opt(help="What to animate.")] = Animation.clouds,
    seed: Annotated[int, Opt(help="Any 64-bit integer.")] = 0,
    width: Annotated[int, Opt(help="Pixels across, 1-65535.")] = 160,
    height: Annotated[int, Opt(help="Pixels down, 1-65535.")] = 120,
    frames: Annotated[int, Opt(help="Number of frames, 1-10000.")] = 48,
    fps: Annotated[float, Opt(help="Frames per second, 0.01-100.")] = 16.0,
    loop: Annotated[bool, Opt(help="Loop seamlessly (4D noise around a circle).")] = True,
    png_frames: Annotated[bool, Opt(help="Also write every frame as a PNG.")] = False,
) -> None:
    """Write an animated GIF of noise with time as an axis: clouds, fire or water."""
    from worldgen.io import output_set, write_gif, write_png_frames
    from worldgen.motion import preset_frames

    try:
        from worldgen._memory import ANIMATION_BYTES_PER_PIXEL, check_memory
        from worldgen.io._animation import GIF_MAX_SIDE, check_fps
        from worldgen.motion._frames import MAX_PRESET_FRAMES
        from worldgen.noise._seed import check_seed
        from worldgen.noise._validate import check_int

        # Every option before any work (the GIF writer would check --fps
        # only once the frames were made).
        for name, value, most in (
            ("--width", width, GIF_MAX_SIDE),
            ("--height", height, GIF_MAX_SIDE),
            ("--frames", frames, MAX_PRESET_FRAMES),
        ):
            check_int(value, name, 1, most)
        check_fps(fps, "--fps")
        check_memory(
            ANIMATION_BYTES_PER_PIXEL * frames * width * height,
            "--frames, --width, --height",
            f"{frames:,} frames of {width} x {height}",
            "make fewer or smaller frames",
        )
        # The seed as every set records it: wrapped into 0 .. 2**64 - 1.
        about = (
            f"{preset.value}, seed {check_seed(seed, '--seed')}, {frames} frames of "
            f"{width}x{height}"
        )
        with (
            output_set(out, command="animate", about=about, name="--out") as files,
            _err.status(f"animating {preset.value}"),
        ):
            images = preset_frames(
                preset.value, seed=seed, width=width, height=height, frames=frames, loop=loop
            )
            staged = files.staging
            written = [write_gif(staged / f"{preset.value}.gif", images, fps=fps, loop=True)]
            if png_frames:
                written += write_png_frames(
                    staged / f"{preset.value}_frames", images, prefix=preset.value
                )
        written = files.final(written)
    except _USER_ERRORS as exc:
        raise _fail(exc) from None
    _out.print(
        f"wrote {written[0]} ({frames} frames, {width}x{height})", markup=False, highlight=False
    )
    if png_frames:
        _out.print(
            f"wrote {len(written) - 1} PNG frames to {written[1].parent}",
            markup=False,
            highlight=False,
        )


MAX_AMPLITUDE = 1e6  # pixels: far past the drawing, with coordinates SVG readers take
# Pixels: a wobble far finer than a pixel only makes the SVG big (0.0004
# wrote 490 MB, with 3 GB of memory); far longer than the drawing, a line.
WAVELENGTHS = (0.1, 1e6)


@app.command("wobble")
def wobble_command(
    out: Out = OUT,
    seed: Annotated[int, Opt(help="Any 64-bit integer.")] = 0,
    amplitude: Annotated[
        float, Opt(help="Largest sideways wobble, in pixels (the drawing is 400 x 300): 0 to 1e6.")
    ] = 2.5,
    wavelength: Annotated[
        float, Opt(help="Length of one wobble along the line, in pixels: 0.1 to 1e6.")
    ] = 30.0,
) -> None:
    """Write an SVG of shapes drawn with a hand-drawn wobble (1D Perlin noise)."""
    from worldgen.io import output_set, write_svg_polylines
    from worldgen.motion import sketch_shapes, wobble

    try:
        from worldgen.noise._seed import check_seed

        first = check_seed(seed, "--seed")  # each shape takes the next seed, wrapping at 2**64
        if not 0.0 <= amplitude <= MAX_AMPLITUDE:  # nan too
            raise ValueError(
                f"--amplitude must be a number of pixels from 0 to {MAX_AMPLITUDE:,.0f} (the "
                f"drawing is 400 x 300), got {amplitude!r}"
            )
        shortest, longest = WAVELENGTHS
        if not shortest <= wavelength <= longest:
            raise ValueError(
                f"--wavelength must be a number of pixels from {shortest:g} to {longest:,.0f} "
                f"(the drawing is 400 x 300), got {wavelength!r}"
            )
        with output_set(out, command="wobble", about=f"seed {first}", name="--out") as files:
            lines = [
                wobble(shape, amplitude=amplitude, wavelength=wavelength, seed=(first + k) % 2**64)
                for k, shape in enumerate(sketch_shapes())
            ]
            staged = write_svg_polylines(
                files.staging / "wobble.svg", lines, width=400, height=300, stroke_width=2.0
            )
        (path,) = files.final([staged])
    except _USER_ERRORS as exc:
        raise _fail(exc) from None
    _out.print(f"wrote {path} ({len(lines)} wobbly lines)", markup=False, highlight=False)
