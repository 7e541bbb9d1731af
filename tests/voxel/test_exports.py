"""`worldgen world --export`: surface and water arrays against the map, a
Minecraft world read back by a reader we did not write (anvil-parser2 over
the `nbt` package, while the writer uses nbtlib), and MagicaVoxel files read
back by py-vox-io and by a reader written here from the format's spec."""

import gzip
import struct

import anvil
import numpy as np
import pytest
from nbt import nbt
from pyvox.parser import VoxParser
from typer.testing import CliRunner

from worldgen.cli import app
from worldgen.io._vox import write_vox
from worldgen.voxel import NAMES, ChunkStore, VoxelConfig
from worldgen.voxel._exports import vox_models
from worldgen.voxel._minecraft import BLOCK_STATES, pack
from worldgen.world import spawn

runner = CliRunner()
SPAWN = spawn(VoxelConfig(seed=0).world)
RADIUS = 48
# Places around the default world's spawn that hold land and water.
PLACES = [(0, 0), (0, -200), (-200, -600)]
# A river of seed 0, inland (tests/voxel/test_rivers.py has its chunks).
RIVER = (-81184, -84704)
# Not ground: the surface looks through these.
NOT_GROUND = {"air", "water", "lava", "ice", "leaves", "wood"}


def _world(out, x, z, *exports, radius=RADIUS, options=()):
    args = ["world", "--out", str(out), "--x", str(x), "--z", str(z), "--radius", str(radius)]
    args += ["--mesh-radius", "8", *options]
    for name in exports:
        args += ["--export", name]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def spawn_set(tmp_path_factory):
    return _world(tmp_path_factory.mktemp("world"), *SPAWN, "npy", "mca", "vox")


