"""Tile-map clean-up and autotile masks: hand-made grids, naive twins, properties."""

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from worldgen.products._tilemap import (
    Cleanup,
    autotile_masks,
    clean_tiles,
    fill_lakes,
    limit_steps,
    remove_isolated,
    remove_thin_water,
)

# ------------------------------------------------------- slow, obvious twins

N, E, S, W = (-1, 0), (0, 1), (1, 0), (0, -1)
NW, NE, SW, SE = (-1, -1), (-1, 1), (1, -1), (1, 1)


def neighbour(tiles, step):
    """tiles[y + dy, x + dx] for every cell, and whether it lies inside the map."""
    dy, dx = step
    h, w = tiles.shape
    padded = np.pad(tiles.astype(np.int64), 1, constant_values=-1)
    shifted = padded[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
    return shifted, shifted >= 0


def naive_thin_water(tiles, water, fill=None, passes=None):
    out = np.array(tiles, dtype=np.int64)
    done = 0
    while passes is None or done < passes:
        wet = np.isin(out, list(water))
        land = {}
        for step in (N, E, S, W):
            value, inside = neighbour(out, step)
            land[step] = (inside & ~np.isin(value, list(water)), value)
        across = wet & land[W][0] & land[E][0]
        along = wet & land[N][0] & land[S][0]
        if not (across | along).any():
            break
        smallest_across = np.minimum(land[W][1], land[E][1])
        smallest_along = np.minimum(land[N][1], land[S][1])
        choice = np.where(
            across & along,
            np.minimum(smallest_across, smallest_along),
            np.where(across, smallest_across, smallest_along),
        )
        out = np.where(across | along, choice if fill is None else fill, out)
        done += 1
    return out.astype(np.asarray(tiles).dtype)


def naive_isolated(tiles, connectivity):
    steps = [N, E, S, W, NW, NE, SW, SE][:connectivity]
    around = [neighbour(tiles, step) for step in steps]
    alone = ~np.any([inside & (value == tiles) for value, inside in around], axis=0)
    alone &= np.any([inside for _, inside in around], axis=0)
    best = np.array(tiles, dtype=np.int64)
    best_votes = np.zeros(tiles.shape, dtype=np.int64)
    for c in np.unique(tiles):  # ascending, and only a strictly larger count wins
        votes = np.sum([inside & (value == c) for value, inside in around], axis=0)
        better = votes > best_votes
        best = np.where(better, c, best)
        best_votes = np.where(better, votes, best_votes)
    return np.where(alone, best, tiles).astype(tiles.dtype)


def naive_lakes(tiles, water, max_size, fill):
    h, w = tiles.shape
    wet = np.isin(tiles, list(water))
    out = tiles.copy()
    seen = np.zeros_like(wet)
    for y0 in range(h):
        for x0 in range(w):
            if not wet[y0, x0] or seen[y0, x0]:
                continue
            body, todo = [], deque([(y0, x0)])
            seen[y0, x0] = True
            while todo:
                y, x = todo.popleft()
                body.append((y, x))
                for dy, dx in (N, E, S, W):
                    yy, xx = y + dy, x + dx
                    if 0 <= yy < h and 0 <= xx < w and wet[yy, xx] and not seen[yy, xx]:
                        seen[yy, xx] = True
                        todo.append((yy, xx))
            border = any(y in (0, h - 1) or x in (0, w - 1) for y, x in body)
            if not border and len(body) < max_size:
                for y, x in body:
                    out[y, x] = fill
    return out


def naive_steps(tiles, connectivity):
    # The cone formula itself: max over every cell q of tiles[q] - d(p, q).
    h, w = tiles.shape
    y, x = np.mgrid[0:h, 0:w]
    out = np.empty((h, w), dtype=np.int64)
    for py in range(h):
        for px in range(w):
            dy, dx = np.abs(y - py), np.abs(x - px)
            d = dy + dx if connectivity == 4 else np.maximum(dy, dx)
            out[py, px] = (tiles.astype(np.int64) - d).max()
    return out.astype(tiles.dtype)


def naive_masks(tiles, connectivity, edge, match="equal"):
    def same(step):
        value, inside = neighbour(tiles, step)
        matched = value >= tiles if match == "at-least" else value == tiles
        return np.where(inside, matched, edge == "same")

    n, e, s, w = same(N), same(E), same(S), same(W)
    if connectivity == 4:
        return (n * 1 + e * 2 + s * 4 + w * 8).astype(np.uint8)
    nw = same(NW) & n & w
    ne = same(NE) & n & e
    sw = same(SW) & s & w
    se = same(SE) & s & e
    bits = nw * 1 + n * 2 + ne * 4 + w * 8 + e * 16 + sw * 32 + s * 64 + se * 128
    return bits.astype(np.uint8)


# ------------------------------------------------------------ thin water

STAIRCASE = np.array(
    [
        [2, 2, 2, 2, 2, 2, 2],
        [2, 0, 0, 2, 2, 2, 2],
        [2, 2, 0, 0, 2, 2, 2],
        [2, 2, 2, 0, 0, 0, 2],
        [2, 2, 2, 2, 0, 0, 2],
        [2, 2, 2, 2, 2, 2, 2],
    ]
)


def test_staircase_is_eaten_one_cell_per_pass_until_the_pond():
    # Pass 1 converts (1,1) (land above and below); each pass then completes
    # a pair for the next cell, five passes in all, and the 2 x 2 pond stays.
    expected = np.array(
        [
            [2, 2, 2, 2, 2, 2, 2],
            [2, 2, 2, 2, 2, 2, 2],
            [2, 2, 2, 2, 2, 2, 2],
            [2, 2, 2, 2, 0, 0, 2],
            [2, 2, 2, 2, 0, 0, 2],
            [2, 2, 2, 2, 2, 2, 2],
        ]
    )
    after_one_pass = np.array(
        [
            [2, 2, 2, 2, 2, 2, 2],
            [2, 2, 0, 2, 2, 2, 2],
            [2, 2, 0, 0, 2, 2, 2],
            [2, 2, 2, 0, 0, 0, 2],
            [2, 2, 2, 2, 0, 0, 2],
            [2, 2, 2, 2, 2, 2, 2],
        ]
    )
    assert np.array_equal(naive_thin_water(STAIRCASE, {0}, passes=1), after_one_pass)
    assert not np.array_equal(naive_thin_water(STAIRCASE, {0}, passes=4), expected)
    assert np.array_equal(naive_thin_water(STAIRCASE, {0}, passes=5), expected)
    assert np.array_equal(remove_thin_water(STAIRCASE, {0}), expected)


def test_vertical_pairs_trigger_and_the_smallest_land_class_wins():
    tiles = np.array(
        [
            [3, 3, 2, 3],
            [0, 0, 0, 0],
            [2, 4, 4, 2],
        ]
    )
    expected = np.array(
        [
            [3, 3, 2, 3],
            [2, 3, 2, 2],
            [2, 4, 4, 2],
        ]
    )
    assert np.array_equal(remove_thin_water(tiles, {0}), expected)


def test_horizontal_pairs_trigger():
    tiles = np.array(
        [
            [3, 1, 2],
            [3, 0, 2],
            [3, 1, 2],
        ]
    )
    # Column 1 is all water (ids 0 and 1) between classes 3 and 2.
    expected = np.array(
        [
            [3, 2, 2],
            [3, 2, 2],
            [3, 2, 2],
        ]
    )
    assert np.array_equal(remove_thin_water(tiles, [0, 1]), expected)


def test_both_pairs_take_the_smallest_of_all_four():
    tiles = np.array(
        [
            [9, 5, 9],
            [4, 0, 6],
            [9, 3, 9],
        ]
    )
    assert remove_thin_water(tiles, {0})[1, 1] == 3
    assert remove_thin_water(tiles, {0}, fill=7)[1, 1] == 7


def test_outside_the_map_is_not_land():
    # Water along the map's edge is never closed off across that edge.
    tiles = np.array(
        [
            [0, 2, 0],
            [0, 2, 0],
        ]
    )
    assert np.array_equal(remove_thin_water(tiles, {0}), tiles)
    assert np.array_equal(remove_thin_water(np.array([[0, 2, 2]]), {0}), [[0, 2, 2]])
    # ... but the axis that stays inside the map still counts.
    assert np.array_equal(remove_thin_water(np.array([[2, 0, 3]]), {0}), [[2, 2, 3]])
    assert np.array_equal(remove_thin_water(np.array([[4], [1], [5]]), {1}), [[4], [4], [5]])


def test_fill_sets_the_class_of_every_converted_cell():
    expected = np.array(
        [
            [2, 2, 2, 2, 2, 2, 2],
            [2, 7, 7, 2, 2, 2, 2],
            [2, 2, 7, 7, 2, 2, 2],
            [2, 2, 2, 7, 0, 0, 2],
            [2, 2, 2, 2, 0, 0, 2],
            [2, 2, 2, 2, 2, 2, 2],
        ]
    )
    assert np.array_equal(remove_thin_water(STAIRCASE, {0}, fill=7), expected)


def test_a_single_water_id_and_absent_ids_are_accepted():
    assert np.array_equal(remove_thin_water(STAIRCASE, 0), remove_thin_water(STAIRCASE, {0, 9}))
    assert np.array_equal(remove_thin_water(STAIRCASE, []), STAIRCASE)


# ------------------------------------------------------------ isolated cells


def test_isolated_cells_take_the_most_common_neighbour():
    tiles = np.array(
        [
            [1, 1, 1, 1],
            [1, 2, 1, 3],
            [1, 1, 3, 3],
        ]
    )
    expected = np.array(
        [
            [1, 1, 1, 1],
            [1, 1, 1, 3],
            [1, 1, 3, 3],
        ]
    )
    assert np.array_equal(remove_isolated(tiles), expected)


def test_isolated_ties_go_to_the_smallest_id_and_the_border_is_ignored():
    tiles = np.array(
        [
            [0, 4, 7],
            [2, 9, 2],
            [7, 4, 7],
        ]
    )
    # Every cell is alone. Centre: 4, 2, 4, 2, a tie -> 2. Corners see 4 and
    # 2 -> 2. (0,1) sees 0, 7, 9 -> 0; (1,0) sees 0, 9, 7 -> 0; (1,2) sees
    # 7, 9, 7 -> 7; (2,1) sees 9, 7, 7 -> 7.
    expected = np.array(
        [
            [2, 0, 2],
            [0, 2, 7],
            [2, 7, 2],
        ]
    )
    assert np.array_equal(remove_isolated(tiles), expected)


def test_isolated_is_one_simultaneous_pass():
    assert np.array_equal(remove_isolated(np.array([[1, 2]])), [[2, 1]])
    assert np.array_equal(remove_isolated(np.array([[5]])), [[5]])


def test_diagonal_neighbours_count_with_connectivity_8():
    tiles = np.array(
        [
            [5, 0, 0],
            [0, 5, 0],
            [0, 0, 0],
        ]
    )
    assert np.array_equal(remove_isolated(tiles), np.zeros((3, 3)))
    assert np.array_equal(remove_isolated(tiles, connectivity=8), tiles)


# ------------------------------------------------------------------- lakes

LAKES = np.array(
    [
        [2, 2, 2, 2, 2, 0],
        [2, 1, 2, 2, 2, 0],
        [2, 2, 2, 0, 0, 2],
        [2, 2, 2, 0, 1, 2],
        [2, 2, 2, 2, 2, 2],
    ]
)


def test_lakes_smaller_than_max_size_are_filled():
    # Bodies: (1,1) of 1 cell; the 2 x 2 of ids 0 and 1 (4 cells); and the
    # 2 cells in column 5, which touch the border and always stay.
    one_filled = np.array(
        [
            [2, 2, 2, 2, 2, 0],
            [2, 3, 2, 2, 2, 0],
            [2, 2, 2, 0, 0, 2],
            [2, 2, 2, 0, 1, 2],
            [2, 2, 2, 2, 2, 2],
        ]
    )
    both_filled = np.array(
        [
            [2, 2, 2, 2, 2, 0],
            [2, 3, 2, 2, 2, 0],
            [2, 2, 2, 3, 3, 2],
            [2, 2, 2, 3, 3, 2],
            [2, 2, 2, 2, 2, 2],
        ]
    )
    assert np.array_equal(fill_lakes(LAKES, {0, 1}, 1, 3), LAKES)
    assert np.array_equal(fill_lakes(LAKES, {0, 1}, 2, 3), one_filled)
    assert np.array_equal(fill_lakes(LAKES, {0, 1}, 4, 3), one_filled)  # 4 is not < 4
    assert np.array_equal(fill_lakes(LAKES, {0, 1}, 5, 3), both_filled)
    assert np.array_equal(fill_lakes(LAKES, {0, 1}, 10**30, 3), both_filled)


def test_lakes_are_4_connected_and_may_be_relabelled_as_water():
    tiles = np.array(
        [
            [2, 2, 2, 2],
            [2, 0, 2, 2],
            [2, 2, 0, 2],
            [2, 2, 2, 2],
        ]
    )
    expected = np.array(
        [
            [2, 2, 2, 2],
            [2, 1, 2, 2],
            [2, 2, 1, 2],
            [2, 2, 2, 2],
        ]
    )
    assert np.array_equal(fill_lakes(tiles, {0, 1}, max_size=2, fill=1), expected)


def test_water_only_as_given():
    # Class 1 is land here, so the 2 x 2 body is a lake of 3 cells (ids 0).
    out = fill_lakes(LAKES, {0}, 4, 3)
    assert out[2, 3] == out[2, 4] == out[3, 3] == 3
    assert out[3, 4] == 1 and out[1, 1] == 1


# ---------------------------------------------------------------- autotile

GRID4 = np.array(
    [
        [1, 1, 0],
        [1, 1, 0],
        [0, 1, 0],
    ]
)


def test_masks_4_connected():
    same = np.array(
        [
            [15, 13, 7],
            [11, 13, 7],
            [12, 5, 7],
        ]
    )
    different = np.array(
        [
            [6, 12, 4],
            [3, 13, 5],
            [0, 1, 1],
        ]
    )
    out = autotile_masks(GRID4)
    assert out.dtype == np.uint8
    assert np.array_equal(out, same)
    assert np.array_equal(autotile_masks(GRID4, edge="different"), different)


GRID8 = np.array(
    [
        [1, 0, 1],
        [1, 1, 1],
        [1, 1, 1],
    ]
)


def test_masks_8_connected_with_corner_reduction():
    # Centre: NW and NE are class 1 but N is not, so their bits stay clear:
    # W 8 + E 16 + SW 32 + S 64 + SE 128 = 248 (253 without the reduction).
    different = np.array(
        [
            [64, 0, 64],
            [210, 248, 106],
            [22, 31, 11],
        ]
    )
    same = np.array(
        [
            [107, 2, 214],
            [251, 248, 254],
            [255, 255, 255],
        ]
    )
    assert np.array_equal(autotile_masks(GRID8, connectivity=8, edge="different"), different)
    assert np.array_equal(autotile_masks(GRID8, connectivity=8), same)


@pytest.mark.parametrize(("connectivity", "distinct"), [(4, 16), (8, 47)])
def test_mask_counts_over_every_neighbourhood(connectivity, distinct):
    # Every 3 x 3 pattern of same/different around a centre: 16 masks with
    # 4-connectivity, the 47 "blob" tiles with 8.
    patterns = (np.arange(256)[:, None] >> np.arange(8)) & 1
    seen = set()
    for pattern in patterns:
        block = np.insert(pattern, 4, 1).reshape(3, 3)
        seen.add(int(autotile_masks(block, connectivity=connectivity)[1, 1]))
    assert len(seen) == distinct


# ------------------------------------------------------------- properties

dtypes = st.sampled_from([np.uint8, np.int16, np.int64])
maps = dtypes.flatmap(
    lambda dtype: hnp.arrays(
        dtype,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=12),
        elements=st.integers(0, 4),
    )
)
waters = st.sets(st.integers(0, 4), max_size=3)


