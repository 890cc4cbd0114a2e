"""Work on a run that needs no GPU, off the UI thread: strategy-against-strategy comparisons,
texture-file exports, a run's timings against a baseline (a bootstrap per figure) and the
sampled preview.

The Heatmaps tab compares a strategy with another on demand; at 4096² that is seconds of numpy.
File > Export... writes a chain as KTX2, DDS or EXR. :class:`CpuWorker` runs both as jobs
(:mod:`mipview.ui.workers.jobs`) in a thread of its own, not the GPU worker's: that one is busy for the
whole of a live profile, and a comparison or an export asked for meanwhile would wait for Stop.
The thread runs at the UI thread's priority: it takes the GIL between numpy calls, and a
lower-priority thread that a busy machine leaves waiting for a core while it holds the GIL
stalls the UI thread with it (measured on 2 cores under load: 30-40 ms stalls, the UI idle).

Replies, by ``sigReply`` (besides sigProgress, sigJobFinished and sigError of JobWorker)
-------
Comparison      the figures and maps of one CompareRequest
ExportOutput    the files one ExportRequest wrote
BaselineDeltas  a run's figures against a saved run
PreviewOutput   a rendered sampled preview
EncodeProgress  each level of one EncodeRequest encoded, then its Encoded
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Slot

from mipview.check import compare
from mipview.core.errors import MipviewError
from mipview.core.results import RunResult
from mipview.io import containers
from mipview.runs import baseline, preview, report
from mipview.ui.messages import (
    BaselineDeltas,
    BaselineRequest,
    CompareRequest,
    Comparison,
    EncodeRequest,
    ExportOutput,
    ExportRequest,
    PreviewOutput,
    PreviewRequest,
    WorkerError,
)
from mipview.ui.workers import encode_job
from mipview.ui.workers.jobs import JobWorker, Stop


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


def timed_run_dict(run: RunResult, cache: str, repeat: int) -> dict[str, Any]:
    """A run's timings as bench's JSON has them (report.result_dict), so it compares with, or
    serves as, a baseline."""
    return report.result_dict(run, None, {"repeat": repeat, "cache": cache})


def against_baseline(req: BaselineRequest) -> BaselineDeltas:
    """The run's figures against the saved run (baseline.compare_runs: the same comparison as
    ``bench --baseline``)."""
    data = req.run if isinstance(req.run, dict) else timed_run_dict(req.run, req.cache,
                                                                     req.repeat)
    return BaselineDeltas(req.job, baseline.compare_runs(data, req.baseline.data))


class CpuWorker(JobWorker):
    def __init__(self) -> None:
        super().__init__()
        self.handle(CompareRequest, "Comparison failed", self._compare)
        self.handle(ExportRequest, "Export failed", self._export, checkpoints=False)
        self.handle(BaselineRequest, "Baseline comparison failed",
                    lambda req, stop: self.sigReply.emit(against_baseline(req)))
        self.handle(PreviewRequest, "Preview failed", lambda req, stop: self.sigReply.emit(
            PreviewOutput(req.job, req.name, preview.render(req.levels, req.fmt, req.settings))))
        self.handle(EncodeRequest, "Encoding failed", self._encode)

    @Slot()
    def start(self) -> None:
        """Nothing to set up (the window starts every worker's thread the same way)."""

    def _compare(self, req: CompareRequest, stop: Stop) -> None:
        self.sigProgress.emit(f"comparing {req.strategy} with {req.against}")
        out = compare_levels(req, stop)
        if out is not None:
            self.sigReply.emit(out)

    def _export(self, req: ExportRequest, stop: Stop) -> None:
        # never abandoned: the window drops comparisons (cancels older jobs) whenever a run
        # comes in, and a half-done export would leave some of the files the user asked for
        self.sigProgress.emit(f"writing {req.stem} as {', '.join(req.kinds)} to {req.folder}")
        try:
            files = containers.export(req.folder, req.stem, req.levels, req.fmt, req.kinds,
                                      faces=req.faces, volume=req.volume)
        except MipviewError as exc:  # the folder's fault (read-only, full): no traceback
            self.sigError.emit(WorkerError(req.job, "Export failed", (
                f"{exc}. The run shown stays; export again to a folder you can write to, with "
                f"room for the files.")))
            return
        self.sigReply.emit(ExportOutput(req.job, tuple(str(f) for f in files)))

    def _encode(self, req: EncodeRequest, stop: Stop) -> None:
        self.sigProgress.emit(f"encoding {req.strategy} as {req.choice.label}")
        try:
            encode_job.encode(req, self.sigReply.emit)
        except MipviewError as exc:  # the encoder refused a level: say so, no traceback
            self.sigError.emit(WorkerError(req.job, "Encoding failed", (
                f"{exc}. The Run shown stays; encode it with another codec or quality.")))
