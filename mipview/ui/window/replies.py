"""The window's route table: for each type of reply a worker sends (a frozen dataclass of
:mod:`mipview.ui.messages`), the handler that hands it to the views. ``MainWindow._on_reply``
looks a reply up here, in its turn of the event loop; a type without a route is a bug and
raises. A new view's reply is one line in ``ROUTES``: its handler here, or in the part of the
window it feeds (a Run's in ``run_replies``, the profiler's in ``profiling``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QMainWindow

from mipview.ui.messages import (
    BaselineDeltas,
    BatchOutput,
    Comparison,
    DeviceList,
    DeviceReady,
    DeviceRunOutput,
    Encoded,
    EncodeProgress,
    ExportOutput,
    LevelsReady,
    LiveStats,
    OpenedImage,
    PreviewOutput,
    ReferenceReady,
    RunAnalysed,
    StrategyAnalysed,
    SweepOutput,
    SweepProgress,
    TimingPhase,
    VolumeRan,
)
from mipview.ui.window import (
    comparisons,
    encoding,
    exporting,
    opening,
    profiling,
    run_replies,
    status,
)


def on_devices(window: QMainWindow, devices: DeviceList) -> None:
    window.panel.set_devices(list(devices.devices), devices.current)
    window.heatmap.set_devices([c.name for c in devices.devices])
    on_device_ready(window, DeviceReady(devices.current))


def on_device_ready(window: QMainWindow, ready: DeviceReady) -> None:
    caps = window.caps = ready.caps
    if caps is None:
        window.device_label.setText("device: none")
    else:
        window.device_label.setText(f"{caps.name} (subgroup {caps.subgroup_size})")
        window.chart.set_device(caps.name, caps.driver)
    window.batch.update_support(caps)
    window._update_support()


def on_batch(window: QMainWindow, out: BatchOutput) -> None:
    if not window._is_latest("batch", out.job):
        return
    window.batch.set_result(out.result)
    status.show_validation(window, out.result.validation_messages)
    window.sigBatchShown.emit(out)


def on_sweep_progress(window: QMainWindow, p: SweepProgress) -> None:
    if window._is_latest("sweep", p.job):
        window.sweep.set_progress(p.done, p.total)


def on_sweep(window: QMainWindow, out: SweepOutput) -> None:
    if not window._is_latest("sweep", out.job):
        return
    window.sweep.set_result(out.result)
    status.show_validation(window, out.result.validation_messages)
    window.sigSweepShown.emit(out)


#: the handler of each reply type, whichever worker sent it, called with the window and the
#: reply. Functions, not the window's bound methods: a window holding its own bound methods is
#: a reference cycle (see jobs.OneInFlight).
ROUTES: dict[type, Callable[[QMainWindow, Any], None]] = {
    DeviceList: on_devices,
    DeviceReady: on_device_ready,
    OpenedImage: opening.on_opened,
    LevelsReady: run_replies.on_levels_ready,
    TimingPhase: run_replies.on_timing,
    LiveStats: profiling.on_stats,
    ReferenceReady: run_replies.on_reference,
    StrategyAnalysed: run_replies.on_strategy_analysed,
    RunAnalysed: run_replies.on_analysis,
    BatchOutput: on_batch,
    SweepProgress: on_sweep_progress,
    SweepOutput: on_sweep,
    Comparison: comparisons.on_compared,
    DeviceRunOutput: comparisons.on_device_run,
    ExportOutput: exporting.on_exported,
    BaselineDeltas: profiling.on_baseline,
    PreviewOutput: profiling.on_preview,
    VolumeRan: run_replies.on_volume,
    EncodeProgress: encoding.on_progress,
    Encoded: encoding.on_encoded,
}
