"""The ``worldgen`` command line: thin translations into library calls.

Every command that writes files takes ``--out DIR`` and works with no other
option, on built-in defaults. Library errors (bad parameters) become one red
line on stderr and exit status 1; long work shows a progress bar.
"""

from __future__ import annotations

import contextlib
import enum
import os
import pathlib
import sys
import time
import warnings
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:
    from worldgen.terrain import Window

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="worldgen: procedural worlds from a seed.",
)
_err = Console(stderr=True, soft_wrap=True)
_out = Console(soft_wrap=True)


class NoiseName(enum.StrEnum):
    perlin = "perlin"
    value = "value"
    simplex = "simplex"
    cellular = "cellular"


class Mode(enum.StrEnum):
    fbm = "fbm"
    billow = "billow"
    turbulence = "turbulence"
    ridged = "ridged"


class Normalize(enum.StrEnum):
    local = "local"
    global_ = "global"
    none = "none"


class MaskShape(enum.StrEnum):
    none = "none"
    square = "square"
    radial = "radial"
    square_bump = "square-bump"


class PresetName(enum.StrEnum):
    islands = "islands"
    continents = "continents"
    archipelago = "archipelago"


class TilesetKind(enum.StrEnum):
    blob47 = "blob47"
    edge16 = "edge16"
    flat = "flat"


class Format(enum.StrEnum):
    png16 = "png16"
    png8 = "png8"
    raw16 = "raw16"
    r16 = "r16"
    tiff = "tiff"
    npy = "npy"
    zarr = "zarr"
    cog = "cog"
    tiles = "tiles"


_BIG = {"zarr", "cog", "tiles"}  # formats written block by block (worldgen.scale)

Dask = Annotated[
    str | None,
    typer.Option(
        "--dask",
        help="With --export zarr/cog/tiles: 'local' (a Dask cluster of one worker per core) "
        "or a scheduler address tcp://HOST:PORT.",
        show_default="$WORLDGEN_DASK, else local for maps over 4096 x 4096, else this process",
    ),
]
Block = Annotated[
    int,
    typer.Option("--block", help="With --export zarr/cog/tiles: block (and Zarr chunk) side."),
]


# What a command turns into one line on stderr instead of a traceback.
_USER_ERRORS = (ValueError, TypeError, OSError, MemoryError, KeyboardInterrupt)


def _fail(exc: BaseException) -> typer.Exit:
    if isinstance(exc, KeyboardInterrupt):
        _err.print(
            "[yellow]interrupted:[/yellow] the output directory keeps its previous files",
            highlight=False,
        )
        return typer.Exit(130)
    if isinstance(exc, MemoryError):
        why = f" ({exc})" if str(exc) else ""
        exc = MemoryError(
            f"out of memory{why}; ask for a smaller size, or make the map block by block "
            "with --export zarr"
        )
    _err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
    return typer.Exit(1)


def _needs_compiling() -> bool:
    """Whether numba has no cached machine code yet for the noise kernels
    (the first run on a machine, or after an upgrade)."""
    from worldgen.noise import _sampling

    try:
        index = _sampling.grid2._cache._cache_file._index_path
    except AttributeError:  # numba without a cache, or a changed layout
        return False
    return not os.path.exists(index)


