"""Height-field meshes and their files."""

import numpy as np
import pytest
import trimesh
from PIL import Image

from worldgen.io import _mesh as mesh_io
from worldgen.io._image import png_bytes
from worldgen.io._mesh import write_mesh
from worldgen.noise import Fractal, Perlin, axis
from worldgen.products._mesh import heightfield_mesh, heightfield_surface
from worldgen.world._shaping import HeightCurve

HEIGHTS = Fractal(Perlin(4), octaves=4).grid(axis(0.0, 33, 0.1), axis(0.0, 21, 0.1), unit=True)
TEXTURE = (np.random.default_rng(2).random((21, 33, 3)) * 255).astype(np.uint8)


def test_counts_layout_and_winding():
    mesh = heightfield_mesh(HEIGHTS, multiplier=10.0, cell_size=2.0)
    h, w = HEIGHTS.shape
    assert mesh.vertices.shape == (w * h, 3) and mesh.faces.shape == (2 * (w - 1) * (h - 1), 3)
    assert np.array_equal(mesh.vertices[w + 2], [4.0, HEIGHTS[1, 2] * 10.0, 2.0])
    t = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
    assert t.is_winding_consistent
    edges = np.sort(t.edges, axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    assert counts.max() == 2  # manifold: no edge shared by more than two faces
    flat = heightfield_mesh(np.zeros((4, 4)))
    t = trimesh.Trimesh(flat.vertices, flat.faces, process=False)
    assert np.allclose(t.face_normals, [0.0, 1.0, 0.0])


def test_normals_and_uvs():
    ramp = np.tile(np.arange(5.0), (4, 1))  # rises toward the east by 1 per cell
    mesh = heightfield_mesh(ramp)
    expected = np.array([-1.0, 1.0, 0.0]) / np.sqrt(2.0)
    assert np.allclose(mesh.normals, expected)
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0)
    assert mesh.uvs[0].tolist() == [0.0, 1.0] and mesh.uvs[-1].tolist() == [1.0, 0.0]


def test_height_curve_keeps_the_sea_flat():
    sea = HeightCurve(((0.0, 0.4), (0.4, 0.4), (1.0, 1.0)))
    mesh = heightfield_mesh(HEIGHTS, multiplier=50.0, curve=sea)
    assert mesh.vertices[:, 1].min() == pytest.approx(20.0)
    low = HEIGHTS.ravel() <= 0.4
    assert np.all(mesh.vertices[low, 1] == 20.0)


def test_level_of_detail_keeps_the_edges():
    full = heightfield_mesh(HEIGHTS)
    lod = heightfield_mesh(HEIGHTS, stride=4)
    assert lod.vertices.shape[0] == 9 * 6  # columns 0,4,...,32 and rows 0,4,...,20
    assert np.array_equal(lod.vertices[0], full.vertices[0])
    assert np.array_equal(lod.vertices[-1], full.vertices[-1])


def test_neighbouring_chunks_share_edge_vertices_and_normals():
    # Two 17-sample-wide chunks overlapping in one column, each made from a
    # window with a one-sample border.
    big = Fractal(Perlin(9), octaves=5).grid(axis(-0.1, 35, 0.1), axis(-0.1, 23, 0.1), unit=True)
    left = heightfield_mesh(big[:, 0:19], multiplier=20.0, border=True)
    right = heightfield_mesh(big[:, 16:35], multiplier=20.0, border=True)
    w = 17
    edge_left = np.arange(w - 1, 21 * w, w)  # last column of the left chunk
    edge_right = np.arange(0, 21 * w, w)  # first column of the right chunk
    shift = np.array([16.0, 0.0, 0.0])
    assert np.array_equal(left.vertices[edge_left], right.vertices[edge_right] + shift)
    assert np.array_equal(left.normals[edge_left], right.normals[edge_right])
    whole = heightfield_mesh(big, multiplier=20.0, border=True)
    assert np.array_equal(
        whole.normals.reshape(21, 33, 3)[:, 16], right.normals.reshape(21, 17, 3)[:, 0]
    )


@pytest.mark.parametrize("suffix", ["glb", "obj"])
def test_a_texture_encoded_already_makes_the_same_files(tmp_path, suffix):
    # The texture's PNG bytes given with it (encoded once for a picture
    # written beside the mesh) are embedded or written as they are: the
    # same files as the texture encoded here.
    surface = heightfield_surface(HEIGHTS, multiplier=8.0)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain = write_mesh(tmp_path / "a" / f"t.{suffix}", surface, texture=TEXTURE)
    given = write_mesh(
        tmp_path / "b" / f"t.{suffix}", surface, texture=TEXTURE, texture_png=png_bytes(TEXTURE)
    )
    assert [p.name for p in plain] == [p.name for p in given]
    for a, b in zip(plain, given):
        assert a.read_bytes() == b.read_bytes()
    with pytest.raises(ValueError, match="texture_png"):
        write_mesh(tmp_path / f"u.{suffix}", surface, texture_png=png_bytes(TEXTURE))


