"""The pyramid viewer: every level of one or more pyramids, side by side, zoom and pan linked.

Layout of "all levels" mode (as RenderDoc users ask for in its issue #137): level 0 at the
origin, levels 1.. stacked top to bottom in a column to its right. Coordinates are level-0
texels of each level's own grid, so one texel of level i is one unit and small levels stay
small. Single-level mode shows one level at the origin. Magnification is nearest-neighbour (the
graphics view draws without smooth pixmap transforms), so texels stay crisp.

Signals
-------
sigHover(str)   the readout under the cursor ("" when it leaves every level)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mipview.formats import Format
from mipview.ui.display import first_layer, layer_count, texel_text, to_display
from mipview.ui.layer_selector import LayerSelector

ALL_LEVELS = -1
REFERENCE_KEY = "reference"


@dataclass
class Panel:
    """One pyramid on screen: its arrays (exactly as given) and the items that draw them."""

    key: str
    title: str
    levels: tuple[np.ndarray, ...]
    fmt: Format | None
    view: pg.ViewBox
    label: pg.LabelItem
    items: list[pg.ImageItem] = field(default_factory=list)
    rects: list[QRectF] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    display: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)

    def display_level(self, i: int, layer: int = 0) -> np.ndarray:
        """8-bit RGBA of level ``i``, layer ``layer`` (clamped: a single-layer pyramid shows
        its only layer whatever is selected)."""
        layer = min(layer, layer_count(self.levels[i]) - 1)
        if (layer, i) not in self.display:
            self.display[(layer, i)] = to_display(self.levels[i], self.fmt, layer)
        return self.display[(layer, i)]


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
        self.reference_check.toggled.connect(lambda _: self._rebuild())
        bar.addWidget(self.reference_check)
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
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("#1e1f22")
        self.graphics.ci.setSpacing(4)
        lay.addWidget(self.graphics, 1)
        self.readout = QLabel(" ")
        self.readout.setStyleSheet("font-family: monospace; padding: 2px 4px;")
        lay.addWidget(self.readout)
        self.panels: list[Panel] = []
        self._pyramids: list[tuple[str, str, tuple[np.ndarray, ...], Format | None]] = []
        self._reference: tuple[tuple[np.ndarray, ...], Format] | None = None
        self.graphics.scene().sigMouseMoved.connect(self._mouse_moved)

    # --- data -----------------------------------------------------------------------------
    def set_pyramids(self, pyramids: list[tuple[str, str, tuple[np.ndarray, ...], Format | None]],
                     keep_view: bool = False) -> None:
        """Show these pyramids as (key, title, levels, fmt); arrays are kept as given."""
        old = self.panels[0].view.viewRange() if (keep_view and self.panels) else None
        self._pyramids = list(pyramids)
        self._reference = None
        self._update_modes()
        self._update_layers()
        self._rebuild()
        if old is not None:
            self.panels[0].view.setRange(xRange=old[0], yRange=old[1], padding=0)

    def set_reference(self, levels: tuple[np.ndarray, ...], fmt: Format) -> None:
        self._reference = (levels, fmt)
        if self.reference_check.isChecked():
            self._rebuild(keep_view=True)

    def panel(self, key: str) -> Panel:
        return next(p for p in self.panels if p.key == key)

    def panel_levels(self, key: str) -> tuple[np.ndarray, ...]:
        return self.panel(key).levels

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
            levels, fmt = self._reference
            entries.append((REFERENCE_KEY, "exact reference (float64)", levels, fmt))
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
        self._relayout()
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
        layer = self.layer_spin.value()
        for panel in self.panels:
            for item in panel.items:
                panel.view.removeItem(item)
            panel.items, panel.rects, panel.shown = [], [], []
            if not panel.levels:
                continue
            sizes = [(first_layer(a).shape[1], first_layer(a).shape[0]) for a in panel.levels]
            if mode is None or mode == ALL_LEVELS:
                shown = list(range(len(sizes)))
                rects = level_layout(sizes, gap=max(2, sizes[0][0] // 128))
            else:
                level = min(int(mode), len(sizes) - 1)
                shown = [level]
                rects = [QRectF(0, 0, *sizes[level])]
            for i, rect in zip(shown, rects, strict=True):
                item = pg.ImageItem(axisOrder="row-major")
                item.setImage(panel.display_level(i, layer), autoLevels=False, levels=None)
                item.setPos(rect.x(), rect.y())
                panel.view.addItem(item)
                panel.items.append(item)
            panel.rects, panel.shown = rects, shown
        if fit:
            self.fit()

    def fit(self) -> None:
        if self.panels:
            self.panels[0].view.autoRange(padding=0.02)

    def one_to_one(self) -> None:
        """One texel per device pixel, keeping the view centre."""
        if not self.panels:
            return
        vb = self.panels[0].view
        (x0, x1), (y0, y1) = vb.viewRange()
        ratio = self.devicePixelRatioF() or 1.0
        w = vb.width() / ratio if vb.width() > 0 else 1.0
        h = vb.height() / ratio if vb.height() > 0 else 1.0
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        vb.setRange(xRange=(cx - w / 2, cx + w / 2), yRange=(cy - h / 2, cy + h / 2), padding=0)

    # --- hover ----------------------------------------------------------------------------
    def texel_at(self, panel: Panel, pos: QPointF) -> tuple[int, int, int] | None:
        """(level, x, y) under ``pos`` (view coordinates of ``panel``), or None."""
        for level, rect in zip(panel.shown, panel.rects, strict=True):
            if rect.contains(pos):
                x = int(math.floor(pos.x() - rect.x()))
                y = int(math.floor(pos.y() - rect.y()))
                if 0 <= x < rect.width() and 0 <= y < rect.height():
                    return level, x, y
        return None

    def readout_text(self, panel: Panel, level: int, x: int, y: int) -> str:
        a = panel.levels[level]
        h, w = first_layer(a).shape[:2]
        layers = layer_count(a)
        layer = min(self.layer_spin.value(), layers - 1)
        where = f"layer {layer}/{layers} | " if layers > 1 else ""
        return (f"{panel.title} | {where}level {level} ({w}x{h}) | x {x}, y {y} | "
                f"{texel_text(a, x, y, panel.fmt, layer)}")

    def _mouse_moved(self, scene_pos: QPointF) -> None:
        text = ""
        for panel in self.panels:
            if panel.view.sceneBoundingRect().contains(scene_pos):
                hit = self.texel_at(panel, panel.view.mapSceneToView(scene_pos))
                if hit is not None:
                    text = self.readout_text(panel, *hit)
                break
        self.readout.setText(text or " ")
        self.sigHover.emit(text)
