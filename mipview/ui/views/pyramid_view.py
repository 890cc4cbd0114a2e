"""The pyramid viewer: every level of one or more pyramids, side by side, zoom and pan linked.

Layout of "all levels" mode (as RenderDoc users ask for in its issue #137): level 0 at the
origin, levels 1.. stacked top to bottom in a column to its right. Coordinates are level-0
texels of each level's own grid, so one texel of level i is one unit and small levels stay
small. Single-level mode shows one level at the origin. Magnification is nearest-neighbour (the
graphics view draws without smooth pixmap transforms), so texels stay crisp.

Display controls (``display_controls``: exposure, offset, gamma, channel, overlays) and the
histogram's black/white range turn values into colours (``display.to_display``) in the pixel
pool, off the UI thread for large levels. A click locks a texel: the table below gives its value
in every level (the texel covering the locked one's centre) of every pyramid and of the
reference, and its footprint is outlined in every level. Flip (T) shows another pyramid in the
first panel's place and back, the other panels staying as they are.

Signals
-------
sigHover(str)     the readout under the cursor ("" when it leaves every level)
sigLocked(object) the locked texel, (level, x, y), or None when unlocked
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFrame,
    QGraphicsRectItem,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mipview.core.formats import Format
from mipview.ui.display import (
    DisplaySettings,
    channel_values,
    first_layer,
    layer_count,
    layer_of,
    normalised,
    texel_text,
    texel_values,
    to_display,
)
from mipview.ui.panels.display_controls import DisplayControls
from mipview.ui.panels.layer_selector import LayerSelector
from mipview.ui.views.histogram import HistogramPanel, value_histogram
from mipview.ui.views.pixel_pool import PixelPool

ALL_LEVELS = -1
REFERENCE_KEY = "reference"
REFERENCE_TITLE = "exact reference (float64)"
OUTLINE = QColor(255, 255, 255)  # none of the overlay colours

Entry = tuple[str, str, tuple[np.ndarray, ...], Format | None]


@dataclass
class Panel:
    """One pyramid on screen: its arrays (exactly as given) and the items that draw them.
    ``key`` names the panel's place; ``source`` the pyramid it shows (another one's while
    flipped)."""

    key: str
    title: str
    levels: tuple[np.ndarray, ...]
    fmt: Format | None
    view: pg.ViewBox
    label: pg.LabelItem
    items: list[pg.ImageItem] = field(default_factory=list)
    rects: list[QRectF] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    outlines: dict[int, QGraphicsRectItem] = field(default_factory=dict)
    source: str = ""

    def __post_init__(self) -> None:
        self.source = self.source or self.key


def level_sizes(levels: tuple[np.ndarray, ...]) -> list[tuple[int, int]]:
    """(width, height) of every level."""
    return [(first_layer(a).shape[1], first_layer(a).shape[0]) for a in levels]


def covering_texel(sizes: list[tuple[int, int]], level: int, x: int, y: int,
                   target: int) -> tuple[int, int]:
    """The texel of level ``target`` under the centre of texel (x, y) of ``level``."""
    (w, h), (tw, th) = sizes[level], sizes[target]
    return (min(tw - 1, int(math.floor((x + 0.5) * tw / w))),
            min(th - 1, int(math.floor((y + 0.5) * th / h))))


def footprint(sizes: list[tuple[int, int]], level: int, x: int, y: int,
              target: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1), end exclusive: the texels of level ``target`` that texel (x, y) of
    ``level`` overlaps (the one texel covering it, in a coarser level)."""
    (w, h), (tw, th) = sizes[level], sizes[target]
    return (int(math.floor(x * tw / w)), int(math.floor(y * th / h)),
            max(int(math.floor(x * tw / w)) + 1, int(math.ceil((x + 1) * tw / w))),
            max(int(math.floor(y * th / h)) + 1, int(math.ceil((y + 1) * th / h))))


def parse_goto(text: str) -> tuple[int, int, int]:
    """"x, y" or "x, y, level" (any separators) -> (x, y, level); ValueError otherwise."""
    parts = [int(p) for p in re.findall(r"-?\d+", text)]
    if len(parts) not in (2, 3):
        raise ValueError(f"expected x, y [, level], got {text!r}")
    return parts[0], parts[1], parts[2] if len(parts) == 3 else 0


