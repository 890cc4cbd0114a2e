"""The texel readout of the pyramid viewer: the texel under the cursor, and the locked one.

The line below the panels reads the texel under the cursor (of a cross: the face and the texel
in it; of a volume: the slice and the texel's (x, y, z)). A click locks a texel: the table
beside the histogram gives its value in every level (the texel covering the locked one's
centre) of every pyramid and of the reference, and its footprint is outlined in every level.
Ctrl+G goes to a texel, Ctrl+Shift+G unlocks.
"""

from __future__ import annotations

import math
import re

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGraphicsRectItem,
    QHeaderView,
    QInputDialog,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from mipview.core.array_layers import layer_count
from mipview.core.cube import FACES
from mipview.core.cube_cross import FACE_LABELS, cross_texel
from mipview.ui.display import (
    EXTREMES,
    channel_count,
    first_layer,
    footprint_text,
    linear_depth,
    texel_text,
    texel_values,
)
from mipview.ui.views.pyramid_panels import Panel
from mipview.ui.volume_slices import volume_texel

OUTLINE = QColor(255, 255, 255)  # none of the overlay colours

#: the readout line while the cursor is on no level: what the line is for, not a blank strip
READOUT_HINT = ("<span style='color:#8a8a8a'>Hover a texel for its values; click to lock it "
                "in every level (Ctrl+G: go to)</span>")


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


