"""Keeping chunks: an SQLite chunk store, and the World that fills it.

    World.around(x, z, radius) -> chunks in the store?  -> read them
                                  missing?             -> generate in threads,
                                                          store in batches

A store file belongs to one world: the caller's *world key* (for example the
SHA-256 hex digest of the generator config and its format version) is
recorded when the file is made, and a store opened with another key refuses
to serve chunks, so a changed config never mixes old and new terrain.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import pathlib
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from worldgen.noise._validate import check_int
from worldgen.voxel._chunk import CHUNK, CHUNK_HIGH, CHUNK_LOW, Chunk, chunk_range

FORMAT_VERSION = 1
"""Layout of the store's tables and rows; stores of another version are refused."""

ZLIB_LEVEL = 6
"""zlib level of the chunk rows: about 30% smaller than level 1 on terrain,
at about 1 ms per 16 x 384 x 16 chunk, spent in the generating threads."""

BATCH = 64
"""Chunks per transaction when :class:`World` stores what it generated."""

# Heights are stored little-endian, whatever the machine.
_HEIGHTS_DTYPE = np.dtype("<i2")
_HEIGHTS_BYTES = CHUNK * CHUNK * _HEIGHTS_DTYPE.itemsize
# Block dtypes a row may name, by the name stored in the row.
_BLOCK_DTYPES = {"uint8": np.dtype(np.uint8)}
# Seconds a connection waits for another process's write lock.
_BUSY_TIMEOUT = 30.0
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS chunks ("
    " world TEXT NOT NULL, cx INTEGER NOT NULL, cz INTEGER NOT NULL,"
    " ysize INTEGER NOT NULL, dtype TEXT NOT NULL, data BLOB NOT NULL,"
    " PRIMARY KEY (world, cx, cz))",
)


class StoreMismatchError(ValueError):
    """A chunk store file was made for another world (or another format)."""


class CorruptChunkError(ValueError):
    """A stored chunk does not decode; :meth:`ChunkStore.delete` removes it."""


class StoreFileError(OSError):
    """The store file cannot be used as asked: it is a directory, damaged,
    read-only, on a full disk or locked by another process. The message
    names the file, the cause and what to do; the SQLite error is chained."""


# (cx, cz, ysize, dtype name, compressed blocks + heights)
_Row = tuple[int, int, int, str, bytes]


