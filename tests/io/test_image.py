"""PNG output: exact round trips, atomic writes, clear errors."""

import hashlib
import io
import os

import numpy as np
import pytest
from PIL import Image

from worldgen.io import atomic_output, write_grey_png
from worldgen.io._atomic import atomic_file, recorded_digest
from worldgen.io._image import png_bytes, write_png, write_png_bytes


@pytest.mark.parametrize("bits", [8, 16])
def test_round_trip_equals_quantised_values(tmp_path, bits):
    values = np.random.default_rng(1).random((37, 53))
    path = write_grey_png(tmp_path / "h.png", values, bits=bits)
    with Image.open(path) as image:
        back = np.asarray(image)
    top = 255 if bits == 8 else 65535
    assert back.shape == (37, 53)
    assert np.array_equal(back, np.rint(values * top).astype(back.dtype))


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (np.zeros(5), "2-D"),
        (np.full((2, 2), 1.5), r"within \[0, 1\]"),
        (np.full((2, 2), np.nan), "finite"),
    ],
)
def test_bad_values_write_nothing(tmp_path, values, message):
    with pytest.raises(ValueError, match=message):
        write_grey_png(tmp_path / "h.png", values)
    assert list(tmp_path.iterdir()) == []


def test_failure_inside_atomic_output_leaves_no_file(tmp_path):
    target = tmp_path / "x.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_output(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("interrupted")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.bin"]


def test_atomic_output_writes_through_a_symbolic_link(tmp_path):
    # The link was replaced by a regular file: open(path, "w") writes
    # through it, to the file it leads to, and the link stays.
    real = tmp_path / "elsewhere" / "real.bin"
    real.parent.mkdir()
    real.write_bytes(b"old")
    os.chmod(real, 0o640)
    link = tmp_path / "out" / "x.bin"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(real, link.parent))
    with atomic_output(link) as tmp:
        assert tmp.parent == real.parent  # beside the real file: one file system
        tmp.write_bytes(b"new")
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_bytes() == b"new" and mode(real) == 0o640
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["elsewhere", "out", "real.bin", "x.bin"]
    # A link to a file not there yet makes it, as open(path, "w") does.
    real.unlink()
    write_grey_png(link, np.ones((2, 2)))
    assert link.is_symlink() and real.is_file()
    loop = tmp_path / "loop.bin"
    loop.symlink_to("loop.bin")
    with pytest.raises(OSError, match="loop"), atomic_output(loop) as tmp:
        tmp.write_bytes(b"never")
    assert loop.is_symlink()


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def mode(path) -> int:
    return os.stat(path).st_mode & 0o777


def test_atomic_output_gives_the_permissions_open_gives(tmp_path, umask_027):
    # The files had mkstemp's 0600 until a fix, then 0666 less the umask
    # the process had at import; and a rewrite dropped the file's own mode.
    plain = tmp_path / "plain.bin"
    plain.write_bytes(b"x")
    target = tmp_path / "x.bin"
    with atomic_output(target) as tmp:
        tmp.write_bytes(b"new")
    assert mode(target) == mode(plain) == 0o640
    for kept in (0o600, 0o664):
        os.chmod(target, kept)
        with atomic_output(target) as tmp:
            tmp.write_bytes(b"again")
        assert mode(target) == kept and target.read_bytes() == b"again"


@pytest.mark.parametrize("name", ["a" * 251 + ".png", "é" * 125 + ".png"])
def test_a_file_name_near_the_255_byte_limit_is_written(tmp_path, name):
    target = tmp_path / name
    target.write_bytes(b"old")
    write_grey_png(target, np.ones((2, 3)))
    with Image.open(target) as image:
        assert np.asarray(image).tolist() == [[255] * 3] * 2
    assert [p.name for p in tmp_path.iterdir()] == [name]


@pytest.mark.parametrize("bits", [8, 16])
def test_a_transposed_array_is_written_as_its_copy(tmp_path, bits):
    # A 16-bit PNG of a Fortran-ordered array (heights.T) failed with
    # numpy's "the last axis must be contiguous".
    values = np.random.default_rng(2).random((7, 5)).T
    write_grey_png(tmp_path / "t.png", values, bits=bits)
    write_grey_png(tmp_path / "c.png", values.copy(), bits=bits)
    assert (tmp_path / "t.png").read_bytes() == (tmp_path / "c.png").read_bytes()
    rgb = np.random.default_rng(3).integers(0, 256, (3, 4, 6), np.uint8).transpose(1, 2, 0)
    assert png_bytes(rgb[:, :, :3]) == png_bytes(rgb[:, :, :3].copy())


