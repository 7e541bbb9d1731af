"""The ``worldgen`` command line: thin translations into library calls.

Every command that writes files takes ``--out DIR`` and works with no other
option, on built-in defaults. Library errors (bad parameters) become one red
line on stderr and exit status 1; long work shows a progress bar.
"""

from __future__ import annotations

import contextlib
import enum
import pathlib
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


class Format(enum.StrEnum):
    png16 = "png16"
    png8 = "png8"
    raw16 = "raw16"
    r16 = "r16"
    tiff = "tiff"
    npy = "npy"


def _fail(exc: BaseException) -> typer.Exit:
    _err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
    return typer.Exit(1)


def _progress() -> Progress:
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
        "--x/--y, --width/--height give the window's size. [default: the whole map]",
    ),
]
WindowY = Annotated[
    int | None,
    typer.Option("--y", help="Window's top row in world cells (see --x). [default: 0]"),
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

        def advance(stage: str, done: int = 0, total: int = 0) -> None:
            fraction = done / total if total else 0.0
            bar.update(task, description=stage, completed=names.index(stage) + fraction)

        yield advance


def _written(written: list[pathlib.Path], out: pathlib.Path, what: str) -> None:
    _out.print(f"wrote {len(written)} files to {out} ({what}):", markup=False, highlight=False)
    for path in written:
        _out.print(f"  {path}", markup=False, highlight=False)


@app.callback()
def _root() -> None:
    """worldgen: procedural worlds from a seed."""


Opt = typer.Option


@app.command("map")
def map_command(
    out: Annotated[pathlib.Path, Opt(help="Directory to write into.")] = pathlib.Path(
        "worldgen-out"
    ),
    config: Annotated[
        pathlib.Path | None, Opt(help="TOML config file; options given here override it.")
    ] = None,
    preset: Annotated[
        PresetName | None,
        Opt(help="Start from a preset (the config file and options override it)."),
    ] = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer. [default: 0]")] = None,
    width: Annotated[int | None, Opt(help="Pixels across. [default: 512]")] = None,
    height: Annotated[int | None, Opt(help="Pixels down. [default: 512]")] = None,
    x: WindowX = None,
    y: WindowY = None,
    scale: Annotated[
        float | None, Opt(help="Pixels per noise cell at the first octave. [default: 128]")
    ] = None,
    offset_x: Annotated[float | None, Opt(help="Pan right, in pixels. [default: 0]")] = None,
    offset_y: Annotated[float | None, Opt(help="Pan down, in pixels. [default: 0]")] = None,
    octaves: Annotated[int | None, Opt(help="Fractal octaves, 1-32. [default: 6]")] = None,
    persistence: Annotated[
        float | None, Opt(help="Amplitude ratio between octaves. [default: 0.5]")
    ] = None,
    lacunarity: Annotated[
        float | None, Opt(help="Frequency ratio between octaves. [default: 2]")
    ] = None,
    noise: Annotated[NoiseName | None, Opt(help="Base noise. [default: perlin]")] = None,
    mode: Annotated[Mode | None, Opt(help="Fractal mode. [default: fbm]")] = None,
    normalize: Annotated[
        Normalize | None,
        Opt(
            help="local (stretch this map), global or none (seamless). "
            "[default: local; global for a window]"
        ),
    ] = None,
    mask: Annotated[MaskShape | None, Opt(help="Island mask shape. [default: none]")] = None,
    mask_radius: Annotated[
        float | None, Opt(help="Mask radius in pixels. [default: half the smaller side]")
    ] = None,
    power: Annotated[float | None, Opt(help="Height redistribution exponent. [default: 1]")] = None,
    lake_size: Annotated[
        int | None, Opt(help="Fill enclosed lakes smaller than this many tiles. [default: 0]")
    ] = None,
    thin_water: Annotated[
        bool | None,
        Opt(
            "--thin-water/--no-thin-water", help="Turn one-tile-wide water into land. [default: on]"
        ),
    ] = None,
    isolated: Annotated[
        bool | None,
        Opt(
            "--isolated/--no-isolated",
            help="Give lone tiles their neighbours' class. [default: on]",
        ),
    ] = None,
    climate_scale: Annotated[
        float | None, Opt(help="Moisture noise scale relative to the terrain's. [default: 2]")
    ] = None,
    relief: Annotated[
        float | None,
        Opt(
            help="Cells high a height of 1.0 stands, for shading (a world unit: every "
            "window shades alike). [default: 128; a preset's grows with the map]"
        ),
    ] = None,
    export: Annotated[
        list[Format] | None,
        Opt(help="Also write the heights as png8, raw16, r16, tiff or npy (repeatable)."),
    ] = None,
    tile: Annotated[
        int | None, Opt(help="Also cut the heights into TILE x TILE PNGs under tiles/.")
    ] = None,
    blend: Annotated[bool, Opt(help="Blend band colours instead of stepping them.")] = False,
) -> None:
    """Write a map set: 16-bit heights, shaded colour map, biome map and legend, tilemap (Tiled JSON, CSV)."""
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
        settings = map_config(merge(data, overrides))
        with _stages(STAGES) as advance, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", HeightmapSizeWarning)
            written = write_map_set(
                settings, out, window=window, formats=[f.value for f in export or []], tile=tile,
                relief=relief, blend=blend, progress=advance,
            )  # fmt: skip
    except (ValueError, TypeError, OSError) as exc:
        raise _fail(exc) from None
    for warning in caught:
        _err.print(f"[yellow]note:[/yellow] {escape(str(warning.message))}", highlight=False)
    _written(written, out, _described(settings, window))


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
        pathlib.Path | None, Opt(help="TOML map config file; options given here override it.")
    ] = None,
    preset: Annotated[
        PresetName | None, Opt(help="Start from a preset. [default: islands]")
    ] = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer. [default: 0]")] = None,
    width: Annotated[int | None, Opt(help="Pixels across. [default: 512]")] = None,
    height: Annotated[int | None, Opt(help="Pixels down. [default: 512]")] = None,
    x: WindowX = None,
    y: WindowY = None,
    scale: Annotated[float | None, Opt(help="Pixels per noise cell at the first octave.")] = None,
    export: Annotated[
        list[Format] | None,
        Opt(help="Also write height.FMT and eroded.FMT in this format (repeatable)."),
    ] = None,
    droplets: Annotated[
        int | None, Opt(help="Hydraulic erosion droplets. [default: one per four cells]")
    ] = None,
    thermal: Annotated[int, Opt(help="Thermal erosion iterations.")] = 0,
    dla: Annotated[float, Opt(help="Blend of DLA mountain ridges into the heights, 0-1.")] = 0.0,
    rivers: Annotated[
        bool, Opt("--rivers/--no-rivers", help="Find and draw rivers and lakes.")
    ] = True,
    river_threshold: Annotated[
        float | None,
        Opt(
            help="Cells draining through a cell to make a river. "
            "[default: 0.006 x scale^2, about 63 for the islands preset]"
        ),
    ] = None,
    mesh: Annotated[
        list[MeshFormat] | None, Opt(help="Mesh formats to write (repeatable). [default: glb]")
    ] = None,
    multiplier: Annotated[
        float | None,
        Opt(help="Mesh height of 1.0, in cells. [default: the map's relief, 128]"),
    ] = None,
    stride: Annotated[int, Opt(help="Mesh level of detail: keep every STRIDE-th sample.")] = 1,
) -> None:
    """Write the map set, then carve the map (DLA ridges, erosion, rivers) and write it and its mesh."""
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
        with _stages(TERRAIN_STAGES) as advance:
            meshes = [m.value for m in mesh or [MeshFormat.glb]]
            written = write_terrain_set(
                settings, carving, out, window=window, formats=[f.value for f in export or []],
                meshes=meshes, progress=advance,
            )  # fmt: skip
    except (ValueError, TypeError, OSError) as exc:
        raise _fail(exc) from None
    _written(written, out, _described(settings, window))


