"""Height fields as triangle meshes: vertices, faces, normals and UVs."""

from __future__ import annotations

import dataclasses

import numpy as np

from worldgen._checks import finite_values
from worldgen._jit import kernel
from worldgen.noise._validate import check_bool, check_int, check_positive, check_real
from worldgen.world._shaping import HeightCurve


@dataclasses.dataclass
class Mesh:
    """A triangle mesh of a height field.

    Attributes
    ----------
    vertices : float64 (N, 3)
        ``(x, y, z)`` with y up (glTF's convention): ``x`` = column * cell
        size (east), ``z`` = row * cell size (south), ``y`` = the curved,
        multiplied height.
    faces : int64 (M, 3)
        Vertex indices, counter-clockwise seen from above, so face normals
        point up (+y).
    normals : float64 (N, 3)
        Unit vertex normals from the height field's central differences.
    uvs : float64 (N, 2)
        Texture coordinates with the origin at the image's bottom-left (as
        OBJ and trimesh use): the map's top-left pixel is ``(0, 1)``.
    """

    vertices: np.ndarray
    faces: np.ndarray
    normals: np.ndarray
    uvs: np.ndarray


def _lod_indices(size: int, stride: int) -> np.ndarray:
    idx = np.arange(0, size, stride)
    return idx if idx[-1] == size - 1 else np.append(idx, size - 1)


def heightfield_mesh(
    heights: np.ndarray,
    *,
    multiplier: float = 1.0,
    curve: HeightCurve | None = None,
    cell_size: float = 1.0,
    stride: int = 1,
    border: bool = False,
) -> Mesh:
    """Triangulate a height field: one vertex per sample, two triangles per cell.

    Parameters
    ----------
    heights : ndarray, shape (H, W)
        Finite heights; with ``border=True`` an extra ring of one sample on
        every side, used only for the normals.
    multiplier : float
        Vertical scale: a vertex stands ``curve(h) * multiplier`` high.
    curve : HeightCurve, optional
        Remaps heights first (e.g. flat below 0.4 so the sea stays level).
    cell_size : float
        Horizontal distance between samples, in world units (> 0).
    stride : int
        Level of detail: keep every ``stride``-th sample along each axis
        (the last row and column are always kept, so chunk edges still
        meet); 1 keeps all.
    border : bool
        Whether ``heights`` carries a one-sample border. Normals are central
        differences of the full-resolution field; with the border they are
        exact at the edges too, so neighbouring chunks made from windows
        with a shared halo have identical normals on their shared edge.
        Without it, edge normals use one-sided differences.

    Returns
    -------
    Mesh
        ``W * H`` vertices and ``2 (W - 1)(H - 1)`` faces at stride 1.

    Examples
    --------
    >>> m = heightfield_mesh(np.zeros((3, 4)))
    >>> m.vertices.shape, m.faces.shape
    ((12, 3), (12, 3))
    >>> m.normals[0].tolist()
    [0.0, 1.0, 0.0]
    """
    surface = heightfield_surface(
        heights, multiplier=multiplier, curve=curve, cell_size=cell_size, stride=stride,
        border=border,
    )  # fmt: skip
    return surface.mesh()


