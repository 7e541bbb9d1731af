"""Write chunks of a fake generator into a store, batch after batch.

    python store_writer.py PATH [BATCH [STALL]]

After each commit, prints how many chunks the store holds and flushes, so a
test can kill the process at a known point and check what survived. With
STALL, the batch after the STALL-th commit stops halfway through its
transaction, prints ``stalled`` and sleeps: killed then, the process leaves
an unfinished transaction behind, part of it already in the log file (the
page cache is kept small so that SQLite writes pages out before the commit).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from worldgen.voxel._blocks import AIR, BEDROCK, STONE
from worldgen.voxel._chunk import CHUNK, Chunk
from worldgen.voxel._store import ChunkStore

WORLD_KEY = "fake-generator-v1"
Y_MIN, Y_SIZE = -16, 64
# Chunks are written in this order: rows of 64 chunks, from (-32, -32).
ROW = 64
LIMIT = 20_000


def fake_chunk(cx: int, cz: int) -> Chunk:
    """A chunk whose blocks depend only on ``(cx, cz)``: stone up to a random
    ground level, a third of it replaced by random blocks, bedrock below."""
    rng = np.random.default_rng([cx + 2**31, cz + 2**31, 0x57])
    shape = (Y_SIZE, CHUNK, CHUNK)
    ground = rng.integers(8, Y_SIZE - 8, size=(CHUNK, CHUNK))
    y = np.arange(Y_SIZE)[:, None, None]
    blocks = np.where(y < ground, STONE, AIR).astype(np.uint8)
    mixed = (y < ground) & (rng.random(shape) < 0.3)
    blocks[mixed] = rng.integers(0, 16, size=shape, dtype=np.uint8)[mixed]
    blocks[0] = BEDROCK
    top = Y_SIZE - 1 - np.argmax(blocks[::-1] != AIR, axis=0)
    return Chunk(cx, cz, blocks, (top + Y_MIN).astype(np.int16))


def order(i: int) -> tuple[int, int]:
    """The ``i``-th chunk the writer writes."""
    return i % ROW - ROW // 2, i // ROW - ROW // 2


def stall_midway(db, *, after: int, batch: int) -> None:
    """Make ``db`` stop halfway through the transaction after ``after`` commits."""
    commits = inserts = 0

    def trace(statement: str) -> None:
        nonlocal commits, inserts
        if statement.startswith("COMMIT"):
            commits += 1
        elif statement.startswith("INSERT") and commits == after:
            inserts += 1
            if inserts > batch // 2:
                print("stalled", flush=True)
                time.sleep(600)

    db.execute("PRAGMA cache_size = 16")
    db.set_trace_callback(trace)


def main(argv: list[str]) -> None:
    path = argv[1]
    batch = int(argv[2]) if len(argv) > 2 else 50
    stall = int(argv[3]) if len(argv) > 3 else None
    with ChunkStore(path, WORLD_KEY, describe="store_writer fake generator") as store:
        if stall is not None:
            stall_midway(store._conn(), after=stall, batch=batch)
        for start in range(0, LIMIT, batch):
            todo = store.missing(order(i) for i in range(start, start + batch))
            store.put_many(fake_chunk(cx, cz) for cx, cz in todo)
            print(len(store), flush=True)


if __name__ == "__main__":
    main(sys.argv)
