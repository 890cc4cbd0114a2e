"""Did a strategy's timings drift while it was timed?

A GPU that was not warm yet (or that throttled) runs the first samples of a timing at another
speed than the last; a median over all of them then describes neither, and a chart bar hides it.
The check compares the first and the last quarter of the samples, in the order they were taken:
the medians must differ by more than ``MIN_CHANGE`` and the two quarters must be separated
(nearly every sample of one slower than nearly every sample of the other: the rank statistic of
the Mann-Whitney test, ``P(first > last)``), so ordinary noise, which mixes the quarters, is not
called drift. Numpy only: the statistic is a comparison of all pairs, and the GPU machine that
runs benchmarks has numpy but no SciPy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: the medians of the first and last quarter differ by at least this fraction
MIN_CHANGE = 0.05
#: P(first > last) at least this far from 1/2 (0.9: at most a tenth of the pairs disagree)
MIN_SEPARATION = 0.4
#: fewer samples per quarter say nothing either way
MIN_QUARTER = 4


@dataclass(frozen=True)
class Drift:
    """First vs last quarter of one timing's samples (µs)."""

    first_median: float
    last_median: float
    #: fraction of (first, last) pairs where the first sample is slower (ties count half)
    p_first_slower: float

    @property
    def change(self) -> float:
        """Relative change from the first quarter to the last (-0.5: twice as fast at the end)."""
        return self.last_median / self.first_median - 1.0 if self.first_median else 0.0

    def label(self) -> str:
        return (f"drifting: first quarter {self.first_median:.1f} us, last "
                f"{self.last_median:.1f} us ({100 * self.change:+.0f}%)")


def _p_first_slower(first: np.ndarray, last: np.ndarray) -> float:
    greater = (first[:, None] > last[None, :]).sum()
    ties = (first[:, None] == last[None, :]).sum()
    return float((greater + 0.5 * ties) / (first.size * last.size))


def detect_drift(samples_us: Sequence[float]) -> Drift | None:
    """A :class:`Drift` when the samples (in the order taken) drifted beyond noise, else None."""
    a = np.asarray(samples_us, dtype=np.float64)
    q = a.size // 4
    if q < MIN_QUARTER:
        return None
    first, last = a[:q], a[-q:]
    d = Drift(float(np.median(first)), float(np.median(last)), _p_first_slower(first, last))
    if abs(d.change) < MIN_CHANGE or abs(d.p_first_slower - 0.5) < MIN_SEPARATION:
        return None
    return d
