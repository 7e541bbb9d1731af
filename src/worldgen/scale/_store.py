"""The Zarr store of a map made in blocks: layout, block tasks, resume.

Layout of ``world.zarr`` (Zarr format 3, zarr's default codecs: the bytes
of each chunk compressed with zstd):

==========  ================  ==========================================
array       dtype, shape      what
==========  ================  ==========================================
``height``  float32 (H, W)    the map's heights in [0, 1] (as height.png)
``eroded``  float32 (H, W)    heights after carving (``terrain`` only)
``biome``   uint8 (H, W)      biome index (names in the attributes)
``river``   uint8 (H, W)      0 dry, 1 river, 2 lake, 3 sea (``terrain``)
``discharge`` float32 (H, W)  in rivers: m^3/s (a world), or cells
                              draining through (the classic map); 0
                              elsewhere (``terrain`` only)
``colour``  uint8 (H, W, 3)   the shaded colour map (rivers drawn)
==========  ================  ==========================================

Chunks are ``block x block`` cells (x 3 for ``colour``), one chunk per
block and array, so each block task writes whole chunks that no other task
touches. The group's attributes hold the kind, the config (a JSON object
shaped like the TOML file, so any reader can parse it and
:func:`worldgen.config.map_config` rebuilds it; ``terrain`` the carving's
fields) and its SHA-256, the window and its step, the block size,
worldgen's version, the store's format, the layer descriptions and
``complete``.

Resume: a block is done when its cell of the array ``done`` (uint8, one
cell and one chunk per block) is 1, written after all its chunks and the
SHA-256 of each layer's block (array ``sha256``: uint8 ``(rows, cols,
layers, 32)``, one chunk per block, layers in :data:`LAYERS` order). zarr's
``LocalStore`` writes each chunk to a temporary file and renames it since
zarr 3.1.3, hence the lower bound of the ``scale`` extra, so no chunk is
ever half written; the store itself is made whole in a hidden folder
beside it and renamed into place, so a run killed as it begins leaves no
half-made store. A rerun with the same config, window and block first
checks every done block against its digests: a block whose chunks were
damaged, truncated or deleted since is made again (the same bytes as
before), the others are kept. A store of another map, or of another
format, is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pathlib
import secrets
import shutil
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from worldgen.noise._validate import check_int

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locks
    fcntl = None

BLOCK = 1024
"""Default block (and chunk) side in cells."""
FORMAT = 3
"""The store's layout version (2: block digests, the config as JSON; 3: the
sea in ``river``, ``discharge``)."""
LAYERS = {
    "height": "the map's heights in [0, 1], before carving (as height.png), float32",
    "eroded": "heights in [0, 1] after DLA, erosion and rivers (terrain only), float32",
    "biome": "biome index into attrs['biomes'], uint8",
    "river": "0 dry, 1 river, 2 lake, 3 sea (terrain only), uint8",
    "discharge": "in rivers m^3/s (a world) or cells draining through (classic), "
    "0 elsewhere (terrain only), float32",
    "colour": "shaded colour map, rivers and lakes drawn, uint8 RGB",
}


def _layers(kind: str) -> list[str]:
    return list(LAYERS) if kind == "terrain" else ["height", "biome", "colour"]


def make_block(kind: str, config, terrain_config, window) -> dict[str, np.ndarray]:
    """Every layer of ``window``, made by the library's window functions."""
    from worldgen import threads

    with threads(1):  # a worker process per core: one thread each
        if kind == "terrain":
            from worldgen.products._carved import carve_window

            made = carve_window(config, terrain_config, window)
            rivers = made.terrain.rivers
            river = np.zeros(window.shape, np.uint8)
            discharge = np.zeros(window.shape, np.float32)
            river[made.carved.water] = 3
            if rivers is not None:
                river[rivers.lakes] = 2
                river[rivers.river] = 1
                discharge[rivers.river] = rivers.accumulation[rivers.river]
            return {
                "height": made.height.astype(np.float32),
                "eroded": made.terrain.heights.astype(np.float32),
                "biome": made.carved.biomes.astype(np.uint8),
                "river": river,
                "discharge": discharge,
                "colour": made.colour,
            }
        from worldgen.products import make_layers, map_pictures

        layers = make_layers(config, window)
        pictures = map_pictures(config, window, layers=layers)
        return {
            "height": pictures.height.astype(np.float32),
            "biome": layers.biomes.astype(np.uint8),
            "colour": pictures.colour,
        }


