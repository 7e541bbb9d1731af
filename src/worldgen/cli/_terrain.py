"""``worldgen terrain``: the map set, carved, with its mesh."""

from __future__ import annotations

import enum
import pathlib
from typing import Annotated

from worldgen.cli._common import (
    _USER_ERRORS,
    OUT,
    Block,
    ContinentSize,
    Dask,
    Format,
    LandFraction,
    Opt,
    Out,
    PresetOption,
    WindowX,
    WindowY,
    _big,
    _big_export,
    _classic_only,
    _default_preset,
    _described,
    _fail,
    _given,
    _globally,
    _map_window,
    _size_notes,
    _stages,
    _written,
    app,
)


class MeshFormat(enum.StrEnum):
    glb = "glb"
    obj = "obj"
    ply = "ply"
    stl = "stl"


@app.command("terrain")
def terrain_command(
    out: Out = OUT,
    config: Annotated[
        pathlib.Path | None,
        Opt(
            help="TOML map config file; options given here override it "
            "(`worldgen config --example map` prints one).",
            show_default="none",
        ),
    ] = None,
    preset: PresetOption = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer.", show_default="0")] = None,
    width: Annotated[int | None, Opt(help="Cells across.", show_default="512")] = None,
    height: Annotated[int | None, Opt(help="Cells down.", show_default="512")] = None,
    x: WindowX = None,
    y: WindowY = None,
    continent_size: ContinentSize = None,
    land_fraction: LandFraction = None,
    scale: Annotated[
        float | None,
        Opt(
            help="Classic maps: pixels per noise cell at the first octave.",
            show_default="from the preset",
        ),
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
            show_default="0.006 x the hills' size^2: about 390 for continents, 175 islands, "
            "44 archipelago",
        ),
    ] = None,
    mesh: Annotated[
        list[MeshFormat] | None, Opt(help="Mesh formats to write (repeatable).", show_default="glb")
    ] = None,
    multiplier: Annotated[
        float | None,
        Opt(
            help="Mesh height of 1.0, in cells.",
            show_default="the map's relief (true heights for the world presets)",
        ),
    ] = None,
    stride: Annotated[int, Opt(help="Mesh level of detail: keep every STRIDE-th sample.")] = 1,
    dask: Dask = None,
    block: Block = None,
) -> None:
    """Write the map set, then carve the map (DLA ridges, erosion, rivers) and write it and its mesh.

    With --export zarr, cog or tiles, write instead world.zarr (every layer, the carved heights and rivers too, made block by block, resumable), world.tif (a Cloud-Optimized GeoTIFF of the carved heights) and tiles/ (a z/x/y pyramid of the colour map): for maps of any size, on Dask if asked."""
    # Errors about a parameter given here name its option (the first statement:
    # locals() holds the options alone).
    named = _given({k: v for k, v in locals().items() if k != "config"})
    from worldgen.config import map_config
    from worldgen.io._mapset import TERRAIN_STAGES, write_terrain_set
    from worldgen.products import TerrainConfig

    terrain = {"seed": seed, "width": width, "height": height, "scale": scale}
    world = {"continent_size": continent_size, "land_fraction": land_fraction}
    try:
        name = _default_preset(preset, config)
        data, _, _, window = _map_window(config, name, terrain, x, y, world)
        settings = map_config(data)
        _classic_only(settings, {"scale": scale})
        carving = TerrainConfig(
            droplets=droplets, thermal=thermal, dla=dla, rivers=rivers,
            river_threshold=river_threshold, multiplier=multiplier, stride=stride,
        )  # fmt: skip
        if _big_export(export, block, dask=dask):
            settings = _globally(settings)  # blocks are windows: seamless heights
            written = _big("terrain", settings, carving, out, window, export, dask, block)
            _written(written, out, _described(settings, window))
            return
        with _stages(TERRAIN_STAGES) as advance, _size_notes():
            meshes = [m.value for m in mesh or [MeshFormat.glb]]
            written = write_terrain_set(
                settings, carving, out, window=window, formats=[f.value for f in export or []],
                meshes=meshes, progress=advance, name="--out",
            )  # fmt: skip
    except _USER_ERRORS as exc:
        raise _fail(exc, options=named, config=config) from None
    _written(written, out, _described(settings, window))
