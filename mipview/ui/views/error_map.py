"""The Heatmaps tab's map of one level: its colours, colour bar, histogram and overlay.

The map shows the maximum absolute error over channels, or one channel's signed error (of the
image's own channels; ``compare.signed_error``, blue below, red above), so a bias shows as
colour; a signed map is computed in the pixel pool from the levels the view hands it. A
histogram of the map's values sets the colour bar's range by dragging (Auto: the full extent);
texels of the strategy holding NaN, an infinity or a negative value are painted their overlay
colour (``display.MARKS``).

A Run shows its strategies one by one, often at the level, scale and colours shown before: the
plot's title, the colour bar (its colour map, levels and label) and the view's range are set
only when they change (pyqtgraph redoes a colour map's lookup table, an axis' drawing and a
plot's layout on every set), so showing a map costs the UI thread its image and little more.
A map's colours are made in the pixel pool (``map_colours``; at once when small): left to the
image item, a float map's are made at its first paint, on the UI thread (14 ms for 4096^2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from pyqtgraph.functions_qimage import try_make_qimage
from PySide6.QtCore import QObject, QSignalBlocker
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QCheckBox, QComboBox, QWidget

from mipview.check import compare
from mipview.core.array_layers import layer_of
from mipview.core.formats import Format
from mipview.ui import steps
from mipview.ui.display import MARKS, texel_marks
from mipview.ui.panels.layer_selector import LayerSelector
from mipview.ui.views.histogram import HistogramPanel, value_histogram
from mipview.ui.views.pixel_pool import PixelPool
from mipview.ui.views.steady_axis import reserve_tick_text

#: map choices: None the maximum absolute error over channels, else a channel's signed error
MAPS = (("max |error|", None), ("signed R", 0), ("signed G", 1), ("signed B", 2),
        ("signed A", 3))
#: an encoded result's maps (Encode), max |error| over the channels the codec holds: the
#: decoded level against the level encoded, and against the exact reference
ENCODED_MAPS = (("codec |error|", "codec"), ("total |error|", "total"))
SIGNED_CMAP = pg.ColorMap([0.0, 0.5, 1.0], [(40, 80, 255), (255, 255, 255), (230, 30, 30)])


@dataclass(frozen=True)
class MapColours:
    """A map as the view shows it: ``values`` (the layer shown; NaN and infinities at the ends
    of the scale), the scale's ``levels``, and ``image``, the values' colours through ``lut``
    (a colour map's 256 entries)."""

    values: np.ndarray
    levels: tuple[float, float]
    lut: np.ndarray
    image: QImage


def map_colours(full: np.ndarray, layer: int, signed: bool, cmap: pg.ColorMap) -> MapColours:
    """Error map ``full`` ((H, W) or (L, H, W)) as shown: ``layer`` of it, on one scale for
    every layer (so layers compare at a glance), 0 to the largest error or, ``signed``, about 0;
    coloured as the image item colours its values (any thread)."""
    m = full[min(layer, full.shape[0] - 1)] if full.ndim == 3 else full
    vmax = max(float(full.max()), -float(full.min())) if signed else float(full.max())
    # all finite is the usual case, and two passes: 4096^2 in ms, not the 0.3 s of a mask
    all_finite = math.isfinite(vmax) and math.isfinite(float(full.min()))
    if not all_finite:  # scale by the finite texels; NaN and inf show at the top
        finite = np.abs(full[np.isfinite(full)])
        vmax = float(finite.max()) if finite.size else 1.0
    vmax = vmax if vmax > 0 else 1.0
    low = -vmax if signed else 0.0
    shown = m if all_finite else np.nan_to_num(m, nan=vmax, posinf=vmax, neginf=low)
    lut = cmap.getLookupTable(nPts=256)  # as ImageItem.setColorMap makes it
    return MapColours(shown, (low, vmax), lut, try_make_qimage(shown, levels=(low, vmax),
                                                               lut=lut))


def overlay_rgba(a: np.ndarray) -> np.ndarray | None:
    """(H, W, 4) uint8: each marked texel (``display.texel_marks``) in its colour, the rest
    transparent; None when no texel is marked."""
    marks = texel_marks(a)
    if not marks:
        return None
    out = np.zeros((*a.shape[:2], 4), np.uint8)
    for kind, mask in marks.items():
        out[mask] = (*MARKS[kind], 230)
    return out


class MapImage(pg.ImageItem):
    """The map's image item: it paints the colours :func:`map_colours` made, while its values,
    levels and lookup table are those they were made for, instead of making them at its first
    paint (see the module docstring); anything else (a range dragged) it colours itself."""

    def __init__(self) -> None:
        super().__init__(axisOrder="row-major")
        #: the colours made, and the array the item holds for their values (a view of them)
        self._colours: tuple[MapColours, np.ndarray] | None = None

    def set_colours(self, colours: MapColours) -> None:
        self.setImage(colours.values, autoLevels=False)
        self._colours = (colours, self.image)

    def render(self) -> None:
        c, values = self._colours if self._colours is not None else (None, None)
        if c is not None and values is self.image and self.lut is not None \
                and np.array_equal(self.levels, c.levels) and np.array_equal(self.lut, c.lut):
            # what ImageItem.render leaves once it has made the colours
            self.qimage, self._renderRequired, self._unrenderable = c.image, False, False
            return
        super().render()


class ErrorMap(QObject):
    """The map of the level shown, with its controls: which map (``map_combo``), its colour
    map, its array layer (shown only for layered runs; the table's figures cover every layer,
    the map one) and the overlay's switch. The view lays the widgets out, tells it what to
    show, and shows the selected level again when the map or the layer changes."""

    def __init__(self, pool: PixelPool, parent: QWidget) -> None:
        super().__init__(parent)
        self.pool = pool
        self.cmap_combo = QComboBox()
        self.cmap_combo.addItems(["magma", "turbo", "viridis"])
        self.map_combo = QComboBox()
        for label, channel in MAPS:
            self.map_combo.addItem(label, channel)
        self.map_combo.setToolTip("Max |error| over channels, or one channel's signed error, "
                                  "blue below and red above (M cycles)")
        self.overlay_check = QCheckBox("NaN/Inf/neg")
        self.overlay_check.setChecked(True)
        self.overlay_check.setToolTip("Paint the strategy's texels holding NaN, Inf or a "
                                      "negative value in their overlay colour (N)")
        self.layer_spin = LayerSelector(
            "layer", "array layer of the heatmap (the table covers all layers)")
        self.show_layers(1)

        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("#1e1f22")
        self.plot = self.graphics.addPlot(row=0, col=0)
        self.plot.setAspectLocked(True)
        self.plot.invertY(True)
        for name in ("left", "bottom"):  # texel coordinates of up to 16384 (five digits)
            reserve_tick_text(self.plot.getAxis(name), "00000")
        self.plot.hideButtons()
        self.image = MapImage()
        self.plot.addItem(self.image)
        self.overlay = pg.ImageItem(axisOrder="row-major")
        self.overlay.setZValue(10)
        self.plot.addItem(self.overlay)
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=pg.colormap.get("magma"),
                                        label=None, interactive=False, width=18)
        self.colorbar.setImageItem(self.image)
        self.graphics.addItem(self.colorbar, row=0, col=1)
        self.histogram = HistogramPanel("Histogram of errors")
        self.histogram.sigRange.connect(lambda lo, hi: self.colorbar.setLevels((lo, hi)))
        #: the shape of the map the view was last fitted to, and the range that fit gave
        self._fitted: tuple[tuple[int, ...], list] | None = None
        self.cmap_combo.currentTextChanged.connect(self._set_cmap)

    # --- what is offered --------------------------------------------------------------------
    def show_layers(self, n: int) -> None:
        self.layer_spin.set_count(n)

    def offer_maps(self, channels: int) -> None:
        """Signed maps of the image's own channels only (a one-channel format has no G, B or A
        error to show); the map shown stays where it still is offered."""
        keep = self.map_combo.currentData()
        with QSignalBlocker(self.map_combo):
            self.map_combo.clear()
            for label, channel in MAPS:
                if channel is None or channel < channels:
                    self.map_combo.addItem(label, channel)
            self.map_combo.setCurrentIndex(max(0, self.map_combo.findData(keep)))

    def offer_encoded(self, offered: bool) -> None:
        """The encoded result's codec and total maps offered, or not (the result shown is not
        encoded: max |error| is shown where one of them was)."""
        if (self.map_combo.findData(ENCODED_MAPS[0][1]) >= 0) == offered:
            return
        with QSignalBlocker(self.map_combo):
            for label, kind in ENCODED_MAPS:
                if offered:
                    self.map_combo.addItem(label, kind)
                else:
                    if self.map_combo.currentData() == kind:
                        self.map_combo.setCurrentIndex(0)
                    self.map_combo.removeItem(self.map_combo.findData(kind))

    def map_channel(self) -> int | None:
        """The channel whose signed error the map shows; None: max |error| over channels (or an
        encoded result's map, :meth:`encoded_map`)."""
        data = self.map_combo.currentData()
        return None if isinstance(data, str) else data

    def encoded_map(self) -> str | None:
        """"codec" or "total" when the map chosen is an encoded result's, else None."""
        data = self.map_combo.currentData()
        return data if isinstance(data, str) else None

    def cycle_map(self) -> None:
        self.map_combo.setCurrentIndex((self.map_combo.currentIndex() + 1)
                                       % self.map_combo.count())

    def show_layer_of(self, worst: tuple[int, ...] | None) -> None:
        """The layer of the ``worst`` texel (layer, y, x, channel), so the map shows it at once;
        nothing to choose in a run of one layer."""
        if self.layer_spin.maximum() > 0:
            self.layer_spin.set_value_silently(worst[0] if worst is not None else 0)

    # --- the map ----------------------------------------------------------------------------
    def set_unit(self, unit: str) -> None:
        if self.colorbar.axis.labelText != f"error ({unit})":  # setting it re-draws the axis
            self.colorbar.axis.setLabel(f"error ({unit})")

    def blank(self, title: str) -> None:
        """No map: ``title`` says why (a map still to come is not shown)."""
        self.pool.forget_key("colours")
        self.image.clear()
        self.set_title(title)

    def clear(self) -> None:
        self.overlay.clear()
        self.histogram.set_histogram(None)
        self.image.clear()
        self.show_layers(1)

    def show_signed(self, level: int, a: np.ndarray, ref: np.ndarray, fmt: Format,
                    note: str) -> None:
        """Level ``level``'s signed error of the channel chosen, ``a`` less ``ref``, computed in
        the pixel pool; ``note`` follows its title."""
        self.pool.submit("map", a.size // 4, compare.signed_error,
                         (a, ref, fmt, self.map_channel()),
                         lambda m: self.show(level, m, signed=True, note=note))

    def show(self, level: int, full: np.ndarray, signed: bool, note: str = "") -> None:
        """Show error map ``full`` ((H, W) or (L, H, W)) of ``level``; ``signed``: a signed
        map, coloured blue-white-red about 0. Its colours are made in the pixel pool."""
        cmap = SIGNED_CMAP if signed else pg.colormap.get(self.cmap_combo.currentText())
        what = f"signed error of channel {'RGBA'[self.map_channel()]}" if signed else "errors"
        where = (f", layer {self.layer_spin.value()}" if full.ndim == 3 else "") + note
        self.pool.submit("colours", full.size, map_colours,
                         (full, self.layer_spin.value(), signed, cmap),
                         lambda c: self._show_colours(c, cmap, full, level, what, where))

    def _show_colours(self, colours: MapColours, cmap: pg.ColorMap, full: np.ndarray,
                      level: int, what: str, where: str) -> None:
        """:meth:`show`'s map, coloured: ``what`` it is and ``where`` (its layer), for the
        titles."""
        self._set_colours(cmap, colours.levels)
        self.image.set_colours(colours)
        # the histogram changes as steps: painted in the map's turn, it made one of 40-54 ms
        # (18 + 10 ms and the rest) on lavapipe's 2 cores
        steps.soon(lambda: self.histogram.set_range(*colours.levels, emit=False),
                   self.histogram)
        self.pool.submit("histogram", full.size, value_histogram, (full,),
                         lambda h: steps.soon(lambda: self.histogram.set_histogram(
                             h, f"Histogram of {what}, level {level}"), self.histogram))
        h, w = colours.values.shape
        self.set_title(f"level {level}: {w}x{h}{where}")
        self._fit(colours.values.shape)

    def _set_colours(self, cmap: pg.ColorMap, levels: tuple[float, float]) -> None:
        """The colour bar's (and so the map's) colour map and levels, each set only when it
        changes: a colour map's lookup table is computed anew at each set, twice (the bar's and
        the image's), and new levels redraw the bar's axis."""
        if self.colorbar.colorMap() is not cmap:  # colormap.get gives the same object
            self.colorbar.setColorMap(cmap)
        if self.colorbar.levels() != levels:
            self.colorbar.setLevels(levels)

    def _set_cmap(self, name: str) -> None:
        if self.map_channel() is None:
            self._set_colours(pg.colormap.get(name), self.colorbar.levels())

    def set_title(self, text: str) -> None:
        """The plot's title; setting it lays the plot out again, so only when it changes."""
        if self.plot.titleLabel.text != text:
            self.plot.setTitle(text, color="#d8d8d8")

    def _fit(self, shape: tuple[int, ...]) -> None:
        """The whole map in view; nothing to do when the view shows a map of this shape as the
        last fit left it (a later Run's map, or another layer of the level)."""
        view = self.plot.getViewBox()
        if self._fitted == (shape, view.viewRange()):
            return
        self.plot.autoRange(padding=0.02)
        self._fitted = (shape, view.viewRange())

    def auto_range(self) -> None:
        self.histogram.auto_range()

    # --- the overlay ------------------------------------------------------------------------
    def mark(self, levels: tuple[np.ndarray, ...] | None, level: int) -> None:
        """Paint ``level``'s NaN, Inf and negative texels of ``levels``, the strategy's (off or
        no such level: none)."""
        if not self.overlay_check.isChecked() or not levels or level >= len(levels):
            self.pool.forget_key("overlay")
            self.overlay.clear()
            return
        a = layer_of(levels[level], self.layer_spin.value())
        self.pool.submit("overlay", a.shape[0] * a.shape[1], overlay_rgba, (a,),
                         self._set_overlay)

    def _set_overlay(self, rgba: np.ndarray | None) -> None:
        if rgba is None:
            self.overlay.clear()
        else:
            self.overlay.setImage(rgba, autoLevels=False, levels=None)