def level_layout(sizes: list[tuple[int, int]], gap: int) -> list[QRectF]:
    """Rectangles of every level: level 0 at the origin, the rest in a column to its right."""
    if not sizes:
        return []
    w0, h0 = sizes[0]
    rects = [QRectF(0, 0, w0, h0)]
    y = 0.0
    for w, h in sizes[1:]:
        rects.append(QRectF(w0 + gap, y, w, h))
        y += h + gap
    return rects



class PyramidView(QWidget):
    sigHover = Signal(str)
    sigLocked = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.mode_combo = QComboBox()
        self.mode_combo.addItem("All levels", ALL_LEVELS)
        self.mode_combo.currentIndexChanged.connect(lambda _: self._relayout())
        bar.addWidget(QLabel("Show"))
        bar.addWidget(self.mode_combo)
        # shown only when a pyramid has array layers (multi-page TIFF, or the Layers control)
        self.layer_spin = LayerSelector("Layer", "array layer shown in every panel")
        self.layer_spin.valueChanged.connect(lambda _: self._relayout(fit=False))
        bar.addWidget(self.layer_spin)
        self.reference_check = QCheckBox("Exact reference")
        self.reference_check.setToolTip("Add a panel with the float64 reference pyramid")
        self.reference_check.toggled.connect(lambda _: self._rebuild(keep_view=True))
        bar.addWidget(self.reference_check)
        self.flip_combo = QComboBox()
        self.flip_combo.setToolTip("What Flip (T) shows in the first panel's place")
        self.flip_combo.currentIndexChanged.connect(lambda _: self._flip_target_changed())
        self.flip_button = QPushButton("Flip")
        self.flip_button.setCheckable(True)
        self.flip_button.setToolTip("Show the pyramid chosen beside it in the first panel's "
                                    "place, and back (T)")
        self.flip_button.toggled.connect(self.set_flipped)
        bar.addWidget(QLabel("A/B with"))
        bar.addWidget(self.flip_combo)
        bar.addWidget(self.flip_button)
        fit = QPushButton("Fit")
        fit.setToolTip("Fit everything in view (F)")
        fit.clicked.connect(self.fit)
        one = QPushButton("1:1")
        one.setToolTip("One texel per screen pixel, about the view centre (1)")
        one.clicked.connect(self.one_to_one)
        bar.addWidget(fit)
        bar.addWidget(one)
        bar.addStretch(1)
        lay.addLayout(bar)
        self.controls = DisplayControls()
        self.controls.sigChanged.connect(self._settings_changed)
        # in a horizontal scroller: the row of controls must not set the window's minimum width
        # (a 1366-pixel laptop screen still fits the window)
        scroller = QScrollArea()
        scroller.setWidget(self.controls)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroller.setFixedHeight(self.controls.sizeHint().height()
                                + scroller.horizontalScrollBar().sizeHint().height())
        lay.addWidget(scroller)
        split = QSplitter(Qt.Orientation.Vertical)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("#1e1f22")
        self.graphics.ci.setSpacing(4)
        split.addWidget(self.graphics)
        below = QSplitter(Qt.Orientation.Horizontal)
        self.histogram = HistogramPanel("Histogram")
        self.histogram.sigRange.connect(self.controls.set_range)
        below.addWidget(self.histogram)
        self.lock_table = QTableWidget(0, 0)
        self.lock_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.lock_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.Stretch)
        self.lock_table.setToolTip("The locked texel (click a texel, or Ctrl+G) in every level "
                                   "of every pyramid; Ctrl+Shift+G unlocks")
        below.addWidget(self.lock_table)
        below.setSizes([300, 500])
        split.addWidget(below)
        split.setSizes([600, 150])
        lay.addWidget(split, 1)
        self.readout = QLabel(" ")
        self.readout.setStyleSheet("font-family: monospace; padding: 2px 4px;")
        lay.addWidget(self.readout)
        self.panels: list[Panel] = []
        self._pyramids: list[Entry] = []
        self._reference: tuple[tuple[np.ndarray, ...], Format] | None = None
        self.settings: DisplaySettings = self.controls.settings()
        self.pool = PixelPool(self)
        #: (source, level, layer) -> its display under ``settings``
        self._images: dict[tuple[str, int, int], np.ndarray] = {}
        #: the locked texel: (level, x, y), in the grid of that level
        self.lock: tuple[int, int, int] | None = None
        self.flipped = False
        self.graphics.scene().sigMouseMoved.connect(self._mouse_moved)
        self.graphics.scene().sigMouseClicked.connect(self._mouse_clicked)

    # --- data -----------------------------------------------------------------------------
    def set_pyramids(self, pyramids: list[Entry], keep_view: bool = False) -> None:
        """Show these pyramids as (key, title, levels, fmt); arrays are kept as given."""
        old = self.panels[0].view.viewRange() if (keep_view and self.panels) else None
        self._pyramids = list(pyramids)
        self._reference = None
        self._images.clear()
        self.pool.forget()
        self._set_flipped_silently(False)
        self._update_modes()
        self._update_layers()
        self._update_flip_choices()
        self._rebuild()
        if old is not None and self.panels:
            self.panels[0].view.setRange(xRange=old[0], yRange=old[1], padding=0)

    def set_reference(self, levels: tuple[np.ndarray, ...], fmt: Format) -> None:
        self._reference = (levels, fmt)
        self._update_flip_choices()
        if self.reference_check.isChecked():
            self._rebuild(keep_view=True)
        else:
            self._show_lock()

    def panel(self, key: str) -> Panel:
        return next(p for p in self.panels if p.key == key)

    def panel_levels(self, key: str) -> tuple[np.ndarray, ...]:
        return self.panel(key).levels

    def entries(self) -> list[Entry]:
        """Every pyramid the view has, the reference last when it has one."""
        entries = list(self._pyramids)
        if self._reference is not None:
            levels, fmt = self._reference
            entries.append((REFERENCE_KEY, REFERENCE_TITLE, tuple(levels), fmt))
        return entries

    def _entry(self, key: str) -> Entry:
        return next(e for e in self.entries() if e[0] == key)

    def _update_modes(self) -> None:
        count = max((len(p[2]) for p in self._pyramids), default=1)
        current = self.mode_combo.currentData()
        self.mode_combo.blockSignals(True)
        self.mode_combo.clear()
        self.mode_combo.addItem("All levels", ALL_LEVELS)
        for i in range(count):
            self.mode_combo.addItem(f"Level {i}", i)
        idx = self.mode_combo.findData(current)
        self.mode_combo.setCurrentIndex(max(0, idx))
        self.mode_combo.blockSignals(False)

    def layers(self) -> int:
        """Most array layers of any pyramid shown (1: no layer selector)."""
        return max((layer_count(p[2][0]) for p in self._pyramids if p[2]), default=1)

    def _update_layers(self) -> None:
        n = self.layers()
        self.layer_spin.set_count(n)

    def set_layer(self, layer: int) -> None:
        self.layer_spin.setValue(layer)

    def layer(self) -> int:
        return self.layer_spin.value()

    def set_mode(self, level: int) -> None:
        """``ALL_LEVELS`` or one level index."""
        self.mode_combo.setCurrentIndex(max(0, self.mode_combo.findData(level)))

    # --- drawing --------------------------------------------------------------------------
    def _rebuild(self, keep_view: bool = False) -> None:
        old = self.panels[0].view.viewRange() if (keep_view and self.panels) else None
        self.graphics.clear()
        self.panels = []
        entries = list(self._pyramids)
        if self.reference_check.isChecked() and self._reference is not None:
            entries.append(self.entries()[-1])
        cols = self._columns(entries)
        for n, (key, title, levels, fmt) in enumerate(entries):
            row, col = 2 * (n // cols), n % cols
            label = self.graphics.addLabel(title, row=row, col=col, color="#d8d8d8",
                                           size="10pt")
            vb = self.graphics.addViewBox(row=row + 1, col=col, lockAspect=True, invertY=True,
                                          enableMenu=False)
            vb.setBackgroundColor("#121316")
            if self.panels:
                vb.setXLink(self.panels[0].view)
                vb.setYLink(self.panels[0].view)
            self.panels.append(Panel(key, title, tuple(levels), fmt, vb, label))
        if self.flipped and self.panels:
            self._show_source(self.panels[0], self.flip_combo.currentData())
        self._relayout(fit=old is None)
        if old is not None and self.panels:
            self.panels[0].view.setRange(xRange=old[0], yRange=old[1], padding=0)

    def _columns(self, entries: list) -> int:
        """Panels per row that give each pyramid the most screen: wide pyramids stack."""
        n = len(entries)
        if n <= 1:
            return 1
        first = first_layer(entries[0][2][0]) if entries[0][2] else None
        if first is None:
            return n
        h, w = first.shape[:2]
        aspect = (w * 1.5) / max(1, h)  # level 0 plus the column of smaller levels
        width = max(1, self.graphics.width())
        height = max(1, self.graphics.height())
        best, best_scale = n, 0.0
        for cols in range(1, n + 1):
            rows = -(-n // cols)
            scale = min(width / cols / aspect, height / rows)
            if scale > best_scale * 1.05:
                best, best_scale = cols, scale
        return best

    def _relayout(self, fit: bool = True) -> None:
        mode = self.mode_combo.currentData()
        for panel in self.panels:
            for item in panel.items:
                panel.view.removeItem(item)
            panel.items, panel.rects, panel.shown = [], [], []
            if not panel.levels:
                continue
            sizes = level_sizes(panel.levels)
            if mode is None or mode == ALL_LEVELS:
                shown = list(range(len(sizes)))
                rects = level_layout(sizes, gap=max(2, sizes[0][0] // 128))
            else:
                level = min(int(mode), len(sizes) - 1)
                shown = [level]
                rects = [QRectF(0, 0, *sizes[level])]
            for rect in rects:
                item = pg.ImageItem(axisOrder="row-major")
                item.setPos(rect.x(), rect.y())
                panel.view.addItem(item)
                panel.items.append(item)
            panel.rects, panel.shown = rects, shown
            self._draw_panel(panel)
        self._show_lock()
        self._update_histogram()
        if fit:
            self.fit()

    def _draw_panel(self, panel: Panel) -> None:
        """Each shown level's display: from the cache, else computed in the pixel pool."""
        layer = self.layer_spin.value()
        for level, item in zip(panel.shown, panel.items, strict=True):
            a = panel.levels[level]
            key = (panel.source, level, min(layer, layer_count(a) - 1))
            if key in self._images:
                item.setImage(self._images[key], autoLevels=False, levels=None)
                continue
            h, w = first_layer(a).shape[:2]
            self.pool.submit(("image", panel.key, level), h * w, to_display,
                             (a, panel.fmt, key[2], self.settings),
                             lambda img, k=key, p=panel, it=item: self._rendered(k, p, it, img))

    def _rendered(self, key: tuple[str, int, int], panel: Panel, item: pg.ImageItem,
                  image: np.ndarray) -> None:
        self._images[key] = image
        if item in panel.items and panel.source == key[0]:
            item.setImage(image, autoLevels=False, levels=None)

    def displayed(self, key: str, level: int) -> np.ndarray | None:
        """The RGBA image panel ``key`` shows for ``level`` (None: not shown, or not yet)."""
        panel = self.panel(key)
        if level not in panel.shown:
            return None
        return panel.items[panel.shown.index(level)].image

    def _settings_changed(self, settings: DisplaySettings) -> None:
        channel_changed = settings.channel != self.settings.channel
        self.settings = settings
        self._images.clear()
        self.histogram.set_range(settings.black, settings.white, emit=False)
        for panel in self.panels:
            self._draw_panel(panel)
        if channel_changed:  # the histogram counts the channel's values, not their display
            self._update_histogram()

    def fit(self) -> None:
        rects = [r for p in self.panels for r in p.rects]
        if rects:
            box = rects[0]
            for r in rects[1:]:
                box = box.united(r)
            self.panels[0].view.setRange(rect=box, padding=0.02)

    def one_to_one(self) -> None:
        """One texel per device pixel, keeping the view centre."""
        if not self.panels:
            return
        vb = self.panels[0].view
        (x0, x1), (y0, y1) = vb.viewRange()
        self._centre_on((x0 + x1) / 2, (y0 + y1) / 2)

    def _centre_on(self, cx: float, cy: float) -> None:
        """One texel per device pixel about (cx, cy) of the first panel's coordinates."""
        vb = self.panels[0].view
        ratio = self.devicePixelRatioF() or 1.0
        w = vb.width() / ratio if vb.width() > 0 else 1.0
        h = vb.height() / ratio if vb.height() > 0 else 1.0
        vb.setRange(xRange=(cx - w / 2, cx + w / 2), yRange=(cy - h / 2, cy + h / 2), padding=0)

    # --- histogram ------------------------------------------------------------------------
    def histogram_target(self) -> tuple[Panel, int] | None:
        """The panel and level the histogram counts: the locked texel's level, else the level
        shown alone, else level 0; of the first panel."""
        if not self.panels or not self.panels[0].levels:
            return None
        panel = self.panels[0]
        mode = self.mode_combo.currentData()
        level = self.lock[0] if self.lock is not None else (
            0 if mode in (None, ALL_LEVELS) else int(mode))
        return panel, min(level, len(panel.levels) - 1)

    def _update_histogram(self) -> None:
        target = self.histogram_target()
        if target is None:
            self.histogram.set_histogram(None, "Histogram")
            return
        panel, level = target
        a = layer_of(panel.levels[level], self.layer_spin.value())
        title = f"{panel.title}, level {level}: {self.settings.channel} values"
        self.pool.submit("histogram", a.shape[0] * a.shape[1], _histogram,
                         (a, panel.fmt, self.settings.channel),
                         lambda h: self.histogram.set_histogram(h, title))

    def auto_range(self) -> None:
        """Black and white to the extent of the histogram's finite values."""
        self.histogram.auto_range()

    # --- flip -----------------------------------------------------------------------------
    def _update_flip_choices(self) -> None:
        current = self.flip_combo.currentData()
        first = self._pyramids[0][0] if self._pyramids else None
        self.flip_combo.blockSignals(True)
        self.flip_combo.clear()
        for key, title, _, _ in self.entries():
            if key != first:
                self.flip_combo.addItem(title, key)
        i = self.flip_combo.findData(current)
        self.flip_combo.setCurrentIndex(i if i >= 0 else 0)
        self.flip_combo.blockSignals(False)
        self.flip_button.setEnabled(self.flip_combo.count() > 0)

    def _flip_target_changed(self) -> None:
        if self.flipped and self.panels:
            self._show_source(self.panels[0], self.flip_combo.currentData())
            self._relayout(fit=False)

    def flip(self) -> None:
        """Toggle A/B: the first panel shows the pyramid chosen in "A/B with", or its own."""
        if self.flip_combo.count():
            self.flip_button.toggle()

    def set_flipped(self, on: bool) -> None:
        self._set_flipped_silently(on)
        if self.panels:
            first = self.panels[0]
            self._show_source(first, self.flip_combo.currentData() if on else first.key)
            self._relayout(fit=False)

    def _set_flipped_silently(self, on: bool) -> None:
        self.flipped = on
        self.flip_button.blockSignals(True)
        self.flip_button.setChecked(on)
        self.flip_button.blockSignals(False)

    def _show_source(self, panel: Panel, source: str) -> None:
        """Panel ``panel`` shows pyramid ``source`` (its own key: its own pyramid)."""
        _, title, levels, fmt = self._entry(source)
        panel.source, panel.levels, panel.fmt = source, tuple(levels), fmt
        flipped = source != panel.key
        panel.title = f"{title}   [B: flipped, T]" if flipped else title
        panel.label.setText(panel.title, color="#ffb060" if flipped else "#d8d8d8")

    # --- pick, lock and go to -------------------------------------------------------------
    def texel_at(self, panel: Panel, pos: QPointF) -> tuple[int, int, int] | None:
        """(level, x, y) under ``pos`` (view coordinates of ``panel``), or None."""
        for level, rect in zip(panel.shown, panel.rects, strict=True):
            if rect.contains(pos):
                x = int(math.floor(pos.x() - rect.x()))
                y = int(math.floor(pos.y() - rect.y()))
                if 0 <= x < rect.width() and 0 <= y < rect.height():
                    return level, x, y
        return None

    def lock_texel(self, level: int, x: int, y: int) -> None:
        """Lock texel (x, y) of ``level`` (clamped to the pyramids' levels and sizes)."""
        sizes = self._sizes()
        if not sizes:
            return
        level = min(max(0, level), len(sizes) - 1)
        w, h = sizes[level]
        self.lock = (level, min(max(0, x), w - 1), min(max(0, y), h - 1))
        self._show_lock()
        self._update_histogram()
        self.sigLocked.emit(self.lock)

    def unlock(self) -> None:
        self.lock = None
        self._show_lock()
        self._update_histogram()
        self.sigLocked.emit(None)

    def go_to(self, x: int, y: int, level: int = 0) -> None:
        """Lock texel (x, y) of ``level`` and centre the view on it, one texel per pixel."""
        self.lock_texel(level, x, y)
        if self.lock is None or not self.panels:
            return
        level, x, y = self.lock
        panel = self.panels[0]
        if level not in panel.shown:
            self.set_mode(level)
        rect = panel.rects[panel.shown.index(level)]
        self._centre_on(rect.x() + x + 0.5, rect.y() + y + 0.5)

    def go_to_dialog(self) -> None:
        """Ctrl+G: ask for "x, y [, level]" and go there."""
        text, ok = QInputDialog.getText(self, "Go to texel", "x, y [, level]:")
        if ok and text.strip():
            try:
                self.go_to(*parse_goto(text))
            except ValueError as e:
                self.readout.setText(str(e))

    def _sizes(self) -> list[tuple[int, int]]:
        return level_sizes(self._pyramids[0][2]) if self._pyramids and self._pyramids[0][2] \
            else []

    def locked_texels(self) -> dict[int, tuple[int, int]]:
        """Level -> the texel under the locked texel's centre ({} when none is locked)."""
        if self.lock is None:
            return {}
        sizes = self._sizes()
        return {k: covering_texel(sizes, *self.lock, k) for k in range(len(sizes))}

    def locked_values(self) -> dict[tuple[str, int], tuple[float, ...]]:
        """(pyramid key, level) -> normalised RGBA of :meth:`locked_texels` in every pyramid and
        the reference (of the layer shown)."""
        out = {}
        layer = self.layer_spin.value()
        for key, _, levels, fmt in self.entries():
            for k, (x, y) in self.locked_texels().items():
                if k < len(levels):
                    out[(key, k)] = texel_values(levels[k], x, y, fmt, layer)
        return out

    def _show_lock(self) -> None:
        for panel in self.panels:
            for o in panel.outlines.values():
                panel.view.removeItem(o)
            panel.outlines = {}
        texels = self.locked_texels()
        entries = self.entries()
        table = self.lock_table
        table.setColumnCount(len(entries) if texels else 0)
        table.setRowCount(len(texels))
        if not texels:
            return
        table.setHorizontalHeaderLabels([title for _, title, _, _ in entries])
        table.setVerticalHeaderLabels([f"L{k} ({x}, {y})" for k, (x, y) in texels.items()])
        layer = self.layer_spin.value()
        for col, (_, _, levels, fmt) in enumerate(entries):
            for k, (x, y) in texels.items():
                if k >= len(levels):
                    continue
                item = QTableWidgetItem(", ".join(
                    f"{c:.5g}" for c in texel_values(levels[k], x, y, fmt, layer)))
                item.setToolTip(texel_text(levels[k], x, y, fmt, layer))
                table.setItem(k, col, item)
        sizes = self._sizes()
        pen = QPen(OUTLINE)
        pen.setCosmetic(True)
        pen.setWidth(2)
        for panel in self.panels:
            for level, rect in zip(panel.shown, panel.rects, strict=True):
                if level >= len(sizes):
                    continue
                x0, y0, x1, y1 = footprint(sizes, *self.lock, level)
                outline = QGraphicsRectItem(rect.x() + x0, rect.y() + y0, x1 - x0, y1 - y0)
                outline.setPen(pen)
                outline.setZValue(20)
                panel.view.addItem(outline)
                panel.outlines[level] = outline

    def footprints(self, key: str) -> dict[int, QRectF]:
        """Level -> the outline drawn in panel ``key`` (view coordinates)."""
        return {lv: o.rect() for lv, o in self.panel(key).outlines.items()}

    # --- hover ----------------------------------------------------------------------------
    def readout_text(self, panel: Panel, level: int, x: int, y: int) -> str:
        a = panel.levels[level]
        h, w = first_layer(a).shape[:2]
        layers = layer_count(a)
        layer = min(self.layer_spin.value(), layers - 1)
        where = f"layer {layer}/{layers} | " if layers > 1 else ""
        return (f"{panel.title} | {where}level {level} ({w}x{h}) | x {x}, y {y} | "
                f"{texel_text(a, x, y, panel.fmt, layer)}")

    def _hit(self, scene_pos: QPointF) -> tuple[Panel, tuple[int, int, int] | None] | None:
        for panel in self.panels:
            if panel.view.sceneBoundingRect().contains(scene_pos):
                return panel, self.texel_at(panel, panel.view.mapSceneToView(scene_pos))
        return None

    def _mouse_moved(self, scene_pos: QPointF) -> None:
        hit = self._hit(scene_pos)
        text = self.readout_text(hit[0], *hit[1]) if hit and hit[1] else ""
        self.readout.setText(text or " ")
        self.sigHover.emit(text)

    def _mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        hit = self._hit(event.scenePos())
        if hit and hit[1]:
            self.lock_texel(*hit[1])

    def shutdown(self) -> None:
        self.pool.shutdown()


def _histogram(a: np.ndarray, fmt: Format | None, channel: str):
    """The histogram panel's counts of ``channel`` (RGBA: R, G and B together)."""
    return value_histogram(channel_values(normalised(a, fmt), channel))
