"""The sampled preview dock: one result's pyramid on a plane receding into the distance (or a
zoomed quad), sampled trilinearly as a GPU would (mipview/runs/preview.py), optionally with each level
tinted, so a user sees which levels a renderer picks; or its error maps against the exact
reference sampled the same way (``error``), so a user sees where that error would show. A cube
map's result is also offered as the whole sky seen from inside (``sky``,
:meth:`PreviewView.set_cube`), at the level of detail the slider picks, as a reflection probe is
read.

The widget only draws: it says what it wants rendered (:meth:`settings`, :meth:`strategy`) and
emits ``sigChanged``; the window renders it off the UI thread (a PreviewRequest to its compare
worker) and hands the picture back (:meth:`set_image`). Hovering shows the lambda there and the
two levels it blends.

Signals
-------
sigChanged()  the choice of result or the settings changed: render again
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QAction, QImage, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from mipview.runs.preview import (
    KINDS,
    LEVEL_COLOURS,
    PLANE,
    SHOWS,
    SKY,
    PreviewImage,
    PreviewSettings,
)

#: the slider's range: plane pitch in degrees; quad zoom as log2 steps of 1/4
_PITCH = (5, 60)
_ZOOM = (-24, 8)
#: the sky's level of detail in quarter steps, up to level 15
_LOD = (0, 60)


class _Picture(QWidget):
    """The rendered image scaled to fit (aspect kept, top left); reports the image pixel under
    the mouse."""

    sigHover = Signal(int, int)

    def __init__(self) -> None:
        super().__init__()
        self.setMouseTracking(True)
        self.pixmap: QPixmap | None = None

    def set_pixmap(self, pixmap: QPixmap | None) -> None:
        self.pixmap = pixmap
        self.update()

    def _scale(self) -> float:
        if self.pixmap is None or self.pixmap.width() == 0:
            return 1.0
        return min(self.width() / self.pixmap.width(), self.height() / self.pixmap.height())

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.pixmap is None:
            return
        k = self._scale()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.drawPixmap(QRectF(0, 0, self.pixmap.width() * k, self.pixmap.height() * k),
                           self.pixmap, QRectF(self.pixmap.rect()))
        painter.end()

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        p, k = event.position(), self._scale()
        self.sigHover.emit(int(p.x() / k), int(p.y() / k))
        super().mouseMoveEvent(event)


class PreviewView(QWidget):
    sigChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.strategy_combo = QComboBox()
        self.strategy_combo.setToolTip("The result whose pyramid is sampled")
        self.strategy_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.strategy_combo.setMinimumContentsLength(12)
        self.kind_combo = QComboBox()
        self.kind_combo.addItems([k for k in KINDS if k != SKY])  # the sky: set_cube
        self.show_combo = QComboBox()
        self.show_combo.addItems(list(SHOWS))
        self.show_combo.setToolTip("The levels, or their error against the exact reference "
                                   "(the heatmaps) sampled as the levels would be")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.tint_check = QCheckBox("Colour levels")
        self.tint_check.setToolTip("Tint each mip level with its own colour")
        #: the checkbox as a menu action with a shortcut (the window puts it in its menus)
        self.tint_action = QAction("&Colour mip levels in the preview", self, checkable=True,
                                   shortcut=QKeySequence("Ctrl+Shift+M"))
        self.tint_action.toggled.connect(self.tint_check.setChecked)
        self.tint_check.toggled.connect(self.tint_action.setChecked)
        for w in (QLabel("result"), self.strategy_combo, self.kind_combo):
            bar.addWidget(w)
        bar.addStretch(1)
        lay.addLayout(bar)
        row = QHBoxLayout()  # a second row keeps the dock narrow
        row.addWidget(self.slider, 1)
        row.addWidget(self.show_combo)
        row.addWidget(self.tint_check)
        lay.addLayout(row)
        self.picture = _Picture()
        self.picture.setMinimumSize(256, 160)
        self.picture.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        lay.addWidget(self.picture, 1)
        self.legend = QLabel("")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.legend)
        self.hover = QLabel("")
        lay.addWidget(self.hover)
        self.image: PreviewImage | None = None
        self._kind_changed(PLANE)
        self.kind_combo.currentTextChanged.connect(self._kind_changed)
        for signal in (self.strategy_combo.currentIndexChanged, self.slider.valueChanged,
                       self.tint_check.toggled, self.show_combo.currentIndexChanged):
            signal.connect(lambda *_: self.sigChanged.emit())
        self.picture.sigHover.connect(self._hover)

    # --- what to render ---------------------------------------------------------------------
    def set_strategies(self, names: list[str]) -> None:
        """The results there are to preview (keeps the current one where it still is)."""
        current = self.strategy_combo.currentText()
        self.strategy_combo.blockSignals(True)
        self.strategy_combo.clear()
        self.strategy_combo.addItems(names)
        if current in names:
            self.strategy_combo.setCurrentText(current)
        self.strategy_combo.blockSignals(False)
        self.sigChanged.emit()

    def strategy(self) -> str:
        return self.strategy_combo.currentText()

    def settings(self) -> PreviewSettings:
        v = self.slider.value()
        common = {"tint_levels": self.tint_check.isChecked(),
                  "show": self.show_combo.currentText()}
        if self.kind_combo.currentText() == PLANE:
            return PreviewSettings(kind=PLANE, pitch_deg=float(v), **common)
        if self.kind_combo.currentText() == SKY:
            return PreviewSettings(kind=SKY, lod=v / 4, **common)
        return PreviewSettings(kind=self.kind_combo.currentText(), zoom=2.0 ** (v / 4),
                               **common)

    def configure(self, kind: str, tint: bool, show: str) -> None:
        """Set what to render at once: one ``sigChanged``, not one per control."""
        self.blockSignals(True)
        try:
            self.kind_combo.setCurrentText(kind)
            self.tint_check.setChecked(tint)
            self.show_combo.setCurrentText(show)
        finally:
            self.blockSignals(False)
        self.sigChanged.emit()

    def set_cube(self, on: bool) -> None:
        """Whether the results are cube maps: the sky is offered (and chosen) for them only."""
        at = self.kind_combo.findText(SKY)
        if on and at < 0:
            self.kind_combo.addItem(SKY)
            self.kind_combo.setCurrentText(SKY)
        elif not on and at >= 0:
            self.kind_combo.removeItem(at)  # a current sky becomes the plane

    def _kind_changed(self, kind: str) -> None:
        self.slider.blockSignals(True)
        if kind == SKY:
            self.slider.setRange(*_LOD)
            self.slider.setValue(0)
            self.slider.setToolTip("Level of detail sampled everywhere (textureLod's lambda), "
                                   "in quarter levels")
        elif kind == PLANE:
            self.slider.setRange(*_PITCH)
            self.slider.setValue(20)
            self.slider.setToolTip("Camera pitch below the horizon, degrees")
        else:
            self.slider.setRange(*_ZOOM)
            self.slider.setValue(-8)  # a quarter pixel per texel: level 2
            self.slider.setToolTip("Zoom: screen pixels per level-0 texel (log scale)")
        self.slider.blockSignals(False)
        self.sigChanged.emit()

    # --- showing ----------------------------------------------------------------------------
    def set_image(self, image: PreviewImage) -> None:
        self.image = image
        rgba = np.ascontiguousarray(image.rgba)
        h, w = rgba.shape[:2]
        qimg = QImage(rgba.data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()
        self.picture.set_pixmap(QPixmap.fromImage(qimg))
        parts = []
        for k, share in enumerate(image.level_share):
            if share <= 0:
                continue
            r, g, b = (int(255 * c) for c in LEVEL_COLOURS[k % len(LEVEL_COLOURS)])
            parts.append(f"<span style='color: rgb({r},{g},{b})'>&#9632;</span> "
                         f"level {k} {100 * share:.0f}%")
        peak = "" if image.peak is None else \
            f"error, black 0 to white {image.peak:.3g} (the largest of any level); "
        self.legend.setText(peak + "finer level sampled per pixel: " + ", ".join(parts))

    def clear(self) -> None:
        self.image = None
        self.picture.set_pixmap(None)
        self.legend.setText("")
        self.set_strategies([])

    def _hover(self, x: int, y: int) -> None:
        if self.image is None or not (0 <= y < self.image.lod.shape[0]
                                      and 0 <= x < self.image.lod.shape[1]):
            return
        lam = float(self.image.lod[y, x])
        if math.isnan(lam):
            self.hover.setText("no surface here")
            return
        last = len(self.image.level_share) - 1
        d = min(max(lam, 0.0), float(last))
        k = math.floor(d)
        blend = f"{100 * (1 - (d - k)):.0f}% level {k}" + (
            f" + {100 * (d - k):.0f}% level {k + 1}" if k < last and d > k else "")
        self.hover.setText(f"pixel ({x}, {y}): lambda {lam:.2f} -> {blend}")
