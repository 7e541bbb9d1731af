"""The world's products: a store filled around a point, and pictures of it."""

from __future__ import annotations

import functools
import numbers
import os
import pathlib
from collections.abc import Callable, Mapping, Sequence

import numba
import numpy as np

from worldgen._memory import (
    GENERATOR_THREAD_BYTES,
    MESH_CHUNK_COPIES,
    VOX_CHUNK_COPIES,
    WORLD_CHUNK_COPIES,
    check_memory,
)
from worldgen.io._heightmap import write_array
from worldgen.io._image import write_rgb_png
from worldgen.io._outset import changed_files, output_set, read_manifest
from worldgen.io._region import REGION, region_name, write_nbt_file, write_region
from worldgen.io._vox import write_vox
from worldgen.noise._validate import check_instance, check_int
from worldgen.voxel._blocks import AIR
from worldgen.voxel._chunk import CHUNK, Chunk, chunk_range
from worldgen.voxel._config import VoxelConfig
from worldgen.voxel._exports import VOX_REACH, square_chunks, surface_and_water, vox_models
from worldgen.voxel._generator import generate_chunk
from worldgen.voxel._minecraft import SAVED, check_range, chunk_bytes, level_tag
from worldgen.voxel._render import cross_section, top_down
from worldgen.voxel._store import ChunkStore, World
from worldgen.voxel._voxel_mesh import greedy_mesh, write_voxel_glb
from worldgen.world._fields import world_fields
from worldgen.world._window import Window


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
    mesh_radius: int | None = None,
    store: str | os.PathLike | None = None,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    exports: Sequence[str] = (),
    overwrite_save: bool = False,
    names: Mapping[str, str] | None = None,
) -> list[pathlib.Path]:
    """Generate every chunk within ``radius`` blocks of ``(x, z)`` into the
    store (default ``out/world.db``), then write pictures of them.

    Files: the store; ``world_map.png`` (seen from above, a pixel per
    column); ``section.png`` (the x-y slice through ``z``, caves and all);
    ``region.glb`` (a greedy-meshed block model of the chunks within
    ``mesh_radius`` blocks, one colour per block type; at most ``radius``,
    default 24 or ``radius`` if smaller). The pictures are
    swapped into ``out`` as one set (see :func:`worldgen.io.output_set`);
    the store keeps every committed chunk whatever happens.

    ``threads``: generator threads, 1 to 1024 (default: every CPU); 0 or
    less is refused before anything is written.

    ``exports`` (any of :data:`EXPORTS`) also writes the square of columns
    ``x - radius <= X < x + radius``, ``z - radius <= Z < z + radius`` (its
    chunks are generated into the store too):

    - ``'npy'``: ``surface.npy`` (int16, the y of each column's highest
      ground block: not air, water, lava, ice, leaves or logs) and
      ``water.npy`` (bool, the column's top under any tree is water or
      ice), rows z from ``z - radius``, columns x from ``x - radius``: cell
      for cell the map's window ``(x - radius, z - radius, 2 radius,
      2 radius)``;
    - ``'mca'``: ``minecraft/``, a Minecraft Java world (1.20.4 and later):
      ``level.dat`` (spawn over the land nearest ``(x, z)``, on its top block) and
      ``region/r.X.Z.mca`` holding every chunk of the square whole (see
      :mod:`worldgen.voxel._minecraft`); Minecraft makes its own terrain
      beyond them. A ``minecraft/`` already in ``out`` that is not as this
      function wrote it (a ``level.dat`` or region Minecraft saved, a
      file it added: the world was played, or is not worldgen's) is
      refused before any work unless ``overwrite_save``, which writes the
      new ``level.dat`` and regions over it (the game's other files
      stay); so is a set without ``'mca'`` that would remove such a
      ``minecraft/`` (it replaces the set that wrote it). A rerun over an
      untouched export writes it again;
    - ``'vox'``: ``world.vox``, the square's visible blocks as MagicaVoxel
      models (see :func:`worldgen.voxel._exports.vox_models`), centred on
      the scene's middle and standing on its ground; MagicaVoxel's scene
      takes a ``radius`` of at most 1000 and a world at most 1000 high.

    ``names``: what errors call the parameters, by parameter name (the
    command line gives its options, ``{"mesh_radius": "--mesh-radius"}``);
    by default their own names. Every check (see
    :func:`check_world_request`) comes before any work.
    """
    check_instance(config, "config", VoxelConfig)
    name = _namer(names)
    x, z, radius, mesh_radius = check_world_request(
        x=x, z=z, radius=radius, mesh_radius=mesh_radius, threads=threads, names=names
    )
    exports = _check_exports(exports, name("exports"))
    if not isinstance(overwrite_save, bool):
        raise TypeError(f"{name('overwrite_save')} must be True or False, got {overwrite_save!r}")
    if "mca" in exports:
        check_range(config.y_min, config.y_max)
        for axis, centre in (("x", x), ("z", z)):
            if abs(centre) + radius > MINECRAFT_BORDER:
                raise ValueError(
                    f"{name(axis)}: Minecraft's world ends {MINECRAFT_BORDER:,} blocks from its "
                    f"centre, and the square of {radius} blocks around {centre} reaches past "
                    f"it (the game could not load those chunks); export a square within "
                    f"+-{MINECRAFT_BORDER:,}"
                )
    if "vox" in exports:
        check_vox_area(config, radius, name)
    chunks, need = world_set_memory(
        config, x, z, radius, exports, mesh_radius=mesh_radius, threads=threads
    )
    big_mesh = mesh_radius > MESH_RADIUS
    workers = min(chunks, threads or os.cpu_count() or 1)
    many_threads = workers > 1 and workers * GENERATOR_THREAD_BYTES > need / 4
    check_memory(
        need,
        name("radius"),
        f"{chunks:,} chunks within {radius} blocks"
        + (f", meshed within {mesh_radius}," if big_mesh else "")
        + (f" made by {workers} threads at once" if many_threads else ""),
        f"choose a smaller {name('radius')}"
        + (f" or {name('mesh_radius')}" if big_mesh else "")
        + (f", or fewer {name('threads')}" if many_threads else "")
        + "; chunks already in the store are read, not made again, so a big world can be "
        "filled by several runs around different points",
    )
    about = f"seed {config.seed}, {radius} blocks around {x}, {z}"
    if store is not None:
        store = pathlib.Path(store)
        where = store.resolve()
        if where.is_relative_to(pathlib.Path(out).resolve()):
            top = where.relative_to(pathlib.Path(out).resolve()).parts[:1]
            if top and top[0] in SET_NAMES:  # a file of the set, or in its minecraft/
                raise ValueError(
                    f"{name('store')}: {store} is where the set writes its own {top[0]}; "
                    "choose another file name for the chunk store (the default is world.db)"
                )
    files_named = _set_names(x, z, radius, exports)
    with output_set(
        out, command="world", about=about, name=name("out"), names=files_named
    ) as files:
        if not overwrite_save:
            check_unplayed(files.out, name, exporting="mca" in exports)
        store_path = files.out / "world.db" if store is None else store
        try:
            world, chunk_store = open_world(config, store_path, threads=threads)
        except (ValueError, OSError) as exc:  # a foreign, damaged or mismatched file
            raise type(exc)(f"{name('store')}: {exc}") from exc
        try:
            pictures = _draw_world(
                world, config, files.staging, x, z, radius, mesh_radius, progress
            )
            if exports:
                pictures += _export(world, config, files.staging, x, z, radius, exports)
        finally:
            if chunk_store is not None:
                chunk_store.close()
    return [store_path, *files.final(pictures)]


