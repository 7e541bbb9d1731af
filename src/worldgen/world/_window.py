"""Windows: which part of a map's pixel grid to make."""

from __future__ import annotations

import dataclasses

from worldgen.noise._validate import check_int

_BIG = 2**40

REACH = 2**39
"""How far from the world's centre, in cells, a product's window may start:
half a window's reach, so that the margins and halos products grow their
windows by stay within it."""


@dataclasses.dataclass(frozen=True)
class Window:
    """A rectangle of a map's pixel grid: columns ``x``, ``x + step``, ...,
    ``x + (width - 1) * step`` and rows ``y`` to ``y + (height - 1) * step``.

    ``step`` (default 1) samples the grid coarser, e.g. for the lower zoom
    levels of a tile pyramid. A :class:`~worldgen.world.NoiseMap` samples
    the same pixels as an unstepped window; the world's fields
    (:func:`~worldgen.world.world_fields`) stand each sample for the block
    of ``step x step`` cells from it, band-limited (see
    :mod:`~worldgen.world._lod`), so they equal the crop of a bigger window
    at the same step, not the samples of an unstepped one.

    Windows may lie partly or wholly outside the map's nominal size: maps are
    defined on the whole plane, so a window of a big map made alone equals
    the same rectangle cut out of the big map.

    Examples
    --------
    >>> Window(256, 0, 256, 256).shape
    (256, 256)
    """

    x: int = 0
    y: int = 0
    width: int = 1
    height: int = 1
    step: int = 1

    def __post_init__(self):
        # Kept as Python integers: numpy's overflow in the window's
        # arithmetic (a strip's origin, a halo) would move its samples.
        for name, low, high in (
            ("x", -_BIG, _BIG), ("y", -_BIG, _BIG), ("width", 1, 2**20),
            ("height", 1, 2**20), ("step", 1, 2**30),
        ):  # fmt: skip
            object.__setattr__(
                self, name, check_int(getattr(self, name), f"window {name}", low, high)
            )

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)``, the shape of the arrays made for it."""
        return (self.height, self.width)

    def grown(self, cells: int) -> Window:
        """This window with ``cells`` more samples on every side (its halo),
        at the same step.

        Examples
        --------
        >>> Window(10, 20, 4, 3).grown(1)
        Window(x=9, y=19, width=6, height=5, step=1)
        >>> Window(10, 20, 4, 3, step=4).grown(1)
        Window(x=6, y=16, width=6, height=5, step=4)
        """
        cells = check_int(cells, "halo", 0, 2**20)
        s = self.step
        return Window(
            self.x - cells * s,
            self.y - cells * s,
            self.width + 2 * cells,
            self.height + 2 * cells,
            s,
        )

    def tiles(self, size: int) -> list[Window]:
        """Split into tiles of ``size`` x ``size`` (smaller at the far edges),
        row by row."""
        size = check_int(size, "tile size", 1, 2**20)
        s = self.step
        return [
            Window(
                self.x + i * s,
                self.y + j * s,
                min(size, self.width - i),
                min(size, self.height - j),
                s,
            )
            for j in range(0, self.height, size)
            for i in range(0, self.width, size)
        ]
