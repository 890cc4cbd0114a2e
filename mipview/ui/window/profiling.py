"""The window's Profile menu at work: the live statistics of a Run in the chart, a saved run
(``mipview bench --json``) shown as if it had just run, a baseline whose deltas the chart draws
beside each bar (``baseline.compare_runs`` in the compare worker), and the sampled preview dock
(rendered by the compare worker too). The window keeps the state (``stats``, ``saved_run``,
``baseline_run``, its two ``OneInFlight``); these are the steps."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QMainWindow

from mipview.core.results import RunResult
from mipview.runs import preview, volume
from mipview.runs.baseline import BaselineError, SavedRun, load_run
from mipview.ui.messages import (
    BaselineDeltas,
    BaselineRequest,
    LiveStats,
    PreviewOutput,
    PreviewRequest,
    WorkerError,
    saved_stats,
)
from mipview.ui.window import status
from mipview.ui.workers.cpu_worker import timed_run_dict

#: live profiling compares with the baseline at most this often, seconds
BASELINE_EVERY_S = 1.0
SAVED_RUN_FILTER = "mipview bench JSON (*.json);;All files (*)"


def on_stats(window: QMainWindow, stats: LiveStats) -> None:
    if not window._is_latest("run", stats.job):
        return
    window.saved_run, window.stats = None, stats
    window.chart.update_stats(stats)
    now = time.monotonic()
    # a bootstrap per figure: during live profiling at most every BASELINE_EVERY_S, so
    # the comparison does not take the cores the device (lavapipe) and the UI need
    if stats.final or now - window._baseline_sent >= BASELINE_EVERY_S:
        window._baseline_sent = now
        window._baseline_jobs.request()
    if stats.final and stats.timings:
        best = min(stats.timings, key=lambda st: st[1].total.median)
        window.run_label.setText(f"last run: {len(stats.timings)} strategies, "
                                 f"{stats.runs} runs each; fastest {best[0]} "
                                 f"{best[1].total.median:.1f} us")
    window.sigStatsShown.emit(stats)


def open_saved_run(window: QMainWindow, path: str) -> bool:
    """``MainWindow.open_saved_run``: the chart shows the run saved in ``path``."""
    saved = _load_run(window, path, "Cannot open saved run")
    if saved is None:
        return False
    window.stop()
    window._job += 1
    window._latest["run"] = None  # a late figure of a stopped run must not replace it
    window.saved_run, window.stats = saved, saved_stats(window._job, saved)
    window.chart.clear()
    window.chart.update_stats(window.stats)
    window.run_label.setText(f"showing saved run {Path(path).name}")
    window._baseline_jobs.request()
    return True


def load_baseline(window: QMainWindow, path: str) -> bool:
    saved = _load_run(window, path, "Cannot load baseline")
    if saved is not None:
        set_baseline(window, saved)
    return saved is not None


def use_run_as_baseline(window: QMainWindow) -> bool:
    run = timed_run(window)
    if run is None:
        window.statusBar().showMessage("no timings to use as a baseline: run first", 5000)
        return False
    data = run if isinstance(run, dict) else timed_run_dict(
        run, window.stats.cache, window.stats.runs)
    set_baseline(window, SavedRun(f"the run of {time.strftime('%H:%M:%S')}", data))
    return True


def set_baseline(window: QMainWindow, saved: SavedRun | None) -> None:
    window.baseline_run = saved
    window.chart.set_baseline(None)
    if saved is not None:
        window.statusBar().showMessage(f"baseline: {saved.path}", 5000)
        window._baseline_jobs.request()


def _load_run(window: QMainWindow, path: str, title: str) -> SavedRun | None:
    try:
        return load_run(path)
    except BaselineError as exc:
        status.show_error(window, WorkerError(-1, title, str(exc)))
        return None


def open_saved_dialog(window: QMainWindow) -> None:
    path, _ = QFileDialog.getOpenFileName(window, "Open saved run", "", SAVED_RUN_FILTER)
    if path:
        window.open_saved_run(path)


def baseline_dialog(window: QMainWindow) -> None:
    path, _ = QFileDialog.getOpenFileName(window, "Load baseline", "", SAVED_RUN_FILTER)
    if path:
        window.load_baseline(path)


def timed_run(window: QMainWindow) -> RunResult | dict[str, Any] | None:
    """The run the chart shows with its timings: a saved run's JSON, or the window's run
    (its levels' result with the timings shown); None when nothing is timed."""
    if window.saved_run is not None:
        return window.saved_run.data
    st, out = window.stats, window.output
    if st is None or out is None or st.job != out.job or not st.timings:
        return None
    timings = {str(spec): t for spec, t in st.timings}
    return replace(out.mip, clock=st.clock, results=tuple(
        replace(r, timing=timings.get(str(r.spec))) for r in out.mip.results))


def send_baseline(window: QMainWindow) -> int | None:
    run = timed_run(window) if window.baseline_run is not None else None
    if run is None:
        return None
    st = window.stats
    return window._send_compare(lambda job: BaselineRequest(
        job, run, window.baseline_run, st.cache if st else "warm", st.runs if st else 0))


def on_baseline(window: QMainWindow, deltas: BaselineDeltas) -> None:
    if deltas.job != window._baseline_jobs.last or window.baseline_run is None:
        return
    window.chart.set_baseline(deltas.report)
    window.sigBaselineShown.emit(deltas)


def send_preview(window: QMainWindow) -> int | None:
    out, name = window.output, window.preview.strategy()
    # the layer the pyramid view shows (of a cube map array: its cube)
    settings = replace(window.preview.settings(), layer=window.pyramid.layer())
    if window.volume_ran is not None:
        return _send_volume_preview(window, name, settings)
    results = {str(r.spec): r for r in out.mip.results} if out is not None else {}
    if window.preview_dock.isHidden() or name not in results:
        return None
    levels = results[name].levels
    if settings.show == preview.ERROR:  # its heatmaps, once its analysis is in
        errors = window.heatmap.exact.get(name)
        if errors is None:
            return None
        levels = errors.maps
    return window._send_compare(lambda job: PreviewRequest(
        job, name, levels, out.mip.fmt, settings))


def _send_volume_preview(window: QMainWindow, name: str,
                         settings: preview.PreviewSettings) -> int | None:
    """A volume result's preview: the slice the pyramid view shows, across its axis (the
    view's panels hold the levels turned to it)."""
    ran = window.volume_ran
    if window.preview_dock.isHidden() or ran is None or \
            name not in {volume.result_name(r) for r in ran.done.results}:
        return None
    pyramid = window.pyramid
    levels = pyramid.panel_levels(name)
    settings = replace(settings, depth=(pyramid.layer() + 0.5) / levels[0].shape[0])
    if settings.show == preview.ERROR:
        levels = tuple(a[..., 0] for a in pyramid.panel_levels(f"error {name}"))
    return window._send_compare(lambda job: PreviewRequest(job, name, levels, ran.fmt,
                                                           settings))


def on_preview(window: QMainWindow, out: PreviewOutput) -> None:
    if out.job != window._preview_jobs.last:
        return
    window.preview.set_image(out.image)
    window.sigPreviewShown.emit(out)