@pytest.mark.parametrize("suffix", ["glb", "obj", "ply", "stl"])
def test_exported_files_load_back_with_the_same_geometry(tmp_path, suffix):
    mesh = heightfield_mesh(HEIGHTS, multiplier=8.0, cell_size=0.5)
    files = write_mesh(tmp_path / f"terrain.{suffix}", mesh, texture=TEXTURE)
    back = trimesh.load(files[0], force="mesh", process=suffix == "stl")
    assert len(back.faces) == len(mesh.faces)
    if suffix == "stl":
        assert len(back.vertices) == len(mesh.vertices)  # after merging
        assert np.allclose(
            np.sort(back.vertices, axis=0), np.sort(mesh.vertices, axis=0), atol=1e-4
        )
        return
    assert np.allclose(back.vertices, mesh.vertices, atol=1e-5)
    assert np.array_equal(back.faces, mesh.faces)
    if suffix in ("glb", "obj"):
        assert np.allclose(back.visual.uv, mesh.uvs, atol=1e-6)
        image = (
            back.visual.material.baseColorTexture if suffix == "glb" else back.visual.material.image
        )
        assert np.array_equal(np.asarray(image.convert("RGB")), TEXTURE)
    if suffix == "obj":
        assert sorted(f.name for f in files) == [
            "terrain.mtl",
            "terrain.obj",
            "terrain_texture.png",
        ]
    if suffix == "ply":
        assert back.visual.vertex_colors.shape == (len(mesh.vertices), 4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"heights": np.zeros(5)}, "heights must be a 2-D array"),
        ({"heights": np.full((3, 3), np.nan)}, "heights must be finite"),
        ({"heights": np.zeros((3, 3)), "cell_size": 0.0}, "cell_size must be a finite number > 0"),
        ({"heights": np.zeros((3, 3)), "stride": 0}, "stride must be an integer from 1"),
        ({"heights": np.zeros((3, 3)), "border": True}, "at least 4 samples each way"),
        ({"heights": np.ones((3, 3)), "multiplier": 1e308 * 10}, "multiplier must be finite"),
        ({"heights": np.full((3, 3), 1e300), "multiplier": 1e10}, "multiplier overflows"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        heightfield_mesh(**kwargs)


def test_unknown_mesh_format_writes_nothing(tmp_path):
    with pytest.raises(ValueError, match=r"mesh file suffix must be one of .glb, .obj, .ply, .stl"):
        write_mesh(tmp_path / "terrain.fbx", heightfield_mesh(np.zeros((3, 3))))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("shape", "stride", "textured"),
    [((3, 4), 1, True), ((37, 53), 2, True), ((40, 31), 1, False), ((40, 31), 3, True)],
)
def test_glb_is_the_bytes_trimesh_writes(tmp_path, monkeypatch, shape, stride, textured):
    # Written here a band of rows at a time (bands of 7 rows, so that a mesh
    # has several); trimesh's writer is the reference for every byte, its
    # texture encoded by the PNG encoder of worldgen.io (trimesh asks Pillow).
    monkeypatch.setattr(mesh_io, "BAND_ROWS", 7)
    monkeypatch.setattr(Image.Image, "save", lambda image, f, **_: f.write(png_bytes(image)))
    rng = np.random.default_rng(sum(shape))
    heights = rng.random(shape)
    sea = HeightCurve(((0.0, 0.4), (0.4, 0.4), (1.0, 1.0)))
    options = {"multiplier": 23.0, "curve": sea, "stride": stride}
    texture = rng.integers(0, 256, (*shape, 3), dtype=np.uint8) if textured else None
    expected = mesh_io.to_trimesh(heightfield_mesh(heights, **options), texture).export(
        file_type="glb"
    )
    for mesh in (heightfield_mesh(heights, **options), heightfield_surface(heights, **options)):
        (path,) = write_mesh(tmp_path / "m.glb", mesh, texture=texture)
        assert path.read_bytes() == expected


