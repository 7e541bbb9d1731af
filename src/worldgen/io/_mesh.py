"""Meshes as files game engines import: GLB and OBJ written here, a band of
rows at a time; PLY and STL through trimesh."""

from __future__ import annotations

import json
import os
import pathlib
from collections.abc import Iterator

import numpy as np
from PIL import Image

from worldgen._ctrl_c import import_holding_ctrl_c
from worldgen._jit import kernel
from worldgen.io._atomic import HashedFile, atomic_file, atomic_output
from worldgen.io._image import png_bytes
from worldgen.io._obj import write_obj
from worldgen.noise._validate import check_instance
from worldgen.products._mesh import Mesh, Surface

MESH_FORMATS = ("glb", "obj", "ply", "stl")
# Vertex rows of a surface made at a time while writing a GLB.
BAND_ROWS = 128


def to_trimesh(mesh: Mesh, texture: np.ndarray | None = None):
    """A ``trimesh.Trimesh`` of ``mesh`` (vertex normals and UVs kept), with
    ``texture`` (an (H, W, 3) uint8 image) as its base colour map."""
    trimesh = import_holding_ctrl_c("trimesh")  # its optional imports swallow Ctrl-C

    visual = None
    if texture is not None:
        texture = np.asarray(texture)
        if texture.ndim != 3 or texture.shape[2] != 3 or texture.dtype != np.uint8:
            raise ValueError(
                f"texture must be an (H, W, 3) uint8 image, got {texture.dtype} {texture.shape}"
            )
        material = trimesh.visual.material.PBRMaterial(
            baseColorTexture=Image.fromarray(texture), metallicFactor=0.0, roughnessFactor=1.0
        )
        visual = trimesh.visual.TextureVisuals(uv=mesh.uvs, material=material)
    return trimesh.Trimesh(
        vertices=mesh.vertices,
        faces=mesh.faces,
        vertex_normals=mesh.normals,
        visual=visual,
        process=False,
    )


def write_mesh(
    path: str | os.PathLike,
    mesh: Mesh | Surface,
    *,
    texture: np.ndarray | None = None,
    texture_png: bytes | None = None,
) -> list[pathlib.Path]:
    """Write ``mesh`` in the format its suffix names: ``.glb`` (binary glTF,
    texture embedded), ``.obj`` (with ``.mtl`` and a PNG texture beside it),
    ``.ply`` (binary, vertex colours sampled from the texture) or ``.stl``
    (binary, geometry only). Written atomically; GLB and OBJ here, the
    others by trimesh.

    ``mesh`` may be a :class:`~worldgen.products.Surface` (see
    :func:`~worldgen.products._mesh.heightfield_surface`): a GLB or an OBJ
    is then made and written a band of rows at a time, holding about 32
    bytes a vertex (GLB) or a band's text (OBJ) instead of the whole mesh
    (112 bytes a vertex).

    ``texture_png``, if given, is ``png_bytes(texture)``
    (:func:`~worldgen.io._image.png_bytes`) made already (for a picture
    also written on its own): a GLB embeds it and an OBJ's texture file
    holds it as it is, instead of encoding the texture again.

    Returns
    -------
    list of pathlib.Path
        Every file written (the mesh first).
    """
    target = pathlib.Path(path)
    if texture_png is not None and (texture is None or not isinstance(texture_png, bytes)):
        raise ValueError("texture_png must be the PNG bytes of the texture, given with it")
    if not isinstance(mesh, Surface):
        check_instance(mesh, "mesh", Mesh)
    fmt = target.suffix.lower().lstrip(".")
    if fmt not in MESH_FORMATS:
        raise ValueError(
            f"mesh file suffix must be one of {', '.join('.' + f for f in MESH_FORMATS)}, got {target.name!r}"
        )
    if texture is not None:
        texture = np.asarray(texture)
        if texture.ndim != 3 or texture.shape[2] != 3 or texture.dtype != np.uint8:
            raise ValueError(
                f"texture must be an (H, W, 3) uint8 image, got {texture.dtype} {texture.shape}"
            )
    if fmt == "glb":
        with atomic_file(target) as out:
            _write_glb(out, mesh, texture, texture_png)
        return [target]
    if fmt == "obj":

        def bands():
            for vertices, normals, uvs in _bands(mesh):
                yield vertices, _unit(normals), uvs

        return write_obj(target, bands, lambda: _face_bands(mesh), texture, texture_png)
    if isinstance(mesh, Surface):
        mesh = mesh.mesh()
    scene = to_trimesh(mesh, texture if fmt == "glb" else None)
    if fmt == "ply" and texture is not None:
        scene.visual.vertex_colors = _sample(texture, mesh.uvs)
    data = scene.export(file_type=fmt)
    with atomic_output(target) as tmp:
        tmp.write_bytes(data if isinstance(data, bytes) else data.encode())
    return [target]


