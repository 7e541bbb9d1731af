"""Looking at voxel regions: top-down maps, cross-sections and greedy meshes."""

import numpy as np
import pytest
import trimesh
from hypothesis import given
from hypothesis import strategies as st

from worldgen.products._shading import apply_shade
from worldgen.voxel._blocks import (
    AIR,
    COLOURS,
    DIRT,
    GRASS,
    ICE,
    LAVA,
    PALETTE,
    SAND,
    SNOW,
    SOLID,
    STONE,
    WATER,
)
from worldgen.voxel._render import (
    CAVE_COLOUR,
    OVERHANG_SHADE,
    SKY_COLOUR,
    _surface,
    cross_section,
    top_down,
)
from worldgen.voxel._voxel_mesh import (
    _IN_PLANE,
    WATER_ALPHA,
    VoxelMesh,
    _quads,
    greedy_mesh,
    write_voxel_glb,
)

FLAT = np.sin(np.radians(45.0))  # hillshade of flat ground


def flat_colour(block_id):
    """The top-down colour of flat land at sea level."""
    return apply_shade(COLOURS[block_id][None, None], np.array([[FLAT]]))[0, 0]


def random_region(seed, shape, ids=(AIR, AIR, STONE, DIRT, WATER)):
    rng = np.random.default_rng(seed)
    return np.asarray(ids, dtype=np.uint8)[rng.integers(0, len(ids), shape)]


regions = st.builds(
    random_region,
    st.integers(0, 2**32 - 1),
    st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6)),
    st.sampled_from([(AIR, AIR, STONE, DIRT, WATER), (AIR, STONE), tuple(range(len(PALETTE)))]),
)


# --------------------------------------------------------------- references


def naive_surface(blocks):
    """Column tops (-1 for air only) and water depths, one column at a time."""
    nz, nx = blocks.shape[1:]
    top = np.full((nz, nx), -1)
    depth = np.zeros((nz, nx), dtype=int)
    for z in range(nz):
        for x in range(nx):
            column = blocks[:, z, x]
            filled = np.flatnonzero(column != AIR)
            if len(filled) == 0:
                continue
            top[z, x] = filled[-1]
            y = filled[-1]
            while y >= 0 and column[y] == WATER:
                depth[z, x] += 1
                y -= 1
    return top, depth


def naive_faces(blocks):
    """Per (array axis, side): 1 + the id of the face each block shows across
    that axis (side 0 toward +axis, 1 toward -axis), 0 where it shows none."""
    padded = np.pad(blocks, 1, constant_values=AIR)
    faces = {}
    for axis in range(3):
        for side, step in ((0, 1), (1, -1)):
            window = [slice(1, -1)] * 3
            window[axis] = slice(1 + step, padded.shape[axis] - 1 + step)
            neighbour = padded[tuple(window)]
            solid_face = SOLID[blocks] & ~SOLID[neighbour]
            lava_face = (blocks == LAVA) & np.isin(neighbour, [AIR, WATER])
            water_face = (blocks == WATER) & (neighbour == AIR)
            faces[axis, side] = np.where(
                solid_face | lava_face,
                blocks.astype(int) + 1,
                np.where(water_face, WATER + 1, 0),
            )
    return faces


def naive_face_count(blocks):
    return sum(int(np.count_nonzero(f)) for f in naive_faces(blocks).values())


def paint(quads, shape):
    """The faces covered by greedy rectangles, in naive_faces' layout; fails
    if two rectangles cover the same face."""
    painted = {(a, s): np.zeros(shape, dtype=int) for a in range(3) for s in range(2)}
    for axis, side, n, u0, v0, du, dv, ident in quads.tolist():
        index = [n, n, n]
        u_axis, v_axis = _IN_PLANE[axis]
        index[u_axis] = slice(u0, u0 + du)
        index[v_axis] = slice(v0, v0 + dv)
        cells = painted[axis, side][tuple(index)]
        assert not cells.any(), "rectangles overlap"
        cells[...] = ident + 1
    return painted


def triangle_normals(mesh):
    v = mesh.vertices[mesh.faces]
    cross = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    return cross / np.linalg.norm(cross, axis=1, keepdims=True), np.linalg.norm(cross, axis=1) / 2


