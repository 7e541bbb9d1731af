"""The fuzz suite: bad and edge inputs to every public function, every
command and the explorer's server (bad requests and bad clients); each must
give a clear error naming the parameter, or a sound result, within a time
budget (see library.py, cli.py and server.py)."""

# Counts of the fuzz runs in this session, printed by conftest.py.
COUNTS: dict[str, dict[str, int]] = {}
