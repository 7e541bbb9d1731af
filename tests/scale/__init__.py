"""Tests of the block-by-block outputs."""

KILLED_MAKING_COLOUR = (
    "import os, signal, sys, zarr\n"
    "made = zarr.Group.create_array\n"
    "def create_array(self, *args, **kwargs):\n"
    "    if kwargs.get('name', args[0] if args else None) == 'colour':\n"
    "        os.kill(os.getpid(), signal.SIGKILL)\n"
    "    return made(self, *args, **kwargs)\n"
    "zarr.Group.create_array = create_array\n"
)
"""The start of a script (``python -c``) that kills itself (SIGKILL) as a
store's ``colour`` array is made; what follows makes a store."""
