"""Coverage per level of a filtered result: the fraction of texels passing the alpha test
(alpha >= the filter's cutoff) level by level, against level 0's fraction (dashed) and the exact
reference's; for a normal map, the mean vector length before renormalising.

The figures are the analysis's (``analysis.LevelFigures``, computed off the UI thread); the plot
only draws them, and hides itself for a result without any (the box reductions, an opaque image).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from mipview.runs.analysis import LevelFigures


class CoveragePlot(pg.PlotWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setBackground("#1e1f22")
        item = self.getPlotItem()
        item.setLabel("bottom", "level")
        item.setLabel("left", "fraction passing alpha test")
        item.showGrid(x=True, y=True, alpha=0.3)
        item.hideButtons()
        legend = item.addLegend(offset=(-10, 10))
        legend.setLabelTextColor("#dddddd")
        self.result = item.plot(name="result", pen=pg.mkPen("#f0a030", width=2), symbol="o",
                                symbolSize=5, symbolBrush="#f0a030")
        self.level0 = item.plot(name="level 0", pen=pg.mkPen("#aaaaaa", style=Qt.PenStyle.DashLine))
        self.reference = item.plot(name="exact reference",
                                   pen=pg.mkPen("#40b0f0", style=Qt.PenStyle.DotLine, width=2))
        self.length = item.plot(name="mean length before renormalising",
                                pen=pg.mkPen("#70d070", width=2), symbol="t", symbolSize=5)
        self.setMinimumWidth(220)
        self.setToolTip("Fraction of each level's texels with alpha >= the filter's cutoff")
        self.set_figures(None)

    def set_figures(self, figures: LevelFigures | None) -> None:
        """Draw ``figures``; hidden when None or nothing is to be seen."""
        if figures is None or not figures.worth_plotting:
            for curve in (self.result, self.level0, self.reference, self.length):
                curve.setData([], [])
            self.hide()
            return
        n = len(figures.coverage)
        levels = list(range(n))
        self.result.setData(levels, list(figures.coverage))
        self.level0.setData([0, max(n - 1, 1)], [figures.coverage[0]] * 2)
        self.reference.setData(list(range(len(figures.reference_coverage))),
                               list(figures.reference_coverage))
        lengths = [(k, v) for k, v in enumerate(figures.length_mean or ()) if v is not None]
        self.length.setData([k for k, _ in lengths], [v for _, v in lengths])
        self.getPlotItem().setTitle(f"coverage per level (cutoff {figures.cutoff:g})",
                                    color="#dddddd")
        self.show()
