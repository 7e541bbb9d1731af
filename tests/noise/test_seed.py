"""Seeds become permutation tables by a documented, frozen procedure."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from worldgen.noise import derive_seed, permutation
from worldgen.noise._seed import PERLIN_PERMUTATION

seeds = st.integers(-(2**63), 2**64 - 1)


def test_seed_zero_is_perlins_table():
    p = permutation(0)
    assert p.tolist() == list(PERLIN_PERMUTATION) * 2
    assert PERLIN_PERMUTATION[:5] == (151, 160, 137, 91, 90)
    assert PERLIN_PERMUTATION[-3:] == (61, 156, 180)


@given(seed=seeds)
def test_every_seed_gives_a_doubled_permutation(seed):
    p = permutation(seed)
    assert p.dtype == np.uint64 and p.shape == (512,)
    assert sorted(p[:256].tolist()) == list(range(256))
    assert np.array_equal(p[:256], p[256:])
    assert not p.flags.writeable


@given(seed=seeds)
def test_negative_seeds_are_their_64_bit_pattern(seed):
    assert np.array_equal(permutation(seed), permutation(seed % 2**64))


def test_frozen_permutations():
    # The shuffle is part of the definition: these must never change.
    assert permutation(1)[:12].tolist() == [
        int(v) for v in "52 74 69 87 54 16 242 158 182 44 104 76".split()
    ]
    assert permutation(2**64 - 1)[:8].tolist() == [
        int(v) for v in "11 182 4 91 149 205 46 227".split()
    ]
    assert derive_seed(0, 1) == 0x6E789E6AA1B965F4
    assert derive_seed(123, 5) == 0xAAC67282FC30B210
    assert derive_seed(-1, 0) == derive_seed(2**64 - 1, 0) == 0xE4D971771B652C20


def test_distinct_seeds_give_distinct_tables():
    tables = {permutation(s)[:256].tobytes() for s in range(1, 2000)}
    assert len(tables) == 1999
