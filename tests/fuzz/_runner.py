"""What the fuzzers share: hypothesis settings, the tally, a watchdog and
the script entry point."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, settings

KINDS = ("clear", "accepted", "unclear", "garbage", "unbounded")
"""Outcomes: a clear error, an accepted input with a sound result, and the
three defects: an unclear error (or a crash, or a traceback), a garbage
result (non-finite numbers, leftover files) and unbounded work (past the
time budget)."""
DEFECTS = ("unclear", "garbage", "unbounded")
BUDGET = 20.0
"""CPU seconds one example may take; past it the outcome is ``unbounded``
(no input the fuzzers draw asks for that much work)."""


def fuzz_settings(examples: int) -> settings:
    """Bounded, derandomised (the same examples on every run), no database."""
    return settings(
        max_examples=examples,
        database=None,
        derandomize=True,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )


class Tally:
    """Counts of outcomes, and the details of every defect."""

    def __init__(self) -> None:
        self.counts = {"tried": 0, **{kind: 0 for kind in KINDS}}
        self.others: list[dict[str, str]] = []

    def add(self, kind: str, **detail: str) -> None:
        self.counts["tried"] += 1
        self.counts[kind] += 1
        if kind in DEFECTS:
            self.others.append({"kind": kind, **detail})

    def report(self) -> dict[str, Any]:
        counts = {**self.counts, "other": sum(self.counts[k] for k in DEFECTS)}
        return {"counts": counts, "others": self.others}


class Watchdog:
    """Ends a fuzz run whose example has run for ``limit`` seconds: the
    report so far is printed with that example counted ``unbounded``, and
    the process exits with status 3, so that no input can hang the run."""

    def __init__(self, tally: Tally, limit: float = 120.0):
        self.tally = tally
        self.limit = limit
        self.current: tuple[str, float] | None = None
        self.done = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    @contextlib.contextmanager
    def watching(self, label: str) -> Iterator[None]:
        self.current = (label, time.monotonic())
        try:
            yield
        finally:
            self.current = None

    def stop(self) -> None:
        self.done.set()

    def _watch(self) -> None:
        while not self.done.wait(0.5):
            current = self.current
            if current is not None and time.monotonic() - current[1] > self.limit:
                self.tally.add("unbounded", example=current[0],
                               detail=f"still running after {self.limit:g} s")  # fmt: skip
                json.dump(self.tally.report(), sys.stdout)
                sys.stdout.write("\n")
                sys.stdout.flush()
                os._exit(3)


def main(run: Callable[[int], dict[str, Any]], doc: str, default: int) -> None:
    """Parse ``--examples``, run, print the report as one JSON line; exit 3
    if any outcome was a defect."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--examples", type=int, default=default, help="examples per target")
    report = run(parser.parse_args().examples)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    if report["counts"]["other"]:
        sys.exit(3)
