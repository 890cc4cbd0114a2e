"""The Hi-Z cull test of the pyramid viewer.

Cull test (Z, the bar's "Cull test"): a left drag on level 0 draws a screen rectangle, and for
each min/max result the view outlines the level and texels a Hi-Z occlusion test reads for it
(``culling.cull_probe``, in the pixel pool), and says the depth they return against the exact
min and max of level 0 under the rectangle: conservative or not.
"""

from __future__ import annotations

import html
import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QComboBox, QGraphicsRectItem, QLabel, QPushButton, QWidget

from mipview.check.culling import TAP_LABELS, TAPS, CullProbe, cull_level, cull_probe, texels_read
from mipview.core.formats import Format
from mipview.ui.display import EXTREMES, channel_count, linear_depth, value_text
from mipview.ui.views.pyramid_panels import LevelBox, Panel, level_sizes

#: the cull test's rectangle (dashed) and the texels it reads, each over a dark edge so they
#: show on every colormap
CULL_RECT = QColor(255, 255, 255)
CULL_READ = QColor(255, 170, 0)
CULL_EDGE = QColor(0, 0, 0, 200)
#: the cull test's verdicts in the text
CULL_COLOURS = {"exact": "#8fd18f", "conservative": "#8fd18f", "non-conservative": "#ff5050",
                "nan": "#ffb060"}


def _outline(x: float, y: float, w: float, h: float, colour: QColor, width: int,
             dashed: bool = False) -> list[QGraphicsRectItem]:
    """A rectangle outline over a wider dark edge (legible on any colormap), cosmetic pens."""
    items = []
    for c, wd, style in ((CULL_EDGE, width + 2, Qt.PenStyle.SolidLine),
                         (colour, width, Qt.PenStyle.DashLine if dashed
                          else Qt.PenStyle.SolidLine)):
        pen = QPen(c)
        pen.setCosmetic(True)
        pen.setWidth(wd)
        pen.setStyle(style)
        item = QGraphicsRectItem(x, y, w, h)
        item.setPen(pen)
        item.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        item.setZValue(30 if c is colour else 29)
        items.append(item)
    return items


