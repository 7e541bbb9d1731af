"""Run the fuzzers in subprocesses (a crash of the interpreter fails the test
instead of ending the run) with bounded example counts, and hold them to no
unclear, garbage or unbounded outcome."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from tests.fuzz import COUNTS

ROOT = pathlib.Path(__file__).parents[2]
# Examples per target (library), per command (command line) and in all
# (server): enough to meet every parameter several times, few enough for
# about two minutes.
EXAMPLES = {"library": 30, "cli": 25, "server": 100}
# Targets fuzzed: public functions and configs; commands; the server.
TARGETS = {"library": 93, "cli": 6, "server": 1}


@pytest.mark.parametrize("suite", ["library", "cli", "server"])
def test_every_bad_input_gives_a_clear_error_or_a_finite_result(suite):
    done = subprocess.run(
        [sys.executable, "-m", f"tests.fuzz.{suite}", "--examples", str(EXAMPLES[suite])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert done.returncode in (0, 3), f"the fuzzer crashed ({done.returncode}):\n{done.stderr}"
    report = json.loads(done.stdout.splitlines()[-1])
    COUNTS[suite] = report["counts"]
    print(f"fuzz {suite}: {report['counts']}")
    assert report["others"] == [], json.dumps(report["others"], indent=1)
    assert report["counts"]["tried"] >= 0.8 * TARGETS[suite] * EXAMPLES[suite]
    assert report["counts"]["clear"] > report["counts"]["tried"] // 2


def test_cli_errors_are_one_line_without_traceback_in_a_real_process(tmp_path):
    cases = [
        (["map", "--width", "abc"], 2, "--width"),
        (["map", "--width", "0"], 1, "width"),
        (["map", "--persistence", "1e160", "--octaves", "9"], 1, "persistence"),
        (["wobble", "--seed", "18446744073709551616"], 1, "seed"),
        (["world", "--threads", "-1"], 1, "threads"),
        (["nosuch"], 2, "nosuch"),
    ]
    for argv, code, name in cases:
        out = tmp_path / "-".join(argv).replace("/", "_")
        done = subprocess.run(
            [sys.executable, "-m", "worldgen.cli", *argv, "--out", str(out)]
            if argv[0] != "nosuch"
            else [sys.executable, "-m", "worldgen.cli", *argv],
            capture_output=True,
            text=True,
            timeout=300,
        )
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert done.returncode == code, (argv, done.stderr)
        assert len(lines) == 1 and "Traceback" not in done.stderr, (argv, done.stderr)
        assert name in lines[0]
        assert not out.exists() or not any(p.is_file() for p in out.rglob("*"))
