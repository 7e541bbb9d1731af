"""Windows: which part of a map's pixel grid to make."""

from __future__ import annotations

import dataclasses

from worldgen.noise._validate import check_int

_BIG = 2**40


@dataclasses.dataclass(frozen=True)
class Window:
    """A rectangle of a map's pixel grid: columns ``x`` to ``x + width - 1``,
    rows ``y`` to ``y + height - 1``.

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

    def __post_init__(self):
        check_int(self.x, "window x", -_BIG, _BIG)
        check_int(self.y, "window y", -_BIG, _BIG)
        check_int(self.width, "window width", 1, 2**20)
        check_int(self.height, "window height", 1, 2**20)

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)``, the shape of the arrays made for it."""
        return (self.height, self.width)

    def grown(self, cells: int) -> Window:
        """This window with ``cells`` more on every side (its halo).

        Examples
        --------
        >>> Window(10, 20, 4, 3).grown(1)
        Window(x=9, y=19, width=6, height=5)
        """
        cells = check_int(cells, "halo", 0, 2**20)
        return Window(
            self.x - cells, self.y - cells, self.width + 2 * cells, self.height + 2 * cells
        )

    def tiles(self, size: int) -> list[Window]:
        """Split into tiles of ``size`` x ``size`` (smaller at the far edges),
        row by row."""
        size = check_int(size, "tile size", 1, 2**20)
        return [
            Window(self.x + i, self.y + j, min(size, self.width - i), min(size, self.height - j))
            for j in range(0, self.height, size)
            for i in range(0, self.width, size)
        ]
