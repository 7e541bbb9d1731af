"""The world model: continents, levels of detail, climate, biomes, exact windows."""

import math

import numba
import numpy as np
import pytest

from worldgen import threads
from worldgen.noise import _sampling
from worldgen.world import (
    BIOMES,
    Window,
    WorldConfig,
    _continents,
    _elevation,
    _fields,
    _ranges,
    _rivers,
    _scratch,
    elevation,
    spawn,
    world_fields,
)
from worldgen.world._hash import uniform
from worldgen.world._lod import sample_axes
from worldgen.world._ranges import uplift_grid, uplift_points

FIELD_NAMES = (
    "elevation", "continentalness", "uplift", "mountains", "temperature", "rainfall", "biome",
    "water", "water_kind", "surface", "discharge",
)  # fmt: skip
WORLD = WorldConfig(seed=0)


def _labels(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 4-connected components of ``mask``: labels (0 off the mask, 1,
    2, ... on it) and each label's size (``sizes[k - 1]`` for label k)."""
    labels = np.zeros(mask.shape, dtype=np.int64)
    sizes = []
    h, w = mask.shape
    for start in zip(*np.nonzero(mask)):
        if labels[start]:
            continue
        label = len(sizes) + 1
        stack = [start]
        labels[start] = label
        size = 0
        while stack:
            r, c = stack.pop()
            size += 1
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= rr < h and 0 <= cc < w and mask[rr, cc] and not labels[rr, cc]:
                    labels[rr, cc] = label
                    stack.append((rr, cc))
        sizes.append(size)
    return labels, np.array(sizes, dtype=np.int64)


def _components(mask: np.ndarray) -> np.ndarray:
    """Sizes of the 4-connected components of ``mask`` (largest first)."""
    return np.sort(_labels(mask)[1])[::-1]


@pytest.fixture(scope="module")
def overview():
    """The default world seen at 256 cells a sample, 1024 x 1024 samples
    around the origin: 262,144 cells across."""
    step = 256
    return elevation(WORLD, Window(-512 * step, -512 * step, 1024, 1024, step))


def test_continents_and_oceans_exist(overview):
    land = overview >= 0.0
    assert 0.1 <= land.mean() <= 0.7
    sizes = _components(land[::2, ::2])  # 512 x 512: the components at half resolution
    # A landmass of at least 1% of the view ...
    assert sizes[0] >= 0.01 * land[::2, ::2].size
    # ... and a coherent land mask: most land in big pieces, not a lichen
    # of one-sample islands.
    assert sizes[sizes >= 64].sum() >= 0.8 * sizes.sum()
    # Oceans: the largest water body spans most of the water.
    water = _components(~land[::2, ::2])
    assert water[0] >= 0.8 * water.sum()
    # Relief: mountains on land, a sea floor below.
    assert overview.max() > 100.0 and overview.min() < -50.0


@pytest.mark.parametrize("level", [2, 4, 6, 8, 10])
def test_a_level_is_the_mean_of_the_level_below_it(level):
    """A level-L sample matches the mean of the 4 x 4 level-(L-2) samples
    under it within 0.2 of the terrain's standard deviation (RMS over
    several places around the spawn)."""
    x0, y0 = spawn(WORLD)
    step = 2**level
    errors, spreads = [], []
    for dx, dy in ((0, 0), (-40, 17), (33, -25), (10, 50)):
        cx, cy = x0 + dx * step, y0 + dy * step
        coarse = Window(cx - 16 * step, cy - 16 * step, 32, 32, step)
        fine = Window(coarse.x, coarse.y, 128, 128, step // 4)
        a = elevation(WORLD, coarse)
        b = elevation(WORLD, fine).reshape(32, 4, 32, 4).mean(axis=(1, 3))
        errors.append(((a - b) ** 2).mean())
        spreads.append(elevation(WORLD, Window(cx - 64 * step, cy - 64 * step, 128, 128, step)))
    rms = float(np.sqrt(np.mean(errors)))
    spread = float(np.concatenate([s.ravel() for s in spreads]).std())
    assert rms <= 0.2 * spread, (level, rms, spread)


@pytest.mark.parametrize("level", range(17))
def test_a_window_equals_the_crop_of_a_bigger_one(level):
    """At every level the explorer serves (zoom 16 - level), every field of
    a window made alone, rivers and lakes included where products draw
    them, equals the same window cropped from a bigger one."""
    step = 2**level
    x0, y0 = spawn(WORLD)
    big = Window(x0 - 40 * step, y0 - 30 * step, 80, 60, step)
    part = Window(big.x + 13 * step, big.y + 7 * step, 31, 22, step)
    rivers = _rivers.drawn(WORLD, big)
    whole = world_fields(WORLD, big, rivers=rivers)
    alone = world_fields(WORLD, part, rivers=rivers)
    crop = np.s_[7 : 7 + 22, 13 : 13 + 31]
    names = [n for n in FIELD_NAMES if getattr(whole, n) is not None]
    assert ("water_kind" in names) == rivers
    for name in names:
        np.testing.assert_array_equal(getattr(alone, name), getattr(whole, name)[crop], name)


@pytest.mark.parametrize(
    "window, rows",
    [
        (Window(-256, -131328, 258, 258, 256), 2),  # explorer tile (8, 128, 126)
        (Window(-40992, -32800, 258, 258, 32), 37),  # tile (11, 1019, 1020)
        # Windows of a scan of every zoom that differed from their strips:
        (Window(-353280, 247808, 130, 97, 512), 4),
        (Window(269568, 182528, 130, 97, 256), 4),
        (Window(60800, 96640, 130, 97, 128), 2),
        (Window(-35856, -45152, 130, 97, 16), 3),
    ],
)
def test_the_elevation_made_in_thin_strips_is_the_same(window, rows):
    # elevation() evaluates the ridges and hills only on the rectangle of
    # samples that need them, which every strip draws anew: the belts'
    # splines once overshot below 0 at a belt's edge, where the ridges then
    # counted though the rectangle left them out (9 samples differed here).
    whole = elevation(WORLD, window)
    strips = [
        elevation(WORLD, Window(window.x, window.y + r * window.step, window.width,
                                min(rows, window.height - r), window.step))
        for r in range(0, window.height, rows)
    ]  # fmt: skip
    np.testing.assert_array_equal(np.concatenate(strips), whole)
    x, y = sample_axes(window)
    uplift = uplift_grid(WORLD, x, y, window.step)
    assert uplift.min() >= 0.0 and uplift.max() <= 1.0


@pytest.mark.parametrize("step", [1, 16, 256, 4096, 16384])
def test_the_elevation_alone_equals_the_fields_elevation(step):
    # elevation() evaluates the mountain belts only where the land needs
    # them (a coast with sea and land in the window at every level), and
    # gives the same bytes as the fields, which have them everywhere.
    x0, y0 = spawn(WORLD)
    window = Window(x0 - 50 * step, y0 - 40 * step, 100, 80, step)
    fields = world_fields(WORLD, window, climate=False)
    assert (fields.elevation < 0).any() and (fields.elevation > 0).any()
    np.testing.assert_array_equal(elevation(WORLD, window), fields.elevation)
    where = fields.continentalness > 0
    part = uplift_grid(WORLD, *sample_axes(window), step, where=where)
    np.testing.assert_array_equal(part[where], fields.uplift[where])


@pytest.mark.parametrize("step", [1, 1024, 65536])
def test_continentalness_on_a_grid_equals_it_at_each_sample(step):
    # The grid form locates samples from the window's axes and tabulates
    # the regions as a grid (their slow noise too: at the coarsest step
    # every sample is in a region of its own); it equals the samples taken
    # one by one, the warp scaled there or before.
    x0, y0 = spawn(WORLD)
    window = Window(x0 - 20 * step, y0 - 15 * step, 40, 30, step)
    cols, rows = sample_axes(window)
    xs, ys = (a.ravel() for a in np.meshgrid(cols, rows))
    rng = np.random.default_rng(step)
    coast = rng.normal(0.0, 0.5, xs.size)
    warp = tuple(rng.normal(0.0, 1.0, xs.size) for _ in range(2))
    scaled = tuple(_continents.WARP * w for w in warp)
    one_by_one = _continents.continentalness(WORLD, xs, ys, coast, scaled)
    on_grid = _continents.continentalness(
        WORLD, cols, rows, coast, warp, grid=True, warp_scale=_continents.WARP
    )
    np.testing.assert_array_equal(on_grid, one_by_one)
    assert (one_by_one > 0).any() and (one_by_one < 0).any()
    # A grid of regions gives the rows its regions give one by one.
    ci = np.tile(np.arange(-9, 8, dtype=np.int64), 5)
    cj = np.repeat(np.arange(3, 8, dtype=np.int64), 17)
    for scale in (1, 2):
        np.testing.assert_array_equal(
            _continents.region_table(WORLD, ci, cj, scale, -0.7, across=17),
            _continents.region_table(WORLD, ci, cj, scale, -0.7),
        )


@pytest.mark.parametrize("sigma", [0.0, 0.004, 0.05])
def test_combine_equals_the_profile_and_land_factor_sample_by_sample(sigma):
    # The combine's loops (full detail: knots, then the land without
    # branches; in between; tables at coarse levels) give the bytes of the
    # continental profile, the land factor and the rise taken per sample.
    rng = np.random.default_rng(7)
    knots, metres = _elevation.profile(WORLD)
    changes = _elevation._slope_changes(knots, metres)
    c = np.concatenate([rng.uniform(-0.6, 1.8, 3000), rng.normal(0.0, 0.04, 3000), knots])
    uplift = rng.uniform(0.0, 1.0, c.size) * (rng.uniform(0.0, 1.0, c.size) < 0.5)
    ridge, hills, hilly = rng.uniform(0.0, 1.0, c.size), *rng.normal(0.0, 0.5, (2, c.size))
    base, ramp, mountains, hill_amp = float(metres[0]), _elevation._RAMP, 175.0, 29.0
    tab_e = tab_l = np.empty(0)
    if sigma >= _elevation.SMOOTH_FROM:
        tab_e, tab_l = _elevation._smoothed(base, tuple(knots), tuple(changes), sigma)
    out = np.empty(c.size)
    _elevation._combine(
        c, uplift, ridge, hills, hilly, base, knots, changes, sigma, ramp, tab_e, tab_l,
        mountains, hill_amp, out,
    )  # fmt: skip
    expected = np.empty(c.size)
    for k in range(c.size):
        if tab_e.size:
            e, land = _elevation._read(tab_e, c[k]), _elevation._read(tab_l, c[k])
        else:
            e = _elevation._profile(c[k], base, knots, changes, sigma, ramp)
            land = _elevation._land(c[k], sigma, ramp)
        if land > 0.0:
            e += _elevation._rise(
                land, uplift[k], ridge[k], hills[k], hilly[k], mountains, hill_amp
            )  # fmt: skip
        expected[k] = e
    assert out.tobytes() == expected.tobytes()
    assert (out > 0.0).any() and (out < 0.0).any()


@pytest.mark.parametrize("step", [1024, 16384])
def test_continentalness_in_runs_equals_it_sample_by_sample(monkeypatch, step):
    # Where squares hold many samples each (step 1024), the samples are
    # taken in runs that stay in one region, each run in a loop without
    # branches; on a grid (both steps) row by row, their warped positions
    # not kept. The same bytes as the samples taken one by one, border
    # envelope included. A warp beyond its bound leaves the grid's rows for
    # the samples located first: the same bytes again.
    x0, y0 = spawn(WORLD)
    cols, rows = sample_axes(Window(x0 - 150 * step, y0 - 100 * step, 300, 200, step))
    xs, ys = (a.ravel() for a in np.meshgrid(cols, rows))
    rng = np.random.default_rng(5)
    coast = rng.normal(0.0, 0.5, xs.size)
    done = []
    by_rows = _continents._potential_grid
    # (whether in runs, whether the rows were taken)
    monkeypatch.setattr(
        _continents, "_potential_grid", lambda *a: done.append((a[12], by_rows(*a))) or done[-1][1]
    )
    for reach in (1.0, 3.0):
        warp = tuple(rng.uniform(-reach, reach, xs.size) for _ in range(2))
        scaled = tuple(_continents.WARP * w for w in warp)
        on_grid = _continents.continentalness(
            WORLD, cols, rows, coast, warp, grid=True, warp_scale=_continents.WARP
        )
        in_runs = _continents.continentalness(WORLD, xs, ys, coast, scaled)
        with monkeypatch.context() as one:
            one.setattr(_continents, "LONG_RUN", 10**6)
            one_by_one = _continents.continentalness(WORLD, xs, ys, coast, scaled)
        assert on_grid.tobytes() == one_by_one.tobytes() == in_runs.tobytes()
        assert (one_by_one < -1.0).any() and (one_by_one > 0.0).any()
    assert done == [(step == 1024, True), (step == 1024, False)]


def test_regions_made_per_sample_equal_their_tables(monkeypatch):
    # At the coarsest levels (a region per sample or so) the samples make
    # their regions' landmasses instead of reading tables; the same
    # samples among many more in one region (so that tables are made)
    # give the same continentalness.
    step = WORLD.continent_size
    x0, y0 = spawn(WORLD)
    cols, rows = sample_axes(Window(x0 - 20 * step, y0 - 15 * step, 40, 30, step))
    xs, ys = (a.ravel() for a in np.meshgrid(cols, rows))
    rng = np.random.default_rng(2)
    coast = rng.normal(0.0, 0.5, xs.size)
    warp = tuple(rng.normal(0.0, 0.1, xs.size) for _ in range(2))
    tables = []
    table = _continents.region_table
    monkeypatch.setattr(
        _continents, "region_table", lambda *a, **k: tables.append(1) or table(*a, **k)
    )
    alone = _continents.continentalness(WORLD, xs, ys, coast, warp)
    assert not tables
    many = 20 * xs.size
    px, py, pc, wx, wy = (np.concatenate([v, np.full(many, v[0])]) for v in (xs, ys, coast, *warp))
    padded = _continents.continentalness(WORLD, px, py, pc, (wx, wy))
    assert len(tables) == 2
    np.testing.assert_array_equal(padded[: xs.size], alone)


def test_belts_hashing_their_sites_equal_belts_from_a_table(monkeypatch):
    # Points far apart hash the sites around them (the nearest nine, and
    # outer ones only when they may be nearer); the same points among many
    # more near them read a table of sites: the same uplift.
    tables = []
    sites = _ranges._sites
    monkeypatch.setattr(_ranges, "_sites", lambda *a: tables.append(1) or sites(*a))
    rng = np.random.default_rng(4)
    xs, ys = rng.uniform(-3e6, 3e6, (2, 3000))
    alone = uplift_points(WORLD, xs, ys, 256.0)
    assert not tables
    many = rng.uniform(-3e6, 3e6, (2, 30 * xs.size))
    with_table = uplift_points(
        WORLD, np.concatenate([xs, many[0]]), np.concatenate([ys, many[1]]), 256.0
    )
    assert tables
    np.testing.assert_array_equal(with_table[: xs.size], alone)
    assert (alone > 0).mean() > 0.05


def _hashed_site(seed):
    def site(i, j):
        sx = i + 0.5 + _ranges.PLATE_JITTER * (2.0 * uniform(seed, i, j, 0) - 1.0)
        sy = j + 0.5 + _ranges.PLATE_JITTER * (2.0 * uniform(seed, i, j, 1) - 1.0)
        return sx, sy

    return site


def _slow_uplift(x, y, site, pairs, temperature, share, along):
    # The belts' uplift at a point (in plates, warped) as the module
    # docstring defines it, written plainly: all 25 sites around the
    # point (site(i, j) gives square (i, j)'s), the three nearest by
    # distance and then search order. Also says whether one of the three
    # lies outside the nine squares around the point's own.
    ci, cj = math.floor(x), math.floor(y)
    found = []
    for j in range(cj - 2, cj + 3):
        for i in range(ci - 2, ci + 3):
            sx, sy = site(i, j)
            found.append(((x - sx) * (x - sx) + (y - sy) * (y - sy), len(found), i, j))
    (d0, _, i0, j0), (d1, _, i1, j1), (d2, _, i2, j2) = sorted(found)[:3]
    w1 = math.exp(-(d1 - d0) / temperature)
    w2 = math.exp(-(d2 - d0) / temperature)
    total = 1.0 + w1 + w2
    weights = (1.0 / total, w1 / total, w2 / total)
    near = ((i0, j0), (i1, j1), (i2, j2))
    u = 0.0
    for a in range(3):
        for b in range(a + 1, 3):
            if weights[a] * weights[b] < 1e-9:
                continue
            (pi, pj), (qi, qj) = sorted((near[a], near[b]))
            beta = uniform(pairs, pi, pj, (qi - pi + 8) * 32 + (qj - pj + 8))
            strength = min(max((beta - (1.0 - share)) / 0.2, 0.0), 1.0)
            u += 4.0 * strength * weights[a] * weights[b]
    outer = any(max(abs(i - ci), abs(j - cj)) == 2 for i, j in near)
    return min(u, 1.0) * min(max(0.6 + 0.9 * along, 0.0), 1.0), outer


_BELTS = {"pairs": 91, "temperature": 0.5, "share": 0.45}


def _belts(x, y, along, sites=None, seed=77):
    # The kernel at positions in plates (no warp), from a table of sites
    # (its first square (-2, -2)) or hashing them.
    out = np.zeros(x.size)
    zero = np.zeros(x.size)
    table = np.empty((0, 0, 2)) if sites is None else sites
    _ranges._uplift(
        x, y, zero, zero, along, np.empty(0, np.bool_), table, -2, -2, np.uint64(seed),
        np.uint64(_BELTS["pairs"]), 1.0, _BELTS["temperature"], _BELTS["share"], out,
    )  # fmt: skip
    return out


def test_belts_equal_a_plain_search_of_all_twenty_five_sites():
    # The kernel measures the nine squares around a point and the outer
    # sixteen only when they may hold one of the three nearest; a plain
    # search of all 25 gives the same uplift (hashed sites).
    rng = np.random.default_rng(11)
    cells = rng.integers(-1000, 1000, (2, 400)).astype(np.float64)
    x, y = cells + rng.uniform(0.0, 1.0, (2, 400))
    along = rng.uniform(-1.0, 1.0, x.size)
    slow = [
        _slow_uplift(a, b, _hashed_site(77), along=c, **_BELTS)[0]
        for a, b, c in zip(x, y, along, strict=True)
    ]
    np.testing.assert_array_equal(_belts(x, y, along), slow)
    assert (np.array(slow) > 0).mean() > 0.05


def test_belts_find_an_outer_site_among_the_three_nearest():
    # Hashed sites seldom put an outer square's site among a point's three
    # nearest; a table can. For points near the edges of square (0, 0),
    # each square's site sits at the corner of its jitter box farthest
    # from the point (the nine) or nearest to it (the outer sixteen).
    lo, hi = _ranges.PLATE_JITTER_EDGE, 1.0 - _ranges.PLATE_JITTER_EDGE
    used = 0
    for x, y in [(0.5, 0.001), (0.999, 0.4), (0.3, 0.998), (0.002, 0.62), (0.6, 0.5)]:
        sites = np.empty((5, 5, 2))
        for j in range(-2, 3):
            for i in range(-2, 3):
                inner = max(abs(i), abs(j)) <= 1
                corners = [(i + a, j + b) for a in (lo, hi) for b in (lo, hi)]
                far = max if inner else min
                sites[j + 2, i + 2] = far(corners, key=lambda p: math.hypot(p[0] - x, p[1] - y))
        along = np.array([0.3])
        fast = _belts(np.array([x]), np.array([y]), along, sites)
        slow, outer = _slow_uplift(
            x, y, lambda i, j, t=sites: tuple(t[j + 2, i + 2]), along=0.3, **_BELTS
        )
        assert fast[0] == slow
        used += outer
    assert used >= 3  # the outer squares' sites were among the three


@pytest.mark.parametrize("step", [1, 16])
def test_a_big_window_made_in_strips_is_the_same_window(monkeypatch, step):
    # Big windows are made in strips of rows to bound their memory: the
    # strips must give the bytes of the window made at once, rivers and
    # given heights included.
    x0, y0 = spawn(WORLD)
    window = Window(x0 - 150 * step, y0 - 230 * step, 300, 530, step)
    made = {}
    heights = {}
    for samples in (1 << 40, 1 << 15):
        monkeypatch.setattr(_fields, "STRIP_SAMPLES", samples)
        monkeypatch.setattr(_fields, "STRIP_ROWS", 100)
        # Strips reuse their temporaries' memory: every array, however
        # small, so that these strips do.
        monkeypatch.setattr(_scratch, "SMALLEST", 1 if samples < 1 << 40 else 1 << 16)
        fields = world_fields(WORLD, window, rivers=True)
        given = world_fields(WORLD, window, elevation=fields.elevation - 5.0)
        made[samples] = fields, given
        heights[samples] = elevation(WORLD, window)
    (whole, whole_given), (strips, strips_given) = made.values()
    np.testing.assert_array_equal(*heights.values())
    land = whole.continentalness > 0  # the belts' metres only matter there
    for name in FIELD_NAMES:
        a, b = getattr(whole, name), getattr(strips, name)
        assert a.dtype == b.dtype, name
        if name == "mountains":
            a, b = a[land], b[land]
        np.testing.assert_array_equal(a, b, name)
    for name in ("temperature", "rainfall", "biome", "water"):
        np.testing.assert_array_equal(getattr(whole_given, name), getattr(strips_given, name))
    assert strips_given.continentalness is None


@pytest.mark.parametrize("strips", [False, True])
def test_biomes_alone_are_those_of_the_fields(monkeypatch, strips):
    # The biomes of given heights, in strips without the climate beside
    # them, as world_fields makes them with it.
    x0, y0 = spawn(WORLD)
    window = Window(x0 - 150, y0 - 230, 300, 530)
    elevation = world_fields(WORLD, window, climate=False).elevation - 35.0
    fields = world_fields(WORLD, window, elevation=elevation)
    if strips:
        monkeypatch.setattr(_fields, "STRIP_SAMPLES", 1 << 15)
        monkeypatch.setattr(_fields, "STRIP_ROWS", 100)
    biome = _fields.biomes(WORLD, window, elevation)
    assert biome.dtype == fields.biome.dtype == np.uint8
    np.testing.assert_array_equal(biome, fields.biome)
    assert len(np.unique(biome)) > 2  # biomes there to compare
    # The metres asked for a strip of rows at a time.
    asked = []
    by_rows = _fields.biomes(WORLD, window, lambda rows: asked.append(rows) or elevation[rows])
    np.testing.assert_array_equal(by_rows, fields.biome)
    assert asked == [rows for rows, _ in _fields._strips(window)]
    assert len(asked) == (5 if strips else 1)
    with pytest.raises(ValueError, match="elevation must have the window's shape"):
        _fields.biomes(WORLD, window, elevation[1:])


def test_water_kinds_are_those_of_the_fields(monkeypatch):
    # The rivers' kinds and discharge alone, in strips, as world_fields
    # makes them with every other field.
    x0, y0 = spawn(WORLD)
    window = Window(x0 - 150, y0 - 230, 300, 530)
    fields = world_fields(WORLD, window, climate=False, rivers=True)
    monkeypatch.setattr(_fields, "STRIP_SAMPLES", 1 << 15)
    monkeypatch.setattr(_fields, "STRIP_ROWS", 100)
    kind, discharge = _fields.water_kinds(WORLD, window)
    assert kind.dtype == fields.water_kind.dtype and discharge.dtype == fields.discharge.dtype
    np.testing.assert_array_equal(kind, fields.water_kind)
    np.testing.assert_array_equal(discharge, fields.discharge)
    assert (kind == 1).any() and (discharge > 0).any()  # rivers there to compare


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has one thread here")
@pytest.mark.parametrize("step", [4, 256])
def test_one_and_two_threads_give_the_same_bytes(step):
    # 256 x 160 samples: more than one chunk of every noise grid
    # (_sampling._CHUNK_SAMPLES), so the second thread takes part.
    assert 256 * 160 > _sampling._CHUNK_SAMPLES
    x0, y0 = spawn(WORLD)
    window = Window(x0 - 128 * step, y0 - 80 * step, 256, 160, step)
    made = []
    for n in (1, 2):
        with threads(n):
            assert numba.get_num_threads() == n
            made.append(world_fields(WORLD, window, rivers=True))
    one, two = made
    assert one.water_kind.any()
    for name in FIELD_NAMES:
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name), name)