@given(maps, waters, st.one_of(st.none(), st.integers(5, 6)))
def test_thin_water_properties(tiles, water, fill):
    before = tiles.copy()
    out = remove_thin_water(tiles, water, fill=fill)
    assert np.array_equal(tiles, before)
    assert out.shape == tiles.shape and out.dtype == tiles.dtype
    assert np.array_equal(out, naive_thin_water(tiles, water, fill))
    wet_before = np.isin(tiles, list(water))
    assert not (np.isin(out, list(water)) & ~wet_before).any()  # land stays land
    assert np.array_equal(out[~wet_before], tiles[~wet_before])
    assert np.array_equal(remove_thin_water(out, water, fill=fill), out)  # idempotent


@given(maps, st.sampled_from([4, 8]))
def test_isolated_matches_naive(tiles, connectivity):
    before = tiles.copy()
    out = remove_isolated(tiles, connectivity=connectivity)
    assert np.array_equal(tiles, before)
    assert out.dtype == tiles.dtype
    assert np.array_equal(out, naive_isolated(tiles, connectivity))


@given(maps, waters, st.integers(1, 30), st.integers(0, 6))
def test_lakes_match_naive(tiles, water, max_size, fill):
    fill %= max([int(tiles.max()), *water]) + 2  # dense ids: at most one new class
    before = tiles.copy()
    out = fill_lakes(tiles, water, max_size, fill)
    assert np.array_equal(tiles, before)
    assert out.dtype == tiles.dtype
    assert np.array_equal(out, naive_lakes(tiles, water, max_size, fill))


