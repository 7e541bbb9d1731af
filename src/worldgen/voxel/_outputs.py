"""The world's products: a store filled around a point, and pictures of it."""

from __future__ import annotations

import functools
import numbers
import os
import pathlib
from collections.abc import Callable

import numba
import numpy as np

from worldgen._memory import WORLD_CHUNK_COPIES, check_memory
from worldgen.io._image import write_rgb_png
from worldgen.io._outset import output_set
from worldgen.noise._validate import check_instance, check_int
from worldgen.voxel._chunk import CHUNK, Chunk, chunk_range
from worldgen.voxel._config import VoxelConfig
from worldgen.voxel._generator import generate_chunk
from worldgen.voxel._render import cross_section, top_down
from worldgen.voxel._store import ChunkStore, World
from worldgen.voxel._voxel_mesh import greedy_mesh, write_voxel_glb


def thread_safe_workers(requested: int | None) -> int:
    """How many threads may generate at once.

    The generator's noise runs numba parallel kernels; numba's "workqueue"
    threading layer (used when neither OpenMP nor TBB is available) must
    not be entered from two threads at once, so with it, one.
    """
    from worldgen.noise import Perlin

    if requested is not None:  # 0 or -1 must not mean "all CPUs" or fail later
        check_int(requested, "threads", 1, 1024)
    Perlin().grid(np.zeros(1), np.zeros(1))  # make numba pick its layer
    if numba.threading_layer() == "workqueue":
        return 1
    return requested or os.cpu_count() or 1


def open_world(
    config: VoxelConfig, store_path: str | os.PathLike | None, *, threads: int | None = None
):
    """A :class:`World` of ``config``, with a store at ``store_path`` (or
    none); returns ``(world, store)``."""
    check_instance(config, "config", VoxelConfig)
    workers = thread_safe_workers(threads)  # checked before the store is made
    store = None
    if store_path is not None:
        store = ChunkStore(store_path, config.key, describe=config.summary)
    generate = functools.partial(generate_chunk, config)
    return World(generate, store, threads=workers), store


def assemble(chunks: list[Chunk]) -> tuple[np.ndarray, int, int]:
    """Blocks of the rectangle of chunks given, ``(Y, Z, X)``, and the world
    x, z of its corner; chunks missing from the rectangle stay air."""
    xs = [c.cx for c in chunks]
    zs = [c.cz for c in chunks]
    cx0, cz0 = min(xs), min(zs)
    height = chunks[0].blocks.shape[0]
    blocks = np.zeros((height, (max(zs) - cz0 + 1) * CHUNK, (max(xs) - cx0 + 1) * CHUNK), np.uint8)
    for c in chunks:
        i, k = (c.cx - cx0) * CHUNK, (c.cz - cz0) * CHUNK
        blocks[:, k : k + CHUNK, i : i + CHUNK] = c.blocks
    return blocks, cx0 * CHUNK, cz0 * CHUNK


def write_world_set(
    config: VoxelConfig,
    out: str | os.PathLike,
    *,
    x: int = 0,
    z: int = 0,
    radius: int = 128,
    mesh_radius: int = 24,
    store: str | os.PathLike | None = None,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[pathlib.Path]:
    """Generate every chunk within ``radius`` blocks of ``(x, z)`` into the
    store (default ``out/world.db``), then write pictures of them.

    Files: the store; ``world_map.png`` (seen from above, a pixel per
    column); ``section.png`` (the x-y slice through ``z``, caves and all);
    ``region.glb`` (a greedy-meshed block model of the chunks within
    ``mesh_radius`` blocks, one colour per block type). The pictures are
    swapped into ``out`` as one set (see :func:`worldgen.io.output_set`);
    the store keeps every committed chunk whatever happens.

    ``threads``: generator threads, 1 to 1024 (default: every CPU); 0 or
    less is refused before anything is written.
    """
    check_instance(config, "config", VoxelConfig)
    x = check_int(x, "x", -(2**30), 2**30)
    z = check_int(z, "z", -(2**30), 2**30)
    radius = check_int(radius, "radius", 1, 4096)
    mesh_radius = check_int(mesh_radius, "mesh_radius", 1, 512)
    if threads is not None and (
        isinstance(threads, bool)
        or not isinstance(threads, numbers.Integral)
        or not 1 <= threads <= 1024
    ):
        raise ValueError(
            f"threads must be an integer from 1 to 1024, got {threads!r}; leave it out "
            "to use every CPU"
        )
    chunks = len(chunk_range(x, z, radius))
    check_memory(
        WORLD_CHUNK_COPIES * chunks * config.height * CHUNK * CHUNK,
        "radius",
        f"{chunks:,} chunks within {radius} blocks",
        "choose a smaller radius; chunks already in the store are read, not made again, "
        "so a big world can be filled by several runs around different points",
    )
    about = f"seed {config.seed}, {radius} blocks around {x}, {z}"
    with output_set(out, command="world", about=about) as files:
        store_path = files.out / "world.db" if store is None else pathlib.Path(store)
        world, chunk_store = open_world(config, store_path, threads=threads)
        try:
            pictures = _draw_world(
                world, config, files.staging, x, z, radius, mesh_radius, progress
            )
        finally:
            if chunk_store is not None:
                chunk_store.close()
    return [store_path, *files.final(pictures)]


def _draw_world(world, config, out, x, z, radius, mesh_radius, progress) -> list[pathlib.Path]:
    world.pregenerate(x, z, radius, progress=progress)
    near = chunk_range(x, z, radius)
    chunks = [world.chunk(cx, cz) for cx, cz in near]
    blocks, _, z0 = assemble(chunks)
    written = [
        write_rgb_png(
            out / "world_map.png", top_down(blocks, y_min=config.y_min, sea_level=config.sea_level)
        ),
        write_rgb_png(out / "section.png", cross_section(blocks, z - z0, y_min=config.y_min)),
    ]
    close = [c for c in chunks if (c.cx, c.cz) in set(chunk_range(x, z, mesh_radius))]
    region, rx0, rz0 = assemble(close)
    mesh = greedy_mesh(region, y_min=config.y_min, origin=(rx0, rz0))
    written.append(write_voxel_glb(out / "region.glb", mesh))
    return written
