"""`--export zarr|cog|tiles`: the block-by-block outputs from the command line."""

import json

import numpy as np
import pytest
import zarr
from PIL import Image
from typer.testing import CliRunner

from worldgen.cli import app
from worldgen.config import map_config, merge, preset
from worldgen.products import TerrainConfig
from worldgen.products._carved import carve_window
from worldgen.world import Window

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
runner = CliRunner()


def test_terrain_export_zarr_cog_tiles_of_a_window(tmp_path):
    out = tmp_path / "big"
    args = ["terrain", "--width", "256", "--height", "192", "--x", "40", "--y", "-30",
            "--droplets", "2000", "--block", "64", "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, [*args, "--export", "zarr", "--export", "cog", "--export", "tiles"])
    assert result.exit_code == 0, result.output
    group = zarr.open_group(out / "world.zarr", mode="r")
    # --width/--height give the window's size; the map keeps its 512 x 512.
    settings = map_config(merge(preset("islands", 512, 512), {"terrain": {"normalize": "global"}}))
    whole = carve_window(settings, TerrainConfig(droplets=2000), Window(40, -30, 256, 192))
    assert np.array_equal(group["eroded"][:], whole.terrain.heights.astype(np.float32))
    assert np.array_equal(group["colour"][:], whole.colour)
    rasterio = pytest.importorskip("rasterio")
    with rasterio.open(out / "world.tif") as src:
        assert np.array_equal(src.read(1), group["eroded"][:])
    about = json.loads((out / "tiles" / "tiles.json").read_text())
    deepest = Image.open(out / "tiles" / str(about["maxzoom"]) / "0" / "0.png")
    assert np.array_equal(np.asarray(deepest)[:192, :256, :3], whole.colour)
    # A rerun finds every block done and writes the same store.
    again = runner.invoke(app, [*args, "--export", "zarr"])
    assert again.exit_code == 0, again.output
    assert np.array_equal(zarr.open_group(out / "world.zarr", mode="r")["eroded"][:],
                          group["eroded"][:])  # fmt: skip


def test_block_outputs_do_not_mix_with_the_set_formats(tmp_path):
    result = runner.invoke(
        app, ["map", "--export", "zarr", "--export", "npy", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 1
    assert "cannot be mixed with npy" in result.output