@given(
    maps,
    st.sampled_from([4, 8]),
    st.sampled_from(["same", "different"]),
    st.sampled_from(["equal", "at-least"]),
)
def test_masks_match_naive(tiles, connectivity, edge, match):
    out = autotile_masks(tiles, connectivity=connectivity, edge=edge, match=match)
    assert out.shape == tiles.shape
    assert np.array_equal(out, naive_masks(tiles, connectivity, edge, match))


@given(
    maps.filter(lambda t: min(t.shape) >= 3),
    st.sampled_from([4, 8]),
    st.data(),
)
def test_a_window_with_a_one_cell_halo_matches_the_whole_map(tiles, connectivity, data):
    h, w = tiles.shape
    y0 = data.draw(st.integers(1, h - 2))
    x0 = data.draw(st.integers(1, w - 2))
    y1 = data.draw(st.integers(y0 + 1, h - 1))
    x1 = data.draw(st.integers(x0 + 1, w - 1))
    window = tiles[y0 - 1 : y1 + 1, x0 - 1 : x1 + 1]
    for operation in (autotile_masks, remove_isolated):
        whole = operation(tiles, connectivity=connectivity)[y0:y1, x0:x1]
        alone = operation(window, connectivity=connectivity)[1:-1, 1:-1]
        assert np.array_equal(whole, alone)


