"""Memory a request needs, estimated before the work, and refused if it does
not fit.

Each product's estimate is its measured peak (resident memory above the
interpreter's, on 512 x 512 and 1024 x 1024 maps, 64- and 128-block worlds,
160 x 160 and 320 x 320 animations) per cell, chunk or pixel, rounded up by
about a sixth; ``tests/test_robust_io.py`` holds each estimate between the
measured peak and twice it.
"""

from __future__ import annotations

import os
import re

from worldgen._errors import ParameterError

MAP_BYTES_PER_CELL = 280
"""A map set (:func:`worldgen.io.write_map_set`): about 150-250 bytes per cell
(heights with the tile halo, pictures, transition tiles)."""
TERRAIN_BYTES_PER_CELL = 176
"""A terrain set (:func:`worldgen.io.write_terrain_set`): about 150 bytes per
cell from 1024 x 1024 up (110 at 4096 x 4096); smaller maps need more per
cell (the erosion halo around them), but little in all."""
MESH_BYTES_PER_VERTEX = {"glb": 0, "obj": 0, "ply": 250, "stl": 670}
"""A terrain set's mesh, more than :data:`TERRAIN_BYTES_PER_CELL`, per
vertex: a GLB or an OBJ is made and written a band of rows at a time
(nothing more); trimesh writes the others from the whole mesh (about 570
bytes a vertex more for the STL, 210 for the PLY, at 1024 x 1024 and 2048 x
2048). An OBJ through trimesh, as one string of every number, took 1,250
more."""
WORLD_CHUNK_COPIES = 3.5
"""A world set holds each chunk's blocks about 3 times (the chunks, the
assembled block array and the pictures; an export's surface masks are made
a slab of rows at a time)."""
MESH_CHUNK_COPIES = 6.0
"""A world set's block mesh (``region.glb``), more than
:data:`WORLD_CHUNK_COPIES`, per chunk meshed: the greedy mesh's quads, its
parts and trimesh's GLB came to about 3.8 copies of each chunk's blocks
with a mesh radius of 512, 4.1 at 256, 4.8 at 128 (tracemalloc, around
0, 0); a 512-block mesh peaked at 2.1 GB after an estimate of 1.1 GB that
left it out."""
GENERATOR_THREAD_BYTES = 20 * 2**20
"""A world set's generator thread making a chunk, more than the chunks it
holds: 14-17 MB each, measured (resident memory with 16 and 64 threads
at work; 128 threads over 64 chunks took 1.3 GB against 390 MB for one),
which :data:`WORLD_CHUNK_COPIES` left out."""
VOX_CHUNK_COPIES = 1.0
"""The ``.vox`` export holds a mask of the visible blocks besides (a byte a
block) and their voxels: at radius 256 about 3.1 copies in all, measured
(tracemalloc), 0.71 of the estimate; at 128, 0.9 of it. (Before its masks
were made a slab at a time it took 5.7 copies, 1.7 times the estimate.)"""
ANIMATION_BYTES_PER_PIXEL = 32
"""An animation (:func:`worldgen.motion.preset_frames` and its GIF): about
27 bytes per pixel of every frame."""

_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


class MemoryLimitError(ParameterError):
    """A request would need more memory than the machine has available (a
    :class:`~worldgen.ParameterError`: the parameters that set the size are
    what to change)."""


def available_memory() -> int | None:
    """Bytes a request may use: ``$WORLDGEN_MEMORY_LIMIT`` if set (a number
    of bytes, or with a K, M, G or T suffix), else the memory the system
    reports available (Linux ``MemAvailable``), else the physical memory,
    else None (no limit known)."""
    return memory_limit()[0]


def memory_limit() -> tuple[int | None, str]:
    """:func:`available_memory` and where it came from: ``'setting'``
    (``$WORLDGEN_MEMORY_LIMIT``), ``'available'`` (measured), ``'physical'``
    (all the machine has) or ``'unknown'``."""
    limit = os.environ.get("WORLDGEN_MEMORY_LIMIT", "").strip()
    if limit:
        match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?", limit.lower())
        if match is None:
            raise ParameterError(
                f"WORLDGEN_MEMORY_LIMIT must be a size such as 8G or 512M, got {limit!r}",
                "WORLDGEN_MEMORY_LIMIT",
            )
        return int(float(match[1]) * _UNITS[match[2]]), "setting"
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024, "available"
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "physical"
    except (AttributeError, ValueError, OSError):
        return None, "unknown"


def size_text(count: float) -> str:
    """``count`` bytes for people: ``'1.5 GB'``."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if count < 1024 or unit == "TB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError  # pragma: no cover


def check_memory(need: float, parameter: str, request: str, way_out: str) -> None:
    """Refuse a request that needs more memory than is available.

    Parameters
    ----------
    need : float
        Estimated bytes.
    parameter : str
        The parameter(s) that set the size, named in the error.
    request : str
        What was asked for, e.g. ``"a 50000 x 50000 map set"``.
    way_out : str
        What to do instead.

    Raises
    ------
    MemoryLimitError
        A :class:`ValueError` naming the parameter, the estimate, the limit
        and where it comes from (``$WORLDGEN_MEMORY_LIMIT``, with how to
        change it, or the memory measured available), and the way out.

    Examples
    --------
    >>> check_memory(1024, "width", "a tiny map", "make it smaller")
    """
    limit, source = memory_limit()
    if limit is None or need <= limit:
        return
    if source == "setting":
        have = (
            f"the limit is {size_text(limit)} (WORLDGEN_MEMORY_LIMIT: set it to at least "
            f"{size_text(need)}, or unset it, if the machine has that much)"
        )
    elif source == "available":
        have = f"{size_text(limit)} is available"
    else:
        have = f"the machine has {size_text(limit)}"
    raise MemoryLimitError(
        f"{parameter}: {request} needs about {size_text(need)} of memory, but {have}; {way_out}",
        parameter,
    )
