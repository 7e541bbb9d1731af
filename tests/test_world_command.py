"""``worldgen world``: refusals before any work, named by the options, and
Ctrl-C at any time, each one clear line."""

import os
import pathlib
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from typer.testing import CliRunner

from worldgen.cli import app

runner = CliRunner()
TINY = ["world", "--radius", "8", "--mesh-radius", "8", "--threads", "1", "--x", "0", "--z", "0"]


def error_line(result) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("compiling kernels")]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


@pytest.mark.parametrize(
    ("folder", "export"), [("surface.npy", "npy"), ("minecraft/level.dat", "mca")]
)
def test_a_folder_where_a_file_of_the_set_goes_is_refused_before_any_work(tmp_path, folder, export):
    out = tmp_path / "out"
    (out / folder).mkdir(parents=True)
    result = runner.invoke(app, [*TINY, "--export", export, "--out", str(out)])
    assert result.exit_code == 1
    line = error_line(result)
    assert f"{out / folder} is a folder, where the set writes a file" in line
    assert "remove or rename it" in line
    # Nothing made: no store, no staging folder, no picture.
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == sorted(
        {folder, *(p.as_posix() for p in pathlib.PurePath(folder).parents)} - {"."}
    )


def no_spawn(monkeypatch):
    """Finding the spawn is the command's first work: fail if it is reached."""
    import worldgen.world

    def spawn(*args, **kwargs):
        raise AssertionError("the spawn was looked for")

    monkeypatch.setattr(worldgen.world, "spawn", spawn)


def test_a_mesh_radius_past_the_radius_is_refused_before_any_work(tmp_path, monkeypatch):
    no_spawn(monkeypatch)
    out = tmp_path / "out"
    result = runner.invoke(app, ["world", "--radius", "8", "--mesh-radius", "9", "--out", str(out)])
    assert result.exit_code == 1
    line = error_line(result)
    assert line.startswith("error: --mesh-radius must be at most --radius (8), got 9")
    assert not out.exists()
    # Left out, the mesh radius is 24 or the radius if smaller.
    fine = runner.invoke(app, [*TINY[:3], *TINY[5:], "--out", str(out)])
    assert fine.exit_code == 0, fine.output


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["--radius", "0"], "--radius must be an integer from 1 to 4096, got 0"),
        (["--radius", "5000"], "--radius must be an integer from 1 to 4096, got 5000"),
        (["--mesh-radius", "0"], "--mesh-radius must be an integer from 1 to 512, got 0"),
        (["--threads", "0"], "--threads must be an integer from 1 to 1024, got 0"),
        (["--x", str(2**31)], f"--x must be an integer from {-(2**30)} to {2**30}"),
        (["--z", str(-(2**31))], f"--z must be an integer from {-(2**30)} to {2**30}"),
        (["--seed", str(2**64)], "--seed must fit in 64 bits"),
        # Within the range, but the square around it was not: the mesh's
        # corner was refused after the chunks were made, as "origin[1]".
        (["--z", str(-(2**30)), "--radius", "8"], "--z: the world reaches 1,073,741,824 blocks"),
        (["--x", str(2**30 - 8), "--radius", "8"], "--x: the world reaches"),
    ],
)
def test_range_errors_name_the_option_before_any_work(tmp_path, monkeypatch, args, start):
    no_spawn(monkeypatch)
    out = tmp_path / "out"
    result = runner.invoke(app, ["world", *args, "--out", str(out)])
    assert result.exit_code == 1
    assert error_line(result).startswith(f"error: {start}")
    assert not out.exists()


def test_many_generator_threads_count_in_the_memory_check(tmp_path, monkeypatch):
    # Each thread making a chunk holds 14-17 MB, left out of the estimate:
    # 128 threads took 1.3 GB where one took 390 MB.
    monkeypatch.setenv("WORLDGEN_MEMORY_LIMIT", "200M")
    out = tmp_path / "out"
    args = ["world", "--out", str(out), "--x", "0", "--z", "0", "--radius", "64"]
    line = error_line(runner.invoke(app, [*args, "--threads", "1024"]))
    assert line.startswith("error: --radius: ") and "made by " in line, line
    assert "or fewer --threads" in line and not out.exists()


