"""The main window: wires the strategy panel, the three views and the GPU worker together.

The window owns three worker threads: the :class:`GpuWorker` (every Vulkan call), a
:class:`CpuWorker` (strategy-against-strategy heatmaps) and, through the Custom shaders dock
(:mod:`mipview.ui.panels.shader_panel`), a shader compiler. It sends each request, a frozen dataclass
with a job id, by one queued signal per worker, keeps the latest request of each kind, and
applies a result only when it belongs to that job (so a stopped or superseded job's late results
are dropped); it never waits on a worker.

Every result comes back by the worker's one ``sigReply`` (a frozen dataclass of
:mod:`mipview.ui.messages`) to :meth:`MainWindow._on_reply`, which calls the handler that the
route table ``_routes`` has for its type; a type without a route is a bug and raises. A new view
is one view file, one message in :mod:`mipview.ui.messages` and one route line in ``_routes``.
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

Profile menu: a saved run (bench --json) shown in the chart, a baseline (a saved run, or the run
shown) whose deltas the chart draws beside each bar (baseline.compare_runs in the compare
worker), the distributions beside the bars, and the sampled preview dock.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QTabWidget,
    QWidget,
)

from mipview.core.formats import Format
from mipview.core.results import RunResult
from mipview.core.specs import StrategySpec
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.io import containers
from mipview.io.imageio import SourceImage
from mipview.runs import preview, volume
from mipview.runs.baseline import BaselineError, SavedRun, load_run
from mipview.ui import steps
from mipview.ui.dialogs.export_dialog import ExportDialog
from mipview.ui.dialogs.shortcuts_dialog import ShortcutsDialog
from mipview.ui.heartbeat import Heartbeat
from mipview.ui.messages import (
    BaselineDeltas,
    BaselineRequest,
    BatchOutput,
    BatchRequest,
    CompareRequest,
    Comparison,
    DeviceList,
    DeviceReady,
    DeviceRunOutput,
    DeviceRunRequest,
    ExportOutput,
    ExportRequest,
    LevelsReady,
    LiveStats,
    OpenedImage,
    OpenRequest,
    PreviewOutput,
    PreviewRequest,
    ReferenceReady,
    RunAnalysed,
    RunRequest,
    StrategyAnalysed,
    SweepOutput,
    SweepProgress,
    SweepRequest,
    TimingPhase,
    VolumeRan,
    WorkerError,
    saved_stats,
)
from mipview.ui.panels.busy_bar import BusyBar
from mipview.ui.panels.shader_panel import ShaderPanel
from mipview.ui.panels.strategy_panel import AUTO_FORMAT, StrategyPanel
from mipview.ui.settings import make_settings, string_list
from mipview.ui.views.batch_view import BatchView
from mipview.ui.views.heatmap_view import HeatmapView
from mipview.ui.views.pixel_pool import PixelPool
from mipview.ui.views.preview_view import PreviewView
from mipview.ui.views.pyramid_view import REFERENCE_KEY, PyramidView
from mipview.ui.views.sweep_view import SweepView
from mipview.ui.views.timing_chart import DISTRIBUTION_VIEW, HISTORY_VIEW, TimingChart
from mipview.ui.views.viewer_actions import build_viewer_menus
from mipview.ui.workers.cpu_worker import CpuWorker, timed_run_dict
from mipview.ui.workers.gpu_worker import GpuWorker
from mipview.ui.workers.jobs import OneInFlight, worker_thread

IMAGE_FILTER = ("Images (*.png *.jpg *.jpeg *.tif *.tiff *.bmp *.gif *.tga *.webp "
                + " ".join(f"*{s}" for s in containers.SUFFIXES) + ");;All files (*)")
MAX_RECENT = 10
#: live profiling compares with the baseline at most this often, seconds
BASELINE_EVERY_S = 1.0


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
        self.shaders.sigPartsChanged.connect(self._fit_shader_dock)
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
        self._build_status()
        self._build_menus()

        self.panel.sigRun.connect(self.run)
        self.panel.sigStop.connect(self.stop)
        self.panel.sigDeviceChosen.connect(self.set_device)
        self.panel.sigChanged.connect(self._update_support)
        self.batch.sigRun.connect(self.run_batch)
        self.batch.sigStop.connect(self.stop)
        self.sweep.sigRun.connect(self.run_sweep)
        self.sweep.sigStop.connect(self.stop)
        self.pyramid.sigFilled.connect(self._run_filled)
        self.pyramid.sigHover.connect(lambda t: self.statusBar().showMessage(t, 3000) if t else None)
        self.heatmap.sigCompare.connect(self._compare)
        self.heatmap.sigError.connect(self._on_error)  # a saved run that does not fit
        self.heatmap.sigRunOnDevice.connect(self._run_on_device)
        self.shaders.sigLoaded.connect(self._on_shader_loaded)
        self.shaders.sigRemoved.connect(self.panel.remove_custom)
        self.shaders.sigError.connect(self._on_error)
        self.shaders.sigProgress.connect(self._on_progress)
        self.shaders.sigCompiled.connect(self._tell_shader_problems)

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

    def _fit_shader_dock(self) -> None:
        """The Custom shaders dock as tall as what it holds: one line while empty (the room goes
        to the Setup panel above), its list and messages once it has some; the Setup panel's
        minimum height keeps every strategy in view either way."""
        dock = self.shader_dock
        want = self.shaders.sizeHint().height()
        if dock.isVisible():  # else the sizes are not laid out yet
            want += max(0, dock.height() - self.shaders.height())  # its title bar
            # the room comes from the Setup panel, down to its minimum, not from the chart
            # below: long messages scroll instead
            spare = self.panel_dock.height() - self.panel_dock.minimumSizeHint().height()
            want = min(want, dock.height() + max(0, spare))
        self.resizeDocks([dock], [want], Qt.Orientation.Vertical)

    def _build_status(self) -> None:
        bar = self.statusBar()
        self.device_label = QLabel("device: starting...")
        self.image_label = QLabel("no image")
        self.run_label = QLabel("")
        self.progress = BusyBar()
        self.progress.setMaximumWidth(120)
        self.progress.setVisible(False)
        for w in (self.device_label, self.image_label, self.run_label):
            w.setStyleSheet("padding: 0 8px;")
            bar.addPermanentWidget(w)
        bar.addPermanentWidget(self.progress)

    def _build_menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        act = QAction("&Open...", self, shortcut=QKeySequence.StandardKey.Open)
        act.triggered.connect(self._open_dialog)
        m.addAction(act)
        self.recent_menu = m.addMenu("Open &Recent")
        samples = m.addMenu("Open &Sample")
        try:
            from mipview.io import samples as sample_mod

            for name in sample_mod.SAMPLES:
                a = QAction(name, self)
                a.triggered.connect(lambda _=False, n=name: self.open_image(
                    str(sample_mod.sample_path(n))))
                samples.addAction(a)
        except ImportError:
            samples.setEnabled(False)
        m.addSeparator()
        self.export_action = QAction("&Export chain...", self)
        self.export_action.setToolTip("Write the chain of the result shown as KTX2, DDS or EXR")
        self.export_action.triggered.connect(self._export_dialog)
        self.export_action.setEnabled(False)
        m.addAction(self.export_action)
        for text, fn in (("Export timings as &CSV...", self._export_csv),
                         ("Export chart as &PNG...", self._export_png),
                         ("Save &window screenshot...", self._save_screenshot)):
            a = QAction(text, self)
            a.triggered.connect(fn)
            m.addAction(a)
        m.addSeparator()
        a = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit)
        a.triggered.connect(self.close)
        m.addAction(a)
        r = self.menuBar().addMenu("&Run")
        for text, key, fn in (("&Run", "Ctrl+R", lambda: self.run(False)),
                              ("Profile &live", "Ctrl+L", lambda: self.run(True)),
                              ("&Stop", "Escape", self.stop)):
            a = QAction(text, self, shortcut=QKeySequence(key))
            a.triggered.connect(fn)
            r.addAction(a)
        v = self.menuBar().addMenu("&View")
        v.addAction(self.panel_dock.toggleViewAction())
        v.addAction(self.chart_dock.toggleViewAction())
        v.addAction(self.shader_dock.toggleViewAction())
        for text, key, fn in (("&Fit", "F", self.pyramid.fit), ("&1:1", "1", self.pyramid.one_to_one)):
            a = QAction(text, self, shortcut=QKeySequence(key))
            a.triggered.connect(fn)
            v.addAction(a)
        self.viewer_actions = build_viewer_menus(self)
        self._build_profile_menu()
        h = self.menuBar().addMenu("&Help")
        a = QAction("&Keyboard shortcuts...", self, shortcut=QKeySequence("F1"))
        a.triggered.connect(lambda: ShortcutsDialog(self).exec())
        h.addAction(a)
        self._rebuild_recent()

    def _build_profile_menu(self) -> None:
        p = self.menuBar().addMenu("&Profile")
        for text, key, fn in (
                ("&Open saved run...", "Ctrl+Shift+O", self._open_saved_dialog),
                ("Load &baseline...", "Ctrl+B", self._baseline_dialog),
                ("&Use the shown run as baseline", "Ctrl+Shift+B", self.use_run_as_baseline),
                ("&Clear baseline", "Ctrl+Alt+B", lambda: self.set_baseline(None))):
            a = QAction(text, self, shortcut=QKeySequence(key))
            a.triggered.connect(fn)
            p.addAction(a)
        p.addSeparator()
        self.distributions_action = QAction("&Distributions beside the bars", self,
                                            checkable=True, shortcut=QKeySequence("Ctrl+D"))
        self.distributions_action.toggled.connect(lambda on: self.chart.set_view(
            DISTRIBUTION_VIEW if on else HISTORY_VIEW))
        self.chart.view_combo.currentTextChanged.connect(
            lambda view: self.distributions_action.setChecked(view == DISTRIBUTION_VIEW))
        p.addAction(self.distributions_action)
        p.addSeparator()
        dock = self.preview_dock.toggleViewAction()
        dock.setText("Sampled &preview")
        dock.setShortcut(QKeySequence("Ctrl+Shift+P"))
        p.addAction(dock)
        p.addAction(self.preview.tint_action)

    # --- recent files & persistence --------------------------------------------------------
    def recent_files(self) -> list[str]:
        return list(self._recent)

    def _add_recent(self, path: str) -> None:
        path = os.path.abspath(path)
        self._recent = ([path] + [p for p in self._recent if p != path])[:MAX_RECENT]
        self._rebuild_recent()

    def _rebuild_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_files():
            a = QAction(path, self)
            a.triggered.connect(lambda _=False, p=path: self.open_image(p))
            self.recent_menu.addAction(a)
        self.recent_menu.setEnabled(bool(self.recent_files()))

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
    def _send(self, kind: str, request: Callable[[int], Any]) -> int:
        """Stop the running job, then send ``request(job id)`` to the GPU worker as the latest
        job of ``kind``; the window is busy until the worker says it finished."""
        self.stop()
        self._job += 1
        req = self._latest[kind] = request(self._job)
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
        current choices); returns the job id."""
        if fields is None:
            self.batch.request_run()  # comes back here through sigRun
            return self.latest_job("batch")
        choice = self.panel.format_choice()
        fmt = None if choice == AUTO_FORMAT else Format.parse(choice)
        return self._send("batch", lambda job: BatchRequest(job=job, fmt=fmt, **fields))

    def run_sweep(self, fields: dict | None = None) -> int | None:
        """Sweep the checked strategies over widths in the worker (``fields``: SweepRequest
        fields; default the Sweep tab's current choices); returns the job id, None if no
        strategy is checked."""
        if fields is None:
            before = self.latest_job("sweep")
            self.sweep.request_run()  # comes back here through sigRun
            return self.latest_job("sweep") if self.latest_job("sweep") != before else None
        specs = self.panel.specs()
        if not specs:
            self.statusBar().showMessage("no runnable strategy is checked", 5000)
            return None
        self.sweep.set_progress(0, fields["last"] - fields["first"] + 1)
        return self._send("sweep", lambda job: SweepRequest(job=job, specs=tuple(specs),
                                                            **fields))

    def export_chain(self, folder: str, kinds: Sequence[str],
                     spec: str | StrategySpec | None = None) -> int:
        """Write the chain of result ``spec`` of the run shown (default: the one the Heatmaps
        tab shows) into ``folder`` as each of ``kinds`` (ktx2, dds, exr), named after the
        result, in the compare worker (a live profile keeps running); returns the job id.
        sigExported follows, or an error dialog. Raises ValueError without a run, or for a
        result or kind it does not have."""
        parsed = containers.parse_kinds(",".join(kinds))
        if self.volume_ran is not None:
            req = self._volume_export(folder, parsed, spec)
        else:
            shown = self.output
            if shown is None or not shown.mip.results:
                raise ValueError("nothing to export: run first")
            results = {str(r.spec): r for r in shown.mip.results}
            key = str(spec) if spec is not None else self.heatmap.strategy()
            if spec is None and key not in results:  # the Heatmaps tab shows no result yet
                key = str(shown.mip.results[0].spec)
            if key not in results:
                raise ValueError(f"the run shown has no result {key!r}")
            res = results[key]
            # a cube map's results are cube maps, unless Layers made their layers
            run = self._latest["run"]
            faces = run.source.faces if run.layers <= 1 else 1
            req = ExportRequest(self._job + 1, os.fspath(folder), res.spec.slug, res.levels,
                                shown.mip.fmt, parsed, faces=faces)
        self._job = req.job
        self._latest["export"] = req
        self._sigCompare.emit(req)
        return req.job

    def _volume_export(self, folder: str, kinds: tuple[str, ...],
                       spec: str | StrategySpec | None) -> ExportRequest:
        """export_chain's request for a result of the volume shown (3D KTX2 and DDS)."""
        ran = self.volume_ran
        assert ran is not None
        results = {volume.result_name(r): r for r in ran.done.results}
        key = str(spec) if spec is not None else next(iter(results), "")
        if key not in results:
            raise ValueError(f"the run shown has no result {key!r}")
        refused = sorted(set(kinds) - set(volume.VOLUME_EXPORT_KINDS))
        if refused:
            raise ValueError(f"{', '.join(refused)} cannot hold a volume: export "
                             f"{' or '.join(volume.VOLUME_EXPORT_KINDS)}")
        return ExportRequest(self._job + 1, os.fspath(folder), volume.result_slug(results[key]),
                             results[key].levels, ran.fmt, kinds, volume=True)

    # --- profiling: saved runs, baselines, the sampled preview ------------------------------
    def open_saved_run(self, path: str) -> bool:
        """Show a saved run (``mipview bench --json``) in the chart, as if it had just run: its
        samples, device, driver and clock; a baseline then compares with it. False (and a
        dialog) if the file is not one."""
        saved = self._load_run(path, "Cannot open saved run")
        if saved is None:
            return False
        self.stop()
        self._job += 1
        self._latest["run"] = None  # a late figure of a stopped run must not replace it
        self.saved_run, self.stats = saved, saved_stats(self._job, saved)
        self.chart.clear()
        self.chart.update_stats(self.stats)
        self.run_label.setText(f"showing saved run {Path(path).name}")
        self._baseline_jobs.request()
        return True

    def load_baseline(self, path: str) -> bool:
        """Compare the runs shown with a saved run from now on; False (and a dialog) if the file
        is not one (baseline.load_run says why)."""
        saved = self._load_run(path, "Cannot load baseline")
        if saved is not None:
            self.set_baseline(saved)
        return saved is not None

    def use_run_as_baseline(self) -> bool:
        """The run shown (its timings as bench's JSON has them) becomes the baseline: edit a
        shader, run again, and the chart says what changed. False if nothing is timed."""
        run = self._timed_run()
        if run is None:
            self.statusBar().showMessage("no timings to use as a baseline: run first", 5000)
            return False
        data = run if isinstance(run, dict) else timed_run_dict(
            run, self.stats.cache, self.stats.runs)
        self.set_baseline(SavedRun(f"the run of {time.strftime('%H:%M:%S')}", data))
        return True

    def set_baseline(self, saved: SavedRun | None) -> None:
        self.baseline_run = saved
        self.chart.set_baseline(None)
        if saved is not None:
            self.statusBar().showMessage(f"baseline: {saved.path}", 5000)
            self._baseline_jobs.request()

    def _load_run(self, path: str, title: str) -> SavedRun | None:
        try:
            return load_run(path)
        except BaselineError as exc:
            self._on_error(WorkerError(-1, title, str(exc)))
            return None

    def _timed_run(self) -> RunResult | dict[str, Any] | None:
        """The run the chart shows with its timings: a saved run's JSON, or the window's run
        (its levels' result with the timings shown); None when nothing is timed."""
        if self.saved_run is not None:
            return self.saved_run.data
        st, out = self.stats, self.output
        if st is None or out is None or st.job != out.job or not st.timings:
            return None
        timings = {str(spec): t for spec, t in st.timings}
        return replace(out.mip, clock=st.clock, results=tuple(
            replace(r, timing=timings.get(str(r.spec))) for r in out.mip.results))

    def _send_compare(self, request: Callable[[int], Any]) -> int | None:
        """Send ``request(job id)`` to the compare worker (a live profile keeps running); None
        once the worker has ended (the window is closing)."""
        if not self.compare_thread.isRunning():
            return None
        self._job += 1
        self._sigCompare.emit(request(self._job))
        return self._job

    def _send_baseline(self) -> int | None:
        run = self._timed_run() if self.baseline_run is not None else None
        if run is None:
            return None
        st = self.stats
        return self._send_compare(lambda job: BaselineRequest(
            job, run, self.baseline_run, st.cache if st else "warm", st.runs if st else 0))

    def _on_baseline(self, deltas: BaselineDeltas) -> None:
        if deltas.job != self._baseline_jobs.last or self.baseline_run is None:
            return
        self.chart.set_baseline(deltas.report)
        self.sigBaselineShown.emit(deltas)

    def _send_preview(self) -> int | None:
        out, name = self.output, self.preview.strategy()
        # the layer the pyramid view shows (of a cube map array: its cube)
        settings = replace(self.preview.settings(), layer=self.pyramid.layer())
        if self.volume_ran is not None:
            return self._send_volume_preview(name, settings)
        results = {str(r.spec): r for r in out.mip.results} if out is not None else {}
        if self.preview_dock.isHidden() or name not in results:
            return None
        levels = results[name].levels
        if settings.show == preview.ERROR:  # its heatmaps, once its analysis is in
            errors = self.heatmap.exact.get(name)
            if errors is None:
                return None
            levels = errors.maps
        return self._send_compare(lambda job: PreviewRequest(
            job, name, levels, out.mip.fmt, settings))

    def _send_volume_preview(self, name: str,
                             settings: preview.PreviewSettings) -> int | None:
        """A volume result's preview: the slice the pyramid view shows, across its axis (the
        view's panels hold the levels turned to it)."""
        ran = self.volume_ran
        if self.preview_dock.isHidden() or ran is None or \
                name not in {volume.result_name(r) for r in ran.done.results}:
            return None
        levels = self.pyramid.panel_levels(name)
        settings = replace(settings, depth=(self.pyramid.layer() + 0.5) / levels[0].shape[0])
        if settings.show == preview.ERROR:
            levels = tuple(a[..., 0] for a in self.pyramid.panel_levels(f"error {name}"))
        return self._send_compare(lambda job: PreviewRequest(job, name, levels, ran.fmt,
                                                             settings))

    def _on_preview(self, out: PreviewOutput) -> None:
        if out.job != self._preview_jobs.last:
            return
        self.preview.set_image(out.image)
        self.sigPreviewShown.emit(out)

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

    def _open_saved_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open saved run", "",
                                              "mipview bench JSON (*.json);;All files (*)")
        if path:
            self.open_saved_run(path)

    def _baseline_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load baseline", "",
                                              "mipview bench JSON (*.json);;All files (*)")
        if path:
            self.load_baseline(path)

    def _compare(self, strategy: str, against: str) -> None:
        """The Heatmaps tab asks for ``strategy`` against ``against`` (another result of the run
        it shows, the strategy's previous version or its levels in a saved run: the tab says
        which levels): a job of the compare worker, which leaves the GPU worker's job running."""
        shown = self.heatmap.output
        if shown is None:
            return
        levels = {str(r.spec): r.levels for r in shown.mip.results}
        baseline = self.heatmap.against_levels(strategy, against)
        if strategy not in levels or baseline is None:
            return
        self._job += 1
        self.heatmap.comparing(strategy, against, self._job)
        self._sigCompare.emit(CompareRequest(self._job, shown.job, strategy, against,
                                             levels[strategy], baseline, shown.mip.fmt))

    def _run_on_device(self, device: str, strategy: str) -> None:
        """The Heatmaps tab asks for ``strategy`` run on device ``device`` from the Run's level
        0: a GPU worker's job (Vulkan's one thread), after the job under way, which it leaves
        running (not ``_send``: a Run's timing goes on while the tab shows its levels)."""
        shown = self.heatmap.output
        levels = {str(r.spec): r.levels for r in shown.mip.results} if shown else {}
        if strategy not in levels:
            return
        queued, self._job = bool(self._busy_jobs), self._job + 1
        self._busy_jobs.add(self._job)  # so Stop is offered, and ends it
        self._set_busy()
        self.heatmap.running_on_device(device, strategy, self._job, queued)
        self._sigRequest.emit(DeviceRunRequest(self._job, device, strategy,
                                               levels[strategy][0], shown.mip.fmt))

    def _on_shader_loaded(self, cls: type, reloaded: bool) -> None:
        """A custom shader compiled: its row among the strategies; after an edit, the latest
        run again (a live profile restarts) if it ran that shader and nothing else runs. The
        chart's history marks the reload when the new version's figures arrive (a changed
        shader digest: timing_chart.history_marks)."""
        self.panel.add_custom(cls)
        last = self._latest.get("run")
        if reloaded and last is not None and cls.name in {s.name for s in last.specs} \
                and self.opened is not None and last.source is self.opened.source \
                and not self._busy_jobs - {last.job}:
            self._send("run", lambda job: replace(last, job=job))

    def _tell_shader_problems(self, name: str) -> None:
        """A shader that stopped compiling is never a dialog (it is saved often, half done):
        one status line says so and what still runs; Custom shaders lists the errors."""
        entry = self.shaders.watch.entries.get(name)
        if entry is not None and entry.problems:
            runs = "the last good version runs" if entry.good else "it runs once it compiles"
            self.statusBar().showMessage(f"{entry.path.name} does not compile ({runs}): "
                                         f"{entry.problems[0].text}", 20000)

    def stop(self) -> None:
        """Abandon every GPU job sent so far, at its next checkpoint."""
        self.worker.cancel(self._job)

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
    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:  # noqa: N802
        files = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not files:
            return
        event.acceptProposedAction()
        files = [f for f in files if f not in self.shaders.add_files(files)]
        if not files:
            return
        if len(files) > 1 or os.path.isdir(files[0]):  # several files or a folder: a batch
            self.batch.set_sources(files)
            self.tabs.setCurrentWidget(self.batch)
        else:
            self.open_image(files[0])

    # --- worker results ---------------------------------------------------------------------
    def _on_reply(self, msg: object) -> None:
        """A worker's result: to the handler ``_routes`` has for its type, in its turn
        (``replies``)."""
        route = self._routes.get(type(msg))
        if route is None:  # a message no one would show: the route line is missing
            raise TypeError(f"MainWindow has no route for {type(msg).__name__}: add "
                            f"{type(msg).__name__} to MainWindow._routes")
        self.replies.call(lambda: route(self, msg))

    def _on_worker_finished(self, job: int) -> None:
        self.replies.call(lambda: self._on_job_finished(job))  # after the job's replies

    def _on_worker_error(self, err: WorkerError) -> None:
        self.replies.call(lambda: self._on_error(err))

    def _on_devices(self, devices: DeviceList) -> None:
        self.panel.set_devices(list(devices.devices), devices.current)
        self.heatmap.set_devices([c.name for c in devices.devices])
        self._on_device_ready(DeviceReady(devices.current))

    def _on_device_ready(self, ready: DeviceReady) -> None:
        caps = self.caps = ready.caps
        if caps is None:
            self.device_label.setText("device: none")
        else:
            self.device_label.setText(f"{caps.name} (subgroup {caps.subgroup_size})")
            self.chart.set_device(caps.name, caps.driver)
        self.batch.update_support(caps)
        self._update_support()

    def _update_support(self) -> None:
        src = self.opened.source if self.opened else None
        self.panel.update_support(self.caps, self.current_format(),
                                  src.width if src else 1, src.height if src else 1,
                                  self.run_layers())

    def run_layers(self) -> int:
        """Array layers the next run has: the Layers control's count, else the image's own."""
        n = self.panel.layers_spin.value()
        return n if n > 1 else (self.opened.source.layers if self.opened else 1)

    def _on_opened(self, opened: OpenedImage) -> None:
        if not self._is_latest("open", opened.job):
            return
        self.opened = opened
        self.output = self.analysis = self.volume_ran = None
        self.export_action.setEnabled(False)
        src = opened.source
        self._add_recent(opened.path)
        self.setWindowTitle(f"mipview - {Path(opened.path).name}")
        self._update_support()
        fmt = self.current_format()
        layers = f"x{src.layers} layers" if src.layers > 1 else ""
        if src.volume:
            layers = f"x{src.depth} volume"
        self.image_label.setText(f"{src.name}: {src.width}x{src.height}{layers} "
                                 f"{fmt.label if fmt else ''} ({src.description})")
        # the levels' display path (colormap, range, Depth): an image looks the same before and
        # after a run
        self.pyramid.set_pyramids([("source", f"{src.name} (source)", (opened.level0,),
                                    opened.fmt)], faces=src.faces, volume=src.volume)
        self._tell_nonfinite(src, fmt)
        self.panel.show_volume([volume.spec_name(*v) for v in volume.window_specs(
            self.panel.specs())] if src.volume else None)
        if src.volume:  # the strategy list is 2D's: say what a Run of this does instead
            self.statusBar().showMessage(
                "a volume: Run makes its chain with " + ", ".join(
                    n for n, _, _ in volume.window_specs([])) + " (with each reduction the "
                "checked strategies ask for); Slice picks the slice shown", 20000)
        self._drop_comparisons()
        self.heatmap.clear()
        self.chart.clear()
        self.preview.clear()
        self.sigImageOpened.emit(opened)
        if self.panel.run_on_open.isChecked() and self.caps is not None:
            self.run(False)

    def _tell_nonfinite(self, src: SourceImage, fmt: Format | None) -> None:
        """Once per opened image: its NaN and +-Inf texels, in the status bar and a dialog
        that does not block (each run's analysis then shows how they propagated)."""
        note = src.nonfinite_note(fmt or src.suggested_format())
        if not note:
            return
        self.statusBar().showMessage(note, 20000)
        self.nonfinite_box = QMessageBox(QMessageBox.Icon.Information, "Non-finite texels",
                                         note, QMessageBox.StandardButton.Ok, self)
        self.nonfinite_box.open()

    def _on_levels_ready(self, out: LevelsReady) -> None:
        if not self._is_latest("run", out.job):
            return
        self.output, self.analysis, self.volume_ran = out, None, None
        self.export_action.setEnabled(True)
        mip = out.mip
        # a cube map's faces, unless the Layers control made the run's layers from its first
        req = self._latest["run"]
        faces = req.source.faces if req.layers <= 1 else 1
        self.pyramid.set_pyramids([(str(r.spec), containers.title(r.spec), r.levels, mip.fmt)
                                   for r in mip.results],
                                  reductions={str(r.spec): r.reduction for r in mip.results},
                                  faces=faces)
        self._drop_comparisons()
        self.heatmap.set_run(out)  # fills in as each strategy's analysis arrives
        self.preview.set_strategies([str(r.spec) for r in mip.results])
        self.preview.set_cube(self.pyramid.cube_count() > 0)
        skipped = [f"skipped {s}: {why}" for s, why in mip.skipped]
        if skipped or out.notes:
            self.statusBar().showMessage("; ".join([*skipped, *out.notes]), 10000)
        self._show_validation(mip.validation_messages)
        if not self.pyramid.filling:  # else once they fill the panels made for them
            self.sigRunShown.emit(out)

    def _run_filled(self) -> None:
        if self.output is not None and self._is_latest("run", self.output.job):
            self.sigRunShown.emit(self.output)
        if self._finished_unshown is not None:
            job, self._finished_unshown = self._finished_unshown, None
            self.sigJobFinished.emit(job)

    def _on_volume(self, ran: VolumeRan) -> None:
        if not self._is_latest("run", ran.job):
            return
        done, shown = ran.done, ran.shown
        entries = [(volume.result_name(r), volume.result_name(r), r.levels, ran.fmt)
                   for r in done.results]
        errors = [(f"error {key}", f"{key}: error against the exact reference ({shown.unit})",
                   shown.errors[key], Format.R32F) for key, _, _, _ in entries]
        self.pyramid.set_pyramids(entries + errors, volume=True)
        self.pyramid.set_reference(shown.reference, ran.fmt)
        self.volume_ran = ran
        self.export_action.setEnabled(bool(done.results))
        self.preview.set_cube(False)
        self.preview.set_strategies([key for key, _, _, _ in entries])
        self._drop_comparisons()
        self.heatmap.clear()
        lines = [f"skipped {s}: {why}" for s, why in done.skipped]
        for name, verdict in done.verdicts.items():
            lines.append(f"{name}: " + ("ok" if verdict.within_tolerance else
                                        "OUT OF TOLERANCE: " + "; ".join(verdict.breaches)))
        self.statusBar().showMessage("; ".join(lines), 20000)
        self.panel.show_volume([volume.result_name(r) for r in done.results], ran=True)
        self._show_validation(done.messages)
        self.sigVolumeShown.emit(ran)

    def _on_timing(self, phase: TimingPhase) -> None:
        if not self._is_latest("run", phase.job):
            return
        self.chart.warming_up(phase)
        self.sigTimingShown.emit(phase)

    def _on_reference(self, ready: ReferenceReady) -> None:
        if not self._is_latest("run", ready.job) or self.output is None:
            return
        self.pyramid.set_reference(ready.reference, ready.fmt)
        self.heatmap.set_reference(ready.reference)
        self.sigReferenceShown.emit(ready)

    def _on_strategy_analysed(self, part: StrategyAnalysed) -> None:
        if not self._is_latest("run", part.job) or self.output is None:
            return
        self.heatmap.add_errors(part.errors)
        if self.preview.settings().show == preview.ERROR:
            self._preview_jobs.request()
        self.progress.show_progress(part.done, part.total)
        self.sigStrategyShown.emit(part)

    def _on_analysis(self, analysis: RunAnalysed) -> None:
        if not self._is_latest("run", analysis.job) or self.output is None:
            return
        self.analysis = analysis
        for errors in analysis.errors:  # each came as a StrategyAnalysed: shown already
            self.heatmap.add_errors(errors)
        self._show_verdicts(analysis)
        self.progress.busy()
        self.sigAnalysisShown.emit(analysis)

    def _show_verdicts(self, analysis: RunAnalysed) -> None:
        """Each result's verdict where the user looks: the status bar (out of tolerance first),
        and the title of its panel and the line of its Setup row when out of tolerance."""
        bad = {str(e.spec): e.verdict.summary() for e in analysis.errors
               if not e.within_tolerance}
        self.pyramid.set_verdicts(bad)
        self.panel.show_verdicts({e.spec.name: e.verdict.summary() for e in analysis.errors
                                  if not e.within_tolerance})
        ok = [str(e.spec) for e in analysis.errors if e.within_tolerance]
        lines = [f"{name}: {summary}" for name, summary in bad.items()]
        if ok:
            lines.append(("all ok: " if not bad else "ok: ") + ", ".join(ok))
        self.statusBar().showMessage("verdicts: " + "; ".join(lines), 0 if bad else 20000)

    def _on_compared(self, comparison: Comparison) -> None:
        # the view drops a comparison of levels it no longer shows
        if self.heatmap.set_comparison(comparison):
            self.sigComparisonShown.emit(comparison)

    def _on_exported(self, out: ExportOutput) -> None:
        if not self._is_latest("export", out.job):
            return
        folder = Path(out.files[0]).parent if out.files else ""
        self.statusBar().showMessage(f"wrote {len(out.files)} file(s) to {folder}", 10000)
        self.sigExported.emit(out)

    def _on_stats(self, stats: LiveStats) -> None:
        if not self._is_latest("run", stats.job):
            return
        self.saved_run, self.stats = None, stats
        self.chart.update_stats(stats)
        now = time.monotonic()
        # a bootstrap per figure: during live profiling at most every BASELINE_EVERY_S, so
        # the comparison does not take the cores the device (lavapipe) and the UI need
        if stats.final or now - self._baseline_sent >= BASELINE_EVERY_S:
            self._baseline_sent = now
            self._baseline_jobs.request()
        if stats.final and stats.timings:
            best = min(stats.timings, key=lambda st: st[1].total.median)
            self.run_label.setText(f"last run: {len(stats.timings)} strategies, "
                                   f"{stats.runs} runs each; fastest {best[0]} "
                                   f"{best[1].total.median:.1f} us")
        self.sigStatsShown.emit(stats)

    def _on_batch(self, out: BatchOutput) -> None:
        if not self._is_latest("batch", out.job):
            return
        self.batch.set_result(out.result)
        self._show_validation(out.result.validation_messages)
        self.sigBatchShown.emit(out)

    def _on_sweep_progress(self, p: SweepProgress) -> None:
        if self._is_latest("sweep", p.job):
            self.sweep.set_progress(p.done, p.total)

    def _on_sweep(self, out: SweepOutput) -> None:
        if not self._is_latest("sweep", out.job):
            return
        self.sweep.set_result(out.result)
        self._show_validation(out.result.validation_messages)
        self.sigSweepShown.emit(out)

    def _show_validation(self, messages: list[str] | tuple[str, ...]) -> None:
        if messages:
            self.statusBar().showMessage(
                f"{len(messages)} Vulkan validation message(s): {messages[0][:200]}", 20000)

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
            self._finished_unshown = job  # finished once its levels are shown (_run_filled)
            return
        self.sigJobFinished.emit(job)

    def _set_busy(self) -> None:
        busy = self.is_busy()
        self.panel.set_busy(busy)
        self.batch.set_busy(busy)
        self.sweep.set_busy(busy)
        self.progress.setVisible(busy)

    def _on_error(self, err: WorkerError) -> None:
        self.errors.append(err)
        box_text = err.message if not err.detail else f"{err.message}\n\n{err.detail[-1500:]}"
        if err.job == self.latest_job("open") and self.opened is not None:
            box_text += (f"\n\n{Path(self.opened.path).name} stays open; open another file "
                         f"with File > Open, or drop one on the window.")
        if self.error_dialogs:
            QMessageBox.critical(self, err.title, box_text)
        self.sigErrorShown.emit(err)

    #: the handler of each reply type, whichever worker sent it. Functions, not bound methods:
    #: a window holding its own bound methods is a reference cycle (see jobs.OneInFlight).
    _routes: ClassVar[dict[type, Callable[[MainWindow, Any], None]]] = {
        DeviceList: _on_devices,
        DeviceReady: _on_device_ready,
        OpenedImage: _on_opened,
        LevelsReady: _on_levels_ready,
        TimingPhase: _on_timing,
        LiveStats: _on_stats,
        ReferenceReady: _on_reference,
        StrategyAnalysed: _on_strategy_analysed,
        RunAnalysed: _on_analysis,
        BatchOutput: _on_batch,
        SweepProgress: _on_sweep_progress,
        SweepOutput: _on_sweep,
        Comparison: _on_compared,
        DeviceRunOutput: lambda self, out: self.heatmap.set_device_run(out),
        ExportOutput: _on_exported,
        BaselineDeltas: _on_baseline,
        PreviewOutput: _on_preview,
        VolumeRan: _on_volume,
    }

    # --- dialogs ----------------------------------------------------------------------------
    def _open_dialog(self) -> None:
        start = str(Path(self.recent_files()[0]).parent) if self.recent_files() else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open image", start, IMAGE_FILTER)
        if path:
            self.open_image(path)

    def _export_dialog(self) -> None:
        if self.volume_ran is not None:
            names = [volume.result_name(r) for r in self.volume_ran.done.results]
            dialog = ExportDialog([StrategySpec.parse(n) for n in names], names[0],
                                  self._export_folder, self,
                                  offered=volume.VOLUME_EXPORT_KINDS)
        elif self.output is not None:
            dialog = ExportDialog([r.spec for r in self.output.mip.results],
                                  self.heatmap.strategy(),
                                  self._export_folder, self)
        else:
            return
        if dialog.exec() != ExportDialog.DialogCode.Accepted:
            return
        self._export_folder = dialog.folder()
        self.export_chain(dialog.folder(), dialog.kinds(), dialog.spec())

    def _export_csv(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export timings", "timings.csv", "CSV (*.csv)")
        if path:
            self.chart.export_csv(path)

    def _export_png(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export chart", "chart.png", "PNG (*.png)")
        if path:
            self.chart.export_png(path)

    def _save_screenshot(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save screenshot", "mipview.png",
                                              "PNG (*.png)")
        if path:
            self.screenshot(path)

    def screenshot(self, path: str) -> bool:
        return self.grab().save(path, "PNG")


__all__ = ["REFERENCE_KEY", "MainWindow", "make_settings"]
