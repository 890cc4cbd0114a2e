"""Difference heatmaps per level, with a colour bar and a table of figures per level.

A strategy is compared with the exact reference (its verdict's figures and maps, computed off the
UI thread by ``analysis.analyse_strategy``; a run's strategies arrive one by one, each once, by
:meth:`HeatmapView.add_errors`, and one not yet there says "analysing"), with another strategy
of the Run, or with another chain of its own: its previous version, a saved run, another device.
Units: LSB for 8-bit formats, relative error for float formats. The worst level is bold, tinted
and selected when the data arrives, so it is found at a glance.

The view composes its parts, each a module of its own, and hands each what it shows:

- :mod:`~mipview.ui.views.against_chooser`: the strategy and what it is compared with, the
  comparisons asked of the window and the other chains read or run for them;
- :mod:`~mipview.ui.views.error_map`: the selected level's map (max |error| or a channel's
  signed error), its colours, colour bar, histogram and NaN / Inf / negative overlay;
- :mod:`~mipview.ui.views.error_table`: the figures per level;
- :mod:`~mipview.ui.views.nonfinite_report`: the table's non-finite and negative counts;
- :mod:`~mipview.ui.views.coverage_plot`: a filtered result's coverage per level;
- :mod:`~mipview.ui.views.encode_bar`: Encode, the result block-compressed (in the CPU worker);
  what it brings adds the codec's and the total error to the table and their maps to the map
  choice.

Signals
-------
The chooser's, relayed:

sigCompare(str, str)   strategy and what it is compared with: a comparison the view has not got
sigError(WorkerError)  a saved run that cannot be compared with the run shown (why, one line)
sigRunOnDevice(str, str)  device index and strategy: run it there on the Run's level 0
sigSavedLoaded(str)    a saved run's folder was read and is offered (and shown) as "against"
"""

from __future__ import annotations

import math
import os

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from mipview.check import compare
from mipview.check.compare import LevelError
from mipview.core.array_layers import layer_count
from mipview.core.formats import Format
from mipview.core.nonfinite import Propagation
from mipview.runs.analysis import StrategyAnalysis
from mipview.ui.messages import Comparison, DeviceRunOutput, Encoded, LevelsReady
from mipview.ui.panels.steady_label import SteadyLabel
from mipview.ui.views.against_chooser import (
    DEVICE,
    EXACT,
    PICK_SAVED,
    PREVIOUS,
    SAVED,
    SAVED_TITLE,
    AgainstChooser,
    kept_choice,
)
from mipview.ui.views.coverage_plot import CoveragePlot
from mipview.ui.views.encode_bar import EncodeBar
from mipview.ui.views.error_map import ErrorMap
from mipview.ui.views.error_table import (
    NEGATIVE_COLUMN,
    NONFINITE_COLUMN,
    ErrorTable,
    format_value,
    worst_level,
)
from mipview.ui.views.nonfinite_report import count_marks
from mipview.ui.views.pixel_pool import PixelPool

__all__ = ["DEVICE", "EXACT", "NEGATIVE_COLUMN", "NONFINITE_COLUMN", "PICK_SAVED", "PREVIOUS",
           "SAVED", "SAVED_TITLE", "HeatmapView", "format_value"]


