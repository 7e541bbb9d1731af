"""Voxel regions as triangle meshes: greedy meshing and GLB export.

A region is a uint8 array ``blocks`` of shape ``(Y, Z, X)`` holding block ids
from :mod:`worldgen.voxel._blocks`, indexed ``[y - y_min, z - z0, x - x0]``.
Block ``[i, j, k]`` fills the unit cube from world ``(x0 + k, y_min + i,
z0 + j)`` to one more in each coordinate (y up, z toward the south, x toward
the east: a right-handed frame, glTF's).
"""

from __future__ import annotations

import dataclasses
import os
import pathlib

import numpy as np

from worldgen._ctrl_c import import_holding_ctrl_c
from worldgen._jit import kernel
from worldgen.io._atomic import atomic_output
from worldgen.noise._validate import check_int
from worldgen.voxel._blocks import AIR, COLOURS, LAVA, SOLID, WATER
from worldgen.voxel._render import check_blocks

# Opacity of the water surface in the face colours; solid faces are opaque.
WATER_ALPHA = 180

# Which of two neighbours shows a face to the other: the higher rank
# (solid blocks, then lava, then water, then air).
RANK = np.where(SOLID, 3, 0).astype(np.int64)
RANK[LAVA] = 2
RANK[WATER] = 1

_COORD_LIMIT = 2**30
# For each array axis (0 y, 1 z, 2 x): the two in-plane axes (u, v) of its faces.
_IN_PLANE = ((1, 2), (0, 2), (0, 1))
# World (x, y, z) direction of each array axis.
_WORLD_AXIS = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])


@dataclasses.dataclass
class VoxelMesh:
    """A triangle mesh of a voxel region's visible faces.

    Attributes
    ----------
    vertices : float64 (N, 3)
        World ``(x, y, z)``, y up; four per rectangle, not shared, so every
        vertex belongs to faces of one colour.
    faces : int64 (M, 3)
        Vertex indices, two triangles per rectangle, counter-clockwise seen
        from the side the face looks at (the right-hand normal points out of
        the solid block or the lava, or up out of the water).
    face_colours : uint8 (M, 4)
        RGBA per face: the block's palette colour, alpha 255 for solid
        blocks and lava and ``WATER_ALPHA`` for the water surface.
    """

    vertices: np.ndarray
    faces: np.ndarray
    face_colours: np.ndarray


# ------------------------------------------------------------------- kernels


@kernel
def _face_id(a, b, rank):
    """1 + the id whose face separates block ``a`` from its neighbour ``b``
    (seen from ``b``), or 0 if there is no face."""
    if rank[a] > rank[b]:
        return a + 1
    return 0


@kernel
def _count_faces(vol, rank, air):
    """Unit faces of ``vol`` (N, U, V) looking along +axis 0 and -axis 0."""
    ns, nu, nv = vol.shape
    count = 0
    for n in range(ns):
        for u in range(nu):
            for v in range(nv):
                a = vol[n, u, v]
                above = vol[n + 1, u, v] if n + 1 < ns else air
                below = vol[n - 1, u, v] if n > 0 else air
                if _face_id(a, above, rank) != 0:
                    count += 1
                if _face_id(a, below, rank) != 0:
                    count += 1
    return count


