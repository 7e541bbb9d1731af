"""Worlds the explorer serves: page parameters -> a map config and its key.

The page changes a handful of parameters (:data:`PARAMS`); everything else
comes from the server's own config (``worldgen serve --config/--preset``).
Each config has a key, a hash of the generator's version and the config,
that goes into every tile URL: the same URL is always the same bytes.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from worldgen import __version__
from worldgen._errors import ParameterError
from worldgen.config import PRESETS, ConfigError, map_config, merge
from worldgen.config import preset as preset_overrides
from worldgen.products._classify import Band
from worldgen.products._maps import MapConfig
from worldgen.web._products import check_pyramid, voxel_config

TILES_FORMAT = 2
"""Bumped whenever the tile products change for the same config."""

PARAMS = {
    "preset": str,
    "seed": int,
    "continent_size": int,
    "land_fraction": float,
    "relief": float,
    "scale": float,
    "octaves": int,
    "persistence": float,
    "lacunarity": float,
    "sea": float,
}
"""The world parameters the page may set, and their types: a world
preset's (``continent_size``, ``land_fraction``, ``relief``) or a classic
map's (``scale``, ``octaves``, ``persistence``, ``lacunarity``, ``sea``);
each kind refuses the other's, naming them."""

WORLD_PARAMS = ("continent_size", "land_fraction", "relief")
CLASSIC_PARAMS = ("scale", "octaves", "persistence", "lacunarity", "sea")


_INTEGER = re.compile(r"[-+]?[0-9]+", re.ASCII)
_INT_DIGITS = 30  # every integer parameter's range is far within it
_NUMBER = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", re.ASCII)


def parse_params(query: Mapping[str, str]) -> dict[str, Any]:
    """Typed world parameters from strings (e.g. a query string); unknown
    names and unparsable values are ParameterErrors naming the parameter."""
    out: dict[str, Any] = {}
    for name, text in query.items():
        if name not in PARAMS:
            raise ParameterError(f"unknown parameter {name!r}; valid: {', '.join(PARAMS)}", name)
        kind = PARAMS[name]
        if kind is str:
            if text not in (*PRESETS, "none"):
                raise ParameterError(
                    f"preset must be one of {', '.join(PRESETS)} or none, got {text!r}", name
                )
            out[name] = text
            continue
        # Plain ASCII numbers only, as tile coordinates: Python's int() and
        # float() also take '1_000', spaces around and other scripts' digits.
        plain = _INTEGER if kind is int else _NUMBER
        if not plain.fullmatch(text):
            what = "an integer" if kind is int else "a number"
            raise ParameterError(f"{name} must be {what} in plain digits, got {text!r}", name)
        if kind is int and len(text.lstrip("+-")) > _INT_DIGITS:
            # int() refuses past 4300 digits with a message naming no parameter.
            raise ParameterError(
                f"{name} must be an integer of at most {_INT_DIGITS} digits, got "
                f"{len(text.lstrip('+-'))} digits",
                name,
            )
        out[name] = kind(text)
    return out


def with_sea_level(config: MapConfig, sea: float) -> MapConfig:
    """``config`` with its water bands' top at ``sea``: water band tops are
    scaled from ``[0, old sea]`` onto ``[0, sea]`` and land band tops from
    ``[old sea, 1]`` onto ``[sea, 1]``, so the bands keep their order."""
    if not isinstance(sea, (int, float)) or not 0.0 < sea < 1.0:
        raise ParameterError(
            f"sea must be a number between 0 and 1 (exclusive), got {sea!r}", "sea"
        )
    old = config.sea_level
    if not config.water_classes or not 0.0 < old < 1.0 or sea == old:
        return config
    bands = []
    for band in config.bands:
        if band.top <= old:
            top = band.top * sea / old
        else:
            top = sea + (band.top - old) * (1.0 - sea) / (1.0 - old)
        bands.append(Band(band.name, top, band.colour))
    try:
        return dataclasses.replace(config, bands=tuple(bands))
    except ValueError as exc:  # so near 0 or 1 that bands merge
        raise ParameterError(
            f"sea={sea!r} leaves no room between the height bands ({exc}); "
            "choose a sea level further from 0 and 1",
            "sea",
        ) from None


def build_config(file_data: Mapping[str, Any], params: Mapping[str, Any]) -> MapConfig:
    """:func:`_build_config`; an error about a page parameter names it as
    the page does (``scale must be``, not ``[terrain] scale must be``)."""
    try:
        return _build_config(file_data, params)
    except ConfigError as exc:
        said = exc.said or ""
        for name in params:
            if said.startswith((f"{name} ", f"{name}:")):
                raise ParameterError(said, name) from None
        raise