def test_errors_after_the_spawn_name_the_option_too(tmp_path, monkeypatch):
    out = tmp_path / "out"
    far = ["world", "--x", "29999990", "--z", "0", "--radius", "16", "--export", "mca"]
    assert error_line(runner.invoke(app, [*far, "--out", str(out)])).startswith(
        "error: --x: Minecraft's world ends 29,999,984 blocks"
    )
    store = ["--store", str(out / "region.glb")]
    assert error_line(runner.invoke(app, [*TINY, *store, "--out", str(out)])).startswith(
        f"error: --store: {out / 'region.glb'} is where the set writes"
    )
    monkeypatch.setenv("WORLDGEN_MEMORY_LIMIT", "1M")
    line = error_line(runner.invoke(app, [*TINY, "--out", str(out)]))
    assert line.startswith("error: --radius: ") and "choose a smaller --radius;" in line
    monkeypatch.delenv("WORLDGEN_MEMORY_LIMIT")
    (tmp_path / "a-file").write_text("")
    line = error_line(runner.invoke(app, [*TINY, "--out", str(tmp_path / "a-file")]))
    assert line.startswith(f"error: --out: {tmp_path / 'a-file'} is a file")
    assert not out.exists()


def test_the_library_names_its_own_parameters(tmp_path):
    from worldgen.voxel import VoxelConfig, write_world_set

    with pytest.raises(ValueError, match=r"^mesh_radius must be at most radius \(8\), got 9"):
        write_world_set(VoxelConfig(), tmp_path / "out", radius=8, mesh_radius=9)
    with pytest.raises(ValueError, match=r"^mesh_radius must be an integer from 1 to 512"):
        write_world_set(VoxelConfig(), tmp_path / "out", mesh_radius=0)
    with pytest.raises(ValueError, match=r"^x: Minecraft's world ends"):
        write_world_set(VoxelConfig(), tmp_path / "out", x=29999990, radius=16, exports=["mca"])
    assert not (tmp_path / "out").exists()


def interrupt_while_drawing(monkeypatch):
    from worldgen.voxel import _outputs

    def draw(world, *args):
        world.pregenerate(0, 0, 8)  # some chunks into the store
        raise KeyboardInterrupt

    monkeypatch.setattr(_outputs, "_draw_world", draw)


def test_an_interrupted_first_run_says_no_set_was_written(tmp_path, monkeypatch):
    out = tmp_path / "out"
    interrupt_while_drawing(monkeypatch)
    result = runner.invoke(app, [*TINY, "--out", str(out)])
    assert result.exit_code == 130
    assert error_line(result) == (
        f"interrupted: no set was written; the chunk store {out / 'world.db'} keeps the "
        "chunks made so far"
    )
    assert [p.name for p in out.iterdir() if not p.name.startswith("world.db")] == []


