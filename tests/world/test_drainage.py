"""Drainage of whole landmasses: landscape evolution and river networks
measured against real ones (Hack's law, Horton's bifurcation ratio)."""

from __future__ import annotations

import itertools
import math

import numba
import numpy as np
import pytest

from worldgen.world import Window, WorldConfig, _drainage
from worldgen.world._evolution import evolve

# Landmasses for the network statistics: the regions around these places
# (cells) of two worlds, near the origin and far from it.
PLACES = ((0, 0), (300_000, -200_000), (-2_000_000, -1_500_000), (5_000_000, 5_000_000))
SEEDS = (0, 7)


@numba.njit(cache=False)
def _longest(receiver, land, ascending, width, out):
    # Length (in samples) of the longest flow path from the divide to each
    # sample: sources first, each adds its step to its receiver's best.
    for m in range(receiver.size):
        p = ascending[m]
        r = receiver[p]
        if r < 0 or not land[p]:
            continue
        dy = abs(r // width - p // width)
        dx = abs(r % width - p % width)
        d = out[p] + (math.sqrt(2.0) if dx and dy else 1.0)
        if d > out[r]:
            out[r] = d


@numba.njit(cache=False)
def _basin_orders(receiver, river, ascending, label, out):
    # Strahler orders of the river samples (sources first), then for each
    # basin k (its mouth: the river sample draining to no river) its
    # samples' label (k), its order in out[k, 0] and how many streams of
    # order w start in it in out[k, w]. Returns the number of basins.
    n = receiver.size
    order = np.zeros(n, np.int64)
    top = np.zeros(n, np.int64)  # the highest order among the donors ...
    many = np.zeros(n, np.int64)  # ... and how many donors have it
    start = np.zeros(n, np.int64)
    for m in range(n):
        p = ascending[m]
        if not river[p]:
            continue
        if top[p] == 0:
            order[p] = 1
        elif many[p] >= 2:
            order[p] = top[p] + 1
        else:
            order[p] = top[p]
        if order[p] != top[p]:
            start[p] = order[p]
        r = receiver[p]
        if r < 0 or not river[r]:
            continue
        if order[p] > top[r]:
            top[r] = order[p]
            many[r] = 1
        elif order[p] == top[r]:
            many[r] += 1
    basins = 0
    for m in range(n - 1, -1, -1):
        p = ascending[m]
        if not river[p]:
            continue
        r = receiver[p]
        if r < 0 or not river[r]:
            label[p] = basins
            out[basins, 0] = order[p]
            basins += 1
        else:
            label[p] = label[r]
        if start[p] > 0:
            out[label[p], start[p]] += 1
    return basins


def network_statistics(solved: list[_drainage.Drainage]) -> dict[str, float]:
    """Hack's exponent and Horton's bifurcation ratio of solved regions.

    - ``hack``: the slope of log L against log A over every river sample on
      land, L the longest flow path from the divide (D8 steps, a diagonal
      counting sqrt 2) and A the catchment, fitted to the medians of bins
      0.25 wide in log10 A, so that each range of areas weighs the same and
      the many small streams do not swamp the large ones. A bin counts when
      its samples come from at least 5 basins: the samples along one river
      are not independent, and the last bins of a few landmasses hold the
      lower reaches of 1 to 3 rivers.
    - ``hack_samples``: the same with bins of at least 5 samples, whatever
      their basins.
    - ``horton``: the median over basins of Strahler order 4 or more of
      each basin's bifurcation ratio, ``exp(-slope)`` of log N_w against
      the order w (N_w streams of order w in the basin).
    - ``horton_pooled``: the same slope over all basins pooled, orders with
      at least 10 streams (biased upward: high orders are scarce where many
      basins end at the coast before reaching them).
    """
    areas, lengths, labels, rows = [], [], [], []
    for d in solved:
        land = d.elevation.ravel() >= 0.0
        receiver = d.receiver.ravel()
        area = d.area.ravel()
        ascending = np.argsort(area, kind="stable")
        longest = np.zeros(area.size)
        _longest(receiver, land, ascending, d.window.width, longest)
        river = d.river.ravel() & land
        areas.append(area[river])
        lengths.append((longest[river] + 0.5) * d.window.step)
        out = np.zeros((int(river.sum()) + 1, 32), np.int64)
        label = np.full(area.size, -1, np.int64)
        count = _basin_orders(receiver, river, ascending, label, out)
        labels.append(label[river] + sum(len(r) for r in rows))
        rows.append(out[:count])
    log_a = np.log10(np.concatenate(areas))
    log_l = np.log10(np.concatenate(lengths))
    label = np.concatenate(labels)
    edges = np.arange(log_a.min(), log_a.max() + 0.25, 0.25)
    bins = [(log_a >= a) & (log_a < b) for a, b in itertools.pairwise(edges)]

    def slope(keep) -> tuple[float, float]:
        xs = [np.median(log_a[b]) for b in bins if keep(b)]
        ys = [np.median(log_l[b]) for b in bins if keep(b)]
        return float(np.polyfit(xs, ys, 1)[0]), float(xs[-1] - xs[0])

    hack, span = slope(lambda b: np.unique(label[b]).size >= 5)
    basins = np.concatenate(rows)
    ratios = []
    for row in basins[basins[:, 0] >= 4]:
        w = np.arange(1, row[0] + 1)
        ratios.append(math.exp(-np.polyfit(w, np.log(row[1 : row[0] + 1]), 1)[0]))
    pooled = basins[:, 1:].sum(axis=0)
    orders = np.flatnonzero(pooled >= 10)
    return {
        "hack": hack,
        "hack_samples": slope(lambda b: b.sum() >= 5)[0],
        "horton": float(np.median(ratios)) if ratios else math.nan,
        "horton_pooled": (
            math.exp(-np.polyfit(orders + 1, np.log(pooled[orders]), 1)[0])
            if orders.size >= 2
            else math.nan
        ),
        "basins": len(ratios),
        "span": span,
    }


def landmasses() -> list[_drainage.Drainage]:
    out = []
    for seed in SEEDS:
        config = WorldConfig(seed=seed)
        regions = {}
        for x, y in PLACES:
            regions.update(dict.fromkeys(_drainage.regions_near(config, x, y, x, y)))
        out += [_drainage.solve(config, region) for region in regions]
    return out


@pytest.fixture(scope="module")
def statistics():
    return network_statistics(landmasses())


def test_hacks_law_like_real_rivers(statistics):
    # Real networks: h about 0.57 (Hack 1957), 0.5-0.65 over many basins
    # (Rigon et al. 1996). The areas span over three decades.
    assert statistics["span"] >= 3.0
    assert 0.5 <= statistics["hack"] <= 0.65, statistics


def test_hortons_bifurcation_ratio_like_real_rivers(statistics):
    # Real networks: 3 to 5 (Horton 1945, Strahler 1957).
    assert statistics["basins"] >= 50
    assert 3.0 <= statistics["horton"] <= 5.0, statistics


def test_measures_tell_combs_from_trees():
    # Six combs (a trunk with one-sample teeth on each side) have L ~ A
    # (h = 1) and no branching (order 1): the measures are not fixed at the
    # values the tests above ask for.
    n, combs = 64, 6
    receiver = np.full((3 * combs, n), -1, np.int64)
    area = np.zeros((3 * combs, n))
    for k in range(combs):
        trunk = 3 * k + 1
        for x in range(1, n):
            receiver[trunk, x] = trunk * n + x - 1  # the trunk flows west
            receiver[trunk - 1, x] = receiver[trunk + 1, x] = trunk * n + x
        area[trunk - 1, 1:] = area[trunk + 1, 1:] = 1.0
        area[trunk, n - 1] = 3.0
        for x in range(n - 2, 0, -1):
            area[trunk, x] = area[trunk, x + 1] + 3.0
        area[trunk, 0] = area[trunk, 1] + 1.0
    shape = area.shape
    solved = _drainage.Drainage(
        _drainage.Region(1, 0, 0), Window(0, 0, n, shape[0]), np.ones(shape), receiver, area,
        area, area >= 3.0, np.full(shape, -np.inf), None,
    )  # fmt: skip
    stats = network_statistics([solved])
    assert stats["hack"] > 0.9 and stats["hack_samples"] > 0.9
    assert stats["basins"] == 0 and math.isnan(stats["horton"])


# ----------------------------------------------------------------- evolution


def _evolve_naive(heights, fixed, uplift, k, m, steps, epsilon):
    """One node at a time, in plain Python: receivers by steepest drop,
    areas by walking every node down to its outlet, updates in order of
    height (a receiver is always lower, so it is done first)."""
    h = heights.astype(float).copy()
    fixed = fixed.copy()
    fixed[0, :] = fixed[-1, :] = fixed[:, 0] = fixed[:, -1] = True
    rows, cols = h.shape
    offsets = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]
    for _ in range(steps):
        receiver, length = {}, {}
        for y in range(rows):
            for x in range(cols):
                if fixed[y, x]:
                    continue
                best = 0.0
                for k8, (dy, dx) in enumerate(offsets):
                    d = 1.0 if k8 % 2 == 0 else math.sqrt(2.0)
                    drop = (h[y, x] - h[y + dy, x + dx]) / d
                    if drop > best:
                        best = drop
                        receiver[y, x] = (y + dy, x + dx)
                        length[y, x] = d
        area = {p: 1.0 for p in receiver}
        for p in receiver:
            q = receiver[p]
            while q in receiver:
                area[q] += 1.0
                q = receiver[q]
        for p in sorted(receiver, key=lambda p: h[p]):
            r = receiver[p]
            f = k * area[p] ** m / length[p]
            h[p] = max((h[p] + uplift[p] + f * h[r]) / (1.0 + f), h[r] + epsilon)
    return h