def check_world_request(
    *,
    x: int = 0,
    z: int = 0,
    radius: int = 128,
    mesh_radius: int | None = None,
    threads: int | None = None,
    names: Mapping[str, str] | None = None,
) -> tuple[int, int, int, int]:
    """:func:`write_world_set`'s numbers checked, as ``(x, z, radius,
    mesh_radius)``; errors name each parameter as ``names`` calls it.

    Raises
    ------
    TypeError, ValueError
        A number that is not an integer, or out of its range: ``mesh_radius``
        is at most ``radius`` (the chunks it meshes are the ones made), and
        the chunks within ``radius`` of ``(x, z)`` lie within
        :data:`WORLD_REACH` of the centre.
    """
    name = _namer(names)
    x = check_int(x, name("x"), -WORLD_REACH, WORLD_REACH)
    z = check_int(z, name("z"), -WORLD_REACH, WORLD_REACH)
    radius = check_int(radius, name("radius"), 1, 4096)
    for axis, centre in (("x", x), ("z", z)):
        if abs(centre) + radius >= WORLD_REACH:  # the chunks touching the circle too
            raise ValueError(
                f"{name(axis)}: the world reaches {WORLD_REACH:,} blocks from its centre, and "
                f"the chunks within {radius} blocks of {centre} reach past it; give "
                f"{name(axis)} from {radius + 1 - WORLD_REACH} to {WORLD_REACH - radius - 1}, "
                f"or a smaller {name('radius')}"
            )
    if mesh_radius is None:
        mesh_radius = min(MESH_RADIUS, radius)
    mesh_radius = check_int(mesh_radius, name("mesh_radius"), 1, 512)
    if mesh_radius > radius:
        raise ValueError(
            f"{name('mesh_radius')} must be at most {name('radius')} ({radius}), got "
            f"{mesh_radius}: only the chunks made are meshed; give a smaller "
            f"{name('mesh_radius')} or a larger {name('radius')}"
        )
    if threads is not None and (
        isinstance(threads, bool)
        or not isinstance(threads, numbers.Integral)
        or not 1 <= threads <= 1024
    ):
        raise ValueError(
            f"{name('threads')} must be an integer from 1 to 1024, got {threads!r}; leave "
            "it out to use every CPU"
        )
    return x, z, radius, mesh_radius