def _progress() -> Progress:
    if _needs_compiling():
        _err.print("compiling kernels (first run only, about a minute)...", highlight=False)
    return Progress(
        TextColumn("{task.description:<10}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=_err,
        transient=True,
    )


def _map_data(
    config: pathlib.Path | None, preset: str | None, terrain: dict[str, Any]
) -> tuple[dict[str, Any], int, int]:
    """The map config dict: the preset, then the file, then ``terrain``
    options (those given); and the map's width and height."""
    from worldgen.config import load_toml, merge
    from worldgen.config import preset as preset_overrides

    given = {k: v for k, v in terrain.items() if v is not None}
    file_data = load_toml(config) if config is not None else {}
    size = {**file_data.get("terrain", {}), **given}
    w, h = size.get("width", 512), size.get("height", 512)
    data = preset_overrides(preset, w, h) if preset else {}
    return merge(merge(data, file_data), {"terrain": given}), w, h


# The window options of the map-making commands: a window's top-left in world
# cells (pixels of the configured map), beside --width/--height.
WindowX = Annotated[
    int | None,
    typer.Option(
        "--x",
        help="Window's left column in world cells (pixels of the configured map); with "
        "--x/--y, --width/--height give the window's size.",
        show_default="the whole map",
    ),
]
WindowY = Annotated[
    int | None,
    typer.Option(
        "--y", help="Window's top row in world cells (see --x).", show_default="the whole map"
    ),
]


def _map_window(
    config: pathlib.Path | None,
    preset: str | None,
    terrain: dict[str, Any],
    x: int | None,
    y: int | None,
) -> tuple[dict[str, Any], int, int, Window | None]:
    """:func:`_map_data` for a window of the map, with the normalisation rule.

    Without ``x`` and ``y`` this is ``_map_data`` and no window (the whole
    map, as always). With either, ``terrain``'s width and height are the
    window's size (default: the map's), the map itself keeps the size of the
    preset and file (default 512 x 512, which fixes its centre and mask) and
    the window's top-left is world cell ``(x, y)``, so every window is a
    crop of the same map. A window that is not the whole map must be
    normalised 'global' (its default) or 'none': 'local' stretches each
    window to its own range, so windows would not join.

    Returns the config dict, the map's width and height, and the window
    (``None`` for the whole map).
    """
    from worldgen.config import merge
    from worldgen.terrain import Window

    if x is None and y is None:
        return (*_map_data(config, preset, terrain), None)
    data, w, h = _map_data(config, preset, {**terrain, "width": None, "height": None})
    window = Window(x or 0, y or 0, terrain.get("width") or w, terrain.get("height") or h)
    if window == Window(0, 0, w, h):
        return data, w, h, None
    normalize = data.get("terrain", {}).get("normalize")
    if normalize is None:
        return merge(data, {"terrain": {"normalize": "global"}}), w, h, window
    if normalize == "local":
        where = "--normalize local" if terrain.get("normalize") else "normalize = 'local' (config)"
        raise ValueError(
            f"{where} stretches each window to its own range, so windows would not join; "
            "with --x/--y use --normalize global (the default for windows) or none"
        )
    return data, w, h, window


@contextlib.contextmanager
def _stages(names: tuple[str, ...]):
    """A progress bar over named stages; yields ``advance(stage, done=0,
    total=0)``, where done/total move the bar within a stage."""
    with _progress() as bar:
        task = bar.add_task(names[0], total=len(names))

        started = time.monotonic()
        current: list[str] = []

        def advance(stage: str, done: int = 0, total: int = 0) -> None:
            fraction = done / total if total else 0.0
            bar.update(task, description=stage, completed=names.index(stage) + fraction)
            if not _err.is_terminal and current[-1:] != [stage]:  # piped: plain log lines
                current.append(stage)
                _err.print(f"[{time.monotonic() - started:6.1f}s] {stage}", highlight=False)

        yield advance


def _written(written: list[pathlib.Path], out: pathlib.Path, what: str) -> None:
    _out.print(f"wrote {len(written)} files to {out} ({what}):", markup=False, highlight=False)
    for path in written:
        _out.print(f"  {path}", markup=False, highlight=False)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        _out.print(f"worldgen {version('worldgen')}", markup=False, highlight=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """worldgen: procedural worlds from a seed."""


Opt = typer.Option


@app.command("map")
def map_command(
    out: Annotated[pathlib.Path, Opt(help="Directory to write into.")] = pathlib.Path(
        "worldgen-out"
    ),
    config: Annotated[
        pathlib.Path | None,
        Opt(
            help="TOML config file; options given here override it "
            "(`worldgen config --example map` prints one).",
            show_default="none",
        ),
    ] = None,
    preset: Annotated[
        PresetName | None,
        Opt(
            help="Start from a preset (the config file and options override it).",
            show_default="none",
        ),
    ] = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer.", show_default="0")] = None,
    width: Annotated[int | None, Opt(help="Pixels across.", show_default="512")] = None,
    height: Annotated[int | None, Opt(help="Pixels down.", show_default="512")] = None,
    x: WindowX = None,
    y: WindowY = None,
    scale: Annotated[
        float | None, Opt(help="Pixels per noise cell at the first octave.", show_default="128")
    ] = None,
    offset_x: Annotated[
        float | None,
        Opt(
            help="Pan right, in pixels, counted from the map centre (0: centred).", show_default="0"
        ),
    ] = None,
    offset_y: Annotated[
        float | None,
        Opt(
            help="Pan down, in pixels, counted from the map centre (0: centred).", show_default="0"
        ),
    ] = None,
    octaves: Annotated[int | None, Opt(help="Fractal octaves, 1-32.", show_default="6")] = None,
    persistence: Annotated[
        float | None, Opt(help="Amplitude ratio between octaves.", show_default="0.5")
    ] = None,
    lacunarity: Annotated[
        float | None, Opt(help="Frequency ratio between octaves.", show_default="2")
    ] = None,
    noise: Annotated[NoiseName | None, Opt(help="Base noise.", show_default="perlin")] = None,
    mode: Annotated[Mode | None, Opt(help="Fractal mode.", show_default="fbm")] = None,
    normalize: Annotated[
        Normalize | None,
        Opt(
            help="local (stretch this map), global or none (seamless).",
            show_default="local; global for a window",
        ),
    ] = None,
    mask: Annotated[MaskShape | None, Opt(help="Island mask shape.", show_default="none")] = None,
    mask_radius: Annotated[
        float | None, Opt(help="Mask radius in pixels.", show_default="half the smaller side")
    ] = None,
    power: Annotated[
        float | None, Opt(help="Height redistribution exponent.", show_default="1")
    ] = None,
    lake_size: Annotated[
        int | None, Opt(help="Fill enclosed lakes smaller than this many tiles.", show_default="0")
    ] = None,
    thin_water: Annotated[
        bool | None,
        Opt(
            "--thin-water/--no-thin-water",
            help="Turn one-tile-wide water into land.",
            show_default="on",
        ),
    ] = None,
    isolated: Annotated[
        bool | None,
        Opt(
            "--isolated/--no-isolated",
            help="Give lone tiles their neighbours' class.",
            show_default="on",
        ),
    ] = None,
    climate_scale: Annotated[
        float | None, Opt(help="Moisture noise scale relative to the terrain's.", show_default="2")
    ] = None,
    relief: Annotated[
        float | None,
        Opt(
            help="Cells high a height of 1.0 stands, for shading (a world unit: every "
            "window shades alike).",
            show_default="128; a preset's grows with the map",
        ),
    ] = None,
    export: Annotated[
        list[Format] | None,
        Opt(
            help="Also write the heights as png8, raw16, r16, tiff or npy (repeatable).",
            show_default="none",
        ),
    ] = None,
    tile: Annotated[
        int | None,
        Opt(help="Also cut the heights into TILE x TILE PNGs under tiles/.", show_default="none"),
    ] = None,
    blend: Annotated[bool, Opt(help="Blend band colours instead of stepping them.")] = False,
    tileset: Annotated[
        TilesetKind | None,
        Opt(
            help="Tilemap tiles: 47 blob transition tiles per band, 16 edge tiles, or flat "
            "colours.",
            show_default="blob47",
        ),
    ] = None,
    tile_size: Annotated[
        int | None, Opt(help="Tilemap tile size in pixels, 4-256.", show_default="16")
    ] = None,
    dask: Dask = None,
    block: Block = 1024,
) -> None:
    """Write a map set: 16-bit heights, shaded colour map, biome map and legend, tilemap (Tiled JSON with its tileset, CSV, PNG).

    With --export zarr, cog or tiles, write instead world.zarr (every layer, made block by block, resumable), world.tif (a Cloud-Optimized GeoTIFF of the heights) and tiles/ (a z/x/y pyramid of the colour map): for maps of any size, on Dask if asked."""
    from worldgen.config import map_config, merge
    from worldgen.io import HeightmapSizeWarning, write_map_set
    from worldgen.io._mapset import STAGES

    terrain = {
        "seed": seed, "width": width, "height": height, "scale": scale, "octaves": octaves,
        "persistence": persistence, "lacunarity": lacunarity,
        "noise": noise and noise.value, "mode": mode and mode.value,
        "normalize": normalize and normalize.value,
    }  # fmt: skip
    try:
        data, w, h, window = _map_window(config, preset and preset.value, terrain, x, y)
        overrides: dict[str, Any] = {}
        if offset_x is not None or offset_y is not None:
            old = data.get("terrain", {}).get("offset", (0.0, 0.0))
            overrides["terrain"] = {
                "offset": (
                    old[0] if offset_x is None else offset_x,
                    old[1] if offset_y is None else offset_y,
                )
            }
        if mask is not None or mask_radius is not None:
            overrides["mask"] = {
                **({"shape": mask.value} if mask is not None else {}),
                **({"radius": mask_radius} if mask_radius is not None else {}),
            }
            if mask is not None and mask_radius is None and "radius" not in data.get("mask", {}):
                overrides["mask"]["radius"] = min(w, h) / 2
        if power is not None:
            overrides["curve"] = {"power": power}
        cleanup = {"lake_size": lake_size, "thin_water": thin_water, "isolated": isolated}
        if any(v is not None for v in cleanup.values()):
            overrides["cleanup"] = {k: v for k, v in cleanup.items() if v is not None}
        if climate_scale is not None:
            overrides["climate_scale"] = climate_scale
        tiles = {"kind": tileset and tileset.value, "tile_size": tile_size}
        if any(v is not None for v in tiles.values()):
            overrides["tileset"] = {k: v for k, v in tiles.items() if v is not None}
        settings = map_config(merge(data, overrides))
        if _BIG & {f.value for f in export or []}:
            if normalize is not Normalize.local:  # blocks are windows: seamless heights
                settings = _globally(settings)
            written = _big("map", settings, None, out, window, export, dask, block)
            _written(written, out, _described(settings, window))
            return
        with _stages(STAGES) as advance, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", HeightmapSizeWarning)
            written = write_map_set(
                settings, out, window=window, formats=[f.value for f in export or []], tile=tile,
                relief=relief, blend=blend, progress=advance,
            )  # fmt: skip
    except _USER_ERRORS as exc:
        raise _fail(exc) from None
    for warning in caught:
        _err.print(f"[yellow]note:[/yellow] {escape(str(warning.message))}", highlight=False)
    _written(written, out, _described(settings, window))


def _big(kind, settings, carving, out, window, export, dask, block) -> list[pathlib.Path]:
    """The block-by-block outputs (worldgen.scale), with a progress bar."""
    formats = [f.value for f in export]
    other = sorted(set(formats) - _BIG)
    if other:
        raise ValueError(
            f"export: zarr, cog and tiles are written block by block and cannot be mixed "
            f"with {', '.join(other)}; run twice"
        )
    from worldgen.scale import write_big_set

    with _progress() as bar:
        tasks: dict[str, Any] = {}

        def advance(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done)
            if not _err.is_terminal and (done == total or done % max(1, total // 10) == 0):
                _err.print(f"{stage}: {done}/{total}", highlight=False)  # a log when piped

        return write_big_set(
            kind, settings, carving, out, formats=formats, window=window, block=block,
            dask=dask, progress=advance,
        )  # fmt: skip


def _globally(settings):
    """The config with ``normalize='global'`` if it was 'local' (blocks are
    windows of the map)."""
    import dataclasses

    if settings.terrain.normalize != "local":
        return settings
    return dataclasses.replace(
        settings, terrain=dataclasses.replace(settings.terrain, normalize="global")
    )


def _described(settings, window) -> str:
    """'512x512, seed 0', or for a window its size and place in the map."""
    t = settings.terrain
    if window is None:
        return f"{t.width}x{t.height}, seed {t.seed}"
    return (
        f"{window.width}x{window.height} at x {window.x}, y {window.y} of the "
        f"{t.width}x{t.height} map, seed {t.seed}"
    )


class MeshFormat(enum.StrEnum):
    glb = "glb"
    obj = "obj"
    ply = "ply"
    stl = "stl"


@app.command("terrain")
def terrain_command(
    out: Annotated[pathlib.Path, Opt(help="Directory to write into.")] = pathlib.Path(
        "worldgen-out"
    ),
    config: Annotated[
        pathlib.Path | None,
        Opt(
            help="TOML map config file; options given here override it "
            "(`worldgen config --example map` prints one).",
            show_default="none",
        ),
    ] = None,
    preset: Annotated[
        PresetName | None, Opt(help="Start from a preset.", show_default="islands")
    ] = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer.", show_default="0")] = None,
    width: Annotated[int | None, Opt(help="Pixels across.", show_default="512")] = None,
    height: Annotated[int | None, Opt(help="Pixels down.", show_default="512")] = None,
    x: WindowX = None,
    y: WindowY = None,
    scale: Annotated[
        float | None,
        Opt(help="Pixels per noise cell at the first octave.", show_default="from the preset"),
    ] = None,
    export: Annotated[
        list[Format] | None,
        Opt(
            help="Also write height.FMT and eroded.FMT in this format (repeatable).",
            show_default="none",
        ),
    ] = None,
    droplets: Annotated[
        int | None, Opt(help="Hydraulic erosion droplets.", show_default="one per four cells")
    ] = None,
    thermal: Annotated[int, Opt(help="Thermal erosion iterations.")] = 0,
    dla: Annotated[float, Opt(help="Blend of DLA mountain ridges into the heights, 0-1.")] = 0.0,
    rivers: Annotated[
        bool, Opt("--rivers/--no-rivers", help="Find and draw rivers and lakes.")
    ] = True,
    river_threshold: Annotated[
        float | None,
        Opt(
            help="Cells draining through a cell to make a river.",
            show_default="0.006 x scale^2, about 63 for the islands preset",
        ),
    ] = None,
    mesh: Annotated[
        list[MeshFormat] | None, Opt(help="Mesh formats to write (repeatable).", show_default="glb")
    ] = None,
    multiplier: Annotated[
        float | None,
        Opt(help="Mesh height of 1.0, in cells.", show_default="the map's relief, 128"),
    ] = None,
    stride: Annotated[int, Opt(help="Mesh level of detail: keep every STRIDE-th sample.")] = 1,
    dask: Dask = None,
    block: Block = 1024,
) -> None:
    """Write the map set, then carve the map (DLA ridges, erosion, rivers) and write it and its mesh.

    With --export zarr, cog or tiles, write instead world.zarr (every layer, the carved heights and rivers too, made block by block, resumable), world.tif (a Cloud-Optimized GeoTIFF of the carved heights) and tiles/ (a z/x/y pyramid of the colour map): for maps of any size, on Dask if asked."""
    from worldgen.config import map_config
    from worldgen.io._mapset import TERRAIN_STAGES, write_terrain_set
    from worldgen.terrain import TerrainConfig

    terrain = {"seed": seed, "width": width, "height": height, "scale": scale}
    try:
        name = preset.value if preset is not None else ("islands" if config is None else None)
        data, _, _, window = _map_window(config, name, terrain, x, y)
        settings = map_config(data)
        carving = TerrainConfig(
            droplets=droplets, thermal=thermal, dla=dla, rivers=rivers,
            river_threshold=river_threshold, multiplier=multiplier, stride=stride,
        )  # fmt: skip
        if _BIG & {f.value for f in export or []}:
            settings = _globally(settings)  # blocks are windows: seamless heights
            written = _big("terrain", settings, carving, out, window, export, dask, block)
            _written(written, out, _described(settings, window))
            return
        with _stages(TERRAIN_STAGES) as advance:
            meshes = [m.value for m in mesh or [MeshFormat.glb]]
            written = write_terrain_set(
                settings, carving, out, window=window, formats=[f.value for f in export or []],
                meshes=meshes, progress=advance,
            )  # fmt: skip
    except _USER_ERRORS as exc:
        raise _fail(exc) from None
    _written(written, out, _described(settings, window))


class WorldTerrain(enum.StrEnum):
    """The voxel world's ground (``WorldConfig.terrain``)."""

    three_d = "3d"
    heightmap = "heightmap"


@app.command("world")
def world_command(
    out: Annotated[pathlib.Path, Opt(help="Directory to write into.")] = pathlib.Path(
        "worldgen-out"
    ),
    config: Annotated[
        pathlib.Path | None,
        Opt(
            help="TOML world config file; options given here override it "
            "(`worldgen config --example world` prints one).",
            show_default="none",
        ),
    ] = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer.", show_default="0")] = None,
    x: Annotated[int, Opt(help="World x of the centre.")] = 0,
    z: Annotated[int, Opt(help="World z of the centre.")] = 0,
    radius: Annotated[int, Opt(help="Generate the chunks within this many blocks.")] = 128,
    mesh_radius: Annotated[int, Opt(help="Mesh the chunks within this many blocks.")] = 24,
    store: Annotated[
        pathlib.Path | None, Opt(help="Chunk store file.", show_default="OUT/world.db")
    ] = None,
    threads: Annotated[
        int | None, Opt(help="Generator threads, 1-1024.", show_default="the CPU count")
    ] = None,
    caves: Annotated[
        bool | None, Opt("--caves/--no-caves", help="Carve caves.", show_default="on")
    ] = None,
    trees: Annotated[
        bool | None, Opt("--trees/--no-trees", help="Grow trees.", show_default="on")
    ] = None,
    rivers: Annotated[
        bool | None,
        Opt("--rivers/--no-rivers", help="Carve river beds down to the sea.", show_default="on"),
    ] = None,
    terrain: Annotated[
        WorldTerrain | None,
        Opt(help="Ground: 3d (overhangs, arches) or heightmap.", show_default="3d"),
    ] = None,
) -> None:
    """Generate the voxel world around a point into a chunk store, then draw it: map, section, block mesh."""
    from worldgen.config import load_toml, world_config
    from worldgen.world import write_world_set

    try:
        data = load_toml(config) if config is not None else {}
        given = {"seed": seed, "caves": caves, "trees": trees, "rivers": rivers}
        given["terrain"] = None if terrain is None else terrain.value
        settings = world_config({**data, **{k: v for k, v in given.items() if v is not None}})
        with _progress() as bar:
            task = bar.add_task("chunks", total=None)

            def advance(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            written = write_world_set(
                settings, out, x=x, z=z, radius=radius, mesh_radius=mesh_radius, store=store,
                threads=threads, progress=advance,
            )  # fmt: skip
    except _USER_ERRORS as exc:
        raise _fail(exc) from None
    _written(written, out, f"seed {settings.seed}, {radius} blocks around {x}, {z}")


class Animation(enum.StrEnum):
    clouds = "clouds"
    fire = "fire"
    water = "water"


@app.command("animate")
def animate_command(
    out: Annotated[pathlib.Path, Opt(help="Directory to write into.")] = pathlib.Path(
        "worldgen-out"
    ),
    preset: Annotated[Animation, Opt(help="What to animate.")] = Animation.clouds,
    seed: Annotated[int, Opt(help="Any 64-bit integer.")] = 0,
    width: Annotated[int, Opt(help="Pixels across.")] = 160,
    height: Annotated[int, Opt(help="Pixels down.")] = 120,
    frames: Annotated[int, Opt(help="Number of frames.")] = 48,
    fps: Annotated[float, Opt(help="Frames per second.")] = 16.0,
    loop: Annotated[bool, Opt(help="Loop seamlessly (4D noise around a circle).")] = True,
    png_frames: Annotated[bool, Opt(help="Also write every frame as a PNG.")] = False,
) -> None:
    """Write an animated GIF of noise with time as an axis: clouds, fire or water."""
    from worldgen.io import output_set, write_gif, write_png_frames
    from worldgen.motion import preset_frames

    try:
        about = f"{preset.value}, seed {seed}, {frames} frames of {width}x{height}"
        with (
            output_set(out, command="animate", about=about) as files,
            _err.status(f"animating {preset.value}"),
        ):
            images = preset_frames(
                preset.value, seed=seed, width=width, height=height, frames=frames, loop=loop
            )
            staged = files.staging
            written = [write_gif(staged / f"{preset.value}.gif", images, fps=fps, loop=True)]
            if png_frames:
                written += write_png_frames(
                    staged / f"{preset.value}_frames", images, prefix=preset.value
                )
        written = files.final(written)
    except _USER_ERRORS as exc:
        raise _fail(exc) from None
    _out.print(
        f"wrote {written[0]} ({frames} frames, {width}x{height})", markup=False, highlight=False
    )
    if png_frames:
        _out.print(
            f"wrote {len(written) - 1} PNG frames to {written[1].parent}",
            markup=False,
            highlight=False,
        )


@app.command("wobble")
def wobble_command(
    out: Annotated[pathlib.Path, Opt(help="Directory to write into.")] = pathlib.Path(
        "worldgen-out"
    ),
    seed: Annotated[int, Opt(help="Any 64-bit integer.")] = 0,
    amplitude: Annotated[
        float, Opt(help="Largest sideways wobble, in pixels (the drawing is 400 x 300).", max=1e6)
    ] = 2.5,
    wavelength: Annotated[
        float, Opt(help="Length of one wobble along the line, in pixels.")
    ] = 30.0,
) -> None:
    """Write an SVG of shapes drawn with a hand-drawn wobble (1D Perlin noise)."""
    from worldgen.io import output_set, write_svg_polylines
    from worldgen.motion import sketch_shapes, wobble

    try:
        from worldgen.noise._seed import check_seed

        first = check_seed(seed)  # each shape takes the next seed, wrapping at 2**64
        with output_set(out, command="wobble", about=f"seed {seed}") as files:
            lines = [
                wobble(shape, amplitude=amplitude, wavelength=wavelength, seed=(first + k) % 2**64)
                for k, shape in enumerate(sketch_shapes())
            ]
            staged = write_svg_polylines(
                files.staging / "wobble.svg", lines, width=400, height=300, stroke_width=2.0
            )
        (path,) = files.final([staged])
    except _USER_ERRORS as exc:
        raise _fail(exc) from None
    _out.print(f"wrote {path} ({len(lines)} wobbly lines)", markup=False, highlight=False)


class ExampleName(enum.StrEnum):
    map = "map"
    world = "world"


@app.command("config")
def config_command(
    example: Annotated[
        ExampleName, Opt(help="Which example config to print: map or world.")
    ] = ExampleName.map,
) -> None:
    """Print an example TOML config, every key at its default, ready to edit:
    `worldgen config --example map > my_map.toml`."""
    from worldgen.config import example as example_text

    typer.echo(example_text(example.value), nl=False)


# Click's base of usage errors, wherever this typer version keeps click.
_ClickException = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def run(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` and return its exit status.

    Every failure is one line on stderr, never a traceback: usage errors
    (status 2), library errors (status 1, see ``_fail``), Ctrl-C (130), too
    little memory and unexpected errors (status 1; ``WORLDGEN_DEBUG=1``
    re-raises these to show the traceback).
    """
    from worldgen._jit import interruptible

    command = typer.main.get_command(app)
    try:
        # Ctrl-C inside a kernel the library did not guard (or while numba
        # compiles) arrives as a SystemError around it: interruptible() says
        # what it is.
        with interruptible():
            code = command.main(args=argv, prog_name="worldgen", standalone_mode=False)
    except _ClickException as exc:
        message = exc.format_message()
        if message:  # empty when the help was shown instead (no arguments)
            _err.print(
                f"[red]error:[/red] {escape(message)} (see worldgen --help)", highlight=False
            )
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        return _fail(KeyboardInterrupt()).exit_code
    except MemoryError as exc:
        return _fail(exc).exit_code
    except Exception as exc:
        if os.environ.get("WORLDGEN_DEBUG"):
            raise
        _err.print(
            f"[red]internal error:[/red] {type(exc).__name__}: {escape(str(exc))} "
            "(WORLDGEN_DEBUG=1 shows the traceback; please report it)",
            highlight=False,
        )
        return 1
    return code if isinstance(code, int) else 0


@app.command("serve")
def serve_command(
    config: Annotated[
        pathlib.Path | None,
        Opt(help="TOML map config file; the page's options override it.", show_default="none"),
    ] = None,
    preset: Annotated[
        PresetName | None, Opt(help="Start from a preset.", show_default="continents")
    ] = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer.", show_default="0")] = None,
    port: Annotated[int, Opt(help="Port on 127.0.0.1 (0: a free one).")] = 0,
    open_browser: Annotated[bool, Opt("--open", help="Open the page in a browser.")] = False,
    timeout: Annotated[float, Opt(help="Seconds a tile request may wait (then 504).")] = 60.0,
) -> None:
    """Serve the explorer: a local page to pan, zoom and fly through the world."""
    import socket
    import threading
    import webbrowser

    import uvicorn

    from worldgen.config import load_toml
    from worldgen.web import create_app

    try:
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be from 0 to 65535, got {port}")
        defaults = {"preset": preset.value if preset else None, "seed": seed}
        app_ = create_app(
            load_toml(config) if config is not None else {},
            {k: v for k, v in defaults.items() if v is not None},
            timeout=timeout,
        )
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
    except (ValueError, TypeError, OSError) as exc:
        raise _fail(exc) from None
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    _out.print(f"worldgen explorer at {url} (Ctrl+C stops it)", markup=False, highlight=False)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, [url]).start()
    config_ = uvicorn.Config(app_, log_level="warning", lifespan="on", timeout_keep_alive=75)
    server = uvicorn.Server(config_)
    server.run(sockets=[sock])


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