@kernel
def _greedy_quads(vol, rank, air, quads):
    """Greedy rectangles of the faces of ``vol`` (N, U, V) across axis 0.

    Fills rows ``(side, slice, u0, v0, du, dv, id)`` of ``quads`` (side 0
    looks toward +axis 0, side 1 toward -axis 0; the face belongs to block
    ``[slice, u, v]`` for ``u0 <= u < u0 + du``, ``v0 <= v < v0 + dv``) and
    returns how many. ``quads`` needs a row per unit face at most.
    """
    ns, nu, nv = vol.shape
    mask = np.zeros((nu, nv), dtype=np.int64)
    count = 0
    for side in range(2):
        step = 1 - 2 * side
        for n in range(ns):
            m = n + step
            inside = 0 <= m < ns
            for u in range(nu):
                for v in range(nv):
                    b = vol[m, u, v] if inside else air
                    mask[u, v] = _face_id(vol[n, u, v], b, rank)
            for v in range(nv):
                for u in range(nu):
                    c = mask[u, v]
                    if c == 0:
                        continue
                    du = 1
                    while u + du < nu and mask[u + du, v] == c:
                        du += 1
                    dv = 1
                    while v + dv < nv:
                        row_matches = True
                        for k in range(du):
                            if mask[u + k, v + dv] != c:
                                row_matches = False
                                break
                        if not row_matches:
                            break
                        dv += 1
                    for j in range(dv):
                        for k in range(du):
                            mask[u + k, v + j] = 0
                    quads[count, 0] = side
                    quads[count, 1] = n
                    quads[count, 2] = u
                    quads[count, 3] = v
                    quads[count, 4] = du
                    quads[count, 5] = dv
                    quads[count, 6] = c - 1
                    count += 1
    return count


# ------------------------------------------------------------------- public


def _quads(blocks: np.ndarray) -> np.ndarray:
    """Rows ``(axis, side, slice, u0, v0, du, dv, id)`` of the greedy
    rectangles of a validated region, ``axis`` being the array axis (0 y,
    1 z, 2 x) the faces look along and ``(u, v)`` the other two in order."""
    parts = []
    for axis in range(3):
        vol = np.ascontiguousarray(np.moveaxis(blocks, axis, 0))
        capacity = _count_faces(vol, RANK, AIR)
        quads = np.empty((capacity, 7), dtype=np.int64)
        count = _greedy_quads(vol, RANK, AIR, quads)
        rows = np.empty((count, 8), dtype=np.int64)
        rows[:, 0] = axis
        rows[:, 1:] = quads[:count]
        parts.append(rows)
    return np.concatenate(parts)


def _check_origin(origin: object) -> tuple[int, int]:
    if isinstance(origin, (str, bytes)) or not hasattr(origin, "__len__") or len(origin) != 2:
        raise ValueError(f"origin must be a pair of integers (x0, z0), got {origin!r}")
    return (
        check_int(origin[0], "origin[0]", -_COORD_LIMIT, _COORD_LIMIT),
        check_int(origin[1], "origin[1]", -_COORD_LIMIT, _COORD_LIMIT),
    )