def _surface(seed: int, shape=(24, 31)) -> tuple[np.ndarray, np.ndarray]:
    from worldgen.terrain import fill_depressions

    rng = np.random.default_rng(seed)
    y, x = np.mgrid[: shape[0], : shape[1]]
    heights = 30.0 * np.hypot(y - shape[0] / 2, x - shape[1] / 3) / shape[1]
    heights = 40.0 - heights + rng.normal(0.0, 3.0, shape)
    fixed = heights < 12.0
    return fill_depressions(heights, epsilon=1e-3, outlets=fixed), fixed


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_evolution_equals_a_naive_version(seed):
    filled, fixed = _surface(seed)
    uplift = np.maximum(filled, 0.0) * 0.05
    made = evolve(filled, fixed, uplift=uplift, erodibility=0.3, area_exponent=0.5, steps=4)
    naive = _evolve_naive(filled, fixed, uplift, 0.3, 0.5, 4, 1e-3)
    assert made.tobytes() == naive.tobytes()


def test_evolution_keeps_outlets_and_leaves_no_pits():
    filled, fixed = _surface(4)
    made = evolve(filled, fixed, uplift=np.full(filled.shape, 2.0), steps=6)
    assert not np.array_equal(made, filled)
    border = np.zeros_like(fixed)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    still = fixed | border
    assert (made[still] == filled[still]).all()
    # Every other node has a strictly lower neighbour.
    padded = np.pad(made, 1, constant_values=np.inf)
    lowest = np.min(
        [padded[1 + dy : padded.shape[0] - 1 + dy, 1 + dx : padded.shape[1] - 1 + dx]
         for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx],
        axis=0,
    )  # fmt: skip
    assert (lowest[~still] < made[~still]).all()
    # Without uplift, erosion only lowers.
    worn = evolve(filled, fixed, uplift=np.zeros(filled.shape), steps=6)
    assert (worn <= filled).all() and (worn < filled).any()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"uplift": np.zeros((2, 2))}, "uplift must have the shape"),
        ({"erodibility": -1.0}, "erodibility"),
        ({"area_exponent": "half"}, "area_exponent"),
        ({"steps": 1.5}, "steps"),
        ({"epsilon": 0.0}, "epsilon"),
    ],
)
def test_evolution_errors_name_the_parameter(change, message):
    filled, fixed = _surface(5, (6, 7))
    kwargs = {"uplift": np.zeros(filled.shape), **change}
    with pytest.raises((TypeError, ValueError), match=message):
        evolve(filled, fixed, **kwargs)