def test_an_interrupted_run_over_a_set_says_it_keeps_the_previous_files(tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert runner.invoke(app, [*TINY, "--out", str(out)]).exit_code == 0
    interrupt_while_drawing(monkeypatch)
    result = runner.invoke(app, [*TINY, "--out", str(out)])
    assert result.exit_code == 130
    assert error_line(result) == (
        "interrupted: the output directory keeps its previous files; the chunk store "
        f"{out / 'world.db'} keeps the chunks made so far"
    )


def _wrapped_ctrl_c():
    # What Python raises for a Ctrl-C inside a class body's __set_name__
    # (it landed in numpy's import of finfo once).
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        raise RuntimeError("Error calling __set_name__ on 'cached_property'") from exc


@pytest.mark.parametrize("wrapped", [False, True])
def test_an_interrupted_first_map_says_nothing_was_written(tmp_path, monkeypatch, wrapped):
    from worldgen.io import _mapset

    def stop(*args, **kwargs):
        if wrapped:
            _wrapped_ctrl_c()
        raise KeyboardInterrupt

    monkeypatch.setattr(_mapset, "make_layers", stop)
    out = tmp_path / "out"
    result = runner.invoke(app, ["map", "--width", "8", "--height", "8", "--out", str(out)])
    assert result.exit_code == 130
    assert error_line(result) == "interrupted: nothing was written"
    assert not out.exists()
    (out / "mine").mkdir(parents=True)  # a folder with files of its own keeps them
    result = runner.invoke(app, ["map", "--width", "8", "--height", "8", "--out", str(out)])
    assert error_line(result) == "interrupted: the output directory keeps its previous files"


def test_ctrl_c_wrapped_in_another_error_is_still_ctrl_c(monkeypatch, capsys):
    import worldgen._jit
    from worldgen.cli import main, run
    from worldgen.cli._interrupt import caused_by_ctrl_c

    with pytest.raises(RuntimeError) as caught:
        _wrapped_ctrl_c()
    assert caused_by_ctrl_c(caught.value) and caused_by_ctrl_c(KeyboardInterrupt())
    assert not caused_by_ctrl_c(RuntimeError("not Ctrl-C"))
    # The start-up (a few tenths of a second of imports) and a command.
    monkeypatch.setattr(worldgen._jit, "skip_blas_probe", _wrapped_ctrl_c)
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 130
    assert capsys.readouterr().err.strip() == "interrupted: nothing was written"
    # A command's own imports (run() answers what the commands do not).
    monkeypatch.setattr("typer.main.get_command", lambda app: _wrapped_ctrl_c())
    assert run(["map"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted: nothing was written"


def test_ctrl_c_is_answered_without_importing_more(monkeypatch, capsys):
    # Ctrl-C during the start-up may cut numpy's import short: answering
    # it must import nothing that needs numpy (importing the config module
    # to check for its error type did, and printed a traceback).
    from worldgen.cli._common import _fail

    for name in ("worldgen.config", "worldgen._memory", "numpy"):
        monkeypatch.setitem(sys.modules, name, None)  # importing it raises
    assert _fail(KeyboardInterrupt()).exit_code == 130
    assert capsys.readouterr().err.strip() == "interrupted: nothing was written"


# The child says when the interpreter has started, before its first import
# of worldgen: Ctrl-C during Python's own start-up (or as it finds the
# package) is Python's to answer.
STARTED = "import sys; print('started', flush=True); from worldgen.cli import main; main()"


@pytest.mark.parametrize("delay", [0.02, 0.05, 0.1, 0.2, 0.3])
def test_ctrl_c_during_the_start_up_is_one_line(tmp_path, delay):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", STARTED, *TINY, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30.0)
        assert ready and proc.stdout.readline() == "started\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.communicate()
    assert "Traceback" not in err, err
    if proc.returncode == 0:
        return  # done before the signal came: fine too
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("compiling kernels")]
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), err
    if delay <= 0.1:  # still importing: the line a Ctrl-C before any set says
        assert lines == ["interrupted: nothing was written"], err


def test_a_ctrl_c_in_a_callback_during_the_start_up_is_not_lost(tmp_path):
    # A Ctrl-C that landed in an import lock's weakref callback was printed
    # as "Exception ignored ... KeyboardInterrupt" with its traceback, and
    # the command ran on as if it never came.
    probe = textwrap.dedent(
        """
        import sys, weakref
        import worldgen.cli

        class Thing:
            pass

        def callback(ref):
            raise KeyboardInterrupt  # as a signal landing in it

        thing = Thing()
        ref = weakref.ref(thing, callback)
        del thing
        worldgen.cli.main()
        """
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-c", probe, *TINY, "--out", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip() == "interrupted: nothing was written", done.stderr
    assert not out.exists()


def test_a_ctrl_c_kept_from_a_callback_stops_the_work_at_its_next_stage(tmp_path, capsys):
    # Kept during the work (as the hook keeps one that landed in a
    # callback), it stops the command at its next stage: nothing written.
    import types

    from worldgen.cli import _interrupt, run

    _interrupt.keep_ctrl_c(types.SimpleNamespace(exc_value=KeyboardInterrupt()))
    out = tmp_path / "out"
    assert run(["map", "--width", "16", "--height", "16", "--out", str(out)]) == 130
    assert "interrupted: nothing was written" in capsys.readouterr().err
    assert not out.exists()
    # And once only: the next command runs.
    assert run(["map", "--width", "16", "--height", "16", "--out", str(out)]) == 0


def test_a_store_that_cannot_be_used_is_named_by_its_option(tmp_path):
    # A foreign, damaged or mismatched store file was named only by its
    # path: the error did not say it was the --store (or its default).
    import sqlite3

    from worldgen.voxel import ChunkStore

    (tmp_path / "notes.txt").write_text("not a store")
    sqlite3.connect(tmp_path / "other.db").execute("CREATE TABLE t (a)").connection.close()
    (tmp_path / "folder.db").mkdir()
    ChunkStore(tmp_path / "another-world.db", "another world").close()
    for name, why in [
        ("notes.txt", "is not a worldgen chunk store"),
        ("other.db", "is an SQLite file but not a worldgen chunk store"),
        ("folder.db", "is a directory, not a store file"),
        ("another-world.db", "holds another world"),
    ]:
        store = ["--store", str(tmp_path / name)]
        line = error_line(runner.invoke(app, [*TINY, *store, "--out", str(tmp_path / "out")]))
        assert line.startswith(f"error: --store: {tmp_path / name} {why}"), line
    ChunkStore(tmp_path / "out" / "world.db", "another world").close()
    line = error_line(runner.invoke(app, [*TINY, "--out", str(tmp_path / "out")]))
    assert line.startswith(f"error: --store: {tmp_path / 'out' / 'world.db'} holds another"), line
