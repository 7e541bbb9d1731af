"""A terrain set keeps only what its files need while it writes them: a big
window's arrays are each some 34 MB, and the set's peak memory is the sum
of those alive at once."""

import weakref

from worldgen.config import map_config, preset
from worldgen.io import _mapset, write_terrain_set
from worldgen.products import TerrainConfig
from worldgen.products._carved import carve_window
from worldgen.world import Window

# A window of the default world's land (the terrain command's default).
CONFIG = map_config(preset("continents"))
WINDOW = Window(-26128 + 600, -31328 + 600, 96, 80)


def test_a_carved_window_s_layers_hold_no_climate():
    # The files read the carved layers' classes, tiles, biomes and water:
    # the window's temperature, rainfall and a copy of its heights are not
    # kept (nor made at the window's size) beside them.
    made = carve_window(CONFIG, TerrainConfig(droplets=2000), WINDOW, shared=False)
    carved = made.carved
    assert carved.elevation is None and carved.moisture is None and carved.temperature is None
    for name in ("classes", "tiles", "biomes", "tile_ids", "autotile", "water"):
        assert getattr(carved, name).shape == WINDOW.shape, name


def test_the_erosion_s_arrays_are_freed_before_the_map_files(tmp_path, monkeypatch):
    # Eroded and deposited (float64, of the window) are needed for
    # erosion.png alone: made into that picture at once, not kept through
    # the pictures, tile maps and height files.
    alive = {}

    def carving(*args, **kwargs):
        made = carve_window(*args, **kwargs)
        erosion = made.terrain.erosion
        alive["arrays"] = [weakref.ref(erosion.eroded), weakref.ref(erosion.deposited)]
        return made

    def progress(stage, *counts):
        if stage in ("pictures", "files", "mesh"):
            seen[stage] = [ref() is not None for ref in alive["arrays"]]

    seen = {}
    monkeypatch.setattr(_mapset, "carve_window", carving)
    written = write_terrain_set(
        CONFIG, TerrainConfig(droplets=2000), tmp_path / "set", window=WINDOW, meshes=(),
        progress=progress,
    )  # fmt: skip
    assert "erosion.png" in {p.name for p in written}
    assert seen == {stage: [False, False] for stage in ("pictures", "files", "mesh")}
