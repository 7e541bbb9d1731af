"""Chunk store and World: exact round trips, refusal of other worlds, survival
of a killed writer, and parallel generation that equals serial."""

import hashlib
import itertools
import os
import pathlib
import queue
import signal
import sqlite3
import struct
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.voxel.store_writer import WORLD_KEY, Y_MIN, Y_SIZE, fake_chunk, order
from worldgen.voxel._blocks import AIR
from worldgen.voxel._chunk import CHUNK, Chunk, chunk_range
from worldgen.voxel._store import (
    BATCH,
    ChunkStore,
    CorruptChunkError,
    StoreMismatchError,
    World,
)

WRITER = pathlib.Path(__file__).with_name("store_writer.py")
KEY = hashlib.sha256(b"fake generator, seed 1").hexdigest()


class CountingGenerator:
    """``fake_chunk``, counting calls per chunk; slower for some chunks, so
    that threads finish out of order."""

    def __init__(self, jitter: float = 0.0):
        self.calls: dict[tuple[int, int], int] = {}
        self.jitter = jitter
        self._lock = threading.Lock()

    def __call__(self, cx, cz):
        with self._lock:
            self.calls[cx, cz] = self.calls.get((cx, cz), 0) + 1
        if self.jitter:
            time.sleep(self.jitter * ((cx * 7 + cz * 13) % 5))
        return fake_chunk(cx, cz)

    @property
    def total(self) -> int:
        return sum(self.calls.values())


