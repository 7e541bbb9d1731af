"""Print the fuzz suite's counts at the end of the run."""

from tests.fuzz import COUNTS
from tests.fuzz._runner import KINDS


def pytest_terminal_summary(terminalreporter):
    for suite, counts in COUNTS.items():
        terminalreporter.write_line(
            f"fuzz {suite}: " + ", ".join(f"{kind} {counts[kind]}" for kind in ("tried", *KINDS))
        )
