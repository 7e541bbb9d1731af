"""An array-like for tests of functions that stream through array-likes:
it records the size of every read and how often each cell is written."""

import numpy as np


class Recording:
    """Wraps a numpy array; ``reads`` lists the cells of every read,
    ``writes`` counts the writes of each cell."""

    def __init__(self, array):
        self.array = array
        self.shape = array.shape
        self.dtype = array.dtype
        self.reads = []
        self.writes = np.zeros(array.shape, int)

    def __getitem__(self, key):
        part = self.array[key]
        self.reads.append(part.size)
        return part

    def __setitem__(self, key, value):
        self.array[key] = value
        self.writes[key] += 1
