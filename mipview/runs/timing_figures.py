"""What the timing chart draws of a strategy's timing samples: quantiles, the median of each
mark, a drift test and a histogram, computed where the samples are (a worker thread), so the
window redraws without sorting samples."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mipview.core.results import GpuTiming
from mipview.runs.drift import Drift, detect_drift

#: bins of a strategy's samples in the timing chart's distribution view
DIST_BINS = 24


@dataclass(frozen=True)
class TimingFigures:
    """What the timing chart draws of one :class:`GpuTiming`, in microseconds."""

    min: float
    p5: float
    median: float
    p95: float
    max: float
    #: the median of each mark (the per-dispatch breakdown), in plan order
    marks: tuple[tuple[str, float], ...] = ()
    #: the samples drifted while they were taken (mipview.runs.drift): the median describes neither
    #: the start nor the end
    drift: Drift | None = None
    #: the samples' histogram (the chart's distribution view): DIST_BINS counts over equal bins
    #: from ``min`` to ``max`` (the last bin holds ``max``)
    counts: tuple[int, ...] = ()

    @classmethod
    def of(cls, timing: GpuTiming) -> TimingFigures:
        t = timing.total
        counts, _ = np.histogram(t.samples_us, DIST_BINS, (t.min, max(t.max, t.min + 1e-6)))
        return cls(t.min, t.p5, t.median, t.p95, t.max,
                   tuple((label, s.median) for label, s in timing.marks),
                   detect_drift(t.samples_us), tuple(int(c) for c in counts))

    def bin_edges(self) -> np.ndarray:
        """The ``len(counts) + 1`` edges of the histogram's bins, us."""
        return np.linspace(self.min, max(self.max, self.min + 1e-6), len(self.counts) + 1)
