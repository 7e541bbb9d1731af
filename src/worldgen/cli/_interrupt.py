"""What the command line says when Ctrl-C stops it.

Nothing here imports more than the standard library: Ctrl-C during the
start-up (the imports of typer, numpy and numba take a few tenths of a
second) is answered from here, before the rest is loaded.
"""

from __future__ import annotations

import os
import sys

from worldgen._ctrl_c import caused_by_ctrl_c

__all__ = [
    "INTERRUPTED",
    "caused_by_ctrl_c",
    "keep_ctrl_c",
    "outcome",
    "raise_kept_ctrl_c",
    "stopped_early",
]

INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT)."""

SAVED = "after the new set was saved; the output directory holds it, complete"
KEPT = "the output directory keeps its previous files"
NOTHING = "nothing was written"


def outcome(exc: BaseException, store: os.PathLike | None = None) -> str:
    """What a Ctrl-C (``exc``) left in the output directory; ``store``: a
    chunk store the command keeps whatever happens (worldgen world)."""
    # Not imported here: Ctrl-C may have cut numpy's import short, which
    # cannot be tried again. Without the module no set was begun.
    outset = sys.modules.get("worldgen.io._outset")
    if outset is None or not isinstance(exc, outset.UnsavedInterrupt | outset.SavedInterrupt):
        return NOTHING  # before any set was begun
    if isinstance(exc, outset.SavedInterrupt):  # Ctrl-C as the set was swapped in
        return SAVED
    said = KEPT if exc.had_files else NOTHING if store is None else "no set was written"
    if store is not None:
        said += f"; the chunk store {os.fspath(store)} keeps the chunks made so far"
    return said


def stopped_early() -> SystemExit:
    """Say that Ctrl-C stopped the start-up; the exit to raise."""
    sys.stderr.write(f"interrupted: {NOTHING}\n")
    sys.stderr.flush()
    return SystemExit(INTERRUPTED)


_kept = [False]


def keep_ctrl_c(unraisable) -> None:
    """``sys.unraisablehook``: a Ctrl-C that lands in code Python cannot
    raise from (the weakref callback of an import's module lock, a
    ``__del__``) was printed as "Exception ignored ... KeyboardInterrupt"
    and lost; it is kept instead, for :func:`raise_kept_ctrl_c`. Everything
    else goes to Python's own hook."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        _kept[0] = True
        return
    sys.__unraisablehook__(unraisable)


def raise_kept_ctrl_c() -> None:
    """Raise the Ctrl-C :func:`keep_ctrl_c` kept, if there is one (the
    start-up's end and each stage of the work check)."""
    if _kept[0]:
        _kept[0] = False
        raise KeyboardInterrupt
