"""What the commands share: the app, options, errors, progress and map windows.

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
import threading
import time
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from worldgen.cli._interrupt import raise_kept_ctrl_c

if TYPE_CHECKING:
    from worldgen.world import Window


def _flags_without_values(params: list) -> list:
    """``params`` with an empty metavar on each flag: typer's help would show
    ``<bool>`` beside ``--help`` or ``--loop/--no-loop``, which take no value."""
    for param in params:
        if getattr(param, "is_flag", False):
            param.metavar = ""
    return params


class _Group(typer.core.TyperGroup):
    def get_params(self, ctx):
        return _flags_without_values(super().get_params(ctx))


class _Command(typer.core.TyperCommand):
    def get_params(self, ctx):
        return _flags_without_values(super().get_params(ctx))


class _Typer(typer.Typer):
    """A Typer app whose commands show no value type for their flags."""

    def command(self, *args, cls=_Command, **kwargs):
        return super().command(*args, cls=cls, **kwargs)


app = _Typer(
    cls=_Group,
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
    continents = "continents"
    islands = "islands"
    archipelago = "archipelago"
    classic = "classic"
    classic_islands = "classic-islands"
    classic_continents = "classic-continents"
    classic_archipelago = "classic-archipelago"


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


def _out_dir(value) -> pathlib.Path:
    """``--out`` as a path; an empty one (an unset variable in a script) is
    refused rather than taken as the current directory."""
    text = os.fspath(value)
    if not text.strip():
        raise typer.BadParameter("it is empty; name a directory, e.g. --out out")
    return pathlib.Path(text)


Out = Annotated[
    pathlib.Path,
    typer.Option("--out", help="Directory to write into.", parser=_out_dir, metavar="<path>"),
]
OUT = pathlib.Path("worldgen-out")  # --out's default

Block = Annotated[
    int | None,
    typer.Option(
        "--block",
        help="With --export zarr/cog/tiles: block (and Zarr chunk) side.",
        show_default="1024",
    ),
]
BLOCK = 1024  # --block's default


def _big_export(
    export, block: int | None, tile: int | None = None, dask: str | None = None
) -> bool:
    """Whether ``export`` asks for the block-by-block outputs; refuses the
    options that would be ignored: ``--block`` and ``--dask`` without them,
    ``--tile`` with them."""
    big = bool(_BIG & {f.value for f in export or []})
    for name, value in (("block", block), ("dask", dask)):
        if value is not None and not big:
            raise ValueError(
                f"--{name} applies only with --export zarr, cog or tiles (the map made block by "
                f"block); add one of them or leave --{name} out"
            )
    if tile is not None and big:
        raise ValueError(
            "--tile cuts the map set's heights and does not apply with --export zarr, cog or "
            "tiles (their tiles/ is a z/x/y pyramid); leave --tile out or run twice"
        )
    return big


def _option(parameter: str) -> str:
    """The command line option of a library parameter, by which errors
    printed here name it: ``mesh_radius`` -> ``--mesh-radius``."""
    return f"--{parameter.replace('_', '-')}"


# What a command turns into one line on stderr instead of a traceback.
_USER_ERRORS = (ValueError, TypeError, OSError, MemoryError, KeyboardInterrupt)


# Whether this run has said it was interrupted (see run: typer turns a
# Ctrl-C outside a command's own handling into a silent exit 130).
_interrupted: list[bool] = [False]


def _say_interrupted(outcome: str) -> None:
    _interrupted[0] = True
    _err.print(f"[yellow]interrupted:[/yellow] {escape(outcome)}", highlight=False)


def _given(options: dict[str, Any], **phrases: str) -> dict[str, str]:
    """The options given (not None) among ``options`` (parameter name ->
    value), as what the library's errors begin with -> the option: for
    :func:`_fail`. ``phrases``: a parameter whose errors begin with other
    words (``mask_radius="mask radius"``)."""
    return {
        phrases.get(name, name): _option(name)
        for name, value in options.items()
        if value is not None
    }


def _fail(
    exc: BaseException,
    store: os.PathLike | None = None,
    options: dict[str, str] | None = None,
    config: os.PathLike | None = None,
) -> typer.Exit:
    """Say what went wrong in one line (Ctrl-C: what the output directory
    holds; ``store``, a chunk store kept whatever happens); the exit to raise.

    ``options`` (see :func:`_given`): an error that begins with a parameter
    the user gave as an option names the option (``--lake-size must be``,
    not ``lake_size must be``); the same errors from a config file keep the
    file's key and table, after the file's name (``config``)."""
    from worldgen.cli._interrupt import INTERRUPTED, outcome

    if isinstance(exc, KeyboardInterrupt):
        # First, importing nothing more: Ctrl-C during the start-up may have
        # cut numpy's import short, and it cannot be tried again.
        _say_interrupted(outcome(exc, store))
        return typer.Exit(INTERRUPTED)

    from worldgen._errors import ParameterError
    from worldgen._memory import MemoryLimitError

    # Not imported here: without the module no ConfigError was raised.
    config_module = sys.modules.get("worldgen.config")
    if config_module is not None and isinstance(exc, config_module.ConfigError):
        said = exc.said or ""
        given = [o for o in options or {} if said.startswith((f"{o} ", f"{o}:"))]
        if given:  # the option's value: "--width must be", not "[terrain] width must be"
            exc = ValueError(said)
        elif config is not None:
            exc = ValueError(f"config file {config}: {exc}")
        else:
            exc = ValueError(str(exc))

    if options and type(exc) in (ValueError, TypeError, ParameterError, MemoryLimitError):
        text = str(exc)
        head, colon, rest = text.partition(": ")
        names = head.split(", ")
        if colon and len(names) > 1 and all(n in options for n in names):
            # "width, height: ..." (a memory estimate of several options)
            exc = type(exc)(", ".join(options[n] for n in names) + colon + rest)
        for said in sorted(options, key=len, reverse=True):
            if text.startswith((f"{said} ", f"{said}:")):
                exc = type(exc)(options[said] + text[len(said) :])
                break

    if isinstance(exc, MemoryError) and "--block" not in str(exc):
        why = f" ({exc})" if str(exc) else ""
        exc = MemoryError(
            f"out of memory{why}; ask for a smaller size, or make the map block by block "
            "with --export zarr"
        )
    _err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
    return typer.Exit(1)


@contextlib.contextmanager
def _size_notes():
    """Heightmap size warnings of the work inside, printed after it as
    notes, not as Python warnings."""
    import warnings

    from worldgen.io import HeightmapSizeWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HeightmapSizeWarning)
        yield
    for warning in caught:
        if issubclass(warning.category, HeightmapSizeWarning):
            _err.print(f"[yellow]note:[/yellow] {escape(str(warning.message))}", highlight=False)
        else:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )


def leave_if_working(code: int) -> None:
    """Exit now with ``code`` if threads of a pool are still at work: after
    Ctrl-C, or a server that has stopped, work left on a pool's threads
    is deep in compiled kernels, which cannot be stopped (a landmass's
    drainage takes seconds), and the interpreter's exit would join them.
    The caller has cleaned up its output already."""
    me = threading.current_thread()
    if any(t is not me and t.is_alive() and not t.daemon for t in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


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
        _err.print("compiling kernels (once, up to about 30 s of CPU)...", highlight=False)
    return Progress(
        TextColumn("{task.description:<10}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=_err,
        transient=True,
        disable=not _err.is_terminal,  # piped: plain log lines, no blank line at the end
    )


def _map_data(
    config: pathlib.Path | None,
    preset: str | None,
    terrain: dict[str, Any],
    world: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], int, int]:
    """The map config dict: the preset, then the file, then ``terrain``
    options (those given), then ``world`` options (for a world: its seed is
    the ``seed`` option); and the map's width and height."""
    from worldgen.config import load_map_toml, merge, preset_is_world
    from worldgen.config import preset as preset_overrides

    given = {k: v for k, v in terrain.items() if v is not None}
    file_data = load_map_toml(config) if config is not None else {}
    if preset and "world" in file_data and not preset_is_world(preset):
        raise ValueError(
            f"--preset {preset} is a classic noise map, but config file {config} has a "
            "[world] table; leave out --preset for the file's world, or remove the table"
        )
    size = {**file_data.get("terrain", {}), **given}
    w, h = size.get("width", 512), size.get("height", 512)
    data = preset_overrides(preset, w, h) if preset else {}
    data = merge(merge(data, file_data), {"terrain": given})
    world = {k: v for k, v in (world or {}).items() if v is not None}
    if "world" in data:
        if "seed" in given:
            world = {"seed": given["seed"], **world}
        data = merge(data, {"world": world})
    elif world:
        names = ", ".join(map(_option, world))
        raise ValueError(
            f"{names} {'shapes' if len(world) == 1 else 'shape'} the world model, but this "
            "map is a classic noise map; "
            "use a world preset (continents, islands, archipelago) or a [world] table"
        )
    return data, w, h


