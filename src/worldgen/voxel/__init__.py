"""The chunked voxel world: config, generator, chunk store, pictures and meshes.

- :class:`VoxelConfig`: seed, vertical range, sea level, features, palette.
- :func:`generate_chunk`, :func:`generate_region`: blocks ``(Y, Z, X)``
  and column heights, pure functions of world coordinates (seamless, any
  order, any thread).
- :class:`Chunk`, :func:`chunk_range`: chunks of 16 x 16 columns.
- :class:`ChunkStore` (SQLite, WAL), :class:`World` (``around``,
  ``pregenerate``): chunks made on demand, in parallel, and kept.
- :func:`top_down`, :func:`cross_section`, :func:`greedy_mesh`,
  :func:`write_voxel_glb`, :func:`write_world_set`: looking at it.
"""

from worldgen.voxel._blocks import COLOURS, ID, NAMES, PALETTE, SOLID
from worldgen.voxel._chunk import CHUNK, Chunk, chunk_range
from worldgen.voxel._config import VoxelConfig
from worldgen.voxel._generator import BIOMES, generate_chunk, generate_region
from worldgen.voxel._outputs import open_world, write_world_set
from worldgen.voxel._render import cross_section, top_down
from worldgen.voxel._store import (
    ChunkStore,
    CorruptChunkError,
    StoreFileError,
    StoreMismatchError,
    World,
)
from worldgen.voxel._voxel_mesh import VoxelMesh, greedy_mesh, write_voxel_glb

__all__ = [
    "BIOMES",
    "CHUNK",
    "COLOURS",
    "ID",
    "NAMES",
    "PALETTE",
    "SOLID",
    "Chunk",
    "ChunkStore",
    "CorruptChunkError",
    "StoreFileError",
    "StoreMismatchError",
    "VoxelConfig",
    "VoxelMesh",
    "World",
    "chunk_range",
    "cross_section",
    "generate_chunk",
    "generate_region",
    "greedy_mesh",
    "open_world",
    "top_down",
    "write_voxel_glb",
    "write_world_set",
]
