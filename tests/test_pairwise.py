"""The all-pairs cases of the GPU sweeps (tests/pairwise.py) keep every pair of values."""

from tests.pairwise import all_pairs, uncovered


def test_every_pair_of_values_meets_in_fewer_cases_than_the_product():
    factors = (["a", "b", "c"], [32, 64], [(1, 1), (2, 2), (3, 5), (16, 16)], ["x", "y", "z"])
    cases = all_pairs(*factors)
    assert len(cases) < 3 * 2 * 4 * 3
    for i, f in enumerate(factors):
        for j, g in enumerate(factors[i + 1:], start=i + 1):
            assert {(c[i], c[j]) for c in cases} == {(a, b) for a in f for b in g}


def test_a_missing_pair_is_named():
    full = [(a, b, c) for a in range(2) for b in range(3) for c in range(2)]
    assert uncovered(full, (2, 3, 2)) == set()
    without = [r for r in full if (r[0], r[1]) != (1, 2)]
    assert uncovered(without, (2, 3, 2)) == {(0, 1, 1, 2)}