def _digest(values: np.ndarray) -> np.ndarray:
    """SHA-256 of an array's C-order bytes, as 32 uint8."""
    data = np.ascontiguousarray(values)
    return np.frombuffer(hashlib.sha256(data.tobytes()).digest(), np.uint8)


def _region(group, window) -> tuple[slice, slice]:
    y0 = (window.y - group.attrs["window"][1]) // window.step
    x0 = (window.x - group.attrs["window"][0]) // window.step
    return slice(y0, y0 + window.height), slice(x0, x0 + window.width)


def write_block(path: str, kind: str, config, terrain_config, window, index) -> tuple:
    """Make block ``index`` and write its chunks, then their digests, then
    its done marker.

    A Dask task: pure and idempotent (a rerun writes the same bytes)."""
    import zarr

    group = zarr.open_group(path, mode="r+")
    layers = make_block(kind, config, terrain_config, window)
    rows, cols = _region(group, window)
    for name, values in layers.items():
        group[name][rows, cols] = values
    group["sha256"][index[0], index[1]] = np.stack([_digest(v) for v in layers.values()])
    group["done"][index[0], index[1]] = 1  # last: the block is complete
    return index


def check_block(path: str, kind: str, window, index) -> bool:
    """Whether block ``index`` is done and its chunks read back to the
    digests written with it (a Dask task). A chunk damaged, truncated or
    deleted since, or an unreadable marker, makes it False."""
    import zarr

    try:
        group = zarr.open_group(path, mode="r")
        if not group["done"][index[0], index[1]]:
            return False
        digests = group["sha256"][index[0], index[1]]
        rows, cols = _region(group, window)
        return all(
            np.array_equal(_digest(group[name][rows, cols]), digest)
            for name, digest in zip(_layers(kind), digests, strict=True)
        )
    except Exception:  # a chunk zarr cannot decode is damaged like any other
        return False


def config_json(kind: str, config, terrain_config) -> dict:
    """The store's ``config`` attribute: the map config as its TOML file's
    fields, and for ``terrain`` the carving's."""
    import dataclasses

    from worldgen.config import _listed, config_dict

    return {
        "kind": kind,
        "map": config_dict(config),
        "terrain": None if terrain_config is None else _listed(dataclasses.asdict(terrain_config)),
    }


