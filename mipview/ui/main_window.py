"""The main window: wires the strategy panel, the views and the workers together; what it
shows and does is in its parts (:mod:`mipview.ui.window`: menus, status bar, opening, exports,
profiling, the replies' handlers), functions of the window that it calls.

The window owns three worker threads: the :class:`GpuWorker` (every Vulkan call), a
:class:`CpuWorker` (strategy-against-strategy heatmaps) and, through the Custom shaders dock
(:mod:`mipview.ui.panels.shader_panel`), a shader compiler. It sends each request, a frozen dataclass
with a job id, by one queued signal per worker, keeps the latest request of each kind, and
applies a result only when it belongs to that job (so a stopped or superseded job's late results
are dropped); it never waits on a worker.

Every result comes back by the worker's one ``sigReply`` (a frozen dataclass of
:mod:`mipview.ui.messages`) to :meth:`MainWindow._on_reply`, which calls the handler that the
route table ``_routes`` (``ROUTES`` of :mod:`mipview.ui.window.replies`) has for its type; a
type without a route is a bug and raises. A new view is one view file, one message in
:mod:`mipview.ui.messages` and one route line in ``ROUTES``.
Replies, job ends and worker errors that come together are shown one per turn of the event loop,
in order (``replies``, :class:`mipview.ui.steps.Paced`), so the paints of one are not in the
turn of the next.

A run is shown as it comes: its levels, then its timings (the chart; "warming up" first), then
the exact reference and each strategy's verdict and heatmaps as each is ready, with progress in
the status bar.

A volume (a 3D KTX2 or DDS, a ``*.volume.npy``) opens a slice at a time in the pyramid view
(``PyramidView.set_pyramids``' ``volume``). Its Run makes the chain with every volume strategy
(``runs.volume.window_specs``: the reductions of the strategies checked), and shows each chain,
its error against the exact reference per level (a one-channel pyramid beside it) and the
reference, all sliced alike; the verdicts go to the status bar, the timings to the chart.

Signals (emitted after the views show the data; tests and automation wait on these)
-------
sigImageOpened(OpenedImage)  sigRunShown(LevelsReady)  sigTimingShown(TimingPhase)
sigStatsShown(LiveStats)     sigReferenceShown(ReferenceReady)
sigStrategyShown(StrategyAnalysed)  sigAnalysisShown(RunAnalysed)
sigJobFinished(int)          sigErrorShown(WorkerError)   sigVolumeShown(VolumeRan)
sigBatchShown(BatchOutput)   sigSweepShown(SweepOutput)  sigComparisonShown(Comparison)
sigExported(ExportOutput)    sigBaselineShown(BaselineDeltas)  sigPreviewShown(PreviewOutput)
sigEncodeProgress(EncodeProgress)  sigEncoded(Encoded)  (the Heatmaps tab's Encode)

Profile menu: a saved run (bench --json) shown in the chart, a baseline (a saved run, or the run
shown) whose deltas the chart draws beside each bar (baseline.compare_runs in the compare
worker), the distributions beside the bars, and the sampled preview dock.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabWidget, QWidget

from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.io import containers
from mipview.runs import preview, volume
from mipview.runs.baseline import SavedRun
from mipview.ui import steps
from mipview.ui.heartbeat import Heartbeat
from mipview.ui.messages import (
    BatchRequest,
    LevelsReady,
    LiveStats,
    OpenedImage,
    OpenRequest,
    RunAnalysed,
    RunRequest,
    SweepRequest,
    VolumeRan,
    WorkerError,
)
from mipview.ui.panels.shader_panel import ShaderPanel
from mipview.ui.panels.strategy_panel import AUTO_FORMAT, StrategyPanel
from mipview.ui.settings import make_settings, string_list
from mipview.ui.views.batch_view import BatchView
from mipview.ui.views.heatmap_view import HeatmapView
from mipview.ui.views.pixel_pool import PixelPool
from mipview.ui.views.preview_view import PreviewView
from mipview.ui.views.pyramid_view import REFERENCE_KEY, PyramidView
from mipview.ui.views.sweep_view import SweepView
from mipview.ui.views.timing_chart import TimingChart
from mipview.ui.window import (
    comparisons,
    custom_shaders,
    encoding,
    exporting,
    menus,
    opening,
    profiling,
    replies,
    run_replies,
    status,
)
from mipview.ui.workers.cpu_worker import CpuWorker
from mipview.ui.workers.gpu_worker import GpuWorker
from mipview.ui.workers.jobs import OneInFlight, worker_thread


class MainWindow(QMainWindow):
    sigImageOpened = Signal(object)
    sigRunShown = Signal(object)
    sigTimingShown = Signal(object)
    sigStatsShown = Signal(object)
    sigReferenceShown = Signal(object)
    sigStrategyShown = Signal(object)
    sigAnalysisShown = Signal(object)
    sigJobFinished = Signal(int)
    sigErrorShown = Signal(object)
    sigBatchShown = Signal(object)
    sigSweepShown = Signal(object)
    sigComparisonShown = Signal(object)
    sigExported = Signal(object)
    sigBaselineShown = Signal(object)
    sigPreviewShown = Signal(object)
    sigVolumeShown = Signal(object)
    sigEncodeProgress = Signal(object)
    sigEncoded = Signal(object)
    # to the workers (queued: they cross into their threads)
    _sigRequest = Signal(object)
    _sigCompare = Signal(object)  # comparisons and exports: the CpuWorker
    _sigDevice = Signal(str)
    _sigShutdown = Signal()

    def __init__(self, device: str | None = None, validate: bool | None = None,
                 fmt: str | None = None, settings: QSettings | None = None,
                 restore: bool = True) -> None:
        super().__init__()
        self.setWindowTitle("mipview")
        self.setAcceptDrops(True)
        self.settings = settings if settings is not None else make_settings()
        # What changes mid-session is kept here and written with the rest at close
        # (save_settings): a QSettings write syncs its file on the UI thread, an fsync that took
        # 127-344 ms when a Run started right after an open (lavapipe, the shader cache writing).
        self._recent = string_list(self.settings, "recent")
        self._export_folder = str(self.settings.value("export/folder", ""))
        self.caps: DeviceCaps | None = None
        self.opened: OpenedImage | None = None
        self.output: LevelsReady | None = None
        #: the Run that finished while its levels waited for their panels (``PyramidView.filling``)
        self._finished_unshown: int | None = None
        self.analysis: RunAnalysed | None = None
        #: the Run of a volume shown (its chains are in the pyramid view), else None
        self.volume_ran: VolumeRan | None = None
        self.errors: list[WorkerError] = []
        self._job = 0
        #: kind ("open", "run", "batch", "sweep") -> the latest request (job) of that kind
        self._latest: dict[str, Any] = {}
        self._busy_jobs: set[int] = set()
        #: the workers were told to end their threads (shutdown)
        self._closing = False
        #: errors as modal dialogs; automation (mipview.ui.app.Automation) turns them off
        self.error_dialogs = True

        self.panel = StrategyPanel(self.settings)
        if fmt:
            i = self.panel.format_combo.findData(Format.parse(fmt).label)
            self.panel.format_combo.setCurrentIndex(i)
        self.pyramid = PyramidView()
        self.heatmap = HeatmapView()
        self.chart = TimingChart()
        tabs = QTabWidget()
        tabs.addTab(self.pyramid, "Pyramid")
        tabs.addTab(self.heatmap, "Heatmaps")
        self.batch = BatchView()
        tabs.addTab(self.batch, "Batch")
        self.sweep = SweepView()
        tabs.addTab(self.sweep, "Sweep")
        self.tabs = tabs
        self.setCentralWidget(tabs)
        self.panel_dock = self._dock("Setup", self.panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.chart_dock = self._dock("GPU timestamps", self.chart,
                                     Qt.DockWidgetArea.BottomDockWidgetArea)
        self.shaders = ShaderPanel(self.settings)
        self.shader_dock = self._dock("Custom shaders", self.shaders,
                                      Qt.DockWidgetArea.LeftDockWidgetArea)
        self.shaders.sigPartsChanged.connect(lambda: custom_shaders.fit_dock(self))
        self.preview = PreviewView()
        self.preview_dock = self._dock("Sampled preview", self.preview,
                                       Qt.DockWidgetArea.RightDockWidgetArea)
        self.preview_dock.hide()
        #: the saved run the chart shows (Profile > Open saved run), None: the window's own
        self.saved_run: SavedRun | None = None
        #: what the chart's deltas are against
        self.baseline_run: SavedRun | None = None
        #: the timing statistics shown last
        self.stats: LiveStats | None = None
        self._baseline_jobs = OneInFlight(self._send_baseline)
        self._baseline_sent = 0.0
        self._preview_jobs = OneInFlight(self._send_preview)
        self.device_label, self.image_label, self.run_label, self.progress = status.build(
            self.statusBar())
        built = menus.build(self)
        self.recent_menu, self.export_action = built.recent, built.export
        self.distributions_action, self.viewer_actions = built.distributions, built.viewer
        opening.rebuild_recent(self)

        self.panel.sigRun.connect(self.run)
        self.panel.sigStop.connect(self.stop)
        self.panel.sigDeviceChosen.connect(self.set_device)
        self.panel.sigChanged.connect(self._update_support)
        self.panel.image_combo.sigChosen.connect(lambda suffix: opening.choose_image(self, suffix))
        self.batch.sigRun.connect(self.run_batch)
        self.batch.sigStop.connect(self.stop)
        self.sweep.sigRun.connect(self.run_sweep)
        self.sweep.sigStop.connect(self.stop)
        self.pyramid.sigFilled.connect(lambda: run_replies.run_filled(self))
        self.pyramid.sigHover.connect(lambda t: self.statusBar().showMessage(t, 3000) if t else None)
        self.heatmap.sigCompare.connect(lambda s, a: comparisons.compare(self, s, a))
        # a saved run that does not fit
        self.heatmap.sigError.connect(lambda err: status.show_error(self, err))
        self.heatmap.sigRunOnDevice.connect(lambda d, s: comparisons.run_on_device(self, d, s))
        self.heatmap.encode_bar.sigEncode.connect(lambda codec: encoding.encode(self, codec))
        self.heatmap.encode_bar.sigStop.connect(lambda: encoding.stop(self))
        self.shaders.sigLoaded.connect(lambda c, again: custom_shaders.on_loaded(self, c, again))
        self.shaders.sigRemoved.connect(self.panel.remove_custom)
        self.shaders.sigError.connect(lambda err: status.show_error(self, err))
        self.shaders.sigProgress.connect(self._on_progress)
        self.shaders.sigCompiled.connect(lambda name: custom_shaders.tell_problems(self, name))

        self.heartbeat = Heartbeat(self)
        #: the workers' replies, job ends and errors, one per turn of the event loop
        self.replies = steps.Paced()
        self.worker = GpuWorker(device, validate)
        self.thread_ = worker_thread(self.worker, "mipview-gpu", self)
        self.comparer = CpuWorker()
        self.compare_thread = worker_thread(self.comparer, "mipview-compare", self)
        self._sigRequest.connect(self.worker.work)
        self._sigCompare.connect(self.comparer.work)
        self._sigDevice.connect(self.worker.set_device)
        for w in (self.worker, self.comparer):
            self._sigShutdown.connect(w.shutdown)
            w.sigReply.connect(self._on_reply)
            w.sigProgress.connect(self._on_progress)
            w.sigJobFinished.connect(self._on_worker_finished)
            w.sigError.connect(self._on_worker_error)
        self.preview.sigChanged.connect(self._preview_jobs.request)
        # the preview renders the layer (a volume's slice, a cube array's cube) the pyramid
        # view shows
        self.pyramid.layer_spin.valueChanged.connect(lambda _: self._preview_jobs.request())
        self.pyramid.layer_spin.axisChanged.connect(lambda _: self._preview_jobs.request())
        self.preview_dock.visibilityChanged.connect(lambda _: self._preview_jobs.request())
        self.thread_.started.connect(self.worker.start)
        self.compare_thread.started.connect(self.comparer.start)
        self.thread_.start()
        self.compare_thread.start()
        self.resize(1400, 900)
        self.resizeDocks([self.chart_dock], [300], Qt.Orientation.Vertical)
        self.resizeDocks([self.panel_dock], [340], Qt.Orientation.Horizontal)
        if restore:
            self._restore()

    # --- building ---------------------------------------------------------------------------
    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock:{title}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    # --- recent files & persistence --------------------------------------------------------
    def recent_files(self) -> list[str]:
        return list(self._recent)

    def _restore(self) -> None:
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = self.settings.value("window/state")
        if state is not None:
            self.restoreState(state)

    def save_settings(self) -> None:
        """Write every setting; the window does so only here (at close), never mid-session."""
        self.settings.setValue("recent", self._recent)
        self.settings.setValue("export/folder", self._export_folder)
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.panel.save()
        self.shaders.save()
        self.settings.sync()

    # --- jobs -------------------------------------------------------------------------------
    def _send(self, kind: str | None, request: Callable[[int], Any]) -> int:
        """Stop the running job, then send ``request(job id)`` to the GPU worker as the latest
        job of ``kind``; the window is busy until the worker says it finished. Kind None: a job
        after the one under way, which it leaves running (Stop ends both)."""
        if kind is not None:
            self.stop()
        self._job += 1
        req = request(self._job)
        if kind is not None:
            self._latest[kind] = req
        self._busy_jobs.add(req.job)
        self._set_busy()
        self._sigRequest.emit(req)
        return req.job

    def latest_job(self, kind: str) -> int:
        """Id of the latest job of ``kind`` ("open", "run", "batch", "sweep", "export"); -1 if
        none."""
        req = self._latest.get(kind)
        return req.job if req is not None else -1

    def _is_latest(self, kind: str, job: int) -> bool:
        """Whether a result of ``job`` should be shown: older jobs of a kind were stopped or
        superseded, and what they still send is stale."""
        return self.latest_job(kind) == job

    def _send_compare(self, request: Callable[[int], Any], kind: str | None = None) -> int | None:
        """Send ``request(job id)`` to the compare worker (a live profile keeps running), as the
        latest job of ``kind`` if given; None once the worker has ended (the window is closing).
        What ``request`` raises is raised here, and uses no job id."""
        if not self.compare_thread.isRunning():
            return None
        req = request(self._job + 1)
        self._job = req.job
        if kind is not None:
            self._latest[kind] = req
        self._sigCompare.emit(req)
        return req.job

    # --- actions ----------------------------------------------------------------------------
    def open_image(self, path: str) -> int:
        """Load ``path`` in the worker (stops a running job first); returns the job id."""
        choice = self.panel.format_choice()
        fmt = None if choice == AUTO_FORMAT else Format.parse(choice)
        return self._send("open", lambda job: OpenRequest(job, os.fspath(path), fmt))

    def current_format(self) -> Format | None:
        choice = self.panel.format_choice()
        if choice != AUTO_FORMAT:
            return Format.parse(choice)
        return self.opened.source.suggested_format() if self.opened else None

    def run(self, live: bool = False, specs: list[StrategySpec] | None = None) -> int | None:
        """Run the checked strategies (or ``specs``); returns the job id, None if nothing to do."""
        if self.opened is None:
            self.statusBar().showMessage("open an image first", 5000)
            return None
        specs = list(specs) if specs is not None else self.panel.specs()
        if not specs:
            self.statusBar().showMessage(
                "no runnable strategy is checked: check one in Setup (a greyed one's tooltip "
                "says why it cannot run; a custom shader runs once it compiles)", 10000)
            return None
        fmt = self.current_format()
        assert fmt is not None
        source = self.opened.source
        if source.volume:  # its levels are sliced, its strategies the volume ones
            self.chart.prepare([volume.spec_name(*v) for v in volume.window_specs(specs)])
            if live:
                self.statusBar().showMessage("a volume is run once, not profiled live", 5000)
            return self._send("run", lambda job: RunRequest(
                job, source, fmt, tuple(specs), repeat=self.panel.repeat_spin.value(),
                cold=self.panel.cold_check.isChecked()))
        # the pyramid view's panels for the results, made now, before the worker and its
        # analysis threads start: made when the levels come, they stalled the window while the
        # UI thread waited for the interpreter lock between its steps (docs/bench/window-stalls)
        self.pyramid.prepare([(str(s), containers.title(s)) for s in specs], source.width,
                             source.height)
        self.chart.prepare([str(s) for s in specs])
        return self._send("run", lambda job: RunRequest(
            job, source, fmt, tuple(specs), repeat=self.panel.repeat_spin.value(), live=live,
            layers=self.panel.layers_spin.value(), cold=self.panel.cold_check.isChecked()))

    def run_batch(self, fields: dict | None = None) -> int:
        """Run a batch in the worker (``fields``: BatchRequest fields; default the Batch tab's
        current choices, what its Run button sends); returns the job id."""
        if fields is None:
            fields = self.batch.fields()
        choice = self.panel.format_choice()
        fmt = None if choice == AUTO_FORMAT else Format.parse(choice)
        return self._send("batch", lambda job: BatchRequest(job=job, fmt=fmt, **fields))

    def run_sweep(self, fields: dict | None = None) -> int | None:
        """Sweep the checked strategies over widths in the worker (``fields``: SweepRequest
        fields; default the Sweep tab's current choices, what its Run button sends); returns
        the job id, None if no strategy is checked."""
        if fields is None:
            fields = self.sweep.fields()
        specs = self.panel.specs()
        if not specs:
            self.statusBar().showMessage("no runnable strategy is checked", 5000)
            return None
        self.sweep.set_progress(0, fields["last"] - fields["first"] + 1)
        return self._send("sweep", lambda job: SweepRequest(job=job, specs=tuple(specs),
                                                            **fields))

    def export_chain(self, folder: str, kinds: Sequence[str],
                     spec: str | StrategySpec | None = None) -> int | None:
        """Write the chain of result ``spec`` of the run shown (default: the one the Heatmaps
        tab shows) into ``folder`` as each of ``kinds`` (ktx2, dds, exr), named after the
        result, in the compare worker (a live profile keeps running); returns the job id, None
        once the window is closing. sigExported follows, or an error dialog. Raises ValueError
        without a run, or for a result or kind it does not have."""
        return self._send_compare(
            lambda job: exporting.export_request(self, job, folder, kinds, spec), "export")

    # --- profiling: saved runs, baselines, the sampled preview ------------------------------
    def open_saved_run(self, path: str) -> bool:
        """Show a saved run (``mipview bench --json``) in the chart, as if it had just run: its
        samples, device, driver and clock; a baseline then compares with it. False (and a
        dialog) if the file is not one."""
        return profiling.open_saved_run(self, path)

    def load_baseline(self, path: str) -> bool:
        """Compare the runs shown with a saved run from now on; False (and a dialog) if the file
        is not one (baseline.load_run says why)."""
        return profiling.load_baseline(self, path)

    def use_run_as_baseline(self) -> bool:
        """The run shown (its timings as bench's JSON has them) becomes the baseline: edit a
        shader, run again, and the chart says what changed. False if nothing is timed."""
        return profiling.use_run_as_baseline(self)

    def set_baseline(self, saved: SavedRun | None) -> None:
        """Compare the runs shown with ``saved`` from now on; None: with nothing."""
        profiling.set_baseline(self, saved)

    # held weakly by their OneInFlight: the window's own methods
    def _send_baseline(self) -> int | None:
        return profiling.send_baseline(self)

    def _send_preview(self) -> int | None:
        return profiling.send_preview(self)

    def show_preview(self, kind: str = "plane", tint: bool = False, error: bool = False) -> None:
        """Show the sampled preview dock, as ``kind`` (preview.KINDS), levels tinted or not, or
        their error maps."""
        self.preview.configure(kind, tint, preview.ERROR if error else preview.TEXTURE)
        self.preview_dock.show()

    def profiler_idle(self) -> bool:
        """No baseline comparison or preview is being computed, and the verdicts of the Run
        shown are in the window (automation waits on it: a screenshot shows them)."""
        verdicts_due = self.output is not None and self._run_errors() == [] and (
            self.analysis is None or self.analysis.job != self.output.job)
        return self._baseline_jobs.pending is None and self._preview_jobs.pending is None \
            and not verdicts_due and not self.replies.pending()

    def _run_errors(self) -> list[WorkerError]:
        """The errors the latest Run's job reported (its analysis may never come)."""
        job = self.latest_job("run")
        return [e for e in self.errors if e.job == job]

    def stop(self) -> None:
        """Abandon every GPU job sent so far, and an encode under way, at its next
        checkpoint."""
        self.worker.cancel(self._job)
        encoding.stop(self)

    def _drop_comparisons(self) -> None:
        """The Heatmaps tab gets other data: comparisons still to come are of no use."""
        self.comparer.cancel(self._job)

    def set_device(self, index: str) -> None:
        self.stop()
        self.device_label.setText("device: switching...")
        self._sigDevice.emit(index)

    def is_busy(self) -> bool:
        return bool(self._busy_jobs)

    def shutdown(self, wait: bool = True) -> None:
        """Stop work, close the context in the worker thread and end the threads; with
        ``wait``, return once they have ended (a stopped job ends at its next checkpoint)."""
        # the UI thread may wait for the workers below: they must not wait for its heartbeat
        self.heartbeat.stop()
        threads = [t for t in (self.thread_, self.compare_thread) if t.isRunning()]
        if threads and not self._closing:
            self._closing = True
            self.stop()
            self._drop_comparisons()
            self._sigShutdown.emit()
        self.shaders.shutdown(wait)
        self.replies.drop()
        for view in (self.pyramid, self.heatmap, self.batch.pyramid):
            view.shutdown()
        for thread in threads if wait else ():
            if not thread.wait(30_000):
                thread.quit()
                thread.wait()
        # a view's pixel job emits to its pool: over before whoever waits destroys the window
        for pool in self.findChildren(PixelPool) if wait else ():
            pool.shutdown(wait=True)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Closing never joins a busy thread on the UI thread: the workers are told to stop and
        end their threads by themselves; whoever ran the event loop joins them after it
        (``mipview gui``, the tests' fixtures) by calling :meth:`shutdown`."""
        self.save_settings()
        self.shutdown(wait=False)
        super().closeEvent(event)

    # --- drag and drop ----------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        opening.drag_enter(event)

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        opening.drop(self, event)

    # --- worker results ---------------------------------------------------------------------
    def _on_reply(self, msg: object) -> None:
        """A worker's result: to the handler ``_routes`` has for its type, in its turn
        (``replies``)."""
        route = self._routes.get(type(msg))
        if route is None:  # a message no one would show: the route line is missing
            raise TypeError(f"MainWindow has no route for {type(msg).__name__}: add "
                            f"{type(msg).__name__} to ROUTES in mipview.ui.window.replies")
        self.replies.call(lambda: route(self, msg))

    def _on_worker_finished(self, job: int) -> None:
        self.replies.call(lambda: self._on_job_finished(job))  # after the job's replies

    def _on_worker_error(self, err: WorkerError) -> None:
        self.replies.call(lambda: status.show_error(self, err))

    # --- what the next job can run, and the jobs' ends --------------------------------------
    def _update_support(self) -> None:
        src = self.opened.source if self.opened else None
        self.panel.update_support(self.caps, self.current_format(),
                                  src.width if src else 1, src.height if src else 1,
                                  self.run_layers())

    def run_layers(self) -> int:
        """Array layers the next run has: the Layers control's count, else the image's own."""
        n = self.panel.layers_spin.value()
        return n if n > 1 else (self.opened.source.layers if self.opened else 1)

    def _on_progress(self, text: str) -> None:
        self.statusBar().showMessage(text, 4000)

    def _on_job_finished(self, job: int) -> None:
        self._busy_jobs.discard(job)
        self._baseline_jobs.finished(job)
        self._preview_jobs.finished(job)
        self.progress.busy()  # for the next job
        self._set_busy()
        self.heatmap.job_finished(job)
        if self._is_latest("run", job) and (self.output is None or self.output.job != job):
            # stopped or failed before its levels came: no empty panels left for them
            self.pyramid.discard_prepared()
        if self._is_latest("run", job) and self.output is not None and not self.run_label.text():
            self.run_label.setText(f"last run: {len(self.output.mip.results)} strategies")
        if self.pyramid.filling and self.output is not None and self.output.job == job:
            # finished once its levels are shown (run_replies.run_filled)
            self._finished_unshown = job
            return
        self.sigJobFinished.emit(job)

    def _set_busy(self) -> None:
        busy = self.is_busy()
        self.panel.set_busy(busy)
        self.batch.set_busy(busy)
        self.sweep.set_busy(busy)
        self.progress.setVisible(busy)

    #: the handler of each reply type (replies.ROUTES)
    _routes: ClassVar[dict[type, Callable[[QMainWindow, Any], None]]] = replies.ROUTES

    def screenshot(self, path: str) -> bool:
        return self.grab().save(path, "PNG")


__all__ = ["REFERENCE_KEY", "MainWindow", "make_settings"]
