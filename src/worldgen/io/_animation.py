"""Animations and line drawings: GIFs, numbered PNG frames, SVG polylines.

Every file appears atomically (see :func:`worldgen.io.atomic_output`): a
failed or interrupted write leaves nothing behind and never a partial file.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
from collections.abc import Sequence

import numpy as np
from PIL import Image

from worldgen.io._atomic import atomic_output, check_file_name
from worldgen.noise._validate import check_bool, check_positive

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
GIF_MAX_SIDE = 65535
"""The widest and tallest GIF: its sizes are 16-bit fields."""


def _frames(frames: object) -> np.ndarray:
    """uint8 frames of shape (F, H, W) or (F, H, W, 3), each dimension >= 1."""
    if isinstance(frames, (str, bytes)):
        raise TypeError(f"frames must be an array of uint8 images, got {frames!r}")
    array = np.asarray(frames)
    good_shape = array.ndim == 3 or (array.ndim == 4 and array.shape[3] == 3)
    if not good_shape or 0 in array.shape:
        raise ValueError(
            "frames must be a non-empty (F, H, W) greyscale or (F, H, W, 3) RGB array, "
            f"got shape {array.shape}"
        )
    if array.dtype != np.uint8:
        if array.dtype.kind not in "iu" or array.min() < 0 or array.max() > 255:
            raise TypeError(
                f"frames must hold uint8 values 0-255, got dtype {array.dtype}; "
                "use numpy.clip(frames, 0, 255).astype(numpy.uint8), or scale [0, 1] "
                "values by 255 first"
            )
        array = array.astype(np.uint8)
    return array


def check_fps(fps: object, name: str = "fps") -> float:
    """``fps`` as a float if a GIF can play it, or raise naming ``name``."""
    try:
        rate = check_positive(fps, name)
    except ValueError:  # 0, negative, nan, inf: say the range that plays
        rate = float("nan")
    if not 0.01 <= rate <= 100.0:
        raise ValueError(
            f"{name} must be from 0.01 to 100 (GIF delays are whole 1/100 s, at most 655 s), "
            f"got {fps!r}"
        )
    return rate


def write_gif(
    path: str | os.PathLike, frames: np.ndarray, *, fps: float = 20, loop: bool = True
) -> pathlib.Path:
    """Write frames as an animated GIF.

    Parameters
    ----------
    path : path-like
        Where to write; the file appears atomically.
    frames : array_like, shape (F, H, W) or (F, H, W, 3), uint8
        Greyscale or RGB frames, first to last; row 0 is the top. H and W
        at most 65535 (:data:`GIF_MAX_SIDE`).
    fps : float
        Frames per second, > 0 and at most 100.
    loop : bool
        True (the default) plays forever; False plays once.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    TypeError, ValueError
        If ``frames`` is not a non-empty array of that shape with values
        0-255 and sides a GIF holds, or ``fps`` is out of range.

    Notes
    -----
    Written by Pillow with ``save_all``, each frame shown for whole
    hundredths of a second (what a GIF stores) whose running sum keeps to
    ``fps`` (16 fps: 6, 6, 7, 6, ... hundredths; many viewers slow delays
    under 20 ms down, so fps above 50 seldom plays as asked),
    ``disposal=2`` and, when looping, ``loop=0``. RGB
    frames are reduced to a 256-colour palette each. Pillow merges runs of
    identical consecutive frames into one longer frame, so the file can
    hold fewer frames than given while playing for the same time.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> frames = np.zeros((3, 4, 5), dtype=np.uint8)
    >>> frames[1] = 128
    >>> frames[2] = 255
    >>> path = write_gif(pathlib.Path(tempfile.mkdtemp()) / "a.gif", frames, fps=10)
    >>> path.suffix
    '.gif'
    """
    frames = _frames(frames)
    if max(frames.shape[1:3]) > GIF_MAX_SIDE:
        raise ValueError(
            f"frames' sides must be at most {GIF_MAX_SIDE} pixels in a GIF, got "
            f"{frames.shape[2]} x {frames.shape[1]}; write PNG frames instead"
        )
    rate = check_fps(fps)
    loop = check_bool(loop, "loop")
    images = [Image.fromarray(frame) for frame in frames]
    options = {"duration": _delays(len(images), rate), "disposal": 2}
    if loop:
        options["loop"] = 0
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:], **options)
    return target


def _delays(count: int, rate: float) -> list[int]:
    """Milliseconds each of ``count`` frames shows at ``rate`` frames a
    second, in whole hundredths of a second (what a GIF stores) whose
    running sum keeps to the clock: frame k ends at ``round(100 (k + 1) /
    rate)`` hundredths, so 16 fps shows frames for 6, 6, 7, 6, ... and
    plays at 16 frames a second, not 16.7."""
    ends = [round(100.0 * (k + 1) / rate) for k in range(count)]
    return [10 * (end - start) for start, end in zip([0, *ends[:-1]], ends, strict=True)]


def _frame_paths(folder: pathlib.Path, prefix: str, count: int) -> list[pathlib.Path]:
    """``prefix_0000.png`` ...: four digits, or as many as ``count - 1`` needs."""
    digits = max(4, len(str(count - 1)))
    return [folder / f"{prefix}_{k:0{digits}d}.png" for k in range(count)]


def write_png_frames(
    directory: str | os.PathLike, frames: np.ndarray, *, prefix: str = "frame"
) -> list[pathlib.Path]:
    """Write each frame as a numbered PNG file.

    Parameters
    ----------
    directory : path-like
        Folder to write into; created if missing.
    frames : array_like, shape (F, H, W) or (F, H, W, 3), uint8
        Greyscale or RGB frames.
    prefix : str
        Start of each file name, without path separators.

    Returns
    -------
    list of pathlib.Path
        ``prefix_0000.png``, ``prefix_0001.png``, ...: four digits, or as
        many as the last index needs, so names sort in frame order.

    Raises
    ------
    TypeError, ValueError
        If ``frames`` is not a non-empty array of that shape with values
        0-255, or ``prefix`` is empty or holds a path separator.

    Notes
    -----
    Every frame is encoded to a temporary file before any is moved into
    place, so a failure leaves the folder as it was. Files from an earlier,
    longer sequence with the same prefix are not removed.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> paths = write_png_frames(tempfile.mkdtemp(), np.zeros((2, 3, 3), dtype=np.uint8))
    >>> [p.name for p in paths]
    ['frame_0000.png', 'frame_0001.png']
    """
    frames = _frames(frames)
    prefix = check_file_name(prefix, "prefix")
    paths = _frame_paths(pathlib.Path(directory), prefix, len(frames))
    with contextlib.ExitStack() as stack:
        for target, frame in zip(paths, frames):
            tmp = stack.enter_context(atomic_output(target))
            Image.fromarray(frame).save(tmp, format="PNG")
    return paths


# Coordinates are written to three decimals: beyond this they lose them (and
# far beyond it, rounding overflows to inf).
SVG_LIMIT = 1e15


def _number(value: float) -> str:
    """``value`` with at most three decimals, no trailing zeros, no ``-0``."""
    return f"{round(value, 3) + 0.0:.3f}".rstrip("0").rstrip(".")


def _polylines(polylines: object) -> list[np.ndarray]:
    if isinstance(polylines, (str, bytes, np.ndarray)) or not isinstance(polylines, Sequence):
        raise TypeError(
            "polylines must be a list of (N, 2) arrays, one per line, got "
            f"{type(polylines).__name__}"
        )
    lines = []
    for k, line in enumerate(polylines):
        array = np.asarray(line)
        if array.dtype.kind not in "iuf":
            raise TypeError(
                f"polylines[{k}] must hold real numbers, got dtype {array.dtype}; "
                "use .astype(numpy.float64)"
            )
        if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] < 2:
            raise ValueError(
                f"polylines[{k}] must be an (N, 2) array with N >= 2, got shape {array.shape}"
            )
        array = array.astype(np.float64, copy=False)
        if not np.isfinite(array).all():
            raise ValueError(f"polylines[{k}] must be finite; found NaN or infinity")
        if not (np.abs(array) < SVG_LIMIT).all():
            raise ValueError(
                f"polylines[{k}] coordinates must lie within +-1e15 to be written to three "
                "decimals; rescale the drawing"
            )
        lines.append(array)
    return lines


def write_svg_polylines(
    path: str | os.PathLike,
    polylines: Sequence[np.ndarray],
    *,
    width: float,
    height: float,
    stroke: str = "black",
    stroke_width: float = 1.5,
) -> pathlib.Path:
    """Write polylines as a minimal SVG 1.1 drawing.

    Parameters
    ----------
    path : path-like
        Where to write; the file appears atomically.
    polylines : sequence of array_like, shape (N, 2)
        One ``(x, y)`` vertex array per line, N >= 2, in SVG user units:
        x to the right, y downward (like image rows), origin top-left.
    width, height : float
        Size of the drawing, > 0; also its ``viewBox``.
    stroke : str
        Any SVG colour (``"black"``, ``"#336699"``, ...).
    stroke_width : float
        Line width in user units, > 0.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    TypeError, ValueError
        If a polyline is not a finite (N, 2) array with N >= 2, or a size or
        stroke setting is invalid.

    Notes
    -----
    The document is an XML declaration and one ``svg`` element (SVG
    namespace, ``version="1.1"``, ``width``, ``height``, ``viewBox="0 0
    width height"``) holding one ``<polyline fill="none" .../>`` per line,
    with round caps and joins and its points written ``"x,y x,y ..."`` to
    three decimals.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> lines = [[[0, 0], [10, 5], [20, 0]]]
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.svg"
    >>> path = write_svg_polylines(path, lines, width=20, height=10)
    >>> "10.000,5.000" in path.read_text()
    True
    """
    lines = _polylines(polylines)
    w = check_positive(width, "width")
    h = check_positive(height, "height")
    if not (w < SVG_LIMIT and h < SVG_LIMIT):
        raise ValueError(f"width and height must be below 1e15, got {width!r} x {height!r}")
    if not isinstance(stroke, str) or not stroke.strip():
        raise ValueError(f"stroke must be a non-empty SVG colour string, got {stroke!r}")
    line_width = check_positive(stroke_width, "stroke_width")
    # Imported here: it loads urllib, http and ssl (about 10 ms), which
    # every command importing worldgen.io paid.
    from xml.sax.saxutils import quoteattr

    style = (
        f'fill="none" stroke={quoteattr(stroke)} stroke-width="{_number(line_width)}" '
        'stroke-linecap="round" stroke-linejoin="round"'
    )
    body = []
    for line in lines:
        rounded = np.round(line, 3) + 0.0  # + 0.0 turns -0.0 into 0.0
        points = " ".join(f"{x:.3f},{y:.3f}" for x, y in rounded.tolist())
        body.append(f'  <polyline {style} points="{points}"/>')
    size = f'width="{_number(w)}" height="{_number(h)}"'
    text = "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<svg xmlns="{SVG_NAMESPACE}" version="1.1" {size} '
            f'viewBox="0 0 {_number(w)} {_number(h)}">',
            *body,
            "</svg>",
            "",
        ]
    )
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return target


__all__ = ["write_gif", "write_png_frames", "write_svg_polylines"]