def check_unplayed(out: pathlib.Path, name: Callable[[str], str], *, exporting: bool) -> None:
    """Refuse a set that would write over ``out/minecraft`` (``exporting``
    it) or remove it (a set without it replaces the one that wrote it),
    unless every file in it is as worldgen's manifest recorded it (see
    :func:`worldgen.io._outset.changed_files`): Minecraft changes
    ``level.dat`` and the regions it saves, and adds files of its own."""
    changed = changed_files(out, "minecraft")
    if not changed:
        return
    if exporting:
        fate = "the export would write over its level.dat and regions"
    elif any(
        rel.startswith("minecraft/") for s in read_manifest(out) for rel in s.get("files", {})
    ):
        fate = "this run would remove its level.dat and regions (the set it replaces wrote them)"
    else:
        return  # not worldgen's: the set leaves it alone
    more = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
    raise FileExistsError(
        f"{name('out')}: {out / 'minecraft'} has changed since worldgen wrote it "
        f"({changed[0]}{more}): Minecraft may have played it, and {fate}; choose another "
        f"{name('out')}, or give {name('overwrite_save')} to let it"
    )


def check_vox_area(config: VoxelConfig, radius: int, name: Callable[[str], str]) -> None:
    """Refuse a ``.vox`` export MagicaVoxel could not show whole (see
    :data:`worldgen.voxel._exports.VOX_REACH`): a square wider than its
    scene, or a world taller than it draws."""
    if radius > VOX_REACH:
        raise ValueError(
            f"{name('radius')}: MagicaVoxel's scene reaches {VOX_REACH} voxels either side of "
            f"its middle, so the .vox export takes a radius of at most {VOX_REACH}, got "
            f"{radius}; give {name('radius')} {VOX_REACH} or less (several runs around "
            "different centres export a larger area)"
        )
    if config.height > VOX_REACH:
        raise ValueError(
            f"{name('exports')}: MagicaVoxel draws {VOX_REACH} voxels up from its ground, and "
            f"the world's y_min..y_max spans {config.height}; for the .vox export give "
            f"y_max - y_min of at most {VOX_REACH}"
        )


