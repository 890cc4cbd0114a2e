"""Strategy-against-strategy comparisons, off the UI thread.

The Heatmaps tab compares a strategy with another on demand; at 4096² that is seconds of numpy.
:class:`CompareWorker` runs it as a job (:mod:`mipview.ui.jobs`) in a thread of its own, not the
GPU worker's: that one is busy for the whole of a live profile, and a comparison asked for
meanwhile would wait for Stop. The thread runs at a lower priority, so the numpy work leaves the
UI thread its core.

Signals (besides sigProgress, sigJobFinished and sigError of JobWorker)
-------
sigCompared(Comparison)   the figures and maps of one CompareRequest
"""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot

from mipview import compare
from mipview.ui.jobs import JobWorker, Stop, lower_priority
from mipview.ui.messages import CompareRequest, Comparison


def compare_levels(req: CompareRequest, stop: Stop = lambda: False) -> Comparison | None:
    """Figures (``compare.level_errors``) and heatmaps (``compare.difference_map``) of
    ``req.levels`` against ``req.baseline``; None when stopped first."""
    figures = compare.level_errors(list(req.levels), list(req.baseline), req.fmt)
    maps = []
    for a, b in zip(req.levels, req.baseline, strict=True):
        if stop():
            return None
        maps.append(compare.difference_map(a, b, req.fmt))
    return Comparison(req.job, req.run_job, req.strategy, req.against, tuple(figures),
                      tuple(maps))


class CompareWorker(JobWorker):
    sigCompared = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.handle(CompareRequest, "Comparison failed", self._compare)

    @Slot()
    def start(self) -> None:
        lower_priority()

    def _compare(self, req: CompareRequest, stop: Stop) -> None:
        self.sigProgress.emit(f"comparing {req.strategy} with {req.against}")
        out = compare_levels(req, stop)
        if out is not None:
            self.sigCompared.emit(out)
