"""The big-raster outputs of a map: the Zarr store, a COG and a tile pyramid."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
from collections.abc import Callable, Sequence

from worldgen.scale._store import BLOCK, build_store

BIG_FORMATS = ("zarr", "cog", "tiles")
"""``--export`` formats written block by block, for maps of any size."""
STORE = "world.zarr"
COG = "world.tif"
TILES = "tiles"
DASK_CELLS = 4096 * 4096
"""Maps of more cells than this run on a local Dask cluster unless told."""


def write_big_set(
    kind: str,
    config,
    terrain_config,
    out: str | os.PathLike,
    *,
    formats: Sequence[str] = ("zarr",),
    window=None,
    block: int = BLOCK,
    dask: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[pathlib.Path]:
    """Write ``out/world.zarr`` block by block, then from it ``world.tif``
    (a COG of the carved heights, or the map's for ``map``) and
    ``tiles/`` (a z/x/y pyramid of the colour map), as ``formats`` ask.

    ``dask``: ``'local'``, a scheduler address, or None: the
    ``WORLDGEN_DASK`` variable if set, else a local cluster for maps of
    more than :data:`DASK_CELLS` cells and this process for smaller ones.
    The store is kept in every case: it is what a rerun resumes from.
    ``progress(stage, done, total)`` reports the stages ``blocks``, ``cog``
    and ``tiles``.

    One run at a time per folder (it is locked); a run first removes the
    partial files a killed run left (``.world.tif.*.part*``, half-written
    tiles), and drops from ``worldgen-set.json`` the sets these outputs
    replace; once every output is complete, it records them there (each
    file's size and SHA-256, as every set of worldgen's).
    """
    from worldgen.io._outset import _locked, check_output_dir, forget_sets, record_set

    formats = list(formats)
    unknown = sorted(set(formats) - set(BIG_FORMATS))
    if unknown or not formats:
        raise ValueError(f"formats must be some of {', '.join(BIG_FORMATS)}, got {formats!r}")
    out = check_output_dir(out)
    window = config.window if window is None else window
    names = [STORE, *([COG] if "cog" in formats else []), *([TILES] if "tiles" in formats else [])]
    with _locked(out, "out"):
        _remove_partials(out)
        forget_sets(out, names)
        written = _write(kind, config, terrain_config, out, formats, window, block, dask, progress)
        files = [
            p.relative_to(out).as_posix()
            for name in names
            for p in ([out / name] if (out / name).is_file() else sorted((out / name).rglob("*")))
            if p.is_file()
        ]
        record_set(out, files, command=kind, about=_about(config, window, block))
    return written


def _about(config, window, block: int) -> str:
    t = config.terrain
    if config.world is not None:
        return (
            f"{window.width}x{window.height} at x {window.x}, y {window.y}, "
            f"seed {config.seed}, blocks of {block}"
        )
    return (
        f"{window.width}x{window.height} at x {window.x}, y {window.y} of the "
        f"{t.width}x{t.height} map, seed {t.seed}, blocks of {block}"
    )


def _remove_partials(out: pathlib.Path) -> None:
    """The partial files of a killed run: the COG's staged copies (GDAL's
    ``.ovr.tmp`` among them) and the tile pyramid's unfinished tiles."""
    for part in out.glob(f".{COG}.*"):
        if ".part" in part.name:
            part.unlink(missing_ok=True)
    if (out / TILES).is_dir():
        for part in (out / TILES).rglob(".*.part"):
            part.unlink(missing_ok=True)


def _write(kind, config, terrain_config, out, formats, window, block, dask, progress):
    from worldgen.io import write_cog, write_tile_pyramid
    from worldgen.scale._cluster import ENV, connect

    if dask is None:
        dask = os.environ.get(ENV) or (
            "local" if window.width * window.height > DASK_CELLS else None
        )

    def stage(name: str):
        return None if progress is None else (lambda done, total: progress(name, done, total))

    with connect(dask) if dask else contextlib.nullcontext() as client:
        store = build_store(
            out / STORE,
            kind,
            config,
            terrain_config,
            window=window,
            block=block,
            client=client,
            progress=stage("blocks"),
        )
    import zarr

    group = zarr.open_group(store, mode="r")
    written = [store]
    if "cog" in formats:
        layer = "eroded" if kind == "terrain" else "height"
        tags = {k: str(group.attrs[k]) for k in ("kind", "config_sha256", "worldgen")}
        tags["config"] = json.dumps(group.attrs["config"], sort_keys=True)
        tags["layer"] = layer
        written.append(
            write_cog(
                out / COG,
                group[layer],
                block=max(128, min(512, block)),
                origin=(window.x, window.y),
                metadata=tags,
                progress=stage("cog"),
            )
        )
    if "tiles" in formats:
        written.append(write_tile_pyramid(out / TILES, group["colour"], progress=stage("tiles")))
    return written
