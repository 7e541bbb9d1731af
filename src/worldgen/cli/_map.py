"""``worldgen map``: a map set of the world."""

from __future__ import annotations

import pathlib
from typing import Annotated, Any

from rich.markup import escape

from worldgen.cli._common import (
    _USER_ERRORS,
    OUT,
    Block,
    ContinentSize,
    Dask,
    Format,
    LandFraction,
    MaskShape,
    Mode,
    NoiseName,
    Normalize,
    Opt,
    Out,
    PresetOption,
    TilesetKind,
    WindowX,
    WindowY,
    _big,
    _big_export,
    _classic_only,
    _default_preset,
    _described,
    _err,
    _fail,
    _given,
    _globally,
    _map_window,
    _ocean_note,
    _size_notes,
    _stages,
    _written,
    app,
)


@app.command("map")
def map_command(
    out: Out = OUT,
    config: Annotated[
        pathlib.Path | None,
        Opt(
            help="TOML config file; options given here override it "
            "(`worldgen config --example map` prints one).",
            show_default="none",
        ),
    ] = None,
    preset: PresetOption = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer.", show_default="0")] = None,
    width: Annotated[int | None, Opt(help="Samples across.", show_default="512")] = None,
    height: Annotated[int | None, Opt(help="Samples down.", show_default="512")] = None,
    x: WindowX = None,
    y: WindowY = None,
    level: Annotated[
        int,
        Opt(
            min=0,
            max=20,
            help="World presets: level of detail, one sample per 2^LEVEL cells across "
            "(an overview: --level 7 shows 65536 cells in 512 samples).",
        ),
    ] = 0,
    continent_size: ContinentSize = None,
    land_fraction: LandFraction = None,
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
            help="World presets: height of the highest peaks, in metres. Classic maps: cells "
            "high a height of 1.0 stands, for shading (a world unit: every window shades alike).",
            show_default="240 m (islands 160, archipelago 120); classic: 128, a preset's grows "
            "with the map",
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
        Opt(
            help="Also cut the heights into TILE x TILE PNGs under tiles/ (at most 16384 of them).",
            show_default="none",
        ),
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
    block: Block = None,
) -> None:
    """Write a map set: 16-bit heights, shaded colour map, biome map and legend, tilemap (Tiled JSON with its tileset, CSV, PNG).

    With --export zarr, cog or tiles, write instead world.zarr (every layer, made block by block, resumable), world.tif (a Cloud-Optimized GeoTIFF of the heights) and tiles/ (a z/x/y pyramid of the colour map): for maps of any size, on Dask if asked."""
    # Errors about a parameter given here name its option (the first statement:
    # locals() holds the options alone).
    named = _given(
        {k: v for k, v in locals().items() if k != "config"},
        mask="mask shape",
        mask_radius="mask radius",
        power="curve power",
    )
    from worldgen.config import ConfigError, map_config, merge
    from worldgen.io import write_map_set
    from worldgen.io._mapset import STAGES

    terrain = {
        "seed": seed, "width": width, "height": height, "scale": scale, "octaves": octaves,
        "persistence": persistence, "lacunarity": lacunarity,
        "noise": noise and noise.value, "mode": mode and mode.value,
        "normalize": normalize and normalize.value,
    }  # fmt: skip
    world = {"continent_size": continent_size, "land_fraction": land_fraction}
    try:
        name = _default_preset(preset, config)
        data, w, h, window = _map_window(config, name, terrain, x, y, world)
        if "world" in data and relief is not None:  # a world preset's or the file's [world]
            data, relief = merge(data, {"world": {"relief": relief}}), None
        overrides: dict[str, Any] = {}
        if offset_x is not None or offset_y is not None:
            old = data.get("terrain", {}).get("offset", (0.0, 0.0))
            if not isinstance(old, (list, tuple)) or len(old) != 2:  # the file's
                raise ConfigError(
                    f"[terrain] offset must be two finite numbers (x, y), got {old!r}"
                )
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
        _classic_only(
            settings,
            {
                "scale": scale, "offset_x": offset_x, "offset_y": offset_y, "octaves": octaves,
                "persistence": persistence, "lacunarity": lacunarity, "noise": noise,
                "mode": mode, "normalize": normalize, "mask": mask, "mask_radius": mask_radius,
                "power": power, "climate_scale": climate_scale,
            },
        )  # fmt: skip
        if level:
            if settings.world is None:
                raise ValueError("--level applies to world presets; classic maps have no levels")
            window = _leveled(settings, window, level)
        note = _ocean_note(settings, window)
        if _big_export(export, block, tile, dask):
            if normalize is not Normalize.local:  # blocks are windows: seamless heights
                settings = _globally(settings)
            written = _big("map", settings, None, out, window, export, dask, block)
        else:
            with _stages(STAGES) as advance, _size_notes():
                written = write_map_set(
                    settings, out, window=window, formats=[f.value for f in export or []], tile=tile,
                    relief=relief, blend=blend, progress=advance, name="--out",
                )  # fmt: skip
    except _USER_ERRORS as exc:
        raise _fail(exc, options=named, config=config) from None
    if note is not None:
        _err.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False)
    _written(written, out, _described(settings, window))


def _leveled(settings, window, level: int):
    """The window at a level of detail: the same number of samples, each
    standing for 2^level cells, from the top-left given (``--x/--y``, so
    that a window is a crop of a bigger one), or without one around the
    spawn."""
    from worldgen.world import Window

    step = 2**level
    if window is not None:
        return Window(window.x, window.y, window.width, window.height, step)
    window = settings.window
    cx, cy = window.x + window.width // 2, window.y + window.height // 2
    return Window(
        cx - window.width * step // 2, cy - window.height * step // 2, window.width,
        window.height, step,
    )  # fmt: skip