class CullProbeView:
    """The cull test of a pyramid view (``view``, whose part it is; the view module imports
    this one): its button and taps in the view's bar, its text below the panels, the rectangle
    drawn and each min/max result's outcome."""

    def __init__(self, view: QWidget) -> None:
        self.view = view
        self.button = QPushButton("Cull test")
        self.button.setCheckable(True)
        self.button.setEnabled(False)
        self.button.setToolTip(
            "Hi-Z occlusion test of a min/max result (Z): drag a rectangle on level 0; the "
            "level ceil(log2(max(w, h))) and the texels a test reads are outlined, and their "
            "depth is set against the exact min and max under the rectangle")
        self.button.toggled.connect(self.set_mode)
        self.taps_combo = QComboBox()
        for taps in TAPS:
            self.taps_combo.addItem(TAP_LABELS[taps], taps)
        self.taps_combo.setToolTip(
            "Texels the test reads on its level: the 2x2 quad a min/max sampler reduces at "
            "the rectangle's centre (niagara), or only those the rectangle overlaps (Unreal's "
            "corner samples)")
        self.taps_combo.setEnabled(False)
        self.taps_combo.currentIndexChanged.connect(lambda _: self.show())
        self.label = QLabel("")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setWordWrap(True)
        self.label.setStyleSheet("font-family: monospace; padding: 2px 4px;")
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.hide()
        #: the rectangle of level-0 texels (x0, y0, x1, y1, end exclusive), and the test's
        #: outcome per panel key
        self.rect: tuple[int, int, int, int] | None = None
        self.probes: dict[str, CullProbe] = {}
        #: the drag drawing it: its panel and the level-0 texel pressed
        self._drag_from: tuple[Panel, tuple[int, int]] | None = None

    def attach(self, box: LevelBox) -> None:
        """A new panel's box draws the rectangle while the test is on."""
        box.drawing = self.button.isChecked()
        box.sigDraw.connect(self.drag)

    def forget(self) -> None:
        """New pyramids: no outcome yet, and a rectangle beyond their level 0 goes."""
        self.probes = {}
        sizes = self.view._sizes()
        if self.rect is not None and (not sizes or self.rect[2] > sizes[0][0]
                                      or self.rect[3] > sizes[0][1]):
            self.rect = None
        self.update_enabled()

    def update_enabled(self) -> None:
        """The cull test serves min/max results: off (and its rectangle gone) without one."""
        view = self.view
        on = view.cross() is None and \
            any(view._reductions.get(key) in EXTREMES for key, _, _, _ in view._pyramids)
        self.button.setEnabled(on)
        if not on:
            self.button.setChecked(False)

    def set_mode(self, on: bool) -> None:
        """Drawing on: a left drag on level 0 draws the test's rectangle. Off: no test shown.
        Stays off without a min/max result."""
        if on and not self.button.isEnabled():
            self.button.setChecked(False)
            return
        if self.button.isChecked() != on:
            self.button.setChecked(on)  # comes back here
            return
        self.taps_combo.setEnabled(on)
        self.update_text()
        for panel in self.view.panels:
            panel.view.drawing = on
            if on:
                panel.view.setCursor(Qt.CursorShape.CrossCursor)
            else:
                panel.view.unsetCursor()
        if not on:
            self.set_rect(None)

    def set_taps(self, taps: str) -> None:
        """Which texels the test reads (``culling.TAPS``)."""
        self.taps_combo.setCurrentIndex(self.taps_combo.findData(taps))

    def set_rect(self, rect: tuple[int, int, int, int] | None) -> None:
        """Test the rectangle (x0, y0, x1, y1) of level-0 texels, end exclusive (clamped to
        level 0), or none; ``x0, y0, x0 + w, y0 + h`` for a w x h one."""
        sizes = self.view._sizes()
        if rect is not None and sizes:
            w0, h0 = sizes[0]
            x0, y0 = min(max(0, rect[0]), w0 - 1), min(max(0, rect[1]), h0 - 1)
            rect = (x0, y0, min(max(x0 + 1, rect[2]), w0), min(max(y0 + 1, rect[3]), h0))
        self.rect = rect if sizes else None
        self.show()

    def drag(self, press: QPointF, now: QPointF, start: bool, finished: bool) -> None:
        """A drag in drawing mode: from the texel pressed on level 0 (taken at the start: the
        view may rescale as the text below it grows) to the one under the mouse (clamped to
        level 0), both included."""
        if start:
            self._drag_from = None
            hit = next((p for p in self.view.panels
                        if p.view.sceneBoundingRect().contains(press)), None)
            if hit is None or 0 not in hit.shown:
                return
            rect = hit.rects[hit.shown.index(0)]
            a = hit.view.mapSceneToView(press)
            if not rect.contains(a):  # a drag from outside level 0 draws nothing
                return
            self._drag_from = (hit, (int(math.floor(a.x() - rect.x())),
                                     int(math.floor(a.y() - rect.y()))))
        if self._drag_from is None or self._drag_from[0] not in self.view.panels \
                or 0 not in self._drag_from[0].shown:
            return
        panel, (ax, ay) = self._drag_from
        rect = panel.rects[panel.shown.index(0)]
        b = panel.view.mapSceneToView(now)
        bx = min(max(0, int(math.floor(b.x() - rect.x()))), int(rect.width()) - 1)
        by = min(max(0, int(math.floor(b.y() - rect.y()))), int(rect.height()) - 1)
        self.set_rect((min(ax, bx), min(ay, by), max(ax, bx) + 1, max(ay, by) + 1))

    def geometry(self) -> tuple[int, list[tuple[int, int]]] | None:
        """The level the test reads and its texels (x, y) there, for the rectangle shown."""
        sizes = self.view._sizes()
        if self.rect is None or not sizes or not self.button.isEnabled():
            return None
        x0, y0, x1, y1 = self.rect
        k = min(cull_level(x1 - x0, y1 - y0), len(sizes) - 1)
        xs, ys = texels_read(self.rect, sizes[0], sizes[k], self.taps_combo.currentData())
        return k, [(x, y) for y in ys for x in xs]

    def show(self) -> None:
        """Outline the rectangle on level 0, and on the level read the rectangle mapped there
        (dashed) and the texels read, in every panel; test each min/max result's levels in the
        pixel pool."""
        for panel in self.view.panels:
            for items in panel.cull_items.values():
                for item in items:
                    panel.view.removeItem(item)
            panel.cull_items = {}
        self.probes = {}
        geometry = self.geometry()
        if geometry is None:
            for panel in self.view.panels:
                self.view.pool.forget_key(("cull", panel.key))
            self.update_text()
            return
        k, texels = geometry
        sizes = self.view._sizes()
        x0, y0, x1, y1 = self.rect
        (w0, h0), (wk, hk) = sizes[0], sizes[k]
        sx, sy = wk / w0, hk / h0
        for panel in self.view.panels:
            shown = dict(zip(panel.shown, panel.rects, strict=True)) if panel.levels else {}
            if 0 in shown:
                r = shown[0]
                panel.cull_items[("rect", 0)] = _outline(r.x() + x0, r.y() + y0, x1 - x0,
                                                         y1 - y0, CULL_RECT, 2, dashed=True)
            if k in shown and k < len(panel.levels):
                r = shown[k]
                read = []
                for x, y in texels:
                    read += _outline(r.x() + x, r.y() + y, 1, 1, CULL_READ, 2)
                panel.cull_items[("read", k)] = read
                if k > 0:
                    panel.cull_items[("rect", k)] = _outline(
                        r.x() + x0 * sx, r.y() + y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy,
                        CULL_RECT, 1, dashed=True)
            for items in panel.cull_items.values():
                for item in items:
                    panel.view.addItem(item)
        view = self.view
        layer = view.layer_spin.value()
        taps = self.taps_combo.currentData()
        for panel in view.panels:
            job = ("cull", panel.key)
            reduction = view._reductions.get(panel.source)
            if reduction not in EXTREMES or not panel.levels:
                view.pool.forget_key(job)
                continue
            view.pool.submit(job, (x1 - x0) * (y1 - y0), cull_probe,
                             (panel.levels, channel_count(panel.fmt), reduction,
                              self.rect, layer, taps),
                             lambda got, p=panel: self._found(p, got))
        self.update_text()

    def _found(self, panel: Panel, probe: CullProbe) -> None:
        if panel in self.view.panels and probe.rect == self.rect \
                and probe.taps == self.taps_combo.currentData():
            self.probes[panel.key] = probe
            self.update_text()

    def outlines(self, key: str) -> dict[tuple[str, int], list[QRectF]]:
        """(``"rect"`` or ``"read"``, level) -> the outlines panel ``key`` draws for the cull
        test (view coordinates; each once, not its dark edge)."""
        return {what: [i.rect() for i in items if i.pen().color() != CULL_EDGE]
                for what, items in self.view.panel(key).cull_items.items()}

    def update_text(self) -> None:
        lines = [self.text(panel, self.probes[panel.key]) for panel in self.view.panels
                 if panel.key in self.probes]
        drawing = self.button.isChecked()
        if lines:
            note = self._note()
            self.label.setText("<br>".join(lines + ([note] if note else [])))
        elif drawing:  # shown while drawing, so the view does not rescale as a drag starts
            self.label.setText("Cull test: drag a rectangle on level 0 (the middle "
                               "button pans)")
        self.label.setVisible(bool(lines) or drawing)

    def _value(self, v: np.generic, fmt: Format | None) -> str:
        """One stored value as the readout writes it, with its linear depth when Depth is on."""
        top = np.iinfo(v.dtype).max if np.issubdtype(v.dtype, np.integer) else 0
        # an integer code (8- or 16-bit UNORM) and its normalised value, as the readout has it
        text = f"{int(v)} ({int(v) / top:.{4 if top == 255 else 6}f})" if top \
            else value_text(v)
        s = self.view.settings
        if s.depth:
            z = int(v) / top if top else float(v)
            lin = float(linear_depth(np.float32(z), s.near, s.far, s.reversed_z))
            text += f" (linear {lin:.5g})"
        return text

    def text(self, panel: Panel, probe: CullProbe) -> str:
        """The test of ``probe`` as one line of rich text: level, texels read, their depth,
        the exact min and max under the rectangle, and the verdict."""
        w, h = probe.size
        sizes = level_sizes(panel.levels)
        wk, hk = sizes[probe.level]
        level = f"level {probe.level} (ceil log2 {max(w, h)})"
        if probe.wanted != probe.level:
            level = f"level {probe.level} (the last; ceil log2 {max(w, h)} = {probe.wanted})"
        texels = " ".join(f"({x},{y})" for x, y in probe.texels)
        got, fmt = [], panel.fmt
        for i, (what, c, _) in enumerate(probe.sides()):
            ch = f" {'RGBA'[c]}" if len(probe.sides()) > 1 else ""
            got.append(f"{what}{ch} {self._value(probe.returned[i], fmt)}")
        n = probe.lo.shape[0]
        under = []
        for c in range(n):
            ch = f"{'RGBA'[c]} " if n > 1 else ""
            under.append(f"{ch}min {self._value(probe.lo[c], fmt)}, "
                         f"max {self._value(probe.hi[c], fmt)}")
        verdict = {"exact": "conservative (exact)", "conservative": "conservative",
                   "non-conservative": "NOT conservative", "nan": "NaN: no verdict"}[probe.verdict]
        colour = CULL_COLOURS[probe.verdict]
        title = html.escape(panel.title)
        return (f"<b>{title}</b>: {w}x{h} texels -&gt; {level} of {wk}x{hk}, reads "
                f"{texels}: <b>{'; '.join(got)}</b> | level 0 under it: {'; '.join(under)} "
                f"| <span style='color:{colour}'><b>{verdict}</b></span>")

    def _note(self) -> str:
        """What the value read means for occlusion culling under the Z convention (Display's
        Reversed-Z), for a one- or two-channel (depth) result."""
        view = self.view
        kinds = {view._reductions.get(p.source) for p in view.panels if p.key in self.probes
                 and channel_count(p.fmt) < 4}
        if not kinds:
            return ""
        far = "min" if view.settings.reversed_z else "max"
        z = "Reversed-Z" if view.settings.reversed_z else "standard Z"
        text = (f"with {z} the farthest depth is the {far}: an occlusion test culls an object "
                f"whose nearest depth lies beyond it")
        if kinds & {"min", "max"} - {far}:
            text += f"; a {({'min', 'max'} - {far}).pop()} result gives the nearest instead"
        return f"<span style='color:#9a9a9a'>{text}</span>"
