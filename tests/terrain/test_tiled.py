"""Depression filling and flow accumulation in tiles equal the whole-map
versions byte for byte, with bounded reads, in other processes too."""

import concurrent.futures

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.recording import Recording
from worldgen.noise import Fractal, Perlin
from worldgen.terrain import (
    fill_depressions,
    flow_accumulation,
    flow_directions,
    tiled_fill,
    tiled_flow_accumulation,
)

FIELDS = st.one_of(
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=24),
               elements=st.integers(0, 5).map(float)),
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=24),
               elements=st.floats(-50, 50, allow_nan=False, width=32)),
)  # fmt: skip


def both(heights, tile, map_=None):
    filled = np.zeros(heights.shape)
    tiled_fill(heights, filled, tile=tile, map=map_)
    directions = flow_directions(fill_depressions(heights))
    accumulation = np.zeros(heights.shape)
    tiled_flow_accumulation(directions, accumulation, tile=tile, map=map_)
    return filled, accumulation, directions


@settings(max_examples=150, deadline=None)
@given(heights=FIELDS, tile=st.integers(2, 9))
def test_tiles_equal_the_whole_map(heights, tile):
    filled, accumulation, directions = both(heights, tile)
    assert np.array_equal(filled, fill_depressions(heights))
    assert np.array_equal(accumulation, flow_accumulation(directions))


def serpentine(size=96, lane=4):
    """A channel winding through every row band, down to one outlet: its
    drainage crosses the tile borders again and again."""
    heights = np.full((size, size), 100.0)
    step = 0.0
    for band, y in enumerate(range(1, size - 1, lane)):
        xs = range(1, size - 1) if band % 2 == 0 else range(size - 2, 0, -1)
        for x in xs:
            heights[y, x] = 50.0 - step
            step += 0.001
        if y + lane < size - 1:
            x = size - 2 if band % 2 == 0 else 1
            for yy in range(y + 1, y + lane):
                heights[yy, x] = 50.0 - step
                step += 0.001
    heights[size - 3, 0] = 0.0  # the outlet
    return heights


def basin_and_lake(size=96):
    """A wide flat lake over many tiles, and a closed basin whose only spill
    point is tiles away from it."""
    y, x = np.mgrid[0:size, 0:size]
    heights = 20.0 + 0.01 * ((x - 30) ** 2 + (y - 40) ** 2)  # a bowl
    heights[35:45, 20:80] = 5.0  # a long trough inside it: one flat lake when filled
    heights[0, 90] = 3.0  # the spill point, on the far border
    heights[1:40, 89:92] = np.minimum(heights[1:40, 89:92], 25.0)
    return heights


@pytest.mark.parametrize("field", [serpentine, basin_and_lake])
@pytest.mark.parametrize("tile", [16, 13])
def test_drainage_across_many_tiles(field, tile):
    heights = field()
    filled, accumulation, directions = both(heights, tile)
    whole = fill_depressions(heights)
    assert np.array_equal(filled, whole)
    assert np.array_equal(accumulation, flow_accumulation(directions))
    assert accumulation.max() > 30 * tile  # a river through several tiles


def test_tasks_read_and_write_only_their_tile():
    heights = basin_and_lake()
    source = Recording(heights)
    out = Recording(np.zeros(heights.shape))
    tiled_fill(source, out, tile=16)
    assert max(source.reads) <= 16 * 16
    assert (out.writes == 1).all()
    directions = Recording(flow_directions(out.array))
    acc = Recording(np.zeros(heights.shape))
    tiled_flow_accumulation(directions, acc, tile=16)
    assert max(directions.reads) <= 16 * 16 and (acc.writes == 1).all()


def test_tasks_in_other_processes_write_a_shared_store(tmp_path):
    zarr = pytest.importorskip("zarr")
    heights = serpentine()

    def array(name, dtype):
        return zarr.open_array(tmp_path / name, mode="w", shape=heights.shape,
                               chunks=(24, 24), dtype=dtype)  # fmt: skip

    source, out = array("h", np.float64), array("f", np.float64)
    source[:] = heights
    whole = fill_depressions(heights)
    directions, acc = array("d", np.int8), array("a", np.float64)
    directions[:] = flow_directions(whole)
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        tiled_fill(source, out, tile=24, map=pool.map)
        tiled_flow_accumulation(directions, acc, tile=24, map=pool.map)
    assert np.array_equal(out[:], whole)
    assert np.array_equal(acc[:], flow_accumulation(directions[:]))


def test_bad_input_is_refused_like_the_whole_map():
    out = np.zeros((4, 4))
    with pytest.raises(ValueError, match="heights must be finite; heights\\[2, 3\\]"):
        bad = np.zeros((4, 4))
        bad[2, 3] = np.nan
        tiled_fill(bad, out, tile=2)
    with pytest.raises(ValueError, match="out must be a writable array-like"):
        tiled_fill(np.zeros((4, 4)), np.zeros((4, 5)), tile=2)
    with pytest.raises(ValueError, match="tile must be an integer"):
        tiled_fill(np.zeros((4, 4)), out, tile=1)
    with pytest.raises(ValueError, match="points off the map"):
        tiled_flow_accumulation(np.zeros((4, 4), np.int8), out, tile=2)
    with pytest.raises(TypeError, match="integer D8 codes"):
        tiled_flow_accumulation(np.zeros((4, 4)), out, tile=2)
    cycle = np.full((4, 4), -1, np.int8)
    cycle[1, 1], cycle[1, 2] = 0, 4  # east, then west: a cycle across a tile border
    with pytest.raises(ValueError, match="cycle"):
        tiled_flow_accumulation(cycle, out, tile=2)


@pytest.mark.slow
def test_a_4096_map_in_512_tiles_equals_the_whole_map():
    x = np.arange(4096) / 512.0
    heights = Fractal(Perlin(5), octaves=7).grid(x, x)
    filled = np.zeros(heights.shape)
    tiled_fill(heights, filled, tile=512)
    whole = fill_depressions(heights)
    assert np.array_equal(filled, whole)
    assert (whole > heights).mean() > 0.05  # lakes spanning tiles
    directions = flow_directions(whole)
    accumulation = np.zeros(heights.shape)
    tiled_flow_accumulation(directions, accumulation, tile=512)
    expected = flow_accumulation(directions)
    assert np.array_equal(accumulation, expected)
    assert expected.max() > 4 * 512 * 512  # drainage across many tiles


def test_heights_are_left_untouched_when_tiles_span_whole_rows():
    # Tiles as wide as the map are C-contiguous slices of it: the fill
    # must work on a copy, not raise the map's own cells to their spill
    # levels (nor fail on a read-only map).
    before = np.random.default_rng(3).random((40, 10))
    heights = before.copy()
    heights.flags.writeable = False
    filled = np.zeros(heights.shape)
    tiled_fill(heights, filled, tile=16)
    assert np.array_equal(heights, before)
    assert np.array_equal(filled, fill_depressions(before))
    writable = before.copy()
    tiled_fill(writable, filled, tile=16)
    assert np.array_equal(writable, before)
