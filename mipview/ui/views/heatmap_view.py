"""Difference heatmaps per level, with a colour bar and a table of figures per level.

A strategy is compared with the exact reference (its verdict's figures and maps, computed off the
UI thread by ``analysis.analyse_strategy``; a run's strategies arrive one by one, and one not yet
there says "analysing") or with another strategy
(``compare.level_errors`` / ``compare.difference_map``, computed on demand by the compare worker:
the view asks with ``sigCompare``, shows "computing" meanwhile and caches what comes back).
Units: LSB for 8-bit formats, relative error for float formats. The worst level is bold, tinted
and selected when the data arrives, so it is found at a glance.

Besides the maximum absolute error over channels, the map can show one channel's signed error
(of the image's own channels; ``compare.signed_error``, blue below, red above), so a bias shows
as colour; it is computed in the pixel pool from the levels and the exact (mean) reference or
the other strategy. A histogram
of the map's values sets the colour bar's range by dragging (Auto: the full extent), texels of
the strategy holding NaN, an infinity or a negative value are painted their overlay colour
(``display.MARKS``). For float formats the table counts them per level in two columns that do
not overlap: texels holding NaN or +-Inf (counted as the verdict counts them,
``nonfinite.count_nonfinite``, beside the exact reduction's where level 0 has some and they
differ) and texels holding a finite negative value (the overlay's "negative" mark).

More "against" choices compare a result with its own other chains (:mod:`mipview.runs.against`
says when each is offered): "previous version", the levels an earlier Run of the same strategy
wrote that differ (after a custom shader's hot reload: what the edit changed); "device N", the
same strategy run on the Run's level 0 on that device (:meth:`set_devices`; asked of the window
by ``sigRunOnDevice``: a job of the GPU worker, on a context of its own, once per Run); and
"saved run…", a folder dialog (or :meth:`load_saved_run`) whose run folder is read in the
``sides`` pool, the same strategy's levels there. All are compared by the compare worker as
another strategy is (the window asks :meth:`against_levels` for the levels), in the format's
unit; a saved run that does not fit, or a device that cannot run the strategy, is told by
``sigError`` and changes nothing.

A Run shows its strategies one by one, often at the level, scale and colours shown before: the
plot's title, the colour bar (its colour map, levels and label) and the view's range are set
only when they change (pyqtgraph redoes a colour map's lookup table, an axis' drawing and a
plot's layout on every set), so showing a map costs the UI thread its image and little more.
A map's colours are made in the pixel pool (``map_colours``; at once when small): left to the
image item, a float map's are made at its first paint, on the UI thread (14 ms for 4096^2).

Signals
-------
sigCompare(str, str)   strategy and what it is compared with (another strategy, PREVIOUS or
                       SAVED): a comparison the view has not got
sigError(WorkerError)  a saved run that cannot be compared with the run shown (why, one line)
sigRunOnDevice(str, str)  device index and strategy: run it there on the Run's level 0
sigSavedLoaded(str)    a saved run's folder was read and is offered (and shown) as "against"
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from pyqtgraph.functions_qimage import try_make_qimage
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QImage
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mipview.check import compare
from mipview.check.compare import LevelError
from mipview.core.array_layers import layer_count, layer_of
from mipview.core.formats import Format
from mipview.core.nonfinite import NonFinite, Propagation, count_nonfinite
from mipview.io import containers
from mipview.runs.against import (
    DeviceSide,
    Kept,
    PreviousVersions,
    SavedFailed,
    SavedSide,
    chain_key,
    levels_differ,
    open_saved_side,
    read_saved_side,
)
from mipview.runs.analysis import StrategyAnalysis
from mipview.ui import steps
from mipview.ui.display import MARKS, texel_marks
from mipview.ui.messages import Comparison, DeviceRunOutput, LevelsReady, WorkerError
from mipview.ui.panels.layer_selector import LayerSelector
from mipview.ui.panels.steady_label import SteadyLabel
from mipview.ui.views.coverage_plot import CoveragePlot
from mipview.ui.views.histogram import HistogramPanel, value_histogram
from mipview.ui.views.pixel_pool import PixelPool
from mipview.ui.views.steady_axis import reserve_tick_text

EXACT = "__exact__"
#: against the strategy's previous version (runs.against: an earlier Run's levels that differ);
#: with a space, so no spec is spelt so
PREVIOUS = "previous version"
#: against the strategy's levels in the saved run read last
SAVED = "saved run"
#: the entry that opens a folder dialog for a saved run; it never stays selected
PICK_SAVED = "pick a saved run"
#: the data of a "device N" choice: this prefix and the device's index
DEVICE = "device:"
#: the entries that depend on the strategy shown and on what the view keeps (_offer_against)
SIDE_CHOICES = (PREVIOUS, SAVED, PICK_SAVED)
#: a file read runs in the pool's thread however small (PixelPool runs small inputs at once)
FILE_READ = 1 << 62
SAVED_TITLE = "Cannot compare with saved run"
DEVICE_TITLE = "Cannot compare with another device"
COLUMNS = ("level", "size", "max", "mean", "PSNR dB", "worst at (x, y, ch)",
           "NaN / ±Inf", "negative")
#: float formats only (an integer texel holds neither): the strategy's texels per level holding
#: NaN or +-Inf, beside the exact reduction's where level 0 has some (nonfinite.Propagation)
NONFINITE_COLUMN = COLUMNS.index("NaN / ±Inf")
#: float formats only: the strategy's texels per level holding a finite negative value
NEGATIVE_COLUMN = COLUMNS.index("negative")
COLUMN_TIPS = {
    NONFINITE_COLUMN: "Texels of this result holding NaN, +Inf or -Inf in any channel (each "
                      "counted once; its kinds in brackets). Where level 0 has some, the exact "
                      "reduction's count follows where it differs.",
    NEGATIVE_COLUMN: "Texels of this result holding a finite negative value in any channel "
                     "(e.g. a lobed filter's ringing below 0); NaN and Inf are not counted "
                     "here.",
}
#: map choices: None the maximum absolute error over channels, else a channel's signed error
MAPS = (("max |error|", None), ("signed R", 0), ("signed G", 1), ("signed B", 2),
        ("signed A", 3))
SIGNED_CMAP = pg.ColorMap([0.0, 0.5, 1.0], [(40, 80, 255), (255, 255, 255), (230, 30, 30)])


@dataclass(frozen=True)
class MapColours:
    """A map as the view shows it: ``values`` (the layer shown; NaN and infinities at the ends
    of the scale), the scale's ``levels``, and ``image``, the values' colours through ``lut``
    (a colour map's 256 entries)."""

    values: np.ndarray
    levels: tuple[float, float]
    lut: np.ndarray
    image: QImage


def map_colours(full: np.ndarray, layer: int, signed: bool, cmap: pg.ColorMap) -> MapColours:
    """Error map ``full`` ((H, W) or (L, H, W)) as shown: ``layer`` of it, on one scale for
    every layer (so layers compare at a glance), 0 to the largest error or, ``signed``, about 0;
    coloured as the image item colours its values (any thread)."""
    m = full[min(layer, full.shape[0] - 1)] if full.ndim == 3 else full
    vmax = max(float(full.max()), -float(full.min())) if signed else float(full.max())
    # all finite is the usual case, and two passes: 4096^2 in ms, not the 0.3 s of a mask
    all_finite = math.isfinite(vmax) and math.isfinite(float(full.min()))
    if not all_finite:  # scale by the finite texels; NaN and inf show at the top
        finite = np.abs(full[np.isfinite(full)])
        vmax = float(finite.max()) if finite.size else 1.0
    vmax = vmax if vmax > 0 else 1.0
    low = -vmax if signed else 0.0
    shown = m if all_finite else np.nan_to_num(m, nan=vmax, posinf=vmax, neginf=low)
    lut = cmap.getLookupTable(nPts=256)  # as ImageItem.setColorMap makes it
    return MapColours(shown, (low, vmax), lut, try_make_qimage(shown, levels=(low, vmax),
                                                               lut=lut))


class MapImage(pg.ImageItem):
    """The map's image item: it paints the colours :func:`map_colours` made, while its values,
    levels and lookup table are those they were made for, instead of making them at its first
    paint (see the module docstring); anything else (a range dragged) it colours itself."""

    def __init__(self) -> None:
        super().__init__(axisOrder="row-major")
        #: the colours made, and the array the item holds for their values (a view of them)
        self._colours: tuple[MapColours, np.ndarray] | None = None

    def set_colours(self, colours: MapColours) -> None:
        self.setImage(colours.values, autoLevels=False)
        self._colours = (colours, self.image)

    def render(self) -> None:
        c, values = self._colours if self._colours is not None else (None, None)
        if c is not None and values is self.image and self.lut is not None \
                and np.array_equal(self.levels, c.levels) and np.array_equal(self.lut, c.lut):
            # what ImageItem.render leaves once it has made the colours
            self.qimage, self._renderRequired, self._unrenderable = c.image, False, False
            return
        super().render()


def _is_device(against: object) -> bool:
    """A "device N" choice (the combo's data: None where it has no entry)."""
    return isinstance(against, str) and against.startswith(DEVICE)


def _kept_choice(against: object) -> bool:
    """A side the user chose (previous version, saved run, device N): kept across Runs where it
    is offered again, and "no texel differs" when nothing does."""
    return against in (PREVIOUS, SAVED) or _is_device(against)


def format_value(v: float, fmt: Format) -> str:
    if not math.isfinite(v):
        return str(v)
    return f"{v:.3f}" if not fmt.is_float else f"{v:.3e}"


def format_psnr(v: float) -> str:
    return "inf" if v == math.inf else f"{v:.2f}"


def _nonfinite_text(n: NonFinite) -> str:
    return f"{n.texels} ({n.kinds()})" if n else "0"


def _nonfinite_cell(got: NonFinite, p: Propagation | None, level: int) -> str:
    """The NaN / +-Inf cell of ``level``: the strategy's count, and the exact reduction's where
    level 0 has some and they differ (kinds included)."""
    want = p.reference[level] if p is not None and level < len(p.reference) else got
    text = _nonfinite_text(got)
    return text if got == want else f"{text} (exact: {_nonfinite_text(want)})"


class HeatmapView(QWidget):
    sigCompare = Signal(str, str)
    sigError = Signal(object)
    sigSavedLoaded = Signal(str)
    sigRunOnDevice = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.strategy_combo = QComboBox()
        self.against_combo = QComboBox()
        self.cmap_combo = QComboBox()
        self.cmap_combo.addItems(["magma", "turbo", "viridis"])
        self.map_combo = QComboBox()
        for label, channel in MAPS:
            self.map_combo.addItem(label, channel)
        self.map_combo.setToolTip("Max |error| over channels, or one channel's signed error, "
                                  "blue below and red above (M cycles)")
        self.overlay_check = QCheckBox("NaN/Inf/neg")
        self.overlay_check.setChecked(True)
        self.overlay_check.setToolTip("Paint the strategy's texels holding NaN, Inf or a "
                                      "negative value in their overlay colour (N)")
        for label, w in (("Strategy", self.strategy_combo), ("against", self.against_combo),
                         ("map", self.map_combo), ("colormap", self.cmap_combo)):
            bar.addWidget(QLabel(label))
            bar.addWidget(w)
        # shown only for layered runs; the table's figures cover every layer, the map one
        self.layer_spin = LayerSelector(
            "layer", "array layer of the heatmap (the table covers all layers)")
        self.layer_spin.valueChanged.connect(lambda _: self._show_selected_level())
        bar.addWidget(self.layer_spin)
        bar.addWidget(self.overlay_check)
        self._show_layers(1)
        self.summary = SteadyLabel()
        bar.addWidget(self.summary, 1)
        lay.addLayout(bar)

        split = QSplitter(Qt.Orientation.Vertical)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("#1e1f22")
        self.plot = self.graphics.addPlot(row=0, col=0)
        self.plot.setAspectLocked(True)
        self.plot.invertY(True)
        for name in ("left", "bottom"):  # texel coordinates of up to 16384 (five digits)
            reserve_tick_text(self.plot.getAxis(name), "00000")
        self.plot.hideButtons()
        self.image = MapImage()
        self.plot.addItem(self.image)
        self.overlay = pg.ImageItem(axisOrder="row-major")
        self.overlay.setZValue(10)
        self.plot.addItem(self.overlay)
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=pg.colormap.get("magma"),
                                        label=None, interactive=False, width=18)
        self.colorbar.setImageItem(self.image)
        self.graphics.addItem(self.colorbar, row=0, col=1)
        split.addWidget(self.graphics)
        self.histogram = HistogramPanel("Histogram of errors")
        self.histogram.sigRange.connect(lambda lo, hi: self.colorbar.setLevels((lo, hi)))
        split.addWidget(self.histogram)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        for col, tip in COLUMN_TIPS.items():
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        # a scroll bar that comes and goes as the rows are cleared and filled again re-lays out
        # and repaints the whole tab twice per comparison (measured on lavapipe)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.itemSelectionChanged.connect(self._show_selected_level)
        # beside the table: a filtered result's coverage per level (hidden for the box)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.table)
        self.coverage = CoveragePlot()
        bottom.addWidget(self.coverage)
        split.addWidget(bottom)
        split.setSizes([400, 110, 220])
        lay.addWidget(split, 1)

        self.output: LevelsReady | None = None
        #: each strategy's figures against the exact reference, by name, as they arrive
        self.exact: dict[str, StrategyAnalysis] = {}
        self.errors: list[LevelError] = []
        self.maps: list[np.ndarray] = []
        self.propagation: Propagation | None = None
        self._show_count_columns(False)
        self.worst_level = 0
        self.shown_level = 0
        #: the exact (mean) reference per level, for signed maps against it
        self.reference: tuple[np.ndarray, ...] | None = None
        self.pool = PixelPool(self)
        #: (strategy, against) -> its comparison with another strategy, for ``output``
        self._cache: dict[tuple[str, str], Comparison] = {}
        #: (strategy, against) -> the job computing it
        self._pending: dict[tuple[str, str], int] = {}
        #: each strategy's previous version, since the image opened
        self.previous = PreviousVersions()
        self._checks = itertools.count()
        #: the saved run read last (by load_saved_run) and its levels read so far, by strategy
        self._saved: SavedSide | None = None
        self._saved_levels: dict[str, tuple[np.ndarray, ...]] = {}
        self._saved_reading: set[str] = set()
        #: the devices offered as "device N" (their names, by index), and what each made of the
        #: Run shown: (choice, strategy) -> levels, and the runs under way -> (job, whether it
        #: waits for the GPU worker's job before it)
        self._devices: list[str] = []
        self._device_sides: dict[tuple[str, str], DeviceSide] = {}
        self._device_running: dict[tuple[str, str], tuple[int, bool]] = {}
        #: PREVIOUS, SAVED or a device while the user keeps that choice: it outlives a Run (a hot reload's
        #: re-run shows what the edit changed) and comes back where it is offered again
        self._sticky: str | None = None
        #: the "against" shown last: where the pick entry returns to
        self._against_shown = EXACT
        #: the summary while a saved run is read, and what it said before
        self._reading_text = self._summary_before = ""
        #: set_run is under way: it offers the choices and refreshes once, at its end
        self._building = False
        #: the shape of the map the view was last fitted to, and the range that fit gave
        self._fitted: tuple[tuple[int, ...], list] | None = None
        #: previous-version checks and saved-run reads: apart from ``pool``, which forgets its
        #: jobs at each Run, while these outlive it
        self.sides = PixelPool(self)
        self.strategy_combo.currentIndexChanged.connect(lambda _: self._strategy_changed())
        self.against_combo.currentIndexChanged.connect(lambda _: self._against_changed())
        self.cmap_combo.currentTextChanged.connect(self._set_cmap)
        self.map_combo.currentIndexChanged.connect(lambda _: self._show_selected_level())
        self.overlay_check.toggled.connect(lambda _: self._update_overlay())

    def clear(self) -> None:
        self.output = None
        self.reference = None
        self.pool.forget()
        self.overlay.clear()
        self.histogram.set_histogram(None)
        self.exact = {}
        self._cache.clear()
        self._pending.clear()
        # another image: no result kept is a version of the next ones, no saved run fits them
        self.previous.clear()
        self.sides.forget()
        self._forget_saved()
        self._sticky = None
        self.strategy_combo.clear()
        self.against_combo.clear()
        self.table.setRowCount(0)
        self.coverage.set_figures(None)
        self.image.clear()
        self.summary.setText("")
        self._show_layers(1)

    def _show_layers(self, n: int) -> None:
        self.layer_spin.set_count(n)

    def set_layer(self, layer: int) -> None:
        self.layer_spin.setValue(layer)

    def set_run(self, output: LevelsReady) -> None:
        """The strategies of a new run; their figures follow by :meth:`add_errors`."""
        self.output, self.exact, self.reference = output, {}, None
        self.pool.forget()
        self._cache.clear()
        self._pending.clear()
        self._device_sides.clear()  # made from another Run's level 0
        keep = self.strategy()
        names = [str(r.spec) for r in output.mip.results]
        self._building = True
        try:
            with self._quiet_combos():
                self.strategy_combo.clear()
                self.against_combo.clear()
                self.against_combo.addItem("exact reference", EXACT)
                for r, n in zip(output.mip.results, names, strict=True):
                    self.strategy_combo.addItem(containers.title(r.spec), n)
                    self.against_combo.addItem(containers.title(r.spec), n)
                if keep in names:
                    self.strategy_combo.setCurrentIndex(self.strategy_combo.findData(keep))
            self._keep_versions(output)
            if self._saved is not None and self._saved.key != chain_key(output.mip):
                self._forget_saved()  # its levels cannot be compared with this Run's
            self._offer_against()
        finally:
            self._building = False
        self._offer_maps(output.mip.fmt.channels)
        results = output.mip.results
        self._show_layers(layer_count(results[0].levels[0]) if results and results[0].levels
                          else 1)
        self._refresh()

    def set_reference(self, levels: tuple[np.ndarray, ...]) -> None:
        """The exact (mean) reference of the run shown, per level (signed maps against it)."""
        self.reference = tuple(levels)
        if self._selection()[1] == EXACT and self.map_channel() is not None:
            self._show_selected_level()

    def _offer_maps(self, channels: int) -> None:
        """Signed maps of the image's own channels only (a one-channel format has no G, B or A
        error to show); the map shown stays where it still is offered."""
        keep = self.map_channel()
        with QSignalBlocker(self.map_combo):
            self.map_combo.clear()
            for label, channel in MAPS:
                if channel is None or channel < channels:
                    self.map_combo.addItem(label, channel)
            self.map_combo.setCurrentIndex(max(0, self.map_combo.findData(keep)))

    def map_channel(self) -> int | None:
        """The channel whose signed error the map shows; None: max |error| over channels."""
        return self.map_combo.currentData()

    def cycle_map(self) -> None:
        self.map_combo.setCurrentIndex((self.map_combo.currentIndex() + 1)
                                       % self.map_combo.count())

    def add_errors(self, errors: StrategyAnalysis) -> None:
        """One strategy's figures against the exact reference; redrawn if it is the one shown."""
        name = str(errors.spec)
        if self.exact.get(name) is errors:
            return
        self.exact[name] = errors
        if name == self.strategy():  # shown whatever the strategy is compared with
            self.coverage.set_figures(errors.figures)
        if self._selection() == (name, EXACT):
            self._refresh()

    def select(self, strategy: str, against: str = EXACT) -> None:
        # both at once: the pair in between (the new strategy against the old choice) would
        # cost a comparison nobody asked for
        with self._quiet_combos():
            if self.strategy_combo.findData(strategy) >= 0:
                self.strategy_combo.setCurrentIndex(self.strategy_combo.findData(strategy))
            self._offer_against()  # the strategy's own choices (previous version, saved run)
            i = self.against_combo.findData(against) if against != PICK_SAVED else -1
            self.against_combo.setCurrentIndex(max(0, i))
            self._sticky = against if i >= 0 and _kept_choice(against) else None
        self._refresh()

    def _strategy_changed(self) -> None:
        self._offer_against()
        self._refresh()

    def _against_changed(self) -> None:
        against = self.against_combo.currentData()
        if against == PICK_SAVED:  # an action, not a choice: back to the choice shown first
            with QSignalBlocker(self.against_combo):
                self.against_combo.setCurrentIndex(
                    max(0, self.against_combo.findData(self._against_shown)))
            self.pick_saved_run()
            return
        self._sticky = against if _kept_choice(against) else None
        self._refresh()

    def _offer_against(self) -> None:
        """The "against" entries of the strategy shown: its previous version, its levels in the
        saved run read, and "saved run…" while a Run is shown. The choice stays where it is
        still offered (a kept PREVIOUS or SAVED comes back where offered again), else it is the
        exact reference. Quiet: the caller refreshes."""
        combo, name = self.against_combo, self.strategy()
        keep = combo.currentData()
        with QSignalBlocker(combo):
            for choice in SIDE_CHOICES:
                if (i := combo.findData(choice)) >= 0:
                    combo.removeItem(i)
            for i in reversed(range(combo.count())):
                if _is_device(combo.itemData(i)):
                    combo.removeItem(i)
            if self.previous.levels(name) is not None:
                combo.addItem("previous version", PREVIOUS)
            if self._saved is not None and name in {c.name for c in self._saved.saved.chains}:
                combo.addItem(self._saved.label(), SAVED)
            if self.output is not None:
                for i, device in enumerate(self._devices):
                    combo.addItem(f"device {i}: {device}", f"{DEVICE}{i}")
                combo.addItem("saved run…", PICK_SAVED)
            want = self._sticky if self._sticky is not None \
                and combo.findData(self._sticky) >= 0 else keep
            combo.setCurrentIndex(max(0, combo.findData(want)))

    def against_levels(self, name: str, against: str) -> tuple[np.ndarray, ...] | None:
        """The levels result ``name`` is compared with for ``against``: another result of the
        Run shown, ``name``'s previous version (PREVIOUS) or its levels in the saved run
        (SAVED); None when there are none (yet)."""
        if against == PREVIOUS:
            return self.previous.levels(name)
        if against == SAVED:
            return self._saved_levels.get(name)
        if _is_device(against):
            side = self._device_sides.get((against, name))
            return side.levels if side is not None else None
        return self._levels_of(against)

    def _against_label(self, against: str) -> str:
        if against == EXACT:
            return "the exact reference"
        if against == PREVIOUS:
            return "the previous version"
        if against == SAVED and self._saved is not None:
            return f"{self._saved.label()} ({self._saved.origin()})"
        if _is_device(against):
            index = int(against.removeprefix(DEVICE))
            side = self._device_sides.get((against, self.strategy()))
            name = side.device if side is not None \
                else self._devices[index] if index < len(self._devices) else "?"
            return f"device {index} ({name})"
        return against

    # --- previous versions ------------------------------------------------------------------
    def _keep_versions(self, output: LevelsReady) -> None:
        """Each result of a new Run replaces the one shown of its spec: whether their levels
        differ is checked in ``sides`` (at once when small), and if so the replaced levels are
        its previous version (runs.against)."""
        key = chain_key(output.mip)
        self.previous.retain({str(r.spec) for r in output.mip.results})
        for r in output.mip.results:
            name = str(r.spec)
            old = self.previous.shown(name, Kept(key, r.levels))
            if old is None:
                continue
            texels = sum(a.size // 4 for a in r.levels)
            self.sides.submit(("differs", name, next(self._checks)), texels, levels_differ,
                              (r.levels, old.levels),
                              lambda differ, n=name, o=old: self._version_checked(n, o, differ))

    def _version_checked(self, name: str, old: Kept, differ: bool) -> None:
        if not self.previous.checked(name, old, differ):
            return
        key = (name, PREVIOUS)
        self._cache.pop(key, None)  # a comparison with the version before is of no use
        self._pending.pop(key, None)
        if self._building:  # set_run offers and refreshes once, at its end
            return
        before = self._selection()
        self._offer_against()
        if self._selection() != before or self._selection() == key:
            self._refresh()

    # --- saved runs -------------------------------------------------------------------------
    def pick_saved_run(self) -> None:
        """The "saved run…" entry: a folder dialog, then :meth:`load_saved_run`."""
        start = str(Path(self._saved.path).parent) if self._saved is not None else ""
        path = QFileDialog.getExistingDirectory(
            self, "Compare with a saved run (a folder of mipview run --out)", start)
        if path:
            self.load_saved_run(path)

    def load_saved_run(self, path: str | os.PathLike[str]) -> bool:
        """Compare the strategy shown with its levels in the run folder ``path`` (``mipview run
        --out``), read in ``sides``, off the UI thread. Once read it is offered and shown
        (sigSavedLoaded); a folder that does not fit the Run shown (another size, format or
        layer count, not holding the strategy, not a run folder) is told by sigError and
        changes nothing. False when no Run is shown."""
        name, shown = self.strategy(), self.output
        levels = self._levels_of(name)
        if shown is None or levels is None:
            return False
        self._note_reading(f"reading {name} from {os.fspath(path)}…")
        self.sides.submit("open saved", FILE_READ, open_saved_side,
                          (os.fspath(path), name, chain_key(shown.mip), len(levels)),
                          self._saved_opened)
        return True

    def _note_reading(self, text: str) -> None:
        """Say in the summary that a saved run is read; :meth:`_end_reading` puts back what it
        said (a folder that does not fit changes nothing)."""
        if not self._reading_text:  # not while another is read: that one's text would stay
            self._summary_before = self.summary.text()
        self._reading_text = f"  {text}"
        self.summary.setText(self._reading_text)

    def _end_reading(self) -> None:
        if self._reading_text and self.summary.text() == self._reading_text:
            self.summary.setText(self._summary_before)
        self._reading_text = ""

    def _saved_opened(self, got: SavedSide | SavedFailed) -> None:
        self._end_reading()
        if isinstance(got, SavedFailed):
            self.sigError.emit(WorkerError(-1, SAVED_TITLE, got.message))
            return
        if self.output is None or chain_key(self.output.mip) != got.key:
            self.sigError.emit(WorkerError(-1, SAVED_TITLE, (
                f"'{got.path}': the run shown changed to another image, size or format while "
                "it was read; choose it again")))
            return
        self._forget_saved()
        self._saved, self._saved_levels = got, {got.strategy: got.levels}
        if self.strategy() == got.strategy:
            self.select(got.strategy, SAVED)
        else:  # another strategy was chosen meanwhile: offered, not forced on it
            self._offer_against()
        self.sigSavedLoaded.emit(got.path)

    def _read_saved(self, name: str) -> None:
        """``name``'s levels in the saved run read (the first strategy read came with it)."""
        saved, levels = self._saved, self._levels_of(name)
        if saved is None or levels is None or name in self._saved_reading:
            return
        self._saved_reading.add(name)
        self.sides.submit(("read saved", name), FILE_READ, read_saved_side,
                          (saved.saved, name, saved.key, len(levels)),
                          lambda got, n=name: self._saved_read(n, got))

    def _saved_read(self, name: str, got: SavedSide | SavedFailed) -> None:
        self._saved_reading.discard(name)
        if self._saved is None or got.path != self._saved.path:
            return  # another saved run (or none) since
        if isinstance(got, SavedFailed):
            if self._selection() == (name, SAVED):
                self.summary.setText(f"  {name}: not read from {self._saved.label()}")
            self.sigError.emit(WorkerError(-1, SAVED_TITLE, got.message))
            return
        self._saved_levels[name] = got.levels
        if self._selection() == (name, SAVED):
            self._refresh()

    # --- another device ---------------------------------------------------------------------
    def set_devices(self, names: list[str]) -> None:
        """The Vulkan devices, by index: each is offered as "device N", on which the strategy
        shown runs again (once per Run) to be compared with, as ``mipview run --devices``."""
        self._devices = list(names)
        if self.output is not None:
            self._offer_against()

    def _run_on_device(self, name: str, choice: str) -> None:
        if self._levels_of(name) is not None and (choice, name) not in self._device_running:
            self.sigRunOnDevice.emit(choice.removeprefix(DEVICE), name)

    def running_on_device(self, device: str, name: str, job: int, queued: bool) -> None:
        """``job`` runs ``name`` on ``device`` as asked by ``sigRunOnDevice``; ``queued``: after
        the GPU worker's job under way (which a Stop ends with it)."""
        self._device_running[(f"{DEVICE}{device}", name)] = (job, queued)

    def set_device_run(self, out: DeviceRunOutput) -> None:
        self._device_ran(f"{DEVICE}{out.device}", out.strategy, out.level0, out.got)

    def _device_ran(self, choice: str, name: str, level0: np.ndarray,
                    got: DeviceSide | SavedFailed) -> None:
        """``got``: ``name`` run on ``choice`` from ``level0``. Kept only while the Run shown
        is the one of that level 0 (the GPU worker's jobs outlive a Run, and another image of the
        same size and format would compare as this one's); else run again where still chosen."""
        self._device_running.pop((choice, name), None)
        levels = self._levels_of(name)
        if levels is None or levels[0] is not level0:
            if self._selection() == (name, choice):
                self._refresh()
            return
        if isinstance(got, SavedFailed):
            if self._selection() == (name, choice):
                self.summary.setText(f"  {name}: not run on {self._against_label(choice)}")
            self.sigError.emit(WorkerError(-1, DEVICE_TITLE, got.message))
            return
        self._device_sides[(choice, name)] = got
        if self._selection() == (name, choice):
            self._refresh()

    def _forget_saved(self) -> None:
        self._saved, self._saved_levels = None, {}
        self._saved_reading.clear()
        for key in [k for k in (*self._cache, *self._pending) if k[1] == SAVED]:
            self._cache.pop(key, None)
            self._pending.pop(key, None)

    def _quiet_combos(self) -> contextlib.ExitStack:
        """The combo boxes, not telling anyone they change (the caller refreshes once)."""
        stack = contextlib.ExitStack()
        for combo in (self.strategy_combo, self.against_combo):
            stack.enter_context(QSignalBlocker(combo))
        return stack

    # --- strategy against strategy ----------------------------------------------------------
    def comparing(self, strategy: str, against: str, job: int) -> None:
        """``job`` computes the comparison asked for by ``sigCompare``."""
        self._pending[(strategy, against)] = job

    def set_comparison(self, comparison: Comparison) -> bool:
        """Keep ``comparison`` and show it if it is selected; False (and nothing changes) when it
        is of another run than the one shown."""
        if self.output is None or comparison.run_job != self.output.job:
            return False
        key = (comparison.strategy, comparison.against)
        if comparison.against in (PREVIOUS, SAVED) and self._pending.get(key) != comparison.job:
            return False  # of levels replaced since (a newer previous version, another run)
        self._cache[key] = comparison
        self._pending.pop(key, None)
        if key == self._selection():
            self._refresh()
        return True

    def job_finished(self, job: int) -> None:
        """A job ended: a comparison or a device's run it owed and did not send (it failed or
        was stopped) is no longer awaited; selecting it again asks again."""
        for key in [k for k, j in self._pending.items() if j == job]:
            del self._pending[key]
            if key == self._selection():
                self.summary.setText(f"  {key[0]} vs {key[1]}: not computed")
        for (choice, name) in [k for k, (j, _) in self._device_running.items() if j == job]:
            del self._device_running[(choice, name)]  # stopped: it sent nothing
            if (name, choice) == self._selection():
                self.summary.setText(f"  {name}: not run on {self._against_label(choice)}: "
                                     "stopped")

    def strategy(self) -> str:
        """The result shown (``str`` of its spec), "" before a run."""
        return self.strategy_combo.currentData() or ""

    def _selection(self) -> tuple[str, str]:
        return self.strategy(), self.against_combo.currentData() or EXACT

    def _figures(self, name: str, against: str) \
            -> tuple[list[LevelError], list[np.ndarray]] | None:
        """Figures and maps of ``name`` against ``against``; None while they are computed."""
        if against == EXACT:
            e = self.exact.get(name)
            return (list(e.levels), list(e.maps)) if e is not None else None
        got = self._cache.get((name, against))
        return (list(got.levels), list(got.maps)) if got is not None else None

    def _refresh(self) -> None:
        if self.output is None or not self.strategy():
            return
        fmt = self.output.mip.fmt
        name, against = self._selection()
        self._against_shown = against
        own = self.exact.get(name)  # the strategy's own figures, whatever it is compared with
        self.coverage.set_figures(own.figures if own is not None else None)
        figures = self._figures(name, against)
        if figures is None:
            self._show_computing(name, against)
            return
        self.errors, self.maps = figures
        # the strategy's own propagation, whatever it is compared with (the table's counts)
        self.propagation = own.verdict.nonfinite if own is not None else None
        unit = "LSB" if not fmt.is_float else "relative error"
        if self.colorbar.axis.labelText != f"error ({unit})":  # setting it re-draws the axis
            self.colorbar.axis.setLabel(f"error ({unit})")
        finite = [e.max_error for e in self.errors if math.isfinite(e.max_error)]
        self.worst_level = int(np.argmax([e.max_error if math.isfinite(e.max_error) else math.inf
                                          for e in self.errors])) if self.errors else 0
        self._fill_table(fmt)
        self._count_marks(name)
        worst = self.errors[self.worst_level] if self.errors else None
        vs = self._against_label(against)
        if worst is not None and _kept_choice(against) \
                and not any(e.max_error for e in self.errors):
            self.summary.setText(f"  no texel differs from {vs}")
        elif worst is not None:
            spread = f";  {self.propagation.describe()}" \
                if self.propagation and against == EXACT else ""
            self.summary.setText(f"  worst: {compare.format_worst(worst)} vs {vs}"
                                 f"   (max over levels {max(finite, default=0):.3g}){spread}")
        if self.layer_spin.maximum() > 0:
            # the worst texel's layer, so the map shows it at once
            self.layer_spin.set_value_silently(worst.worst[0] if worst is not None else 0)
        self.table.selectRow(self.worst_level)
        self._show_level(self.worst_level)

    def _show_computing(self, name: str, against: str) -> None:
        if against == EXACT:  # the run's analysis brings it (add_errors)
            what = f"analysing {name}…"
        elif against == SAVED and name not in self._saved_levels:
            self._read_saved(name)
            what = f"reading {name} from {self._against_label(against)}…"
        elif _is_device(against) and (against, name) not in self._device_sides:
            self._run_on_device(name, against)
            what = f"running {name} on {self._against_label(against)}" + (
                " after the GPU's job under way…"
                if self._device_running.get((against, name), (0, False))[1] else "…")
        else:
            if (name, against) not in self._pending:
                self.sigCompare.emit(name, against)
            what = f"computing {name} vs {self._against_label(against)}…"
        self.errors, self.maps = [], []
        self.table.setRowCount(0)
        self.coverage.set_figures(None)
        self.pool.forget_key("colours")
        self.image.clear()
        self.overlay.clear()
        self._set_title("")
        self.summary.setText(f"  {what}")

    def _show_count_columns(self, shown: bool) -> None:
        for col in (NONFINITE_COLUMN, NEGATIVE_COLUMN):
            self.table.setColumnHidden(col, not shown)

    def _fill_table(self, fmt: Format) -> None:
        self.table.blockSignals(True)
        self._show_count_columns(fmt.is_float)
        self.table.setRowCount(len(self.errors))
        bold = QFont()
        bold.setBold(True)
        for row, e in enumerate(self.errors):
            layer, y, x, ch = e.worst
            cells = [(str(e.level), e.level), (f"{e.width}x{e.height}", None),
                     (format_value(e.max_error, fmt), e.max_error),
                     (format_value(e.mean_error, fmt), e.mean_error),
                     (format_psnr(e.psnr), e.psnr), (f"({x}, {y}, {ch})", None)]
            for col, (text, value) in enumerate(cells):
                item = _cell(text, value)
                if row == self.worst_level and e.max_error > 0:
                    item.setFont(bold)
                    item.setBackground(QBrush(QColor(150, 40, 40, 110)))
                self.table.setItem(row, col, item)
        self.table.blockSignals(False)

    def _show_selected_level(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self._show_level(rows[0].row())

    def _levels_of(self, name: str) -> tuple[np.ndarray, ...] | None:
        if self.output is None:
            return None
        return next((r.levels for r in self.output.mip.results if str(r.spec) == name), None)

    def _signed_pair(self, level: int) -> tuple[np.ndarray, np.ndarray] | str:
        """The levels a signed map subtracts, or why there are none."""
        name, against = self._selection()
        levels = self._levels_of(name)
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
        channel = self.map_channel()
        if channel is None:
            if not self.maps or level >= len(self.maps):
                return
            self._show_map(level, self.maps[level], signed=False)
        elif self.output is not None and self.strategy():
            pair = self._signed_pair(level)
            if isinstance(pair, str):
                self.pool.forget_key("colours")
                self.image.clear()
                self._set_title(pair)
            else:
                a, ref = pair
                fmt = self.output.mip.fmt
                self.pool.submit("map", a.size // 4, compare.signed_error,
                                 (a, ref, fmt, channel),
                                 lambda m, lv=level: self._show_map(lv, m, signed=True))
        self._update_overlay()

    def _show_map(self, level: int, full: np.ndarray, signed: bool) -> None:
        """Show error map ``full`` ((H, W) or (L, H, W)) of ``level``; ``signed``: a signed
        map, coloured blue-white-red about 0. Its colours are made in the pixel pool."""
        cmap = SIGNED_CMAP if signed else pg.colormap.get(self.cmap_combo.currentText())
        what = f"signed error of channel {'RGBA'[self.map_channel()]}" if signed else "errors"
        where = f", layer {self.layer_spin.value()}" if full.ndim == 3 else ""
        if signed and self._selection()[1] == EXACT:
            where += ", signed against the exact mean reference"
        self.pool.submit("colours", full.size, map_colours,
                         (full, self.layer_spin.value(), signed, cmap),
                         lambda c: self._show_colours(c, cmap, full, level, what, where))

    def _show_colours(self, colours: MapColours, cmap: pg.ColorMap, full: np.ndarray,
                      level: int, what: str, where: str) -> None:
        """:meth:`_show_map`'s map, coloured: ``what`` it is and ``where`` (its layer), for the
        titles."""
        self._set_colours(cmap, colours.levels)
        self.image.set_colours(colours)
        # the histogram changes as steps: painted in the map's turn, it made one of 40-54 ms
        # (18 + 10 ms and the rest) on lavapipe's 2 cores
        steps.soon(lambda: self.histogram.set_range(*colours.levels, emit=False),
                   self.histogram)
        self.pool.submit("histogram", full.size, value_histogram, (full,),
                         lambda h: steps.soon(lambda: self.histogram.set_histogram(
                             h, f"Histogram of {what}, level {level}"), self.histogram))
        h, w = colours.values.shape
        self._set_title(f"level {level}: {w}x{h}{where}")
        self._fit(colours.values.shape)

    def _set_colours(self, cmap: pg.ColorMap, levels: tuple[float, float]) -> None:
        """The colour bar's (and so the map's) colour map and levels, each set only when it
        changes: a colour map's lookup table is computed anew at each set, twice (the bar's and
        the image's), and new levels redraw the bar's axis."""
        if self.colorbar.colorMap() is not cmap:  # colormap.get gives the same object
            self.colorbar.setColorMap(cmap)
        if self.colorbar.levels() != levels:
            self.colorbar.setLevels(levels)

    def _set_title(self, text: str) -> None:
        """The plot's title; setting it lays the plot out again, so only when it changes."""
        if self.plot.titleLabel.text != text:
            self.plot.setTitle(text, color="#d8d8d8")

    def _fit(self, shape: tuple[int, ...]) -> None:
        """The whole map in view; nothing to do when the view shows a map of this shape as the
        last fit left it (a later Run's map, or another layer of the level)."""
        view = self.plot.getViewBox()
        if self._fitted == (shape, view.viewRange()):
            return
        self.plot.autoRange(padding=0.02)
        self._fitted = (shape, view.viewRange())

    def auto_range(self) -> None:
        self.histogram.auto_range()

    def _update_overlay(self) -> None:
        """Paint the shown level's NaN, Inf and negative texels of the strategy (off: none)."""
        levels = self._levels_of(self.strategy())
        if not self.overlay_check.isChecked() or not levels \
                or self.shown_level >= len(levels):
            self.pool.forget_key("overlay")
            self.overlay.clear()
            return
        a = layer_of(levels[self.shown_level], self.layer_spin.value())
        self.pool.submit("overlay", a.shape[0] * a.shape[1], overlay_rgba, (a,),
                         self._set_overlay)

    def _set_overlay(self, rgba: np.ndarray | None) -> None:
        if rgba is None:
            self.overlay.clear()
        else:
            self.overlay.setImage(rgba, autoLevels=False, levels=None)

    def _count_marks(self, name: str) -> None:
        """The table's NaN / +-Inf and negative columns for ``name``'s levels (pixel pool);
        nothing to count in an integer format."""
        levels = self._levels_of(name)
        if not levels or self.output is None or not self.output.mip.fmt.is_float:
            return
        texels = sum(int(np.prod(a.shape[:-1])) for a in levels)
        self.pool.submit("counts", texels, level_counts, (levels,), self._fill_counts)

    def _fill_counts(self, counts: list[tuple[NonFinite, int]]) -> None:
        for row, (nonfinite, negative) in enumerate(counts[:self.table.rowCount()]):
            item = _cell(_nonfinite_cell(nonfinite, self.propagation, row), nonfinite.texels)
            kind = next((k for k, n in (("nan", nonfinite.nan), ("+inf", nonfinite.pos_inf),
                                        ("-inf", nonfinite.neg_inf)) if n), None)
            if kind is not None:
                item.setForeground(QBrush(QColor(*MARKS[kind])))
            self.table.setItem(row, NONFINITE_COLUMN, item)
            item = _cell(str(negative), negative)
            if negative:
                item.setForeground(QBrush(QColor(*MARKS["negative"])))
            self.table.setItem(row, NEGATIVE_COLUMN, item)

    def _set_cmap(self, name: str) -> None:
        if self.map_channel() is None:
            self._set_colours(pg.colormap.get(name), self.colorbar.levels())

    def shutdown(self) -> None:
        self.pool.shutdown()
        self.sides.shutdown()


def overlay_rgba(a: np.ndarray) -> np.ndarray | None:
    """(H, W, 4) uint8: each marked texel (``display.texel_marks``) in its colour, the rest
    transparent; None when no texel is marked."""
    marks = texel_marks(a)
    if not marks:
        return None
    out = np.zeros((*a.shape[:2], 4), np.uint8)
    for kind, mask in marks.items():
        out[mask] = (*MARKS[kind], 230)
    return out


def level_counts(levels: tuple[np.ndarray, ...]) -> list[tuple[NonFinite, int]]:
    """Per level: its non-finite texels (as the verdict counts them) and how many texels hold a
    finite negative value (the overlay's "negative" mark)."""
    return [(count_nonfinite(a), int(np.count_nonzero(texel_marks(a).get("negative", False))))
            for a in levels]


def _cell(text: str, value: object) -> QTableWidgetItem:
    """A right-aligned table cell holding ``value`` (sorting, tests) under its text."""
    item = QTableWidgetItem(text)
    item.setData(Qt.ItemDataRole.UserRole, value)
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item
