"""The panels of the pyramid viewer: one per pyramid, each with its levels laid out.

Layout of "all levels" mode (as RenderDoc users ask for: RenderDoc #137 on GitHub): level 0 at the
origin, levels 1.. stacked top to bottom in a column to its right. Coordinates are level-0
texels of each level's own grid, so one texel of level i is one unit and small levels stay
small. Single-level mode shows one level at the origin. Magnification is nearest-neighbour (the
graphics view draws without smooth pixmap transforms), so texels stay crisp. The panels' boxes
are linked to the first one's: zoom and pan are the same in every panel.

A Run's panels are made when Run is pressed (``prepare``: the strategies and the image size give
the level count and sizes), before the worker's threads start; its results then fill them
(``PyramidView.set_pyramids`` keeps the panel, box, label and image items of each key it shows
already; results that come while the panels are still being made wait for ``prepare``'s last
step, ``filling``, and the view's ``sigFilled`` says they are in), and ``discard`` gives the
view back if the Run ends without them. A later Run of the same image lays its levels out where
the last one's were, and is not fitted again when the view still shows what the last fit left
(``fit``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtWidgets import QGraphicsRectItem, QWidget

from mipview.core.formats import Format, level_size, mip_count
from mipview.ui import steps
from mipview.ui.display import first_layer
from mipview.ui.views.panel_label import PanelLabel
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


class PanelGrid:
    """The panels of a pyramid view (``view``, whose part it is; the view module imports this
    one) in its graphics widget's grid: made ahead of a Run's results (``prepare``), kept for
    the keys a later Run shows again, laid out, fitted and zoomed 1:1."""

    def __init__(self, view: QWidget) -> None:
        self.view = view
        self.panels: list[Panel] = []
        #: panels were made for a Run's results (``prepare``) that have not come yet, and the
        #: first panel's view range before
        self._pending = False
        self._range_before: list | None = None
        #: prepare's panels, made one per turn of the event loop: what they will show (keys and
        #: titles, grid columns, level sizes), its generation (a later prepare or the results
        #: end an earlier one's turns), and the panels made so far, not in the grid yet
        self._preparing: tuple[list[tuple[str, str]], int, list[tuple[int, int]]] | None = None
        self._prep_generation = 0
        #: the results came while prepare still made their panels: they fill them in its last step
        self._filling = False
        self.ahead: dict[str, Panel] = {}
        #: columns of the panels' grid (``set_panels``)
        self._grid_cols = 0
        #: the last fit: the first panel's box, what it fitted (the levels' places) and the
        #: range it left
        self._fitted: tuple[pg.ViewBox, QRectF, list] | None = None

    def prepare(self, pyramids: list[tuple[str, str]], width: int, height: int) -> None:
        """Make the panels of a Run's results before they come: one per (key, title), in that
        order, each with the image items of a ``width`` x ``height`` pyramid's full chain of
        levels, in steps a few milliseconds apart (:mod:`mipview.ui.steps`; results that come
        sooner take the panels made so far). Called when Run is pressed: made when the results
        come, these items cost the UI thread several times as long, as it waits for the
        interpreter lock between its steps. Panels of the keys shown stay as they are (a later
        Run's keep their images until the new ones are drawn); the others are empty until
        ``PyramidView.set_pyramids`` fills them, as it fills a later Run's. If the Run ends
        without results, :meth:`discard` shows the view's pyramids again."""
        if [key for key, _ in pyramids] == [p.key for p in self.panels]:
            return
        if not self._pending:
            self._range_before = self.panels[0].view.viewRange() if self.panels else None
        self.view.ab.hold()
        sizes = [level_size(width, height, i) for i in range(mip_count(width, height))]
        # the columns of the levels as shown (a cube's crosses are 4:3, not its faces' 1:1)
        cols = self.columns_for(len(pyramids), *self.view.cube.shown_sizes(sizes[:1])[0])
        self._preparing = (list(pyramids), cols, sizes)
        self._prep_generation += 1
        self._pending = True  # pyramids still waiting (filling) are shown in its last step
        # one panel per turn of the event loop, then the grid, then each panel's image items:
        # made in the press of Run they stalled the window 40-57 ms on the H100 machine, while
        # the worker and the pixel pool started (docs/bench/window-stalls)
        self._next_prepare_step()

    def _next_prepare_step(self) -> None:
        generation = self._prep_generation
        steps.later(lambda: self._prepare_step(generation), self.view)

    def _prepare_step(self, generation: int) -> None:
        if self._preparing is None or generation != self._prep_generation:
            return  # the results came, the Run ended, or a later Run prepares
        wanted, cols, sizes = self._preparing
        shown = {p.key for p in self.panels}
        missing = [(k, t) for k, t in wanted if k not in shown and k not in self.ahead]
        if missing:
            key, title = missing[0]
            self.ahead[key] = self.new_panel(key, title)
            self._next_prepare_step()
            return
        if [k for k, _ in wanted] != [p.key for p in self.panels]:
            self.set_panels(wanted, cols)
            for panel in self.panels:
                if not panel.levels:
                    panel.expected = sizes
            self._next_prepare_step()
            return
        # one panel's image items per turn too: five 1024² chains' 55 in one turn took 32 ms
        # of the UI thread on 2 cores
        if any(self.place_items(panel) for panel in self.panels):
            self._next_prepare_step()
            return
        self._preparing = None
        if self._filling:
            self._filling = False
            self.view._rebuild()
            self.view.sigFilled.emit()
        else:
            self.view._relayout()

    def discard(self) -> None:
        """The Run :meth:`prepare` made panels for ended without results (stopped, or
        failed): its empty panels go, and the view shows its pyramids again, at the range it
        had. Nothing to do once the results came."""
        if not self._pending or self._filling:
            return
        before = self._range_before
        self._preparing = None
        self.ahead.clear()
        self.view._rebuild()
        if before is not None and self.panels:
            self.panels[0].view.setRange(xRange=before[0], yRange=before[1], padding=0)

    @property
    def preparing(self) -> bool:
        """Whether :meth:`prepare` is still making panels or their image items."""
        return self._preparing is not None

    @property
    def filling(self) -> bool:
        """Whether the pyramids set last wait for :meth:`prepare`'s panels: they are shown in
        its last step, which emits the view's ``sigFilled``."""
        return self._filling

    @property
    def pending(self) -> bool:
        """Whether the panels were made for a Run's results that have not come
        (:meth:`prepare`)."""
        return self._pending

    def take(self, entries: list) -> bool:
        """Panels for ``entries`` (key, title, levels, format), in a grid of the columns that
        suit them: False when they wait for :meth:`prepare`'s last step (``filling``)."""
        if self._preparing is not None and self._pending:
            # results that come while prepare still makes their panels (a fast GPU's first
            # Run) fill them in its last step: the rest of the panels, the grid and the first
            # panel's items made in the results' turn were that Run's longest turn (21-23 ms
            # on the H100 machine; docs/bench/window-stalls)
            _, _, sizes = self._preparing
            self._preparing = ([(e[0], e[1]) for e in entries], self.columns(entries), sizes)
            self._filling = True
            return False
        if self._pending:  # the panels get their pyramids (or the view its own back)
            self._pending, self._range_before = False, None
            self._preparing = None  # set_panels takes the panels it made
            self.view.ab.update_choices()
        cols = self.columns(entries)
        if [e[0] for e in entries] != [p.key for p in self.panels] or cols != self._grid_cols:
            self.set_panels([(key, title) for key, title, _, _ in entries], cols)
        return True

    def set_panels(self, wanted: list[tuple[str, str]], cols: int) -> None:
        """One panel per (key, title) of ``wanted``, in that order, in a grid of ``cols``
        columns: a panel of the same key stays (its box, label and image items, its levels until
        they are set), the others are made, empty; panels of other keys leave the grid."""
        kept = {p.key: p for p in self.panels}
        panels = []
        for key, title in wanted:
            panel = kept.pop(key, None) or self.ahead.pop(key, None) or self.new_panel(key, title)
            panels.append(panel)
        if self._preparing is None:
            self.ahead.clear()
        grid = self.view.graphics.ci
        cells = {}
        for n, panel in enumerate(panels):
            row, col = 2 * (n // cols), n % cols
            cells[panel.label], cells[panel.view] = (row, col), (row + 1, col)
        for item in [i for i, at in grid.items.items() if at != [cells.get(i)]]:
            grid.removeItem(item)
        added = [(item, at) for item, at in cells.items() if item not in grid.items]
        # pyqtgraph lays the whole grid out again after each item it adds: once for all of them
        # (five panels' ten items took 8-18 ms of a first Run's step on 2 cores, docs/bench/window-stalls)
        grid.layout.activate = lambda: None
        try:
            for item, (row, col) in added:
                grid.addItem(item, row=row, col=col)
        finally:
            del grid.layout.activate
        if added:
            grid.layout.activate()
        for panel in kept.values():  # gone: its box follows the first one's range no more
            panel.view.setXLink(None)
            panel.view.setYLink(None)
        first = panels[0].view if panels else None
        for panel in panels:
            link = None if panel.view is first else first
            if panel.view.linkedView(pg.ViewBox.XAxis) is not link:
                panel.view.setXLink(link)
            if panel.view.linkedView(pg.ViewBox.YAxis) is not link:
                panel.view.setYLink(link)
        self.panels = panels
        self._grid_cols = cols

    def new_panel(self, key: str, title: str) -> Panel:
        label = PanelLabel(title, color="#d8d8d8", size="10pt")
        vb = LevelBox(lockAspect=True, invertY=True, enableMenu=False)
        vb.setBackgroundColor("#121316")
        self.view.cull.attach(vb)
        return Panel(key, title, (), None, vb, label)

    def columns(self, entries: list) -> int:
        """Panels per row that give each pyramid the most screen: wide pyramids stack."""
        if not entries or not entries[0][2]:
            return max(1, len(entries))
        w, h = self.view.cube.level_sizes((entries[0][2][0],))[0]
        return self.columns_for(len(entries), w, h)

    def columns_for(self, n: int, w: int, h: int) -> int:
        """:meth:`columns` of ``n`` pyramids of a ``w`` x ``h`` level 0."""
        if n <= 1:
            return 1
        aspect = (w * 1.5) / max(1, h)  # level 0 plus the column of smaller levels
        width = max(1, self.view.graphics.width())
        height = max(1, self.view.graphics.height())
        best, best_scale = n, 0.0
        for cols in range(1, n + 1):
            rows = -(-n // cols)
            scale = min(width / cols / aspect, height / rows)
            if scale > best_scale * 1.05:
                best, best_scale = cols, scale
        return best

    def places(self, panel: Panel) -> tuple[list[int], list[QRectF]]:
        return self.placement(
            self.view.cube.level_sizes(panel.levels) if panel.levels
            else self.view.cube.shown_sizes(panel.expected), self.view.mode_combo.currentData())

    def place_items(self, panel: Panel) -> bool:
        """Give ``panel`` an image item in each place its levels take in the view's mode;
        whether they moved."""
        shown, rects = self.places(panel)
        if (shown, rects) == (panel.shown, panel.rects):
            # images keep their items where the places are the same: the new levels replace
            # the old ones' pixels when drawn, with no blank frame between
            return False
        for item in (*panel.items, *filter(None, panel.marks)):
            panel.view.removeItem(item)
        panel.items = []
        for rect in rects:
            item = LevelImage()
            item.setPos(rect.x(), rect.y())
            panel.view.addItem(item)
            panel.items.append(item)
        panel.marks = [None] * len(rects)  # made when the Hi-Z overlay is first on
        panel.rects, panel.shown = rects, shown
        return True

    @staticmethod
    def placement(sizes: list[tuple[int, int]], mode: object) -> tuple[list[int], list[QRectF]]:
        """The levels (of these sizes) a panel shows in ``mode`` and their places in the
        panel's view."""
        if not sizes:
            return [], []
        if mode is None or mode == ALL_LEVELS:
            return list(range(len(sizes))), level_layout(sizes, gap=max(2, sizes[0][0] // 128))
        level = min(int(mode), len(sizes) - 1)
        return [level], [QRectF(0, 0, *sizes[level])]

    def fit(self) -> None:
        """Every level in view. Nothing to do when the view shows what the last fit left, of
        levels in the same places (a later Run's): setting the range of the first panel's box
        updates every box linked to it, even to the range it has."""
        rects = [r for p in self.panels for r in p.rects]
        if not rects:
            return
        box = rects[0]
        for r in rects[1:]:
            box = box.united(r)
        view = self.panels[0].view
        if self._fitted == (view, box, view.viewRange()):
            return
        view.setRange(rect=box, padding=0.02)
        self._fitted = (view, box, view.viewRange())

    def one_to_one(self) -> None:
        """One texel per device pixel, keeping the view centre."""
        if not self.panels:
            return
        vb = self.panels[0].view
        (x0, x1), (y0, y1) = vb.viewRange()
        self.centre_on((x0 + x1) / 2, (y0 + y1) / 2)

    def centre_on(self, cx: float, cy: float) -> None:
        """One texel per device pixel about (cx, cy) of the first panel's coordinates."""
        vb = self.panels[0].view
        ratio = self.view.devicePixelRatioF() or 1.0
        w = vb.width() / ratio if vb.width() > 0 else 1.0
        h = vb.height() / ratio if vb.height() > 0 else 1.0
        vb.setRange(xRange=(cx - w / 2, cx + w / 2), yRange=(cy - h / 2, cy + h / 2), padding=0)