@dataclasses.dataclass(frozen=True, eq=False)
class Surface:
    """A height field ready to triangulate, whose mesh is made a band of
    rows at a time (so that a big mesh can be written without holding all
    of it; every band's values are those of the whole mesh).

    Attributes
    ----------
    y : float64 (H, W)
        Curved, multiplied heights of the full-resolution field.
    gx, gz : float64 (H, W)
        Their slopes east and south (central differences).
    rows, cols : int64
        The field's rows and columns kept at the level of detail.
    cell : float
        Horizontal distance between samples.
    """

    y: np.ndarray
    gx: np.ndarray
    gz: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    cell: float

    @property
    def shape(self) -> tuple[int, int]:
        """Vertex rows and columns of the mesh."""
        return len(self.rows), len(self.cols)

    def vertices(self, r0: int, r1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Vertices, normals and UVs of vertex rows ``r0 .. r1 - 1`` (see
        :class:`Mesh`), row after row."""
        rows, cols, cell = self.rows[r0:r1], self.cols, self.cell
        if len(cols) == self.y.shape[1]:
            grid = rows  # every column: a row slice, no gather
        else:
            grid = np.ix_(rows, cols)
        ys, gxs, gzs = self.y[grid], self.gx[grid], self.gz[grid]
        zz, xx = np.meshgrid(rows * cell, cols * cell, indexing="ij")
        vertices = np.stack([xx.ravel(), ys.ravel(), zz.ravel()], axis=1)
        normals = np.stack([0.0 - gxs.ravel(), np.ones(ys.size), 0.0 - gzs.ravel()], axis=1)
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        u = cols / (self.y.shape[1] - 1)
        v = 1.0 - rows / (self.y.shape[0] - 1)
        vv, uu = np.meshgrid(v, u, indexing="ij")
        uvs = np.stack([uu.ravel(), vv.ravel()], axis=1)
        return vertices, normals, uvs

    def mesh(self) -> Mesh:
        """The whole mesh."""
        vertices, normals, uvs = self.vertices(0, self.shape[0])
        return Mesh(vertices, self.faces(0, self.shape[0] - 1), normals, uvs)

    def faces(self, r0: int, r1: int) -> np.ndarray:
        """Faces (int64 vertex indices, two per cell, see :class:`Mesh`) of
        the cells between vertex rows ``r0 .. r1`` (``r1`` at most the last
        row), cell after cell."""
        nx = len(self.cols)
        index = np.arange(r0 * nx, (r1 + 1) * nx).reshape(r1 + 1 - r0, nx)
        a = index[:-1, :-1].ravel()  # (row, col)
        b = index[:-1, 1:].ravel()  # (row, col + 1): east
        c = index[1:, :-1].ravel()  # (row + 1, col): south
        d = index[1:, 1:].ravel()
        faces = np.empty((2 * a.size, 3), dtype=np.int64)
        faces[0::2] = np.stack([a, c, b], axis=1)
        faces[1::2] = np.stack([b, c, d], axis=1)
        return faces


def heightfield_surface(
    heights: np.ndarray,
    *,
    multiplier: float = 1.0,
    curve: HeightCurve | None = None,
    cell_size: float = 1.0,
    stride: int = 1,
    border: bool = False,
) -> Surface:
    """The :class:`Surface` that :func:`heightfield_mesh` triangulates (same
    parameters and errors)."""
    h = finite_values(heights, "heights")
    border = check_bool(border, "border")
    # Two samples each way inside the border, so that UVs span [0, 1].
    low = 4 if border else 2
    if h.ndim != 2 or min(h.shape) < low:
        raise ValueError(
            f"heights must be a 2-D array with at least {low} samples each way"
            f"{' (border included)' if border else ''}, got shape {h.shape}"
        )
    multiplier = check_real(multiplier, "multiplier")
    cell = check_positive(cell_size, "cell_size")
    stride = check_int(stride, "stride", 1, 2**20)
    if curve is not None and not isinstance(curve, HeightCurve):
        raise TypeError(f"curve must be a HeightCurve, got {type(curve).__name__}")
    if not cell * (max(h.shape) - 1) <= 1e300:  # the farthest vertex stays finite
        raise ValueError(
            f"cell_size={cell!r} puts the mesh's far edge beyond 1e300 ({max(h.shape)} samples "
            "a side); use a smaller cell_size"
        )

    with np.errstate(over="ignore"):
        y = (curve(h) if curve is not None else h) * multiplier
    if not _within(y, 1e300):  # also keeps the slopes finite
        raise ValueError(
            f"heights * multiplier overflows (multiplier={multiplier!r}): vertex heights "
            "must stay within +-1e300; lower the multiplier"
        )
    # Central differences of the full field; the border (or one-sided
    # differences at the edge) supplies the neighbours of edge samples.
    with np.errstate(over="ignore", invalid="ignore"):
        if border:
            gx = (y[1:-1, 2:] - y[1:-1, :-2]) / (2.0 * cell)
            gz = (y[2:, 1:-1] - y[:-2, 1:-1]) / (2.0 * cell)
            y = y[1:-1, 1:-1]
            within = _within(gx, 1e150) and _within(gz, 1e150)
        else:
            gx, gz = np.empty_like(y), np.empty_like(y)
            within = _gradients(y, cell, 1e150, gx, gz)
    # Slopes beyond 1e150 would overflow the normals' squares.
    if not within:
        raise ValueError(
            f"heights * multiplier / cell_size give slopes beyond 1e150 (multiplier="
            f"{multiplier!r}, cell_size={cell!r}); lower the multiplier or raise cell_size"
        )
    rows = _lod_indices(y.shape[0], stride)
    cols = _lod_indices(y.shape[1], stride)
    return Surface(y, gx, gz, rows, cols, cell)


@kernel
def _gradients(y, cell, bound, gx, gz):
    # np.gradient(y, cell) (gz along rows, gx along columns: central
    # differences inside, one-sided at the edges, the same arithmetic) in
    # one pass of rows, each in loops without branches, which vectorise;
    # whether every slope lies within +-bound (False for NaN).
    rows, cols = y.shape
    twice = 2.0 * cell
    within = True
    for r in range(rows):
        up, down = max(r - 1, 0), min(r + 1, rows - 1)
        across = twice if 0 < r < rows - 1 else cell
        row, row_x, row_z = y[r], gx[r], gz[r]
        above, below = y[up], y[down]
        row_x[0] = (row[1] - row[0]) / cell
        for c in range(1, cols - 1):
            row_x[c] = (row[c + 1] - row[c - 1]) / twice
        row_x[cols - 1] = (row[cols - 1] - row[cols - 2]) / cell
        for c in range(cols):
            row_z[c] = (below[c] - above[c]) / across
        for c in range(cols):
            if not (-bound <= row_x[c] <= bound and -bound <= row_z[c] <= bound):
                within = False
    return within


def _within(values: np.ndarray, bound: float) -> bool:
    """Whether every value lies within +-``bound`` (False for NaN), by the
    least and greatest value: no temporaries of the array's size."""
    return bool(-bound <= values.min() and values.max() <= bound)
