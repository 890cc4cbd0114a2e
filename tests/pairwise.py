"""All-pairs cases for GPU sweeps of three or more factors.

lavapipe compiles a pipeline again for every format and plan it meets, so on a fresh machine a
full cross product of sizes, options and formats pays an LLVM compile for nearly every case. The
faults these sweeps look for sit in one factor (a plan, an option's code path, a format's
rounding) or in two together (that plan in that format); all-pairs cases keep every pair of
values of any two factors in some case, in a fraction of the cases. allpairspy makes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, product
from typing import Any

import pytest
from allpairspy import AllPairs


def missing_pairs(cases: Iterable[Sequence[Any]],
                  every: Iterable[Sequence[Any]]) -> set[tuple[int, Any, int, Any]]:
    """(factor i, value a, factor j, value b) of every pair of values that some case of
    ``every`` (all the cases that can run) holds and none of ``cases`` does."""
    def pairs(rows: Iterable[Sequence[Any]]) -> set[tuple[int, Any, int, Any]]:
        return {(i, row[i], j, row[j]) for row in rows
                for i, j in combinations(range(len(row)), 2)}

    return pairs(every) - pairs(cases)


def uncovered(rows: Sequence[Sequence[int]], sizes: Sequence[int]) -> set[tuple[int, int, int, int]]:
    """:func:`missing_pairs` of ``rows`` in the full product: rows and values are indices into
    the factors, ``sizes`` their lengths."""
    return missing_pairs(rows, product(*(range(n) for n in sizes)))


def all_pairs(*factors: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Cases (one value of each factor) in which every pair of values of two factors meets."""
    sizes = [len(f) for f in factors]
    rows = [tuple(r) for r in AllPairs([list(range(n)) for n in sizes])]
    missing = uncovered(rows, sizes)
    assert not missing, f"all-pairs cases miss {sorted(missing)[:5]}"
    return [tuple(f[k] for f, k in zip(factors, row, strict=True)) for row in rows]


def _label(value: Any) -> str:
    """A case id part: WxH for a size, a format's label, k=v,... for options (empty: default)."""
    if isinstance(value, tuple):
        return "x".join(map(str, value))
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "default"
    return getattr(value, "label", str(value))


def pairs_params(*factors: Sequence[Any]) -> list[Any]:
    """:func:`all_pairs` as pytest params, each with an id of its values' labels."""
    return [pytest.param(*case, id="-".join(map(_label, case))) for case in all_pairs(*factors)]
