"""Configs from TOML files, presets and command-line overrides.

A world config file (for ``worldgen world``) has the fields of
:class:`~worldgen.voxel.VoxelConfig` at its top level (``seed``, ``y_min``,
``y_max``, ``sea_level``, ``terrain``, ``caves``, ``aquifers``, ``rivers``,
``trees``, ``ores``), and optionally a table ``[world]`` (the fields of
:class:`~worldgen.world.WorldConfig`: the world model whose ground it is)
and a table ``[palette]`` of ``name = [r, g, b]`` colours to change.

A map config file has optional tables ``[world]`` (the fields of
:class:`~worldgen.world.WorldConfig`: with it the map is a view of the
world model), ``[terrain]`` (the fields of
:class:`~worldgen.world.NoiseMap`: the classic noise map; with a world only
its ``width`` and ``height`` count), ``[mask]``, ``[curve]``,
``[cleanup]``, ``[tileset]`` (:class:`~worldgen.products.Tileset`:
``kind``, ``tile_size``), ``[biomes]`` (:class:`~worldgen.products.BiomeTable`;
without a ``table`` it changes the default classes: ``[biomes.colours]``
``ocean = [r, g, b]`` recolours one), an array of tables ``[[bands]]``
and top-level ``climate_scale`` and ``relief``. Anything left out takes its
documented default. Unknown keys are errors, so a typo never passes
silently::

    climate_scale = 2.0

    [terrain]
    seed = 42
    width = 1024
    height = 1024
    scale = 200.0
    normalize = "global"

    [mask]
    shape = "radial"
    radius = 480.0

    [curve]
    points = [[0.0, 0.0], [0.4, 0.4], [1.0, 1.0]]
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.resources
import os
import tomllib
from typing import Any

from worldgen._errors import ParameterError
from worldgen.noise._validate import check_int
from worldgen.products._classify import DEFAULT_BIOMES, Band, BiomeTable
from worldgen.products._maps import Cleanup, MapConfig
from worldgen.products._tileset import Tileset
from worldgen.world._config import WorldConfig
from worldgen.world._noise_map import NoiseMap
from worldgen.world._shaping import HeightCurve, Mask

_TABLES = {
    "terrain": NoiseMap,
    "mask": Mask,
    "curve": HeightCurve,
    "cleanup": Cleanup,
    "tileset": Tileset,
    "world": WorldConfig,
}
_TOP = {"climate_scale", "relief", "bands", "biomes", *_TABLES}


class ConfigError(ParameterError):
    """A value of a config that is wrong, said with its table: ``[terrain]
    width must be ...``. ``said`` is the library's own words (``width must
    be ...``), by which a command names the option that gave the value."""

    def __init__(self, message: str, said: str | None = None) -> None:
        super().__init__(message)
        self.said = said


# Height bands for the world presets: a unit height is sea level at 0.4
# (0 m), the world's relief at 1 (see MapConfig.unit_from_metres); so with
# the default relief of 240 m: deep water below -45 m, sand to 3 m, grass
# to 60 m and 100 m, rock to 140 m and 188 m, snow above.
WORLD_BANDS = [
    {"name": "deep water", "top": 0.2, "colour": [40, 70, 150]},
    {"name": "shallow water", "top": 0.4, "colour": [60, 110, 190]},
    {"name": "sand", "top": 0.4075, "colour": [210, 200, 130]},
    {"name": "grass", "top": 0.55, "colour": [90, 160, 60]},
    {"name": "grass 2", "top": 0.65, "colour": [65, 125, 45]},
    {"name": "rock", "top": 0.75, "colour": [110, 95, 80]},
    {"name": "rock 2", "top": 0.87, "colour": [85, 75, 70]},
    {"name": "snow", "top": 1.0, "colour": [245, 245, 250]},
]


def _presets(width: int, height: int) -> dict[str, dict[str, Any]]:
    half = min(width, height) / 2
    # A classic preset scales its whole map with the map's size: features
    # and relief.
    relief = max(width, height) / 4
    return {
        "continents": {"world": {}, "bands": WORLD_BANDS},
        "islands": {
            "world": {
                "continent_size": 4096,
                "land_fraction": 0.2,
                "relief": 160.0,
                "ocean_depth": 60.0,
            },
            "bands": WORLD_BANDS,
        },
        "archipelago": {
            "world": {
                "continent_size": 2048,
                "land_fraction": 0.15,
                "roughness": 1.8,
                "relief": 120.0,
                "ocean_depth": 40.0,
            },
            "bands": WORLD_BANDS,
        },
        "classic": {},
        "classic-islands": {
            "terrain": {"scale": max(width, height) / 5, "octaves": 6, "normalize": "global"},
            "mask": {"shape": "radial", "radius": 0.95 * half},
            "relief": relief,
        },
        "classic-continents": {
            "terrain": {"scale": max(width, height) / 2, "octaves": 8, "normalize": "global"},
            "curve": {"points": [[0.0, 0.0], [0.5, 0.42], [1.0, 1.0]], "smooth": True},
            "relief": relief,
        },
        "classic-archipelago": {
            "terrain": {"scale": max(width, height) / 10, "octaves": 5, "normalize": "global"},
            "mask": {"shape": "square-bump", "radius": 1.05 * half},
            "curve": {"points": [[0.0, 0.0], [0.55, 0.38], [1.0, 1.0]], "smooth": True},
            "relief": relief,
        },
    }


PRESETS = (
    "continents", "islands", "archipelago", "classic",
    "classic-islands", "classic-continents", "classic-archipelago",
)  # fmt: skip
"""The presets, the default (``continents``) first. The first three are
configs of the world model (:class:`~worldgen.world.WorldConfig`):