class ChunkStore:
    """Chunks of one world in an SQLite file, zlib-compressed.

    Parameters
    ----------
    path : str or os.PathLike
        The store file; it (and its folder) is created if missing.
    world_key : str
        What identifies the world: generator, config and their format
        version, e.g. a SHA-256 hex digest. Non-empty, at most 256
        characters. Chunks are keyed by ``(world_key, cx, cz)``.
    describe : str, optional
        A human-readable summary of the config, recorded when the file is
        made and shown when another key is refused.

    Raises
    ------
    StoreMismatchError
        If the file was made with another world key or store format.
    ValueError
        If the file is not a chunk store (an SQLite file made by another
        program, even one with an empty ``meta`` table, is refused
        unchanged) or cannot use write-ahead logging.
    StoreFileError
        An :class:`OSError` naming the file, the cause and the fix, when
        SQLite fails: the path is a directory, the file is damaged (e.g.
        truncated), read-only while a write is needed, on a full disk, or
        locked by another process for longer than 30 s. Every method raises
        it the same way.
    TypeError
        If ``world_key`` or ``describe`` is not a string.

    Notes
    -----
    - Every write is one SQLite transaction (``put_many``: one per call), so
      a batch is stored whole or not at all, and a killed process never
      leaves half a chunk. ``journal_mode=WAL`` lets readers in other
      processes read while one writes.
    - ``synchronous=FULL``: a write returns only once the log is on disk, so
      committed chunks survive power loss as well as a killed process
      (``NORMAL`` would keep only the latter promise). The price is one
      fsync per transaction; batch writes with :meth:`put_many`.
    - Rows hold ``ysize`` and the block dtype beside the compressed bytes
      (blocks in C order, then heights as little-endian int16), so a chunk
      decodes without outside knowledge; both are checked on reading.
    - One connection serves all threads, one call at a time behind a lock;
      compression happens outside the lock.
    - Several processes may open one new file at once: the switch to
      write-ahead logging, which SQLite refuses at once while another
      connection makes it, is retried for up to 30 s; the tables and the
      ``meta`` rows are made in one transaction.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "world.db"
    >>> chunk = Chunk(0, 1, np.ones((8, 16, 16), np.uint8), np.full((16, 16), 7, np.int16))
    >>> with ChunkStore(path, "my-config-v1") as store:
    ...     store.put(chunk)
    ...     store.get(0, 1).same(chunk), store.get(5, 5), len(store)
    (True, None, 1)
    """

    def __init__(self, path: str | os.PathLike, world_key: str, *, describe: str = ""):
        if not isinstance(world_key, str):
            raise TypeError(
                f"world_key must be a string, e.g. the SHA-256 hex digest of the config, "
                f"got {type(world_key).__name__}"
            )
        if not 1 <= len(world_key) <= 256:
            raise ValueError(
                f"world_key must have 1 to 256 characters, got {len(world_key)}; "
                "use a digest of the config, e.g. hashlib.sha256(...).hexdigest()"
            )
        if not isinstance(describe, str):
            raise TypeError(f"describe must be a string, got {type(describe).__name__}")
        self._path = pathlib.Path(path)
        self._key = world_key
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise StoreFileError(
                f"{self._path} cannot be made: a folder above it is a file; give a store "
                "path in a folder"
            ) from None
        except OSError as exc:
            raise StoreFileError(
                f"{self._path} cannot be made: its folder cannot be created ({exc.strerror}); "
                "give a store path you can write to"
            ) from None
        try:
            self._db = sqlite3.connect(
                self._path, timeout=_BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
            )
            self._describe = self._open(describe)
        except sqlite3.Error as exc:
            self.close()
            raise _store_error(self._path, exc) from exc
        except BaseException:
            self.close()
            raise

    def _open(self, describe: str) -> str:
        db = self._db
        mode = _journal_mode_wal(db)
        if mode.lower() != "wal":
            raise ValueError(
                f"{self._path}: SQLite could not use write-ahead logging (journal mode "
                f"stays {mode!r}); put the store on a local file system"
            )
        db.execute("PRAGMA synchronous=FULL")
        with self._transaction():
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
            # A store is made in one transaction, tables and meta rows
            # together: tables without meta rows were made by someone else.
            meta = self._read_meta() if "meta" in tables else {}
            if tables and "format" not in meta:
                raise ValueError(
                    f"{self._path} is an SQLite file but not a worldgen chunk store; "
                    "choose another path"
                )
            if not tables:
                for statement in _SCHEMA:
                    db.execute(statement)
                meta = {
                    "format": str(FORMAT_VERSION),
                    "world_key": self._key,
                    "describe": describe,
                }
                db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        self._check_meta(meta, describe)
        return meta.get("describe", "")

    def _read_meta(self) -> dict[str, str]:
        try:
            return dict(self._db.execute("SELECT name, value FROM meta"))
        except sqlite3.OperationalError:  # another table called meta
            return {}

    def _check_meta(self, meta: dict[str, str], describe: str = "") -> None:
        if meta.get("format") != str(FORMAT_VERSION):
            raise StoreMismatchError(
                f"{self._path} has store format {meta.get('format')!r}; this version of "
                f"worldgen reads format {FORMAT_VERSION}. Use another file, or the "
                "worldgen version that wrote it"
            )
        stored = meta.get("world_key", "")
        if stored != self._key:
            made_by = f" (made by: {meta['describe']})" if meta.get("describe") else ""
            this_one = f"{describe}; " if describe else ""
            # Abbreviated, unless the abbreviations would look the same.
            shown = (_short(stored), _short(self._key))
            if shown[0] == shown[1]:
                shown = (stored, self._key)
            raise StoreMismatchError(
                f"{self._path} holds another world: its key is {shown[0]}{made_by}, "
                f"this one's is {shown[1]} ({this_one}its world, seed or settings differ). Use "
                "another file for this config (`worldgen world --store FILE` or another "
                "--out), delete the file to start it afresh, or open it with the config "
                "that made it"
            )

    @property
    def path(self) -> pathlib.Path:
        """The store file."""
        return self._path

    @property
    def world_key(self) -> str:
        """The key of the world this store holds."""
        return self._key

    @property
    def describe(self) -> str:
        """The config summary recorded when the file was made."""
        return self._describe

    def get(self, cx: int, cz: int) -> Chunk | None:
        """The stored chunk ``(cx, cz)``, or None if it is not stored.

        Raises
        ------
        CorruptChunkError
            If the stored row does not decode.
        """
        cx, cz = _check_coords(cx, cz)
        with self._lock, self._errors():
            row = (
                self._conn()
                .execute(
                    "SELECT ysize, dtype, data FROM chunks WHERE world = ? AND cx = ? AND cz = ?",
                    (self._key, cx, cz),
                )
                .fetchone()
            )
        return None if row is None else self._decode(cx, cz, *row)

    def put(self, chunk: Chunk) -> None:
        """Store ``chunk``, replacing any chunk stored at its coordinates."""
        self.put_many([chunk])

    def put_many(self, chunks: Iterable[Chunk]) -> int:
        """Store ``chunks`` in one transaction: all of them, or none.

        Later chunks replace earlier ones with the same coordinates. Returns
        how many chunks were given.
        """
        return self._put_rows([self._encode(chunk) for chunk in chunks])

    def _put_rows(self, rows: list[_Row]) -> int:
        if rows:
            with self._lock, self._errors(), self._transaction():
                self._conn().executemany(
                    "INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?, ?, ?)",
                    [(self._key, *row) for row in rows],
                )
        return len(rows)

    def delete(self, cx: int, cz: int) -> bool:
        """Remove chunk ``(cx, cz)``; True if it was stored."""
        cx, cz = _check_coords(cx, cz)
        with self._lock, self._errors(), self._transaction():
            cursor = self._conn().execute(
                "DELETE FROM chunks WHERE world = ? AND cx = ? AND cz = ?", (self._key, cx, cz)
            )
        return cursor.rowcount > 0

    def has(self, cx: int, cz: int) -> bool:
        """True if chunk ``(cx, cz)`` is stored."""
        cx, cz = _check_coords(cx, cz)
        with self._lock, self._errors():
            return self._has(cx, cz)

    def _has(self, cx: int, cz: int) -> bool:
        return (
            self._conn()
            .execute(
                "SELECT 1 FROM chunks WHERE world = ? AND cx = ? AND cz = ?", (self._key, cx, cz)
            )
            .fetchone()
            is not None
        )

    def missing(self, coords: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
        """The ``(cx, cz)`` of ``coords`` that are not stored, in the given order."""
        try:
            pairs = list(coords)
        except TypeError:
            raise TypeError(
                f"coords must be an iterable of (cx, cz) pairs, got {coords!r}"
            ) from None
        checked = [_check_pair(pair) for pair in pairs]
        with self._lock, self._errors():
            return [pair for pair in checked if not self._has(*pair)]

    def keys(self) -> list[tuple[int, int]]:
        """The ``(cx, cz)`` of every stored chunk, sorted."""
        with self._lock, self._errors():
            rows = self._conn().execute(
                "SELECT cx, cz FROM chunks WHERE world = ? ORDER BY cx, cz", (self._key,)
            )
            return [(cx, cz) for cx, cz in rows]

    def __len__(self) -> int:
        with self._lock, self._errors():
            return (
                self._conn()
                .execute("SELECT COUNT(*) FROM chunks WHERE world = ?", (self._key,))
                .fetchone()[0]
            )

    def close(self) -> None:
        """Close the file (it can be closed more than once)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> ChunkStore:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ChunkStore({str(self._path)!r}, {_short(self._key)!r})"

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise ValueError(f"the chunk store {self._path} is closed; open it again")
        return self._db

    def _transaction(self):
        return _Transaction(self._conn())

    @contextlib.contextmanager
    def _errors(self):
        """SQLite errors as errors that name the file, the cause and the fix."""
        try:
            yield
        except sqlite3.Error as exc:
            raise _store_error(self._path, exc) from exc

    @staticmethod
    def _encode(chunk: Chunk) -> _Row:
        if not isinstance(chunk, Chunk):
            raise TypeError(f"chunks must be Chunk objects, got {type(chunk).__name__}")
        raw = chunk.blocks.tobytes() + chunk.heights.astype(_HEIGHTS_DTYPE).tobytes()
        ysize = chunk.blocks.shape[0]
        return chunk.cx, chunk.cz, ysize, chunk.blocks.dtype.name, zlib.compress(raw, ZLIB_LEVEL)

    def _decode(self, cx: int, cz: int, ysize: object, dtype: object, data: object) -> Chunk:
        def corrupt(why: str) -> CorruptChunkError:
            return CorruptChunkError(
                f"chunk ({cx}, {cz}) in {self._path} is corrupt: {why}; remove it with "
                f"store.delete({cx}, {cz}) and generate it again"
            )

        if dtype not in _BLOCK_DTYPES:
            raise corrupt(f"unknown block dtype {dtype!r}")
        if not (isinstance(ysize, int) and ysize >= 1):
            raise corrupt(f"bad y size {ysize!r}")
        if not isinstance(data, bytes):
            raise corrupt(f"data is {type(data).__name__}, not bytes")
        try:
            raw = zlib.decompress(data)
        except zlib.error as exc:
            raise corrupt(f"zlib: {exc}") from None
        block_dtype = _BLOCK_DTYPES[dtype]
        block_bytes = ysize * CHUNK * CHUNK * block_dtype.itemsize
        if len(raw) != block_bytes + _HEIGHTS_BYTES:
            raise corrupt(
                f"{len(raw)} bytes, expected {block_bytes + _HEIGHTS_BYTES} for "
                f"{ysize} layers of {dtype}"
            )
        buffer = bytearray(raw)  # writable arrays for the caller
        blocks = np.frombuffer(buffer, block_dtype, block_bytes // block_dtype.itemsize)
        heights = np.frombuffer(buffer, _HEIGHTS_DTYPE, CHUNK * CHUNK, offset=block_bytes)
        return Chunk(
            cx,
            cz,
            blocks.reshape(ysize, CHUNK, CHUNK),
            heights.astype(np.int16, copy=False).reshape(CHUNK, CHUNK),
        )


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` if the block raises."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, value, traceback) -> None:
        try:
            if kind is None:
                self._db.execute("COMMIT")
        finally:
            # After an error, or a COMMIT that failed (SQLite may already
            # have rolled back on its own).
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")


class World:
    """An endless world of chunks: generated once, then read from a store.

    Parameters
    ----------
    generate : callable
        ``generate(cx, cz) -> Chunk``, deterministic and safe to call from
        several threads at once (compiled kernels that release the GIL make
        that pay).
    store : ChunkStore, optional
        Where generated chunks are kept. Without one, every request
        generates. The World does not close it.
    threads : int, optional
        Threads that generate (1 to 1024); default: the CPU count.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> def flat(cx, cz):
    ...     blocks = np.zeros((4, 16, 16), np.uint8)
    ...     blocks[0] = 1
    ...     return Chunk(cx, cz, blocks, np.zeros((16, 16), np.int16))
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "world.db"
    >>> with ChunkStore(path, "flat-v1") as store:
    ...     world = World(flat, store, threads=2)
    ...     [(c.cx, c.cz) for c in world.around(8, 8, 8)]
    ...     world.pregenerate(8, 8, 16), len(store)
    [(0, 0), (-1, 0), (0, -1), (0, 1), (1, 0)]
    (4, 9)
    """

    def __init__(
        self,
        generate: Callable[[int, int], Chunk],
        store: ChunkStore | None = None,
        *,
        threads: int | None = None,
    ):
        if not callable(generate):
            raise TypeError(
                f"generate must be a callable generate(cx, cz) -> Chunk, "
                f"got {type(generate).__name__}"
            )
        if store is not None and not isinstance(store, ChunkStore):
            raise TypeError(f"store must be a ChunkStore or None, got {type(store).__name__}")
        if threads is None:
            threads = min(os.cpu_count() or 1, 1024)
        self._generate = generate
        self._store = store
        self._threads = check_int(threads, "threads", 1, 1024)

    @property
    def store(self) -> ChunkStore | None:
        return self._store

    @property
    def threads(self) -> int:
        return self._threads

    def chunk(self, cx: int, cz: int) -> Chunk:
        """Chunk ``(cx, cz)``: from the store if it is there, else generated
        (and stored; so is a stored chunk whose row does not decode)."""
        cx, cz = _check_coords(cx, cz)
        if self._store is not None:
            chunk = self._stored(cx, cz)
            if chunk is not None:
                return chunk
        chunk, row = self._make(cx, cz)
        if self._store is not None:
            self._store._put_rows([row])
        return chunk

    def _stored(self, cx: int, cz: int) -> Chunk | None:
        """The stored chunk ``(cx, cz)``; None if it is not stored or its row
        does not decode (a chunk is a function of the config: it is made
        again, and stored over the damaged row)."""
        try:
            return self._store.get(cx, cz)
        except CorruptChunkError:
            return None

    def around(self, x: float, z: float, radius: float) -> Iterator[Chunk]:
        """Every chunk within ``radius`` blocks of ``(x, z)``, nearest first.

        The order is that of :func:`chunk_range`. Missing chunks are generated
        in parallel (a bounded number ahead of the one being yielded) and
        stored in batches of :data:`BATCH`; a chunk may be yielded shortly
        before it is stored, and all are stored when the iteration ends or
        is closed.

        Raises
        ------
        TypeError, ValueError
            For bad arguments, as :func:`chunk_range`; immediately, not at
            the first ``next``.
        """
        return self._around(chunk_range(x, z, radius))

    def _around(
        self,
        coords: list[tuple[int, int]],
        todo: set[tuple[int, int]] | None = None,
        stored: Callable[[int], None] | None = None,
    ) -> Iterator[Chunk]:
        """The chunks of ``coords`` in order: those of ``todo`` (default: all
        the store lacks) generated in the pool and stored, the rest read;
        ``stored(count)`` after each batch is committed."""
        store = self._store
        if todo is None:
            todo = set(coords if store is None else store.missing(coords))
        queue = iter([pair for pair in coords if pair in todo])
        ahead = 4 * self._threads
        futures: dict[tuple[int, int], cf.Future] = {}
        pending: list[_Row] = []
        pool = cf.ThreadPoolExecutor(self._threads, thread_name_prefix="worldgen-chunk")
        interrupted = False
        try:
            for pair in coords:
                if pair not in todo:
                    chunk = self._stored(*pair)
                    if chunk is None:  # deleted meanwhile, or damaged
                        chunk, row = self._make(*pair)
                        pending.append(row)
                    yield chunk
                    continue
                while len(futures) < ahead and (nxt := next(queue, None)) is not None:
                    futures[nxt] = pool.submit(self._make, *nxt)
                chunk, row = futures.pop(pair).result()
                if store is not None:
                    pending.append(row)
                    if len(pending) >= BATCH:
                        store._put_rows(pending)
                        if stored is not None:
                            stored(len(pending))
                        pending = []
                yield chunk
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            # On Ctrl-C the chunks being made are not waited for: a chunk
            # may be deep in a compiled kernel (a landmass's drainage takes
            # seconds), which cannot be stopped.
            pool.shutdown(wait=not interrupted, cancel_futures=True)
            if store is not None:
                # Keep what was generated ahead of an early stop, too.
                for future in futures.values():
                    if future.done() and not future.cancelled() and future.exception() is None:
                        pending.append(future.result()[1])
                store._put_rows(pending)
                if stored is not None and pending:
                    stored(len(pending))

    def pregenerate(
        self,
        x: float,
        z: float,
        radius: float,
        *,
        progress: Callable[[int, int], object] | None = None,
    ) -> int:
        """Generate and store the chunks within ``radius`` blocks of ``(x, z)``
        that the store lacks.

        Parameters
        ----------
        x, z, radius : int or float
            As :func:`chunk_range`.
        progress : callable, optional
            ``progress(done, total)``: called with ``done = 0`` first, then
            after each batch of chunks is stored (committed: ``done``
            chunks are in the store even if the process is killed the next
            moment), from the calling thread.

        Returns
        -------
        int
            How many chunks were generated.

        Raises
        ------
        ValueError
            If the World has no store.
        """
        coords = chunk_range(x, z, radius)
        if self._store is None:
            raise ValueError(
                "pregenerate needs a store to keep the chunks; make the World with "
                "World(generate, ChunkStore(path, world_key))"
            )
        if progress is not None and not callable(progress):
            raise TypeError(
                f"progress must be a callable progress(done, total) or None, "
                f"got {type(progress).__name__}"
            )
        todo = self._store.missing(coords)
        done = 0

        def stored(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, len(todo))

        if progress is not None:
            progress(0, len(todo))
        for _ in self._around(todo, set(todo), stored):
            pass
        return len(todo)

    def _make(self, cx: int, cz: int) -> tuple[Chunk, _Row]:
        """Generate chunk ``(cx, cz)``, check it and encode it for the store."""
        chunk = self._generate(cx, cz)
        if not isinstance(chunk, Chunk):
            raise TypeError(f"generate({cx}, {cz}) must return a Chunk, got {type(chunk).__name__}")
        if (chunk.cx, chunk.cz) != (cx, cz):
            raise ValueError(
                f"generate({cx}, {cz}) returned chunk ({chunk.cx}, {chunk.cz}); "
                "the generator must return the chunk it is asked for"
            )
        row = ChunkStore._encode(chunk) if self._store is not None else None
        return chunk, row

    def __repr__(self) -> str:
        return f"World({self._generate!r}, {self._store!r}, threads={self._threads})"


def _journal_mode_wal(db: sqlite3.Connection) -> str:
    """Switch ``db`` to write-ahead logging; returns the journal mode.

    SQLite answers BUSY at once to this pragma while another connection
    sets up the same new file (its busy timeout does not apply), so it is
    retried, with growing pauses, for up to the busy timeout.
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT
    pause = 0.001
    while True:
        try:
            return db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
            if not busy or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(2 * pause, 0.05)


def _store_error(path: pathlib.Path, exc: sqlite3.Error) -> Exception:
    """The error to raise for SQLite's ``exc`` on the store at ``path``."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name == "SQLITE_NOTADB":
        return ValueError(f"{path} is not a worldgen chunk store ({exc}); choose another path")
    if name.startswith("SQLITE_CANTOPEN"):
        if path.is_dir():
            return StoreFileError(
                f"{path} is a directory, not a store file; give a file path such as "
                f"{path / 'world.db'}"
            )
        return StoreFileError(
            f"{path} cannot be opened ({exc}); check that its folder exists and can be written"
        )
    if name.startswith("SQLITE_CORRUPT"):
        why = "damaged (truncated or overwritten?)"
        fix = "move it aside (a new store is made in its place) or restore a copy"
    elif name.startswith(("SQLITE_READONLY", "SQLITE_PERM")):
        why = "read-only"
        fix = "make the file and its folder writable, or use another store path"
    elif name == "SQLITE_FULL":
        return StoreFileError(
            f"{path} cannot grow: the disk (or its quota) is full ({exc}); free some space "
            "or put the store on another disk; the chunks stored before are kept"
        )
    elif name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        why = f"locked by another process for more than {_BUSY_TIMEOUT:g} s"
        fix = "let the other program finish, or use another store path"
    elif name.startswith("SQLITE_IOERR"):
        why = "unreadable or unwritable (a disk I/O error)"
        fix = "check the disk, or use another store path"
    else:
        why = f"unusable ({name or type(exc).__name__})"
        fix = "check the file, or use another store path"
    return StoreFileError(f"{path} is {why}: {exc}; {fix}")


def _check_coords(cx: object, cz: object) -> tuple[int, int]:
    return check_int(cx, "cx", CHUNK_LOW, CHUNK_HIGH), check_int(cz, "cz", CHUNK_LOW, CHUNK_HIGH)


def _check_pair(pair: object) -> tuple[int, int]:
    try:
        cx, cz = pair
    except (TypeError, ValueError):
        raise TypeError(f"coords must hold (cx, cz) pairs, got {pair!r}") from None
    try:
        return _check_coords(cx, cz)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"coords: {exc}") from None


def _short(key: str) -> str:
    return key if len(key) <= 16 else f"{key[:12]}..."
