"""'Export this view': the map set ``worldgen map`` writes, for a window."""

from __future__ import annotations

import dataclasses
import io
import pathlib
import tempfile
import threading
import zipfile

from worldgen.io import write_map_set
from worldgen.noise._validate import check_int
from worldgen.products._maps import MapConfig
from worldgen.web._products import check_windowed, relief
from worldgen.world._window import REACH, Window

MAX_EXPORT = 1024
"""Largest side, in cells, of an exported window."""


def export_window(x: int, z: int, width: int, height: int) -> tuple[int, int, int, int]:
    """The window ``(x, z, width, height)`` of world cells, cut to at most
    :data:`MAX_EXPORT` cells a side around its centre (which must start
    within ``+-REACH``, as ``x`` and ``z``)."""
    check_int(x, "x", -REACH, REACH)  # the margins the map set adds stay in a window's reach
    check_int(z, "z", -REACH, REACH)
    check_int(width, "width", 1, 2**40)
    check_int(height, "height", 1, 2**40)
    w, h = min(width, MAX_EXPORT), min(height, MAX_EXPORT)
    x0, z0 = x + (width - w) // 2, z + (height - h) // 2
    for name, start, side in (("x", x0, "width"), ("z", z0, "height")):
        if not -REACH <= start <= REACH:
            raise ValueError(
                f"{name} + ({side} - {MAX_EXPORT}) // 2 = {start}, where the exported centre "
                f"starts, must be within +-{REACH}: export a smaller view or one nearer the centre"
            )
    return x0, z0, w, h


def window_config(config: MapConfig, x: int, z: int, width: int, height: int) -> MapConfig:
    """``config`` as a map of ``width x height`` pixels whose pixel
    ``(0, 0)`` is world cell ``(x, z)`` of the tile pyramid: same world
    (offset and mask in world units), another frame."""
    t = check_windowed(config).terrain
    offset = (
        x + t.width // 2 - t.width / 2 + t.offset[0] + width / 2,
        z + t.height // 2 - t.height / 2 + t.offset[1] + height / 2,
    )
    terrain = dataclasses.replace(t, width=width, height=height, offset=offset)
    return dataclasses.replace(config, terrain=terrain)


def export_note(x: int, z: int, width: int, height: int) -> str:
    """What an export of this window holds, in words: all of it, or (past
    :data:`MAX_EXPORT` cells a side) which part."""
    w, h = export_window(x, z, width, height)[2:]
    if (w, h) == (width, height):
        return f"the whole view: {w} x {h} cells"
    return (
        f"the centre {w} x {h} cells of the {width} x {height} cells in view (an export "
        f"holds at most {MAX_EXPORT} cells a side; zoom in to export all you see)"
    )


class Stopped(Exception):
    """An export stopped because its client went away."""


def export_zip(
    config: MapConfig,
    x: int,
    z: int,
    width: int,
    height: int,
    *,
    stop: threading.Event | None = None,
) -> bytes:
    """The map set of world cells ``x .. x + width - 1``, ``z .. z + height
    - 1`` (see :func:`export_window` for the size cap) as zip bytes, shaded
    with the explorer's relief so it looks as the tiles do.

    ``stop``: when set (the client went away), the export raises
    :class:`Stopped` at its next stage."""
    x, z, width, height = export_window(x, z, width, height)
    buffer = io.BytesIO()

    def progress(*_) -> None:
        if stop is not None and stop.is_set():
            raise Stopped("the export was cancelled")

    progress()
    with tempfile.TemporaryDirectory() as folder:
        if config.world is not None:
            window = Window(x, z, width, height)
            written = write_map_set(config, folder, window=window, progress=progress)
        else:
            frame = window_config(config, x, z, width, height)
            written = write_map_set(frame, folder, relief=relief(config), progress=progress)
        progress()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in written:
                name = pathlib.Path(path).relative_to(folder).as_posix()
                info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, pathlib.Path(path).read_bytes())
    return buffer.getvalue()