def _identity(kind, config, terrain_config, window, block) -> dict:
    from worldgen import __version__

    described = config_json(kind, config, terrain_config)
    text = json.dumps(described, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return {
        "kind": kind,
        "config": described,
        "config_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "window": [window.x, window.y, window.width, window.height],
        "step": window.step,
        "block": block,
        "worldgen": __version__,
        "format": FORMAT,
    }


def open_store(path: str | os.PathLike, kind, config, terrain_config, window, block: int):
    """Open ``path`` for these blocks: made if missing, refused if it holds
    another map. Returns the zarr group.

    A new store is made whole beside ``path`` (see :func:`unfinished`) and
    renamed into place, so a run killed while making it leaves no store
    that later runs would refuse."""
    import zarr

    path = pathlib.Path(path)
    identity = _identity(kind, config, terrain_config, window, block)
    if not path.exists() or (path.is_dir() and not any(path.iterdir())):
        # An empty folder (made by hand, or what an older worldgen killed as
        # it began left) holds nothing to lose: the new store takes its place.
        _make_store(path, kind, config, identity, window, block)
    try:
        group = zarr.open_group(path, mode="r+")
        found = {k: group.attrs.get(k) for k in identity}
        found["step"] = group.attrs.get("step", 1)  # stores before levels: cells
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(
            f"out: {path} exists but is not a worldgen store ({exc}); "
            "remove it or choose another --out"
        ) from None
    if found["kind"] is None:  # another program's, or an older worldgen's cut short
        raise ValueError(
            f"out: {path} is a Zarr group but not a worldgen store (it has none of its "
            "attributes: another program wrote it, or a run of an older worldgen stopped "
            "while making it); remove it or choose another --out"
        )
    if found["format"] != FORMAT:
        raise ValueError(
            f"out: {path} is a store of an older layout (format {found['format']}, without "
            f"block digests; this is format {FORMAT}): remove it to start again, or "
            "choose another --out"
        )
    if found != identity:
        differ = sorted(k for k in identity if found[k] != identity[k])
        raise ValueError(
            f"out: {path} holds another map (its {', '.join(differ)} differ); "
            "choose another --out, or remove it to start again"
        )
    return group


def unfinished(path: str | os.PathLike) -> list[pathlib.Path]:
    """The stores for ``path`` whose making was cut short (a kill): hidden
    folders ``.NAME.*.part`` beside it, which hold no block, and which no
    live process is making (each is locked while it is made; see
    :func:`_make_store`). Without file locks (not POSIX) none is known
    dead, so none is listed."""
    path = pathlib.Path(path)
    found = sorted(p for p in path.parent.glob(f".{path.name}.*.part") if p.is_dir())
    return [p for p in found if not _held(p)]


def remove_unfinished(path: str | os.PathLike) -> None:
    """Remove what :func:`unfinished` lists."""
    for store in unfinished(path):
        shutil.rmtree(store, ignore_errors=True)


def _held(folder: pathlib.Path) -> bool:
    """Whether a live process holds ``folder``'s lock (True if that cannot
    be told: without file locks, or a folder that cannot be opened)."""
    if fcntl is None:  # pragma: no cover - not POSIX
        return True
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # a lock taken goes with it
    return False


@contextlib.contextmanager
def _locked_folder(folder: pathlib.Path) -> Iterator[None]:
    """Hold ``folder``'s lock (released when the process ends, however)."""
    if fcntl is None:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _make_store(path: pathlib.Path, kind, config, identity, window, block: int) -> None:
    """Make the empty store in a hidden folder beside ``path``, then rename
    it to ``path``: it appears with all its arrays and attributes, or not
    at all.

    The folder is locked before it takes its ``.part`` name (made as
    ``.new``, locked, renamed) and until the store is in place, so
    :func:`unfinished` tells the folder of a run that was killed (its lock
    went with it) from one still being made."""
    import zarr

    token = secrets.token_hex(4)
    fresh = path.with_name(f".{path.name}.{token}.new")
    staged = path.with_name(f".{path.name}.{token}.part")
    os.mkdir(fresh)
    try:
        with _locked_folder(fresh):
            os.rename(fresh, staged)
            group = zarr.open_group(staged, mode="w-")
            height, width = window.shape
            for name in _layers(kind):
                dtype = np.float32 if name in ("height", "eroded", "discharge") else np.uint8
                shape, chunks = (height, width), (min(block, height), min(block, width))
                if name == "colour":
                    shape, chunks = (*shape, 3), (*chunks, 3)
                group.create_array(name, shape=shape, chunks=chunks, dtype=dtype, fill_value=0)
            rows, cols = -(-height // block), -(-width // block)
            layers = len(_layers(kind))
            group.create_array(
                "sha256", shape=(rows, cols, layers, 32), chunks=(1, 1, layers, 32), dtype=np.uint8,
                fill_value=0,
            )  # fmt: skip
            group.create_array(
                "done", shape=(rows, cols), chunks=(1, 1), dtype=np.uint8, fill_value=0
            )
            group.attrs.update(
                {
                    **identity,
                    "layers": {k: LAYERS[k] for k in _layers(kind)},
                    "biomes": list(config.biome_names),
                    "complete": False,
                }
            )
            os.rename(staged, path)
    except BaseException:
        for folder in (fresh, staged):
            shutil.rmtree(folder, ignore_errors=True)
        raise


def blocks(window, block: int) -> list[tuple[tuple[int, int], object]]:
    """``((row, col), Window)`` of every block of ``window`` (of ``block``
    samples a side, at its step), row by row."""
    cols = -(-window.width // block)
    return [(divmod(i, cols), part) for i, part in enumerate(window.tiles(block))]


def check_request(kind: str, config, terrain_config, window, block: int) -> tuple:
    """``(kind, terrain_config, window, block)`` checked (see
    :func:`build_store`), with their defaults; refused before any file is
    touched."""
    from worldgen.noise._validate import check_choice, check_instance
    from worldgen.products import MapConfig, TerrainConfig
    from worldgen.world import Window

    kind = check_choice(kind, "kind", ("map", "terrain"))
    check_instance(config, "config", MapConfig)
    if kind == "terrain":
        terrain_config = TerrainConfig() if terrain_config is None else terrain_config
        check_instance(terrain_config, "terrain_config", TerrainConfig)
    else:
        terrain_config = None
    if not config.seamless:
        raise ValueError(
            "normalize='local' stretches each block to its own range; a map made in blocks "
            "needs normalize='global' or 'none'"
        )
    window = config.window if window is None else window
    check_instance(window, "window", Window)
    if kind == "terrain":
        if window.step != 1:
            raise ValueError(
                f"window: a terrain is carved on every cell, so its window needs step 1, got "
                f"step {window.step}; make the terrain at full detail, or a map at that level"
            )
        for name, side in (("width", window.width), ("height", window.height)):
            if side < 2:
                raise ValueError(
                    f"{name} must be at least 2 cells for a terrain (erosion moves between "
                    f"cells), got {side}"
                )
    block = check_int(block, "block", 64, 8192)
    try:
        import zarr  # noqa: F401
    except ImportError as exc:
        from worldgen.scale._cluster import _missing

        raise _missing(exc) from None
    return kind, terrain_config, window, block


def build_store(
    path: str | os.PathLike,
    kind: str,
    config,
    terrain_config=None,
    *,
    window=None,
    block: int = BLOCK,
    client=None,
    progress: Callable[[int, int], None] | None = None,
    checking: Callable[[int, int], None] | None = None,
) -> pathlib.Path:
    """Make every block of a map into the Zarr store at ``path``.

    Parameters
    ----------
    path : path-like
        The store (``world.zarr``); made if missing, resumed if it holds
        this map's unfinished blocks.
    kind : {'map', 'terrain'}
        The map's layers, or the carved terrain's too.
    config : MapConfig
        The map; its normalisation must be ``'global'`` or ``'none'`` (a
        block is a window of it).
    terrain_config : TerrainConfig, optional
        How to carve (``terrain``; default ``TerrainConfig()``).
    window : Window, optional
        The part of the map (default: the whole map).
    block : int
        Block and chunk side, 64 to 8192 cells.
    client : distributed.Client, optional
        Run the blocks as Dask tasks on its cluster; without, one after
        another in this process. The bytes are the same.
    progress : callable, optional
        ``progress(done, total)``: blocks done (those of an earlier run
        included).
    checking : callable, optional
        ``checking(checked, total)``: blocks an earlier run marked done,
        read back to their digests before any block is made (the others
        are counted at once).

    Returns
    -------
    pathlib.Path
    """
    kind, terrain_config, window, block = check_request(kind, config, terrain_config, window, block)
    path = pathlib.Path(path)
    remove_unfinished(path)  # what runs killed while making a store left
    group = open_store(path, kind, config, terrain_config, window, block)
    where = str(path.absolute())  # as Dask workers in another folder find it
    every = blocks(window, block)
    sound = _checked(every, where, kind, client, checking)
    todo = [(index, part) for index, part in every if not sound[index]]
    if todo and group.attrs.get("complete"):
        group.attrs["complete"] = False
    total = len(every)
    done = total - len(todo)
    if progress is not None:
        progress(done, total)
    for _ in _run(todo, where, kind, config, terrain_config, client):
        done += 1
        if progress is not None:
            progress(done, total)
    group.attrs["complete"] = True
    return path


def _checked(
    every: Sequence, path: str, kind: str, client, checking=None
) -> dict[tuple[int, int], bool]:
    """Which blocks are done and read back to their digests (as Dask tasks
    with a client); ``checking(checked, total)`` as they are."""
    report = checking if checking is not None else lambda checked, total: None
    report(0, len(every))
    if client is None:
        sound = {}
        for index, part in every:
            sound[index] = check_block(path, kind, part, index)
            report(len(sound), len(every))
        return sound
    from distributed import as_completed

    futures = client.map(
        check_block,
        [path] * len(every),
        [kind] * len(every),
        [part for _, part in every],
        [index for index, _ in every],
        key=[f"worldgen-check-{i}-{j}-{_tag(path)}" for (i, j), _ in every],
        pure=False,
    )
    index_of = {future.key: index for future, (index, _) in zip(futures, every, strict=True)}
    sound = {}
    for future in as_completed(futures):
        sound[index_of[future.key]] = future.result()
        report(len(sound), len(every))
    return sound


def _tag(path: str) -> str:
    return hashlib.sha1(path.encode()).hexdigest()[:8]


# A Dask task makes the blocks of a square of TASK_SIDE x TASK_SIDE blocks
# one after another: neighbours share what the worker's caches keep of their
# common border (ridge tiles, river regions). Since erosion needs no tiles
# of its neighbours, that is little, and one block a task balances the
# workers best (blocks of open sea cost little): at 4096 x 4096 cells on
# two idle workers, squares of 2 x 2 blocks gave 1.50 times the throughput
# of one worker, single blocks 1.71, for 1.06 and 1.10 times the CPU of one
# process.
TASK_SIDE = 1


def _tasks(todo: Sequence) -> list[list]:
    """``todo`` grouped by squares of :data:`TASK_SIDE` x
    :data:`TASK_SIDE` blocks: the squares in the order of their first
    block, the blocks of each in ``todo``'s order."""
    runs: dict[tuple[int, int], list] = {}
    for index, part in todo:
        square = (index[0] // TASK_SIDE, index[1] // TASK_SIDE)
        runs.setdefault(square, []).append((index, part))
    return list(runs.values())


def write_blocks(path: str, kind: str, config, terrain_config, run: Sequence) -> list:
    """:func:`write_block` of each ``(index, window)`` of ``run`` in order (a
    Dask task); returns their indices."""
    return [write_block(path, kind, config, terrain_config, part, index) for index, part in run]


def _run(todo: Sequence, path: str, kind, config, terrain_config, client):
    """Run the block tasks; yields each block's index as it is done."""
    if client is None:
        for index, part in todo:
            yield write_block(path, kind, config, terrain_config, part, index)
        return
    from distributed import KilledWorker, as_completed

    futures = [
        client.submit(
            write_blocks,
            path,
            kind,
            config,
            terrain_config,
            run,
            key=f"worldgen-blocks-{run[0][0][0]}-{run[0][0][1]}-{len(run)}-{_tag(path)}",
            retries=2,
        )
        for run in _tasks(todo)
    ]
    try:
        for future in as_completed(futures):
            yield from future.result()
    except KilledWorker:
        raise MemoryError(
            "dask: the workers making a block died each time (past their memory limit?); "
            "use a smaller --block, or workers with more memory"
        ) from None
    finally:
        for future in futures:
            future.cancel()
