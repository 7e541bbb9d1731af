"""Recognising Ctrl-C, however Python delivers it.

Only the standard library is used: the command line asks this while numpy
may still be half-imported.
"""

from __future__ import annotations


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
