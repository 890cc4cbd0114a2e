"""The timestamp chart: median GPU time per strategy with whiskers, an optional per-dispatch
stacked breakdown, and beside the bars either a history of recent medians or the distribution
of each strategy's samples (a histogram drawn as a violin, as Tracy shows per zone).

Updates happen in place (``setOpts`` on the existing BarGraphItem / ErrorBarItem, ``setData`` on
the history curves), so live profiling redraws without clearing and re-adding items. The figures
drawn are ``LiveStats.figures``, computed in the worker thread; the UI thread sorts no samples.
Axes are the dearest part of a live repaint: an axis is redrawn whenever its range moves, and
grid lines at every minor tick tripled that. So grid lines follow the major ticks only, and the
ranges move only when the data leave them or fill less than half of them (``steady_range``).
An item is set only when what it shows changed (``_changed``): pyqtgraph redraws an item (its
picture, bounds and its view's) on every set, even of the same data, and a Run redraws the chart
several times with the same figures (the final ones, then the baseline's verdict). An empty
chart (a Run warming up) keeps its strategies' slots and its range: the next figures are most
often of the same strategies, at the same scale.

An encode of a result (the Heatmaps tab's Encode) adds a third plot, its CPU time per level
(:mod:`~mipview.ui.views.cpu_time_plot`), labelled CPU: not a GPU timestamp; the next Run takes
it away.

The header says what the figures are worth: the SM and memory clock seen while timing (or that
the device's clock cannot be read), in a warning colour when it moved; "warming up" until the
first figures after the warm-up. A strategy whose samples drifted (``TimingFigures.drift``) gets
a hatched bar outlined in red and "drifting" in its label, not a clean bar. The history marks
each change of device, strategies and options, shader file or clock with a labelled line.
When the clock changed mid-run a banner says so (``ClockState.warning``): such figures are not
comparable. The device's driver is in the title.

A baseline (a saved run, mipview/runs/baseline.py) puts its median as a tick on each bar and the
change at its foot: ``0.97x [0.95, 0.99] faster`` or ``within noise``, the bootstrap verdict of
``baseline.compare_runs`` (computed off the UI thread, :meth:`set_baseline`).

Signals
-------
sigUpdated()   after every statistics update is drawn (the history's curves follow in a step)
"""

from __future__ import annotations

import csv
from collections import deque
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from mipview.core.results import ClockState
from mipview.core.specs import CUSTOM_PREFIX, StrategySpec
from mipview.runs.baseline import FASTER, SLOWER, WITHIN_NOISE, BaselineReport
from mipview.ui import steps
from mipview.ui.messages import LiveStats, TimingFigures, TimingPhase
from mipview.ui.panels.steady_label import SteadyLabel
from mipview.ui.views.cpu_time_plot import CpuTimePlot
from mipview.ui.views.steady_axis import reserve_tick_text

#: colour-blind-friendly (Okabe-Ito) for strategies; a second ramp for stacked dispatches
PALETTE = ["#56B4E9", "#E69F00", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
           "#999999"]
HISTORY = 300
#: marks kept in the history (the oldest go first)
MAX_MARKS = 20
#: drifting bars and a clock that moved
WARNING = "#ff5a4a"
#: an SM clock that moved by more than this fraction between updates is a change in the history
CLOCK_STEP = 0.1
#: beside the bars: the history of medians, or each strategy's distribution
HISTORY_VIEW = "history"
DISTRIBUTION_VIEW = "distributions"
#: a violin's half width at its fullest bin, in bar slots
VIOLIN_HALF = 0.4
#: colours of a baseline verdict (anything else: grey)
DELTA_COLOURS = {FASTER: "#3ddc84", SLOWER: WARNING, WITHIN_NOISE: "#c8c8c8"}


