"""The big-raster outputs of a map: the Zarr store, a COG and a tile pyramid."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import warnings
from collections.abc import Callable, Iterable, Sequence

from worldgen.scale._store import BLOCK, build_store, check_request

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
    ``progress(stage, done, total)`` reports the stages ``check`` (the
    blocks of an earlier run read back), ``blocks``, ``cog`` and ``tiles``.

    One run at a time per folder (it is locked); a run first removes the
    partial files a killed run left (a store it was making,
    ``.world.tif.*.part*``, half-written tiles), and drops from
    ``worldgen-set.json`` the sets these outputs replace; once every output
    is complete, it records them there (each file's size and SHA-256, as
    every set of worldgen's), with the ``world.tif`` and ``tiles/`` of the
    set it replaced that this run did not make again but kept, unchanged:
    the folder's outputs are all listed. Before any work it refuses a
    ``world.tif`` that is a folder, a ``tiles`` that is a file, and a
    ``tiles/`` holding tiles of another map (its ``.worldgen-source.json``
    names the store they were cut from) or files worldgen did not write:
    a rerun keeps the tiles already made only when they are this map's.
    Outputs not asked for are left as they are, unless they are another
    map's (a ``world.tif`` or ``tiles/`` worldgen made of another config or
    window): those are refused, so that no folder holds one map's store
    beside another's COG or tiles.
    """
    from worldgen.io._outset import (
        _locked,
        check_output_dir,
        forget_sets,
        makes_output_dir,
        record_set,
        unchanged_files,
    )
    from worldgen.io._raster import pyramid_files

    if isinstance(formats, str) or not isinstance(formats, Iterable):
        raise TypeError(
            f"formats must be a list of format names ({', '.join(BIG_FORMATS)}), got {formats!r}"
        )
    formats = list(formats)
    unknown = sorted(set(formats) - set(BIG_FORMATS))
    if unknown or not formats:
        raise ValueError(f"formats must be some of {', '.join(BIG_FORMATS)}, got {formats!r}")
    kind, terrain_config, window, block = check_request(kind, config, terrain_config, window, block)
    made = makes_output_dir(out)
    out = check_output_dir(out)
    names = [STORE, *([COG] if "cog" in formats else []), *([TILES] if "tiles" in formats else [])]
    source = _tiles_source(kind, config, terrain_config, window, block)
    try:
        with _locked(out, "out"):
            _check_targets(out, formats, source)
            _remove_partials(out)
            replaced = forget_sets(out, names)
            # This map's outputs not asked for this time stay (the same
            # map's: _check_targets refused another's), and so in the set.
            kept = unchanged_files(out, replaced, sorted({COG, TILES} - set(names)))
            try:
                written = _write(
                    kind, config, terrain_config, out, formats, window, block, dask, progress,
                    source,
                )  # fmt: skip
            except OSError as exc:
                raise _no_room(exc, out) from None
            # The pyramid's own files only: never height tiles a map set
            # wrote into tiles/ (a set that replaced them would remove this
            # one's).
            found = {STORE: sorted((out / STORE).rglob("*")), COG: [out / COG]}
            found[TILES] = pyramid_files(out / TILES) if TILES in names else []
            files = [p.relative_to(out).as_posix() for n in names for p in found[n] if p.is_file()]
            record_set(out, files, command=kind, about=_about(config, window, block), known=kept)
    except BaseException:
        if made:  # leave no empty directory behind a failed first run
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
    return written


def _no_room(exc: OSError, out: pathlib.Path) -> OSError:
    """A full disk or quota as one line naming ``out``, what is kept and the
    fix; other errors as they are."""
    from worldgen.io._outset import _NO_ROOM

    if exc.errno not in _NO_ROOM:
        return exc
    at = f", at {exc.filename}" if exc.filename is not None else ""
    clear = OSError(
        f"out: no space left writing into {out} ({exc.strerror or exc}{at}); {_kept(out)}; "
        "free some space there or choose another --out"
    )
    clear.errno = exc.errno
    return clear


def _kept(out: pathlib.Path) -> str:
    """What a run into ``out`` that stopped leaves to resume from."""
    if (out / STORE).is_dir():
        return f"the blocks made are kept in {STORE}; the same command resumes"
    return "no block was made"


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


def _tiles_source(kind, config, terrain_config, window, block) -> dict:
    """What ``tiles/`` records of the store its tiles are cut from: the
    store's identity without the config itself (its SHA-256 stands for it)."""
    from worldgen.scale._store import _identity

    identity = _identity(kind, config, terrain_config, window, block)
    return {k: v for k, v in identity.items() if k != "config"}


