"""Big rasters streamed block by block: a COG that GDAL reads back, a tile
pyramid Pillow reads, bounded reads, resume."""

import json

import numpy as np
import pytest
from PIL import Image

from tests.recording import Recording
from worldgen.io import _raster, write_cog, write_tile_pyramid

rasterio = pytest.importorskip("rasterio")
# rasterio multiplies affine transforms with `*`, which affine now warns about.
pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")


def heights(h=300, w=420, seed=1):
    rng = np.random.default_rng(seed)
    return np.cumsum(np.cumsum(rng.standard_normal((h, w)), 0), 1) / 100.0


def test_cog_reads_back_with_rasterio_as_a_cog(tmp_path):
    values = heights()
    source = Recording(values)
    path = write_cog(tmp_path / "h.tif", source, block=128, origin=(1000, -50),
                     metadata={"seed": 7})  # fmt: skip
    assert max(source.reads) <= 128 * 128
    with rasterio.open(path) as src:
        assert src.dtypes == ("float32",) and (src.height, src.width) == values.shape
        assert np.array_equal(src.read(1), values.astype(np.float32))
        assert src.block_shapes == [(128, 128)]
        assert src.overviews(1) == [2, 4]
        assert src.tags(ns="IMAGE_STRUCTURE")["LAYOUT"] == "COG"
        assert src.tags()["seed"] == "7"
        assert src.transform.c == 1000.0 and src.transform.f == 50.0
        assert src.transform.a == 1.0 and src.transform.e == -1.0
        # An overview is the map at half the size, near the mean of 2 x 2 cells.
        half = src.read(1, out_shape=(values.shape[0] // 2, values.shape[1] // 2))
        assert np.abs(half - values[::2, ::2][: half.shape[0], : half.shape[1]]).mean() < 0.5
    assert [p.name for p in tmp_path.iterdir()] == ["h.tif"]


def test_cog_refuses_bad_input_before_writing(tmp_path):
    with pytest.raises(ValueError, match="source must be a non-empty 2-D"):
        write_cog(tmp_path / "a.tif", np.zeros((3, 3, 3)))
    with pytest.raises(ValueError, match="block must be a multiple of 16"):
        write_cog(tmp_path / "a.tif", np.zeros((8, 8)), block=136 + 4)
    with pytest.raises(FileNotFoundError, match="path"):
        write_cog(tmp_path / "missing" / "a.tif", np.zeros((8, 8)))
    bad = np.zeros((40, 40))
    bad[33, 2] = np.nan
    with pytest.raises(ValueError, match="source must be finite"):
        write_cog(tmp_path / "a.tif", bad, block=128)
    assert list(tmp_path.iterdir()) == []


def colours(h=300, w=420):
    rng = np.random.default_rng(3)
    return rng.integers(0, 256, (h, w, 3), dtype=np.uint8)


def test_a_cog_that_did_not_fit_on_the_disk_says_so(tmp_path, monkeypatch):
    """GDAL removes the COG it could not finish and passes on libtiff's
    error ('Write error at scanline 128'): with less free than the COG
    needs, but more than two blocks, that was an internal error."""
    import errno
    import shutil
    from collections import namedtuple

    import rasterio.shutil
    from rasterio._err import CPLE_AppDefinedError

    def write_error(*args, **kwargs):
        raise CPLE_AppDefinedError(1, 1, "TIFFAppendToStrip:Write error at scanline 128")

    values = np.random.default_rng(4).random((400, 400))  # 640 kB staged, compressed or not
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(rasterio.shutil, "copy", write_error)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 500_000, 500_000))
    with pytest.raises(OSError, match=r"No space left on device \(500000 bytes free\)") as caught:
        write_cog(tmp_path / "w.tif", values, block=128)
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(tmp_path / "w.tif")
    assert list(tmp_path.iterdir()) == []
    # With room to spare it is GDAL's error, as it was.
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 0, 10**9))
    with pytest.raises(CPLE_AppDefinedError, match="scanline 128"):
        write_cog(tmp_path / "w.tif", values, block=128)