def test_png_bytes_round_trip_through_pillow_and_refuse_other_arrays():
    rng = np.random.default_rng(5)
    shapes = ((1, 1), (3, 7), (5, 2, 3), (4, 9, 4), (256, 256, 3))
    images = [rng.integers(0, 256, size=shape, dtype=np.uint8) for shape in shapes]
    images.append(rng.integers(0, 65536, size=(6, 5), dtype=np.uint16))
    for image in images:
        made = [png_bytes(image, row_filter=name) for name in ("up", "none")]
        assert made[0] == png_bytes(image.copy())
        assert made[0] != made[1]
        for data in made:
            with Image.open(io.BytesIO(data)) as decoded:
                np.testing.assert_array_equal(np.asarray(decoded), image)
    with pytest.raises(ValueError, match="row_filter"):
        png_bytes(images[0], row_filter="paeth")
    bad = (
        np.zeros((4, 4)),
        np.zeros((4, 4, 2), np.uint8),
        np.zeros((4, 4, 3), np.uint16),
        np.zeros((0, 3), np.uint8),
        np.zeros(4, np.uint8),
    )
    for array in bad:
        with pytest.raises(ValueError, match="uint8"):
            png_bytes(array)


def _png_reference(image: np.ndarray) -> bytes:
    """The PNG as it was first made here: each chunk joined in one string
    (up filter, libdeflate level 1)."""
    import struct
    import zlib

    import deflate

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    wide = image.dtype == np.uint16
    height, width = image.shape[:2]
    flat = np.ascontiguousarray(image.astype(">u2") if wide else image).reshape(height, -1)
    flat = flat.view(np.uint8).astype(np.int16)
    rows = np.concatenate([np.full((height, 1), 2), np.diff(flat, axis=0, prepend=0) % 256], 1)
    colour = {1: 0, 3: 2, 4: 6}[1 if image.ndim == 2 else image.shape[2]]
    header = struct.pack(">IIBBBBB", width, height, 16 if wide else 8, colour, 0, 0, 0)
    data = deflate.zlib_compress(rows.astype(np.uint8), 1)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def test_png_files_are_the_bytes_of_the_reference_encoding(tmp_path):
    # write_png writes the IDAT chunk in pieces, its CRC taken on the way.
    rng = np.random.default_rng(8)
    images = [
        rng.integers(0, 256, size=(37, 29, 3), dtype=np.uint8),
        rng.integers(0, 256, size=(1, 1), dtype=np.uint8),
        rng.integers(0, 256, size=(16, 5, 4), dtype=np.uint8),
        rng.integers(0, 65536, size=(9, 70), dtype=np.uint16),
    ]
    for k, image in enumerate(images):
        expected = _png_reference(image)
        assert png_bytes(image) == expected
        path = write_png(tmp_path / f"{k}.png", image)
        assert path.read_bytes() == expected
        assert write_png_bytes(tmp_path / f"{k}b.png", expected).read_bytes() == expected


def test_atomic_file_writes_buffers_from_their_memory_and_keeps_their_digest(tmp_path):
    values = np.arange(3 * 2**18, dtype=np.float32).reshape(-1, 3)  # pieces of 1 MiB, and some
    target = tmp_path / "a.bin"
    with atomic_file(target) as out:
        out.write(b"head")
        out.write(values)
        out.write(memoryview(b"tail"))
        with pytest.raises(ValueError, match="contiguous"):
            out.write(values[:, 1])
    data = target.read_bytes()
    assert data == b"head" + values.tobytes() + b"tail"
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]
    digest = hashlib.sha256(data).hexdigest()
    assert recorded_digest(target.stat()) == digest
    assert recorded_digest(target.stat()) is None  # given once

    with atomic_file(target) as out:
        out.write(b"one")
    stat = target.stat()
    with open(target, "r+b") as handle:  # changed since: same size, later time
        handle.write(b"two")
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert recorded_digest(target.stat()) is None


def test_failure_inside_atomic_file_leaves_the_old_file(tmp_path):
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_file(target) as out:
        out.write(b"new")
        raise RuntimeError("stop")
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]
    assert target.read_bytes() == b"old"


@pytest.mark.parametrize("bits", [8, 16])
def test_grey_png_is_png_bytes_of_the_rounded_values(tmp_path, bits):
    # Quantised, filtered and split into bytes in one compiled pass: the
    # bytes png_bytes makes of rint(values * top), halves rounded to even.
    top = 255 if bits == 8 else 65535
    rng = np.random.default_rng(bits)
    values = rng.random((23, 31))
    values[3, :9] = (np.arange(9) + 0.5) / top  # halves: to even
    values[5] = 0.0
    values[6] = 1.0
    values[7, ::2] = np.nextafter(1.0, 0.0)
    for array in (values, values.T, values[:1], values[:, :1]):
        path = write_grey_png(tmp_path / "g.png", array, bits=bits)
        pixels = np.rint(array * top).astype(np.uint8 if bits == 8 else np.uint16)
        assert path.read_bytes() == png_bytes(pixels)