class HeatmapView(QWidget):
    sigCompare = Signal(str, str)
    sigError = Signal(object)
    sigSavedLoaded = Signal(str)
    sigRunOnDevice = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = SteadyLabel()
        self.pool = PixelPool(self)
        self.chooser = AgainstChooser(self.summary, self)
        self.map = ErrorMap(self.pool, self)
        self.table = ErrorTable()
        self.coverage = CoveragePlot()  # beside the table (hidden for the box)
        # the parts' widgets, as the window's actions and the tests reach them
        self.strategy_combo = self.chooser.strategy_combo
        self.against_combo = self.chooser.against_combo
        self.map_combo, self.cmap_combo = self.map.map_combo, self.map.cmap_combo
        self.overlay_check, self.layer_spin = self.map.overlay_check, self.map.layer_spin
        self.plot, self.image, self.overlay = self.map.plot, self.map.image, self.map.overlay
        self.colorbar, self.histogram = self.map.colorbar, self.map.histogram

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        for label, w in (("Strategy", self.strategy_combo), ("against", self.against_combo),
                         ("map", self.map_combo), ("colormap", self.cmap_combo)):
            bar.addWidget(QLabel(label))
            bar.addWidget(w)
        bar.addWidget(self.layer_spin)
        bar.addWidget(self.overlay_check)
        bar.addWidget(self.summary, 1)
        lay.addLayout(bar)
        self.encode_bar = EncodeBar()
        lay.addWidget(self.encode_bar)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.map.graphics)
        split.addWidget(self.histogram)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.table)
        bottom.addWidget(self.coverage)
        split.addWidget(bottom)
        split.setSizes([400, 110, 220])
        lay.addWidget(split, 1)

        #: each strategy's figures against the exact reference, by name, as they arrive
        self.exact: dict[str, StrategyAnalysis] = {}
        self.errors: list[LevelError] = []
        self.maps: list[np.ndarray] = []
        self.propagation: Propagation | None = None
        self.worst_level = 0
        self.shown_level = 0
        #: the exact (mean) reference per level, for signed maps against it
        self.reference: tuple[np.ndarray, ...] | None = None
        self.chooser.sigRefresh.connect(self._refresh)
        for mine, theirs in ((self.sigCompare, self.chooser.sigCompare),
                             (self.sigError, self.chooser.sigError),
                             (self.sigSavedLoaded, self.chooser.sigSavedLoaded),
                             (self.sigRunOnDevice, self.chooser.sigRunOnDevice)):
            theirs.connect(mine)
        self.layer_spin.valueChanged.connect(lambda _: self._show_selected_level())
        self.map_combo.currentIndexChanged.connect(lambda _: self._show_selected_level())
        self.overlay_check.toggled.connect(lambda _: self._update_overlay())
        self.table.itemSelectionChanged.connect(self._show_selected_level)

    @property
    def output(self) -> LevelsReady | None:
        """The Run shown."""
        return self.chooser.output

    def clear(self) -> None:
        self.exact, self.reference = {}, None
        self.pool.forget()
        self.chooser.clear()
        self.encode_bar.clear()
        self.map.clear()
        self.table.setRowCount(0)
        self.coverage.set_figures(None)
        self.summary.setText("")

    def set_layer(self, layer: int) -> None:
        self.layer_spin.setValue(layer)

    def set_run(self, output: LevelsReady) -> None:
        """The strategies of a new run; their figures follow by :meth:`add_errors`."""
        self.exact, self.reference = {}, None
        self.pool.forget()
        self.encode_bar.clear()
        self.chooser.set_run(output)
        self.map.offer_maps(output.mip.fmt.channels)
        results = output.mip.results
        self.map.show_layers(layer_count(results[0].levels[0]) if results and results[0].levels
                             else 1)
        self._refresh()

    def set_reference(self, levels: tuple[np.ndarray, ...]) -> None:
        """The exact (mean) reference of the run shown, per level (signed maps against it)."""
        self.reference = tuple(levels)
        if self.chooser.selection()[1] == EXACT and self.map_channel() is not None:
            self._show_selected_level()

    def add_errors(self, errors: StrategyAnalysis) -> None:
        """One strategy's figures against the exact reference; redrawn if it is the one shown."""
        name = str(errors.spec)
        if self.exact.get(name) is errors:
            return
        self.exact[name] = errors
        if name == self.strategy():  # shown whatever the strategy is compared with
            self.coverage.set_figures(errors.figures)
        if self.chooser.selection() == (name, EXACT):
            self._refresh()

    # --- the chooser's, for the window ------------------------------------------------------
    def strategy(self) -> str:
        """The result shown (``str`` of its spec), "" before a run."""
        return self.chooser.strategy()

    def select(self, strategy: str, against: str = EXACT) -> None:
        self.chooser.select(strategy, against)

    def against_levels(self, name: str, against: str) -> tuple[np.ndarray, ...] | None:
        return self.chooser.against_levels(name, against)

    def pick_saved_run(self) -> None:
        self.chooser.pick_saved_run()

    def load_saved_run(self, path: str | os.PathLike[str]) -> bool:
        return self.chooser.load_saved_run(path)

    def set_devices(self, names: list[str]) -> None:
        self.chooser.set_devices(names)

    def running_on_device(self, device: str, name: str, job: int, queued: bool) -> None:
        self.chooser.running_on_device(device, name, job, queued)

    def set_device_run(self, out: DeviceRunOutput) -> None:
        self.chooser.set_device_run(out)

    def comparing(self, strategy: str, against: str, job: int) -> None:
        self.chooser.comparing(strategy, against, job)

    def set_comparison(self, comparison: Comparison) -> bool:
        return self.chooser.set_comparison(comparison)

    def job_finished(self, job: int) -> None:
        self.chooser.job_finished(job)
        self.encode_bar.job_finished(job)

    def set_encoded(self, out: Encoded) -> None:
        """A result encoded (its figures and maps); redrawn if it is the one shown."""
        self.encode_bar.add(out)
        if out.strategy == self.strategy():
            self._refresh()

    # --- the map's, for the window ----------------------------------------------------------
    def map_channel(self) -> int | None:
        """The channel whose signed error the map shows; None: max |error| over channels."""
        return self.map.map_channel()

    def cycle_map(self) -> None:
        self.map.cycle_map()

    def auto_range(self) -> None:
        self.map.auto_range()

    # --- showing the pair chosen ------------------------------------------------------------
    def _figures(self, name: str, against: str) \
            -> tuple[list[LevelError], list[np.ndarray]] | None:
        """Figures and maps of ``name`` against ``against``; None while they are computed."""
        if against == EXACT:
            e = self.exact.get(name)
            return (list(e.levels), list(e.maps)) if e is not None else None
        got = self.chooser.comparison(name, against)
        return (list(got.levels), list(got.maps)) if got is not None else None

    def _refresh(self) -> None:
        if self.output is None or not self.strategy():
            return
        fmt = self.output.mip.fmt
        name, against = self.chooser.selection()
        self.chooser.shown_against = against
        own = self.exact.get(name)  # the strategy's own figures, whatever it is compared with
        self.coverage.set_figures(own.figures if own is not None else None)
        figures = self._figures(name, against)
        if figures is None:
            self._show_computing(name, against)
            return
        self.errors, self.maps = figures
        # the strategy's own propagation, whatever it is compared with (the table's counts)
        self.propagation = own.verdict.nonfinite if own is not None else None
        self.map.set_unit("LSB" if not fmt.is_float else "relative error")
        finite = [e.max_error for e in self.errors if math.isfinite(e.max_error)]
        self.worst_level = worst_level(self.errors)
        self.table.fill(self.errors, self.worst_level, fmt)
        count_marks(self.table, self.pool, self.chooser.levels_of(name), fmt, self.propagation)
        encoded = self.encode_bar.encoded(name)
        self.table.fill_encoded(encoded.chain.figures if encoded else None, fmt)
        self.map.offer_encoded(encoded is not None)
        worst = self.errors[self.worst_level] if self.errors else None
        vs = self.chooser.label(against)
        if worst is not None and kept_choice(against) \
                and not any(e.max_error for e in self.errors):
            self.summary.setText(f"  no texel differs from {vs}")
        elif worst is not None:
            spread = f";  {self.propagation.describe()}" \
                if self.propagation and against == EXACT else ""
            self.summary.setText(f"  worst: {compare.format_worst(worst)} vs {vs}"
                                 f"   (max over levels {max(finite, default=0):.3g}){spread}"
                                 f"{_encoded_text(encoded, fmt)}")
        self.map.show_layer_of(worst.worst if worst is not None else None)
        self.table.selectRow(self.worst_level)
        self._show_level(self.worst_level)

    def _show_computing(self, name: str, against: str) -> None:
        what = self.chooser.ask(name, against)
        self.errors, self.maps = [], []
        self.table.setRowCount(0)
        self.coverage.set_figures(None)
        self.map.blank("")
        self.overlay.clear()
        self.summary.setText(f"  {what}")

    def _show_selected_level(self) -> None:
        level = self.table.selected_level()
        if level is not None:
            self._show_level(level)

    def _signed_pair(self, level: int) -> tuple[np.ndarray, np.ndarray] | str:
        """The levels a signed map subtracts, or why there are none."""
        name, against = self.chooser.selection()
        levels = self.chooser.levels_of(name)
        if against == EXACT:
            res = next(r for r in self.output.mip.results if str(r.spec) == name)
            # against the exact mean reference also where the verdict holds a strategy to an
            # emulation of itself (blit): a bias against the mean is what the map is for
            if res.reduction != "mean":
                return f"{name} reduces by {res.reduction}: no signed map against the mean"
            ref = self.reference
            if ref is None:
                return "waiting for the reference"
        else:
            ref = self.against_levels(name, against)
        if levels is None or ref is None or level >= min(len(levels), len(ref)):
            return "no such level"
        return levels[level], ref[level]

    def _show_level(self, level: int) -> None:
        self.shown_level = level
        kind = self.map.encoded_map()
        encoded = self.encode_bar.encoded(self.strategy())
        if kind is not None:
            if encoded is None or level >= len(encoded.maps):
                self.map.blank("not encoded: Encode first")
            else:
                self.map.show(level, encoded.maps[level][1 if kind == "total" else 0], signed=False,
                              note=f", {kind} error as {encoded.chain.choice.label}")
        elif self.map_channel() is None:
            if not self.maps or level >= len(self.maps):
                return
            self.map.show(level, self.maps[level], signed=False)
        elif self.output is not None and self.strategy():
            pair = self._signed_pair(level)
            if isinstance(pair, str):
                self.map.blank(pair)
            else:
                exact = self.chooser.selection()[1] == EXACT
                self.map.show_signed(level, *pair, self.output.mip.fmt,
                                     ", signed against the exact mean reference" if exact
                                     else "")
        self._update_overlay()

    def _update_overlay(self) -> None:
        """Paint the shown level's NaN, Inf and negative texels of the strategy (off: none)."""
        self.map.mark(self.chooser.levels_of(self.strategy()), self.shown_level)

    def shutdown(self) -> None:
        self.pool.shutdown()
        self.chooser.shutdown()


def _encoded_text(encoded: Encoded | None, fmt: Format) -> str:
    """The summary's part of an encoded result: its worst total texel and that texel's block."""
    if encoded is None or not encoded.chain.figures:
        return ""
    worst = max(encoded.chain.figures, key=lambda f: f.total.max_error)
    return (f";  as {encoded.chain.choice.label}: worst total "
            f"{format_value(worst.total.max_error, fmt)} at level {worst.total.level}, "
            f"block {worst.worst_block}")