def greedy_mesh(
    blocks: np.ndarray, *, y_min: int = -64, origin: tuple[int, int] = (0, 0)
) -> VoxelMesh:
    """Mesh the visible faces of a region, merged into maximal rectangles.

    Parameters
    ----------
    blocks : ndarray, shape (Y, Z, X), uint8
        Block ids, indexed ``[y - y_min, z - z0, x - x0]``.
    y_min : int
        World height of layer 0.
    origin : (int, int)
        World ``(x0, z0)`` of the region's first column.

    Returns
    -------
    VoxelMesh
        Two triangles per rectangle; an empty mesh (no vertices, no faces)
        if nothing is visible.

    Raises
    ------
    TypeError, ValueError
        If ``blocks`` is not a non-empty 3-D uint8 array of palette ids, or
        ``y_min`` or ``origin`` is not an integer or a pair of integers.

    Notes
    -----
    A face is emitted between a solid block and a non-solid neighbour (air,
    water or lava), facing the neighbour and coloured like the solid block;
    between lava and air or water, facing away from the lava; and between
    water and air (the water's surface, also where water meets air
    sideways), facing the air. Everything outside the array counts as air,
    so the region is meshed as an island: its sides and bottom are closed,
    and regions meshed apart show walls where they touch.

    Greedy meshing after Mikola Lysenko, "Meshing in a Minecraft game"
    (0fps.net, 2012): for each of the six face directions and each slice
    of blocks across it, the faces of the slice are marked with their block
    id; scanning the slice, each unmerged face starts a rectangle that grows
    along the first in-plane axis (z for faces looking along y, y
    otherwise) while the id stays the same, then along the second while a
    whole row of that width has the id. Rectangles never join different
    ids or directions, and together cover every visible unit face exactly
    once. Where rectangles of different sizes meet, vertices of one lie on
    edges of another (T-junctions): the surface is closed, so its volume is
    right, but it is not edge-manifold in general.

    Examples
    --------
    >>> import numpy as np
    >>> from worldgen.voxel._blocks import STONE
    >>> blocks = np.full((1, 2, 3), STONE, dtype=np.uint8)
    >>> mesh = greedy_mesh(blocks, y_min=10, origin=(100, -5))
    >>> mesh.faces.shape, mesh.face_colours[0].tolist()
    ((12, 3), [125, 125, 125, 255])
    >>> mesh.vertices.min(axis=0).tolist(), mesh.vertices.max(axis=0).tolist()
    ([100.0, 10.0, -5.0], [103.0, 11.0, -3.0])
    """
    blocks = check_blocks(blocks)
    y_min = check_int(y_min, "y_min", -_COORD_LIMIT, _COORD_LIMIT)
    x0, z0 = _check_origin(origin)

    quads = _quads(blocks)
    count = len(quads)
    # Array (y, z, x) coordinates of each rectangle's four corners.
    corners = np.zeros((count, 4, 3), dtype=np.int64)
    axis, side, plane = quads[:, 0], quads[:, 1], quads[:, 2] + 1 - quads[:, 1]
    u0, v0, du, dv = quads[:, 3], quads[:, 4], quads[:, 5], quads[:, 6]
    ccw = np.empty(count, dtype=np.bool_)
    for a, (u_axis, v_axis) in enumerate(_IN_PLANE):
        rows = axis == a
        corners[rows, :, a] = plane[rows, None]
        u_end, v_end = u0[rows] + du[rows], v0[rows] + dv[rows]
        corners[rows, :, u_axis] = np.stack([u0[rows], u_end, u_end, u0[rows]], axis=1)
        corners[rows, :, v_axis] = np.stack([v0[rows], v0[rows], v_end, v_end], axis=1)
        # Corners run counter-clockwise around +a when u x v points along +a.
        along = np.dot(np.cross(_WORLD_AXIS[u_axis], _WORLD_AXIS[v_axis]), _WORLD_AXIS[a]) > 0
        ccw[rows] = along == (side[rows] == 0)

    vertices = np.empty((count * 4, 3), dtype=np.float64)
    flat = corners.reshape(-1, 3)
    vertices[:, 0] = x0 + flat[:, 2]
    vertices[:, 1] = y_min + flat[:, 0]
    vertices[:, 2] = z0 + flat[:, 1]

    first = 4 * np.arange(count, dtype=np.int64)[:, None]
    order = np.where(ccw[:, None], [[0, 1, 2, 0, 2, 3]], [[0, 2, 1, 0, 3, 2]])
    faces = (first + order).reshape(-1, 3)

    ids = quads[:, 7]
    colours = np.empty((count, 4), dtype=np.uint8)
    colours[:, :3] = COLOURS[ids]
    colours[:, 3] = np.where(ids == WATER, WATER_ALPHA, 255)
    return VoxelMesh(vertices, faces, np.repeat(colours, 2, axis=0))


