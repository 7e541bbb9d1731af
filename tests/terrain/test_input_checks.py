"""Bad numbers and config objects in the terrain, world and io layers: each
gives a clear error naming the parameter, never a NaN result or a bare
exception from deep inside."""

import numpy as np
import pytest

from worldgen.io import write_svg_polylines
from worldgen.io._heightmap import write_npy
from worldgen.products import (
    BiomeTable,
    MapConfig,
    classify,
    heightfield_mesh,
    hillshade,
    make_layers,
)
from worldgen.products._classify import DEFAULT_BIOMES, Band
from worldgen.products._maps import Cleanup
from worldgen.products._terrain import TerrainConfig
from worldgen.voxel import VoxelConfig
from worldgen.world import HeightCurve, Mask, NoiseMap

NAN = np.array([[0.2, np.nan], [0.5, 0.7]])


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: classify(NAN), "heights"),
        (lambda: HeightCurve()(NAN), "heights"),
        (lambda: HeightCurve(((0, 0), (1, 1)), smooth=True)(NAN), "heights"),
        (lambda: Mask("radial", 4.0).apply(NAN, np.zeros(2), np.zeros(2)), "heights"),
        (lambda: Mask("none").apply(NAN, np.zeros(2), np.zeros(2)), "heights"),
        (lambda: DEFAULT_BIOMES.classify(NAN, np.zeros((2, 2))), "elevation"),
        (lambda: DEFAULT_BIOMES.classify(np.zeros((2, 2)), NAN), "moisture"),
        (lambda: heightfield_mesh(np.pad(NAN, 1)), "heights"),
    ],
)
def test_nan_is_rejected_naming_the_input(call, name):
    with pytest.raises(ValueError, match=rf"{name} must be finite"):
        call()


def test_npy_writer_rejects_nan_and_float32_overflow(tmp_path):
    with pytest.raises(ValueError, match=r"heights must be finite"):
        write_npy(tmp_path / "h.npy", NAN)
    with pytest.raises(ValueError, match=r"heights must fit in float32"):
        write_npy(tmp_path / "h.npy", np.full((2, 2), 1e39))
    assert list(tmp_path.iterdir()) == []


def test_hillshade_slopes_that_overflow_are_rejected():
    steep = np.array([[0.0, 1e308], [-1e308, 0.0]])
    with pytest.raises(ValueError, match=r"slopes beyond 1e150; lower exaggeration"):
        hillshade(steep)
    with pytest.raises(ValueError, match=r"slopes beyond 1e150"):
        hillshade(np.array([[0.0, 1.0], [0.0, 0.0]]), exaggeration=1e308)


def test_mesh_with_border_needs_two_samples_inside_and_has_finite_uvs():
    with pytest.raises(ValueError, match=r"at least 4 samples each way \(border included\)"):
        heightfield_mesh(np.zeros((3, 3)), border=True)
    mesh = heightfield_mesh(np.zeros((4, 4)), border=True)
    assert np.isfinite(mesh.uvs).all()
    assert mesh.uvs.min() == 0.0 and mesh.uvs.max() == 1.0


def test_svg_writer_never_writes_inf(tmp_path):
    with pytest.raises(ValueError, match=r"polylines\[0\] coordinates must lie within"):
        write_svg_polylines(tmp_path / "a.svg", [[[0, 0], [1e306, 1]]], width=10, height=10)
    with pytest.raises(ValueError, match=r"width and height must be below 1e15"):
        write_svg_polylines(tmp_path / "a.svg", [[[0, 0], [1, 1]]], width=1e300, height=10)
    assert list(tmp_path.iterdir()) == []


def test_only_water_bands_with_lake_clean_up():
    water = (Band("deep water", 0.5, (0, 0, 90)), Band("shallow water", 1.0, (0, 0, 200)))
    config = MapConfig(
        terrain=NoiseMap(width=24, height=16), bands=water, cleanup=Cleanup(lake_size=5)
    )
    layers = make_layers(config)
    assert set(np.unique(layers.tiles)) <= {0, 1}
    assert np.array_equal(layers.tiles, layers.classes)  # nothing to fill a lake with


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: MapConfig(terrain="big"), TypeError, r"terrain must be a NoiseMap, got str"),
        (lambda: MapConfig(mask="radial"), TypeError, r"mask must be a Mask"),
        (lambda: MapConfig(curve=[(0, 0)]), TypeError, r"curve must be a HeightCurve"),
        (lambda: MapConfig(biomes={}), TypeError, r"biomes must be a BiomeTable"),
        (lambda: MapConfig(cleanup=True), TypeError, r"cleanup must be a Cleanup"),
        (lambda: Cleanup(thin_water="no"), TypeError, r"thin_water must be True or False"),
        (lambda: HeightCurve(smooth=1), TypeError, r"smooth must be True or False"),
        (lambda: NoiseMap(offset=("1", 2)), ValueError, r"offset must be two finite numbers"),
        (lambda: VoxelConfig(sea_level="62"), TypeError, r"sea_level must be an integer"),
        (lambda: VoxelConfig(palette="grey"), TypeError, r"palette must be a sequence"),
        (lambda: TerrainConfig(rivers="yes"), TypeError, r"rivers must be True or False"),
        (lambda: TerrainConfig(erosion=3), TypeError, r"erosion must be a HydraulicErosion"),
        (lambda: TerrainConfig(dla="1"), TypeError, r"dla must be a number"),
    ],
)
def test_config_objects_are_type_checked(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_world_palette_colours_are_checked_by_name():
    from worldgen.config import voxel_config

    with pytest.raises(ValueError, match=r"palette 'stone' colour must be three integers"):
        voxel_config({"palette": {"stone": "grey"}})


def test_world_seeds_are_canonical_unsigned():
    assert VoxelConfig(seed=-1).seed == 2**64 - 1
    assert VoxelConfig(seed=-1).key == VoxelConfig(seed=2**64 - 1).key
    assert VoxelConfig(seed=np.int64(3)) == VoxelConfig(seed=3)
    assert VoxelConfig(seed=np.int64(3)).key == VoxelConfig(seed=3).key
    assert VoxelConfig(seed=np.uint64(2**64 - 1)).key == VoxelConfig(seed=-1).key


def test_numpy_scalars_in_terrain_configs():
    assert NoiseMap(offset=(np.float32(1.5), np.int64(2))).offset == (1.5, 2.0)
    assert Mask(centre=(np.float32(1), np.int8(2))).centre == (1.0, 2.0)
    assert Band("x", np.float32(0.5), (1, 2, 3)).top == 0.5
    assert TerrainConfig(dla=np.float32(0.5)).dla == np.float32(0.5)
    assert NoiseMap(seed=np.int64(4)) == NoiseMap(seed=4)


def test_biome_table_rejects_nan_temperature():
    table = BiomeTable(
        elevation=(1.0,), moisture=(1.0,), table=((("a",),), (("a",),)),
        colours=(("a", (1, 2, 3)),), temperature=(0.5, 1.0),
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"temperature must be finite"):
        table.classify(np.zeros((2, 2)), np.zeros((2, 2)), NAN)
