"""What the window shows of a Run as its replies come: its levels (in the pyramid view's panels
made for them when it started), its timings' warm-up, the exact reference, each strategy's
analysis as it is ready, then the Run's verdicts; a volume's Run in one reply. Each handler
shows only the latest Run's replies: a stopped or superseded Run's late ones are dropped."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow

from mipview.core.formats import Format
from mipview.io import containers
from mipview.runs import preview, volume
from mipview.ui.messages import (
    LevelsReady,
    ReferenceReady,
    RunAnalysed,
    StrategyAnalysed,
    TimingPhase,
    VolumeRan,
)
from mipview.ui.window import status


def on_levels_ready(window: QMainWindow, out: LevelsReady) -> None:
    if not window._is_latest("run", out.job):
        return
    window.output, window.analysis, window.volume_ran = out, None, None
    window.export_action.setEnabled(True)
    mip = out.mip
    # a cube map's faces, unless the Layers control made the run's layers from its first
    req = window._latest["run"]
    faces = req.source.faces if req.layers <= 1 else 1
    window.pyramid.set_pyramids([(str(r.spec), containers.title(r.spec), r.levels, mip.fmt)
                                 for r in mip.results],
                                reductions={str(r.spec): r.reduction for r in mip.results},
                                faces=faces)
    window._drop_comparisons()
    window.heatmap.set_run(out)  # fills in as each strategy's analysis arrives
    window.preview.set_strategies([str(r.spec) for r in mip.results])
    window.preview.set_cube(window.pyramid.cube_count() > 0)
    skipped = [f"skipped {s}: {why}" for s, why in mip.skipped]
    if skipped or out.notes:
        window.statusBar().showMessage("; ".join([*skipped, *out.notes]), 10000)
    status.show_validation(window, mip.validation_messages)
    if not window.pyramid.filling:  # else once they fill the panels made for them
        window.sigRunShown.emit(out)


def run_filled(window: QMainWindow) -> None:
    """The pyramid view filled the panels of the levels shown: the Run is shown, and finished
    if its job ended meanwhile."""
    if window.output is not None and window._is_latest("run", window.output.job):
        window.sigRunShown.emit(window.output)
    if window._finished_unshown is not None:
        job, window._finished_unshown = window._finished_unshown, None
        window.sigJobFinished.emit(job)


def on_volume(window: QMainWindow, ran: VolumeRan) -> None:
    if not window._is_latest("run", ran.job):
        return
    done, shown = ran.done, ran.shown
    entries = [(volume.result_name(r), volume.result_name(r), r.levels, ran.fmt)
               for r in done.results]
    errors = [(f"error {key}", f"{key}: error against the exact reference ({shown.unit})",
               shown.errors[key], Format.R32F) for key, _, _, _ in entries]
    window.pyramid.set_pyramids(entries + errors, volume=True)
    window.pyramid.set_reference(shown.reference, ran.fmt)
    window.volume_ran = ran
    window.export_action.setEnabled(bool(done.results))
    window.preview.set_cube(False)
    window.preview.set_strategies([key for key, _, _, _ in entries])
    window._drop_comparisons()
    window.heatmap.clear()
    lines = [f"skipped {s}: {why}" for s, why in done.skipped]
    for name, verdict in done.verdicts.items():
        lines.append(f"{name}: " + ("ok" if verdict.within_tolerance else
                                    "OUT OF TOLERANCE: " + "; ".join(verdict.breaches)))
    window.statusBar().showMessage("; ".join(lines), 20000)
    window.panel.show_volume([volume.result_name(r) for r in done.results], ran=True)
    status.show_validation(window, done.messages)
    window.sigVolumeShown.emit(ran)


def on_timing(window: QMainWindow, phase: TimingPhase) -> None:
    if not window._is_latest("run", phase.job):
        return
    window.chart.warming_up(phase)
    window.sigTimingShown.emit(phase)


def on_reference(window: QMainWindow, ready: ReferenceReady) -> None:
    if not window._is_latest("run", ready.job) or window.output is None:
        return
    window.pyramid.set_reference(ready.reference, ready.fmt)
    window.heatmap.set_reference(ready.reference)
    window.sigReferenceShown.emit(ready)


def on_strategy_analysed(window: QMainWindow, part: StrategyAnalysed) -> None:
    if not window._is_latest("run", part.job) or window.output is None:
        return
    window.heatmap.add_errors(part.errors)
    if window.preview.settings().show == preview.ERROR:
        window._preview_jobs.request()
    window.progress.show_progress(part.done, part.total)
    window.sigStrategyShown.emit(part)


def on_analysis(window: QMainWindow, analysis: RunAnalysed) -> None:
    if not window._is_latest("run", analysis.job) or window.output is None:
        return
    window.analysis = analysis
    # each verdict reached the heatmap with its StrategyAnalysed: only what is run-wide here
    status.show_verdicts(window, analysis)
    window.progress.busy()
    window.sigAnalysisShown.emit(analysis)
