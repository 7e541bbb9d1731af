"""Print the fuzz suite's counts at the end of the run."""

from tests.fuzz import COUNTS


def pytest_terminal_summary(terminalreporter):
    for suite, counts in COUNTS.items():
        tried, clear, accepted, other = (counts[k] for k in ("tried", "clear", "accepted", "other"))
        terminalreporter.write_line(
            f"fuzz {suite}: tried {tried}, clear {clear}, accepted {accepted}, other {other}"
        )
