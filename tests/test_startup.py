"""What a command loads: only the libraries its outputs need.

Each command runs as users run it, in a fresh interpreter through the
``worldgen`` entry point (``worldgen.cli.main``), and reports which heavy
libraries it imported. (numba itself imports the bare ``scipy`` package to
check its version; ``scipy.linalg`` and the rest are what cost time.)
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

HEAVY = ("trimesh", "dask", "distributed", "zarr", "scipy.linalg", "scipy.sparse", "scipy.spatial")

PROBE = textwrap.dedent(
    """
    import json, os, sys
    from worldgen.cli import main

    try:
        main()
    except SystemExit as exc:
        code = exc.code
    with open(os.environ["WORLDGEN_TEST_LOADED"], "w") as handle:
        json.dump(sorted(m for m in json.loads(os.environ["WORLDGEN_TEST_HEAVY"]) if m in sys.modules), handle)
    sys.exit(code)
    """
)


def loaded(tmp_path, *args: str) -> list[str]:
    """The libraries of HEAVY that ``worldgen ARGS --out DIR`` imported."""
    report = tmp_path / "loaded.json"
    env = dict(os.environ, WORLDGEN_TEST_LOADED=str(report), WORLDGEN_TEST_HEAVY=json.dumps(HEAVY))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args, "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text())


@pytest.mark.parametrize(
    "args",
    [
        ["map", "--width", "64", "--height", "48"],
        # The terrain's default GLB is written by worldgen itself.
        ["terrain", "--width", "64", "--height", "48"],
    ],
    ids=["map", "terrain"],
)
def test_a_command_that_writes_no_mesh_through_trimesh_imports_no_heavy_library(tmp_path, args):
    assert loaded(tmp_path, *args) == []


def test_the_voxel_world_imports_trimesh_for_its_block_model_only(tmp_path):
    # Its region.glb is written through trimesh (which imports scipy.linalg
    # and more): nothing else heavy comes along.
    found = loaded(tmp_path, "world", "--radius", "16", "--mesh-radius", "8")
    assert "trimesh" in found
    assert not {"dask", "distributed", "zarr"} & set(found)


def test_a_mesh_through_trimesh_imports_it(tmp_path):
    # The probe sees an import when there is one.
    assert "trimesh" in loaded(
        tmp_path, "terrain", "--width", "64", "--height", "48", "--mesh", "ply"
    )


def _threads_after_loading_numpy(env: dict) -> tuple[int, str]:
    probe = (
        "import os, worldgen.cli, numpy; "
        "print(len(os.listdir('/proc/self/task')), os.environ.get('OPENBLAS_NUM_THREADS'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    count, setting = done.stdout.split()
    return int(count), setting


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_the_command_line_starts_no_blas_threads():
    # OpenBLAS starts a thread per extra core when numpy loads, and each
    # spins for about a tenth of a second of CPU; the command line does no
    # linear algebra.
    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
    }
    assert _threads_after_loading_numpy(env) == (1, "1")


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_blas_thread_count_the_user_set_is_kept():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="2")
    assert _threads_after_loading_numpy(env)[1] == "2"


def test_the_command_line_leaves_its_objects_out_of_the_collection_at_exit(tmp_path):
    # The interpreter's last garbage collection searched every object still
    # alive (numba's among them), 0.2-0.3 s of CPU after every command.
    probe = textwrap.dedent(
        """
        import atexit, gc, sys
        atexit.register(lambda: print("frozen", gc.get_freeze_count(), file=sys.stderr))
        from worldgen.cli import main
        main()
        """
    )
    args = ["map", "--width", "32", "--height", "32", "--out", str(tmp_path / "out")]
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    frozen = int(done.stderr.split("frozen")[-1].split()[0])
    assert frozen > 10_000


def test_the_terrain_command_loads_no_network_library(tmp_path):
    # xml.sax.saxutils (for one SVG attribute) loaded urllib, http and ssl.
    heavy = ("ssl", "http.client", "urllib.request")
    probe = PROBE.replace('os.environ["WORLDGEN_TEST_HEAVY"]', repr(json.dumps(heavy)))
    report = tmp_path / "loaded.json"
    env = dict(os.environ, WORLDGEN_TEST_LOADED=str(report))
    args = ["terrain", "--width", "32", "--height", "32", "--out", str(tmp_path / "out")]
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text()) == []


def test_start_up_runs_no_search_of_the_imports_objects():
    # Importing typer, rich, numpy and numba made the collector search their
    # some 300,000 lasting objects a dozen times (and the first kernel load
    # set off a full search): about 0.1 s of CPU a command. Up to the
    # command, no collection beyond the youngest objects runs; the command
    # runs with the collector on and those objects frozen.
    probe = textwrap.dedent(
        """
        import gc, sys
        older = []
        gc.callbacks.append(lambda phase, info: phase == "stop" and info["generation"] and older.append(1))
        import worldgen.cli

        def run():
            print("collections", len(older), gc.isenabled(), gc.get_freeze_count(), file=sys.stderr)
            return 0

        worldgen.cli.run = run
        worldgen.cli.main()
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    older, enabled, frozen = done.stderr.split("collections")[-1].split()[:3]
    assert (int(older), enabled) == (0, "True")
    assert int(frozen) > 100_000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
@pytest.mark.parametrize("command", ["terrain", "serve"])
def test_the_command_line_keeps_freed_memory_for_its_next_arrays(command):
    # Big arrays were handed back to the system as they were freed, and the
    # next ones faulted in fresh pages (cleared by the system, and on a
    # virtual machine faulted in by its host too): kept for reuse instead,
    # except by the server, whose memory would stay at its highest.
    probe = textwrap.dedent(
        """
        import ctypes, sys
        import numpy as np
        import worldgen.cli

        class Info(ctypes.Structure):  # glibc's struct mallinfo2
            _fields_ = [(name, ctypes.c_size_t) for name in (
                "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                "fsmblks", "uordblks", "fordblks", "keepcost")]

        def run():
            mallinfo2 = ctypes.CDLL(None).mallinfo2
            mallinfo2.restype = Info
            before = mallinfo2().hblks
            block = np.ones(64 << 17)  # 64 MiB
            mapped = mallinfo2().hblks - before
            del block
            print("kept", mapped, mallinfo2().fordblks >= 64 << 20, file=sys.stderr)
            return 0

        worldgen.cli.run = run
        worldgen.cli.main()
        """
    )
    done = subprocess.run([sys.executable, "-c", probe, command], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    mapped, kept = done.stderr.split("kept")[-1].split()[:2]
    if command == "serve":
        assert (mapped, kept) == ("1", "False")
    else:
        assert (mapped, kept) == ("0", "True")
