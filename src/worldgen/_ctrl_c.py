"""Recognising Ctrl-C, however Python delivers it.

Only the standard library is used: the command line asks this while numpy
may still be half-imported.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import ModuleType


def caused_by_ctrl_c(exc: BaseException) -> bool:
    """Whether ``exc`` is a KeyboardInterrupt or was raised because of one.

    Python wraps a Ctrl-C that lands in some places of an import in another
    error: in a class body's ``__set_name__`` (numpy's ``finfo``) it becomes
    a ``RuntimeError`` whose cause is the ``KeyboardInterrupt``.
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


@contextlib.contextmanager
def ctrl_c_held(interrupt: type[KeyboardInterrupt] = KeyboardInterrupt) -> Iterator[None]:
    """Hold SIGINT until the block ends, then deliver it: as ``interrupt``
    if Python's own handler was to take it, else to the handler in place.
    Only the main thread receives signals; elsewhere the block runs as it
    is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            if previous is signal.default_int_handler:
                raise interrupt
            signal.raise_signal(signal.SIGINT)


@contextlib.contextmanager
def ctrl_c_noted() -> Iterator[list[int]]:
    """Note every SIGINT that comes while the block runs, and pass it on to
    the handler in place: a Ctrl-C whose KeyboardInterrupt Python lost
    (raised in a finalizer, which Python only prints, or caught by a
    library's ``except BaseException``) is still known when the block ends,
    and Python prints no traceback for the one it lost.
    Only the main thread receives signals; elsewhere, or under a handler
    that is not a function, nothing is noted."""
    noted: list[int] = []
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield noted
        return

    def note(signum, frame):
        noted.append(signum)
        previous(signum, frame)

    hook = sys.unraisablehook

    def quiet(unraisable):  # the lost KeyboardInterrupt: noted, not printed
        if not (noted and isinstance(unraisable.exc_value, KeyboardInterrupt)):
            hook(unraisable)

    signal.signal(signal.SIGINT, note)
    sys.unraisablehook = quiet
    try:
        yield noted
    finally:
        if sys.unraisablehook is quiet:
            sys.unraisablehook = hook
        if signal.getsignal(signal.SIGINT) is note:
            signal.signal(signal.SIGINT, previous)


def import_holding_ctrl_c(name: str) -> ModuleType:
    """The module ``name``, imported with Ctrl-C held (see
    :func:`ctrl_c_held`): for libraries whose optional imports catch
    ``BaseException`` (trimesh), which would swallow a Ctrl-C that came
    while they ran."""
    if name in sys.modules:
        return sys.modules[name]
    with ctrl_c_held():
        return importlib.import_module(name)