def write_voxel_glb(path: str | os.PathLike, mesh: VoxelMesh) -> pathlib.Path:
    """Write a voxel mesh as binary glTF, atomically.

    Parameters
    ----------
    path : str or os.PathLike
        Where to write; the suffix must be ``.glb``.
    mesh : VoxelMesh
        From :func:`greedy_mesh`, with at least one face.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    TypeError
        If ``mesh`` is not a VoxelMesh.
    ValueError
        If ``path`` does not end in ``.glb`` or ``mesh`` has no faces.

    Notes
    -----
    Written by trimesh, as two meshes with their own glTF materials (PBR,
    not metallic): ``blocks`` (solid blocks and lava, ``alphaMode``
    ``OPAQUE``) and, if the region shows any water, ``water`` (``alphaMode``
    ``BLEND``, double-sided), so viewers draw the water surface translucent
    and the sea floor shows through it. glTF has no per-face colours, so
    each face's colour is given to its vertices as ``COLOR_0`` (RGBA, which
    glTF multiplies into the material's white base colour): exact, because
    no vertex is shared between rectangles (and it spares trimesh's
    face-to-vertex conversion, which needs scipy). Vertices are stored
    relative to the region's lowest x and z, which each mesh's node moves
    them back by: glTF's float32 vertices are exact only up to 2**24, and a
    region far from the world's centre would lose its faces.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> blocks = np.ones((1, 1, 1), dtype=np.uint8)
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "block.glb"
    >>> write_voxel_glb(target, greedy_mesh(blocks)) == target
    True
    """
    trimesh = import_holding_ctrl_c("trimesh")  # its optional imports swallow Ctrl-C

    if not isinstance(mesh, VoxelMesh):
        raise TypeError(f"mesh must be a VoxelMesh from greedy_mesh, got {type(mesh).__name__}")
    target = pathlib.Path(path)
    if target.suffix.lower() != ".glb":
        raise ValueError(f"path must end in .glb, got {target.name!r}")
    if len(mesh.faces) == 0:
        raise ValueError("mesh has no faces; a region of air only has nothing to write")
    water = mesh.face_colours[:, 3] != 255
    parts = {"blocks": ~water, "water": water}
    # glTF keeps vertices in float32, exact to 2**24: far from the world's
    # centre the corners would snap together. The vertices are kept
    # relative to the region's lowest x and z, which the nodes' transform
    # (float64 JSON) adds back.
    corner = np.floor(mesh.vertices.min(axis=0))
    corner[1] = 0.0
    move = np.eye(4)
    move[:3, 3] = corner
    scene = trimesh.Scene()
    for name, chosen in parts.items():
        if chosen.any():
            part = _part(mesh, chosen, name, corner)
            scene.add_geometry(part, geom_name=name, node_name=name, transform=move)
    data = scene.export(file_type="glb")
    with atomic_output(target) as tmp:
        tmp.write_bytes(data)
    return target


def _part(mesh: VoxelMesh, chosen: np.ndarray, name: str, corner: np.ndarray):
    """The chosen faces of ``mesh`` as a trimesh with vertex colours and the
    material ``name`` ('blocks' opaque, 'water' blended), its vertices less
    ``corner``."""
    import trimesh

    faces = mesh.faces[chosen]
    used = np.unique(faces)
    index = np.zeros(len(mesh.vertices), dtype=np.int64)
    index[used] = np.arange(len(used))
    colours = np.zeros((len(used), 4), dtype=np.uint8)
    colours[index[faces.ravel()]] = np.repeat(mesh.face_colours[chosen], 3, axis=0)
    material = trimesh.visual.material.PBRMaterial(
        name=name,
        baseColorFactor=[255, 255, 255, 255],
        metallicFactor=0.0,
        roughnessFactor=0.9 if name == "water" else 1.0,
        alphaMode="BLEND" if name == "water" else "OPAQUE",
        doubleSided=name == "water",
    )
    visual = trimesh.visual.TextureVisuals(material=material)
    visual.vertex_attributes["color"] = colours
    return trimesh.Trimesh(
        vertices=mesh.vertices[used] - corner, faces=index[faces], visual=visual, process=False
    )


__all__ = ["WATER_ALPHA", "VoxelMesh", "greedy_mesh", "write_voxel_glb"]
