"""Writing files: atomically, in formats other tools open (PNG for now)."""

from worldgen.io._atomic import atomic_output
from worldgen.io._image import write_grey_png

__all__ = ["atomic_output", "write_grey_png"]
