"""Meshes as files game engines import, written through trimesh."""

from __future__ import annotations

import contextlib
import os
import pathlib

import numpy as np
from PIL import Image

from worldgen.io._atomic import atomic_output
from worldgen.noise._validate import check_instance
from worldgen.products._mesh import Mesh

MESH_FORMATS = ("glb", "obj", "ply", "stl")


def to_trimesh(mesh: Mesh, texture: np.ndarray | None = None):
    """A ``trimesh.Trimesh`` of ``mesh`` (vertex normals and UVs kept), with
    ``texture`` (an (H, W, 3) uint8 image) as its base colour map."""
    import trimesh

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
    path: str | os.PathLike, mesh: Mesh, *, texture: np.ndarray | None = None
) -> list[pathlib.Path]:
    """Write ``mesh`` in the format its suffix names: ``.glb`` (binary glTF,
    texture embedded), ``.obj`` (with ``.mtl`` and a PNG texture beside it),
    ``.ply`` (binary, vertex colours sampled from the texture) or ``.stl``
    (binary, geometry only). All of it is written by trimesh, atomically.

    Returns
    -------
    list of pathlib.Path
        Every file written (the mesh first).
    """
    target = pathlib.Path(path)
    check_instance(mesh, "mesh", Mesh)
    fmt = target.suffix.lower().lstrip(".")
    if fmt not in MESH_FORMATS:
        raise ValueError(
            f"mesh file suffix must be one of {', '.join('.' + f for f in MESH_FORMATS)}, got {target.name!r}"
        )
    scene = to_trimesh(mesh, texture if fmt in ("glb", "obj") else None)
    if fmt == "ply" and texture is not None:
        scene.visual.vertex_colors = _sample(texture, mesh.uvs)
    if fmt != "obj":
        data = scene.export(file_type=fmt)
        with atomic_output(target) as tmp:
            tmp.write_bytes(data if isinstance(data, bytes) else data.encode())
        return [target]
    from trimesh.exchange.obj import export_obj

    mtl = f"{target.stem}.mtl"
    text, extras = export_obj(
        scene, include_normals=True, include_texture=True, return_texture=True, mtl_name=mtl
    )
    # Name the texture after the mesh, so that meshes sharing a folder keep
    # their own textures.
    files = {target.name: text.encode()}
    renames = {n: f"{target.stem}_texture{pathlib.Path(n).suffix}" for n in extras if n != mtl}
    for name, data in extras.items():
        if name == mtl:
            for old, new in renames.items():
                data = data.replace(old.encode(), new.encode())
        files[renames.get(name, name)] = data
    written = [target.with_name(name) for name in files]
    with contextlib.ExitStack() as stack:
        for name, data in files.items():
            tmp = stack.enter_context(atomic_output(target.with_name(name)))
            tmp.write_bytes(data)
    return written


def _sample(texture: np.ndarray, uvs: np.ndarray) -> np.ndarray:
    """RGBA colours of the texture at each vertex's UV (nearest pixel)."""
    texture = np.asarray(texture, dtype=np.uint8)
    h, w = texture.shape[:2]
    cols = np.clip(np.rint(uvs[:, 0] * (w - 1)), 0, w - 1).astype(np.intp)
    rows = np.clip(np.rint((1.0 - uvs[:, 1]) * (h - 1)), 0, h - 1).astype(np.intp)
    rgb = texture[rows, cols]
    return np.concatenate([rgb, np.full((len(rgb), 1), 255, np.uint8)], axis=1)
