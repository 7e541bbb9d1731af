"""``worldgen world``: the voxel world around a point."""

from __future__ import annotations

import enum
import pathlib
from typing import Annotated

from worldgen.cli._common import (
    _USER_ERRORS,
    OUT,
    Opt,
    Out,
    PresetOption,
    _fail,
    _given,
    _option,
    _progress,
    _written,
    app,
)


class WorldTerrain(enum.StrEnum):
    """The voxel world's ground (``VoxelConfig.terrain``)."""

    three_d = "3d"
    heightmap = "heightmap"


class WorldExport(enum.StrEnum):
    """What ``worldgen world --export`` writes (see ``write_world_set``)."""

    npy = "npy"
    mca = "mca"
    vox = "vox"


OPTIONS = {
    **{
        p: _option(p)
        for p in ("out", "x", "z", "radius", "mesh_radius", "store", "threads", "overwrite_save")
    },
    "exports": "--export",
}
"""The options by which the command's errors name ``write_world_set``'s parameters."""


@app.command("world")
def world_command(
    out: Out = OUT,
    config: Annotated[
        pathlib.Path | None,
        Opt(
            help="TOML world config file, its world model in a \\[world] table; options given "
            "here override it (`worldgen config --example world` prints one).",
            show_default="none",
        ),
    ] = None,
    preset: PresetOption = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer.", show_default="0")] = None,
    x: Annotated[int | None, Opt(help="World x of the centre.", show_default="the spawn's")] = None,
    z: Annotated[int | None, Opt(help="World z of the centre.", show_default="the spawn's")] = None,
    radius: Annotated[int, Opt(help="Generate the chunks within this many blocks.")] = 128,
    mesh_radius: Annotated[
        int | None,
        Opt(
            help="Mesh the chunks within this many blocks, at most --radius.",
            show_default="24, or --radius if smaller",
        ),
    ] = None,
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
    export: Annotated[
        list[WorldExport] | None,
        Opt(
            help="Also write the square of side 2*RADIUS around the centre: npy (surface.npy, "
            "water.npy, cell for cell the map's window), mca (minecraft/, a Minecraft Java "
            "1.20+ world) or vox (world.vox, MagicaVoxel); repeatable.",
            show_default="none",
        ),
    ] = None,
    overwrite_save: Annotated[
        bool,
        Opt(
            "--overwrite-save",
            help="Let the set write over (--export mca) or remove OUT/minecraft when it is not "
            "as worldgen wrote it (Minecraft played it); refused without this.",
            show_default="off",
        ),
    ] = False,
) -> None:
    """Generate the voxel world around a point into a chunk store, then draw it: map, section, block mesh."""
    from worldgen.config import load_world_toml, merge, voxel_config
    from worldgen.noise._seed import check_seed
    from worldgen.voxel import write_world_set
    from worldgen.voxel._outputs import check_world_request

    try:
        # The options' own checks, before any work (the spawn is found first).
        if seed is not None:
            check_seed(seed, "--seed")
        check_world_request(
            x=x or 0, z=z or 0, radius=radius, mesh_radius=mesh_radius, threads=threads,
            names=OPTIONS,
        )  # fmt: skip
        data = load_world_toml(config) if config is not None else {}
        if preset is not None:
            data = merge(_world_preset(preset.value), data)
        given = {"seed": seed, "caves": caves, "trees": trees, "rivers": rivers}
        given["terrain"] = None if terrain is None else terrain.value
        if seed is not None and isinstance(data.get("world"), dict):
            data["world"] = {**data["world"], "seed": seed}  # the option over the file's
        settings = voxel_config({**data, **{k: v for k, v in given.items() if v is not None}})
        with _progress() as bar:
            task = bar.add_task("chunks", total=None)

            def advance(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            if x is None or z is None:
                from worldgen.world import spawn

                sx, sz = spawn(settings.world)
                x = sx if x is None else x
                z = sz if z is None else z
            written = write_world_set(
                settings, out, x=x, z=z, radius=radius, mesh_radius=mesh_radius, store=store,
                threads=threads, progress=advance, exports=[e.value for e in export or []],
                overwrite_save=overwrite_save, names=OPTIONS,
            )  # fmt: skip
    except _USER_ERRORS as exc:
        kept = out / "world.db" if store is None else store  # what a stop leaves: the store
        named = _given({"seed": seed, "caves": caves, "trees": trees, "rivers": rivers})
        raise _fail(exc, kept if kept.is_file() else None, named, config) from None
    _written(written, out, f"seed {settings.seed}, {radius} blocks around {x}, {z}")


def _world_preset(name: str) -> dict:
    """The voxel config dict of a world preset (under a config file)."""
    from worldgen.config import preset, preset_is_world

    if not preset_is_world(name):
        raise ValueError(
            f"--preset {name} is the classic noise map, which has no voxel world; give a world "
            "preset: continents, islands or archipelago"
        )
    return {"world": preset(name)["world"]}
