"""Frozen bytes of carved windows far from the origin.

Windowed carving is checked elsewhere against itself (a window equals the
crop of a bigger one); these digests pin what it makes, so that a change
of any stage's reach, seeds or grid (an erosion halo one short, two ridge
tiles sharing a seed, the river regions' grid laid on the wrong axis) cannot pass
unseen. The configs are written out in full, not taken from presets, so
that changing a preset does not change them. If the carving is changed on
purpose, the digests are remade with ``python -m tests.terrain.test_frozen``
and the change says why.
"""

import hashlib

import numpy as np
import pytest

from worldgen.products import MapConfig, TerrainConfig
from worldgen.products._carved import carve_window
from worldgen.terrain._windowed import clear_caches
from worldgen.world import HeightCurve, Mask, NoiseMap, Window

# An unmasked map wider than tall (so the river regions' grid is centred
# differently on each axis), carved with ridges, droplets, thermal erosion
# and rivers.
CONFIG = MapConfig(
    terrain=NoiseMap(
        seed=11, width=600, height=400, scale=150.0, octaves=6, persistence=0.5,
        lacunarity=2.0, noise="perlin", mode="fbm", normalize="global",
    ),
    mask=Mask("none"),
    curve=HeightCurve(((0.0, 0.0), (0.5, 0.42), (1.0, 1.0)), smooth=True),
    relief=150.0,
)  # fmt: skip
CARVING = TerrainConfig(droplets=60_000, thermal=4, dla=0.3, rivers=True, river_threshold=30.0)
# x straddles the ridge tiles' border at 10000128 (a multiple of 256) and
# lies where the river regions' grid puts cells in another region if laid
# on the wrong axis (its borders are at 10000172 here, 10000072 swapped);
# y runs through tiles -1, 0 and 1.
WINDOWS = {
    "far east": Window(10_000_080, -40, 96, 330),
}
# Remade when windowed erosion became two passes of independent droplets
# (no erosion tiles: a cell depends on the heights within the erosion halo),
# their changes summed band by band (128 world rows of droplet starts); and
# again when a pass's change of a cell became what each band deposited
# there less what it eroded (the droplets no longer write a field of
# changes beside the two); and again when an erosion step's sediment
# gained amount x the brush's weight sum where no take was cut to its
# cell's room (one multiplication instead of a chain of 25 additions).
DIGESTS = {
    "far east": "0548688ade4e718745f02b533d94ea99463658b1f44f77d4eb24c93dd4ac9379",
}


def digest(window: Window) -> str:
    clear_caches()
    made = carve_window(CONFIG, CARVING, window)
    rivers = made.terrain.rivers
    parts = [
        made.terrain.heights.astype("<f8").tobytes(),
        rivers.river.astype(np.uint8).tobytes(),
        rivers.lakes.astype(np.uint8).tobytes(),
    ]
    return hashlib.sha256(b"".join(parts)).hexdigest()


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_carved_window_has_its_frozen_bytes(name):
    assert digest(WINDOWS[name]) == DIGESTS[name]


if __name__ == "__main__":
    for name, window in WINDOWS.items():
        print(f"    {name!r}: {digest(window)!r},")