@pytest.mark.parametrize("widths", [2, 4])
def test_coarse_belts_are_widened_and_lowered_keeping_their_mass(widths):
    """At sample spacing s the belts are widened to w' = sqrt(w^2 + s^2 / 6)
    and lowered by w / w' (see _ranges): no coarse sample rises above
    w / w', and the mean uplift over many plates stays near full detail's."""
    config = WorldConfig(seed=5)
    w, plate = config.belt_width, config.plate_size
    rng = np.random.default_rng(1)
    xs, ys = rng.uniform(-3 * plate, 3 * plate, (2, 40_000))
    fine = uplift_points(config, xs, ys, 1.0)
    assert fine.max() > 0.95  # full detail reaches the belts' crests
    s = widths * w
    coarse = uplift_points(config, xs, ys, s)
    assert coarse.max() <= w / np.sqrt(w * w + s * s / 6.0)
    assert abs(coarse.mean() - fine.mean()) < 0.15 * fine.mean()


def test_seeds_differ_and_repeat():
    window = Window(0, 0, 64, 64, 2048)
    a = elevation(WorldConfig(seed=1), window)
    assert (a == elevation(WorldConfig(seed=1), window)).all()
    assert not (a == elevation(WorldConfig(seed=2), window)).all()


def test_rain_shadows_behind_ranges():
    """Over many ranges, the lee side (downwind, east of a westerly's range)
    gets at least 30% less rain than the windward side."""
    step = 128
    x0, y0 = spawn(WORLD)
    window = Window(x0 - 512 * step, y0 - 512 * step, 1024, 1024, step)
    fields = world_fields(WORLD, window)
    from worldgen.world._lod import sample_axes

    cols, rows = sample_axes(window)
    uplift = uplift_grid(WORLD, cols, rows, step)
    land = fields.elevation > 0.0
    reach = int(2 * WORLD.belt_width / step)
    core = (uplift > 0.5) & land
    ridge = core[:, reach:-reach]
    windward = land[:, : -2 * reach] & ridge
    lee = land[:, 2 * reach :] & ridge
    both = windward & lee
    rain_windward = fields.rainfall[:, : -2 * reach]
    rain_lee = fields.rainfall[:, 2 * reach :]
    assert rain_lee[both].mean() <= 0.7 * rain_windward[both].mean()
    # Many ranges: the crests with land on both sides fall into separate
    # ranges (8 of at least 100 samples here), and the lee of most of
    # them, one by one, is at least 30% drier.
    labels, sizes = _labels(both)
    ranges = [labels == k for k in np.flatnonzero(sizes >= 100) + 1]
    assert len(ranges) >= 6, sizes
    shadowed = [rain_lee[r].mean() <= 0.7 * rain_windward[r].mean() for r in ranges]
    assert sum(shadowed) >= 0.75 * len(ranges), shadowed


