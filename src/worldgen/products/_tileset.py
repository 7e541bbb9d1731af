"""Transition tilesets: tiles drawn from the band colours, chosen by autotile masks.

A map's tile classes are height bands in order (deep water 0, shallow
water 1, sand 2, ...). A transition tileset draws each cell of band ``b``
over band ``b - 1``: where a neighbour is lower than the cell, the tile
shows the band below along that edge or corner, with a soft, wavy border.
The neighbours that count as "the same" are those of band ``b`` or above
(:func:`~worldgen.terrain.autotile_masks` with ``match="at-least"``), so a
shore is drawn once, by the higher cell, and the lower cell stays plain.

Kinds (:data:`TILESETS`):

- ``"blob47"``: the 47 "blob" tiles per band, one for each reduced
  8-neighbour mask (edges, outer and inner corners); Tiled wang set type
  ``mixed`` (edges and corners).
- ``"edge16"``: the 16 tiles per band of the 4-neighbour masks; wang set
  type ``edge``.
- ``"flat"``: one flat square per band, no transitions.

Two tiles drawn this way fit wherever their wang colours agree; that holds
for every pair of neighbours when neighbouring bands differ by at most one
(across edges for ``edge16``, across edges and corners for ``blob47``),
which is what :func:`~worldgen.terrain.limit_steps` ensures.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen.noise._generators import Fractal, Perlin, axis
from worldgen.noise._validate import check_choice, check_int
from worldgen.products._tilemap import autotile_masks, check_tiles

TILESETS = ("blob47", "edge16", "flat")

# 8-neighbour mask bits (see autotile_masks) and 4-neighbour ones.
_NW, _N, _NE, _W, _E, _SW, _S, _SE = (1 << i for i in range(8))
_N4, _E4, _S4, _W4 = 1, 2, 4, 8
# The mask bit behind each entry of a Tiled wang id, in Tiled's order: top,
# top right, right, bottom right, bottom, bottom left, left, top left
# (0: that entry is not used by the set).
_WANG_BITS = {
    "blob47": (_N, _NE, _E, _SE, _S, _SW, _W, _NW),
    "edge16": (_N4, 0, _E4, 0, _S4, 0, _W4, 0),
}


def _blob_masks() -> np.ndarray:
    """The 47 reduced 8-neighbour masks, ascending: a corner bit only with
    both edge bits beside it."""
    raw = np.arange(256)
    reduced = raw & (_N | _W | _E | _S)
    for corner, a, b in ((_NW, _N, _W), (_NE, _N, _E), (_SW, _S, _W), (_SE, _S, _E)):
        beside = ((raw & a) > 0) & ((raw & b) > 0)
        reduced |= np.where(beside, raw & corner, 0)
    return np.unique(reduced).astype(np.uint8)


BLOB_MASKS = _blob_masks()
_MASKS = {
    "blob47": BLOB_MASKS,
    "edge16": np.arange(16, dtype=np.uint8),
    "flat": np.array([0], dtype=np.uint8),
}
_WANG_TYPES = {"blob47": "mixed", "edge16": "edge", "flat": None}

# How the tiles are drawn, in tile widths: the border's mean depth, how far
# the noise moves it, and the reach of the smooth minimum (outer corners are
# rounded with radius _ROUND - _BORDER); then, in pixels, the softness of the
# blend and the width of the dark outline, its darkness and the grain.
_BORDER, _WOBBLE, _ROUND = 0.2, 0.12, 0.5
_SOFT_PX, _LINE_PX, _LINE_DARK, _GRAIN = 0.9, 1.1, 0.22, 0.05


@dataclasses.dataclass(frozen=True)
class Tileset:
    """Which tileset draws the tile map, and at what size.

    Parameters
    ----------
    kind : {'blob47', 'edge16', 'flat'}
        ``'blob47'`` (default): 47 transition tiles per band, for the
        8-neighbour masks; ``'edge16'``: 16 per band, for the 4-neighbour
        masks; ``'flat'``: one flat colour per band.
    tile_size : int
        Width and height of a tile in pixels, 4 to 256 (default 16).

    Examples
    --------
    >>> Tileset().tiles_per_band, Tileset("edge16").tiles_per_band
    (47, 16)
    """

    kind: str = "blob47"
    tile_size: int = 16

    def __post_init__(self):
        check_choice(self.kind, "tileset kind", TILESETS)
        check_int(self.tile_size, "tile_size", 4, 256)

    @property
    def tiles_per_band(self) -> int:
        """47, 16 or 1."""
        return len(_MASKS[self.kind])

    @property
    def masks(self) -> np.ndarray:
        """The autotile mask each tile of a band's row draws, ascending."""
        return _MASKS[self.kind].copy()

    @property
    def connectivity(self) -> int | None:
        """The neighbourhood whose bands must differ by at most one for every
        cell to be drawable: 8, 4, or None for ``'flat'``."""
        return {"blob47": 8, "edge16": 4, "flat": None}[self.kind]

    @property
    def wang_type(self) -> str | None:
        """Tiled's wang set type: ``'mixed'``, ``'edge'``, or None (flat)."""
        return _WANG_TYPES[self.kind]

    def tile_ids(self, tiles: np.ndarray, *, halo: int = 0) -> np.ndarray:
        """The tile of each cell: ``band * tiles_per_band + index of its mask``.

        Parameters
        ----------
        tiles : ndarray of int, shape (H + 2 * halo, W + 2 * halo)
            Band classes, cleaned up (see :func:`~worldgen.terrain.clean_tiles`).
        halo : int
            Cells cut from each side. With a halo of 1 or more the result
            equals the same window of a bigger map; at the border of the
            array, outside counts as the cell's own band.

        Returns
        -------
        ndarray of uint16, shape (H, W)

        Examples
        --------
        >>> import numpy as np
        >>> Tileset("edge16").tile_ids(np.array([[1, 1], [0, 1]])).tolist()
        [[27, 31], [15, 23]]
        """
        tiles = check_tiles(tiles)
        halo = check_int(halo, "halo", 0, 2**20)
        height, width = tiles.shape
        if min(height, width) <= 2 * halo:
            raise ValueError(f"tiles of shape {tiles.shape} hold nothing inside a halo of {halo}")
        if int(tiles.max()) * self.tiles_per_band >= 1 << 16:
            raise ValueError(f"tiles holds band {int(tiles.max())}; at most 256 bands are drawn")
        inner = (slice(halo, height - halo), slice(halo, width - halo))
        # band * tiles_per_band + index, in uint16 from the start (each id
        # fits, as checked above) and for the inner cells only.
        ids = tiles[inner].astype(np.uint16)
        if self.kind != "flat":
            index = np.zeros(256, dtype=np.uint16)
            index[_MASKS[self.kind]] = np.arange(self.tiles_per_band)
            masks = autotile_masks(tiles, connectivity=self.connectivity, match="at-least")
            ids *= np.uint16(self.tiles_per_band)
            ids += index[masks[inner]]
        return ids

    def wang_ids(self, band_count: int) -> np.ndarray:
        """Tiled wang ids of every tile, shape ``(band_count * tiles_per_band, 8)``.

        Entries follow Tiled's order (top, top right, right, bottom right,
        bottom, bottom left, left, top left); colour ``c + 1`` is band ``c``
        and 0 marks an entry the set does not use (corners of an edge set).
        A tile of band ``b`` has colour ``b + 1`` where its mask bit is set
        and ``b`` (the band below) where it is not; band 0 has no band below
        and is colour 1 all round. A flat tile is its band's colour all round.

        Examples
        --------
        >>> Tileset("edge16").wang_ids(2)[16 + 1].tolist()  # band 1, north same
        [2, 0, 1, 0, 1, 0, 1, 0]
        """
        band_count = check_int(band_count, "band_count", 1, 256)
        band = np.repeat(np.arange(band_count), self.tiles_per_band)[:, None]
        if self.kind == "flat":
            return np.repeat(band + 1, 8, axis=1).astype(np.uint16)
        bits = np.array(_WANG_BITS[self.kind], dtype=np.int64)
        same = (np.tile(_MASKS[self.kind].astype(np.int64), band_count)[:, None] & bits) != 0
        colour = np.where(same, band + 1, np.maximum(band, 1))
        return np.where(bits > 0, colour, 0).astype(np.uint16)

    def draw(self, colours: np.ndarray, *, seed: int = 0) -> np.ndarray:
        """The tileset image: one row per band, one column per tile.

        Parameters
        ----------
        colours : array of uint8, shape (bands, 3)
            The band colours, lowest band first.
        seed : int
            Seed of the noise that shapes the borders and the grain.

        Returns
        -------
        ndarray of uint8, shape (bands * tile_size, tiles_per_band * tile_size, 3)

        Notes
        -----
        Each pixel of tile (band ``b``, mask ``m``) measures its distance
        ``d`` to the tile's lower parts: the edges whose mask bit is clear
        and, for the blob set, the corner points of inner corners (both
        edges set, the corner clear). ``d`` is a circular smooth minimum of
        these distances (I. Quilez, "smooth minimum", 2013), which rounds
        outer corners and equals the plain minimum wherever a part is far,
        so borders meet their neighbours' across tile edges. The pixel shows
        band ``b - 1`` where ``d`` is below a border depth moved by periodic
        fBm noise, band ``b`` above it, with a soft blend and a thin darker
        line along the border; a second periodic noise adds grain to every
        band. Both noises repeat with the
        tile and depend only on the position in the tile, so the borders
        and the grain run on across neighbouring tiles without a seam.

        Examples
        --------
        >>> import numpy as np
        >>> Tileset("edge16", 8).draw(np.array([[0, 0, 128], [200, 200, 90]], np.uint8)).shape
        (16, 128, 3)
        """
        colours = np.asarray(colours)
        if colours.ndim != 2 or colours.shape[1] != 3 or colours.dtype != np.uint8:
            raise ValueError(
                f"colours must be a (bands, 3) uint8 array, got shape {colours.shape} "
                f"and dtype {colours.dtype}; use numpy.asarray(colours, numpy.uint8)"
            )
        size = self.tile_size
        u = (np.arange(size) + 0.5) / size
        wobble = _periodic_noise(seed, 4, size)
        grain = _periodic_noise(seed + 1, 8, size)
        upper = colours.astype(np.float64)
        lower = upper[np.maximum(np.arange(len(colours)) - 1, 0)]
        differs = np.any(upper != lower, axis=1)[:, None, None, None]
        depth = _BORDER + _WOBBLE * wobble
        soft = _SOFT_PX / size
        rows = []
        for mask in _MASKS[self.kind]:
            d = _border_distance(int(mask), self.kind, u[None, :], u[:, None])
            s = np.clip((d - depth) / (2 * soft) + 0.5, 0.0, 1.0)
            s = s * s * (3 - 2 * s)
            line = 1.0 - _LINE_DARK * np.exp(-(((d - depth) * size / _LINE_PX) ** 2))
            tile = lower[:, None, None] * (1 - s[..., None]) + upper[:, None, None] * s[..., None]
            tile = np.where(differs, tile * line[..., None], tile)
            rows.append(tile * (1 + _GRAIN * grain)[..., None])
        tiles = np.stack(rows, axis=1)  # (bands, masks, size, size, 3)
        image = tiles.transpose(0, 2, 1, 3, 4).reshape(len(colours) * size, -1, 3)
        return np.clip(np.rint(image), 0, 255).astype(np.uint8)

    def render(self, ids: np.ndarray, image: np.ndarray) -> np.ndarray:
        """Draw a tile map: each cell's tile from ``image`` (see :meth:`draw`).

        Parameters
        ----------
        ids : ndarray of int, shape (H, W)
            Tile ids (:meth:`tile_ids`).
        image : ndarray of uint8, shape (rows * tile_size, tiles_per_band * tile_size, 3)

        Returns
        -------
        ndarray of uint8, shape (H * tile_size, W * tile_size, 3)
        """
        ids = check_tiles(ids, "ids")
        size = self.tile_size
        rows, cols = image.shape[0] // size, image.shape[1] // size
        if image.shape != (rows * size, cols * size, 3) or cols != self.tiles_per_band:
            raise ValueError(
                f"image of shape {image.shape} is not a {self.kind} tileset of "
                f"{size}-pixel tiles; draw it with Tileset.draw"
            )
        if int(ids.max()) >= rows * cols:
            raise ValueError(f"ids hold tile {int(ids.max())}; the tileset has {rows * cols}")
        stack = image.reshape(rows, size, cols, size, 3).transpose(0, 2, 1, 3, 4)
        out = stack.reshape(rows * cols, size, size, 3)[ids]
        height, width = ids.shape
        return np.ascontiguousarray(out.transpose(0, 2, 1, 3, 4)).reshape(
            height * size, width * size, 3
        )