def test_non_contiguous_and_big_endian_input():
    tiles = np.asfortranarray(STAIRCASE.astype(">i4"))[:, ::-1]
    expected = remove_thin_water(np.ascontiguousarray(STAIRCASE[:, ::-1]), {0})
    assert np.array_equal(remove_thin_water(tiles, {0}), expected)


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("tiles", "error", "message"),
    [
        (np.zeros(5, dtype=int), ValueError, r"tiles must be a non-empty 2-D array \(H, W\)"),
        (np.zeros((0, 3), dtype=int), ValueError, r"non-empty 2-D array .* shape \(0, 3\)"),
        (np.zeros((2, 2)), TypeError, r"tiles must hold integer class ids.*astype"),
        (np.zeros((2, 2), dtype=bool), TypeError, r"tiles must hold integer class ids"),
        (np.array([[0, -1]]), ValueError, r"tiles: class ids must be non-negative, found -1"),
        ([[0, 1], [2]], TypeError, r"tiles must be a 2-D array of integer class ids"),
        ("0,1", TypeError, r"tiles must be a 2-D array of integer class ids"),
    ],
)
def test_bad_tiles(tiles, error, message):
    for call in (
        lambda: remove_thin_water(tiles, {0}),
        lambda: remove_isolated(tiles),
        lambda: fill_lakes(tiles, {0}, 3, 1),
        lambda: autotile_masks(tiles),
    ):
        with pytest.raises(error, match=message):
            call()