def test_evolution_rejects_heights_that_are_not_a_finite_map():
    with pytest.raises(ValueError, match="heights"):
        evolve(np.full((3, 3), np.nan), np.zeros((3, 3), bool), uplift=np.zeros((3, 3)))


# ------------------------------------------------------------ sample order


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_descending_order_is_numpys_stable_argsort(seed):
    rng = np.random.default_rng(seed)
    cases = [
        rng.normal(0.0, 300.0, 5000),
        rng.integers(-4, 4, 3000).astype(float),  # many ties
        np.array([0.0, -0.0, 1.0, -1.0, -0.0, 0.0, 5e-324, -5e-324, np.inf, -np.inf, 1.0]),
        np.array([2.5]),
        np.empty(0),
        rng.normal(0.0, 1.0, (37, 41)),
    ]
    heights = np.round(rng.normal(100.0, 50.0, (64, 80)), 1)
    cases.append(evolve(heights, heights < 60.0, uplift=np.zeros(heights.shape), steps=2))
    for values in cases:
        expected = np.argsort(-values, axis=None, kind="stable")
        assert np.array_equal(_drainage.descending_order(values), expected)


def _members_by_numpy(config, window, region):
    """Which samples of ``window`` lie in ``region``: the whole-array
    formula the compiled pass stands for."""
    from worldgen.world import _continents
    from worldgen.world._lod import sample_axes

    cols, rows = sample_axes(window)
    wx, wy = (
        _continents.WARP * n.grid(config.seed, cols, rows, float(window.step)).reshape(window.shape)
        for n in _continents.warp_noises(config)
    )
    size = float(config.continent_size)
    i = np.floor(cols[None, :] / size + wx).astype(np.int64)
    j = np.floor(rows[:, None] / size + wy).astype(np.int64)
    merged = _drainage._merged(config, (i >> 1).ravel(), (j >> 1).ravel()).reshape(i.shape)
    if region.scale == 2:
        return merged & ((i >> 1) == region.i) & ((j >> 1) == region.j)
    return ~merged & (i == region.i) & (j == region.j)


@pytest.mark.parametrize("seed", [0, 7])
def test_a_regions_samples_are_those_of_the_whole_array_formula(seed):
    # Windows over the borders of squares and 2 x 2 blocks, and every
    # region their samples fall in (merged blocks and lone squares): each
    # sample in exactly one.
    config = WorldConfig(seed=seed, continent_size=2048)
    for window in (Window(-3000, -2500, 97, 61, 64), Window(1000, -100, 80, 90, 32)):
        regions = [
            _drainage.Region(scale, i, j)
            for scale in (1, 2)
            for i in (-2, -1, 0, 1)
            for j in (-2, -1, 0, 1)
        ]
        seen = np.zeros(window.shape, dtype=np.int64)
        for region in regions:
            made = _drainage._members(config, window, region)
            assert np.array_equal(made, _members_by_numpy(config, window, region))
            seen += made
        assert seen.max() == 1 and seen.any()