@pytest.mark.parametrize("textured", [True, False])
def test_obj_is_written_band_by_band_as_trimesh_reads_it(tmp_path, monkeypatch, textured):
    # An OBJ of a surface, written a band of 7 rows at a time (each band's
    # v, vt and vn lines, then the faces), reads back as the whole mesh's
    # (trimesh's reader): its vertices, unit normals, faces and UVs.
    from trimesh.exchange.obj import load_obj

    monkeypatch.setattr(mesh_io, "BAND_ROWS", 7)
    texture = TEXTURE if textured else None
    mesh = heightfield_mesh(HEIGHTS, multiplier=8.0, cell_size=0.5)
    whole = write_mesh(tmp_path / "whole.obj", mesh, texture=texture)
    banded = write_mesh(
        tmp_path / "banded.obj", heightfield_surface(HEIGHTS, multiplier=8.0, cell_size=0.5),
        texture=texture,
    )  # fmt: skip
    lines = banded[0].read_text().splitlines()
    kinds = [line.split(" ")[0] for line in lines if line[:2] in ("v ", "vn")]
    assert (
        kinds.count("v") == len(mesh.vertices) and kinds[7 * 33] == "vn"
    )  # a band, then its normals
    assert sorted(whole[0].read_text().splitlines()) == sorted(
        line.replace("banded", "whole") for line in lines
    )
    assert [f.name for f in banded] == (
        ["banded.obj", "banded.mtl", "banded_texture.png"] if textured else ["banded.obj"]
    )
    with open(banded[0]) as f:
        (back,) = load_obj(f, resolver=trimesh.resolvers.FilePathResolver(banded[0]))[
            "geometry"
        ].values()
    unit = mesh.normals / np.linalg.norm(mesh.normals, axis=1)[:, None]
    assert np.allclose(back["vertices"], mesh.vertices, rtol=0, atol=1e-8)
    assert np.allclose(back["vertex_normals"], unit, rtol=0, atol=1e-8)
    assert np.array_equal(back["faces"], mesh.faces)
    if textured:
        assert np.allclose(back["visual"].uv, mesh.uvs, rtol=0, atol=1e-8)
        image = back["visual"].material.image
        assert np.array_equal(np.asarray(image.convert("RGB")), TEXTURE)


def test_an_obj_stopped_between_bands_leaves_no_file(tmp_path, monkeypatch):
    # Ctrl-C is heard between bands (trimesh formatted a 2048 x 2048 OBJ in
    # one call of about a minute); nothing is left half-written.
    from worldgen.io import _obj

    monkeypatch.setattr(mesh_io, "BAND_ROWS", 5)
    calls = []
    rows = _obj._rows

    def stop_at_the_fourth(*args):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return rows(*args)

    monkeypatch.setattr(_obj, "_rows", stop_at_the_fourth)
    surface = heightfield_surface(HEIGHTS, multiplier=8.0)
    with pytest.raises(KeyboardInterrupt):
        write_mesh(tmp_path / "m.obj", surface, texture=TEXTURE)
    assert len(calls) == 4 and not any(tmp_path.iterdir())


def test_obj_numbers_are_those_of_python_formatting():
    from worldgen.io import _obj

    rng = np.random.default_rng(7)
    fixed = np.concatenate(
        [rng.normal(0.0, 10.0 ** rng.integers(-9, 9, (200, 1)), (200, 3)),
         [[0.0, -0.0, -1e-12], [5e-9, -5e-9, 123456789.5]]]
    )  # fmt: skip
    # Past fixed point (|x| * 10**8 near 2**63): Python's formatting.
    beyond = np.array([[1e13, -2.5, 0.25]])
    for values in (fixed, beyond):
        text = _obj._rows(values, b"v ").decode().splitlines()
        assert len(text) == len(values)
        for line, row in zip(text, values, strict=True):
            head, *numbers = line.split(" ")
            assert head == "v" and all(len(n.split(".")[1]) == _obj.DECIMALS for n in numbers)
            assert np.allclose([float(n) for n in numbers], row, rtol=1e-15, atol=0.6e-8), line
    # No negative zero from values that round to 0.
    assert _obj._rows(np.array([[-0.0, -1e-12]]), b"v ") == b"v 0.00000000 0.00000000\n"


def test_glb_of_a_surface_below_zero_is_the_bytes_trimesh_writes(tmp_path, monkeypatch):
    # Negative heights and zeros (-0.0 after the multiplier): the ranges in
    # the header are taken before the bands are written, the same values.
    monkeypatch.setattr(mesh_io, "BAND_ROWS", 4)
    monkeypatch.setattr(Image.Image, "save", lambda image, f, **_: f.write(png_bytes(image)))
    heights = np.random.default_rng(2).random((11, 9))
    heights[::3, ::2] = 0.0
    texture = np.zeros((11, 9, 3), np.uint8)
    for options in ({"multiplier": -5.0}, {"multiplier": -5.0, "stride": 4, "cell_size": 0.3}):
        expected = mesh_io.to_trimesh(heightfield_mesh(heights, **options), texture).export(
            file_type="glb"
        )
        (path,) = write_mesh(tmp_path / "m.glb", heightfield_surface(heights, **options),
                             texture=texture)  # fmt: skip
        assert path.read_bytes() == expected


@pytest.mark.parametrize("shape", [(2, 2), (2, 7), (9, 2), (3, 3), (31, 17)])
@pytest.mark.parametrize("cell", [1.0, 0.3, 7.25])
def test_surface_slopes_are_numpy_s_gradient(shape, cell):
    # Made in one compiled pass: the very values of np.gradient.
    heights = np.random.default_rng(shape[0] * shape[1]).random(shape)
    surface = heightfield_surface(heights, multiplier=13.0, cell_size=cell)
    gz, gx = np.gradient(heights * 13.0, cell)
    assert np.array_equal(surface.gx, gx) and np.array_equal(surface.gz, gz)
