"""Fuzz every command of the command line with bad option values, one option
at a time, from a small valid run.

An example is ``clear`` when the command exits non-zero with exactly one line
on stderr, no traceback, a message that names the option, and no files left
in the output directory; ``accepted`` when it exits 0 with a complete set
(no temporary files left). The defects: ``unclear`` (several lines, a
traceback, an unnamed option), ``garbage`` (files left behind by a failure,
temporary files by a success) and ``unbounded`` (more than
:data:`~tests.fuzz._runner.BUDGET` seconds of CPU). Then the command lines
of :func:`listed` (found to surprise users) are run once each, and must
each be a clear error.

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
import time

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._runner import BUDGET, Tally, Watchdog, fuzz_settings, main
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
    return judge(argv, out, _names(option), value if option == "--config" else None)


def judge(
    argv: list[str], out: pathlib.Path, names: tuple[str, ...], path: str | None = None
) -> tuple[str, str]:
    """Run the command line ``argv``: ``(kind, detail)``; a failure is clear
    if its one line names one of ``names`` (or ``path``)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = cli.run(argv)
    spent = time.process_time() - start
    if spent > BUDGET:
        return "unbounded", f"exit {code} after {spent:.0f} s of CPU"
    err = stderr.getvalue()
    # Piped runs log each stage ("[  0.1s] noise"); the error is what follows.
    lines = [line for line in err.splitlines() if line.strip() and not STAGE.match(line)]
    files = sorted(p.name for p in out.rglob("*") if p.is_file()) if out.exists() else []
    if code == 0:
        leftovers = [f for f in files if f.endswith(".part") or f.startswith(".")]
        return ("accepted", "") if not leftovers else ("garbage", f"left {leftovers}")
    if "Traceback" in err or len(lines) != 1:
        return "unclear", f"exit {code}, {len(lines)} lines: {err[:200]!r}"
    if not any(name in lines[0] for name in names) and not (path and path in lines[0]):
        return "unclear", f"exit {code}, does not name {names[0]}: {lines[0][:200]}"
    if files:
        return "garbage", f"exit {code} but left files: {files[:5]}"
    return "clear", ""


def listed(tmp: pathlib.Path) -> list[tuple[list[str], tuple[str, ...], str | None]]:
    """Command lines that once surprised users: ``(argv, names, path)``,
    each to fail in one line naming one of ``names`` (or ``path``),
    before any work."""
    binary = tmp / "binary.toml"
    binary.write_bytes(bytes(range(256)))
    folder = tmp / "a-folder.toml"
    folder.mkdir()
    return [
        (["terrain", "--width", "1"], ("width",), None),
        (["terrain", "--height", "1", "--export", "zarr"], ("height",), None),
        (["map", "--config", str(binary)], ("config",), str(binary)),
        (["terrain", "--config", str(folder)], ("config",), str(folder)),
        (["terrain", "--width", "2", "--height", "2", "--droplets", "1025"], ("droplets",), None),
        (["map", "--x", "0", "--y", "0", "--width", "96", "--height", "64", "--normalize",
          "local"], ("normalize",), None),
    ]  # fmt: skip


def run(examples: int) -> dict:
    tally = Tally()
    watchdog = Watchdog(tally)
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        tmp = pathlib.Path(folder)  # also the working directory: "" paths land here
        for command in BASE:
            _fuzz_one(command, examples, tmp, tally, watchdog)
        for i, (argv, names, path) in enumerate(listed(tmp)):
            out = tmp / f"listed-{i}"
            with watchdog.watching(" ".join(argv)):
                kind, detail = judge([*argv, "--out", str(out)], out, names, path)
            if kind == "accepted":  # a listed command line must be refused
                kind, detail = "garbage", "accepted"
            tally.add(kind, argv=" ".join(argv), detail=detail)
    watchdog.stop()
    return tally.report()


def _fuzz_one(command: str, examples: int, tmp: pathlib.Path, tally, watchdog) -> None:
    serial = iter(range(10**9))
    # The valid run first, untimed: it compiles the kernels the command
    # runs, so the time budget measures work, not compilation.
    argv = [
        command,
        *BASE[command],
        *(["--out", str(tmp / f"{command}-warm")] * (command != "config")),
    ]
    with watchdog.watching(" ".join(argv)), contextlib.redirect_stdout(io.StringIO()):
        with contextlib.redirect_stderr(io.StringIO()):
            cli.run(argv)

    @fuzz_settings(examples)
    @given(option=st.sampled_from(OPTIONS[command]), value=st.sampled_from(VALUES))
    def fuzz(option, value):
        out = tmp / f"{command}-{next(serial)}"
        with watchdog.watching(f"{command} {option} {value!r}"):
            kind, detail = outcome(command, option, value, out)
        tally.add(kind, argv=f"{command} {option} {value!r}", detail=detail)

    fuzz()


if __name__ == "__main__":
    main(run, __doc__, 12)