def _straight_runs(biome: np.ndarray, length: int = 64) -> int:
    """How many biome-border cells start a straight run of ``length`` border
    cells (at any whole number of degrees): a straight border."""
    border = np.zeros(biome.shape, dtype=bool)
    border[:-1, :] |= biome[:-1, :] != biome[1:, :]
    border[1:, :] |= biome[:-1, :] != biome[1:, :]
    border[:, :-1] |= biome[:, :-1] != biome[:, 1:]
    border[:, 1:] |= biome[:, :-1] != biome[:, 1:]
    h, w = biome.shape
    found = 0
    for angle in np.radians(np.arange(0, 180, 1)):
        steps = np.arange(length)
        dy = np.rint(steps * np.sin(angle)).astype(int)
        dx = np.rint(steps * np.cos(angle)).astype(int)
        y0, y1 = -min(dy.min(), 0), h - max(dy.max(), 0)
        x0, x1 = -min(dx.min(), 0), w - max(dx.max(), 0)
        run = border[y0:y1, x0:x1].copy()
        for oy, ox in zip(dy[1:], dx[1:]):
            run &= border[y0 + oy : y1 + oy, x0 + ox : x1 + ox]
        found += int(run.sum())
    return found


@pytest.fixture(scope="module")
def biome_places():
    """Six places where several biomes meet: land samples of an overview
    around the spawn where the biome at 512 cells a sample changes, from
    the coldest to the warmest; of those near each sixth of the way, the
    first whose 512 cells hold two biomes or more at 8 cells a sample (the
    border at full detail need not lie within one overview sample of it)."""
    step = 512
    x0, y0 = spawn(WORLD)
    window = Window(x0 - 256 * step, y0 - 256 * step, 512, 512, step)
    fields = world_fields(WORLD, window)
    b = fields.biome
    mixed = np.zeros(b.shape, dtype=bool)
    mixed[1:-1, 1:-1] = (b[1:-1, 1:-1] != b[:-2, 1:-1]) | (b[1:-1, 1:-1] != b[1:-1, :-2])
    mixed &= ~fields.water
    rows, cols = np.nonzero(mixed)
    order = np.argsort(fields.temperature[rows, cols], kind="stable")
    places = []
    for start in np.linspace(0, order.size - 1, 6).astype(int):
        for k in order[start : start + 20] if start < order.size - 20 else order[start::-1]:
            x, y = window.x + int(cols[k]) * step, window.y + int(rows[k]) * step
            look = world_fields(WORLD, Window(x - 256, y - 256, 64, 64, 8))
            if len(np.unique(look.biome)) >= 2:
                places.append((x, y))
                break
    assert len(places) == 6
    return places