class TexelReadout:
    """The readout of a pyramid view (``view``, whose part it is; the view module imports this
    one): the line below the panels, the lock table and the locked texel's outlines. It reads
    the view's scene: the cursor's moves and clicks."""

    def __init__(self, view: QWidget) -> None:
        self.view = view
        self.label = QLabel(READOUT_HINT)
        self.label.setStyleSheet("font-family: monospace; padding: 2px 4px;")
        self.lock_table = QTableWidget(0, 0)
        self.lock_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.lock_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.Stretch)
        self.lock_table.setToolTip("The locked texel (click a texel, or Ctrl+G) in every level "
                                   "of every pyramid; Ctrl+Shift+G unlocks")
        #: the locked texel: (level, x, y), in the grid of that level
        self.lock: tuple[int, int, int] | None = None
        view.graphics.scene().sigMouseMoved.connect(self.hover)
        view.graphics.scene().sigMouseClicked.connect(self.click)

    def texel_at(self, panel: Panel, pos: QPointF) -> tuple[int, int, int] | None:
        """(level, x, y) under ``pos`` (view coordinates of ``panel``), or None."""
        for level, rect in zip(panel.shown, panel.rects, strict=True):
            if rect.contains(pos):
                x = int(math.floor(pos.x() - rect.x()))
                y = int(math.floor(pos.y() - rect.y()))
                if self.view.cross() is not None and \
                        cross_texel(int(rect.height()) // 3, x, y) is None:
                    return None  # an empty cell of a cross: no texel
                if 0 <= x < rect.width() and 0 <= y < rect.height():
                    return level, x, y
        return None

    def lock_texel(self, level: int, x: int, y: int) -> None:
        """Lock texel (x, y) of ``level`` (clamped to the pyramids' levels and sizes)."""
        sizes = self.view._sizes()
        if not sizes:
            return
        level = min(max(0, level), len(sizes) - 1)
        w, h = sizes[level]
        self.lock = (level, min(max(0, x), w - 1), min(max(0, y), h - 1))
        self.show_lock()
        self.view.display.update_histogram()
        self.view.sigLocked.emit(self.lock)

    def unlock(self) -> None:
        self.lock = None
        self.show_lock()
        self.view.display.update_histogram()
        self.view.sigLocked.emit(None)

    def go_to(self, x: int, y: int, level: int = 0) -> None:
        """Lock texel (x, y) of ``level`` and centre the view on it, one texel per pixel."""
        self.lock_texel(level, x, y)
        if self.lock is None or not self.view.panels:
            return
        level, x, y = self.lock
        panel = self.view.panels[0]
        if level not in panel.shown:
            self.view.set_mode(level)
        rect = panel.rects[panel.shown.index(level)]
        self.view.grid.centre_on(rect.x() + x + 0.5, rect.y() + y + 0.5)

    def go_to_dialog(self) -> None:
        """Ctrl+G: ask for "x, y [, level]" and go there."""
        text, ok = QInputDialog.getText(self.view, "Go to texel", "x, y [, level]:")
        if ok and text.strip():
            try:
                self.go_to(*parse_goto(text))
            except ValueError as e:
                self.label.setText(str(e))

    def locked_texels(self) -> dict[int, tuple[int, int]]:
        """Level -> the texel under the locked texel's centre ({} when none is locked)."""
        if self.lock is None:
            return {}
        sizes = self.view._sizes()
        return {k: covering_texel(sizes, *self.lock, k) for k in range(len(sizes))}

    def locked_values(self) -> dict[tuple[str, int], tuple[float, ...]]:
        """(pyramid key, level) -> normalised RGBA of :meth:`locked_texels` in every pyramid and
        the reference (of the layer shown)."""
        out = {}
        for key, _, levels, fmt in self.view.entries():
            for k, (x, y) in self.locked_texels().items():
                at = self.view.texel_of(levels[k], x, y) if k < len(levels) else None
                if at is not None:
                    layer, i, j = at
                    out[(key, k)] = texel_values(levels[k], i, j, fmt, layer)
        return out

    def show_lock(self) -> None:
        """The lock table and each panel's outlines of the locked texel's footprint (none
        without a lock)."""
        texels = self.locked_texels()
        entries = self.view.entries()
        table = self.lock_table
        table.setColumnCount(len(entries) if texels else 0)
        table.setRowCount(len(texels))
        table.setVisible(bool(texels))  # no blank box beside the histogram until a lock
        if texels:
            table.setHorizontalHeaderLabels([title for _, title, _, _ in entries])
            table.setVerticalHeaderLabels([self._header(k, x, y)
                                           for k, (x, y) in texels.items()])
        for col, (_, _, levels, fmt) in enumerate(entries if texels else []):
            for k, (x, y) in texels.items():
                at = self.view.texel_of(levels[k], x, y) if k < len(levels) else None
                if at is None:
                    continue
                layer, i, j = at
                own = texel_values(levels[k], i, j, fmt, layer)[:channel_count(fmt)]
                item = QTableWidgetItem(", ".join(f"{c:.5g}" for c in own))
                item.setToolTip(texel_text(levels[k], i, j, fmt, layer))
                table.setItem(k, col, item)
        sizes = self.view._sizes()
        for panel in self.view.panels:
            wanted = {}
            for level, rect in zip(panel.shown, panel.rects, strict=True):
                if texels and level < min(len(sizes), len(panel.levels)):
                    x0, y0, x1, y1 = footprint(sizes, *self.lock, level)
                    wanted[level] = QRectF(rect.x() + x0, rect.y() + y0, x1 - x0, y1 - y0)
            # outlines move rather than being made anew: a Run's result or a new lock adds
            # and removes no items where the levels shown stay the same
            for level in [lv for lv in panel.outlines if lv not in wanted]:
                panel.view.removeItem(panel.outlines.pop(level))
            for level, r in wanted.items():
                outline = panel.outlines.get(level)
                if outline is None:
                    outline = panel.outlines[level] = QGraphicsRectItem()
                    pen = QPen(OUTLINE)
                    pen.setCosmetic(True)
                    pen.setWidth(2)
                    outline.setPen(pen)
                    outline.setZValue(20)
                    panel.view.addItem(outline)
                outline.setRect(r)

    def _header(self, level: int, x: int, y: int) -> str:
        """A row of the lock table: the level and texel (in a cross: the face's texel)."""
        levels = self.view._pyramids[0][2] if self.view._pyramids else ()
        if self.view.cross() is None or level >= len(levels):
            return f"L{level} ({x}, {y})"
        at = self.view.texel_of(levels[level], x, y)
        if at is None:
            return f"L{level} (no face)"
        layer, i, j = at
        return f"L{level} {FACE_LABELS[layer % FACES]} ({i}, {j})"

    def footprints(self, key: str) -> dict[int, QRectF]:
        """Level -> the outline drawn in panel ``key`` (view coordinates)."""
        return {lv: o.rect() for lv, o in self.view.panel(key).outlines.items()}

    def text(self, panel: Panel, level: int, x: int, y: int) -> str:
        """The readout of texel (x, y) of ``level`` as shown (of a cross: the face and the
        texel in that face; "" over an empty cell)."""
        a = panel.levels[level]
        h, w = first_layer(a).shape[:2]
        layers = layer_count(a)
        at = self.view.texel_of(a, x, y)
        if at is None:
            return ""
        layer, x, y = at
        layer = min(layer, layers - 1)
        where = f"layer {layer}/{layers} | " if layers > 1 else ""
        if self.view.volume.is_volume():
            axis = self.view.slice_axis()
            vx, vy, vz = volume_texel(axis, layer, x, y)
            where = f"slice {layer}/{layers} across {axis}, x {vx} y {vy} z {vz} | "
        if self.view.cube.crossable(a):
            cube = f"cube {layer // FACES} " if layers > FACES else ""
            where = f"{cube}face {FACE_LABELS[layer % FACES]} (layer {layer}/{layers}) | "
        text = (f"{panel.title} | {where}level {level} ({w}x{h}) | x {x}, y {y} | "
                f"{texel_text(a, x, y, panel.fmt, layer)}")
        s = self.view.settings
        if s.depth:
            own = texel_values(a, x, y, panel.fmt, layer)[:channel_count(panel.fmt)]
            linear = linear_depth(np.array(own), s.near, s.far, s.reversed_z)
            text += " | linear depth " + ", ".join(f"{float(c):.6g}" for c in linear)
        reduction = self.view._reductions.get(panel.source)
        if s.hiz and reduction in EXTREMES and level > 0:
            text += " | " + footprint_text(panel.levels[level - 1], a, x, y, panel.fmt,
                                           reduction, layer)
        return text

    def _hit(self, scene_pos: QPointF) -> tuple[Panel, tuple[int, int, int] | None] | None:
        for panel in self.view.panels:
            if panel.view.sceneBoundingRect().contains(scene_pos):
                texel = self.texel_at(panel, panel.view.mapSceneToView(scene_pos))
                # a prepared panel's levels have not come: no values under the cursor yet
                return panel, texel if texel and texel[0] < len(panel.levels) else None
        return None

    def hover(self, scene_pos: QPointF) -> None:
        """The cursor moved to ``scene_pos``: read the texel under it."""
        hit = self._hit(scene_pos)
        text = self.text(hit[0], *hit[1]) if hit and hit[1] else ""
        self.label.setText(text or READOUT_HINT)
        self.view.sigHover.emit(text)

    def click(self, event) -> None:
        """A click on the scene: a left click on a texel locks it."""
        if event.button() != Qt.MouseButton.LeftButton:
            return
        hit = self._hit(event.scenePos())
        if hit and hit[1]:
            self.lock_texel(*hit[1])
