"""A histogram of a level's values (or errors) with a draggable black/white range.

The range is a pyqtgraph ``LinearRegionItem`` over the histogram curve: dragging either edge (or
the band) sets the range the view maps to black and white; Auto sets it to the finite values'
extent. :func:`value_histogram` is the numpy part, run through the views' pixel pool.

Signals
-------
sigRange(float, float)   the range the user (or :meth:`set_range` / :meth:`auto_range`) set
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from mipview.ui.panels.steady_label import SteadyLabel

#: values the histogram's bins count at most (a strided sample of a larger level); the extent
#: (what Auto uses) always covers every value
MAX_SAMPLES = 1 << 20
BINS = 128


@dataclass(frozen=True)
class Histogram:
    """``counts`` of finite values between consecutive ``edges``; ``lo``/``hi`` their extent,
    ``nonfinite`` how many values were left out."""

    edges: np.ndarray
    counts: np.ndarray
    lo: float
    hi: float
    nonfinite: int = 0


def value_histogram(values: np.ndarray, bins: int = BINS) -> Histogram | None:
    """Histogram of ``values`` (any shape) over their finite extent; None when none is finite."""
    flat = np.asarray(values).ravel()
    finite = np.isfinite(flat)
    all_finite = bool(finite.all())
    kept = flat if all_finite else flat[finite]
    if kept.size == 0:
        return None
    lo, hi = float(kept.min()), float(kept.max())
    step = max(1, kept.size // MAX_SAMPLES)
    top = hi if hi > lo else lo + 1.0
    counts, edges = np.histogram(kept[::step], bins=bins, range=(lo, top))
    return Histogram(edges, counts * step, lo, hi, int(flat.size - kept.size))


class HistogramPanel(QWidget):
    sigRange = Signal(float, float)

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.title = SteadyLabel(title)
        bar.addWidget(self.title, 1)
        self.auto_button = QPushButton("Auto")
        self.auto_button.setToolTip("Range to the finite values' extent (Shift+A)")
        self.auto_button.clicked.connect(self.auto_range)
        bar.addWidget(self.auto_button)
        lay.addLayout(bar)
        self.plot = pg.PlotWidget()
        self.plot.setBackground("#1e1f22")
        self.plot.setMinimumHeight(90)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.getPlotItem().hideAxis("left")
        self.plot.setMouseEnabled(x=True, y=False)
        self.curve = pg.PlotDataItem(stepMode="center", fillLevel=0, brush=(120, 160, 220, 120),
                                     pen=pg.mkPen(150, 180, 230))
        self.plot.addItem(self.curve)
        self.region = pg.LinearRegionItem(values=(0.0, 1.0), brush=(255, 255, 255, 30))
        self.region.setZValue(10)
        self.region.sigRegionChanged.connect(self._region_changed)
        self.plot.addItem(self.region)
        lay.addWidget(self.plot, 1)
        self.histogram: Histogram | None = None
        self._quiet = False

    def set_histogram(self, hist: Histogram | None, title: str = "") -> None:
        """Show ``hist`` (counts on a log scale, so tails show); the range stays where it is."""
        self.histogram = hist
        if title:
            self.title.setText(title)
        if hist is None:
            self.curve.setData([], [])
            return
        self.curve.setData(hist.edges, np.log10(1.0 + hist.counts))
        lo, hi = self.range()
        self.plot.setXRange(min(hist.lo, lo), max(hist.hi, hi), padding=0.05)

    def range(self) -> tuple[float, float]:
        lo, hi = self.region.getRegion()
        return float(lo), float(hi)

    def set_range(self, lo: float, hi: float, emit: bool = True) -> None:
        """Move the range (``emit``: tell the view, as a drag does)."""
        if hi <= lo:
            hi = lo + max(abs(lo) * 1e-6, 1e-12)
        self._quiet = not emit
        try:
            self.region.setRegion((lo, hi))
        finally:
            self._quiet = False

    def nudge(self, edge: str, steps: int) -> None:
        """Move the ``black`` or ``white`` edge by ``steps`` twentieths of the range (keys)."""
        lo, hi = self.range()
        delta = steps * (hi - lo) / 20
        if edge == "black":
            self.set_range(lo + delta, hi)
        else:
            self.set_range(lo, hi + delta)

    def auto_range(self) -> None:
        """Range to the extent of the finite values shown (nothing without a histogram)."""
        if self.histogram is not None:
            self.set_range(self.histogram.lo, self.histogram.hi)

    def _region_changed(self) -> None:
        if not self._quiet:
            self.sigRange.emit(*self.range())
