"""Wavefront OBJ meshes written a band of rows at a time.

The format (https://paulbourke.net/dataformats/obj/, and its material
library, https://paulbourke.net/dataformats/mtl/): ``v x y z``, ``vt u v``
and ``vn x y z`` lines, each kind numbered from 1 in its own order wherever
its lines stand, then ``f`` lines of ``vertex/uv/normal`` triples (``v//vn``
without UVs). Each band of a surface writes its ``v``, ``vt`` and ``vn``
lines, and the faces follow, band by band: the text is never whole in
memory, and Ctrl-C is heard between bands. Numbers are written with 8
decimals by a compiled loop (as trimesh writes them, by Python's
formatting, which took about a minute at 2048 x 2048 in one call that
Ctrl-C could not stop).
"""

from __future__ import annotations

import contextlib
import pathlib
from collections.abc import Callable, Iterator

import numpy as np

from worldgen._jit import kernel
from worldgen.io._atomic import atomic_output
from worldgen.io._image import png_bytes

DECIMALS = 8
# Fixed-point numbers as int64: |x| * 10**DECIMALS must stay below 2**63.
_LARGEST = 9.0e18 / 10**DECIMALS
# The most bytes a number takes: a sign, up to 11 digits before the point
# (|x| < 9e10), the point, the decimals and the space or newline after it.
_NUMBER_BYTES = 14 + DECIMALS
_MATERIAL = "terrain"


@kernel
def _write_rows(values, prefix, decimals, out):
    # Each row of ``values`` as a line ``prefix`` + its numbers with
    # ``decimals`` decimals, separated by spaces, into ``out``; returns the
    # bytes written. Every |value| * 10**decimals is below 2**63.
    scale = 10.0**decimals
    n = 0
    digits = np.empty(24, np.uint8)
    rows, cols = values.shape
    for r in range(rows):
        for k in range(prefix.size):
            out[n] = prefix[k]
            n += 1
        for c in range(cols):
            fixed = np.int64(np.rint(values[r, c] * scale))
            if fixed < 0:
                out[n] = 45  # '-'
                n += 1
                fixed = -fixed
            count = 0
            while count <= decimals or fixed > 0:
                digits[count] = 48 + fixed % 10
                fixed //= 10
                count += 1
            for k in range(count - 1, -1, -1):
                out[n] = digits[k]
                n += 1
                if k == decimals:
                    out[n] = 46  # '.'
                    n += 1
            out[n] = 32 if c < cols - 1 else 10
            n += 1
    return n


@kernel
def _write_faces(faces, with_uvs, out):
    # Each face (0-based vertex indices) as ``f a/a/a b/b/b c/c/c``
    # (``a//a`` without UVs), 1-based, into ``out``; returns the bytes
    # written.
    n = 0
    digits = np.empty(24, np.uint8)
    for f in range(faces.shape[0]):
        out[n] = 102  # 'f'
        n += 1
        for j in range(faces.shape[1]):
            out[n] = 32
            n += 1
            value = faces[f, j] + 1
            count = 0
            while count == 0 or value > 0:
                digits[count] = 48 + value % 10
                value //= 10
                count += 1
            for part in range(3):
                if part == 1 and not with_uvs:
                    out[n] = 47  # '/'
                    n += 1
                    continue
                for k in range(count - 1, -1, -1):
                    out[n] = digits[k]
                    n += 1
                if part < 2:
                    out[n] = 47
                    n += 1
        out[n] = 10
        n += 1
    return n


def _rows(values: np.ndarray, prefix: bytes) -> bytes:
    values = np.ascontiguousarray(values, dtype=np.float64)
    if not np.isfinite(values).all() or (values.size and np.abs(values).max() >= _LARGEST):
        # Beyond fixed point (or not finite): Python's formatting.
        text = "".join(
            prefix.decode() + " ".join(f"{v:.{DECIMALS}f}" for v in row) + "\n" for row in values
        )
        return text.encode()
    out = np.empty(values.shape[0] * (len(prefix) + values.shape[1] * _NUMBER_BYTES), np.uint8)
    n = _write_rows(values, np.frombuffer(prefix, np.uint8), DECIMALS, out)
    return out[:n].tobytes()


def _faces(faces: np.ndarray, with_uvs: bool) -> bytes:
    faces = np.ascontiguousarray(faces, dtype=np.int64)
    out = np.empty(faces.shape[0] * (2 + faces.shape[1] * 64), np.uint8)
    n = _write_faces(faces, with_uvs, out)
    return out[:n].tobytes()


def write_obj(
    target: pathlib.Path,
    bands: Callable[[], Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]],
    face_bands: Callable[[], Iterator[np.ndarray]],
    texture: np.ndarray | None,
    texture_png: bytes | None = None,
) -> list[pathlib.Path]:
    """Write ``target`` (and, with a texture, ``STEM.mtl`` and
    ``STEM_texture.png`` beside it) from ``bands()``, the (vertices, unit
    normals, uvs) of each band in order, and ``face_bands()``, the faces
    (0-based indices into all the vertices) of each band in order
    (``texture_png``: the texture's PNG bytes, if made already).
    Written atomically; returns the files, the mesh first."""
    stem = target.stem
    mtl, image = f"{stem}.mtl", f"{stem}_texture.png"
    with_uvs = texture is not None
    files = [target]
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(atomic_output(target))
        with open(tmp, "wb") as obj:
            obj.write(b"# worldgen\n")
            if with_uvs:
                obj.write(f"mtllib {mtl}\nusemtl {_MATERIAL}\n".encode())
            for vertices, normals, uvs in bands():
                obj.write(_rows(vertices, b"v "))
                if with_uvs:
                    obj.write(_rows(uvs, b"vt "))
                obj.write(_rows(normals, b"vn "))
            for faces in face_bands():
                obj.write(_faces(faces, with_uvs))
        if with_uvs:
            text = (
                f"# worldgen\nnewmtl {_MATERIAL}\nKa 1.0 1.0 1.0\nKd 1.0 1.0 1.0\n"
                f"Ks 0.0 0.0 0.0\nd 1.0\nillum 1\nmap_Kd {image}\n"
            )
            if texture_png is None:
                texture_png = png_bytes(texture)
            for name, data in ((mtl, text.encode()), (image, texture_png)):
                path = target.with_name(name)
                stack.enter_context(atomic_output(path)).write_bytes(data)
                files.append(path)
    return files
