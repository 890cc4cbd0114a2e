"""The Sweep tab: each strategy's 1x1 level against the exact image mean, over a range of widths.

A blit chain's 1x1 level is not the mean of an NPOT image and jumps when the image grows by one
pixel (an auto-exposure flicker); exact strategies stay within a rounding. The sweep
runs in the GPU worker (``mipview.runs.sweep.sweep_curves``, the same code as ``mipview sweep``);
this widget only builds the request and plots the :class:`SweepResult`: one line per strategy
plus the GPU mean, error against width, in LSB (8-bit formats) or relative error (floats).

Signals
-------
sigRun(object)   Run pressed: :meth:`SweepView.fields` (the window adds job and strategies)
sigStop()        Stop pressed
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mipview.core.formats import Format
from mipview.io.synthetic import KINDS
from mipview.runs.sweep import SweepResult
from mipview.ui.views.timing_chart import PALETTE

GPU_MEAN = "gpu-mean"


class SweepView(QWidget):
    sigRun = Signal(object)
    sigStop = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: SweepResult | None = None
        self.curves: dict[str, pg.PlotDataItem] = {}
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)

        top = QHBoxLayout()
        self.from_spin = self._spin(1, 16384, 1900)
        self.to_spin = self._spin(1, 16384, 1940)
        self.height_spin = self._spin(1, 16384, 1080)
        self.format_combo = QComboBox()
        for f in Format:
            self.format_combo.addItem(f.label, f.label)
        self.format_combo.setCurrentIndex(self.format_combo.findData(Format.SRGB.label))
        self.kind_combo = QComboBox()
        self.kind_combo.addItems(KINDS)
        for label, w in (("widths", self.from_spin), ("to", self.to_spin),
                         ("height", self.height_spin), ("format", self.format_combo),
                         ("image", self.kind_combo)):
            top.addWidget(QLabel(label))
            top.addWidget(w)
        self.log_check = QCheckBox("log y")
        self.log_check.toggled.connect(lambda on: self.plot.setLogMode(y=on))
        top.addWidget(self.log_check)
        top.addStretch(1)
        self.run_button = QPushButton("Run sweep")
        self.run_button.setToolTip("the strategies checked in the Setup panel, one image per width")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.run_button.clicked.connect(lambda: self.sigRun.emit(self.fields()))
        self.stop_button.clicked.connect(self.sigStop.emit)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setFormat("%v/%m widths")
        for w in (self.run_button, self.stop_button, self.progress):
            top.addWidget(w)
        lay.addLayout(top)

        self.plot = pg.PlotWidget(background="#1e1f22")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.plot.setLabel("bottom", "image width", units="px")
        self.plot.setTitle("1x1 level vs exact mean (max over channels)")
        self.legend = self.plot.addLegend(offset=(10, 10))
        self._set_unit("LSB")
        lay.addWidget(self.plot, 1)
        self.summary = QLabel("")
        lay.addWidget(self.summary)

    @staticmethod
    def _spin(lo: int, hi: int, value: int) -> QSpinBox:
        s = QSpinBox()
        s.setRange(lo, hi)
        s.setValue(value)
        return s

    def _set_unit(self, unit: str) -> None:
        self.plot.setLabel("left", "|1x1 - exact mean|", units=unit)

    # --- request ----------------------------------------------------------------------------
    def fields(self) -> dict[str, object]:
        """The SweepRequest fields of the choices shown (all but the job and the strategies)."""
        first, last = sorted((self.from_spin.value(), self.to_spin.value()))
        return {"first": first, "last": last, "height": self.height_spin.value(),
                "fmt": Format.parse(self.format_combo.currentData()),
                "kind": self.kind_combo.currentText()}

    def set_busy(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)

    def set_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)

    # --- result -----------------------------------------------------------------------------
    def set_result(self, result: SweepResult) -> None:
        self.result = result
        self.plot.clear()  # also empties the legend
        self.curves = {}
        self._set_unit(result.unit)
        x = np.asarray(result.widths, np.float64)
        series = [(GPU_MEAN, result.gpu_mean)] + list(result.errors)
        for i, (name, errors) in enumerate(series):
            dash = {"style": pg.QtCore.Qt.PenStyle.DashLine} if name == GPU_MEAN else {}
            color = "#ffffff" if name == GPU_MEAN else PALETTE[i % len(PALETTE)]
            self.curves[name] = self.plot.plot(
                x, np.asarray(errors, np.float64), name=name, symbol="o", symbolSize=5,
                pen=pg.mkPen(color, width=2, **dash), symbolBrush=color, symbolPen=None)
        self.plot.setTitle(f"1x1 level vs exact mean, {result.fmt.label} x {result.height} "
                           f"{result.kind} — {result.device}")
        self.plot.autoRange()
        worst = ", ".join(f"{n} {max(e):.3g}" for n, e in series if e)
        skipped = "; ".join(f"{s}: {why}" for s, why in result.skipped)
        self.summary.setText(
            f"{len(result.widths)} widths{' (stopped)' if result.stopped else ''}; "
            f"max ({result.unit}): {worst}" + (f"; skipped {skipped}" if skipped else ""))

    def curve_data(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The (widths, errors) plotted for ``name`` (a spec string or ``gpu-mean``)."""
        item = self.curves[name]  # xData/yData: the values given, not the log-mode display
        return np.asarray(item.xData), np.asarray(item.yData)
