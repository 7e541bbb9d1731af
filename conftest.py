"""Test-wide set-up, loaded before anything imports numba.

Numba's cache notices edits only in the file of the function it compiled, not
in the helpers it inlined from other files. Keying the cache directory by the
package's source keeps test runs from ever reusing stale machine code.
"""

import hashlib
import os
import pathlib
import signal

from hypothesis import settings

_ROOT = pathlib.Path(__file__).resolve().parent
_digest = hashlib.sha256()
for _path in sorted((_ROOT / "src" / "worldgen").rglob("*.py")):
    _digest.update(_path.read_bytes())
os.environ.setdefault("NUMBA_CACHE_DIR", str(_ROOT / ".numba_cache" / _digest.hexdigest()[:16]))

# Compilation makes first examples slow; results, not timings, are tested.
settings.register_profile("default", deadline=None, max_examples=60)
settings.load_profile("default")

# A run started in the background by a shell without job control (``cmd &``)
# inherits SIGINT ignored, and so would every command it starts; the Ctrl-C
# tests need it heard (a Python handler is reset to the default in children).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