def world_set_memory(
    config: VoxelConfig,
    x: int,
    z: int,
    radius: int,
    exports: Sequence[str] = (),
    *,
    mesh_radius: int | None = None,
    threads: int | None = None,
) -> tuple[int, float]:
    """How many chunks :func:`write_world_set` holds at once, and the bytes
    of memory it needs at its peak, estimated (see :mod:`worldgen._memory`);
    ``mesh_radius`` and ``threads`` as :func:`write_world_set` takes them."""
    chunks = len(chunk_range(x, z, radius))
    copies = WORLD_CHUNK_COPIES
    if exports:
        chunks = max(chunks, len(square_chunks(x - radius, z - radius, 2 * radius, 2 * radius)))
    if "vox" in exports:
        copies += VOX_CHUNK_COPIES
    meshed = len(
        chunk_range(x, z, min(MESH_RADIUS, radius) if mesh_radius is None else mesh_radius)
    )
    chunk_bytes = config.height * CHUNK * CHUNK
    making = min(chunks, threads or os.cpu_count() or 1) * GENERATOR_THREAD_BYTES
    return chunks, (copies * chunks + MESH_CHUNK_COPIES * meshed) * chunk_bytes + making


def _namer(names: Mapping[str, str] | None) -> Callable[[str], str]:
    """What errors call a parameter: its name in ``names``, else its own."""
    names = dict(names or {})
    return lambda parameter: names.get(parameter, parameter)


MESH_RADIUS = 24
"""The mesh radius of :func:`write_world_set` when none is given (or the
radius, if smaller)."""

EXPORTS = ("npy", "mca", "vox")
"""What :func:`write_world_set` exports besides its pictures."""

SET_NAMES = frozenset(
    ("world_map.png", "section.png", "region.glb", "surface.npy", "water.npy", "world.vox",
     "minecraft", "worldgen-set.json")
)  # fmt: skip
"""The names :func:`write_world_set` may write in its folder (the chunk
store may not take one)."""

WORLD_REACH = 2**30
"""How far from its centre the voxel world's chunks may lie, in blocks (the
block mesh's coordinates are checked to it)."""

MINECRAFT_BORDER = 29_999_984
"""How far from its centre Minecraft's world reaches, in blocks (its world
border's largest radius)."""