def sides(mesh, blocks, y_min, origin):
    """The block ids behind and in front of each triangle (outside is air)."""
    normals, _ = triangle_normals(mesh)
    centroids = mesh.vertices[mesh.faces].mean(axis=1)
    shift = np.array([origin[0], y_min, origin[1]])

    def ids_at(points):
        xyz = np.floor(points - shift).astype(int)
        y, z, x = xyz[:, 1], xyz[:, 2], xyz[:, 0]
        inside = (y >= 0) & (y < blocks.shape[0]) & (z >= 0) & (z < blocks.shape[1])
        inside &= (x >= 0) & (x < blocks.shape[2])
        ids = np.full(len(points), AIR, dtype=np.uint8)
        ids[inside] = blocks[y[inside], z[inside], x[inside]]
        return ids

    return ids_at(centroids - 0.5 * normals), ids_at(centroids + 0.5 * normals)


def signed_volume(vertices, faces):
    v = vertices[faces]
    return float(np.einsum("ij,ij->i", v[:, 0], np.cross(v[:, 1], v[:, 2])).sum() / 6.0)


# ------------------------------------------------------------------ top_down


def lake_and_meadow():
    """Grass at sea level (y 62) in x 0-2; water up to y 62 in x 3-5, over
    sand, 1, 3 and 6 blocks deep in rows z 0-2, and 7 deep to the bottom
    in row z 3."""
    blocks = np.zeros((10, 4, 6), dtype=np.uint8)  # y_min 56: layer 6 is y 62
    blocks[:6, :, :3] = STONE
    blocks[6, :, :3] = GRASS
    blocks[:7, :, 3:] = WATER
    for z, floor in enumerate((5, 3, 0)):
        blocks[: floor + 1, z, 3:] = SAND
    return blocks


def test_top_down_colours_land_and_water_by_depth():
    image = top_down(lake_and_meadow(), y_min=56, sea_level=62)
    assert image.shape == (4, 6, 3) and image.dtype == np.uint8
    assert np.array_equal(image[:, :3], np.broadcast_to(flat_colour(GRASS), (4, 3, 3)))
    water = image[:, 3:].astype(int)
    assert np.all(water == water[:, :1])  # rows of one depth are uniform
    assert np.array_equal(water[0, 0], COLOURS[WATER])  # one block deep
    brightness = water[:, 0].sum(axis=1)
    assert np.all(np.diff(brightness) < 0)  # deeper is darker
    assert np.all(np.diff(water[:, 0], axis=0) <= 0)


def test_top_down_ice_snow_and_void():
    blocks = np.zeros((4, 3, 3), dtype=np.uint8)
    blocks[:2] = WATER
    blocks[2, 0] = ICE
    blocks[2, 1] = SNOW
    blocks[2, 2] = ICE
    blocks[:, 2, 2] = AIR
    image = top_down(blocks, y_min=60, sea_level=62)
    assert np.array_equal(image[0, 0], flat_colour(ICE))
    assert np.array_equal(image[1, 0], flat_colour(SNOW))  # (1, 1) sees the void
    assert image[2, 2].tolist() == [0, 0, 0]


def test_top_down_lights_from_the_north_west_and_tints_by_height():
    x = np.arange(9)
    ridge = 4 - np.abs(x - 4)  # highest in the middle column
    y = np.arange(8)[:, None, None]
    blocks = np.where(y <= ridge[None, None, :] + 1, STONE, AIR).astype(np.uint8)
    blocks = np.repeat(blocks, 5, axis=1)
    image = top_down(blocks, y_min=0, sea_level=3).astype(int)
    west_flank, east_flank = image[2, 2].sum(), image[2, 6].sum()
    assert west_flank > east_flank  # the flank facing west faces the light

    meadow = np.zeros((3, 4, 4), dtype=np.uint8)
    meadow[:2] = STONE
    meadow[1] = GRASS
    at_sea = top_down(meadow, y_min=61, sea_level=62)
    high = top_down(meadow, y_min=61 + 40, sea_level=62)
    low = top_down(meadow, y_min=61 - 40, sea_level=62)
    assert np.array_equal(at_sea[0, 0], flat_colour(GRASS))
    assert np.all(high[0, 0] > at_sea[0, 0]) and np.all(low[0, 0] < at_sea[0, 0])


def test_top_down_shades_overhangs():
    blocks = np.zeros((5, 1, 2), dtype=np.uint8)
    blocks[:3] = STONE
    blocks[4] = STONE  # x 0: a roof of stone over a block of air
    blocks[3, 0, 1] = STONE  # x 1: stone up to the same top, no air
    image = top_down(blocks, y_min=0, sea_level=4).astype(float)
    assert np.allclose(image[0, 0], image[0, 1] * OVERHANG_SHADE, atol=0.5)


