"""Errors the library raises for what its users pass in."""

from __future__ import annotations


class ParameterError(ValueError):
    """A value a user gave that the library refuses: the message says which
    parameter is wrong and how to fix it; ``name`` is that parameter, when
    one is to blame. A ValueError, so code that catches those still does;
    a server answers it as the client's error, any other as its own."""

    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.name = name
