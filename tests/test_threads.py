"""The ``threads`` context manager sets numba's thread count and restores it."""

import numba
import numpy as np
import pytest

from worldgen import threads


def test_threads_sets_and_restores_the_previous_count():
    limit = numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    with threads(1):
        assert numba.get_num_threads() == 1
        with threads(limit):
            assert numba.get_num_threads() == limit
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before


def test_threads_restores_after_an_error():
    before = numba.get_num_threads()
    with pytest.raises(RuntimeError, match="inside"), threads(1):
        raise RuntimeError("inside")
    assert numba.get_num_threads() == before


def test_threads_takes_numpy_integers_and_refuses_bools():
    with threads(np.int64(1)):
        assert numba.get_num_threads() == 1
    with pytest.raises(ValueError, match=r"threads: count must be an integer"), threads(True):
        pass
