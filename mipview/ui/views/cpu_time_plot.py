"""The timing chart's CPU plot: an encode's time per level (the Heatmaps tab's Encode), beside
the GPU bars and labelled CPU, since the encoder runs on the CPU: its times are not
comparable with the GPU timestamps, and they are one measurement, not a median of samples."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg

#: the bars' colour: apart from the strategies' palette, so they are not read as a strategy
CPU_COLOUR = "#b0b0b0"


class CpuTimePlot:
    """A plot of one encode's CPU time per level, laid out by the chart that holds it."""

    def __init__(self) -> None:
        self.plot = pg.PlotItem()
        self.plot.setLabel("left", "CPU time", units="s")
        self.plot.setLabel("bottom", "level")
        self.plot.showGrid(y=True, alpha=0.25)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush=CPU_COLOUR)
        self.plot.addItem(self.bars)
        #: the seconds drawn, per level
        self.seconds: tuple[float, ...] = ()

    def show(self, what: str, seconds: Sequence[float]) -> None:
        """Draw ``seconds`` per level of the encode ``what`` (``per-level as bc7``)."""
        self.seconds = tuple(float(s) for s in seconds)
        x = np.arange(len(self.seconds), dtype=float)
        self.bars.setOpts(x=x, height=np.array(self.seconds), width=0.6)
        self.plot.setTitle(f"CPU encode time per level — {what}")
        self.plot.getAxis("bottom").setTicks([[(i, str(i)) for i in range(len(x))]])
        self.plot.setXRange(-0.6, max(0.6, len(x) - 0.4), padding=0)
        self.plot.setYRange(0.0, max(self.seconds, default=0.0) * 1.15 or 1e-6, padding=0)