# The window options of the map-making commands: a window's top-left in world
# cells, beside --width/--height.
WindowX = Annotated[
    int | None,
    typer.Option(
        "--x",
        help="Window's left column in world cells (a classic map's pixels); with "
        "--x/--y, --width/--height give the window's size.",
        show_default="around the spawn",
    ),
]
WindowY = Annotated[
    int | None,
    typer.Option(
        "--y",
        help="Window's top row in world cells (see --x).",
        show_default="around the spawn",
    ),
]


def _map_window(
    config: pathlib.Path | None,
    preset: str | None,
    terrain: dict[str, Any],
    x: int | None,
    y: int | None,
    world: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], int, int, Window | None]:
    """:func:`_map_data` for a window of the map, with the normalisation rule.

    Without ``x`` and ``y`` this is ``_map_data`` and no window (the map's
    default: around a world's spawn, or the whole classic map). With either,
    ``terrain``'s width and height are the window's size (default: the
    map's) and its top-left is world cell ``(x, y)`` (a classic map: pixel
    ``(x, y)`` of the map, which keeps the size of the preset and file,
    default 512 x 512, fixing its centre and mask), so every window is a
    crop of the same world. A classic map's window is normalised 'global'
    unless the options, preset or file say otherwise (even a window as big
    as the map: so that it joins its neighbours, which the output line then
    says); 'none' works too, and 'local' (which stretches each window to its
    own range, so windows would not join) only for the whole map.

    Returns the config dict, the map's width and height, and the window
    (``None`` for the map's default).
    """
    from worldgen.config import merge
    from worldgen.noise._validate import check_int
    from worldgen.world import Window
    from worldgen.world._window import REACH

    if x is None and y is None:
        return (*_map_data(config, preset, terrain, world), None)
    for name, value in (("--x", x), ("--y", y)):
        if value is not None:
            check_int(value, name, -REACH, REACH)
    data, w, h = _map_data(config, preset, {**terrain, "width": None, "height": None}, world)
    window = Window(x or 0, y or 0, terrain.get("width") or w, terrain.get("height") or h)
    if "world" in data:
        return data, w, h, window
    normalize = data.get("terrain", {}).get("normalize")
    if normalize is None:
        return merge(data, {"terrain": {"normalize": "global"}}), w, h, window
    if normalize == "local":
        if window == Window(0, 0, w, h):
            return data, w, h, None  # asked for: the whole map, stretched to its range
        where = (
            "--normalize local"
            if terrain.get("normalize")
            else f"config file {config}: [terrain] normalize = 'local'"
        )
        raise ValueError(
            f"{where} stretches each window to its own range, so windows would not join; "
            "with --x/--y use --normalize global (the default for windows) or none"
        )
    return data, w, h, window