def time_bar_plot(plot: pg.PlotItem, axis: str, title: str) -> pg.BarGraphItem:
    """Style ``plot`` as a fixed bar chart of GPU microseconds and add its (empty) bars: the
    live timing chart and the batch view look alike."""
    plot.setLabel("left", axis, units="us")
    plot.getAxis("left").enableAutoSIPrefix(False)
    plot.showGrid(y=True, alpha=0.25)
    time_axes(plot)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setTitle(title)
    bars = pg.BarGraphItem(x=[], height=[], width=0.6)
    plot.addItem(bars)
    return bars


def time_axes(plot: pg.PlotItem) -> None:
    """Ticks, labels and grid lines at the major ticks only (see the module docstring), and
    room for microseconds up to six digits, so a growing time never re-lays the plot out."""
    for name in ("left", "bottom"):
        plot.getAxis(name).setStyle(maxTickLevel=0)
        reserve_tick_text(plot.getAxis(name), "000000")


def steady_range(current: tuple[float, float], lo: float, hi: float,
                 min_span: float = 1e-3) -> tuple[float, float] | None:
    """A range (>= 0) that shows ``lo``..``hi``, or None to keep ``current``: it changes only
    when the data leave it or fill less than half of it, and then with a quarter of headroom on
    each side, so data that creep up do not move it at every update. ``min_span``: data closer
    than that count as that far apart (one point gets a range of ``min_span / 2``, whose ticks
    read plainly, not 0.9998-1.0002)."""
    span = max(hi - lo, min_span)
    width = current[1] - current[0]
    if current[0] <= lo and hi <= current[1] and 2 * span >= width and 2 * width >= min_span:
        return None
    return max(0.0, lo - span / 4), hi + span / 4


def chart_title(device: str, driver: str = "") -> str:
    """The bar plot's title on ``device``: set when the device is chosen, the same text live
    statistics bring, so their first update does not change it (a longer title widens its
    column: the chart's plots were laid out and painted again in that turn, 50 ms on lavapipe)."""
    return f"GPU time per strategy — {device}" + (f" (driver {driver})" if driver else "")


def clock_text(stats: LiveStats) -> str:
    """The header's clock part: the clocks seen, or why there are none."""
    if stats.clock is None:
        return f"clock: not readable on {stats.device}"
    prefix = "clock CHANGED while timing: " if stats.clock.changed else ""
    return prefix + stats.clock.label()


def _sm_median(clock: ClockState | None) -> float | None:
    sm = [s.sm_mhz for s in clock.samples] if clock is not None else []
    return float(np.median(sm)) if sm else None


def history_marks(before: LiveStats | None, now: LiveStats) -> list[str]:
    """Short labels of what changed from the update ``before`` to ``now`` (device, strategies
    or their options, a custom shader's file, the SM clock by more than CLOCK_STEP or a clock
    that started moving): figures on either side of such a change are not comparable."""
    if before is None:
        return []
    out = []
    if now.device != before.device:
        out.append(f"device: {now.device}")
    was, specs = [str(s) for s, _ in before.timings], [str(s) for s, _ in now.timings]
    if specs != was:
        gone = [s for s in was if s not in specs]
        new = [s for s in specs if s not in was]
        out.append(" ".join([f"+{s}" for s in new] + [f"-{s}" for s in gone]) or "order")
    edited = [s for s, digest in now.shaders if dict(before.shaders).get(s, digest) != digest]
    if edited:  # a custom shader's file changed under the same spec: it was reloaded
        out.append("reloaded " + ", ".join(_shader_file(s) for s in edited))
    sm0, sm1 = _sm_median(before.clock), _sm_median(now.clock)
    if sm0 and sm1 and abs(sm1 - sm0) > CLOCK_STEP * sm0:
        out.append(f"clock {sm0:.0f}->{sm1:.0f} MHz")
    elif now.clock is not None and now.clock.changed and not (
            before.clock is not None and before.clock.changed):
        out.append("clock moving")
    return out


def _shader_file(spec: str) -> str:
    """``shader:/path/to/x.comp:KEY=V`` -> ``x.comp``."""
    return Path(StrategySpec.parse(spec).name[len(CUSTOM_PREFIX):]).name


