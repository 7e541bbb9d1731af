"""The fuzz suite: bad and edge inputs to every public function and every
command; each must give a clear error naming the parameter, or a finite
result (see library.py and cli.py)."""

# Counts of the fuzz runs in this session, printed by conftest.py.
COUNTS: dict[str, dict[str, int]] = {}