- ``continents``: the defaults, landmasses of tens of thousands of cells in
  squares of 65,536, ranges, climate;
- ``islands``: squares of 4,096 cells, a fifth of them land, lower relief;
- ``archipelago``: squares of 2,048 cells, ragged coasts, many small
  islands.

``classic`` is the classic noise map (the Unity tutorial's GetNoiseMap:
seed, scale, offset, octaves, persistence, lacunarity), unmasked and
normalised to its own range, bit for bit as it always was; the
``classic-*`` presets are its island, continent and archipelago shapes
(a mask and a curve scaled to the map's size).
"""
DEFAULT_PRESET = "continents"


def preset_is_world(name: str) -> bool:
    """Whether preset ``name`` is a config of the world model."""
    return name in PRESETS and "world" in _presets(512, 512)[name]


def preset(name: str, width: int = 512, height: int = 512) -> dict[str, Any]:
    """The overrides of preset ``name`` for a map of ``width`` x ``height``.

    Examples
    --------
    >>> preset("classic-islands")["mask"]["shape"]
    'radial'
    >>> preset("continents")["world"]
    {}
    """
    if name not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}, got {name!r}")
    for key, value in (("width", width), ("height", height)):  # the map's, as NoiseMap checks
        try:
            check_int(value, key, 1, 2**20)
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"[terrain] {exc}", str(exc)) from None
    return copy.deepcopy(_presets(width, height)[name])


EXAMPLES = ("map", "world")


def example(name: str) -> str:
    """The text of a shipped example config, every key at its default:
    ``'map'`` (for ``worldgen map`` and ``worldgen terrain``) or ``'world'``.

    Examples
    --------
    >>> map_config(tomllib.loads(example("map"))) == MapConfig()
    True
    """
    if name not in EXAMPLES:
        raise ValueError(f"example must be one of {', '.join(EXAMPLES)}, got {name!r}")
    return (importlib.resources.files("worldgen") / "examples" / f"{name}.toml").read_text(
        encoding="utf-8"
    )


def load_toml(path: str | os.PathLike) -> dict[str, Any]:
    """Read a TOML config file into a dict, with errors that name the file."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ValueError(f"config file not found: {path}") from None
    except IsADirectoryError:
        raise ValueError(f"config file {path} is a folder; give a TOML file") from None
    except OSError as exc:
        raise OSError(f"config file {path} cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"config file {path} is not UTF-8 text ({exc.reason} at byte {exc.start}); give "
            "a TOML file (`worldgen config --example map` prints one)"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"config file {path} is not valid TOML: {exc}") from None


# Keys of a voxel world's config that a map's config never has.
_VOXEL_KEYS = {"y_min", "y_max", "sea_level", "caves", "aquifers", "rivers", "trees", "ores",
               "palette"}  # fmt: skip


def load_map_toml(path: str | os.PathLike) -> dict[str, Any]:
    """:func:`load_toml` of a map's config, refusing a voxel world's (whose
    ``terrain`` is a word, not a table) with a message that says so."""
    data = load_toml(path)
    if isinstance(data.get("terrain"), str) or _VOXEL_KEYS & set(data):
        raise ValueError(
            f"config file {path} is a voxel world's config (for worldgen world); this "
            "command takes a map's: `worldgen config --example map` prints one"
        )
    for key in (*_TABLES, "biomes"):  # merged with presets and options as tables
        if key in data and not isinstance(data[key], dict):
            raise ValueError(
                f"config file {path}: [{key}] must be a table, got {key} = {data[key]!r}; "
                f"write its keys under a [{key}] line"
            )
    return data


# Keys of a map's config that a voxel world's config never has.
_MAP_KEYS = {"bands", "biomes", "mask", "curve", "cleanup", "tileset", "climate_scale", "relief"}


def load_world_toml(path: str | os.PathLike) -> dict[str, Any]:
    """:func:`load_toml` of a voxel world's config, refusing a map's (whose
    ``terrain`` is a table, not a word) with a message that says so."""
    data = load_toml(path)
    voxel = isinstance(data.get("terrain"), str) or _VOXEL_KEYS & set(data)
    if isinstance(data.get("terrain"), dict) or (_MAP_KEYS & set(data) and not voxel):
        raise ValueError(
            f"config file {path} is a map's config (for worldgen map, terrain and serve); "
            "this command takes a voxel world's: `worldgen config --example world` prints one"
        )
    return data


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``override`` on top of ``base``; tables merge key by key."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _tupled(value: Any) -> Any:
    """TOML arrays as (nested) tuples, as the frozen configs hold them."""
    return tuple(_tupled(v) for v in value) if isinstance(value, list) else value


def _build(cls, data: Any, where: str):
    if not isinstance(data, dict):
        raise ConfigError(f"[{where}] must be a table, got {data!r}")
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - fields)
    place = f"in [{where}]" if where else "at the top of the file (before any [table])"
    if unknown:
        raise ConfigError(
            f"unknown key {', '.join(map(repr, unknown))} {place}; valid: {', '.join(sorted(fields))}"
        )
    missing = [
        f.name
        for f in dataclasses.fields(cls)
        if f.name not in data
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise ConfigError(
            f"missing key {', '.join(map(repr, missing))} {place}; each needs "
            f"{', '.join(f.name for f in dataclasses.fields(cls))}"
        )
    # Only the fields that hold tuples freeze a TOML array: one where a
    # number goes is reported as written (``[1]``, not ``(1,)``).
    tupled = {
        f.name for f in dataclasses.fields(cls) if "tuple" in str(f.type) or f.type == "Colour"
    }
    try:
        return cls(**{k: _tupled(v) if k in tupled else v for k, v in data.items()})
    except (ValueError, TypeError) as exc:
        said = _as_toml(str(exc))
        raise ConfigError(f"[{where}] {said}" if where else said, str(exc)) from None


def _as_toml(text: str) -> str:
    """The library's words on a value, with booleans spelt as TOML writes them."""
    return text.replace("must be True or False", "must be true or false")


def map_config(data: dict[str, Any]) -> MapConfig:
    """A :class:`MapConfig` from a dict shaped like the TOML file."""
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise ConfigError(
            f"unknown key {', '.join(map(repr, unknown))} at the top of the file (before any "
            f"[table]); valid: {', '.join(sorted(_TOP))}"
        )
    kwargs: dict[str, Any] = {}
    for key, cls in _TABLES.items():
        if key in data:
            kwargs[key] = _build(cls, data[key], key)
    if "bands" in data:
        bands = data["bands"]
        if isinstance(bands, dict):
            raise ConfigError(
                "[bands] is one table, but the bands are an array of tables: write each band "
                "(name, top, colour) under a [[bands]] line, with two brackets"
            )
        if not isinstance(bands, list) or not bands:
            raise ConfigError("[[bands]] must be a non-empty array of tables (name, top, colour)")
        for band in bands:
            if not isinstance(band, dict):
                raise ConfigError(
                    f"[[bands]] must be an array of tables (name, top, colour), got an entry {band!r}"
                )
        kwargs["bands"] = tuple(_build(Band, b, "[bands]") for b in bands)
    if "biomes" in data:
        b = data["biomes"]
        if not isinstance(b, dict):
            raise ConfigError("[biomes] must be a table")
        colours = b.get("colours", {})
        if not isinstance(colours, dict):
            raise ConfigError("[biomes] colours must be a table of name = [r, g, b]")
        if "table" not in b:  # the default classes: keys left out (and colours) are theirs
            default = dataclasses.asdict(DEFAULT_BIOMES)
            b = {**default, **b}
            colours = {**dict(DEFAULT_BIOMES.colours), **colours}
        kwargs["biomes"] = _build(
            BiomeTable,
            {**b, "colours": [[name, c] for name, c in colours.items()]},
            "biomes",
        )
    for key in ("climate_scale", "relief"):
        if key in data:
            kwargs[key] = data[key]
    try:
        return MapConfig(**kwargs)
    except (ValueError, TypeError) as exc:  # climate_scale, relief
        raise ConfigError(str(exc), str(exc)) from None


def voxel_config(data: dict[str, Any]):
    """A :class:`~worldgen.voxel.VoxelConfig` from a dict shaped like its
    TOML file (see the module docstring)."""
    from worldgen.voxel import PALETTE, VoxelConfig

    data = dict(data)
    colours = data.pop("palette", {})
    if not isinstance(colours, dict):
        raise ConfigError("[palette] must be a table of block name = [r, g, b]")
    unknown = sorted(set(colours) - {name for name, _ in PALETTE})
    if unknown:
        raise ConfigError(f"unknown block {', '.join(map(repr, unknown))} in [palette]")
    palette = tuple((name, _tupled(colours.get(name, colour))) for name, colour in PALETTE)
    if "world" in data:  # a [world] table: the world model, seeded by the file's seed
        table = {"seed": data.get("seed", 0), **_table(data["world"], "world")}
        data["world"] = _build(WorldConfig, table, "world")
    return _build(VoxelConfig, {**data, "palette": palette}, "")


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"[{where}] must be a table, got {value!r}")
    return value


def config_dict(config: MapConfig) -> dict[str, Any]:
    """``config`` as a dict shaped like its TOML file (JSON-ready: lists for
    tuples), so that ``map_config(config_dict(c)) == c``.

    Examples
    --------
    >>> c = MapConfig()
    >>> map_config(config_dict(c)) == c
    True
    >>> c = MapConfig(world=WorldConfig(seed=3))
    >>> map_config(config_dict(c)) == c
    True
    """
    data = _listed(dataclasses.asdict(config))
    if data["world"] is None:  # the classic noise map: no [world] table
        del data["world"]
    data["biomes"]["colours"] = {name: colour for name, colour in data["biomes"]["colours"]}
    return data


def _listed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _listed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_listed(v) for v in value]
    return value