@pytest.mark.parametrize("connectivity", [6, 0, True, "4"])
def test_bad_connectivity(connectivity):
    with pytest.raises(ValueError, match=r"connectivity must be 4 or 8"):
        remove_isolated(GRID4, connectivity=connectivity)
    with pytest.raises(ValueError, match=r"connectivity must be 4 or 8"):
        autotile_masks(GRID4, connectivity=connectivity)


def test_bad_edge():
    with pytest.raises(ValueError, match=r"edge must be one of 'same', 'different', got 'wrap'"):
        autotile_masks(GRID4, edge="wrap")
    with pytest.raises(ValueError, match=r"match must be one of 'equal', 'at-least', got 'above'"):
        autotile_masks(GRID4, match="above")


@pytest.mark.parametrize(
    ("max_size", "error"), [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError)]
)
def test_bad_max_size(max_size, error):
    with pytest.raises(error, match=r"max_size must be a positive integer"):
        fill_lakes(LAKES, {0}, max_size, 3)


@pytest.mark.parametrize(
    ("water", "error", "message"),
    [
        ("0", TypeError, r"water must be a collection of class ids"),
        (None, TypeError, r"water must be a collection of class ids"),
        ([0, -1], ValueError, r"water: each entry must be a non-negative integer class id"),
        ([0.5], TypeError, r"water: each entry must be a non-negative integer class id"),
    ],
)
def test_bad_water(water, error, message):
    with pytest.raises(error, match=message):
        remove_thin_water(STAIRCASE, water)
    with pytest.raises(error, match=message):
        fill_lakes(STAIRCASE, water, 3, 1)