def test_pyramid_tiles_are_the_map_and_its_halvings(tmp_path):
    rgb = colours()
    source = Recording(rgb)
    tilejson = write_tile_pyramid(tmp_path / "t", source, tile=64)
    assert max(source.reads) <= 64 * 64 * 3
    about = json.loads(tilejson.read_text())
    assert about["tilejson"] == "3.0.0" and about["maxzoom"] == 3 and about["minzoom"] == 0
    top = about["maxzoom"]

    def level(z):
        n = 2**z
        out = np.zeros((n * 64, n * 64, 4), np.uint8)
        for x in range(n):
            for y in range(n):
                path = tmp_path / "t" / str(z) / str(x) / f"{y}.png"
                if path.exists():
                    out[y * 64 : (y + 1) * 64, x * 64 : (x + 1) * 64] = np.asarray(
                        Image.open(path).convert("RGBA")
                    )
        return out

    deepest = level(top)
    assert np.array_equal(deepest[:300, :420, :3], rgb)
    assert (deepest[:300, :420, 3] == 255).all() and (deepest[300:, :, 3] == 0).all()
    for z in range(top - 1, -1, -1):
        child = level(z + 1).astype(np.int64)
        box = child[0::2, 0::2] + child[1::2, 0::2] + child[0::2, 1::2] + child[1::2, 1::2]
        assert np.array_equal(level(z), ((box + 2) // 4).astype(np.uint8)), z


def test_pyramid_resumes_writing_only_the_missing_tiles(tmp_path, monkeypatch):
    rgb = colours(200, 130)
    write_tile_pyramid(tmp_path / "t", rgb, tile=64)
    before = {p: p.read_bytes() for p in sorted((tmp_path / "t").rglob("*.png"))}
    lost = [tmp_path / "t" / "2" / "1" / "2.png", tmp_path / "t" / "1" / "0" / "1.png"]
    for path in lost:
        path.unlink()
    (tmp_path / "t" / "tiles.json").unlink()
    written = []
    real = _raster._write_png
    monkeypatch.setattr(_raster, "_write_png", lambda t, rgba: written.append(t) or real(t, rgba))
    write_tile_pyramid(tmp_path / "t", rgb, tile=64)
    assert sorted(written) == sorted(lost)
    assert {p: p.read_bytes() for p in sorted((tmp_path / "t").rglob("*.png"))} == before
    assert (tmp_path / "t" / "tiles.json").exists()


def test_pyramid_refuses_bad_input(tmp_path):
    # Float RGB was refused as "got 3 bands", which is what it asks for.
    with pytest.raises(ValueError, match=r"source must be uint8 RGB .*, got float64 \(8, 8, 3\)"):
        write_tile_pyramid(tmp_path / "t", np.zeros((8, 8, 3)))
    with pytest.raises(ValueError, match=r"got uint8 \(8, 8, 4\)"):
        write_tile_pyramid(tmp_path / "t", np.zeros((8, 8, 4), np.uint8))
    with pytest.raises(ValueError, match="tile must be a power of two"):
        write_tile_pyramid(tmp_path / "t", np.zeros((8, 8, 3), np.uint8), tile=100)
    with pytest.raises(TypeError, match="source must be an array-like"):
        write_tile_pyramid(tmp_path / "t", "rgb")


def test_pyramid_bounds_follow_the_maps_axes(tmp_path):
    """A map 4 times wider than tall fills the whole width of the deepest
    zoom's square but only its top quarter: east is 180, south the latitude
    a quarter of the way down."""
    import json
    import math

    colour = np.zeros((64, 256, 3), np.uint8)
    about = json.loads(write_tile_pyramid(tmp_path / "p", colour, tile=64).read_text())
    assert about["maxzoom"] == 2
    quarter = math.degrees(math.atan(math.sinh(math.pi * 0.5)))
    assert about["bounds"] == pytest.approx([-180.0, quarter, 180.0, 85.0511287798066])
    tall = json.loads(write_tile_pyramid(tmp_path / "q", colour.transpose(1, 0, 2).copy(),
                                         tile=64).read_text())  # fmt: skip
    assert tall["bounds"] == pytest.approx([-180.0, -85.0511287798066, -90.0, 85.0511287798066])


def test_cog_reads_each_chunk_of_a_chunked_source_once_a_band(tmp_path):
    """A zarr source decodes a whole chunk for any part of it: chunks wider
    than the COG's tiles (--block 8192, tiles of 512) are read whole, once
    a band of rows, not once for every tile they hold (256 times)."""
    values = heights(256, 520)
    source = Recording(values)
    source.chunks = (256, 256)  # as a zarr array's
    write_cog(tmp_path / "h.tif", source, block=128)
    assert len(source.reads) == 2 * 3  # 2 bands of rows, 3 chunks across
    assert max(source.reads) <= 128 * 256
    with rasterio.open(tmp_path / "h.tif") as src:
        assert np.array_equal(src.read(1), values.astype(np.float32))


def test_pyramid_reads_each_chunk_of_a_chunked_source_once_a_row_of_tiles(tmp_path):
    """Chunks wider than a tile (--block 8192, tiles of 256) are read whole
    across, once a row of tiles, not once for every tile (32 x 32 times);
    the tiles are the same."""
    rng = np.random.default_rng(3)
    colour = rng.integers(0, 256, (300, 520, 3), dtype=np.uint8)
    write_tile_pyramid(tmp_path / "plain", colour, tile=64)
    source = Recording(colour)
    source.chunks = (256, 256, 3)  # as a zarr array's
    write_tile_pyramid(tmp_path / "chunked", source, tile=64)
    assert len(source.reads) == 5 * 3  # 5 rows of tiles, 3 chunks across
    assert max(source.reads) <= 64 * 256 * 3
    plain = sorted(p.relative_to(tmp_path / "plain") for p in (tmp_path / "plain").rglob("*.png"))
    for rel in plain:
        assert (tmp_path / "chunked" / rel).read_bytes() == (tmp_path / "plain" / rel).read_bytes()
