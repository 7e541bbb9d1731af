"""Fuzz every public function and config of the library with bad and edge
inputs, one parameter at a time, from a small valid call.

Each example takes a target's valid keyword arguments, replaces one with a
value drawn from :data:`BAD` (wrong types, NaN, infinities, overflowing and
negative numbers, empty and ragged arrays, numpy scalars, unwritable paths)
and calls the target. Then each input of :data:`LISTED` (inputs found to
surprise users, which must each give a clear error) is tried once. The
outcome is one of:

- ``clear``: a ``ValueError``, ``TypeError`` or ``OSError`` subclass whose
  message names the parameter (or, for an ``OSError``, the path);
- ``accepted``: the call returned, and every number in the result is finite;
- ``unclear``: another exception, or a message that does not name the
  parameter (a crash of the interpreter fails the run);
- ``garbage``: a non-finite result, or a listed input accepted;
- ``unbounded``: more than :data:`~tests.fuzz._runner.BUDGET` seconds of
  CPU (a run that does not end at all is stopped by the watchdog and
  counted so).

Run as a script (the tests run it in a subprocess, so that a crash of the
interpreter is reported rather than taking the test run down with it)::

    python -m tests.fuzz.library --examples 25

It prints one JSON line: the counts, and each ``other`` outcome.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import pathlib
import sqlite3
import tempfile
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import worldgen.io as wio
import worldgen.motion as motion
import worldgen.noise as noise
import worldgen.scale as scale
import worldgen.terrain as terrain
import worldgen.voxel as world
from tests.fuzz._runner import BUDGET, Tally, Watchdog, fuzz_settings, main
from worldgen import threads

NAN = float("nan")
INF = float("inf")


class Sentinel:
    """An object of no type any parameter accepts."""

    def __repr__(self) -> str:
        return "Sentinel()"


# Bad and edge values: no value here asks for much work when accepted
# (sizes and counts stay small), so every example is quick.
BAD_VALUES: list[Any] = [
    None, True, False, "x", "", b"x", Sentinel(), {}, (), [], [[]], (1, 2), [1, "a"], 1j,
    NAN, INF, -INF, -1, 0, 1, 2, 3, 17, -1.5, 0.5, 1e-300, 1e300, -1e300, 1e308, 2**64,
    -(2**63) - 1, 2**62, np.float32(NAN), np.float32(0.5), np.float64(-INF), np.int64(-1),
    np.int64(2), np.uint64(2**64 - 1), np.bool_(True), np.array([]), np.zeros((0, 3)),
    np.zeros((2, 2, 2)), np.full((3, 3), NAN), np.full((3, 3), 1e308), np.array([["a"]]),
    np.zeros((4, 4)), np.ones((3, 3), dtype=np.uint8), np.array([1, 2, 3]),
    np.array([[0.5, INF]]), np.zeros((4, 4, 3), dtype=np.float64),
]  # fmt: skip

BAD = st.one_of(
    st.sampled_from(BAD_VALUES),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-4, max_value=40),
)


@dataclasses.dataclass
class Target:
    name: str
    call: Callable[..., Any]
    kwargs: dict[str, Any]
    aliases: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    paths: tuple[str, ...] = ()  # parameters that are file or directory paths
    # More values for the path parameters (damaged or foreign files).
    path_values: tuple[Any, ...] = ()


def _h(shape=(6, 5), seed=0) -> np.ndarray:
    return np.random.default_rng(seed).random(shape)


def _tiles() -> np.ndarray:
    return np.array([[0, 0, 1, 2], [0, 1, 1, 2], [2, 2, 1, 0]], dtype=np.uint8)


def _river() -> terrain.RiverResult:
    return terrain.rivers(_h((6, 6)), threshold=2.0)


def _flat_chunk(cx: int, cz: int) -> world.Chunk:
    blocks = np.zeros((4, 16, 16), np.uint8)
    blocks[0] = 1
    return world.Chunk(cx, cz, blocks, np.zeros((16, 16), np.int16))


def _store_files(tmp: pathlib.Path) -> tuple[pathlib.Path, ...]:
    """A chunk store, and files a store must refuse with a clear error:
    text, a foreign SQLite file with an empty ``meta`` table, a truncated
    store, a read-only store."""
    good = tmp / "good.db"
    with world.ChunkStore(good, "fuzz-v1") as store:
        store.put(_flat_chunk(0, 0))
    text = tmp / "text.db"
    text.write_text("not a database")
    foreign = tmp / "foreign.db"
    with contextlib.closing(sqlite3.connect(foreign)) as db:
        db.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        db.commit()
    truncated = tmp / "truncated.db"
    truncated.write_bytes(good.read_bytes()[:1500])
    readonly = tmp / "readonly.db"
    readonly.write_bytes(good.read_bytes())
    readonly.chmod(0o444)
    return good, text, foreign, truncated, readonly


def _store_call(path: pathlib.Path, method: str):
    """Call ``method`` of a store at ``path`` with the fuzzed arguments."""

    def call(**kwargs):
        with world.ChunkStore(path, "fuzz-v1") as store:
            return getattr(store, method)(**kwargs)

    return call


def targets(tmp: pathlib.Path) -> list[Target]:
    fbm = noise.Fractal(noise.Perlin(1), octaves=3)
    h = _h()
    rgb = np.zeros((6, 5, 3), dtype=np.uint8)
    coords = {"x": np.array([0.5, 1.5]), "y": np.array([0.25, 2.0])}
    small_map = terrain.MapConfig(terrain=terrain.NoiseMap(width=12, height=8, scale=4.0))
    small_terrain = terrain.TerrainConfig(droplets=20, rivers=False, stride=2)
    global_map = terrain.MapConfig(
        terrain=terrain.NoiseMap(width=12, height=8, scale=4.0, normalize="global")
    )
    wc = world.VoxelConfig()
    blocks = np.zeros((wc.height, 4, 4), dtype=np.uint8)
    blocks[:70] = 1
    out = tmp / "out"
    csv = wio.write_tiles_csv(tmp / "read.csv", _tiles())
    good_store, *bad_stores = _store_files(tmp)
    flat_world = world.World(_flat_chunk, world.ChunkStore(tmp / "pre.db", "flat"), threads=1)
    tiled = wio.write_tiled_json(tmp / "read.json", _tiles(), colours=[(1, 2, 3)] * 3)
    return [
        # noise
        Target("Perlin", noise.Perlin, {"seed": 3, "period": 4}),
        Target("Value", noise.Value, {"seed": 3, "period": None, "interpolation": "cubic"}),
        Target("Simplex", noise.Simplex, {"seed": 3}),
        Target("Cellular", noise.Cellular, {"seed": 1, "period": None, "feature": "f2",
                                            "metric": "manhattan", "jitter": 0.5}),
        Target("Fractal", noise.Fractal, {"base": noise.Perlin(), "octaves": 3,
                                          "persistence": 0.5, "lacunarity": 2.0, "mode": "fbm"}),
        Target("Warp", noise.Warp, {"base": noise.Perlin(), "warp": noise.Perlin(2),
                                    "amplitude": 1.0}),
        Target("Noise.__call__", fbm.__call__, {**coords, "dtype": np.float64, "unit": True},
               {"x": ("coordinates",), "y": ("coordinates",)}),
        Target("Noise.grid", fbm.grid, {**coords, "dtype": np.float32, "unit": False},
               {"x": ("coordinates", "grid axis"), "y": ("coordinates", "grid axis")}),
        Target("Warp.grid", noise.Warp(amplitude=3.0).grid, coords,
               {"x": ("coordinates", "grid axis"), "y": ("coordinates", "grid axis")}),
        Target("axis", noise.axis, {"start": 0.0, "count": 5, "step": 0.25}),
        Target("Noise.bounds", fbm.bounds, {"ndim": 2}),
        Target("Simplex.bounds", noise.Simplex().bounds, {"ndim": 3}),
        Target("NoiseMap.generate", terrain.NoiseMap(width=6, height=5).generate,
               {"window": terrain.Window(-2, 3, 4, 3), "halo": 1}),
        Target("by_name", noise.by_name, {"name": "value", "seed": 2},
               {"name": ("noise",)}),
        Target("derive_seed", noise.derive_seed, {"seed": 5, "tag": 1}),
        Target("permutation", noise.permutation, {"seed": 5}),
        Target("threads", lambda count: threads(count).__enter__(), {"count": 1}),
        # terrain configs
        Target("NoiseMap", terrain.NoiseMap, {"seed": 1, "width": 8, "height": 6, "scale": 4.0,
                                              "offset": (1.0, 2.0), "octaves": 3,
                                              "persistence": 0.5, "lacunarity": 2.0,
                                              "noise": "perlin", "mode": "fbm",
                                              "normalize": "global"}),
        Target("Mask", terrain.Mask, {"shape": "radial", "radius": 5.0, "centre": (0.0, 0.0),
                                      "a": 3.0, "b": 2.2}),
        Target("HeightCurve", terrain.HeightCurve, {"points": ((0, 0), (1, 1)),
                                                    "smooth": True, "power": 1.0},
               {"points": ("curve points",)}),
        Target("Band", terrain.Band, {"name": "sand", "top": 0.5, "colour": (1, 2, 3)},
               {"name": ("band name",)}),
        Target("BiomeTable", terrain.BiomeTable,
               {"elevation": (0.5, 1.0), "moisture": (1.0,), "table": ((("sea",), ("land",)),),
                "colours": (("sea", (0, 0, 200)), ("land", (0, 200, 0))), "temperature": (1.0,)},
               {k: ("biome",) for k in ("elevation", "moisture", "table", "colours",
                                         "temperature")}),
        Target("Cleanup", terrain.Cleanup, {"thin_water": True, "isolated": False,
                                            "lake_size": 3}),
        Target("MapConfig", terrain.MapConfig, {"terrain": terrain.NoiseMap(width=8, height=8),
                                                "mask": terrain.Mask("none"),
                                                "curve": terrain.HeightCurve(),
                                                "bands": terrain.DEFAULT_BANDS,
                                                "biomes": terrain.DEFAULT_BIOMES,
                                                "climate_scale": 2.0,
                                                "cleanup": terrain.Cleanup()}),
        Target("TerrainConfig", terrain.TerrainConfig, {"droplets": 10, "thermal": 1,
                                                        "dla": 0.5, "rivers": True,
                                                        "river_threshold": 3.0,
                                                        "multiplier": 4.0, "stride": 1}),
        Target("HydraulicErosion", terrain.HydraulicErosion, {"radius": 2, "inertia": 0.1}),
        Target("Window", terrain.Window, {"x": 0, "y": 0, "width": 4, "height": 3}),
        # terrain functions
        Target("make_layers", terrain.make_layers, {"config": small_map,
                                                    "window": terrain.Window(2, 2, 4, 3)}),
        Target("make_terrain", terrain.make_terrain, {"map_config": small_map,
                                                      "config": small_terrain}),
        Target("classify", terrain.classify, {"heights": h, "bands": terrain.DEFAULT_BANDS}),
        Target("falloff_curve", terrain.falloff_curve, {"t": h, "a": 3.0, "b": 2.2}),
        Target("colour_ramp", terrain.colour_ramp,
               {"heights": h, "stops": ((0.0, (0, 0, 0)), (1.0, (255, 255, 255))),
                "blend": True}),
        Target("hillshade", terrain.hillshade, {"heights": h, "azimuth": 300.0,
                                                "altitude": 40.0, "exaggeration": 2.0,
                                                "cell_size": 1.0}),
        Target("normal_map", terrain.normal_map, {"heights": h, "strength": 1.0,
                                                  "cell_size": 1.0}),
        Target("apply_shade", terrain.apply_shade, {"rgb": rgb, "shade": h, "strength": 0.5}),
        Target("legend", terrain.legend, {"names": ["a", "b"], "colours": [(1, 2, 3), (4, 5, 6)],
                                          "swatch": 8, "padding": 2}),
        Target("erode", terrain.erode, {"heights": h, "droplets": 30, "seed": 1}),
        Target("thermal_erode", terrain.thermal_erode, {"heights": h, "iterations": 3,
                                                        "talus": 0.1, "rate": 0.5}),
        Target("fill_depressions", terrain.fill_depressions, {"heights": h, "epsilon": 0.0}),
        Target("flow_directions", terrain.flow_directions, {"filled": h}),
        Target("rivers", terrain.rivers, {"heights": h, "threshold": 2.0, "epsilon": 0.0}),
        Target("draw_rivers", terrain.draw_rivers, {"rgb": np.zeros((6, 6, 3), np.uint8),
                                                    "result": _river(),
                                                    "colour": (1, 2, 3), "widen": True}),
        Target("dla_mountains", terrain.dla_mountains, {"size": 16, "seed": 1, "steps": 2,
                                                        "density": 0.1, "blend": 0.3}),
        Target("heightfield_mesh", terrain.heightfield_mesh,
               {"heights": h, "multiplier": 2.0, "cell_size": 1.0, "stride": 1,
                "border": False}),
        Target("flow_accumulation", terrain.flow_accumulation,
               {"directions": terrain.flow_directions(terrain.fill_depressions(h))}),
        Target("remove_thin_water", terrain.remove_thin_water, {"tiles": _tiles(), "water": 0}),
        Target("remove_isolated", terrain.remove_isolated, {"tiles": _tiles(),
                                                            "connectivity": 8}),
        Target("fill_lakes", terrain.fill_lakes, {"tiles": _tiles(), "water": {0},
                                                  "max_size": 3, "fill": 2}),
        Target("autotile_masks", terrain.autotile_masks, {"tiles": _tiles(),
                                                          "connectivity": 4, "edge": "same"}),
        Target("global_range", terrain.global_range, {"fractal": fbm, "spread": 3.0}),
        Target("tiled_fill", terrain.tiled_fill, {"heights": h, "out": np.zeros(h.shape),
                                                  "tile": 2}),
        Target("tiled_flow_accumulation", terrain.tiled_flow_accumulation,
               {"directions": terrain.flow_directions(terrain.fill_depressions(h)),
                "out": np.zeros(h.shape), "tile": 3}),
        # io
        Target("write_grey_png", wio.write_grey_png, {"path": tmp / "g.png", "values": h,
                                                      "bits": 16}, paths=("path",)),
        Target("write_rgb_png", wio.write_rgb_png, {"path": tmp / "c.png", "rgb": rgb},
               paths=("path",)),
        Target("write_heightmap", wio.write_heightmap, {"path": tmp / "h.npy", "heights": h,
                                                        "fmt": "npy"},
               {"fmt": ("format",)}, paths=("path",)),
        Target("write_raw16", wio.write_raw16, {"path": tmp / "h.raw", "heights": h},
               paths=("path",)),
        Target("write_tiles", wio.write_tiles, {"directory": tmp / "t", "name": "h",
                                                "heights": h, "tile": 4, "fmt": "png16"},
               {"fmt": ("format",)}, paths=("directory",)),
        Target("write_tiles_csv", wio.write_tiles_csv, {"path": tmp / "t.csv",
                                                        "tiles": _tiles()}, paths=("path",)),
        Target("write_tiled_json", wio.write_tiled_json,
               {"path": tmp / "m.json", "tiles": _tiles(),
                "colours": [(1, 2, 3), (4, 5, 6), (7, 8, 9)], "tile_size": 4},
               paths=("path",)),
        Target("write_png_frames", wio.write_png_frames,
               {"directory": tmp / "frames", "frames": np.zeros((2, 3, 4, 3), np.uint8),
                "prefix": "f"}, paths=("directory",)),
        Target("read_tiles_csv", wio.read_tiles_csv, {"path": csv}, paths=("path",)),
        Target("read_tiled_json", wio.read_tiled_json, {"path": tiled}, paths=("path",)),
        Target("write_gif", wio.write_gif, {"path": tmp / "a.gif",
                                            "frames": np.zeros((2, 4, 4, 3), np.uint8),
                                            "fps": 10.0}, paths=("path",)),
        Target("write_svg_polylines", wio.write_svg_polylines,
               {"path": tmp / "a.svg", "polylines": [np.array([[0.0, 0.0], [1.0, 2.0]])],
                "width": 10.0, "height": 10.0, "stroke_width": 1.0}, paths=("path",)),
        Target("write_mesh", wio.write_mesh, {"path": tmp / "m.glb",
                                              "mesh": terrain.heightfield_mesh(h)},
               {"path": ("suffix",)}, paths=("path",)),
        Target("write_map_set", wio.write_map_set,
               {"config": small_map, "out": out / "m", "formats": ("npy", "png8"), "tile": 4,
                "relief": 3.0, "blend": True, "window": terrain.Window(1, -2, 6, 5)},
               {"formats": ("format",)}, paths=("out",)),
        Target("write_cog", wio.write_cog, {"path": tmp / "c.tif", "source": h, "block": 128,
                                            "origin": (3, -2), "cell_size": 2.0,
                                            "metadata": {"a": "b"}}, paths=("path",)),
        Target("write_tile_pyramid", wio.write_tile_pyramid,
               {"directory": tmp / "pyramid", "source": rgb, "tile": 64, "name": "x"},
               paths=("directory",)),
        Target("build_store", scale.build_store,
               {"path": tmp / "s.zarr", "kind": "map", "config": global_map,
                "window": terrain.Window(0, 0, 12, 8), "block": 64},
               paths=("path",)),
        Target("write_terrain_set", wio.write_terrain_set,
               {"config": global_map, "terrain_config": small_terrain, "out": out / "t",
                "formats": ("npy",), "meshes": ("glb",), "tile": 4, "relief": 3.0,
                "blend": False, "window": terrain.Window(-3, 2, 10, 6)},
               {"formats": ("format",), "meshes": ("mesh",)}, paths=("out",)),
        # world
        Target("VoxelConfig", world.VoxelConfig, {"seed": 1, "y_min": -64, "y_max": 64,
                                                  "sea_level": 10, "caves": False}),
        Target("generate_chunk", world.generate_chunk, {"config": wc, "cx": 1, "cz": -2}),
        Target("generate_region", world.generate_region, {"config": wc, "x0": -3, "z0": 5,
                                                          "width": 3, "depth": 2}),
        Target("write_voxel_glb", world.write_voxel_glb,
               {"path": tmp / "v.glb", "mesh": world.greedy_mesh(blocks)}, paths=("path",)),
        Target("ChunkStore", world.ChunkStore, {"path": tmp / "s.db", "world_key": "k",
                                                "describe": "fuzz"}, paths=("path",),
               path_values=tuple(bad_stores)),
        Target("ChunkStore.get", _store_call(good_store, "get"), {"cx": 0, "cz": -1}),
        Target("ChunkStore.has", _store_call(good_store, "has"), {"cx": 3, "cz": 0}),
        Target("ChunkStore.delete", _store_call(good_store, "delete"), {"cx": 5, "cz": 5}),
        Target("ChunkStore.put", _store_call(good_store, "put"), {"chunk": _flat_chunk(1, 1)}),
        Target("ChunkStore.missing", _store_call(good_store, "missing"),
               {"coords": [(0, 0), (1, 2)]}),
        Target("World", world.World, {"generate": _flat_chunk, "store": None, "threads": 2}),
        Target("World.chunk", flat_world.chunk, {"cx": 2, "cz": -7}),
        Target("World.around", lambda **kw: list(flat_world.around(**kw)),
               {"x": 3.0, "z": -4.0, "radius": 20.0}),
        Target("World.pregenerate", flat_world.pregenerate, {"x": 3.0, "z": -4.0,
                                                             "radius": 20.0}),
        Target("open_world", lambda **kw: open_world_closed(**kw),
               {"config": wc, "store_path": tmp / "o.db", "threads": 1},
               {"store_path": ("store",)}, paths=("store_path",),
               path_values=tuple(bad_stores)),
        Target("write_world_set", world.write_world_set,
               {"config": wc, "out": out / "w", "x": 5, "z": -9, "radius": 16,
                "mesh_radius": 8, "store": tmp / "ws.db", "threads": 1},
               paths=("out", "store"), path_values=tuple(bad_stores)),
        Target("chunk_range", world.chunk_range, {"x": 3.0, "z": 4.0, "radius": 20.0}),
        Target("top_down", world.top_down, {"blocks": blocks, "y_min": -64, "sea_level": 62}),
        Target("cross_section", world.cross_section, {"blocks": blocks, "z": 1, "y_min": -64}),
        Target("greedy_mesh", world.greedy_mesh, {"blocks": blocks, "y_min": -64,
                                                  "origin": (0, 0)}),
        # motion
        Target("noise_frames", motion.noise_frames, {"noise": noise.Perlin(), "width": 4,
                                                     "height": 3, "frames": 2, "scale": 8.0,
                                                     "speed": 0.1, "loop": True}),
        Target("preset_frames", motion.preset_frames, {"name": "fire", "seed": 1, "width": 4,
                                                       "height": 3, "frames": 2}),
        Target("wobble", motion.wobble, {"points": np.array([[0.0, 0.0], [30.0, 5.0]]),
                                         "amplitude": 2.0, "wavelength": 10.0, "seed": 1}),
    ]  # fmt: skip


def open_world_closed(**kwargs):
    """:func:`~worldgen.voxel.open_world`, its store closed at once."""
    result, store = world.open_world(**kwargs)
    if store is not None:
        store.close()
    return result


def _numbers(value: Any, depth: int = 0):
    """Every float array or float inside a result (arrays, tuples, dataclasses)."""
    if depth > 3:
        return
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            yield value
    elif isinstance(value, float):
        yield np.array([value])
    elif isinstance(value, (tuple, list)):
        for item in value[:64]:
            yield from _numbers(item, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _numbers(getattr(value, field.name), depth + 1)


def _words(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


def outcome(target: Target, param: str, value: Any) -> tuple[str, str]:
    """Call ``target`` with ``param`` set to ``value``: ``(kind, detail)``."""
    kwargs = {**target.kwargs, param: value}
    names = (param, *target.aliases.get(param, ()))
    paths = (value,) if param in target.paths else None
    return judge(lambda: target.call(**kwargs), names, paths)


def judge(call: Callable[[], Any], names, paths=None) -> tuple[str, str]:
    """Run ``call``: ``(kind, detail)``. An error is clear if it names one
    of ``names`` (or, with ``paths``, is an OSError or names the path)."""
    start = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", RuntimeWarning)  # a NaN in the making
            result = call()
    except (ValueError, TypeError, OSError) as exc:
        spent = time.process_time() - start
        if spent > BUDGET:
            return "unbounded", f"{spent:.0f} s of CPU, then {type(exc).__name__}: {exc}"
        message = _words(str(exc))
        if any(_words(n) in message for n in names):
            return "clear", ""
        if paths is not None and (
            isinstance(exc, OSError)
            or "os.pathlike" in message
            or any(_words(str(v)) in message for v in paths)
        ):
            return "clear", ""  # the OS or the message names the path, or it is not a path
        return "unclear", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # anything else is a defect
        return "unclear", f"{type(exc).__name__}: {exc}"
    spent = time.process_time() - start
    if spent > BUDGET:
        return "unbounded", f"{spent:.0f} s of CPU"
    for array in _numbers(result):
        if not np.isfinite(array).all():
            return "garbage", "non-finite output"
    return "accepted", ""


def listed(tmp: pathlib.Path) -> list[tuple[str, Callable[[], Any], tuple[str, ...]]]:
    """Inputs that once surprised users (a traceback, an unnamed error, a
    NaN, minutes of work, a bad value taken): ``(label, call, names)``;
    each must now be a clear error naming one of ``names``."""
    h = _h()
    binary = tmp / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00\x01,2\n")
    tiles = np.array([[0, 1], [1, 0]], np.uint8)
    tiled = wio.write_tiled_json(tmp / "zlib.json", tiles, colours=[(1, 2, 3), (4, 5, 6)])
    document = json.loads(tiled.read_text())
    for layer in document["layers"]:
        if "data" in layer:
            layer.update(encoding="base64", compression="zlib", data="bm90IHpsaWI=")
    bad_zlib = tmp / "bad-zlib.json"
    bad_zlib.write_text(json.dumps(document))
    biomes = terrain.DEFAULT_BIOMES
    two = np.random.default_rng(1).random((2, 2))
    return [
        ("erode(h, 10**12)", lambda: terrain.erode(h, 10**12), ("droplets",)),
        ("thermal_erode(h, 10**7)", lambda: terrain.thermal_erode(h, 10**7), ("iterations",)),
        ("dla_mountains(8192, density=0.5, steps=0)",
         lambda: terrain.dla_mountains(8192, density=0.5, steps=0), ("steps",)),
        ("make_terrain(2 x 2 map, droplets=10**6)",
         lambda: terrain.make_terrain(
             terrain.MapConfig(terrain=terrain.NoiseMap(width=2, height=2, normalize="global")),
             terrain.TerrainConfig(droplets=10**6, dla=0.5)), ("droplets",)),
        ("HeightCurve(((0, 0), (1, 1e308), (2, -1e308)))",
         lambda: terrain.HeightCurve(((0, 0), (1, 1e308), (2, -1e308))), ("curve points",)),
        ("HeightCurve(((0, 0), (1e-301, 1), (1, 1)))",
         lambda: terrain.HeightCurve(((0, 0), (1e-301, 1), (1, 1))), ("curve points",)),
        ("HeightCurve(((0, 0), (1, 1e3)), power=500)(h)",
         lambda: terrain.HeightCurve(((0, 0), (1, 1e3)), power=500.0)(h), ("power",)),
        ("heightfield_mesh(h, cell_size=1e308)",
         lambda: terrain.heightfield_mesh(h, cell_size=1e308), ("cell_size",)),
        ("Perlin().bounds(5)", lambda: noise.Perlin().bounds(5), ("ndim",)),
        ("Simplex().bounds(1)", lambda: noise.Simplex().bounds(1), ("ndim",)),
        ("Cellular().bounds(4)", lambda: noise.Cellular().bounds(4), ("ndim",)),
        ("NoiseMap(...).generate('all')",
         lambda: terrain.NoiseMap(width=4, height=4).generate("all"), ("window",)),
        ("BiomeTable colours of bare names",
         lambda: dataclasses.replace(biomes, colours=tuple(n for n, _ in biomes.colours)),
         ("biome colours",)),
        ("BiomeTable colour 'blue'",
         lambda: dataclasses.replace(biomes, colours=(("ocean", "blue"), *biomes.colours[1:])),
         ("colour",)),
        ("BiomeTable with a colour named twice",
         lambda: dataclasses.replace(biomes, colours=(*biomes.colours, biomes.colours[0])),
         ("biome colours",)),
        ("write_grey_png('', h)", lambda: wio.write_grey_png("", h), ("path",)),
        ("read_tiles_csv(a non-UTF-8 file)", lambda: wio.read_tiles_csv(binary), (str(binary),)),
        ("read_tiled_json(bad zlib data)", lambda: wio.read_tiled_json(bad_zlib),
         (str(bad_zlib),)),
        ("Noise()(..., dtype=np.float64(1.0))",
         lambda: noise.Perlin()(0.5, 0.5, dtype=np.float64(1.0)), ("dtype",)),
        ("write_heightmap of a 3-D array",
         lambda: wio.write_heightmap(tmp / "h3.npy", np.zeros((3, 3, 3)), "npy"), ("heights",)),
        ("write_gif(loop='x')",
         lambda: wio.write_gif(tmp / "l.gif", np.zeros((2, 4, 4, 3), np.uint8), loop="x"),
         ("loop",)),
        ("fill_lakes(..., fill=99)", lambda: terrain.fill_lakes(_tiles(), {0}, 3, 99), ("fill",)),
        ("erode of a 2 x 2 map, 2**20 droplets", lambda: terrain.erode(two, 2**20), ("droplets",)),
    ]  # fmt: skip


def run(examples: int) -> dict[str, Any]:
    tally = Tally()
    watchdog = Watchdog(tally)
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        tmp = pathlib.Path(folder)  # also the working directory: "" paths land here
        file = tmp / "a-file"
        file.write_text("x")
        paths = st.sampled_from([str(file / "below.png"), "", str(tmp)])
        for target in targets(tmp):
            _fuzz_one(target, examples, paths, tally, watchdog)
        for label, call, names in listed(tmp):
            with watchdog.watching(label):
                kind, detail = judge(call, names)
            if kind == "accepted":  # a listed input must be refused
                kind, detail = "garbage", "accepted"
            tally.add(kind, target="listed", value=label, detail=detail[:200])
    watchdog.stop()
    return tally.report()


def _fuzz_one(target: Target, examples: int, paths, tally: Tally, watchdog: Watchdog) -> None:
    # One valid call first, untimed: it compiles the kernels the target
    # runs, so the time budget measures work, not compilation.
    with watchdog.watching(f"{target.name}(valid arguments)"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(Exception):
            target.call(**target.kwargs)

    @fuzz_settings(examples)
    @given(data=st.data())
    def fuzz(data):
        param = data.draw(st.sampled_from(sorted(target.kwargs)))
        if param in target.paths:
            extra = st.sampled_from(target.path_values) if target.path_values else paths
            value = data.draw(st.one_of(BAD, paths, extra))
        else:
            value = data.draw(BAD)
        with watchdog.watching(f"{target.name}({param}={value!r:.80})"):
            kind, detail = outcome(target, param, value)
        tally.add(
            kind, target=target.name, param=param, value=repr(value)[:80], detail=detail[:200]
        )

    fuzz()


if __name__ == "__main__":
    main(run, __doc__, 25)