def test_bad_fill():
    with pytest.raises(ValueError, match=r"fill must be a non-negative integer class id"):
        remove_thin_water(STAIRCASE, {0}, fill=-1)
    with pytest.raises(TypeError, match=r"fill must be a non-negative integer class id"):
        fill_lakes(STAIRCASE, {0}, 3, 1.0)
    with pytest.raises(ValueError, match=r"fill=0 is a water class; give a land class"):
        remove_thin_water(STAIRCASE, {0}, fill=0)
    with pytest.raises(ValueError, match=r"fill=300 does not fit tiles of dtype uint8"):
        fill_lakes(STAIRCASE.astype(np.uint8), {0}, 3, 300)


# ------------------------------------------- bounded passes, band steps, reach


def test_thin_water_passes_stop_the_staircase_part_way():
    # Five passes eat the staircase (see above); two eat its first two cells.
    two = remove_thin_water(STAIRCASE, {0}, passes=2)
    assert np.array_equal(two, naive_thin_water(STAIRCASE, {0}, passes=2))
    assert (two != STAIRCASE).sum() == 2
    assert np.array_equal(remove_thin_water(STAIRCASE, {0}, passes=0), STAIRCASE)
    assert np.array_equal(
        remove_thin_water(STAIRCASE, {0}, passes=5), remove_thin_water(STAIRCASE, {0})
    )


@given(maps, waters, st.integers(0, 4))
def test_thin_water_passes_match_naive(tiles, water, passes):
    out = remove_thin_water(tiles, water, passes=passes)
    assert np.array_equal(out, naive_thin_water(tiles, water, passes=passes))