@pytest.mark.parametrize("index", range(6))
def test_no_biome_border_runs_straight_for_64_cells(biome_places, index):
    """At full detail, in six places where biomes meet (cold to warm), no
    border between biomes is a straight line of 64 cells."""
    x, y = biome_places[index]
    fields = world_fields(WORLD, Window(x - 256, y - 256, 512, 512))
    assert len(np.unique(fields.biome)) >= 2
    assert _straight_runs(fields.biome) == 0


def test_straight_border_detector_sees_a_straight_border():
    biome = np.zeros((200, 200), dtype=np.uint8)
    rows, cols = np.indices(biome.shape)
    biome[rows * 3 > cols * 2 + 10] = 1  # a straight border at 33.7 degrees
    assert _straight_runs(biome) > 0


def test_the_climate_has_its_documented_shape():
    x0, y0 = spawn(WORLD)
    fields = world_fields(WORLD, Window(x0 - 256 * 64, y0 - 256 * 64, 512, 512, 64))
    land = ~fields.water
    assert land.any() and fields.water.any()
    assert np.isfinite(fields.temperature).all() and np.isfinite(fields.rainfall).all()
    assert fields.rainfall.min() >= 120.0
    # Colder with height: on land, the highest tenth is colder than the lowest.
    e, t = fields.elevation[land], fields.temperature[land]
    assert t[e > np.quantile(e, 0.9)].mean() < t[e < np.quantile(e, 0.1)].mean()
    assert set(np.unique(fields.biome)) <= set(range(len(BIOMES)))


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="continent_size"):
        WorldConfig(continent_size=5000)
    with pytest.raises(ValueError, match="land_fraction"):
        WorldConfig(land_fraction=0.9)
    with pytest.raises(ValueError, match="wind"):
        WorldConfig(wind="up")
    with pytest.raises(TypeError, match="window"):
        world_fields(WORLD, (0, 0, 4, 4))
    with pytest.raises(ValueError, match="elevation"):
        world_fields(WORLD, Window(0, 0, 4, 4), elevation=np.zeros((3, 3)))