def _check_targets(out: pathlib.Path, formats: Sequence[str], source: dict) -> None:
    """Refuse, before any work, outputs that cannot be written where they
    go, a ``tiles/`` whose tiles a rerun would keep though they are not
    this map's, and a ``world.tif`` or ``tiles/`` of another map that this
    run, not asked for them, would leave beside its own outputs."""
    cog, tiles = out / COG, out / TILES
    if "cog" in formats and cog.is_dir():
        raise IsADirectoryError(
            f"out: {cog} is a folder, where the COG goes; remove it or choose another --out"
        )
    if "tiles" in formats:
        _check_tiles(tiles, source)
    others = [
        name
        for name, export, made in ((COG, "cog", _cog_map), (TILES, "tiles", _tiles_map))
        if export not in formats and made(out / name) not in (None, _map_of(source))
    ]
    if others:
        is_, it, it_were = (
            ("is", "it", "it were") if len(others) == 1 else ("are", "them", "they were")
        )
        raise FileExistsError(
            f"out: {' and '.join(others)} in {out} {is_} another map's (another config, "
            f"window or worldgen version), which this run would leave beside its {STORE} as "
            f"if {it_were} this map's; remove {it} or choose another --out"
        )


def _check_tiles(tiles: pathlib.Path, source: dict) -> None:
    """Refuse a ``tiles`` that is a file, or a ``tiles/`` whose files are
    not this map's tiles."""
    if not os.path.lexists(tiles):
        return
    if not tiles.is_dir():
        raise NotADirectoryError(
            f"out: {tiles} is a file, where the tile pyramid's folder goes; remove it or "
            "choose another --out"
        )
    found = _tiles_marker(tiles)
    if found is not None and _map_of(found) == _map_of(source):
        return  # this map's tiles (whatever the block), from a run that stopped: kept
    if found is None and not any(tiles.iterdir()):
        return
    what = (
        "the tiles of another map" if found is not None else "files that are not this map's tiles"
    )
    raise FileExistsError(
        f"out: {tiles} holds {what}, which this map's pyramid would be mixed with; "
        "remove it or choose another --out"
    )


def _map_of(found: dict) -> dict:
    """Which map (and window of it) an output holds, whatever its block."""
    return {k: found.get(k) for k in ("kind", "config_sha256", "window", "step", "worldgen")}


def _tiles_marker(tiles: pathlib.Path) -> dict | None:
    from worldgen.io._raster import PYRAMID_SOURCE

    try:
        found = json.loads((tiles / PYRAMID_SOURCE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def _tiles_map(tiles: pathlib.Path) -> dict | None:
    """The map the pyramid in ``tiles/`` was cut from; None if it is not
    worldgen's (no readable ``.worldgen-source.json``)."""
    found = _tiles_marker(tiles) if tiles.is_dir() else None
    return None if found is None else _map_of(found)


def _cog_map(cog: pathlib.Path) -> dict | None:
    """The map of the COG at ``cog`` (its tags and geotransform); None if
    there is none, it is not worldgen's or it cannot be read."""
    if not cog.is_file():
        return None
    try:
        import rasterio

        with warnings.catch_warnings(), rasterio.open(cog) as src:
            warnings.simplefilter("ignore")  # a world.tif of another program: no CRS...
            tags, transform, shape = src.tags(), src.transform, (src.width, src.height)
    except Exception:  # no rasterio, or a file GDAL cannot read: not ours to judge
        return None
    if "config_sha256" not in tags or "kind" not in tags:
        return None
    return {
        "kind": tags["kind"],
        "config_sha256": tags["config_sha256"],
        "window": [round(transform.c), round(-transform.f), *shape],
        "step": round(transform.a),
        "worldgen": tags.get("worldgen"),
    }


def _remove_partials(out: pathlib.Path) -> None:
    """The partial files of a killed run: a store it was making (which
    holds no block yet), the COG's staged copies (GDAL's ``.ovr.tmp``
    among them) and the tile pyramid's unfinished tiles."""
    from worldgen.scale._store import remove_unfinished

    remove_unfinished(out / STORE)
    for part in out.glob(f".{COG}.*"):
        if ".part" in part.name:
            part.unlink(missing_ok=True)
    if (out / TILES).is_dir():
        for part in (out / TILES).rglob(".*.part"):
            part.unlink(missing_ok=True)


def _write(kind, config, terrain_config, out, formats, window, block, dask, progress, source):
    from worldgen.io import write_cog, write_tile_pyramid
    from worldgen.io._atomic import atomic_output
    from worldgen.io._raster import PYRAMID_SOURCE
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
            checking=stage("check"),
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
                block=max(128, min(512, block // 16 * 16)),  # GDAL: a multiple of 16
                origin=(window.x, window.y),
                step=window.step,
                metadata=tags,
                progress=stage("cog"),
            )
        )
    if "tiles" in formats:
        marker = out / TILES / PYRAMID_SOURCE
        if _tiles_marker(out / TILES) != source:  # before the first tile, or another block
            with atomic_output(marker) as tmp:
                tmp.write_text(json.dumps(source, sort_keys=True), encoding="utf-8")
        written.append(write_tile_pyramid(out / TILES, group["colour"], progress=stage("tiles")))
    return written
