"""The levels' colours in the pyramid viewer: each level's display, its range and histogram.

Display controls (``display_controls``: exposure, offset, gamma, channel, overlays) and the
histogram's black/white range turn values into colours (``display.to_display``) in the pixel
pool, off the UI thread for large levels. One- and two-channel levels show their own channels
(``display.own_channel``), one value per texel through the colormap, over a range that starts at
level 0's finite extent (of the first pyramid, again when Depth changes the units; Auto as
ever). The histogram counts the values of the locked texel's level, else of the level shown
alone, else of level 0, of the first panel.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from PySide6.QtWidgets import QWidget

from mipview.core.cube import FACES
from mipview.core.formats import Format
from mipview.core.turns import give_turn
from mipview.ui.display import (
    DisplaySettings,
    channel_count,
    cross_display,
    first_layer,
    level_values,
    to_display,
)
from mipview.ui.views.histogram import value_histogram
from mipview.ui.views.pyramid_panels import ALL_LEVELS, Panel, job_texels


class LevelDisplay:
    """The levels' display of a pyramid view (``view``, whose part it is; the view module
    imports this one): each level's colours under the view's settings, cached; the range that
    new pyramids start from; the histogram's counts."""

    def __init__(self, view: QWidget) -> None:
        self.view = view
        #: (source, level, layer) -> its display under the view's settings
        self.images: dict[tuple[str, int, int], np.ndarray] = {}
        #: images wait for the auto range of a one- or two-channel pyramid (or new depth units)
        self.awaiting_range = False
        #: the first pyramid's format and channels, whose range a new pyramid keeps
        self._range_kind: tuple[Format | None, int] | None = None

    def take(self, fresh: bool) -> bool:
        """New pyramids are the view's (``fresh``: a volume new to it): the controls offer
        their channels, and their levels wait for the range of their own kind. Whether the
        range goes back to the default (RGBA after another kind)."""
        view = self.view
        pyramids = view._pyramids
        first = pyramids[0] if pyramids and pyramids[0][2] else None
        fmt = first[3] if first is not None else None
        channels = channel_count(fmt) if first is not None else 4
        view.controls.set_channels(channels)
        # another format or channel count starts from its own range (a depth run's must not
        # stay on a later RGBA one): level 0's extent for one or two channels or depth, else
        # the default [0, 1]; the same format keeps the user's range, as ever
        kind = (fmt, channels)
        changed = first is not None and self._range_kind not in (None, kind)
        if first is not None:
            self._range_kind = kind
        self.awaiting_range = channels < 4 or changed or fresh
        return changed and channels == 4 and not view.settings.depth and not fresh

    def start_auto_range(self) -> bool:
        """Range to level 0's finite extent of the first pyramid, in the pixel pool; the levels
        are drawn when it comes. False (nothing asked) without a pyramid."""
        view = self.view
        if not view._pyramids or not view._pyramids[0][2]:
            self.awaiting_range = False
            return False
        _, _, levels, fmt = view._pyramids[0]
        # a volume's range is its whole level 0's, the same on every slice
        a = levels[0] if view.volume.is_volume() else view._shown_array(levels[0])
        self.awaiting_range = True
        view.pool.submit("extent", job_texels(a), _extent, (a, fmt, view.settings),
                         self.range_found)
        return True

    def range_found(self, extent: tuple[float, float] | None) -> None:
        view = self.view
        self.awaiting_range = False
        s = view.controls.settings()
        if extent is not None:
            lo, hi = extent
            if hi <= lo:  # one value: a range just above it
                hi = lo + max(abs(lo) * 1e-6, 1e-12)
            s = replace(s, black=lo, white=hi)
        if s == view.settings:  # the range it had (the same level 0 again): no sigChanged
            # would draw the levels that waited for it
            for panel in view.panels:
                self.draw(panel)
            return
        view.controls.set_settings(s)  # one sigChanged: every level drawn in it

    def draw(self, panel: Panel) -> None:
        """Each shown level's display: from the cache, else computed in the pixel pool, all the
        panel's missing levels in one job (one job per level cost the UI thread more in calls
        than the small levels cost in numpy)."""
        if self.awaiting_range:  # drawn once the range is known
            return
        view = self.view
        todo = []
        for level, item in zip(panel.shown, panel.items, strict=True):
            if level >= len(panel.levels):  # a prepared panel's: its levels have not come
                continue
            a = panel.levels[level]
            key = (panel.source, level, view._image_key(a))
            if key in self.images:
                item.setImage(self.images[key], autoLevels=False, levels=None)
            else:
                todo.append((key, item, a))
        if not todo:
            view.pool.forget_key(("image", panel.key))
            return
        texels = sum(math.prod(first_layer(a).shape[:2]) * (FACES if isinstance(key[2], tuple)
                                                             else 1) for key, _, a in todo)
        view.pool.submit(("image", panel.key), texels, _to_displays,
                         ([(a, panel.fmt, key[2]) for key, _, a in todo], view.settings),
                         lambda images, p=panel, t=todo: self._rendered(p, t, images))

    def _rendered(self, panel: Panel, todo: list, images: list[np.ndarray]) -> None:
        for (key, item, _), image in zip(todo, images, strict=True):
            self.images[key] = image
            if item in panel.items and panel.source == key[0]:
                item.setImage(image, autoLevels=False, levels=None)

    def displayed(self, key: str, level: int) -> np.ndarray | None:
        """The RGBA image panel ``key`` shows for ``level`` (None: not shown, or not yet)."""
        panel = self.view.panel(key)
        if level not in panel.shown:
            return None
        return panel.items[panel.shown.index(level)].image

    def histogram_target(self) -> tuple[Panel, int] | None:
        """The panel and level the histogram counts: the locked texel's level, else the level
        shown alone, else level 0; of the first panel."""
        view = self.view
        if not view.panels or not view.panels[0].levels:
            return None
        panel = view.panels[0]
        mode = view.mode_combo.currentData()
        level = view.lock[0] if view.lock is not None else (
            0 if mode in (None, ALL_LEVELS) else int(mode))
        return panel, min(level, len(panel.levels) - 1)

    def update_histogram(self) -> None:
        """Count the values of :meth:`histogram_target`, in the pixel pool."""
        view = self.view
        target = self.histogram_target()
        if target is None:
            view.histogram.set_histogram(None, "Histogram")
            return
        panel, level = target
        a = view._shown_array(panel.levels[level])
        # the channel as the first panel shows it ("R" for a one-channel format, not "rgba")
        what = "linear depth" if view.settings.depth else \
            f"{view.controls.channel_combo.currentText()} values"
        title = f"{panel.title}, level {level}: {what}"
        view.pool.submit("histogram", job_texels(a), _histogram,
                         (a, panel.fmt, view.settings),
                         lambda h: view.histogram.set_histogram(h, title))