def test_limit_steps_fills_steps_with_the_classes_between():
    tiles = np.array(
        [
            [0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0],
            [0, 0, 3, 0, 0],
            [0, 0, 0, 0, 0],
        ]
    )
    eight = np.array(
        [
            [1, 1, 1, 1, 1],
            [1, 2, 2, 2, 1],
            [1, 2, 3, 2, 1],
            [1, 2, 2, 2, 1],
        ]
    )
    four = np.array(
        [
            [0, 0, 1, 0, 0],
            [0, 1, 2, 1, 0],
            [1, 2, 3, 2, 1],
            [0, 1, 2, 1, 0],
        ]
    )
    assert np.array_equal(limit_steps(tiles), eight)
    assert np.array_equal(limit_steps(tiles, connectivity=4), four)


@given(maps, st.sampled_from([4, 8]))
def test_limit_steps_properties(tiles, connectivity):
    before = tiles.copy()
    out = limit_steps(tiles, connectivity=connectivity)
    assert np.array_equal(tiles, before)
    assert out.dtype == tiles.dtype
    assert np.array_equal(out, naive_steps(tiles, connectivity))
    assert (out >= tiles).all()
    steps = [N, E, S, W, NW, NE, SW, SE][:connectivity]
    for step in steps:
        value, inside = neighbour(out, step)
        assert (np.abs(value - out.astype(np.int64))[inside] <= 1).all()


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.uint64])
def test_limit_steps_in_every_class_type(dtype):
    # Raised in place in the classes' own type (uint64 in int64): a class
    # of 0 beside a high one must not wrap below zero.
    tiles = np.random.default_rng(4).integers(0, 9, size=(30, 23)).astype(dtype)
    tiles[::4, ::3] = 0
    for connectivity in (4, 8):
        out = limit_steps(tiles, connectivity=connectivity)
        assert out.dtype == dtype
        assert np.array_equal(out, naive_steps(tiles.astype(np.int64), connectivity))


def test_cleanup_reach_adds_up_the_steps():
    assert Cleanup().reach(8) == 8 + 1
    assert Cleanup().reach(8, steps=8) == 8 + 1 + 6
    assert Cleanup(lake_size=30).reach(8, steps=4) == 8 + 1 + 29 + 6
    assert Cleanup(thin_water=False, isolated=False).reach(3) == 0
    assert Cleanup(thin_water_passes=3, isolated=False).reach(1, steps=8) == 3


cleanups = st.builds(
    Cleanup,
    thin_water=st.booleans(),
    thin_water_passes=st.integers(0, 3),
    isolated=st.booleans(),
    lake_size=st.sampled_from([0, 1, 4, 7]),
)


def cleaned_window(tiles, cleanup, steps, box, halo):
    """The window box = (y0, x0, y1, x1) cleaned alone with a halo, and the
    same cells of the map cleaned whole."""
    y0, x0, y1, x1 = box
    options = {"water": {0, 1}, "band_count": 5, "steps": steps}
    whole = clean_tiles(tiles, cleanup, **options)
    alone = clean_tiles(tiles[y0 - halo : y1 + halo, x0 - halo : x1 + halo], cleanup,
                        halo=halo, **options)  # fmt: skip
    return alone, whole[y0:y1, x0:x1]


@settings(max_examples=60, deadline=None)
@given(cleanups, st.sampled_from([None, 4, 8]), st.data())
def test_a_window_cleaned_with_its_reach_equals_the_whole_map(cleanup, steps, data):
    # Any window whose halo of the stated reach fits in the map, cleaned
    # alone, equals the same cells of the map cleaned whole.
    reach = cleanup.reach(5, steps)
    shape = st.tuples(st.integers(2 * reach + 1, 2 * reach + 16), st.integers(2 * reach + 1, 40))
    tiles = data.draw(hnp.arrays(np.uint8, shape, elements=st.integers(0, 4)))
    h, w = tiles.shape
    y0 = data.draw(st.integers(reach, h - reach - 1))
    x0 = data.draw(st.integers(reach, w - reach - 1))
    y1 = data.draw(st.integers(y0 + 1, h - reach))
    x1 = data.draw(st.integers(x0 + 1, w - reach))
    alone, whole = cleaned_window(tiles, cleanup, steps, (y0, x0, y1, x1), reach)
    assert np.array_equal(alone, whole)


