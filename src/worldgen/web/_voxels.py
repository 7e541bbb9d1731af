"""Voxel chunks for the explorer's 3D view: greedy-meshed, as JSON."""

from __future__ import annotations

import json

import numpy as np

from worldgen.products._maps import MapConfig
from worldgen.web._products import voxel_config


def chunk_meshes(config: MapConfig, x: int, z: int, radius: int) -> bytes:
    """The voxel world's columns within ``radius`` blocks of world cell
    ``(x, z)`` (a square of side ``2 radius``), greedy-meshed, as JSON bytes:
    ``{"origin": [x0, z0], "size": n, "positions": [...], "colours":
    [...], "water": [...]}``.

    ``positions`` are world ``(x, y, z)`` per vertex (three per triangle,
    not shared), ``colours`` RGB 0-255 per vertex, ``water`` the same for
    the translucent water surface, drawn after the solid faces.
    """
    from worldgen.voxel import generate_region, greedy_mesh

    world = voxel_config(config)
    x0, z0, n = x - radius, z - radius, 2 * radius
    blocks, _ = generate_region(world, x0, z0, n, n)
    mesh = greedy_mesh(blocks, y_min=world.y_min, origin=(x0, z0))
    corners = mesh.vertices[mesh.faces].reshape(-1, 3)
    colours = np.repeat(mesh.face_colours, 3, axis=0)
    water = colours[:, 3] < 255
    out = {"origin": [x0, z0], "size": n, "y_min": world.y_min, "sea_level": world.sea_level}
    for name, keep in (("solid", ~water), ("water", water)):
        out[name] = {
            "positions": corners[keep].astype(np.int64).ravel().tolist(),
            "colours": colours[keep, :3].astype(np.int64).ravel().tolist(),
        }
    return json.dumps(out, separators=(",", ":")).encode()