def _histogram(a: np.ndarray, fmt: Format | None, settings: DisplaySettings):
    """The histogram panel's counts of the values shown (``display.level_values``: RGBA of a
    four-channel format R, G and B together; linear depth with Depth on)."""
    return value_histogram(level_values(a, fmt, settings))


def _to_displays(jobs: list[tuple[np.ndarray, Format | None, int | tuple[str, int]]],
                 settings: DisplaySettings) -> list[np.ndarray]:
    """``to_display`` of each (level, format, layer), for one pixel-pool job (giving the UI
    thread its turn between levels: mipview/core/turns.py); a layer ("cross", c) is cube c of
    the level unfolded (``display.cross_display``: each face's display, unfolded)."""
    out = []
    for a, fmt, layer in jobs:
        give_turn()
        if isinstance(layer, tuple):
            out.append(cross_display(a, fmt, layer[1], settings))
        else:
            out.append(to_display(a, fmt, layer, settings))
    return out


def _extent(a: np.ndarray, fmt: Format | None, settings: DisplaySettings) \
        -> tuple[float, float] | None:
    """The finite extent of the values ``settings`` show of ``a`` (None: none finite)."""
    hist = value_histogram(level_values(a, fmt, settings))
    return None if hist is None else (hist.lo, hist.hi)