@pytest.mark.parametrize(
    ("cleanup", "steps", "tiles"),
    [
        # A lone cell is only seen to be lone with its neighbours.
        (Cleanup(thin_water=False), None, np.array([[2, 2, 0], [2, 0, 2], [2, 2, 0]], np.uint8)),
        # A lake of 4 cells and size limit 5: its far side lies 3 away.
        (Cleanup(thin_water=False, isolated=False, lake_size=5), None,
         np.pad(np.zeros((1, 4), np.uint8), 1, constant_values=2)),
        # A peak of band 4 in band 0 lifts cells 3 away.
        (Cleanup(thin_water=False, isolated=False), 8, np.pad([[4]], 4).astype(np.uint8)),
    ],
)  # fmt: skip
def test_the_reach_is_needed(cleanup, steps, tiles):
    # The reach is an upper bound; for these maps a halo one cell short gets
    # some cell wrong (so the windowed test above could fail).
    reach = cleanup.reach(5, steps)
    big = np.pad(tiles, reach + 2, mode="edge")
    h, w = big.shape
    wrong = 0
    for y in range(reach, h - reach):
        for x in range(reach, w - reach):
            alone, whole = cleaned_window(big, cleanup, steps, (y, x, y + 1, x + 1), reach - 1)
            wrong += not np.array_equal(alone, whole)
            exact, same = cleaned_window(big, cleanup, steps, (y, x, y + 1, x + 1), reach)
            assert np.array_equal(exact, same)
    assert wrong > 0


def test_clean_tiles_runs_the_steps_in_order():
    classes = np.array(
        [
            [4, 4, 4, 4, 4, 4],
            [4, 4, 0, 4, 4, 4],
            [4, 4, 4, 4, 0, 4],
            [4, 4, 4, 4, 4, 4],
        ],
        dtype=np.uint8,
    )
    expected = limit_steps(remove_isolated(remove_thin_water(classes, {0, 1}, passes=2)))
    out = clean_tiles(classes, Cleanup(thin_water_passes=2), water={0, 1}, band_count=5, steps=8)
    assert np.array_equal(out, expected) and out.dtype == np.uint8
    lakes = clean_tiles(classes, Cleanup(thin_water=False, isolated=False, lake_size=2),
                        water={0, 1}, band_count=5)  # fmt: skip
    assert np.array_equal(lakes, fill_lakes(classes, {0, 1}, 2, 2))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: remove_thin_water(STAIRCASE, {0}, passes=-1), ValueError, r"passes must be an integer from 0"),
        (lambda: Cleanup(thin_water_passes=65), ValueError, r"thin_water_passes must be an integer from 0 to 64"),
        (lambda: Cleanup(isolated="yes"), TypeError, r"isolated must be True or False"),
        (lambda: Cleanup().reach(0), ValueError, r"band_count must be an integer from 1 to 256"),
        (lambda: Cleanup().reach(8, steps=6), ValueError, r"connectivity must be 4 or 8"),
        (lambda: clean_tiles(STAIRCASE, "all", water={0}, band_count=3), TypeError, r"cleanup must be a Cleanup"),
        (lambda: clean_tiles(STAIRCASE, Cleanup(), water={0}, band_count=3, halo=3), ValueError, r"hold nothing inside a halo of 3; give the window plus the halo"),
        (lambda: limit_steps(STAIRCASE, connectivity=6), ValueError, r"connectivity must be 4 or 8"),
    ],
)  # fmt: skip
def test_bad_cleanup_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