def _stack_colour(i: int, n: int) -> tuple[int, int, int]:
    c = pg.colormap.get("viridis").map(0.15 + 0.8 * (i / max(1, n - 1)), mode="byte")
    return int(c[0]), int(c[1]), int(c[2])


def _bar_brush(colour: str, drifting: bool) -> QBrush:
    """A strategy's bar: plain, or hatched when its samples drifted."""
    if not drifting:
        return pg.mkBrush(colour)
    return QBrush(QColor(colour), Qt.BrushStyle.BDiagPattern)


class TimingChart(QWidget):
    sigUpdated = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.breakdown_check = QCheckBox("Per-dispatch breakdown")
        self.breakdown_check.toggled.connect(lambda _: self._redraw())
        self.whisker_combo = QComboBox()
        self.whisker_combo.addItems(["p5-p95", "min-max"])
        self.whisker_combo.currentIndexChanged.connect(lambda _: self._redraw())
        self.view_combo = QComboBox()
        self.view_combo.addItems([HISTORY_VIEW, DISTRIBUTION_VIEW])
        self.view_combo.setToolTip("Beside the bars: the history of medians, or the "
                                   "distribution of each strategy's samples")
        self.view_combo.currentTextChanged.connect(self._show_view)
        self.info = SteadyLabel()
        # a steady label in a share of the bar of its own: the clock's text comes and goes
        # with each Run, and a QLabel's change laid out the dock and the window each time
        self.clock_label = SteadyLabel()
        self.clock_label.label.setAlignment(Qt.AlignmentFlag.AlignRight
                                            | Qt.AlignmentFlag.AlignVCenter)
        bar.addWidget(self.breakdown_check)
        bar.addWidget(QLabel("whiskers"))
        bar.addWidget(self.whisker_combo)
        bar.addWidget(self.view_combo)
        bar.addWidget(self.info, 3)
        bar.addWidget(self.clock_label, 2)
        lay.addLayout(bar)
        #: the clock changed mid-run: the figures are not comparable
        self.warning_label = QLabel("")
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet(f"color: {WARNING}; font-weight: bold;")
        self.warning_label.setVisible(False)
        lay.addWidget(self.warning_label)
        self.baseline_label = QLabel("")
        self.baseline_label.setWordWrap(True)
        self.baseline_label.setVisible(False)
        lay.addWidget(self.baseline_label)

        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("#1e1f22")
        self.graphics.setMinimumHeight(180)
        lay.addWidget(self.graphics, 1)
        self.plot = self.graphics.addPlot(row=0, col=0)
        self.bars = time_bar_plot(self.plot, "GPU time", "GPU time per strategy")
        self.whiskers = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), beam=0.2,
                                        pen=pg.mkPen("#e8e8e8", width=1.5))
        self.plot.addItem(self.whiskers)
        self.stack: list[pg.BarGraphItem] = []
        self.value_labels: list[pg.TextItem] = []

        self.history_plot = self.graphics.addPlot(row=0, col=1)
        self.history_plot.setLabel("left", "median", units="us")
        self.history_plot.getAxis("left").enableAutoSIPrefix(False)
        self.history_plot.setLabel("bottom", "update")
        self.history_plot.showGrid(x=True, y=True, alpha=0.2)
        time_axes(self.history_plot)
        self.history_plot.disableAutoRange()  # steady_range instead
        self.history_plot.setTitle("history")
        self.history_plot.addLegend(offset=(-5, 5), labelTextSize="8pt")
        self.dist_plot = pg.PlotItem()
        self.dist_plot.setLabel("left", "GPU time", units="us")
        self.dist_plot.getAxis("left").enableAutoSIPrefix(False)
        self.dist_plot.showGrid(y=True, alpha=0.2)
        time_axes(self.dist_plot)
        self.dist_plot.setMouseEnabled(x=False, y=False)
        self.dist_plot.hideButtons()
        self.dist_plot.setTitle("distribution of the samples")
        #: one violin (a BarGraphItem of horizontal bins) per strategy, and the medians
        self.violins: list[pg.BarGraphItem] = []
        self.dist_medians = pg.ScatterPlotItem(symbol="_", size=26,
                                               pen=pg.mkPen("#f0f0f0", width=2))
        self.dist_plot.addItem(self.dist_medians)
        #: the baseline's median of each bar, and the change under it
        self.baseline: BaselineReport | None = None
        self.baseline_ticks = pg.ScatterPlotItem(symbol="_", size=34,
                                                 pen=pg.mkPen("#ffffff", width=2.5,
                                                              style=Qt.PenStyle.DashLine))
        self.plot.addItem(self.baseline_ticks)
        self.delta_labels: list[pg.TextItem] = []
        self.graphics.ci.layout.setColumnStretchFactor(0, 3)
        self.graphics.ci.layout.setColumnStretchFactor(1, 2)
        #: an encode's CPU time per level, in the third column while shown
        self.cpu = CpuTimePlot()
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.history: dict[str, deque[tuple[int, float]]] = {}
        self._tick = 0
        #: the history's curves wait for their step (update_stats)
        self._history_due = False
        #: (x, label) of each mark in the history, oldest first (lines in ``_mark_lines``)
        self.marks: deque[tuple[float, str]] = deque()
        self._mark_lines: deque[pg.InfiniteLine] = deque()
        self._last: LiveStats | None = None
        #: what each item was last set from (``_changed``)
        self._drawn: dict[object, tuple] = {}

        self.stats: LiveStats | None = None
        self.names: list[str] = []
        self.updates = 0

    # --- data -----------------------------------------------------------------------------
    def clear(self) -> None:
        self.stats = None
        self.names = []
        self._redraw()

    def warming_up(self, phase: TimingPhase) -> None:
        """A run's timing began: no bars until its first figures, which come after the
        warm-up (the history starts there too)."""
        self.clear()
        what = "live profiling" if phase.live else "timing"
        self.info.setText(f"  warming up {phase.warmup_ms / 1000:.1f} s on {phase.device}…, "
                          f"then {what}")
        self._set_clock_label("", False)

    def update_stats(self, stats: LiveStats) -> None:
        """Draw ``stats`` in place; every call adds one point per strategy to the history."""
        self.stats = stats
        self._tick += 1
        for (spec, _), fig in zip(stats.timings, stats.figures, strict=True):
            self.history.setdefault(str(spec), deque(maxlen=HISTORY)).append(
                (self._tick, fig.median))
        for label in history_marks(self._last, stats):
            self.add_mark(label, self._tick - 0.5)
        self._last = stats
        self._redraw()
        # ranges and transforms now, not while painting: changes made in a paint cost a second
        self.plot.getViewBox().prepareForPaint()
        if not self._history_due:
            # the history in a step of its own (one for updates that come meanwhile): a Run's
            # first figures with it took 25-35 ms of the UI thread on lavapipe's 2 cores
            self._history_due = True
            steps.later(self._draw_history, self)
        self.updates += 1
        self.sigUpdated.emit()

    def _draw_history(self) -> None:
        self._history_due = False
        self._update_history()
        self.history_plot.getViewBox().prepareForPaint()

    def add_mark(self, label: str, x: float | None = None) -> None:
        """A vertical line labelled ``label`` in the history at ``x`` (default: after the latest
        update): what changed there (a reloaded shader, other strategies, the clock) holds for
        the points right of it. Marks older than every point of the history, and beyond the
        newest ``MAX_MARKS``, have nothing left to separate and go."""
        x = self._tick + 0.5 if x is None else x
        line = pg.InfiniteLine(pos=x, angle=90, movable=False, label=label,
                               pen=pg.mkPen("#c8c8c8", width=1, style=Qt.PenStyle.DashLine),
                               labelOpts={"position": 0.92, "color": "#e0e0e0",
                                          "anchors": [(0, 0.5), (0, 0.5)]})
        self.history_plot.addItem(line)
        self.marks.append((x, label))
        self._mark_lines.append(line)
        oldest = min((h[0][0] for h in self.history.values() if h), default=self._tick)
        while self.marks and (len(self.marks) > MAX_MARKS or self.marks[0][0] < oldest - 0.5):
            self.marks.popleft()
            self.history_plot.removeItem(self._mark_lines.popleft())

    def view(self) -> str:
        """What is beside the bars: HISTORY_VIEW or DISTRIBUTION_VIEW."""
        return self.view_combo.currentText()

    def set_device(self, device: str, driver: str = "") -> None:
        """Title the bar plot with the device (:func:`chart_title`)."""
        title = chart_title(device, driver)
        if self.plot.titleLabel.text != title:  # setting it re-lays the plot out
            self.plot.setTitle(title)

    def set_view(self, view: str) -> None:
        self.view_combo.setCurrentText(view)

    def _show_view(self, view: str) -> None:
        shown, hidden = (self.dist_plot, self.history_plot) if view == DISTRIBUTION_VIEW \
            else (self.history_plot, self.dist_plot)
        if hidden.scene() is not None:
            self.graphics.removeItem(hidden)
        if shown.scene() is None:
            self.graphics.addItem(shown, row=0, col=1)
        self._redraw()

    def set_baseline(self, report: BaselineReport | None) -> None:
        """Show each bar's change against a saved run (None: no baseline)."""
        self.baseline = report
        if report is None:
            self.baseline_label.setVisible(False)
        else:
            self.baseline_label.setText(f"baseline: {report.baseline}")
            self.baseline_label.setToolTip("\n".join(report.lines()))
            self.baseline_label.setVisible(True)
        self._redraw()

    def baseline_deltas(self) -> dict[str, str]:
        """Per strategy shown, the change against the baseline as its bar says it."""
        return {name: label.toPlainText() for name, label in zip(self.names, self.delta_labels,
                                                                  strict=False)
                if label.isVisible()}

    def distribution(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """The violin of strategy ``i`` as drawn: its bins' lower edges and their widths
        relative to the fullest bin (the counts over the largest count)."""
        opts = self.violins[i].opts
        widths = np.asarray(opts["x1"]) - np.asarray(opts["x0"])
        return np.asarray(opts["y0"]), widths / (2 * VIOLIN_HALF)

    def medians(self) -> list[float]:
        """The heights of the bars as drawn."""
        h = self.bars.opts.get("height")
        return [float(v) for v in (h if h is not None else [])]

    def drifting(self) -> list[str | None]:
        """Per bar, the drift it is flagged with (its label's text), or None: a clean bar."""
        return [label.toolTip() or None for label in self.value_labels[:len(self.names)]]

    def _set_clock_label(self, text: str, warn: bool) -> None:
        self.clock_label.setText(text)
        style = f"color: {WARNING}; font-weight: bold;" if warn else ""
        if self.clock_label.styleSheet() != style:  # setting one re-polishes the label
            self.clock_label.setStyleSheet(style)

    def _changed(self, item: object, *value: object) -> bool:
        """Whether ``item`` was last set from another ``value`` (plain, comparable data: lists,
        not arrays), which it is to be set from now; see the module docstring."""
        if self._drawn.get(item) == value:
            return False
        self._drawn[item] = value
        return True

    def _set_slots(self, plot: pg.PlotItem, names: list[str]) -> None:
        """One slot on ``plot``'s x axis per strategy of ``names``; an empty chart keeps the
        slots it has (see the module docstring)."""
        if names and self._changed(plot.getAxis("bottom"), names):
            plot.getAxis("bottom").setTicks([[(i, n) for i, n in enumerate(names)]])
            plot.setXRange(-0.6, max(0.6, len(names) - 0.4), padding=0)

    def _whisker_bounds(self, f: TimingFigures) -> tuple[float, float]:
        if self.whisker_combo.currentText() == "min-max":
            return f.min, f.max
        return f.p5, f.p95

    def _redraw(self) -> None:
        stats = self.stats
        figures = list(stats.figures) if stats else []
        names = [str(s) for s, _ in stats.timings] if stats else []
        x = np.arange(len(figures), dtype=float)
        med = np.array([f.median for f in figures], dtype=float)
        self.names = names
        self._set_slots(self.plot, names)
        drifting = [f.drift is not None for f in figures]
        if self._changed(self.bars, med.tolist(), drifting):
            brushes = [_bar_brush(PALETTE[i % len(PALETTE)], drift)
                       for i, drift in enumerate(drifting)]
            pens = [pg.mkPen(WARNING, width=2.5) if drift else pg.mkPen("#101010")
                    for drift in drifting]
            if brushes:
                self.bars.setOpts(x=x, height=med, width=0.6, brushes=brushes, pens=pens)
            else:
                self.bars.setOpts(x=x, height=med, width=0.6, brush=None, brushes=None,
                                  pens=None)
        breakdown = self.breakdown_check.isChecked()
        self.bars.setVisible(not breakdown)
        lo_hi = [self._whisker_bounds(f) for f in figures]
        if self._changed(self.whiskers, med.tolist(), lo_hi):
            lo, hi = np.array(lo_hi, dtype=float).reshape(-1, 2).T
            self.whiskers.setData(x=x, y=med, top=hi - med, bottom=med - lo)
        self._draw_stack(figures, x, breakdown)
        self._draw_labels(med, [h for _, h in lo_hi], figures)
        if stats is not None:
            mode = "live" if not stats.final else "final"
            self.set_device(stats.device, stats.driver)
            self.info.setText(f"  {stats.runs} runs per strategy ({mode}, "
                              f"{stats.elapsed_s:.1f} s), median with "
                              f"{self.whisker_combo.currentText()} whiskers, us"
                              + (f"; {sum(drifting)} drifting" if any(drifting) else ""))
            self._set_clock_label(clock_text(stats),
                                  stats.clock is not None and stats.clock.changed)
        warning = stats.clock.warning() if stats is not None and stats.clock is not None \
            else None
        if warning != (self.warning_label.text() or None):
            self.warning_label.setText(warning or "")
            self.warning_label.setVisible(warning is not None)
        baseline_top = self._draw_baseline(names)
        if self.view() == DISTRIBUTION_VIEW:
            self._draw_violins(figures)
        top = max([h for _, h in lo_hi] + [baseline_top])
        y = steady_range(tuple(self.plot.viewRange()[1]), 0.0, top) if top > 0 else None
        if y is not None:  # an empty chart keeps its range (see the module docstring)
            self.plot.setYRange(*y, padding=0)

    def _draw_violins(self, figures: list[TimingFigures]) -> None:
        """Each strategy's histogram (counts computed in the worker) as a violin at its slot."""
        while len(self.violins) < len(figures):
            item = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[])
            self.dist_plot.addItem(item)
            self.violins.append(item)
        for i, item in enumerate(self.violins):
            f = figures[i] if i < len(figures) else None
            if f is None or not f.counts:
                item.setVisible(False)
                continue
            edges, counts = f.bin_edges(), np.asarray(f.counts, dtype=float)
            if self._changed(item, i, edges.tolist(), counts.tolist()):
                half = VIOLIN_HALF * counts / max(1.0, counts.max())
                colour = PALETTE[i % len(PALETTE)]
                item.setOpts(x0=i - half, x1=i + half, y0=edges[:-1], y1=edges[1:],
                             brush=pg.mkBrush(colour), pen=pg.mkPen(colour))
            item.setVisible(True)
        medians = [f.median for f in figures]
        if self._changed(self.dist_medians, medians):
            self.dist_medians.setData(x=np.arange(len(figures), dtype=float), y=medians)
        self._set_slots(self.dist_plot, self.names)
        if figures:
            y = steady_range(tuple(self.dist_plot.viewRange()[1]),
                             min(f.min for f in figures), max(f.max for f in figures))
            if y is not None:
                self.dist_plot.setYRange(*y, padding=0)

    def _draw_baseline(self, names: list[str]) -> float:
        """The baseline's median as a tick on each bar it has, the change at the bar's foot
        (on a dark ground: readable over any bar, and never out of the plot's range); returns
        the highest tick (0 without)."""
        totals = {d.strategy: d for d in self.baseline.deltas if d.mark is None} \
            if self.baseline is not None else {}
        while len(self.delta_labels) < len(names):
            self._add_labels()
        ticks_x, ticks_y = [], []
        for i, label in enumerate(self.delta_labels):
            d = totals.get(names[i]) if i < len(names) else None
            if d is None:
                label.setVisible(False)
                continue
            if d.old_median_us is not None:
                ticks_x.append(i)
                ticks_y.append(d.old_median_us)
            self._set_label(label, d.label(medians=False),
                            DELTA_COLOURS.get(d.verdict, "#a0a0a0"), d.label(), (i, 0.0))
        if self._changed(self.baseline_ticks, ticks_x, ticks_y):
            self.baseline_ticks.setData(x=ticks_x, y=ticks_y)
        return max(ticks_y, default=0.0)

    def _draw_stack(self, figures: list[TimingFigures], x: np.ndarray, visible: bool) -> None:
        depth = max((len(f.marks) for f in figures), default=0) if visible else 0
        while len(self.stack) < depth:
            item = pg.BarGraphItem(x=[], height=[], width=0.6)
            self.plot.addItem(item)
            self.stack.append(item)
        base = np.zeros(len(figures))
        for k, item in enumerate(self.stack):
            if k >= depth:
                item.setVisible(False)
                continue
            h = np.array([f.marks[k][1] if k < len(f.marks) else 0.0 for f in figures])
            if self._changed(item, base.tolist(), h.tolist(), depth):
                item.setOpts(x=x, y0=base.copy(), height=h, width=0.6,
                             brush=pg.mkBrush(*_stack_colour(k, depth)),
                             pen=pg.mkPen("#101010"))
            item.setVisible(True)
            base += h
        labels = {}
        for f in figures:
            for k, (label, _) in enumerate(f.marks):
                labels.setdefault(k, label)
        self.stack_labels = [labels.get(k, "") for k in range(depth)]

    def _draw_labels(self, med: np.ndarray, tops: list[float],
                     figures: list[TimingFigures]) -> None:
        while len(self.value_labels) < len(med):
            self._add_labels()
        for i, label in enumerate(self.value_labels):
            if i >= len(med):
                label.setVisible(False)
                continue
            drift = figures[i].drift
            at = (i, max(tops[i], float(med[i])))
            if drift is None:
                self._set_label(label, f"{med[i]:.1f} us", "#f0f0f0", "", at)
            else:  # the median of a drifting run describes neither its start nor its end
                self._set_label(label, f"{med[i]:.1f} us\ndrifting: {100 * drift.change:+.0f}%",
                                WARNING, drift.label(), at)

    def _add_labels(self) -> None:
        """One more bar's labels, hidden: its median and its change against the baseline."""
        value = pg.TextItem(color="#f0f0f0", anchor=(0.5, 1.0))
        delta = pg.TextItem(anchor=(0.5, 1.0), fill=pg.mkBrush(16, 16, 20, 200))
        delta.setZValue(20)
        for t, labels in ((value, self.value_labels), (delta, self.delta_labels)):
            t.setVisible(False)
            self.plot.addItem(t)
            labels.append(t)

    def show_cpu_times(self, what: str, seconds: list[float] | tuple[float, ...]) -> None:
        """An encode's CPU seconds per level (``what``: ``per-level as bc7``) beside the GPU
        plots."""
        if self.cpu.plot.scene() is None:
            self.graphics.addItem(self.cpu.plot, row=0, col=2)
            self.graphics.ci.layout.setColumnStretchFactor(2, 2)
        self.cpu.show(what, seconds)

    def hide_cpu_times(self) -> None:
        if self.cpu.plot.scene() is not None:
            self.graphics.removeItem(self.cpu.plot)

    def prepare(self, names: list[str]) -> None:
        """Make what a Run of the strategies ``names`` (in bar order) draws ahead, one item per
        turn of the event loop (:data:`steps.STEP_MS` apart): each bar's labels and each strategy's history
        curve. Made with a Run's first figures, they were its longest stall (the curves with
        their legend entries: 40-60 ms for five on 2 cores; docs/bench/window-stalls). An
        encode's CPU times shown were of the Run before: they go."""
        self.hide_cpu_times()
        if len(self.value_labels) < len(names) or any(n not in self.curves for n in names):
            steps.later(lambda: self._prepare_step(names), self)

    def _prepare_step(self, names: list[str]) -> None:
        if len(self.value_labels) < len(names):
            self._add_labels()
        else:
            missing = [n for n in names if n not in self.curves]
            if not missing:
                return
            self._add_curve(missing[0], names.index(missing[0]))
        self.prepare(names)

    def _set_label(self, label: pg.TextItem, text: str, colour: str, tip: str,
                   at: tuple[float, float]) -> None:
        """Show ``label`` with this text, colour and tooltip at ``at``."""
        if self._changed(label, text, colour, tip, at):
            label.setText(text, colour)
            label.setToolTip(tip)
            label.setPos(*at)
        label.setVisible(True)

    def _add_curve(self, name: str, slot: int) -> None:
        """The history's curve of strategy ``name``, in the colour of bar ``slot``. Not
        antialiased: a 2 px antialiased line is Qt's slow path (a full history of five curves
        took 16-24 ms a paint on lavapipe's 2 cores, 10 ms without), and a history is mostly
        level lines, which antialiasing does not change."""
        colour = PALETTE[slot % len(PALETTE)]
        self.curves[name] = self.history_plot.plot(
            [], [], pen=pg.mkPen(colour, width=2), name=name, antialias=False,
            symbolBrush=colour, symbolPen=None, symbolSize=8)

    def _update_history(self) -> None:
        for i, (name, points) in enumerate(self.history.items()):
            if name not in self.curves:
                self._add_curve(name, self.names.index(name) if name in self.names else i)
            xs, ys = zip(*points, strict=True) if points else ((), ())
            self.curves[name].setData(np.array(xs, dtype=float), np.array(ys, dtype=float))
            # a line needs two points: fewer are drawn as dots
            symbol = "o" if len(points) < 2 else None
            if self.curves[name].opts["symbol"] != symbol:
                self.curves[name].setSymbol(symbol)
        points = np.array([p for h in self.history.values() for p in h], dtype=float)
        if points.size:
            view = self.history_plot.getViewBox()
            # at least two updates either way, and half the median up and down, so a first
            # point sits in a plain axis
            spans = (4.0, max(1e-3, 0.5 * float(points[:, 1].max())))
            for axis, current in enumerate(view.viewRange()):
                new = steady_range(tuple(current), points[:, axis].min(), points[:, axis].max(),
                                   spans[axis])
                if new is not None:
                    view.setRange(**{"xRange" if axis == 0 else "yRange": new}, padding=0)

    # --- export ---------------------------------------------------------------------------
    def export_csv(self, path: str) -> None:
        """One row per strategy (``total``) and per dispatch mark, times in us."""
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["device", "strategy", "region", "n", "min_us", "p5_us", "median_us",
                        "p95_us", "max_us"])
            if self.stats is None:
                return
            for spec, t in self.stats.timings:
                for region, s in [("total", t.total), *t.marks]:
                    w.writerow([self.stats.device, str(spec), region, len(s.samples_us),
                                f"{s.min:.3f}", f"{s.p5:.3f}", f"{s.median:.3f}",
                                f"{s.p95:.3f}", f"{s.max:.3f}"])

    def export_png(self, path: str) -> bool:
        return self.graphics.grab().save(path, "PNG")
