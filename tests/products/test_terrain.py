"""The carving pipeline: erosion, ridges, rivers and the mesh, end to end."""

import dataclasses

import numpy as np
import pytest

from worldgen.config import map_config, merge, preset
from worldgen.products import MapConfig, TerrainConfig, make_terrain, terrain_mesh
from worldgen.world import NoiseMap

SMALL = map_config(
    merge({"terrain": {"width": 96, "height": 64, "seed": 5}}, preset("classic-islands", 96, 64))
)


def test_terrain_is_carved_and_deterministic():
    config = TerrainConfig(droplets=3000, thermal=3, dla=0.3)
    a = make_terrain(SMALL, config)
    b = make_terrain(SMALL, config)
    assert np.array_equal(a.heights, b.heights)
    assert a.heights.shape == (64, 96) and 0.0 <= a.heights.min() and a.heights.max() <= 1.0
    assert a.erosion is not None and a.erosion.eroded.sum() > 0
    assert not np.array_equal(a.heights, a.layers.elevation)
    other = make_terrain(
        dataclasses.replace(SMALL, terrain=dataclasses.replace(SMALL.terrain, seed=6)), config
    )
    assert not np.array_equal(a.heights, other.heights)


def test_rivers_stay_on_land_and_stages_are_reported():
    stages = []
    t = make_terrain(
        SMALL,
        TerrainConfig(droplets=500, river_threshold=20),
        progress=lambda s, *n: stages.append(s),
    )
    assert not (t.rivers.river & (t.heights <= t.sea_level)).any()
    assert not (t.rivers.lakes & (t.heights <= t.sea_level)).any()
    assert stages[:5] == ["noise", "shaping", "climate", "classes", "clean-up"]
    assert "erosion" in stages and stages[-1] == "rivers"


def test_nothing_to_carve_gives_the_map_heights():
    t = make_terrain(SMALL, TerrainConfig(droplets=0, rivers=False))
    assert np.array_equal(t.heights, np.clip(t.layers.elevation, 0.0, 1.0))
    assert t.erosion is None and t.rivers is None


def test_mesh_keeps_the_sea_level_flat():
    t = make_terrain(SMALL, TerrainConfig(droplets=200, rivers=False, multiplier=10.0, stride=2))
    mesh = terrain_mesh(t, TerrainConfig(multiplier=10.0, stride=2))
    assert mesh.vertices[:, 1].min() == pytest.approx(t.sea_level * 10.0)
    assert mesh.vertices.shape[0] == 33 * 49  # every other sample, plus the last row and column


def test_none_normalisation_is_mapped_to_unit_heights():
    raw = MapConfig(terrain=NoiseMap(width=32, height=32, normalize="none"))
    t = make_terrain(raw, TerrainConfig(droplets=100))
    assert 0.0 <= t.heights.min() and t.heights.max() <= 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"droplets": -1}, "droplets must be an integer from 0"),
        ({"thermal": -2}, "thermal must be an integer from 0"),
        ({"dla": 1.5}, "dla must be a number from 0 to 1"),
        ({"river_threshold": 0}, "river_threshold must be a finite number > 0"),
        ({"multiplier": -1.0}, "multiplier must be a finite number > 0"),
        ({"stride": 0}, "stride must be an integer from 1"),
    ],
)
def test_bad_terrain_config(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TerrainConfig(**kwargs)
