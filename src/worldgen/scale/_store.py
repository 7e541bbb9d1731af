"""The Zarr store of a map made in blocks: layout, block tasks, resume.

Layout of ``world.zarr`` (Zarr format 3, zarr's default codecs: the bytes
of each chunk compressed with zstd):

==========  ================  ==========================================
array       dtype, shape      what
==========  ================  ==========================================
``height``  float32 (H, W)    the map's heights in [0, 1] (as height.png)
``eroded``  float32 (H, W)    heights after carving (``terrain`` only)
``biome``   uint8 (H, W)      biome index (names in the attributes)
``river``   uint8 (H, W)      1 river, 2 lake, 0 dry (``terrain`` only)
``colour``  uint8 (H, W, 3)   the shaded colour map (rivers drawn)
==========  ================  ==========================================

Chunks are ``block x block`` cells (x 3 for ``colour``), one chunk per
block and array, so each block task writes whole chunks that no other task
touches. The group's attributes hold the kind, the config (its repr and
SHA-256), the window, the block size, worldgen's version, the layer
descriptions and ``complete``.

Resume: a block is done when its cell of the array ``done`` (uint8, one
cell and one chunk per block) is 1, written after all its chunks (zarr's
``LocalStore`` writes each chunk to a temporary file and renames it since
zarr 3.1.3, hence the lower bound of the ``scale`` extra, so no chunk is
ever half written). A rerun with the same
config, window and block skips the done blocks and ends with the same
bytes; one with another config refuses the store.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
from collections.abc import Callable, Sequence

import numpy as np

from worldgen.noise._validate import check_int

BLOCK = 1024
"""Default block (and chunk) side in cells."""
LAYERS = {
    "height": "the map's heights in [0, 1], before carving (as height.png), float32",
    "eroded": "heights in [0, 1] after DLA, erosion and rivers (terrain only), float32",
    "biome": "biome index into attrs['biomes'], uint8",
    "river": "1 river, 2 lake, 0 dry (terrain only), uint8",
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
            if rivers is not None:
                river[rivers.lakes] = 2
                river[rivers.river] = 1
            return {
                "height": made.height.astype(np.float32),
                "eroded": made.terrain.heights.astype(np.float32),
                "biome": made.carved.biomes.astype(np.uint8),
                "river": river,
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


def write_block(path: str, kind: str, config, terrain_config, window, index) -> tuple:
    """Make block ``index`` and write its chunks, then its done marker.

    A Dask task: pure and idempotent (a rerun writes the same bytes)."""
    import zarr

    group = zarr.open_group(path, mode="r+")
    layers = make_block(kind, config, terrain_config, window)
    y0 = window.y - group.attrs["window"][1]
    x0 = window.x - group.attrs["window"][0]
    for name, values in layers.items():
        group[name][y0 : y0 + window.height, x0 : x0 + window.width] = values
    group["done"][index[0], index[1]] = 1  # last: the block is complete
    return index


def _identity(kind, config, terrain_config, window, block) -> dict:
    from worldgen import __version__

    text = repr((kind, config, terrain_config))
    return {
        "kind": kind,
        "config": text,
        "config_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "window": [window.x, window.y, window.width, window.height],
        "block": block,
        "worldgen": __version__,
    }


def open_store(path: str | os.PathLike, kind, config, terrain_config, window, block: int):
    """Open ``path`` for these blocks: made if missing, refused if it holds
    another map. Returns the zarr group."""
    import zarr

    path = pathlib.Path(path)
    identity = _identity(kind, config, terrain_config, window, block)
    if path.exists():
        try:
            group = zarr.open_group(path, mode="r+")
            found = {k: group.attrs.get(k) for k in identity}
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(
                f"out: {path} exists but is not a worldgen store ({exc}); "
                "remove it or choose another --out"
            ) from None
        if found != identity:
            differ = sorted(k for k in identity if found[k] != identity[k])
            raise ValueError(
                f"out: {path} holds another map (its {', '.join(differ)} differ); "
                "choose another --out, or remove it to start again"
            )
        return group
    group = zarr.open_group(path, mode="w-")
    height, width = window.shape
    for name in _layers(kind):
        dtype = np.float32 if name in ("height", "eroded") else np.uint8
        shape, chunks = (height, width), (min(block, height), min(block, width))
        if name == "colour":
            shape, chunks = (*shape, 3), (*chunks, 3)
        group.create_array(name, shape=shape, chunks=chunks, dtype=dtype, fill_value=0)
    rows, cols = -(-height // block), -(-width // block)
    group.create_array("done", shape=(rows, cols), chunks=(1, 1), dtype=np.uint8, fill_value=0)
    group.attrs.update(
        {
            **identity,
            "layers": {k: LAYERS[k] for k in _layers(kind)},
            "biomes": list(config.biomes.names),
            "complete": False,
        }
    )
    return group


def blocks(window, block: int) -> list[tuple[tuple[int, int], object]]:
    """``((row, col), Window)`` of every block of ``window``, row by row."""
    from worldgen.world import Window

    out = []
    for row, y in enumerate(range(0, window.height, block)):
        for col, x in enumerate(range(0, window.width, block)):
            h = min(block, window.height - y)
            w = min(block, window.width - x)
            out.append(((row, col), Window(window.x + x, window.y + y, w, h)))
    return out


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

    Returns
    -------
    pathlib.Path
    """
    from worldgen.noise._validate import check_instance
    from worldgen.products import MapConfig, TerrainConfig
    from worldgen.world import Window

    if kind not in ("map", "terrain"):
        raise ValueError(f"kind must be 'map' or 'terrain', got {kind!r}")
    check_instance(config, "config", MapConfig)
    if kind == "terrain":
        terrain_config = TerrainConfig() if terrain_config is None else terrain_config
        check_instance(terrain_config, "terrain_config", TerrainConfig)
    else:
        terrain_config = None
    if config.terrain.normalize == "local":
        raise ValueError(
            "normalize='local' stretches each block to its own range; a map made in blocks "
            "needs normalize='global' or 'none'"
        )
    window = config.terrain.window if window is None else window
    check_instance(window, "window", Window)
    block = check_int(block, "block", 64, 8192)
    try:
        import zarr  # noqa: F401
    except ImportError as exc:
        from worldgen.scale._cluster import _missing

        raise _missing(exc) from None
    path = pathlib.Path(path)
    group = open_store(path, kind, config, terrain_config, window, block)
    finished = group["done"][:]
    every = blocks(window, block)
    todo = [(index, part) for index, part in every if not finished[index]]
    total = len(every)
    done = total - len(todo)
    if progress is not None:
        progress(done, total)
    for _ in _run(todo, str(path), kind, config, terrain_config, client):
        done += 1
        if progress is not None:
            progress(done, total)
    group.attrs["complete"] = True
    return path


def _run(todo: Sequence, path: str, kind, config, terrain_config, client):
    """Run the block tasks; yields as each finishes."""
    if client is None:
        for index, part in todo:
            yield write_block(path, kind, config, terrain_config, part, index)
        return
    from distributed import as_completed

    futures = [
        client.submit(
            write_block,
            path,
            kind,
            config,
            terrain_config,
            part,
            index,
            key=f"worldgen-block-{index[0]}-{index[1]}-{hashlib.sha1(path.encode()).hexdigest()[:8]}",
            retries=2,
        )
        for index, part in todo
    ]
    try:
        for future in as_completed(futures):
            yield future.result()
    finally:
        for future in futures:
            future.cancel()