@given(regions)
def test_column_surface_matches_reference(blocks):
    top, depth = _surface(blocks)
    want_top, want_depth = naive_surface(blocks)
    assert np.array_equal(top, want_top) and np.array_equal(depth, want_depth)


@given(regions)
def test_top_down_promises(blocks):
    image = top_down(blocks)
    assert image.shape == (*blocks.shape[1:], 3) and image.dtype == np.uint8
    assert np.array_equal(top_down(blocks), image)


# ------------------------------------------------------------- cross_section


def test_cross_section_shows_caves_and_sky():
    blocks = np.zeros((8, 2, 5), dtype=np.uint8)
    blocks[:5] = STONE
    blocks[5] = GRASS
    blocks[2:4, 1, 1:3] = AIR  # a cave under the meadow, only in row z 1
    blocks[6, 1, 4] = WATER
    image = cross_section(blocks, 1, y_min=-64)
    assert image.shape == (8, 5, 3) and image.dtype == np.uint8
    assert np.all(image[:2, :4] == SKY_COLOUR)  # row 0 is the top layer
    assert np.all(image[0, 4] == SKY_COLOUR) and np.array_equal(image[1, 4], COLOURS[WATER])
    assert np.all(image[2] == COLOURS[GRASS])
    assert np.all(image[4:6, 1:3] == CAVE_COLOUR)
    assert np.all(image[7] == COLOURS[STONE])
    solid_row = cross_section(blocks, 0)
    assert np.all(solid_row[4:6, 1:3] == COLOURS[STONE])
    assert np.array_equal(cross_section(blocks, 1, y_min=100), image)


@given(regions, st.data())
def test_cross_section_keeps_block_colours(blocks, data):
    z = data.draw(st.integers(0, blocks.shape[1] - 1))
    image = cross_section(blocks, z)
    layer = blocks[::-1, z]
    assert image.shape == (*layer.shape, 3)
    assert np.array_equal(image[layer != AIR], COLOURS[layer[layer != AIR]])
    air = image[layer == AIR]
    assert np.all((air == SKY_COLOUR).all(axis=1) | (air == CAVE_COLOUR).all(axis=1))


# --------------------------------------------------------------- greedy_mesh


def test_single_block_and_box_give_six_rectangles():
    block = np.zeros((3, 3, 3), dtype=np.uint8)
    block[1, 1, 1] = STONE
    mesh = greedy_mesh(block)
    assert isinstance(mesh, VoxelMesh)
    assert mesh.vertices.shape == (24, 3) and mesh.vertices.dtype == np.float64
    assert mesh.faces.shape == (12, 3) and mesh.faces.dtype == np.int64
    assert mesh.face_colours.shape == (12, 4) and mesh.face_colours.dtype == np.uint8
    assert np.all(mesh.face_colours == [*COLOURS[STONE], 255])

    box = np.full((1, 2, 3), DIRT, dtype=np.uint8)  # 3 wide (x), 2 deep (z), 1 high
    assert len(_quads(box)) == 6 and len(greedy_mesh(box).faces) == 12
    assert len(_quads(np.full((4, 4, 4), STONE, dtype=np.uint8))) == 6


def test_different_ids_do_not_merge():
    pair = np.array([[[STONE, DIRT]]], dtype=np.uint8)
    mesh = greedy_mesh(pair)
    assert len(mesh.faces) == 20  # 5 rectangles each, none shared
    colours, counts = np.unique(mesh.face_colours[:, :3], axis=0, return_counts=True)
    assert counts.tolist() == [10, 10]
    assert {tuple(c) for c in colours.tolist()} == {tuple(COLOURS[STONE]), tuple(COLOURS[DIRT])}
    assert len(greedy_mesh(np.array([[[STONE, STONE]]], dtype=np.uint8)).faces) == 12


def test_world_coordinates():
    blocks = np.zeros((2, 3, 4), dtype=np.uint8)
    blocks[1, 2, 3] = STONE
    mesh = greedy_mesh(blocks, y_min=-64, origin=(32, -16))
    assert mesh.vertices.min(axis=0).tolist() == [35.0, -63.0, -14.0]
    assert mesh.vertices.max(axis=0).tolist() == [36.0, -62.0, -13.0]


