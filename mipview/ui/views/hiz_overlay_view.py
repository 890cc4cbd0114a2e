"""The Hi-Z overlay of the pyramid viewer.

For a min/max result (``PyramidView.set_pyramids``' ``reductions``) the overlay marks, above
each level, the texels that are not their footprint's exact extreme in the level below as
stored (``display.hiz_overlay``, in the pixel pool), and the panel's title counts them.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from mipview.core.cube import FACES
from mipview.ui.display import EXTREMES, HIZ_MARKS, cross_hiz_overlay, first_layer, hiz_overlay
from mipview.ui.views.pyramid_panels import LevelImage, Panel


class HizOverlay:
    """The Hi-Z overlay of a pyramid view (``view``, whose part it is; the view module imports
    this one): each shown level's marks and counts, cached per level and layer shown."""

    def __init__(self, view: QWidget) -> None:
        self.view = view
        #: (source, level, layer) -> its Hi-Z overlay (None: nothing marked) and counts
        self.marks: dict[tuple[str, int, int], tuple[np.ndarray | None, dict[str, int]]] = {}

    def on(self, panel: Panel) -> bool:
        """Whether ``panel``'s pyramid gets the overlay: it is on and the result is min/max."""
        return self.view.settings.hiz and self.view._reductions.get(panel.source) in EXTREMES

    def draw(self, panel: Panel) -> None:
        """Each shown level's Hi-Z overlay (a min/max result's, levels 1..): from the cache,
        else computed in the pixel pool; cleared when off."""
        view = self.view
        reduction = view._reductions.get(panel.source)
        on = self.on(panel)
        for i, level in enumerate(panel.shown):
            job, item = ("hiz", panel.key, level), panel.marks[i]
            if not on or level == 0 or level >= len(panel.levels):
                view.pool.forget_key(job)
                if item is not None:
                    item.clear()
                continue
            if item is None:
                item = panel.marks[i] = LevelImage()
                item.setPos(panel.rects[i].x(), panel.rects[i].y())
                item.setZValue(10)
                panel.view.addItem(item)
            a = panel.levels[level]
            key = (panel.source, level, view._image_key(a))
            if key in self.marks:
                self._show(item, self.marks[key][0])
                continue
            h, w = first_layer(a).shape[:2]
            cross = isinstance(key[2], tuple)
            view.pool.submit(job, 5 * h * w * (FACES if cross else 1),
                             cross_hiz_overlay if cross else hiz_overlay,
                             (panel.levels[level - 1], a, panel.fmt, reduction,
                              key[2][1] if cross else key[2]),
                             lambda got, k=key, p=panel, it=item: self._marked(k, p, it, got))
        view._label(panel)

    def _marked(self, key: tuple[str, int, int], panel: Panel, item: pg.ImageItem,
                got: tuple[np.ndarray | None, dict[str, int]]) -> None:
        self.marks[key] = got
        if item in panel.marks and panel.source == key[0]:
            self._show(item, got[0])
            self.view._label(panel)

    @staticmethod
    def _show(item: pg.ImageItem, rgba: np.ndarray | None) -> None:
        if rgba is None:
            item.clear()
        else:
            item.setImage(rgba, autoLevels=False, levels=None)

    def counts(self, key: str) -> dict[int, dict[str, int]]:
        """Level -> texels the Hi-Z overlay marks per kind, of the levels panel ``key`` shows
        whose overlay is in ({} for an exact level)."""
        panel = self.view.panel(key)
        out = {}
        for level in panel.shown:
            if level < len(panel.levels):
                k = (panel.source, level, self.view._image_key(panel.levels[level]))
                if k in self.marks:
                    out[level] = self.marks[k][1]
        return out

    def shown(self, key: str, level: int) -> np.ndarray | None:
        """The Hi-Z overlay panel ``key`` draws over ``level`` (None: none, or not yet)."""
        panel = self.view.panel(key)
        if level not in panel.shown:
            return None
        item = panel.marks[panel.shown.index(level)]
        return None if item is None else item.image

    def label(self, panel: Panel) -> str:
        """The overlay's counts in ``panel``'s title ("" when it has no overlay)."""
        if not self.on(panel):
            return ""
        counts = self.counts(panel.key).values()
        bad = sum(c.get("non-conservative", 0) for c in counts)
        off = sum(c.get("inexact", 0) for c in counts)
        r, g, b = HIZ_MARKS["non-conservative"] if bad else (143, 209, 143)
        colour = f"#{r:02x}{g:02x}{b:02x}"
        return (f"   <span style='color:{colour}'>Hi-Z: {bad} non-conservative, "
                f"{off} inexact</span>")