def _map_water(out, x, z):
    side = str(2 * RADIUS)
    result = runner.invoke(
        app,
        ["map", "--out", str(out), "--export", "npy", "--x", str(x - RADIUS),
         "--y", str(z - RADIUS), "--width", side, "--height", side],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return np.load(out / "water.npy")


@pytest.mark.parametrize("place", PLACES)
def test_voxel_water_is_the_maps_cell_for_cell(place, tmp_path):
    """With the defaults (the world's rivers and lakes in both): at least
    97% of columns agree."""
    x, z = SPAWN[0] + place[0], SPAWN[1] + place[1]
    _world(tmp_path / "w", x, z, "npy")
    voxel = np.load(tmp_path / "w" / "water.npy")
    water = _map_water(tmp_path / "m", x, z)
    assert voxel.shape == water.shape == (2 * RADIUS, 2 * RADIUS)
    assert 0.1 < water.mean() < 0.9  # land and water both
    assert (voxel == water).mean() >= 0.97
    surface = np.load(tmp_path / "w" / "surface.npy")
    assert surface.dtype == np.int16 and voxel.dtype == np.bool_


def test_rivers_are_the_maps_too(tmp_path):
    """Where a river runs inland (no sea in sight), the voxel world's water
    columns are the map's rivers and lakes."""
    x, z = RIVER
    _world(tmp_path / "w", x, z, "npy")
    voxel = np.load(tmp_path / "w" / "water.npy")
    water = _map_water(tmp_path / "m", x, z)
    assert water.sum() > 300  # a river, 15 cells wide
    assert (voxel == water).mean() >= 0.97


def _stored(out, x, z, radius=RADIUS):
    """Blocks of the square area, from the store's chunks, and a name per id."""
    config = VoxelConfig(seed=0)
    with ChunkStore(out / "world.db", config.key) as store:
        x0, z0 = x - radius, z - radius
        area = np.zeros((config.height, 2 * radius, 2 * radius), np.uint8)
        for k in range(2 * radius):
            for i in range(0, 2 * radius):
                wx, wz = x0 + i, z0 + k
                if i and wx % 16:
                    continue  # one read per chunk row segment
                chunk = store.get(wx // 16, wz // 16)
                assert chunk is not None
                n = min(16 - wx % 16, 2 * radius - i)
                area[:, k, i : i + n] = chunk.blocks[:, wz % 16, wx % 16 : wx % 16 + n]
    return area


def test_surface_is_the_highest_ground_block_of_the_stored_chunks(spawn_set):
    area = _stored(spawn_set, *SPAWN)
    surface = np.load(spawn_set / "surface.npy")
    ground = ~np.isin(area, [NAMES.index(n) for n in NOT_GROUND])
    for k, i in np.ndindex(surface.shape):
        layers = np.nonzero(ground[:, k, i])[0]
        assert surface[k, i] == layers[-1] - 64, (k, i)


def test_minecraft_world_read_by_another_reader(spawn_set):
    area = _stored(spawn_set, *SPAWN)
    surface = np.load(spawn_set / "surface.npy")
    folder = spawn_set / "minecraft"
    level = nbt.NBTFile(str(folder / "level.dat"))["Data"]
    assert level["DataVersion"].value >= 3463  # 1.20
    sx, sy, sz = (level[k].value for k in ("SpawnX", "SpawnY", "SpawnZ"))
    x0, z0 = SPAWN[0] - RADIUS, SPAWN[1] - RADIUS
    assert 0 <= sx - x0 < 2 * RADIUS and 0 <= sz - z0 < 2 * RADIUS
    names = {i: BLOCK_STATES[n][0] for i, n in enumerate(NAMES)}
    below = names[int(area[sy - 1 + 64, sz - z0, sx - x0])]
    assert below not in {"minecraft:water", "minecraft:ice", "minecraft:air"}  # on land
    rng = np.random.default_rng(1)
    regions = {}
    for k, i in rng.integers(0, 2 * RADIUS, size=(24, 2)):
        x, z = x0 + int(i), z0 + int(k)
        name = f"r.{x // 512}.{z // 512}.mca"
        region = regions.setdefault(name, anvil.Region.from_file(str(folder / "region" / name)))
        chunk = anvil.Chunk.from_region(region, (x // 16) % 32, (z // 16) % 32)
        assert chunk.version >= 3463
        column = [chunk.get_block(x % 16, y, z % 16).name() for y in range(-64, 320)]
        expected = [names[int(b)] for b in area[:, k, i]]
        assert column == expected, (x, z)
        top = max(y for y, n in zip(range(-64, 320), column, strict=True) if n.split(":")[1]
                  not in {"air", "water", "lava", "ice", "oak_leaves", "oak_log"})  # fmt: skip
        assert top == surface[k, i]


def test_minecraft_biomes_are_the_worlds_at_full_detail(spawn_set):
    # Each 4 x 4 cell's biome is the world's at the cell's centre column,
    # from the full-detail fields the blocks come from (a window stepped by
    # 4 put beaches where the blocks were sand of another biome).
    from worldgen.voxel._minecraft import BIOME_IDS
    from worldgen.world import world_fields
    from worldgen.world._window import Window

    config = VoxelConfig(seed=0)
    folder = spawn_set / "minecraft"
    x0, z0 = SPAWN[0] - RADIUS, SPAWN[1] - RADIUS
    names = tuple(BIOME_IDS.values())
    regions, checked = {}, 0
    for k in range(0, 2 * RADIUS, 4):
        for i in range(0, 2 * RADIUS, 4):
            x, z = (x0 + i) // 4 * 4 + 2, (z0 + k) // 4 * 4 + 2  # the cell's centre
            name = f"r.{x // 512}.{z // 512}.mca"
            region = regions.setdefault(name, anvil.Region.from_file(str(folder / "region" / name)))
            chunk = anvil.Chunk.from_region(region, (x // 16) % 32, (z // 16) % 32)
            got = chunk.get_biome(x % 16, 64, z % 16)
            fields = world_fields(config.world, Window(x, z, 1, 1), rivers=config.rivers)
            assert f"{got.namespace}:{got.id}" == names[int(fields.biome[0, 0])], (x, z)
            checked += 1
    assert checked == (2 * RADIUS // 4) ** 2


def test_block_state_packing_is_minecrafts():
    """Five bits an index, twelve to a long, the top four bits unused."""
    indices = np.arange(4096) % 17
    longs = pack(indices, 5).view(np.uint64)
    assert longs.size == -(-4096 // 12)
    back = [(int(longs[n // 12]) >> (5 * (n % 12))) & 31 for n in range(4096)]
    assert back == list(indices)


def _read_vox(path):
    """A .vox reader from the format's published description (not the
    writer's code): models (size, voxels), the translation of each shape's
    transform, and the palette."""
    data = path.read_bytes()
    assert data[:4] == b"VOX " and struct.unpack_from("<i", data, 4)[0] == 150
    kind, content, children = struct.unpack_from("<4sii", data, 8)
    assert kind == b"MAIN" and content == 0
    pos, end = 20, 20 + children
    sizes, models, nodes, palette = [], [], {}, None

    def text(at):
        n = struct.unpack_from("<i", data, at)[0]
        return data[at + 4 : at + 4 + n].decode(), at + 4 + n

    def table(at):
        n = struct.unpack_from("<i", data, at)[0]
        out = {}
        at += 4
        for _ in range(n):
            key, at = text(at)
            out[key], at = text(at)
        return out, at

    while pos < end:
        kind, n, m = struct.unpack_from("<4sii", data, pos)
        body = pos + 12
        if kind == b"SIZE":
            sizes.append(struct.unpack_from("<3i", data, body))
        elif kind == b"XYZI":
            count = struct.unpack_from("<i", data, body)[0]
            models.append(np.frombuffer(data, np.uint8, 4 * count, body + 4).reshape(count, 4))
        elif kind == b"RGBA":
            palette = np.frombuffer(data, np.uint8, 1024, body).reshape(256, 4)
        elif kind in (b"nTRN", b"nGRP", b"nSHP"):
            node = struct.unpack_from("<i", data, body)[0]
            _, at = table(body + 4)
            if kind == b"nTRN":
                child, _, _, _ = struct.unpack_from("<4i", data, at)
                frame, _ = table(at + 16)
                nodes[node] = ("t", child, frame.get("_t"))
            elif kind == b"nGRP":
                count = struct.unpack_from("<i", data, at)[0]
                nodes[node] = ("g", struct.unpack_from(f"<{count}i", data, at + 4))
            else:
                nodes[node] = ("s", struct.unpack_from("<i", data, at + 4)[0])
        pos = body + n + m
    translations = {}
    for kind, *rest in nodes.values():
        if kind == "t" and nodes[rest[0]][0] == "s":
            translations[nodes[rest[0]][1]] = tuple(map(int, rest[1].split()))
    return sizes, models, translations, palette


def _py_vox_io(path):
    """The file read by py-vox-io, which knows no scene graph (it stops at
    an nTRN chunk): its models, palette and materials, from a copy without
    the scene graph's chunks (and with the model count in a PACK chunk, the
    older files' way, which it reads)."""
    data = path.read_bytes()
    kept, pos, count = [], 20, 0
    while pos < len(data):
        kind, n, m = struct.unpack_from("<4sii", data, pos)
        if kind not in (b"nTRN", b"nGRP", b"nSHP"):
            kept.append(data[pos : pos + 12 + n + m])
        count += kind == b"SIZE"
        pos += 12 + n + m
    body = b"PACK" + struct.pack("<iii", 4, 0, count) + b"".join(kept)
    copy = path.with_name(path.name + ".models")
    copy.write_bytes(data[:8] + b"MAIN" + struct.pack("<ii", 0, len(body)) + body)
    return VoxParser(str(copy)).parse()


def _placed(sizes, models, translations):
    """Every voxel's place in the scene, (N, 3), and its colour index: a
    model's voxel i stands at its translation + i - size // 2 (one model
    without a scene graph: centred on the origin)."""
    places, colours = [], []
    for m, voxels in enumerate(models):
        assert all(1 <= s <= 256 for s in sizes[m])
        t = np.array(translations.get(m, (0, 0, 0)) if translations else (0, 0, 0))
        places.append(voxels[:, :3].astype(int) + t - np.array(sizes[m]) // 2)
        colours.append(voxels[:, 3])
    return np.concatenate(places), np.concatenate(colours)


def _check_vox(area, sizes, models, translations):
    """Put every voxel back in a box of the area, with the scene's placement:
    the area's middle column at x = y = 0, its lowest visible block (the
    lowest layer with a block on its sides, which always show) on the
    ground, z = 0, and all within MagicaVoxel's scene, -1000 to 999 across,
    0 to 999 up. Every voxel is its block, and the cut faces and every
    column's top block are there."""
    depth, width = area.shape[1:]
    sides = np.concatenate([area[:, 0], area[:, -1], area[:, :, 0], area[:, :, -1]], axis=1)
    base = np.nonzero(sides.any(axis=1))[0][0]
    at, colours = _placed(sizes, models, translations)
    assert at[:, :2].min() >= -1000 and at[:, :2].max() <= 999
    assert at[:, 2].min() == 0 and at[:, 2].max() <= 999
    u, v, w = at[:, 0] + width // 2, at[:, 1] + depth // 2, at[:, 2] + base
    placed = np.zeros_like(area)
    placed[w, depth - 1 - v, u] = colours
    written = placed != 0
    np.testing.assert_array_equal(placed[written], area[written])
    for face in (np.s_[:, 0], np.s_[:, -1], np.s_[:, :, 0], np.s_[:, :, -1]):
        np.testing.assert_array_equal(placed[face], area[face])  # the cut faces, whole
    ys = area.shape[0] - 1 - np.argmax(area[::-1] != 0, axis=0)  # every column's top block
    k, i = np.indices(ys.shape)
    np.testing.assert_array_equal(placed[ys, k, i], area[ys, k, i])


def test_vox_export_read_back_by_two_readers(spawn_set):
    area = _stored(spawn_set, *SPAWN)
    sizes, models, translations, palette = _read_vox(spawn_set / "world.vox")
    config = VoxelConfig(seed=0)
    for block in range(1, len(NAMES)):
        assert tuple(palette[block - 1, :3]) == config.palette[block][1]
    _check_vox(area, sizes, models, translations)
    vox = _py_vox_io(spawn_set / "world.vox")
    assert len(vox.models) == len(models) == 1
    read = np.array([(v.x, v.y, v.z, v.c) for v in vox.models[0].voxels], np.uint8)
    np.testing.assert_array_equal(read, models[0])


def test_vox_of_a_big_area_is_several_models_in_a_scene(tmp_path):
    rng = np.random.default_rng(2)
    blocks = np.zeros((300, 20, 270), np.uint8)
    blocks[:290] = rng.integers(1, 4, size=(290, 20, 270))
    blocks[100:200, 5:15, 10:260] = 0  # a cave: its walls show
    models = vox_models(blocks)
    assert len(models) == 4  # two across x, two up
    write_vox(tmp_path / "big.vox", models, np.zeros((256, 4), np.uint8))
    sizes, read, translations, _ = _read_vox(tmp_path / "big.vox")
    assert len(translations) == len(read) == 4
    _check_vox(blocks, sizes, read, translations)


def test_vox_single_model_read_by_py_vox_io(tmp_path):
    rng = np.random.default_rng(3)
    blocks = np.zeros((20, 9, 7), np.uint8)
    blocks[:8] = 1
    blocks[8:12] = rng.integers(0, 5, size=(4, 9, 7))
    models = vox_models(blocks)
    assert len(models) == 1
    palette = np.zeros((256, 4), np.uint8)
    palette[:, 0] = np.arange(256)
    write_vox(tmp_path / "a.vox", models, palette)
    vox = _py_vox_io(tmp_path / "a.vox")
    assert len(vox.models) == 1
    model = vox.models[0]
    (_, size, voxels) = models[0]
    assert (model.size.x, model.size.y, model.size.z) == size
    read = {(v.x, v.y, v.z): v.c for v in model.voxels}
    assert read == {tuple(int(a) for a in v[:3]): int(v[3]) for v in voxels}
    assert [c.r for c in vox.palette[:10]] == list(range(10))
    # Every voxel is the block it stands for.
    base = np.nonzero((blocks != 0).any(axis=(1, 2)))[0][0]
    for (u, v, w), c in read.items():
        assert blocks[w + base, blocks.shape[1] - 1 - v, u] == c


def test_a_wide_vox_scene_is_centred_on_the_ground_within_magicavoxels_reach(tmp_path):
    # The models stood from 0 to twice the radius across: past MagicaVoxel's
    # scene (-1000 to 999) for a radius over 500.
    blocks = np.zeros((12, 2000, 2000), np.uint8)
    blocks[2, 0, 0] = 1  # north-west corner, the lowest block
    blocks[3, -1, -1] = 2  # south-east corner
    blocks[11, 1000, 1000] = 3  # the middle column, at the top
    models = vox_models(blocks)
    write_vox(tmp_path / "wide.vox", models, np.zeros((256, 4), np.uint8))
    sizes, read, translations, _ = _read_vox(tmp_path / "wide.vox")
    at, colours = _placed(sizes, read, translations)
    assert sorted(zip(map(tuple, at.tolist()), colours.tolist())) == [
        ((-1000, 999, 0), 1), ((0, -1, 9), 3), ((999, -1000, 1), 2)
    ]  # fmt: skip
    vox = _py_vox_io(tmp_path / "wide.vox")
    assert sorted((v.x, v.y, v.z, v.c) for m in vox.models for v in m.voxels) == sorted(
        tuple(v) for m in read for v in m.tolist()
    )
    with pytest.raises(ValueError, match="2000 x 2000"):
        vox_models(np.ones((4, 2001, 8), np.uint8))
    with pytest.raises(ValueError, match="1000 voxels up"):
        vox_models(np.ones((1001, 2, 2), np.uint8))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--radius", "1001"], "--radius 1000 or less"),
        (["--radius", "4", "--config", "{tall}"], "y_max - y_min of at most 1000"),
    ],
)
def test_a_vox_export_magicavoxel_could_not_show_is_refused_before_any_work(
    tmp_path, monkeypatch, options, message
):
    import worldgen.voxel._outputs as outputs

    def no_work(*args, **kwargs):
        raise AssertionError("work began")

    monkeypatch.setattr(outputs, "world_set_memory", no_work)
    tall = tmp_path / "tall.toml"
    tall.write_text("y_min = -64\ny_max = 960\n")
    out = tmp_path / "set"
    options = [o.format(tall=tall) for o in options]
    args = ["world", "--out", str(out), "--x", "0", "--z", "0", "--export", "vox", *options]
    bad = runner.invoke(app, args)
    assert bad.exit_code == 1 and message in bad.output, bad.output
    assert not out.exists()


def test_level_dat_is_gzipped_nbt(spawn_set):
    raw = (spawn_set / "minecraft" / "level.dat").read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert gzip.decompress(raw)[0] == 10  # a compound


def test_minecraft_world_is_the_same_bytes_at_any_time(spawn_set, tmp_path, monkeypatch):
    # The chunks' times and LastPlayed were the clock's: two runs differed.
    import time

    monkeypatch.setattr(time, "time", lambda: 2.0e9)  # another day
    again = _world(tmp_path, *SPAWN, "mca") / "minecraft"
    first = spawn_set / "minecraft"
    files = sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert files and files == sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    for name in files:
        assert (again / name).read_bytes() == (first / name).read_bytes(), name


def _files(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("played", ["level.dat", "region", "added"])
def test_a_minecraft_save_changed_since_it_was_written_is_not_written_over(
    tmp_path, monkeypatch, played
):
    # A rerun replaced the level.dat and regions that Minecraft had saved.
    import worldgen.voxel._outputs as outputs

    out = _world(tmp_path / "set", 0, 0, "mca", radius=8)
    minecraft = out / "minecraft"
    written = _files(minecraft)
    assert _files(_world(out, 0, 0, "mca", radius=8) / "minecraft") == written  # untouched: again
    if played == "added":
        (minecraft / "playerdata").mkdir()
        (minecraft / "playerdata" / "a.dat").write_bytes(b"player")
    else:
        changed = (
            minecraft / "level.dat" if played == "level.dat" else min(minecraft.rglob("*.mca"))
        )
        changed.write_bytes(changed.read_bytes()[::-1])
    now = _files(minecraft)
    with monkeypatch.context() as m:
        m.setattr(outputs, "open_world", lambda *a, **k: pytest.fail("work began"))
        args = ["world", "--out", str(out), "--x", "0", "--z", "0", "--radius", "8"]
        bad = runner.invoke(app, [*args, "--mesh-radius", "8", "--export", "mca"])
    assert bad.exit_code == 1, bad.output
    assert "--out" in bad.output and "--overwrite-save" in bad.output, bad.output
    assert _files(minecraft) == now
    _world(out, 0, 0, "mca", radius=8, options=["--overwrite-save"])
    assert {k: v for k, v in _files(minecraft).items() if k in written} == written
    if played == "added":
        assert (minecraft / "playerdata" / "a.dat").read_bytes() == b"player"  # the game's own


def test_a_set_without_the_minecraft_export_does_not_remove_a_played_save(tmp_path):
    # It replaced the set that wrote minecraft/, and removed its level.dat
    # and regions as that set's files, played or not.
    out = _world(tmp_path / "set", 0, 0, "mca", radius=8)
    minecraft = out / "minecraft"
    (minecraft / "session.lock").write_bytes(b"played")
    played = _files(minecraft)
    args = ["world", "--out", str(out), "--x", "0", "--z", "0", "--radius", "8"]
    bad = runner.invoke(app, [*args, "--mesh-radius", "8"])
    assert bad.exit_code == 1 and "would remove its level.dat" in bad.output, bad.output
    assert "--overwrite-save" in bad.output and _files(minecraft) == played
    # A minecraft/ worldgen did not write is left alone, and not refused.
    foreign = _world(tmp_path / "other", 0, 0, radius=8)
    (foreign / "minecraft").mkdir()
    (foreign / "minecraft" / "level.dat").write_bytes(b"theirs")
    _world(foreign, 0, 0, radius=8)
    assert (foreign / "minecraft" / "level.dat").read_bytes() == b"theirs"


def test_export_errors_name_the_parameter(tmp_path):
    bad = runner.invoke(app, ["world", "--out", str(tmp_path), "--export", "png"])
    assert bad.exit_code != 0 and "export" in bad.output


@pytest.mark.parametrize(
    ("options", "message"),
    [
        # Minecraft cannot load chunks past its world border.
        (["--x", "29999990", "--radius", "8", "--export", "mca"], "Minecraft's world ends"),
        (["--z", "-30000000", "--radius", "4", "--export", "mca"], "z: Minecraft"),
        # The chunk store may not take a name the set writes.
        (["--radius", "4", "--export", "npy", "--store", "{out}/surface.npy"], "store:"),
        (["--radius", "4", "--store", "{out}/region.glb"], "another file name"),
        # A store in the Minecraft world was written over by a region, or
        # left in the save (its own files beside it).
        (
            [
                "--x",
                "0",
                "--z",
                "0",
                "--radius",
                "4",
                "--export",
                "mca",
                "--store",
                "{out}/minecraft/region/r.0.0.mca",
            ],
            "its own minecraft",
        ),
        (["--radius", "4", "--store", "{out}/minecraft/world.db"], "its own minecraft"),
    ],
)
def test_world_refuses_what_it_could_not_write_whole(tmp_path, options, message):
    out = tmp_path / "set"
    options = [o.format(out=out) for o in options]
    bad = runner.invoke(app, ["world", "--out", str(out), *options])
    assert bad.exit_code != 0 and message in bad.output, bad.output
    assert not out.exists() or not any(out.iterdir())


def test_world_takes_a_world_preset_and_a_config_with_a_world_table(tmp_path):
    from worldgen.config import preset
    from worldgen.world import WorldConfig

    classic = runner.invoke(app, ["world", "--out", str(tmp_path / "c"), "--preset", "classic"])
    assert classic.exit_code == 1
    assert "--preset classic" in classic.output and "continents, islands" in classic.output
    assert not (tmp_path / "c" / "world.db").exists()
    islands = WorldConfig(seed=4, **preset("islands")["world"])
    args = ["--radius", "8", "--mesh-radius", "8", "--x", "0", "--z", "0"]
    result = runner.invoke(
        app, ["world", "--out", str(tmp_path / "i"), "--preset", "islands", "--seed", "4", *args]
    )
    assert result.exit_code == 0, result.output
    with ChunkStore(tmp_path / "i" / "world.db", VoxelConfig(world=islands).key) as store:
        assert len(store) > 0  # the store is of the islands world (else a key mismatch)
    path = tmp_path / "w.toml"
    path.write_text("seed = 3\ntrees = false\n[world]\ncontinent_size = 2048\n")
    result = runner.invoke(
        app, ["world", "--out", str(tmp_path / "f"), "--config", str(path), *args]
    )
    assert result.exit_code == 0, result.output
    mine = VoxelConfig(trees=False, world=WorldConfig(seed=3, continent_size=2048))
    with ChunkStore(tmp_path / "f" / "world.db", mine.key) as store:
        assert len(store) > 0


@pytest.mark.parametrize("slab", [1, 40, 1000, 1 << 22])
def test_the_exports_masks_made_in_slabs_are_the_whole_areas(monkeypatch, slab):
    from worldgen.voxel import _exports

    rng = np.random.default_rng(slab)
    blocks = rng.choice(np.arange(len(NAMES), dtype=np.uint8), size=(12, 9, 7))
    blocks[rng.random(blocks.shape) < 0.5] = 0  # air, for faces to show through
    whole = _exports._visible(blocks), _exports.surface_and_water(blocks, y_min=-3)
    monkeypatch.setattr(_exports, "SLAB", slab)
    assert (_exports.visible(blocks) == whole[0]).all()
    surface, water = _exports.surface_and_water(blocks, y_min=-3)
    assert (surface == whole[1][0]).all() and (water == whole[1][1]).all()
    assert surface.dtype == np.int16 and water.dtype == np.bool_


@pytest.mark.parametrize(("exports", "mesh_radius"), [(["vox"], 8), ([], 128)])
def test_the_world_sets_memory_estimate_bounds_its_peak(tmp_path, exports, mesh_radius):
    # The block mesh was left out: a mesh radius of 128 peaked at twice the
    # estimate (512: 2.1 GB after an estimate of 1.1 GB).
    import tracemalloc

    from worldgen.voxel import write_world_set
    from worldgen.voxel._outputs import world_set_memory

    config = VoxelConfig()
    args = {"x": 0, "z": 0, "threads": 1, "exports": exports}
    write_world_set(config, tmp_path / "warm", radius=8, mesh_radius=8, **args)  # kernels loaded
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        write_world_set(config, tmp_path / "w", radius=128, mesh_radius=mesh_radius, **args)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    _, estimate = world_set_memory(config, 0, 0, 128, exports, mesh_radius=mesh_radius, threads=1)
    assert peak <= estimate <= 2 * peak, (peak, estimate)


@pytest.mark.parametrize("place", ["sea", "tree"])
def test_the_minecraft_spawn_stands_on_top_of_its_column(tmp_path, monkeypatch, place):
    # The spawn stood one block over the ground: at the bottom of the sea
    # when the square held no land, inside the trunk when a tree grew there.
    import worldgen.voxel._outputs as outputs
    from worldgen.voxel._chunk import Chunk

    monkeypatch.setattr(
        outputs, "cell_biomes", lambda config, cx, cz, nx, nz: np.zeros((4, 4), int)
    )
    ids = {n: NAMES.index(n) for n in ("stone", "water", "wood", "leaves")}
    blocks = np.zeros((384, 16, 16), np.uint8)
    ground = 40 if place == "sea" else 70
    blocks[: ground + 65] = ids["stone"]
    if place == "sea":
        blocks[ground + 65 : 62 + 65] = ids["water"]
        top = 62
    else:
        blocks[ground + 65 : ground + 70, 8, 8] = ids["wood"]
        blocks[ground + 70, 7:10, 7:10] = ids["leaves"]
        top = ground + 6  # the leaves
    chunk = Chunk(0, 0, blocks, np.zeros((16, 16), np.int16))
    surface = np.full((16, 16), ground, np.int16)
    water = np.full((16, 16), place == "sea")
    outputs._write_minecraft(VoxelConfig(), tmp_path, [chunk], surface, water, 8, 8, 8)
    level = nbt.NBTFile(str(tmp_path / "level.dat"))["Data"]
    assert (level["SpawnX"].value, level["SpawnY"].value, level["SpawnZ"].value) == (8, top + 1, 8)