def naive_chunk_range(x, z, radius):
    """Every chunk near enough, by integer arithmetic on a generous box."""
    found = []
    span = range(-(radius // CHUNK) - 3, radius // CHUNK + 3)
    for cx in (x // CHUNK + d for d in span):
        for cz in (z // CHUNK + d for d in span):
            dx = max(CHUNK * cx - x, 0, x - CHUNK * (cx + 1))
            dz = max(CHUNK * cz - z, 0, z - CHUNK * (cz + 1))
            if dx * dx + dz * dz <= radius * radius:
                found.append((dx * dx + dz * dz, cx, cz))
    return [(cx, cz) for _, cx, cz in sorted(found)]


# chunk_range


def test_chunk_range_hand_checked():
    assert chunk_range(8, 8, 0) == [(0, 0)]
    assert chunk_range(0, 0, 0) == [(-1, -1), (-1, 0), (0, -1), (0, 0)]
    edges = [(-1, 0), (0, -1), (0, 1), (1, 0)]
    corners = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    assert chunk_range(8, 8, 8) == [(0, 0), *edges]
    # Corners are sqrt(8^2 + 8^2) = 11.31 blocks away.
    assert chunk_range(8, 8, 11) == [(0, 0), *edges]
    assert chunk_range(8, 8, 12) == [(0, 0), *edges, *corners]
    assert chunk_range(15.5, 0.5, 1) == [(0, 0), (0, -1), (1, 0), (1, -1)]
    assert chunk_range(-1, -17, 0.5) == [(-1, -2)]


@given(
    st.integers(-200, 200),
    st.integers(-200, 200),
    st.integers(0, 70),
)
def test_chunk_range_equals_naive_version(x, z, radius):
    assert chunk_range(x, z, radius) == naive_chunk_range(x, z, radius)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((0, 0, -1), ValueError, "radius"),
        ((0, 0, float("nan")), ValueError, "radius"),
        ((0, 0, 10**6), ValueError, "radius"),
        (("0", 0, 1), TypeError, "x must"),
        ((0, None, 1), TypeError, "z must"),
        ((True, 0, 1), TypeError, "x must"),
        ((float("inf"), 0, 1), ValueError, "x must"),
    ],
)
def test_chunk_range_rejects_bad_arguments(args, error, match):
    with pytest.raises(error, match=match):
        chunk_range(*args)


# Chunk


def test_chunk_checks_its_arrays():
    blocks, heights = np.zeros((4, 16, 16), np.uint8), np.zeros((16, 16), np.int16)
    with pytest.raises(ValueError, match=r"blocks must have dtype uint8.*astype"):
        Chunk(0, 0, blocks.astype(np.int32), heights)
    with pytest.raises(ValueError, match=r"blocks must have shape \(Y, 16, 16\)"):
        Chunk(0, 0, np.zeros((4, 16, 8), np.uint8), heights)
    with pytest.raises(ValueError, match="Y >= 1"):
        Chunk(0, 0, np.zeros((0, 16, 16), np.uint8), heights)
    with pytest.raises(TypeError, match="heights must be a numpy array"):
        Chunk(0, 0, blocks, heights.tolist())
    with pytest.raises(ValueError, match="heights must have dtype int16"):
        Chunk(0, 0, blocks, heights.astype(np.int64))
    with pytest.raises(ValueError, match=r"heights must have shape \(16, 16\)"):
        Chunk(0, 0, blocks, np.zeros((16, 15), np.int16))
    with pytest.raises(TypeError, match="cz must be an integer"):
        Chunk(0, 1.0, blocks, heights)
    with pytest.raises(ValueError, match="cx must be an integer"):
        Chunk(2**31, 0, blocks, heights)
    assert type(Chunk(np.int64(3), 0, blocks, heights).cx) is int


def test_same_compares_coordinates_and_bytes():
    chunk = fake_chunk(1, 2)
    assert chunk.same(fake_chunk(1, 2))
    assert not chunk.same(fake_chunk(2, 1))
    assert not chunk.same(Chunk(2, 2, chunk.blocks, chunk.heights))
    changed = chunk.blocks.copy()
    changed[5, 3, 1] ^= 1
    assert not chunk.same(Chunk(1, 2, changed, chunk.heights))
    assert not chunk.same(Chunk(1, 2, chunk.blocks[:-1], chunk.heights))
    assert not chunk.same("chunk")


# ChunkStore


def test_round_trip_is_exact(tmp_path):
    chunks = [fake_chunk(cx, cz) for cx, cz in [(0, 0), (-5, 7), (2**31 - 1, -(2**31))]]
    tall = Chunk(3, 3, np.arange(16 * 16 * 300).astype(np.uint8).reshape(300, 16, 16),
                 np.arange(-128, 128, dtype=np.int16).reshape(16, 16))  # fmt: skip
    with ChunkStore(tmp_path / "w.db", KEY) as store:
        store.put(chunks[0])
        assert store.put_many([*chunks[1:], tall]) == 3
        for chunk in [*chunks, tall]:
            back = store.get(chunk.cx, chunk.cz)
            assert back.same(chunk)
            assert back.blocks.tobytes() == chunk.blocks.tobytes()
            assert back.heights.tobytes() == chunk.heights.tobytes()
            assert back.blocks.dtype == np.uint8 and back.heights.dtype == np.int16
        back.blocks[0, 0, 0] = 1  # decoded arrays are the caller's to change
        assert store.get(1, 1) is None


def test_has_missing_len_keys_and_reopening(tmp_path):
    path = tmp_path / "sub" / "w.db"
    coords = [(0, 0), (1, 0), (0, -1), (-3, 2)]
    with ChunkStore(path, KEY, describe="seed=1") as store:
        assert len(store) == 0 and store.keys() == []
        store.put_many(fake_chunk(cx, cz) for cx, cz in coords)
        store.put(fake_chunk(0, 0))  # replaces, does not add
        assert len(store) == 4
        assert store.has(1, 0) and not store.has(0, 1)
        assert store.missing([(5, 5), (1, 0), (0, 1), (-3, 2)]) == [(5, 5), (0, 1)]
        assert store.keys() == sorted(coords)
    with ChunkStore(path, KEY, describe="ignored on reopening") as store:
        assert store.describe == "seed=1" and store.world_key == KEY
        assert store.keys() == sorted(coords)
        assert all(store.get(cx, cz).same(fake_chunk(cx, cz)) for cx, cz in coords)
        assert store.delete(1, 0) and not store.delete(1, 0)
        assert len(store) == 3


def test_store_uses_wal_and_full_sync(tmp_path):
    path = tmp_path / "w.db"
    with ChunkStore(path, KEY) as store:
        store.put(fake_chunk(0, 0))
        assert store._conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        other = sqlite3.connect(path)
        try:
            assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            other.close()


def test_store_refuses_another_world(tmp_path):
    path = tmp_path / "w.db"
    with ChunkStore(path, KEY, describe="seed=1, size=big") as store:
        store.put(fake_chunk(0, 0))
    other = hashlib.sha256(b"another config").hexdigest()
    with pytest.raises(StoreMismatchError) as info:
        ChunkStore(path, other)
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert str(path) in message
    assert KEY[:12] in message and other[:12] in message and KEY not in message
    assert "seed=1, size=big" in message and "another file" in message
    with ChunkStore(path, KEY) as store:
        assert store.get(0, 0).same(fake_chunk(0, 0))


def test_store_refuses_files_that_are_not_stores(tmp_path):
    text = tmp_path / "notes.db"
    text.write_text("not a database, but long enough to have a header " * 10)
    with pytest.raises(ValueError, match=r"notes\.db is not a worldgen chunk store"):
        ChunkStore(text, KEY)
    foreign = sqlite_file(tmp_path / "foreign.db", "CREATE TABLE things (a)")
    with pytest.raises(ValueError, match=r"foreign\.db is an SQLite file but not"):
        ChunkStore(foreign, KEY)


def test_a_store_under_a_file_is_named(tmp_path):
    # The folder's mkdir failed with a bare "[Errno 17] File exists".
    afile = tmp_path / "afile"
    afile.write_text("mine")
    with pytest.raises(OSError, match=r"afile/x\.db cannot be made: a folder above it is a file"):
        ChunkStore(afile / "x.db", KEY)
    assert afile.read_text() == "mine"


def sqlite_file(path, *statements):
    """A new SQLite file made by someone else, with ``statements`` run."""
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path


def test_store_checks_its_arguments(tmp_path):
    with pytest.raises(TypeError, match="world_key must be a string"):
        ChunkStore(tmp_path / "w.db", b"key")
    with pytest.raises(ValueError, match="world_key must have 1 to 256"):
        ChunkStore(tmp_path / "w.db", "")
    with ChunkStore(tmp_path / "w.db", KEY) as store:
        with pytest.raises(TypeError, match="chunks must be Chunk objects"):
            store.put(np.zeros((4, 16, 16), np.uint8))
        with pytest.raises(TypeError, match="cx must be an integer"):
            store.get(0.5, 0)
        with pytest.raises(TypeError, match=r"coords must hold \(cx, cz\) pairs"):
            store.missing([(0, 0, 0)])
    with pytest.raises(ValueError, match="is closed"):
        store.get(0, 0)
    store.close()


def test_corrupt_rows_raise_clear_errors(tmp_path):
    path = tmp_path / "w.db"
    with ChunkStore(path, KEY) as store:
        store.put_many([fake_chunk(3, -4), fake_chunk(5, 6), fake_chunk(7, 8)])
        db = store._conn()
        db.execute("UPDATE chunks SET data = ? WHERE cx = 3", (b"\x78\x9c garbage",))
        db.execute("UPDATE chunks SET ysize = ysize + 1 WHERE cx = 5")
        db.execute("UPDATE chunks SET dtype = 'float64' WHERE cx = 7")
        with pytest.raises(CorruptChunkError, match=r"chunk \(3, -4\) in .*w\.db is corrupt: zlib"):
            store.get(3, -4)
        with pytest.raises(ValueError, match=r"chunk \(5, 6\) .* bytes, expected"):
            store.get(5, 6)
        with pytest.raises(ValueError, match=r"chunk \(7, 8\) .* unknown block dtype"):
            store.get(7, 8)
        assert store.delete(3, -4) and store.get(3, -4) is None


def test_a_failing_batch_stores_nothing(tmp_path):
    def chunks():
        yield fake_chunk(0, 0)
        yield fake_chunk(1, 0)
        raise RuntimeError("generator failed")

    with ChunkStore(tmp_path / "w.db", KEY) as store:
        with pytest.raises(RuntimeError, match="generator failed"):
            store.put_many(chunks())
        with pytest.raises(TypeError):
            store.put_many([fake_chunk(0, 0), "not a chunk"])
        assert len(store) == 0
        store.put(fake_chunk(2, 0))  # the connection is usable afterwards
        assert store.keys() == [(2, 0)]


def test_store_serves_many_threads(tmp_path):
    with ChunkStore(tmp_path / "w.db", KEY) as store:

        def work(row):
            for cx in range(8):
                store.put(fake_chunk(cx, row))
                assert store.get(cx, row).same(fake_chunk(cx, row))

        threads = [threading.Thread(target=work, args=(row,)) for row in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(store) == 48


# A writer killed with SIGKILL


def uncommitted_wal_frames(wal: pathlib.Path) -> int:
    """Frames of the write-ahead log after its last commit frame."""
    data = wal.read_bytes()
    page_size, salt = struct.unpack(">I", data[8:12])[0], data[16:24]
    frames = last_commit = 0
    offset = 32
    while offset + 24 + page_size <= len(data) and data[offset + 8 : offset + 16] == salt:
        frames += 1
        if struct.unpack(">I", data[offset + 4 : offset + 8])[0]:  # db size: a commit
            last_commit = frames
        offset += 24 + page_size
    return frames - last_commit


def run_writer_and_kill(tmp_path, args, kill_when, delay=0.0):
    """Run the writer, SIGKILL it when ``kill_when(line)`` holds, return its
    output lines."""
    lines: queue.Queue = queue.Queue()
    path = tmp_path / "w.db"
    command = [sys.executable, str(WRITER), str(path), *map(str, args)]
    with (
        open(tmp_path / "writer.err", "w") as err,
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True) as proc,
    ):

        def read():
            for line in proc.stdout:
                lines.put(line.strip())
            lines.put(None)

        reader = threading.Thread(target=read)
        reader.start()
        seen = []
        try:
            while True:
                try:
                    line = lines.get(timeout=120)
                except queue.Empty:
                    pytest.fail("the writer printed nothing for 120 s")
                if line is None:
                    pytest.fail(f"the writer stopped: {(tmp_path / 'writer.err').read_text()}")
                seen.append(line)
                if kill_when(line):
                    time.sleep(delay)
                    break
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            reader.join()
        assert proc.returncode == -signal.SIGKILL, (tmp_path / "writer.err").read_text()
    seen.extend(line for line in iter(lines.get, None))
    return path, seen


def check_survivors(path, committed, batch):
    with ChunkStore(path, WORLD_KEY) as store:
        db = store._conn()
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        keys = store.keys()
        assert len(keys) >= committed
        assert len(keys) % batch == 0, "a batch was stored in part"
        assert keys == sorted(order(i) for i in range(len(keys)))
        for cx, cz in keys:
            assert store.get(cx, cz).same(fake_chunk(cx, cz))
        return len(keys)


def test_killed_in_the_middle_of_a_transaction_keeps_committed_chunks(tmp_path):
    batch = 50
    path, lines = run_writer_and_kill(tmp_path, [batch, 3], lambda line: line == "stalled")
    assert lines == ["50", "100", "150", "stalled"]
    # Part of the unfinished batch is on disk; SQLite must ignore it.
    assert uncommitted_wal_frames(path.with_name(path.name + "-wal")) > 0
    assert check_survivors(path, committed=150, batch=batch) == 150


@pytest.mark.parametrize("delay", [0.0, 0.003, 0.02])
def test_killed_at_any_moment_keeps_committed_chunks(tmp_path, delay):
    batch = 40
    path, lines = run_writer_and_kill(
        tmp_path, [batch], lambda line: int(line) >= 4 * batch, delay=delay
    )
    committed = max(int(line) for line in lines)
    assert committed >= 4 * batch
    stored = check_survivors(path, committed, batch)
    assert stored <= committed + batch
    # A killed store reopens for writing, and the writer goes on from there.
    with ChunkStore(path, WORLD_KEY) as store:
        store.put(fake_chunk(*order(stored)))
        assert len(store) == stored + 1


# World


def test_chunk_generates_once_then_reads_the_store(tmp_path):
    generate = CountingGenerator()
    with ChunkStore(tmp_path / "w.db", KEY) as store:
        world = World(generate, store)
        assert world.chunk(2, -3).same(fake_chunk(2, -3))
        assert world.chunk(2, -3).same(fake_chunk(2, -3))
        assert generate.calls == {(2, -3): 1}
        assert store.has(2, -3)
        assert World(generate, store).chunk(2, -3).same(fake_chunk(2, -3))
        assert generate.total == 1
    no_store = World(generate)
    no_store.chunk(0, 0)
    no_store.chunk(0, 0)
    assert generate.calls[0, 0] == 2


def test_a_corrupt_stored_chunk_is_made_again_and_replaced(tmp_path):
    # A damaged row stopped every run (`worldgen world` told its user to
    # call store.delete); a chunk is a function of the config, so it is
    # made again and stored in its place.
    generate = CountingGenerator()
    coords = chunk_range(8, 8, 20)
    with ChunkStore(tmp_path / "w.db", KEY) as store:
        world = World(generate, store, threads=2)
        world.pregenerate(8, 8, 20)
        db = store._conn()
        db.execute("UPDATE chunks SET data = ? WHERE cx = 0 AND cz = 0", (b"garbage",))
        db.execute("UPDATE chunks SET ysize = ysize + 1 WHERE cx = 1 AND cz = 0")
        assert world.chunk(0, 0).same(fake_chunk(0, 0))
        assert store.get(0, 0).same(fake_chunk(0, 0))
        chunks = list(world.around(8, 8, 20))
        assert [(c.cx, c.cz) for c in chunks] == coords
        assert all(c.same(fake_chunk(c.cx, c.cz)) for c in chunks)
        assert store.get(1, 0).same(fake_chunk(1, 0))
        assert generate.calls[0, 0] == generate.calls[1, 0] == 2


def test_around_yields_every_chunk_once_in_order(tmp_path):
    generate = CountingGenerator(jitter=0.001)
    expected = chunk_range(5, -20, 70)
    with ChunkStore(tmp_path / "w.db", KEY) as store:
        World(generate, store).chunk(*expected[7])  # one stored beforehand
        world = World(generate, store, threads=4)
        chunks = list(world.around(5, -20, 70))
        assert [(c.cx, c.cz) for c in chunks] == expected
        assert all(c.same(fake_chunk(c.cx, c.cz)) for c in chunks)
        assert set(generate.calls) == set(expected) and generate.total == len(expected)
        assert len(expected) > BATCH and sorted(store.keys()) == sorted(expected)
        again = [(c.cx, c.cz) for c in world.around(5, -20, 70)]
        assert again == expected and generate.total == len(expected)


def test_parallel_generation_equals_serial():
    generate = CountingGenerator(jitter=0.002)
    serial = list(World(generate, threads=1).around(-40, 33, 50))
    parallel = list(World(generate, threads=4).around(-40, 33, 50))
    assert len(serial) == len(parallel) == len(chunk_range(-40, 33, 50))
    assert all(a.same(b) for a, b in zip(serial, parallel))


def test_stopping_around_early_keeps_what_was_generated(tmp_path):
    generate = CountingGenerator()
    with ChunkStore(tmp_path / "w.db", KEY) as store:
        chunks = World(generate, store, threads=2).around(0, 0, 100)
        first = [next(chunks) for _ in range(3)]
        chunks.close()
        assert {(c.cx, c.cz) for c in first} <= set(store.keys())
        assert set(store.keys()) == set(generate.calls)
        assert len(store) < len(chunk_range(0, 0, 100))


def test_pregenerate_counts_and_reports_progress(tmp_path):
    generate = CountingGenerator(jitter=0.001)
    calls = []
    with ChunkStore(tmp_path / "w.db", KEY) as store:
        world = World(generate, store, threads=3)
        world.chunk(0, 0)
        total = len(chunk_range(8, 8, 90))
        with ChunkStore(tmp_path / "w.db", KEY) as reader:  # another connection

            def progress(done, n):
                # What is reported done is in the store (committed), so a
                # kill the next moment loses none of it.
                assert len(reader) - 1 >= done
                calls.append((done, n))

            made = world.pregenerate(8, 8, 90, progress=progress)
        assert made == total - 1 == generate.total - 1
        assert calls[0] == (0, made) and calls[-1] == (made, made) and len(calls) > 2
        assert all(a[0] < b[0] for a, b in itertools.pairwise(calls))
        assert sorted(store.keys()) == sorted(chunk_range(8, 8, 90))
        assert world.pregenerate(8, 8, 90, progress=lambda *a: calls.append(a)) == 0
        assert calls[-1] == (0, 0)


def test_generator_errors_propagate_and_finished_chunks_are_kept(tmp_path):
    def generate(cx, cz):
        if (cx, cz) == (1, 1):
            raise RuntimeError("broken chunk")
        return fake_chunk(cx, cz)

    with ChunkStore(tmp_path / "w.db", KEY) as store:
        world = World(generate, store, threads=2)
        with pytest.raises(RuntimeError, match="broken chunk"):
            world.pregenerate(0, 0, 40)
        assert 0 < len(store) < len(chunk_range(0, 0, 40)) and not store.has(1, 1)
        expected = chunk_range(0, 0, 40)
        seen = []
        with pytest.raises(RuntimeError, match="broken chunk"):
            seen.extend((c.cx, c.cz) for c in world.around(0, 0, 40))
        assert seen == expected[: expected.index((1, 1))]
        assert set(seen) <= set(store.keys()) and not store.has(1, 1)


def test_ctrl_c_does_not_wait_for_a_chunk_stuck_in_a_worker(tmp_path):
    # A chunk deep in a compiled kernel (a landmass's drainage takes
    # seconds) cannot be stopped; Ctrl-C must not wait for it.
    release = threading.Event()

    def generate(cx, cz):
        if (cx, cz) == (1, 0):
            release.wait(30)  # as a kernel that holds its thread
        return fake_chunk(cx, cz)

    with ChunkStore(tmp_path / "w.db", KEY) as store:
        world = World(generate, store, threads=2)
        timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        start = time.monotonic()
        try:
            with pytest.raises(KeyboardInterrupt):
                world.pregenerate(0, 0, 40)
            waited = time.monotonic() - start
        finally:
            timer.cancel()
            release.set()
        assert waited < 5.0, f"Ctrl-C waited {waited:.1f} s for the stuck chunk"
        # The chunks made before it are kept; the stuck one is not.
        assert store.has(0, 0) and not store.has(1, 0)


def test_world_checks_what_the_generator_returns():
    with pytest.raises(ValueError, match=r"generate\(1, 2\) returned chunk \(0, 0\)"):
        World(lambda cx, cz: fake_chunk(0, 0)).chunk(1, 2)
    with pytest.raises(TypeError, match=r"generate\(1, 2\) must return a Chunk"):
        World(lambda cx, cz: None).chunk(1, 2)


def test_world_rejects_bad_arguments(tmp_path):
    world = World(fake_chunk, threads=2)
    with pytest.raises(TypeError, match="cx must be an integer"):
        world.chunk(1.5, 0)
    with pytest.raises(TypeError, match="cz must be an integer"):
        world.chunk(0, "1")
    with pytest.raises(ValueError, match="radius must be"):
        world.around(0, 0, -1)  # at the call, not at the first next()
    with pytest.raises(TypeError, match="x must be"):
        world.around("0", 0, 10)
    with pytest.raises(ValueError, match="pregenerate needs a store"):
        world.pregenerate(0, 0, 10)
    with ChunkStore(tmp_path / "w.db", KEY) as store:
        with pytest.raises(ValueError, match="radius must be"):
            World(fake_chunk, store).pregenerate(0, 0, -5)
        with pytest.raises(TypeError, match="progress must be a callable"):
            World(fake_chunk, store).pregenerate(0, 0, 5, progress=10)
    with pytest.raises(TypeError, match="generate must be a callable"):
        World("fake_chunk")
    with pytest.raises(TypeError, match="store must be a ChunkStore"):
        World(fake_chunk, str(tmp_path / "w.db"))
    with pytest.raises(ValueError, match="threads must be an integer from 1"):
        World(fake_chunk, threads=0)


def test_fake_generator_is_a_valid_world():
    chunk = fake_chunk(-7, 9)
    assert chunk.blocks.shape == (Y_SIZE, 16, 16)
    top = (chunk.heights - Y_MIN)[None].astype(np.intp)
    assert (np.take_along_axis(chunk.blocks, top, axis=0) != AIR).all()
    above = np.arange(Y_SIZE)[:, None, None] > top
    assert (chunk.blocks[above] == AIR).all()


# Opening and failing: concurrent creation, clear errors, foreign files


def _open_and_write_rounds(path_pattern, worker, rounds, barrier, errors):
    """One of several processes: for each round, meet the others, then open
    the round's new store at once with them and write one chunk."""
    try:
        for r in range(rounds):
            barrier.wait(timeout=60)
            with ChunkStore(path_pattern.format(r), KEY) as store:
                store.put(Chunk(worker, r, np.full((2, CHUNK, CHUNK), worker, np.uint8),
                                np.full((CHUNK, CHUNK), r, np.int16)))  # fmt: skip
    except BaseException as exc:
        errors.put(f"worker {worker}, round {r}: {type(exc).__name__}: {exc}")
        barrier.abort()


def test_four_processes_open_and_write_one_new_store_at_once(tmp_path):
    import multiprocessing

    workers, rounds = 4, 100
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(workers)
    errors = context.Queue()
    pattern = str(tmp_path / "round{}.db")
    procs = [
        context.Process(target=_open_and_write_rounds, args=(pattern, w, rounds, barrier, errors))
        for w in range(workers)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=120)
    found = [errors.get() for _ in range(errors.qsize())] if not errors.empty() else []
    assert not found, found[:3]
    assert [proc.exitcode for proc in procs] == [0] * workers
    for r in range(rounds):
        with ChunkStore(pattern.format(r), KEY) as store:
            assert store.keys() == [(w, r) for w in range(workers)], f"round {r}"


def test_a_directory_as_store_names_the_path_and_the_fix(tmp_path):
    with pytest.raises(OSError, match=r"is a directory.*world\.db") as info:
        ChunkStore(tmp_path, KEY)
    assert str(tmp_path) in str(info.value)
    assert not isinstance(info.value, sqlite3.Error)


def test_a_truncated_store_is_reported_as_damaged(tmp_path):
    path = tmp_path / "w.db"
    with ChunkStore(path, KEY) as store:
        store.put_many(fake_chunk(cx, 0) for cx in range(40))
    data = path.read_bytes()
    assert len(data) > 3 * 4096
    path.write_bytes(data[: len(data) // 3])
    with pytest.raises(OSError, match=r"w\.db is damaged") as info:
        with ChunkStore(path, KEY) as store:
            for cx in range(40):
                store.get(cx, 0)
    assert str(path) in str(info.value) and not isinstance(info.value, sqlite3.Error)


def test_a_read_only_store_that_needs_a_write(tmp_path):
    path = tmp_path / "w.db"
    with ChunkStore(path, KEY) as store:
        store._conn().execute("PRAGMA query_only = ON")  # as a read-only file would answer
        assert store.get(0, 0) is None
        with pytest.raises(OSError, match=r"w\.db is read-only.*writable") as info:
            store.put(fake_chunk(0, 0))
    assert not isinstance(info.value, sqlite3.Error)


def test_a_full_disk_names_the_store_and_keeps_earlier_chunks(tmp_path):
    path = tmp_path / "w.db"
    with ChunkStore(path, KEY) as store:
        store.put(fake_chunk(0, 0))
        pages = store._conn().execute("PRAGMA page_count").fetchone()[0]
        store._conn().execute(f"PRAGMA max_page_count = {pages + 2}")
        with pytest.raises(OSError, match=r"w\.db cannot grow: the disk .*full") as info:
            store.put_many(fake_chunk(cx, 1) for cx in range(30))
        assert not isinstance(info.value, sqlite3.Error)
        assert store.keys() == [(0, 0)]


def test_store_refuses_a_foreign_sqlite_file_with_an_empty_meta_table(tmp_path):
    foreign = sqlite_file(
        tmp_path / "foreign.db", "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
    )
    with pytest.raises(ValueError, match=r"foreign\.db is an SQLite file but not"):
        ChunkStore(foreign, KEY)
    db = sqlite3.connect(foreign)
    assert db.execute("SELECT COUNT(*) FROM meta").fetchone()[0] == 0, "the file was changed"
    db.close()


def test_another_worlds_store_shows_both_worlds_settings(tmp_path):
    # The refusal showed the stored world's settings only, and those left
    # out the world model's: a store of the islands preset, opened for the
    # default world of the same seed, named two identical summaries.
    from worldgen.config import preset, voxel_config
    from worldgen.voxel import VoxelConfig

    islands = voxel_config({"world": preset("islands")["world"]})
    default = VoxelConfig()
    assert "continent_size=4096" in islands.summary
    assert "continent_size" not in default.summary
    ChunkStore(tmp_path / "w.db", islands.key, describe=islands.summary).close()
    with pytest.raises(StoreMismatchError) as info:
        ChunkStore(tmp_path / "w.db", default.key, describe=default.summary)
    message = str(info.value)
    assert f"(made by: {islands.summary})" in message
    assert f"this one's is {default.key[:12]}... ({default.summary}; its world" in message