def _sample(texture: np.ndarray, uvs: np.ndarray) -> np.ndarray:
    """RGBA colours of the texture at each vertex's UV (nearest pixel)."""
    texture = np.asarray(texture, dtype=np.uint8)
    h, w = texture.shape[:2]
    cols = np.clip(np.rint(uvs[:, 0] * (w - 1)), 0, w - 1).astype(np.intp)
    rows = np.clip(np.rint((1.0 - uvs[:, 1]) * (h - 1)), 0, h - 1).astype(np.intp)
    rgb = texture[rows, cols]
    return np.concatenate([rgb, np.full((len(rgb), 1), 255, np.uint8)], axis=1)


# ---------------------------------------------------------------------- GLB
#
# Binary glTF 2.0 (https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html):
# a 12-byte header, a JSON chunk padded with spaces and a binary chunk, each
# a multiple of 4 bytes. One mesh, one node: uint32 indices, float32
# positions, the texture as PNG, float32 UVs (v flipped: glTF's origin is the
# image's top-left) and float32 normals, in that order, in one buffer. The
# layout, key order and number formatting are those trimesh writes for the
# same mesh, so files stay the same bytes as when trimesh wrote them (a test
# holds the two equal).

_GLB_MAGIC, _JSON_CHUNK, _BIN_CHUNK = 0x46546C67, 0x4E4F534A, 0x004E4942
_UINT32, _FLOAT32 = 5125, 5126


