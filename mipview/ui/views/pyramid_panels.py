"""The panels of the pyramid viewer: one per pyramid, each with its levels laid out.

Layout of "all levels" mode (as RenderDoc users ask for in its issue #137): level 0 at the
origin, levels 1.. stacked top to bottom in a column to its right. Coordinates are level-0
texels of each level's own grid, so one texel of level i is one unit and small levels stay
small. Single-level mode shows one level at the origin. Magnification is nearest-neighbour (the
graphics view draws without smooth pixmap transforms), so texels stay crisp.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtWidgets import QGraphicsRectItem

from mipview.core.formats import Format
from mipview.ui.display import first_layer
from mipview.ui.views.seam_overlay import SeamItem

ALL_LEVELS = -1
#: a pyramid as given to the view: (key, title, levels, format)
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
    #: the Hi-Z overlay of each shown level, above its image (None until the overlay is on)
    marks: list[pg.ImageItem | None] = field(default_factory=list)
    rects: list[QRectF] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    outlines: dict[int, QGraphicsRectItem] = field(default_factory=dict)
    #: the cull test's outlines: (what, level) -> its items ("rect", "read")
    cull_items: dict[tuple[str, int], list[QGraphicsRectItem]] = field(default_factory=dict)
    source: str = ""
    #: (width, height) of each level a prepared panel (``PyramidView.prepare``) lays out before
    #: its levels come
    expected: list[tuple[int, int]] = field(default_factory=list)
    #: a cube's edges over its crosses (made when first shown)
    seam_item: SeamItem | None = None

    def __post_init__(self) -> None:
        self.source = self.source or self.key


def level_sizes(levels: tuple[np.ndarray, ...]) -> list[tuple[int, int]]:
    """(width, height) of every level."""
    return [(first_layer(a).shape[1], first_layer(a).shape[0]) for a in levels]


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


class LevelBox(pg.ViewBox):
    """A panel's view box: with ``drawing`` on, a left drag draws (``sigDraw``: the press's and
    the mouse's scene positions, and whether the drag starts and ends) instead of panning; the
    middle button still pans."""

    sigDraw = Signal(object, object, bool, bool)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.drawing = False

    def mouseDragEvent(self, ev, axis=None) -> None:  # noqa: N802 - Qt override
        if self.drawing and axis is None and ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self.sigDraw.emit(ev.buttonDownScenePos(), ev.scenePos(), ev.isStart(),
                              ev.isFinish())
            return
        super().mouseDragEvent(ev, axis)


class LevelImage(pg.ImageItem):
    """A level's image. It does not follow its view's range: mipview never downsamples
    automatically, which is all an ImageItem follows it for, and connecting each of a Run's
    hundred-odd items to its view's signals was most of what a Run's result cost the UI thread
    (and every pan and zoom then called each item)."""

    def __init__(self) -> None:
        super().__init__(axisOrder="row-major")

    def _updateView(self) -> None:  # noqa: N802 - pyqtgraph override
        self.forgetViewBox()
        self.forgetViewWidget()


def job_texels(a: np.ndarray) -> int:
    """Texels of an (H, W, C) or (L, H, W, C) array (a pixel-pool job's size)."""
    return int(a.size // a.shape[-1]) if a.ndim >= 3 else int(a.size)