def _classic_only(settings, options: dict[str, Any]) -> None:
    """Refuse classic noise map options for a world's map, naming them."""
    if settings.world is None:
        return
    given = [name for name, value in options.items() if value is not None]
    if given:
        names = ", ".join(map(_option, given))
        raise ValueError(
            f"{names} {'shapes' if len(given) == 1 else 'shape'} the classic noise map, not "
            "the world model; use "
            "--preset classic (or classic-islands, ...), or leave them out and shape the "
            "world with --continent-size, --land-fraction and --relief"
        )


def _ocean_note(settings, window) -> str | None:
    """A one-line note when a world's window holds no land at all."""
    if settings.world is None:
        return None
    from worldgen.world import Window
    from worldgen.world._elevation import elevation

    window = settings.window if window is None else window
    n = 64  # samples along the longer side
    k = max(1, max(window.width, window.height) // n)
    w, h = -(-window.width // k), -(-window.height // k)
    probe = Window(window.x, window.y, w, h, window.step * k)  # the window's own step too
    if (elevation(settings.world, probe) < 0.0).all():
        return (
            "this window is open ocean (no land in it); leave out --x/--y for a view "
            "around the spawn, or see the world from above with worldgen map --level 7"
        )
    return None


PresetOption = Annotated[
    PresetName | None,
    typer.Option(
        "--preset",
        help="Start from a preset: a world (continents, islands, archipelago) or the "
        "classic noise map (classic, classic-islands ...).",
        show_default="continents; none with --config",
    ),
]
ContinentSize = Annotated[
    int | None,
    typer.Option(
        help="World presets: side of the squares that hold one landmass each, in cells "
        "(a power of two, 1024 to 1048576).",
        show_default="65536 (islands 4096, archipelago 2048)",
    ),
]
LandFraction = Annotated[
    float | None,
    typer.Option(
        help="World presets: share of the world that is land, 0.02-0.35.",
        show_default="0.2 (archipelago 0.15)",
    ),
]


def _default_preset(preset, config: pathlib.Path | None) -> str | None:
    """The preset asked for, or the default world's when there is no config file."""
    from worldgen.config import DEFAULT_PRESET

    if preset is not None:
        return preset.value
    return DEFAULT_PRESET if config is None else None


@contextlib.contextmanager
def _stages(names: tuple[str, ...]):
    """A progress bar over named stages; yields ``advance(stage, done=0,
    total=0)``, where done/total move the bar within a stage."""
    with _progress() as bar:
        task = bar.add_task(names[0], total=len(names))

        started = time.monotonic()
        current: list[str] = []

        def advance(stage: str, done: int = 0, total: int = 0) -> None:
            raise_kept_ctrl_c()
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

        try:
            return write_big_set(
                kind, settings, carving, out, formats=formats, window=window,
                block=BLOCK if block is None else block,
                dask=dask, progress=advance,
            )  # fmt: skip
        except KeyboardInterrupt:
            from worldgen.scale._write import _kept

            bar.stop()
            _say_interrupted(_kept(pathlib.Path(out)))
            raise typer.Exit(130) from None
        except MemoryError as exc:
            if "--block" in str(exc):
                raise
            why = f" ({exc})" if str(exc) else ""
            raise MemoryError(
                f"out of memory{why}; use a smaller --block (the blocks made are kept in "
                "world.zarr; the same command resumes)"
            ) from None


def _globally(settings):
    """The config with ``normalize='global'`` if it was 'local' (blocks are
    windows of the map)."""
    import dataclasses

    if settings.seamless:
        return settings
    return dataclasses.replace(
        settings, terrain=dataclasses.replace(settings.terrain, normalize="global")
    )


def _described(settings, window) -> str:
    """'512x512, seed 0', or for a window its size and place in the map."""
    t = settings.terrain
    if settings.world is not None:
        window = settings.window if window is None else window
        level = f", level {window.step.bit_length() - 1}" if window.step > 1 else ""
        return (
            f"{window.width}x{window.height} at x {window.x}, y {window.y}{level}, "
            f"seed {settings.seed}"
        )
    if window is None:
        return f"{t.width}x{t.height}, seed {t.seed}"
    return (
        f"{window.width}x{window.height} at x {window.x}, y {window.y} of the "
        f"{t.width}x{t.height} map, seed {t.seed}, heights normalised {t.normalize!r}"
        + (" so that windows join" if t.normalize == "global" else "")
    )
