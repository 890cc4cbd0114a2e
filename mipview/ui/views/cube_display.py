"""A cube map in the pyramid viewer: its levels unfolded as crosses, and their seams.

A cube map (``PyramidView.set_pyramids``' ``faces`` 6, or :meth:`CubeDisplay.set_cube`, with
levels of 6 k square layers) is shown by default with each level unfolded as a cross
(``ui.cube_cross``: +Y above; -X, +Z, +X, -Z; -Y below), the layer selector offering each
cube's cross besides its faces. Each face goes through ``display.to_display`` and the uint8
result is unfolded (``display.cross_display``, in the pixel pool), so exposure and tone mapping
are a face's own. "Seams" draws the cube's 12 edges over the crosses (one item per panel:
joined edges pale, the two sides of each open edge in one colour and number), and the panel's
label and tooltip give each level's seam metric (``check.seams.seam_metric``, in the pixel
pool); the drawing, the measuring and the text are ``views.seam_overlay``'s. Coordinates
(hover, lock, go to) are the cross's texels; the readout names the face and the texel in it,
and nothing over an empty cell. The cull test serves faces, not crosses.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QCheckBox, QWidget

from mipview.check.seams import SeamFigures
from mipview.core.cube import FACES
from mipview.core.cube_cross import cross_position, cross_size, cross_texel
from mipview.ui.views.pyramid_panels import Panel, job_texels, level_sizes
from mipview.ui.views.seam_overlay import SeamItem, seam_figures_of, seam_label, seam_lines_over


class CubeDisplay:
    """The cube map of a pyramid view (``view``, whose part it is; the view module imports
    this one): whether its pyramids are a cube's, the cross chosen, the Seams check and the
    seam metric of each level shown."""

    def __init__(self, view: QWidget) -> None:
        self.view = view
        #: 6 when the pyramids shown are of a cube map (``set_cube``), else 1
        self.faces = 1
        #: (source, level, cube) -> the seam metric of that cube of that level (None: none)
        self.seams: dict[tuple[str, int, int], SeamFigures | None] = {}
        # a cube map's edges over its crosses (shown with the crosses only)
        self.seams_check = QCheckBox("Seams")
        self.seams_check.setChecked(True)
        self.seams_check.setToolTip("Draw the cube's 12 edges over each cross: joined edges "
                                    "pale, the two sides of each open edge in one colour and "
                                    "number. The panel's title gives the seam metric (hover it "
                                    "for every level)")
        self.seams_check.toggled.connect(lambda _: self.draw_all())
        self.seams_check.setVisible(False)

    def set_cube(self, faces: int) -> None:
        """6: the pyramids shown (and those set later, until told otherwise) are of a cube map,
        shown as crosses when their levels are 6 k square layers; 1: they are not."""
        if faces == self.faces:
            return
        self.faces = faces
        self.view._update_layers()
        self.view._layer_changed()

    def cube_count(self) -> int:
        """Cubes of the pyramids shown: their source is a cube map (:meth:`set_cube`) and every
        level of each is 6 k square layers (the same k); 0 otherwise."""
        if self.faces != FACES:
            return 0
        counts = set()
        for _, _, levels, _ in self.view._pyramids:
            for a in levels:
                if a.ndim != 4 or a.shape[0] % FACES or a.shape[1] != a.shape[2]:
                    return 0
                counts.add(a.shape[0] // FACES)
        return counts.pop() if len(counts) == 1 else 0

    def cross(self) -> int | None:
        """The cube each level is shown unfolded of (a cross), or None (a layer is shown)."""
        return self.view.layer_spin.cross()

    def set_cross(self, cube: int = 0) -> None:
        """Show each level of cube ``cube`` as a cross (a cube map only)."""
        self.view.layer_spin.set_cross(cube)

    def crossable(self, a: np.ndarray) -> bool:
        """Whether level ``a`` is shown as a cross: a cross is chosen and ``a`` holds that cube."""
        c = self.cross()
        return c is not None and a.ndim == 4 and a.shape[1] == a.shape[2] \
            and a.shape[0] >= FACES * (c + 1)

    def level_sizes(self, levels: tuple[np.ndarray, ...]) -> list[tuple[int, int]]:
        """(width, height) each level takes on screen: a cross's, or the level's."""
        return self.shown_sizes(level_sizes(levels))

    def shown_sizes(self, sizes: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Sizes of levels (of faces while a cross is shown) -> their size on screen."""
        return [cross_size(w) for w, _ in sizes] if self.cross() is not None else sizes

    def moved_lock(self, lock: tuple[int, int, int], cross: int | None,
                   layer: int) -> tuple[int, int, int] | None:
        """The locked texel in a cross's coordinates (``cross`` not None: from ``layer``'s
        face) or in a face's (from a cross's), None where there is none."""
        pyramids = self.view._pyramids
        sizes = level_sizes(pyramids[0][2]) if pyramids and pyramids[0][2] else []
        level, x, y = lock
        if level >= len(sizes):
            return None
        n = sizes[level][0]
        if cross is not None:
            return (level, *cross_position(n, layer % FACES, x, y))
        found = cross_texel(n, x, y)
        return None if found is None else (level, found[1], found[2])

    def seam_figures(self, key: str) -> dict[int, SeamFigures]:
        """Level -> the seam metric of the cube panel ``key`` shows as crosses (of the levels
        shown whose metric is in; {} when no cross is shown)."""
        panel = self.view.panel(key)
        c = self.cross()
        if c is None:
            return {}
        got = {lv: self.seams.get((panel.source, lv, c)) for lv in panel.shown}
        return {lv: f for lv, f in got.items() if f is not None}

    def seam_segments(self, key: str) -> list[tuple[QPointF, QPointF, int]]:
        """The edges panel ``key`` draws over its crosses: (p0, p1, number; 0 for a joined
        edge), view coordinates ([] with Seams off or no cross shown)."""
        item = self.view.panel(key).seam_item
        if item is None or not item.isVisible():
            return []
        return [(a, b, k) for a, b, k, _ in item.lines]

    def draw_all(self) -> None:
        for panel in self.view.panels:
            self.draw(panel)

    def draw(self, panel: Panel) -> None:
        """The cube's edges over each cross the panel shows (Seams on), and each shown level's
        seam metric: from the cache, else measured in the pixel pool."""
        c = self.cross()
        on = c is not None and self.seams_check.isChecked() and bool(panel.rects)
        if not on:
            if panel.seam_item is not None:
                panel.seam_item.setVisible(False)
        else:
            lines, bounds = seam_lines_over(panel.rects)
            if panel.seam_item is None:
                panel.seam_item = SeamItem()
                panel.view.addItem(panel.seam_item, ignoreBounds=True)
            panel.seam_item.set_lines(lines, bounds)
            panel.seam_item.setVisible(True)
        self._measure(panel)

    def _measure(self, panel: Panel) -> None:
        view = self.view
        job = ("seams", panel.key)
        c = self.cross()
        todo = []
        for level in panel.shown if c is not None else []:
            if level < len(panel.levels) and self.crossable(panel.levels[level]) \
                    and (panel.source, level, c) not in self.seams:
                todo.append(level)
        if not todo:
            view.pool.forget_key(job)
            view._label(panel)
            return
        faces = [panel.levels[lv][FACES * c:FACES * (c + 1)] for lv in todo]
        keys = [(panel.source, lv, c) for lv in todo]
        view.pool.submit(job, sum(job_texels(a) for a in faces), seam_figures_of,
                         (faces, panel.fmt), lambda got, p=panel, k=keys: self._measured(p, k, got))

    def _measured(self, panel: Panel, keys: list, got: list[SeamFigures | None]) -> None:
        for key, figures in zip(keys, got, strict=True):
            self.seams[key] = figures
        if panel in self.view.panels:
            self.view._label(panel)

    def seam_label(self, panel: Panel) -> tuple[str, str]:
        """The seam metric of the levels ``panel`` shows as crosses: the label's part and the
        tooltip (``seam_overlay.seam_label``); ("", "") without crosses or figures."""
        figures = self.seam_figures(panel.key) if panel in self.view.panels else {}
        return seam_label(figures, len(panel.shown) == 1)