def _set_names(x: int, z: int, radius: int, exports: Sequence[str]) -> list[str]:
    """The files :func:`write_world_set` writes in its folder (the store aside)."""
    names = ["world_map.png", "section.png", "region.glb"]
    if "npy" in exports:
        names += ["surface.npy", "water.npy"]
    if "mca" in exports:
        coords = square_chunks(x - radius, z - radius, 2 * radius, 2 * radius)
        regions = sorted({(cx // REGION, cz // REGION) for cx, cz in coords})
        names += ["minecraft/level.dat"]
        names += [f"minecraft/region/{region_name(rx, rz)}" for rx, rz in regions]
    if "vox" in exports:
        names.append("world.vox")
    return names


def _check_exports(exports: object, name: str = "exports") -> tuple[str, ...]:
    if isinstance(exports, str) or not isinstance(exports, (list, tuple, set, frozenset)):
        raise TypeError(f"{name} must be a list of {', '.join(EXPORTS)}, got {exports!r}")
    for export in exports:
        if export not in EXPORTS:
            raise ValueError(f"{name} must be among {', '.join(EXPORTS)}, got {export!r}")
    return tuple(dict.fromkeys(exports))


def _export(world, config, out, x, z, radius, exports) -> list[pathlib.Path]:
    """The exports of the square of side ``2 radius`` around ``(x, z)``."""
    x0, z0, side = x - radius, z - radius, 2 * radius
    coords = square_chunks(x0, z0, side, side)
    chunks = list(world._around(coords))
    blocks, bx0, bz0 = assemble(chunks)
    area = blocks[:, z0 - bz0 : z0 - bz0 + side, x0 - bx0 : x0 - bx0 + side]
    surface, water = surface_and_water(area, y_min=config.y_min)
    written = []
    if "npy" in exports:
        written.append(write_array(out / "surface.npy", surface))
        written.append(write_array(out / "water.npy", water))
    if "mca" in exports:
        written += _write_minecraft(config, out / "minecraft", chunks, surface, water, x, z, radius)
    if "vox" in exports:
        models = vox_models(area)
        if not models:
            raise ValueError("the area holds no visible block to export as .vox; move it")
        palette = np.full((256, 4), 255, dtype=np.uint8)
        palette[: len(config.palette) - 1, :3] = [c for _, c in config.palette[1:]]
        written.append(write_vox(out / "world.vox", models, palette))
    return written


def cell_biomes(config: VoxelConfig, cx0: int, cz0: int, ncx: int, ncz: int) -> np.ndarray:
    """The world's biome at the centre column of every 4 x 4 cell of the
    chunks ``cx0 .. cx0 + ncx - 1`` by ``cz0 .. cz0 + ncz - 1``, shape
    ``(4 ncz, 4 ncx)``, read from the full-detail fields the chunks' blocks
    come from (a window stepped by 4 would be the world at a coarser level
    of detail, whose coasts and snow lines lie elsewhere). A row of chunks
    at a time."""
    parts = []
    for k in range(ncz):
        rows = Window(CHUNK * cx0, CHUNK * (cz0 + k), CHUNK * ncx, CHUNK)
        parts.append(world_fields(config.world, rows, rivers=config.rivers).biome[2::4, 2::4])
    return np.concatenate(parts)


def _write_minecraft(config, folder, chunks, surface, water, x, z, radius) -> list[pathlib.Path]:
    """``level.dat`` and the region files of ``chunks`` in ``folder``."""
    cx0 = min(c.cx for c in chunks)
    cz0 = min(c.cz for c in chunks)
    ncx = max(c.cx for c in chunks) - cx0 + 1
    ncz = max(c.cz for c in chunks) - cz0 + 1
    cells = cell_biomes(config, cx0, cz0, ncx, ncz)
    regions: dict[tuple[int, int], dict[tuple[int, int], bytes]] = {}
    for chunk in chunks:
        i, k = 4 * (chunk.cx - cx0), 4 * (chunk.cz - cz0)
        region = regions.setdefault((chunk.cx // REGION, chunk.cz // REGION), {})
        region[(chunk.cx % REGION, chunk.cz % REGION)] = chunk_bytes(
            chunk, cells[k : k + 4, i : i + 4]
        )
    written = [
        write_region(folder / "region" / region_name(rx, rz), region, timestamp=SAVED)
        for (rx, rz), region in sorted(regions.items())
    ]
    # Spawn on the land column nearest the centre (the centre when all is sea),
    # over its top block.
    land = (~water) & (surface >= config.sea_level)
    k, i = radius, radius
    if land.any() and not land[k, i]:
        kk, ii = np.nonzero(land)
        nearest = np.argmin((kk - k) ** 2 + (ii - i) ** 2)
        k, i = int(kk[nearest]), int(ii[nearest])
    sx, sz = x - radius + i, z - radius + k
    # Over the column's top block: the sea's surface, a tree's crown.
    column = next(c for c in chunks if (c.cx, c.cz) == (sx // CHUNK, sz // CHUNK))
    filled = np.flatnonzero(column.blocks[:, sz % CHUNK, sx % CHUNK] != AIR)
    top = config.y_min + int(filled[-1]) if filled.size else int(surface[k, i])
    spawn = (sx, top + 1, sz)
    level = level_tag(config.seed, spawn, f"worldgen seed {config.seed}", last_played=SAVED * 1000)
    written.insert(0, write_nbt_file(folder / "level.dat", level))
    return written


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
    meshed = set(chunk_range(x, z, mesh_radius))
    close = [c for c in chunks if (c.cx, c.cz) in meshed]
    region, rx0, rz0 = assemble(close)
    mesh = greedy_mesh(region, y_min=config.y_min, origin=(rx0, rz0))
    written.append(write_voxel_glb(out / "region.glb", mesh))
    return written
