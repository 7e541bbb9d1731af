"""``worldgen world``: refusals before any work, named by the options, and
Ctrl-C at any time, each one clear line."""

import pathlib

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