@pytest.mark.parametrize("layered", [False, True])
def test_box_is_watertight_with_outward_normals(layered):
    blocks = np.zeros((5, 4, 6), dtype=np.uint8)
    blocks[1:4, 1:3, 1:5] = STONE
    if layered:
        blocks[3, 1:3, 1:5] = GRASS
    mesh = greedy_mesh(blocks)
    solid = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
    solid.merge_vertices()
    assert solid.is_watertight and solid.is_winding_consistent
    assert solid.volume == pytest.approx(3 * 2 * 4)
    assert np.allclose(solid.center_mass, [3.0, 2.5 - 64.0, 2.0])


@given(regions, st.integers(-100, 100), st.integers(-100, 100), st.integers(-100, 100))
def test_rectangles_cover_exactly_the_exposed_faces(blocks, y_min, x0, z0):
    quads = _quads(blocks)
    painted = paint(quads, blocks.shape)
    for key, faces in naive_faces(blocks).items():
        assert np.array_equal(painted[key], faces), key

    mesh = greedy_mesh(blocks, y_min=y_min, origin=(x0, z0))
    assert len(mesh.faces) == 2 * len(quads) == len(mesh.face_colours)
    normals, areas = triangle_normals(mesh)
    assert areas.sum() == pytest.approx(naive_face_count(blocks))
    assert np.allclose(np.abs(normals).max(axis=1), 1.0)  # axis-aligned

    behind, front = sides(mesh, blocks, y_min, (x0, z0))
    water = mesh.face_colours[:, 3] == WATER_ALPHA
    assert np.all(behind[water] == WATER) and np.all(front[water] == AIR)
    lava = behind == LAVA
    assert np.all(SOLID[behind[~water & ~lava]]) and not np.any(SOLID[front[~water]])
    assert np.isin(front[lava], [AIR, WATER]).all()
    assert np.all(mesh.face_colours[~water, 3] == 255)
    assert np.array_equal(mesh.face_colours[:, :3], COLOURS[behind])

    # The faces of solid blocks close around them (lava's are open where it
    # meets a solid block).
    volume = signed_volume(mesh.vertices, mesh.faces[SOLID[behind]])
    assert volume == pytest.approx(np.count_nonzero(SOLID[blocks]))


def test_water_surface_faces_only_air():
    blocks = np.zeros((4, 5, 5), dtype=np.uint8)
    blocks[:3] = STONE
    blocks[1:3, 2, 2] = WATER  # a pool, two deep, open to the sky
    blocks[1, 1, 3] = WATER  # a pocket of water inside the stone
    mesh = greedy_mesh(blocks)
    water = mesh.face_colours[:, 3] == WATER_ALPHA
    assert np.count_nonzero(water) == 2
    normals, areas = triangle_normals(mesh)
    assert np.allclose(normals[water], [0.0, 1.0, 0.0]) and areas[water].sum() == 1.0
    assert np.all(mesh.face_colours[water, :3] == COLOURS[WATER])

    sealed = blocks.copy()
    sealed[3, 2, 2] = STONE
    assert not np.any(greedy_mesh(sealed).face_colours[:, 3] == WATER_ALPHA)


def test_air_only_gives_an_empty_mesh():
    mesh = greedy_mesh(np.zeros((2, 2, 2), dtype=np.uint8))
    assert mesh.vertices.shape == (0, 3) and mesh.faces.shape == (0, 3)
    assert mesh.face_colours.shape == (0, 4)


# ---------------------------------------------------------------------- GLB


def test_glb_round_trip(tmp_path):
    blocks = random_region(7, (5, 6, 7))
    mesh = greedy_mesh(blocks, y_min=-64, origin=(16, 32))
    target = tmp_path / "sub" / "region.glb"
    assert write_voxel_glb(target, mesh) == target
    scene = trimesh.load(target, process=False)
    water = mesh.face_colours[:, 3] == WATER_ALPHA
    assert water.any() and not water.all()
    for name, chosen, mode in (("blocks", ~water, "OPAQUE"), ("water", water, "BLEND")):
        loaded = scene.geometry[name]
        assert loaded.visual.material.alphaMode == mode
        colours = loaded.visual.vertex_attributes["color"][loaded.faces[:, 0]]
        assert np.array_equal(colours, mesh.face_colours[chosen])
        move, _ = scene.graph[name]  # the node places the part in the world
        placed = loaded.vertices + move[:3, 3]
        assert np.allclose(placed[loaded.faces], mesh.vertices[mesh.faces[chosen]])
    assert sorted(p.name for p in target.parent.iterdir()) == ["region.glb"]


