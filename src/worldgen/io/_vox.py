"""MagicaVoxel ``.vox`` files.

The format (version 150): ``VOX `` and the version, then a ``MAIN`` chunk
whose children are, per model, ``SIZE`` (its size x, y, z, at most 256
each) and ``XYZI`` (the voxel count, then x, y, z and a palette index of
1 to 255 for each voxel, a byte each); with more than one model, the scene
graph that places them: a root transform ``nTRN`` over a group ``nGRP``
whose children are, per model, a transform (``_t``: the position of the
model's centre, ``origin + size // 2``) over a shape ``nSHP`` (left out
for one model whose centre is the scene's origin, where MagicaVoxel puts a
model without one); last the
palette ``RGBA`` (256 colours, the colour of index ``i`` at entry
``i - 1``). Every chunk is its id, the sizes of its content and of its
children (little-endian 32-bit integers), then those. Z is up.
"""

from __future__ import annotations

import os
import pathlib
import struct
from collections.abc import Sequence

import numpy as np

from worldgen.io._atomic import atomic_output

VERSION = 150
MAX_SIDE = 256


def _chunk(kind: bytes, content: bytes, children: bytes = b"") -> bytes:
    return kind + struct.pack("<ii", len(content), len(children)) + content + children


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<i", len(data)) + data


def _dict(entries: dict[str, str]) -> bytes:
    return struct.pack("<i", len(entries)) + b"".join(
        _string(k) + _string(v) for k, v in entries.items()
    )


def _node(kind: bytes, node: int, *ints: int, tail: bytes = b"") -> bytes:
    """A scene graph node: its id, no attributes, then ``ints`` and ``tail``."""
    return _chunk(
        kind, struct.pack("<i", node) + _dict({}) + struct.pack(f"<{len(ints)}i", *ints) + tail
    )


def _scene(boxes: list[tuple[tuple[int, int, int], tuple[int, int, int]]]) -> list[bytes]:
    """The scene graph placing models at their origins: a root transform
    (node 0) over a group (1) over, per model ``m``, a transform (``2 + 2m``)
    over a shape (``3 + 2m``)."""
    children = [2 + 2 * m for m in range(len(boxes))]
    # nTRN: child, reserved (-1), layer, frame count, then each frame's attributes.
    nodes = [
        _node(b"nTRN", 0, 1, -1, -1, 1, tail=_dict({})),
        _node(b"nGRP", 1, len(children), *children),
    ]
    for m, ((ox, oy, oz), (sx, sy, sz)) in enumerate(boxes):
        centre = f"{ox + sx // 2} {oy + sy // 2} {oz + sz // 2}"
        nodes.append(_node(b"nTRN", 2 + 2 * m, 3 + 2 * m, -1, 0, 1, tail=_dict({"_t": centre})))
        # nSHP: one model, its id, no attributes.
        nodes.append(_node(b"nSHP", 3 + 2 * m, 1, m, tail=_dict({})))
    return nodes


def write_vox(
    path: str | os.PathLike,
    models: Sequence[tuple[tuple[int, int, int], tuple[int, int, int], np.ndarray]],
    palette: np.ndarray,
) -> pathlib.Path:
    """Write models and a palette as a ``.vox`` file, atomically.

    Parameters
    ----------
    path : path-like
        The file.
    models : sequence of (origin, size, voxels)
        ``origin`` (x, y, z): where the model's voxel (0, 0, 0) stands in
        the scene (MagicaVoxel shows -1000 to 999 across, 0 to 999 up);
        ``size`` (x, y, z), each 1 to 256; ``voxels``: uint8
        array (N, 4) of x, y, z inside the model and the palette index
        (1-255).
    palette : ndarray of uint8, shape (256, 4)
        RGBA; entry ``i - 1`` is the colour of index ``i``.
    """
    if not models:
        raise ValueError("models must hold at least one model")
    palette = np.asarray(palette, dtype=np.uint8)
    if palette.shape != (256, 4):
        raise ValueError(f"palette must have shape (256, 4), got {palette.shape}")
    body = []
    for _, size, voxels in models:
        if not all(1 <= s <= MAX_SIDE for s in size):
            raise ValueError(f"a model's size must be 1 to {MAX_SIDE} on each side, got {size}")
        voxels = np.ascontiguousarray(voxels, dtype=np.uint8)
        body.append(_chunk(b"SIZE", struct.pack("<3i", *size)))
        body.append(_chunk(b"XYZI", struct.pack("<i", len(voxels)) + voxels.tobytes()))
    boxes = [(tuple(origin), tuple(size)) for origin, size, _ in models]
    if len(boxes) > 1 or boxes[0][0] != tuple(-(s // 2) for s in boxes[0][1]):
        body += _scene(boxes)  # not one model at its place without one
    body.append(_chunk(b"RGBA", palette.tobytes()))
    data = b"VOX " + struct.pack("<i", VERSION) + _chunk(b"MAIN", b"", b"".join(body))
    target = pathlib.Path(path)
    with atomic_output(target) as tmp:
        tmp.write_bytes(data)
    return target