@app.command("world")
def world_command(
    out: Annotated[pathlib.Path, Opt(help="Directory to write into.")] = pathlib.Path(
        "worldgen-out"
    ),
    config: Annotated[
        pathlib.Path | None, Opt(help="TOML world config file; options given here override it.")
    ] = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer. [default: 0]")] = None,
    x: Annotated[int, Opt(help="World x of the centre.")] = 0,
    z: Annotated[int, Opt(help="World z of the centre.")] = 0,
    radius: Annotated[int, Opt(help="Generate the chunks within this many blocks.")] = 128,
    mesh_radius: Annotated[int, Opt(help="Mesh the chunks within this many blocks.")] = 24,
    store: Annotated[
        pathlib.Path | None, Opt(help="Chunk store file. [default: OUT/world.db]")
    ] = None,
    threads: Annotated[int | None, Opt(help="Generator threads. [default: the CPU count]")] = None,
    caves: Annotated[
        bool | None, Opt("--caves/--no-caves", help="Carve caves. [default: on]")
    ] = None,
    trees: Annotated[
        bool | None, Opt("--trees/--no-trees", help="Grow trees. [default: on]")
    ] = None,
) -> None:
    """Generate the voxel world around a point into a chunk store, then draw it: map, section, block mesh."""
    from worldgen.config import load_toml, world_config
    from worldgen.world import write_world_set

    try:
        data = load_toml(config) if config is not None else {}
        given = {"seed": seed, "caves": caves, "trees": trees}
        settings = world_config({**data, **{k: v for k, v in given.items() if v is not None}})
        with _progress() as bar:
            task = bar.add_task("chunks", total=None)

            def advance(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            written = write_world_set(
                settings, out, x=x, z=z, radius=radius, mesh_radius=mesh_radius, store=store,
                threads=threads, progress=advance,
            )  # fmt: skip
    except (ValueError, TypeError, OSError) as exc:
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
    from worldgen.io import write_gif, write_png_frames
    from worldgen.motion import preset_frames

    try:
        with _err.status(f"animating {preset.value}"):
            images = preset_frames(
                preset.value, seed=seed, width=width, height=height, frames=frames, loop=loop
            )
            written = [write_gif(out / f"{preset.value}.gif", images, fps=fps, loop=True)]
            if png_frames:
                written += write_png_frames(
                    out / f"{preset.value}_frames", images, prefix=preset.value
                )
    except (ValueError, TypeError, OSError) as exc:
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
    amplitude: Annotated[float, Opt(help="Largest sideways wobble, in pixels.")] = 2.5,
    wavelength: Annotated[
        float, Opt(help="Length of one wobble along the line, in pixels.")
    ] = 30.0,
) -> None:
    """Write an SVG of shapes drawn with a hand-drawn wobble (1D Perlin noise)."""
    from worldgen.io import write_svg_polylines
    from worldgen.motion import sketch_shapes, wobble

    try:
        lines = [
            wobble(shape, amplitude=amplitude, wavelength=wavelength, seed=seed + k)
            for k, shape in enumerate(sketch_shapes())
        ]
        path = write_svg_polylines(
            out / "wobble.svg", lines, width=400, height=300, stroke_width=2.0
        )
    except (ValueError, TypeError, OSError) as exc:
        raise _fail(exc) from None
    _out.print(f"wrote {path} ({len(lines)} wobbly lines)", markup=False, highlight=False)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