def _build_config(file_data: Mapping[str, Any], params: Mapping[str, Any]) -> MapConfig:
    """The map config of typed page ``params`` over a config file's data.

    The preset (if any, and not ``'none'``) comes first, then the file, then
    the parameters. For a world (a world preset, or a file with a
    ``[world]`` table) the seed and the world parameters go to the world;
    for a classic map the seed and noise parameters go to its noise map, a
    ``'local'`` normalisation becomes ``'global'`` (tiles must meet), and
    ``sea`` moves the band tops (see :func:`with_sea_level`).
    """
    names = ("seed", "scale", "octaves", "persistence", "lacunarity")
    terrain = {k: params[k] for k in names if k in params}
    size = {**file_data.get("terrain", {}), **terrain}
    w, h = size.get("width", 512), size.get("height", 512)
    name = params.get("preset")
    data = preset_overrides(name, w, h) if name and name != "none" else {}
    data = merge(data, dict(file_data))
    if "world" in data:
        foreign = [k for k in CLASSIC_PARAMS if k in params]
        if foreign:
            raise ParameterError(
                f"{', '.join(foreign)} applies to the classic presets; this world is shaped "
                "by continent_size, land_fraction and relief",
                foreign[0],
            )
        world = {k: params[k] for k in ("seed", *WORLD_PARAMS) if k in params}
        return check_pyramid(map_config(merge(data, {"world": world})))
    foreign = [k for k in WORLD_PARAMS if k in params]
    if foreign:
        raise ParameterError(
            f"{', '.join(foreign)} applies to the world presets (continents, islands, "
            "archipelago); a classic map is shaped by scale, octaves, persistence, "
            "lacunarity and sea",
            foreign[0],
        )
    data = merge(data, {"terrain": terrain})
    if data.get("terrain", {}).get("normalize", "local") == "local":
        data = merge(data, {"terrain": {"normalize": "global"}})
    config = map_config(data)
    if "sea" in params:
        config = with_sea_level(config, params["sea"])
    return check_pyramid(config)


def describe(config: MapConfig, preset: str | None) -> dict[str, Any]:
    """The page's parameters of ``config``: a world's or a classic map's."""
    if config.world is not None:
        w = config.world
        return {
            "preset": preset or "none",
            "seed": w.seed,
            "continent_size": w.continent_size,
            "land_fraction": w.land_fraction,
            "relief": w.relief,
        }
    t = config.terrain
    return {
        "preset": preset or "none",
        "seed": t.seed,
        "scale": t.scale,
        "octaves": t.octaves,
        "persistence": t.persistence,
        "lacunarity": t.lacunarity,
        "sea": config.sea_level,
    }


def spawn_of(config: MapConfig) -> list[int]:
    """World cell ``[x, z]`` the page opens on: a world's spawn (see
    :func:`worldgen.world.spawn`), or the classic map's centre."""
    if config.world is None:
        return [0, 0]
    from worldgen.world import spawn

    return list(spawn(config.world))


def world_key(config: MapConfig) -> str:
    """A hash of the generator version, the tile format and ``config`` (and
    the voxel world derived from it): 20 hex digits.

    Examples
    --------
    >>> from worldgen.world import WorldConfig
    >>> a = world_key(MapConfig(world=WorldConfig()))
    >>> b = world_key(MapConfig(world=WorldConfig(seed=1)))
    >>> len(a), a == b
    (20, False)
    """
    document = {
        "worldgen": __version__,
        "tiles": TILES_FORMAT,
        "map": dataclasses.asdict(config),
        "voxel": voxel_config(config).key,
    }
    text = json.dumps(document, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class Worlds:
    """The configs the server knows, by key: the server's own world, always,
    and up to ``capacity`` more that pages asked for (least recently used
    forgotten first)."""

    def __init__(self, file_data: Mapping[str, Any], defaults: Mapping[str, Any], capacity=256):
        self.file_data = dict(file_data)
        self.defaults = dict(defaults)
        self.capacity = capacity
        self._configs: collections.OrderedDict[str, tuple[MapConfig, dict[str, Any]]] = (
            collections.OrderedDict()
        )
        self.default = ""
        self.default = self.add({})

    def build(self, params: Mapping[str, Any]) -> tuple[MapConfig, dict[str, Any]]:
        """The config and page parameters of ``params`` over the server's
        defaults (pure: may run on a worker thread)."""
        merged = {**self.defaults, **params}
        config = build_config(self.file_data, merged)
        return config, describe(config, merged.get("preset"))

    def insert(self, world: tuple[MapConfig, dict[str, Any]]) -> str:
        """Register a world from :meth:`build`; returns its key."""
        key = world_key(world[0])
        self._configs[key] = world
        self._configs.move_to_end(key)
        while len(self._configs) > self.capacity + 1:
            oldest = next(k for k in self._configs if k != self.default)
            del self._configs[oldest]
        return key

    def add(self, params: Mapping[str, Any]) -> str:
        """Build and register the world of ``params``; returns its key."""
        return self.insert(self.build(params))

    def get(self, key: str) -> tuple[MapConfig, dict[str, Any]]:
        """The config and page parameters of ``key``; KeyError if unknown."""
        return self._configs[key]
