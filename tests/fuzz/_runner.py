"""What both fuzzers share: hypothesis settings, the tally and the script
entry point."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, settings


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
    """Counts of outcomes, and the details of every ``other`` one."""

    def __init__(self) -> None:
        self.counts = {"tried": 0, "clear": 0, "accepted": 0, "other": 0}
        self.others: list[dict[str, str]] = []

    def add(self, kind: str, **detail: str) -> None:
        self.counts["tried"] += 1
        self.counts[kind] += 1
        if kind == "other":
            self.others.append(detail)

    def report(self) -> dict[str, Any]:
        return {"counts": self.counts, "others": self.others}


def main(run: Callable[[int], dict[str, Any]], doc: str, default: int) -> None:
    """Parse ``--examples``, run, print the report as one JSON line; exit 3
    if any outcome was ``other``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--examples", type=int, default=default, help="examples per target")
    report = run(parser.parse_args().examples)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    if report["counts"]["other"]:
        sys.exit(3)
