"""Landscape evolution: uplift and stream-power erosion over the drainage tree.

The drainage of a region (:mod:`~worldgen.world._drainage`) runs on a
surface shaped by a few steps of landscape evolution, so that its rivers
follow dendritic valleys between divides instead of the raw slopes of the
model's noise. Each step, on a surface whose every node but the fixed ones
(the outlets: sea, other regions) has a strictly lower neighbour:

1. Receivers: each node drains to its steepest lower neighbour (D8).
2. The stack: the fixed nodes that receive water, then their donors, breadth
   first, so every node comes after its receiver (an O(n) walk of the tree).
3. Drainage area, summed from the stack's end to its start.
4. Uplift and stream-power erosion, ``dh/dt = U - K A^m S`` (``n = 1``),
   implicit in time and solved node by node from the outlets upward:
   ``h_i = (h_i + U_i + F h_r) / (1 + F)`` with ``F = K A_i^m / d_ir``
   (``A`` in nodes, ``d`` in node spacings, ``K`` per step), unconditionally
   stable and O(n).
5. Depressions never form: a node that would fall to its receiver's height
   is kept ``epsilon`` above it (a lake filled at once), so the next
   step's receivers exist without a new priority flood.

The uplift is given per node and step; :mod:`~worldgen.world._drainage`
makes it proportional to the model's (filled) elevation, so ranges stay
where the world model puts them and rise against erosion while valleys cut
into them.

References (the algorithms; this is our own code):

- J. Braun and S. D. Willett, "A very efficient O(n), implicit and parallel
  method to solve the stream power equation governing fluvial incision and
  landscape evolution", Geomorphology 180-181, 170-179, 2013: the stack
  order, the O(n) implicit update.
- G. Cordonnier, J. Braun, M.-P. Cani, B. Benes, E. Galin, A. Peytavie and
  E. Guerin, "Large Scale Terrain Generation from Tectonic Uplift and
  Fluvial Erosion", Computer Graphics Forum 35(2), 2016: terrains for worlds
  made by uplift against stream-power erosion.
- R. Barnes, C. Lehman and D. Mulla, "Priority-Flood: An optimal
  depression-filling and watershed-labeling algorithm", Computers &
  Geosciences 62, 2014: the filled surface the evolution starts from.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from worldgen._jit import kernel
from worldgen.world import _scratch

STEPS = 10  # steps of evolution
ERODIBILITY = 0.4  # K per step, for areas in nodes and lengths in spacings
AREA_EXPONENT = 0.45  # m
_OFFSETS = np.array(
    [[0, 1], [1, 1], [1, 0], [1, -1], [0, -1], [-1, -1], [-1, 0], [-1, 1]], dtype=np.int64
)
_OFFSETS.flags.writeable = False


def _check_number(value: object, name: str, low: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number >= {low}, got {value!r}")
    out = float(value)
    if not (math.isfinite(out) and out >= low):
        raise ValueError(f"{name} must be a finite number >= {low}, got {value!r}")
    return out


def evolve(
    heights: np.ndarray,
    fixed: np.ndarray,
    *,
    uplift: np.ndarray,
    erodibility: float = ERODIBILITY,
    area_exponent: float = AREA_EXPONENT,
    steps: int = STEPS,
    epsilon: float = 1e-3,
) -> np.ndarray:
    """Heights after ``steps`` steps of uplift and stream-power erosion.

    Parameters
    ----------
    heights : array_like, shape (H, W)
        Finite heights on which every node that is not ``fixed`` has a
        strictly lower neighbour, e.g. filled by
        :func:`~worldgen.terrain.fill_depressions` with ``epsilon > 0``.
    fixed : array_like of bool, shape (H, W)
        Outlets: nodes that keep their heights and take the water of their
        donors. The border is always fixed.
    uplift : array_like, shape (H, W)
        Height added to each node at each step (>= 0 where not fixed).
    erodibility : float
        ``K`` of ``F = K A^m / d`` per step (>= 0; default
        :data:`ERODIBILITY`), ``A`` in nodes and ``d`` in node spacings.
    area_exponent : float
        ``m`` (>= 0; default :data:`AREA_EXPONENT`).
    steps : int
        Steps of evolution (>= 0; default :data:`STEPS`).
    epsilon : float
        The least drop from a node to its receiver (> 0).

    Returns
    -------
    numpy.ndarray, float64, shape (H, W)
        The evolved heights: equal to ``heights`` at fixed nodes; every
        other node at least ``epsilon`` above its steepest lower neighbour,
        which it has.

    Raises
    ------
    TypeError, ValueError
        If an input has the wrong type, shape or range (the message names
        it).

    Notes
    -----
    See the module docstring: Braun and Willett (2013), Cordonnier et al.
    (2016).

    Examples
    --------
    >>> import numpy as np
    >>> ramp = np.tile(np.arange(5.0), (3, 1))
    >>> fixed = np.zeros((3, 5), bool)
    >>> out = evolve(ramp, fixed, uplift=np.zeros((3, 5)), steps=3)
    >>> bool((out <= ramp).all()), bool(out[1, 0] == ramp[1, 0])
    (True, True)
    """
    h = np.array(heights, dtype=np.float64, copy=True)
    if h.ndim != 2 or h.size == 0 or not np.isfinite(h).all():
        raise ValueError("heights must be a finite non-empty 2-D array")
    fx = np.array(fixed, dtype=np.bool_, copy=True)
    up = np.ascontiguousarray(uplift, dtype=np.float64)
    for name, value in (("fixed", fx), ("uplift", up)):
        if value.shape != h.shape:
            raise ValueError(f"{name} must have the shape of heights {h.shape}, got {value.shape}")
    if not np.isfinite(up).all():
        raise ValueError("uplift must be finite")
    k = _check_number(erodibility, "erodibility", 0.0)
    m = _check_number(area_exponent, "area_exponent", 0.0)
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 0:
        raise ValueError(f"steps must be an integer >= 0, got {steps!r}")
    eps = _check_number(epsilon, "epsilon", 0.0)
    if eps <= 0.0:
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}")
    fx[0, :] = fx[-1, :] = fx[:, 0] = fx[:, -1] = True
    # Node indices in 32 bits where they fit: the walks below are bound by
    # memory, and half the bytes is most of their time.
    index = np.int32 if h.size < 2**31 else np.int64
    active = np.flatnonzero(~fx).astype(index)
    n = h.size
    # The walks' arrays (see _evolve), from the scratch pool where one is
    # in use (a region's drainage is solved in one).
    nodes = tuple(_scratch.empty(n, index) for _ in range(6))
    flags = tuple(_scratch.empty(n, np.bool_) for _ in range(2))
    heights = _scratch.empty(n)
    power = _scratch.empty(active.size + 1)
    _evolve(h, fx, up, k, m, int(steps), eps, active, _OFFSETS, *nodes, *flags, heights, power)
    return h


@kernel
def _evolve(h, fixed, uplift, erodibility, m, steps, epsilon, active, offsets, receiver, first,
            after, stack, below, area, diagonal_to, root, new, power):  # fmt: skip
    # ``active``: the nodes that are not fixed, ascending, of the integer
    # type of the node arrays (receiver to area, one entry a node; their
    # values, and those of the flags and of new and power, are set here).
    width = h.shape[1]
    flat = h.ravel()
    fix = fixed.ravel()
    up = uplift.ravel()
    count = active.size
    receiver[:] = -1
    diagonal_to[:] = False  # whether a node's receiver is diagonal
    first[:] = -1  # donors as linked lists
    after[:] = -1
    # By position in the stack: where the entry's receiver is in it
    # (below), the entry's area (a whole number of nodes, summed exactly in
    # integers) and its new height. The walks below then read the
    # receiver's area and height from a position that only moves forward,
    # not from a node anywhere in the region.
    root[:] = False
    diagonal = math.sqrt(2.0)
    # An active node's area is at most ``count`` nodes: A^m is read from a
    # table, each entry the pow of its area made the first time an area
    # needs it (a few thousand areas occur, of up to ``count``).
    power[:] = -1.0
    # Neighbours as offsets into the flat array: no active node is on the
    # border (the border is fixed), so every neighbour exists.
    delta = np.empty(8, np.int64)
    for k in range(8):
        delta[k] = offsets[k, 0] * width + offsets[k, 1]
    for _ in range(steps):
        # Receivers: the steepest drop (none only if the caller's promise
        # of a lower neighbour is broken: then the node is a root).
        for a in range(count):
            p = active[a]
            hp = flat[p]
            best = 0.0
            to = -1
            d = False
            for k in range(8):
                q = p + delta[k]
                if (k & 1) == 0:
                    drop = hp - flat[q]
                    if drop > best:
                        best = drop
                        to = q
                        d = False
                else:
                    drop = (hp - flat[q]) / diagonal
                    if drop > best:
                        best = drop
                        to = q
                        d = True
            if to >= 0:
                diagonal_to[p] = d
            receiver[p] = to
        # Roots first, then donors breadth first.
        top = 0
        for a in range(count):
            p = active[a]
            r = receiver[p]
            first[p] = -1
            if r < 0:
                stack[top] = p
                top += 1
            else:
                first[r] = -1
                if fix[r] and not root[r]:
                    root[r] = True
                    stack[top] = r
                    top += 1
        roots = top
        for a in range(count - 1, -1, -1):
            p = active[a]
            r = receiver[p]
            if r >= 0:
                after[p] = first[r]
                first[r] = p
        head = 0
        while head < top:
            p = stack[head]
            area[head] = 1
            q = first[p]
            while q >= 0:
                stack[top] = q
                below[top] = head
                top += 1
                q = after[q]
            head += 1
        for t in range(top - 1, roots - 1, -1):
            area[below[t]] += area[t]
        # Implicit stream power, receivers before donors.
        for t in range(roots):
            new[t] = flat[stack[t]]
        for t in range(roots, top):
            p = stack[t]
            a = area[t]
            pw = power[a]
            if pw < 0.0:
                pw = float(a) ** m
                power[a] = pw
            f = erodibility * pw / (diagonal if diagonal_to[p] else 1.0)
            hr = new[below[t]]
            v = (flat[p] + up[p] + f * hr) / (1.0 + f)
            floor = hr + epsilon
            v = v if v > floor else floor
            new[t] = v
            flat[p] = v
        for t in range(roots):
            root[stack[t]] = False