def _periodic_noise(seed: int, period: int, size: int) -> np.ndarray:
    """fBm in about [-1, 1] on the tile's pixel centres, repeating with the tile."""
    fractal = Fractal(Perlin(seed=seed, period=period), octaves=3, persistence=0.5, lacunarity=2)
    coords = axis(0.5 * period / size, size, period / size)
    return fractal.grid(coords, coords)


def _smooth_min(a: np.ndarray, b: np.ndarray, k: float) -> np.ndarray:
    # Circular smooth minimum: exactly min(a, b) once either is k or more;
    # where both are below k, the level sets are arcs round (k, k).
    return np.maximum(k, np.minimum(a, b)) - np.hypot(np.maximum(k - a, 0), np.maximum(k - b, 0))


def _border_distance(mask: int, kind: str, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Distance (in tile widths) from pixel (u, v) to the parts of the tile
    that show the band below, for one mask; +inf where there are none."""
    if kind == "flat":
        n = e = s = w = True
        corners = ()
    elif kind == "edge16":
        n, e, s, w = (bool(mask & bit) for bit in (_N4, _E4, _S4, _W4))
        corners = ()
    else:
        n, e, s, w = (bool(mask & bit) for bit in (_N, _E, _S, _W))
        corners = (
            (n and w and not mask & _NW, u, v),
            (n and e and not mask & _NE, 1 - u, v),
            (s and w and not mask & _SW, u, 1 - v),
            (s and e and not mask & _SE, 1 - u, 1 - v),
        )
    parts = [dist for same, dist in ((n, v), (e, 1 - u), (s, 1 - v), (w, u)) if not same]
    parts += [np.hypot(du, dv) for inner, du, dv in corners if inner]
    shape = np.broadcast_shapes(u.shape, v.shape)
    if not parts:
        return np.full(shape, np.inf)
    d = np.broadcast_to(parts[0], shape).astype(np.float64)
    for part in parts[1:]:
        d = _smooth_min(d, np.broadcast_to(part, shape), _ROUND)
    return d
