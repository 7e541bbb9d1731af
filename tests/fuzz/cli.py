"""Fuzz every command of the command line with bad option values, one option
at a time, from a small valid run.

An example is ``clear`` when the command exits non-zero with exactly one line
on stderr, no traceback, a message that names the option, and no files left
in the output directory; ``accepted`` when it exits 0 with a complete set
(no temporary files left); ``other`` otherwise.

Run as a script (the tests run it in a subprocess, so that a crash of the
interpreter is reported)::

    python -m tests.fuzz.cli --examples 12
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import re
import tempfile

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._runner import Tally, fuzz_settings, main
from worldgen import cli

# Small valid runs; every other option keeps its default.
BASE = {
    "map": ["--width", "12", "--height", "10"],
    "terrain": ["--width", "12", "--height", "12", "--droplets", "20", "--stride", "3"],
    "world": ["--radius", "4", "--mesh-radius", "4", "--threads", "1"],
    "animate": ["--width", "6", "--height", "4", "--frames", "2"],
    "wobble": [],
    "config": [],
}

# Options to perturb, per command (flags without a value are left alone).
OPTIONS = {
    "map": ["--seed", "--width", "--height", "--scale", "--offset-x", "--offset-y",
            "--octaves", "--persistence", "--lacunarity", "--noise", "--mode", "--normalize",
            "--mask", "--mask-radius", "--power", "--lake-size", "--climate-scale", "--relief",
            "--export", "--tile", "--preset", "--config"],
    "terrain": ["--seed", "--width", "--height", "--x", "--y", "--scale", "--export",
                "--droplets", "--thermal", "--dla", "--river-threshold", "--mesh",
                "--multiplier", "--stride", "--preset", "--config"],
    "world": ["--seed", "--x", "--z", "--radius", "--mesh-radius", "--store", "--threads",
              "--config"],
    "animate": ["--preset", "--seed", "--width", "--height", "--frames", "--fps"],
    "wobble": ["--seed", "--amplitude", "--wavelength"],
    "config": ["--example"],
}  # fmt: skip

# Values that ask for little work when accepted: no huge sizes or counts.
VALUES = [
    "", "x", "-1", "0", "1", "2", "0.5", "-0.5", "nan", "inf", "-inf", "1e400", "1e308",
    "-1e308", "1e-320", "18446744073709551616", "-9223372036854775809", "99999999999",
    "3.5", "1,2", "perlin", "none", "global", "png8", "glb", "--", "🙂",
]  # fmt: skip


STAGE = re.compile(r"\[ *\d+\.\ds\] [a-z-]+$")


def _names(option: str) -> tuple[str, ...]:
    bare = option.lstrip("-")
    aliases = {"offset-x": ("offset",), "offset-y": ("offset",)}.get(bare, ())
    return (option, bare, bare.replace("-", "_"), bare.replace("-", " "), *aliases)


def outcome(command: str, option: str, value: str, out: pathlib.Path) -> tuple[str, str]:
    argv = [command, *BASE[command], option, value]
    if command != "config":
        argv += ["--out", str(out)]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = cli.run(argv)
    err = stderr.getvalue()
    # Piped runs log each stage ("[  0.1s] noise"); the error is what follows.
    lines = [line for line in err.splitlines() if line.strip() and not STAGE.match(line)]
    files = sorted(p.name for p in out.rglob("*") if p.is_file()) if out.exists() else []
    if code == 0:
        leftovers = [f for f in files if f.endswith(".part") or f.startswith(".")]
        return ("accepted", "") if not leftovers else ("other", f"left {leftovers}")
    if "Traceback" in err or len(lines) != 1:
        return "other", f"exit {code}, {len(lines)} lines: {err[:200]!r}"
    if not any(name in lines[0] for name in _names(option)) and not (
        option == "--config" and value in lines[0]
    ):
        return "other", f"exit {code}, does not name {option}: {lines[0][:200]}"
    if files:
        return "other", f"exit {code} but left files: {files[:5]}"
    return "clear", ""


def run(examples: int) -> dict:
    tally = Tally()
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        tmp = pathlib.Path(folder)  # also the working directory: "" paths land here
        for command in BASE:
            _fuzz_one(command, examples, tmp, tally)
    return tally.report()


def _fuzz_one(command: str, examples: int, tmp: pathlib.Path, tally: Tally) -> None:
    serial = iter(range(10**9))

    @fuzz_settings(examples)
    @given(option=st.sampled_from(OPTIONS[command]), value=st.sampled_from(VALUES))
    def fuzz(option, value):
        out = tmp / f"{command}-{next(serial)}"
        kind, detail = outcome(command, option, value, out)
        tally.add(kind, argv=f"{command} {option} {value!r}", detail=detail)

    fuzz()


if __name__ == "__main__":
    main(run, __doc__, 12)
