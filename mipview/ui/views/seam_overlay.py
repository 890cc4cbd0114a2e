"""A cube map's seams over the crosses of the pyramid view (``PyramidView``'s Seams): the
12 edges drawn (:class:`SeamItem`), where they lie on a panel's crosses (:func:`seam_lines_over`),
the seam metric of each level measured off the UI thread (:func:`seam_figures_of`, a pixel-pool
job) and the text a panel's label and tooltip give of it (:func:`seam_label`)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen

from mipview.check.seams import SeamFigures, seam_metric
from mipview.core.cube_cross import SeamLine, cross_position, seam_lines
from mipview.core.formats import Format
from mipview.core.turns import give_turn

#: a cube's edges on the cross: joined ones (faces touching) pale, each open edge's two sides in
#: one of these colours, by its number
SEAM_JOINED = QColor(255, 255, 255, 120)
SEAM_COLOURS = tuple(QColor(c) for c in ("#ff5a5a", "#ffb347", "#ffe066", "#6ee07a", "#4fc3f7",
                                          "#b388ff", "#ff80c0"))
#: the seam metric's text in a panel's label
SEAM_TEXT = "#9ecbff"

#: one edge as drawn: (p0, p1, number (0: joined), the centre of the face it borders), view
#: coordinates
Line = tuple[QPointF, QPointF, int, QPointF]


#: the width of every edge on screen, in pixels: a line, not a band over the texels
SEAM_WIDTH = 1.0
#: an open edge is numbered only when at least this long on screen (pixels): its number's box
#: (NUMBER_BOX) then covers a small part of the face beside it
NUMBER_MIN_EDGE = 64
NUMBER_BOX = 12


class SeamItem(pg.GraphicsObject):
    """A cube's 12 edges over the crosses a panel shows (``cube_cross.seam_lines``): lines one
    screen pixel wide, joined edges pale, the two sides of each open edge in one colour, and
    its number just inside the face where the edge is long enough on screen (cosmetic pens and
    upright text of a fixed size: thin and legible at any zoom, never over a small cross)."""

    def __init__(self) -> None:
        super().__init__()
        #: (p0, p1, number (0: joined), the centre of the face it borders), view coordinates
        self.lines: list[Line] = []
        self._bounds = QRectF()
        self.setZValue(25)

    def set_lines(self, lines: list[Line],
                  bounds: QRectF) -> None:
        self.prepareGeometryChange()
        self.lines, self._bounds = lines, QRectF(bounds)
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return QRectF(self._bounds)

    def paint(self, p, *args) -> None:
        for p0, p1, label, _ in self.lines:
            pen = QPen(SEAM_JOINED if label == 0 else SEAM_COLOURS[(label - 1) % len(SEAM_COLOURS)])
            pen.setCosmetic(True)
            pen.setWidthF(SEAM_WIDTH)
            p.setPen(pen)
            p.drawLine(p0, p1)
        t = p.transform()
        p.save()
        p.resetTransform()
        font = p.font()
        font.setPixelSize(NUMBER_BOX - 3)
        font.setBold(True)
        p.setFont(font)
        half = NUMBER_BOX / 2
        for p0, p1, label, centre in self.lines:
            a, b = t.map(p0), t.map(p1)
            if label == 0 or math.hypot(b.x() - a.x(), b.y() - a.y()) < NUMBER_MIN_EDGE:
                continue  # joined, or too small on screen for a number
            mid = (a + b) / 2
            d = t.map(centre) - mid
            norm = math.hypot(d.x(), d.y()) or 1.0
            at = mid + d * ((half + 2) / norm)
            box = QRectF(at.x() - half, at.y() - half, NUMBER_BOX, NUMBER_BOX)
            p.fillRect(box, QColor(0, 0, 0, 170))
            p.setPen(SEAM_COLOURS[(label - 1) % len(SEAM_COLOURS)])
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, str(label))
        p.restore()


def seam_lines_over(rects: list[QRectF]) -> tuple[list[Line], QRectF]:
    """The edges of the crosses at ``rects`` (a panel's levels, each a 4N x 3N cross), and
    the box they span."""
    lines: list[Line] = []
    bounds = QRectF()
    for rect in rects:
        n = int(rect.height()) // 3
        for line in _seam_lines(n):
            p0 = QPointF(rect.x() + line.p0[0], rect.y() + line.p0[1])
            p1 = QPointF(rect.x() + line.p1[0], rect.y() + line.p1[1])
            centre = QPointF(*_face_centre(n, line))
            lines.append((p0, p1, line.label, centre + rect.topLeft()))
        bounds = bounds.united(rect)
    return lines, bounds


def seam_label(figures: dict[int, SeamFigures], one_level: bool) -> tuple[str, str]:
    """A panel's seam figures (level -> metric) as its label's part (the one level shown, else
    the level of the largest mean ratio) and its tooltip (every level); ("", "") without
    figures."""
    if not figures:
        return "", ""

    def ratio(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    def worst(lv: int) -> tuple[float, float]:
        f = figures[lv]
        return (-1.0 if f.mean_ratio is None else f.mean_ratio, f.max_step)

    lv = max(figures, key=worst)
    f = figures[lv]
    which = f"L{lv}" if one_level else f"worst L{lv}"
    label = (f"   <span style='color:{SEAM_TEXT}'>seams {which}: mean ratio "
             f"{ratio(f.mean_ratio)}, max step {f.max_step:.3g}</span>")
    lines = ["Seam metric per level (the step across each of the 12 cube edges against "
             "the variation inside the faces beside it, linear units; a mean ratio near 1 "
             "is seamless):"]
    for k in sorted(figures):
        g = figures[k]
        _, face, edge = g.worst
        lines.append(f"level {k} ({g.size}x{g.size}): mean ratio {ratio(g.mean_ratio)}, "
                     f"max ratio {ratio(g.max_ratio)}, max step {g.max_step:.3g}, mean step "
                     f"{g.mean_step:.3g}; worst edge {face} {edge}")
    return label, "\n".join(lines)


def seam_figures_of(faces: list[np.ndarray], fmt: Format | None) -> list[SeamFigures | None]:
    """``seams.seam_metric`` of each cube (6, N, N, C) of storage values of ``fmt`` (None:
    values already linear), for one pixel-pool job; None where it cannot be measured."""
    out = []
    for a in faces:
        give_turn()
        try:
            out.append(seam_metric(a, fmt))
        except (ValueError, TypeError):  # a format or shape the metric does not read
            out.append(None)
    return out


@functools.cache
def _seam_lines(n: int) -> tuple[SeamLine, ...]:
    return tuple(seam_lines(n))


def _face_centre(n: int, line: SeamLine) -> tuple[float, float]:
    """The centre of the cell of the face ``line`` borders, in cross pixels."""
    x, y = cross_position(n, line.face, 0, 0)
    x0, y0 = (x // n) * n, (y // n) * n
    return x0 + n / 2, y0 + n / 2
