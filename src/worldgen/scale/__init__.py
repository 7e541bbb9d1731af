"""Maps bigger than one machine: the terrain pipeline in blocks, on Dask, into
a Zarr store, and from it a Cloud-Optimized GeoTIFF and a tile pyramid.

- :func:`build_store`: every block of a map (``map`` or carved
  ``terrain``) made by the library's window functions and written into
  ``world.zarr``, in this process or as Dask tasks; resumable.
- :func:`write_big_set`: the store, then ``world.tif`` (COG) and
  ``tiles/`` (z/x/y PNG pyramid) cut from it.
- :func:`connect`: a Dask client, on a local cluster sized to the machine
  or an existing scheduler.

Needs the ``scale`` extra (``pip install worldgen[scale]``: dask,
distributed, zarr, rasterio); ``import worldgen`` never imports them.
"""

from worldgen.scale._cluster import connect
from worldgen.scale._store import BLOCK, LAYERS, build_store, open_store
from worldgen.scale._write import BIG_FORMATS, write_big_set

__all__ = [
    "BIG_FORMATS",
    "BLOCK",
    "LAYERS",
    "build_store",
    "connect",
    "open_store",
    "write_big_set",
]