@pytest.mark.parametrize("key", sorted(_continents._KNOWN_BIASES))
def test_a_known_mean_bias_is_the_one_the_search_finds(key):
    # The presets' biases are written down to spare every process the
    # search; they must be what it finds.
    assert _continents._KNOWN_BIASES[key] == _continents._search_bias(*key)
    assert _continents.mean_bias(*key) == _continents._KNOWN_BIASES[key]


def test_the_presets_biases_are_known():
    from worldgen.config import PRESETS, preset, preset_is_world

    for name in filter(preset_is_world, PRESETS):
        world = WorldConfig(**preset(name)["world"])
        assert (world.land_fraction, world.roughness) in _continents._KNOWN_BIASES, name


def test_temperature_of_a_grid_is_the_expression_of_arrays():
    """The one-pass temperature of a window's grid equals the numpy
    expression it stands for, bit for bit (signed zeros and NaN too)."""
    from worldgen.world import _climate

    rng = np.random.default_rng(7)
    elevation = rng.normal(0.0, 500.0, (23, 31))
    elevation[0, :4] = [0.0, -0.0, np.nan, 1e-300]
    noise = rng.normal(0.0, 0.5, elevation.shape)
    rows = (np.arange(23) * 4096.0 - 40000.0)[:, None]
    config = WorldConfig(seed=1, temperature=0.0)
    start = config.temperature + _climate.LATITUDE_SWING * np.sin(
        2.0 * np.pi * rows / config.latitude_period
    )
    expected = (
        start - config.lapse_rate * np.maximum(elevation, 0.0) + _climate.TEMPERATURE_NOISE * noise
    )
    made = _climate.temperature(config, elevation, rows, noise)
    assert made.tobytes() == expected.tobytes()
    # Other shapes take the expression itself.
    point = _climate.temperature(config, elevation[1], rows[1], noise[1])
    assert point.tobytes() == expected[1].tobytes()


def test_scratch_arrays_are_reused_only_when_nothing_refers_to_them():
    pool = _scratch.Pool()
    size = _scratch.SMALLEST
    with _scratch.reusing(pool):
        a = _scratch.empty((2, size))
        b = _scratch.full(size, 3.0)
        assert not np.shares_memory(a, b) and (b == 3.0).all()
        first = a.ctypes.data
        kept = a.ravel()[5:]  # a view keeps its buffer from being handed out
        del a
        c = _scratch.empty(size)
        assert not np.shares_memory(c, kept) and not np.shares_memory(c, b)
        del kept
        d = _scratch.empty((size, 2))  # now the first buffer is free
        assert d.ctypes.data == first
        assert _scratch.empty(size - 1).base is None  # a small one: made as usual
    assert _scratch.empty(2 * size).base is None  # outside the block: numpy's