def _bands(mesh: Mesh | Surface) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(vertices, normals, uvs), float64, a band of vertices at a time."""
    if isinstance(mesh, Mesh):
        yield mesh.vertices, mesh.normals, mesh.uvs
        return
    for r0 in range(0, mesh.shape[0], BAND_ROWS):
        yield mesh.vertices(r0, min(r0 + BAND_ROWS, mesh.shape[0]))


def _face_bands(mesh: Mesh | Surface) -> Iterator[np.ndarray]:
    if isinstance(mesh, Mesh):
        yield mesh.faces
        return
    last = mesh.shape[0] - 1
    for r0 in range(0, last, BAND_ROWS):
        yield mesh.faces(r0, min(r0 + BAND_ROWS, last))


def _unit(normals: np.ndarray) -> np.ndarray:
    # Normalised again in float64 as trimesh does before writing (its
    # ``util.unitize``), so that the float32 values are its very bytes.
    norm = np.sqrt(np.dot(normals * normals, [1.0] * normals.shape[1]))
    valid = norm > 1e-12
    norm[valid] **= -1
    return normals * norm.reshape((-1, 1))


class _Column:
    """A float32 (N, k) array filled band by band, with its min and max."""

    def __init__(self, count: int, width: int):
        self.values = np.empty((count, width), np.float32)
        self.filled = 0
        self.low = np.full(width, np.inf, np.float32)
        self.high = np.full(width, -np.inf, np.float32)

    def add(self, band: np.ndarray) -> None:
        values = self.values[self.filled : self.filled + len(band)]
        values[:] = band  # rounded to float32
        self.filled += len(band)
        for k in range(values.shape[1] if len(band) else 0):
            # Column by column: numpy reduces a strided column much faster
            # than the rows of an (N, 3) array along axis 0.
            self.low[k] = min(self.low[k], values[:, k].min())
            self.high[k] = max(self.high[k], values[:, k].max())


class _Range:
    """The min and max per component of a column written band by band."""

    def __init__(self, low: np.ndarray, high: np.ndarray):
        self.low, self.high = low, high


def _fill_normals(surface: Surface, normals: _Column, texture: bool) -> tuple[_Range, _Range]:
    """Fill the GLB's normals from ``surface`` in one compiled pass: the
    float32 values of :meth:`Surface.vertices` (normalised again by
    :func:`_unit`), with their min and max; and the min and max of its
    positions and UVs (v flipped), which are written band by band later
    (:func:`_write_surface_bands`) instead of being held whole."""
    uv_range = np.empty((2, 2), np.float32)
    ranges = np.empty((2, 2, 3), np.float32)
    _surface_normals(
        surface.y, surface.gx, surface.gz, surface.rows, surface.cols, float(surface.cell),
        normals.values, texture, ranges, uv_range,
    )  # fmt: skip
    normals.filled = len(surface.rows) * len(surface.cols)
    normals.low, normals.high = ranges[1, 0], ranges[1, 1]
    return _Range(ranges[0, 0], ranges[0, 1]), _Range(uv_range[0], uv_range[1])


@kernel
def _surface_normals(y, gx, gz, rows, cols, cell, normals, texture, ranges, uv_range):
    # The arithmetic of Surface.vertices, then _unit, in the same order
    # (float64 until the rounding to float32): each value is the very one
    # numpy made band by band. ranges[0]: positions' min and max per
    # component (the positions _surface_band writes), ranges[1]: the
    # normals'; uv_range: the UVs' (those of _surface_band). x and u depend
    # on the column only, z and v on the row: their ranges are taken over
    # those (all >= +0.0, so the order they are seen in does not matter).
    # The running ranges are local values, not the arrays, which the
    # compiler would reload after every store into the normals.
    nx = cols.size
    last_row, last_col = y.shape[0] - 1, y.shape[1] - 1
    inf = np.float32(np.inf)
    lo_x = lo_y = lo_z = lo_u = lo_v = lo_0 = lo_1 = lo_2 = inf
    hi_x = hi_y = hi_z = hi_u = hi_v = hi_0 = hi_1 = hi_2 = -inf
    for j in range(nx if rows.size else 0):
        c = cols[j]
        x = np.float32(c * cell)
        lo_x, hi_x = min(lo_x, x), max(hi_x, x)
        u = np.float32(c / last_col)
        lo_u, hi_u = min(lo_u, u), max(hi_u, u)
    for i in range(rows.size if nx else 0):
        r = rows[i]
        z = np.float32(r * cell)
        lo_z, hi_z = min(lo_z, z), max(hi_z, z)
        v = np.float32(1.0 - (1.0 - r / last_row))
        lo_v, hi_v = min(lo_v, v), max(hi_v, v)
        for j in range(nx):
            c = cols[j]
            n = i * nx + j
            p1 = np.float32(y[r, c])
            # In the order seen, the first of equal values kept (-0.0 and
            # 0.0 may both occur).
            if p1 < lo_y:
                lo_y = p1
            if p1 > hi_y:
                hi_y = p1
            a, b, d = 0.0 - gx[r, c], 1.0, 0.0 - gz[r, c]
            length = np.sqrt(a * a + b * b + d * d)
            a, b, d = a / length, b / length, d / length
            scale = np.sqrt(a * a + b * b + d * d)
            if scale > 1e-12:
                scale = 1.0 / scale
            q0, q1, q2 = np.float32(a * scale), np.float32(b * scale), np.float32(d * scale)
            normals[n, 0], normals[n, 1], normals[n, 2] = q0, q1, q2
            if q0 < lo_0:
                lo_0 = q0
            if q0 > hi_0:
                hi_0 = q0
            if q1 < lo_1:
                lo_1 = q1
            if q1 > hi_1:
                hi_1 = q1
            if q2 < lo_2:
                lo_2 = q2
            if q2 > hi_2:
                hi_2 = q2
    ranges[0, 0, 0], ranges[0, 0, 1], ranges[0, 0, 2] = lo_x, lo_y, lo_z
    ranges[0, 1, 0], ranges[0, 1, 1], ranges[0, 1, 2] = hi_x, hi_y, hi_z
    ranges[1, 0, 0], ranges[1, 0, 1], ranges[1, 0, 2] = lo_0, lo_1, lo_2
    ranges[1, 1, 0], ranges[1, 1, 1], ranges[1, 1, 2] = hi_0, hi_1, hi_2
    if texture:
        uv_range[0, 0], uv_range[0, 1] = lo_u, lo_v
        uv_range[1, 0], uv_range[1, 1] = hi_u, hi_v
    else:
        uv_range[0, 0] = uv_range[0, 1] = inf
        uv_range[1, 0] = uv_range[1, 1] = -inf


def _write_surface_bands(out: HashedFile, surface: Surface, scratch: np.ndarray, uvs: bool) -> None:
    """The float32 positions (or, with ``uvs``, the UVs, v flipped) of
    :meth:`Surface.vertices`, band by band, each made in ``scratch`` (bytes)
    and written from there, so that no copy of the whole column is made."""
    nx, ny = len(surface.cols), len(surface.rows)
    width = 2 if uvs else 3
    last_row, last_col = surface.y.shape[0] - 1, surface.y.shape[1] - 1
    for r0 in range(0, ny, BAND_ROWS):
        r1 = min(r0 + BAND_ROWS, ny)
        band = scratch[: 4 * width * (r1 - r0) * nx].view(np.float32).reshape(-1, width)
        _surface_band(surface.y, surface.rows, surface.cols, float(surface.cell), last_row,
                      last_col, r0, r1, uvs, band)  # fmt: skip
        out.write(band)


@kernel
def _surface_band(y, rows, cols, cell, last_row, last_col, i0, i1, uvs, out):
    # Positions (or, with ``uvs``, UVs, v flipped) of vertex rows i0 .. i1 -
    # 1, as _surface_normals makes them (one kernel for both, loaded once a
    # run).
    nx = cols.size
    n = 0
    for i in range(i0, i1):
        r = rows[i]
        if uvs:
            v = np.float32(1.0 - (1.0 - r / last_row))
            for j in range(nx):
                out[n + j, 0], out[n + j, 1] = np.float32(cols[j] / last_col), v
        else:
            z = np.float32(r * cell)
            for j in range(nx):
                c = cols[j]
                out[n + j, 0], out[n + j, 1], out[n + j, 2] = (
                    np.float32(c * cell), np.float32(y[r, c]), z
                )  # fmt: skip
        n += nx


def _write_surface_faces(out: HashedFile, surface: Surface, scratch: np.ndarray) -> None:
    """The faces of :meth:`Surface.faces` as uint32, band by band, each
    made in ``scratch`` (bytes) and written from there."""
    nx, last = len(surface.cols), len(surface.rows) - 1
    for r0 in range(0, last, BAND_ROWS):
        r1 = min(r0 + BAND_ROWS, last)
        band = scratch[: 4 * 6 * (r1 - r0) * (nx - 1)].view(np.uint32)
        _surface_faces(r0, r1, nx, band)
        out.write(band)


@kernel
def _surface_faces(r0, r1, nx, out):
    # Two faces a cell, (a, c, b) and (b, c, d), cell after cell.
    n = 0
    for row in range(r0, r1):
        for col in range(nx - 1):
            a = row * nx + col
            b, c = a + 1, a + nx
            out[n], out[n + 1], out[n + 2] = a, c, b
            out[n + 3], out[n + 4], out[n + 5] = b, c, c + 1
            n += 6


def _write_glb(
    out: HashedFile, mesh: Mesh | Surface, texture: np.ndarray | None, texture_png: bytes | None
) -> None:
    if isinstance(mesh, Mesh):
        count, faces = len(mesh.vertices), int(np.prod(mesh.faces.shape))
    else:
        count = mesh.shape[0] * mesh.shape[1]
        faces = 6 * (mesh.shape[0] - 1) * (mesh.shape[1] - 1)
    normals = _Column(count, 3)
    if isinstance(mesh, Surface):
        positions, uvs = _fill_normals(mesh, normals, texture is not None)
        if texture is None:
            uvs = None
    else:
        positions = _Column(count, 3)
        uvs = _Column(count, 2) if texture is not None else None
        for vertices, band_normals, band_uvs in _bands(mesh):
            positions.add(vertices)
            normals.add(_unit(band_normals))
            if uvs is not None:
                flipped = band_uvs[:, :2].copy()
                flipped[:, 1] = 1.0 - flipped[:, 1]
                uvs.add(flipped)
    low, high = None, None
    if isinstance(mesh, Surface) and count < 2**32:
        low, high = 0, count - 1  # a surface's faces use every vertex
    else:
        for band in _face_bands(mesh):
            if band.size:
                band = band.astype(np.uint32)
                low = band.min() if low is None else min(low, band.min())
                high = band.max() if high is None else max(high, band.max())
    image = b""
    if texture is not None:
        if texture_png is None:
            texture_png = png_bytes(np.ascontiguousarray(texture, dtype=np.uint8))
        image = texture_png
    image_padding = bytes(-len(image) % 4)

    def accessor(kind: str, column: _Column | _Range, view: int, count_first: bool = False) -> dict:
        entry = {"componentType": _FLOAT32}
        if count_first:
            entry["count"] = count
        entry |= {"type": kind, "byteOffset": 0, "bufferView": view, "count": count}
        return entry | {"max": column.high.tolist(), "min": column.low.tolist()}

    indices = {"componentType": _UINT32, "type": "SCALAR", "bufferView": 0, "count": faces}
    indices["max"] = [] if high is None else [int(high)]
    indices["min"] = [] if low is None else [int(low)]
    accessors = [indices, accessor("VEC3", positions, 1)]
    lengths = [4 * faces, 12 * count]
    attributes = {"POSITION": 1}
    primitive = {"attributes": attributes, "indices": 0, "mode": 4}
    tree = {"scene": 0, "scenes": [{"nodes": [0]}], "asset": {
        "version": "2.0", "generator": "https://github.com/mikedh/trimesh"}}  # fmt: skip
    if uvs is not None:
        lengths += [len(image) + len(image_padding), 8 * count]
        accessors.append(accessor("VEC2", uvs, 3))
        attributes["TEXCOORD_0"] = 2
        primitive["material"] = 0
    attributes["NORMAL"] = len(accessors)
    accessors.append(accessor("VEC3", normals, len(lengths), count_first=True))
    lengths.append(12 * count)
    tree["accessors"] = accessors
    tree["meshes"] = [{"name": "geometry_0", "extras": {}, "primitives": [primitive]}]
    if uvs is not None:
        tree["images"] = [{"bufferView": 2, "mimeType": "image/png"}]
        tree["textures"] = [{"source": 0}]
        tree["materials"] = [
            {
                "pbrMetallicRoughness": {
                    "baseColorTexture": {"index": 0}, "roughnessFactor": 1.0, "metallicFactor": 0.0,
                },
                "doubleSided": False,
            }
        ]  # fmt: skip
    tree["nodes"] = [{"name": "geometry_0", "mesh": 0}]
    tree["buffers"] = [{"byteLength": sum(lengths)}]
    offsets = np.cumsum([0, *lengths[:-1]]).tolist()
    tree["bufferViews"] = [
        {"buffer": 0, "byteOffset": o, "byteLength": n} for o, n in zip(offsets, lengths)
    ]
    content = json.dumps(tree, separators=(",", ":"))
    content = (content + " " * (4 - (len(content) + 20) % 4)).encode("utf-8")
    total = 28 + len(content) + sum(lengths)
    out.write(np.array([_GLB_MAGIC, 2, total, len(content), _JSON_CHUNK], "<u4").tobytes())
    out.write(content)
    out.write(np.array([sum(lengths), _BIN_CHUNK], "<u4").tobytes())
    # Arrays are written from their own memory (C order, native
    # little-endian float32), not copied into bytes first.
    if isinstance(mesh, Surface):
        # One scratch buffer for every band of faces, positions and UVs.
        nx = mesh.shape[1]
        scratch = np.empty(4 * BAND_ROWS * max(6 * (nx - 1), 3 * nx), np.uint8)
        _write_surface_faces(out, mesh, scratch)
        _write_surface_bands(out, mesh, scratch, uvs=False)
        if uvs is not None:
            out.write(image)
            out.write(image_padding)
            _write_surface_bands(out, mesh, scratch, uvs=True)
    else:
        for band in _face_bands(mesh):
            out.write(np.ascontiguousarray(band, dtype="<u4"))
        out.write(positions.values)
        if uvs is not None:
            out.write(image)
            out.write(image_padding)
            out.write(uvs.values)
    out.write(normals.values)
