"""The world's files, through the library and the command line."""

import numpy as np
import pytest
import trimesh
from PIL import Image
from typer.testing import CliRunner

from worldgen.cli import app
from worldgen.voxel import ChunkStore, VoxelConfig, generate_chunk, write_world_set
from worldgen.world import spawn

runner = CliRunner()


def test_world_set_fills_the_store_and_draws_it(tmp_path):
    config = VoxelConfig(seed=2)
    written = write_world_set(config, tmp_path, x=40, z=-20, radius=40, mesh_radius=12)
    assert [p.name for p in written] == ["world.db", "world_map.png", "section.png", "region.glb"]
    with ChunkStore(tmp_path / "world.db", config.key) as store:
        assert len(store) >= 9
        for cx, cz in store.keys():
            assert store.get(cx, cz).same(generate_chunk(config, cx, cz))
    with Image.open(tmp_path / "section.png") as image:
        assert image.size[1] == config.height
    mesh = trimesh.load(tmp_path / "region.glb", force="mesh")
    assert len(mesh.faces) > 0
    first = (tmp_path / "world_map.png").read_bytes()
    write_world_set(config, tmp_path, x=40, z=-20, radius=40, mesh_radius=12)  # from the store now
    assert (tmp_path / "world_map.png").read_bytes() == first


def test_world_command_and_a_mismatched_store(tmp_path):
    result = runner.invoke(
        app, ["world", "--out", str(tmp_path), "--radius", "24", "--mesh-radius", "8"]
    )
    assert result.exit_code == 0, result.output
    assert "world_map.png" in result.output and (tmp_path / "region.glb").exists()
    other = runner.invoke(app, ["world", "--out", str(tmp_path), "--radius", "24", "--seed", "9"])
    assert other.exit_code == 1
    assert "holds another world" in other.output and "seed 0" in other.output
    bad = runner.invoke(app, ["world", "--out", str(tmp_path / "b"), "--radius", "0"])
    assert bad.exit_code == 1 and "radius must be an integer from 1" in bad.output
    toml = tmp_path / "world.toml"
    toml.write_text("seed = 9\ncaves = false\n")
    from_file = runner.invoke(
        app, ["world", "--out", str(tmp_path / "c"), "--config", str(toml), "--radius", "16"]
    )
    assert from_file.exit_code == 0 and "(seed 9," in from_file.output


def test_world_command_terrain_option(tmp_path):
    args = ["world", "--out", str(tmp_path), "--radius", "8", "--mesh-radius", "8"]
    result = runner.invoke(app, [*args, "--terrain", "heightmap", "--no-caves"])
    assert result.exit_code == 0, result.output
    config = VoxelConfig(terrain="heightmap", caves=False)
    x, z = spawn(config.world)  # the command centres on the spawn
    with ChunkStore(tmp_path / "world.db", config.key) as store:
        assert store.get(x // 16, z // 16).same(generate_chunk(config, x // 16, z // 16))
    bad = runner.invoke(app, [*args, "--terrain", "2d"])
    assert bad.exit_code != 0 and "2d" in bad.output


@pytest.mark.parametrize("threads", [1, 2])
def test_store_contents_do_not_depend_on_threads(tmp_path, threads):
    config = VoxelConfig(seed=4)
    write_world_set(config, tmp_path, radius=32, mesh_radius=8, threads=threads)
    with ChunkStore(tmp_path / "world.db", config.key) as store:
        for cx, cz in store.keys():
            assert np.array_equal(store.get(cx, cz).blocks, generate_chunk(config, cx, cz).blocks)


def test_the_meshed_chunks_are_picked_with_one_chunk_range(tmp_path, monkeypatch):
    # The mesh's chunks were picked by making the chunk range of the mesh
    # radius again for every chunk of the set: at --radius 1024 and
    # --mesh-radius 512, over a minute of a run from a filled store.
    import worldgen.voxel._outputs as outputs

    calls = []

    def counted(*args):
        calls.append(args)
        return chunk_range(*args)

    from worldgen.voxel._chunk import chunk_range

    monkeypatch.setattr(outputs, "chunk_range", counted)
    write_world_set(VoxelConfig(seed=2), tmp_path, x=40, z=-20, radius=40, mesh_radius=12)
    assert len(calls) <= 4  # the memory estimate's two, the drawing's two