@pytest.mark.parametrize("origin", [(20_000_001, 7), (-(2**30), 2**30 - 64)])
def test_glb_far_from_the_centre_keeps_every_face(tmp_path, origin):
    # float32 vertices at world coordinates snapped corners together past
    # 2**24 (zero-area faces); kept relative to the region, they are exact.
    blocks = random_region(3, (6, 7, 8))
    mesh = greedy_mesh(blocks, y_min=-64, origin=origin)
    target = write_voxel_glb(tmp_path / "far.glb", mesh)
    scene = trimesh.load(target, process=False)
    water = mesh.face_colours[:, 3] == WATER_ALPHA
    for name, chosen in (("blocks", ~water), ("water", water)):
        if not chosen.any():
            continue
        loaded = scene.geometry[name]
        move, _ = scene.graph[name]
        placed = loaded.vertices.astype(np.float64) + move[:3, 3]
        assert np.array_equal(placed[loaded.faces], mesh.vertices[mesh.faces[chosen]])
        assert (loaded.area_faces > 0).all()


def test_glb_without_water_has_one_opaque_mesh(tmp_path):
    target = write_voxel_glb(tmp_path / "stone.glb", greedy_mesh(np.ones((2, 2, 2), np.uint8)))
    scene = trimesh.load(target, process=False)
    assert list(scene.geometry) == ["blocks"]
    assert scene.geometry["blocks"].visual.material.alphaMode == "OPAQUE"


# --------------------------------------------------------------- bad inputs


def test_bad_inputs_name_the_parameter(tmp_path):
    good = np.zeros((2, 2, 2), dtype=np.uint8)
    good[0] = STONE
    for function in (top_down, greedy_mesh, lambda b: cross_section(b, 0)):
        with pytest.raises(ValueError, match="blocks"):
            function(np.zeros((2, 2), dtype=np.uint8))
        with pytest.raises(ValueError, match="blocks"):
            function(np.zeros((0, 2, 2), dtype=np.uint8))
        with pytest.raises(TypeError, match=r"blocks.*astype|blocks.*uint8"):
            function(good.astype(np.float64))
        with pytest.raises(ValueError, match="blocks"):
            function(np.full((1, 1, 1), len(PALETTE), dtype=np.uint8))
    for z in (2, -1):
        with pytest.raises(ValueError, match="z"):
            cross_section(good, z)
    with pytest.raises(TypeError, match="z"):
        cross_section(good, 1.0)
    with pytest.raises(TypeError, match="y_min"):
        top_down(good, y_min=1.5)
    with pytest.raises(TypeError, match="sea_level"):
        top_down(good, sea_level="62")
    with pytest.raises(TypeError, match="y_min"):
        greedy_mesh(good, y_min=None)
    with pytest.raises(ValueError, match="origin"):
        greedy_mesh(good, origin=(1, 2, 3))
    with pytest.raises(TypeError, match="origin"):
        greedy_mesh(good, origin=(1, 2.5))

    mesh = greedy_mesh(good)
    with pytest.raises(ValueError, match="path"):
        write_voxel_glb(tmp_path / "region.obj", mesh)
    with pytest.raises(TypeError, match="mesh"):
        write_voxel_glb(tmp_path / "region.glb", (mesh.vertices, mesh.faces))
    with pytest.raises(ValueError, match="mesh"):
        write_voxel_glb(tmp_path / "region.glb", greedy_mesh(np.zeros_like(good)))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("writer", ["voxel glb", "terrain mesh"])
def test_ctrl_c_while_trimesh_imports_is_not_lost(tmp_path, monkeypatch, writer):
    # trimesh's optional imports catch BaseException: a Ctrl-C that came as
    # they ran was swallowed, and the run went on to write its set.
    import signal
    import sys

    from worldgen.io._mesh import to_trimesh
    from worldgen.products._mesh import heightfield_mesh

    (tmp_path / "trimesh").mkdir()
    (tmp_path / "trimesh" / "__init__.py").write_text(
        "import signal\n"
        "try:  # as trimesh imports an optional module\n"
        "    signal.raise_signal(signal.SIGINT)\n"
        "except BaseException as E:\n"
        "    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "trimesh")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        if writer == "voxel glb":
            write_voxel_glb(tmp_path / "r.glb", greedy_mesh(np.ones((1, 1, 1), np.uint8)))
        else:
            to_trimesh(heightfield_mesh(np.zeros((3, 3))))
    assert not (tmp_path / "r.glb").exists()
