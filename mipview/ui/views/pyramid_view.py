"""The pyramid viewer: every level of one or more pyramids, side by side, zoom and pan linked.

The view holds the pyramids (``set_pyramids``, ``set_reference``), the bar of choices above
them (level mode, layer, the reference, and the parts' own controls) and the display controls
below it, and composes one part per thing it shows, each in its own module, wiring its own
widgets and signals:

- ``grid`` (``pyramid_panels.PanelGrid``): the panels, one per pyramid, their levels laid out,
  made ahead of a Run's results (``prepare``), fitted and zoomed 1:1;
- ``display`` (``level_display``): each level's colours (``display.to_display``, in the pixel
  pool), the range new pyramids start from, the histogram;
- ``readout`` (``texel_readout``): the texel under the cursor, and the locked one in every
  level of every pyramid (the lock table, the footprints);
- ``ab`` (``ab_flip``): Flip (T), another pyramid in the first panel's place;
- ``hiz`` (``hiz_overlay_view``): a min/max result's Hi-Z overlay and its counts;
- ``cull`` (``cull_probe_view``): the Hi-Z cull test (Z) of a rectangle drawn on level 0;
- ``cube`` (``cube_display``): a cube map's levels as crosses, and their seams;
- ``volume`` (``volume_display``): a volume, a slice at a time.

The parts reach each other through the view; the view keeps the interface the window, the
tools and the tests use (``lock_texel``, ``set_cull_rect``, ``seam_figures``...), each
handing over to its part.

Signals
-------
sigHover(str)     the readout under the cursor ("" when it leaves every level)
sigLocked(object) the locked texel, (level, x, y), or None when unlocked
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from mipview.check.culling import CullProbe
from mipview.check.seams import SeamFigures
from mipview.core.array_layers import layer_count
from mipview.core.cube import FACES
from mipview.core.cube_cross import cross_texel
from mipview.core.formats import Format
from mipview.ui.display import DisplaySettings, layer_of
from mipview.ui.panels.display_controls import DisplayControls
from mipview.ui.panels.layer_selector import LayerSelector
from mipview.ui.views.ab_flip import AbFlip
from mipview.ui.views.cube_display import CubeDisplay
from mipview.ui.views.cull_probe_view import CullProbeView
from mipview.ui.views.histogram import HistogramPanel
from mipview.ui.views.hiz_overlay_view import HizOverlay
from mipview.ui.views.level_display import LevelDisplay
from mipview.ui.views.pixel_pool import PixelPool
from mipview.ui.views.pyramid_panels import ALL_LEVELS, Entry, Panel, PanelGrid
from mipview.ui.views.texel_readout import TexelReadout
from mipview.ui.views.volume_display import VolumeDisplay

REFERENCE_KEY = "reference"
REFERENCE_TITLE = "exact reference (float64)"
#: a result out of tolerance, in its panel's title
OUT_OF_TOLERANCE = "#ff6b6b"


class PyramidView(QWidget):
    sigHover = Signal(str)
    sigLocked = Signal(object)
    #: the pyramids that waited for :meth:`prepare`'s panels are in them (``filling``)
    sigFilled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.mode_combo = QComboBox()
        self.mode_combo.addItem("All levels", ALL_LEVELS)
        self.mode_combo.currentIndexChanged.connect(lambda _: self._relayout())
        bar.addWidget(QLabel("Show"))
        bar.addWidget(self.mode_combo)
        # shown only when a pyramid has array layers (multi-page TIFF, or the Layers control)
        self.layer_spin = LayerSelector("Layer", "array layer shown in every panel")
        self.layer_spin.valueChanged.connect(lambda _: self._layer_changed())
        bar.addWidget(self.layer_spin)
        # a cube map's crosses and their seams
        self.cube = CubeDisplay(self)
        bar.addWidget(self.cube.seams_check)
        self.reference_check = QCheckBox("Exact reference")
        self.reference_check.setToolTip("Add a panel with the float64 reference pyramid")
        self.reference_check.toggled.connect(lambda _: self._rebuild(keep_view=True))
        bar.addWidget(self.reference_check)
        # A/B: another pyramid in the first panel's place
        self.ab = AbFlip(self)
        bar.addWidget(QLabel("A/B with"))
        bar.addWidget(self.ab.flip_combo)
        bar.addWidget(self.ab.flip_button)
        fit = QPushButton("Fit")
        fit.setToolTip("Fit everything in view (F)")
        fit.clicked.connect(self.fit)
        one = QPushButton("1:1")
        one.setToolTip("One texel per screen pixel, about the view centre (1)")
        one.clicked.connect(self.one_to_one)
        bar.addWidget(fit)
        bar.addWidget(one)
        # the Hi-Z cull test: its button and taps here, its text below the panels
        self.cull = CullProbeView(self)
        self.cull_button = self.cull.button  # the Texel menu's Z toggles it
        bar.addWidget(self.cull_button)
        bar.addWidget(self.cull.taps_combo)
        bar.addStretch(1)
        lay.addLayout(bar)
        self.controls = DisplayControls()
        self.controls.sigChanged.connect(self._settings_changed)
        # in a horizontal scroller: the row of controls must not set the window's minimum width
        # (a 1366-pixel laptop screen still fits the window)
        scroller = QScrollArea()
        scroller.setWidget(self.controls)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroller.setFixedHeight(self.controls.sizeHint().height()
                                + scroller.horizontalScrollBar().sizeHint().height())
        lay.addWidget(scroller)
        split = QSplitter(Qt.Orientation.Vertical)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("#1e1f22")
        self.graphics.ci.setSpacing(4)
        split.addWidget(self.graphics)
        below = QSplitter(Qt.Orientation.Horizontal)
        self.histogram = HistogramPanel("Histogram")
        self.histogram.sigRange.connect(self.controls.set_range)
        below.addWidget(self.histogram)
        # the texel under the cursor (the line at the bottom) and the locked one (the table)
        self.readout = TexelReadout(self)
        below.addWidget(self.readout.lock_table)
        self.readout.lock_table.setVisible(False)  # until a texel is locked
        below.setSizes([300, 500])
        split.addWidget(below)
        split.setSizes([600, 150])
        lay.addWidget(split, 1)
        lay.addWidget(self.cull.label)
        lay.addWidget(self.readout.label)
        #: the panels, one per pyramid, in the graphics widget's grid
        self.grid = PanelGrid(self)
        self._pyramids: list[Entry] = []
        self._reference: tuple[tuple[np.ndarray, ...], Format] | None = None
        self.settings: DisplaySettings = self.controls.settings()
        self.pool = PixelPool(self)
        #: each level's colours under ``settings``, their range and the histogram
        self.display = LevelDisplay(self)
        #: pyramid key -> its reduction (min/max ones get the Hi-Z overlay)
        self._reductions: dict[str, str] = {}
        #: a volume's slices (``_pyramids`` and ``_reference`` hold them)
        self.volume = VolumeDisplay(self)
        #: the cube shown as a cross at the last layout (None: a layer), and the layer
        self._geometry: tuple[int | None, int] = (None, 0)
        #: the Hi-Z overlay of min/max results
        self.hiz = HizOverlay(self)
        #: pyramid key -> its verdict's summary, for results out of tolerance (set_verdicts)
        self._verdicts: dict[str, str] = {}

    # --- data -----------------------------------------------------------------------------
    def set_pyramids(self, pyramids: list[Entry], keep_view: bool = False,
                     reductions: dict[str, str] | None = None, faces: int | None = None,
                     volume: bool = False) -> None:
        """Show these pyramids as (key, title, levels, fmt); arrays are kept as given.
        ``reductions``: each key's reduction (a result's ``reduction``); min and max ones get
        the Hi-Z overlay. A one- or two-channel first pyramid sets the range to its level 0's
        finite extent before its levels are drawn. ``faces``: 6 when they are of a cube map
        (their source's ``SourceImage.faces``), 1 when not, None: as the last ones
        (:meth:`set_cube`). ``volume``: they are of a volume, levels (D, H, W, C), shown a slice
        at a time."""
        old = self.panels[0].view.viewRange() if (keep_view and self.panels) else None
        pyramids, fresh = self.volume.take(pyramids, volume)
        if volume:
            faces = 1
        self._pyramids = list(pyramids)
        self._reductions = dict(reductions or {})
        if faces is not None:
            self.cube.faces = faces
        self._reference = None
        self._verdicts = {}  # of the pyramids shown before
        self.display.images.clear()
        self.hiz.marks.clear()
        self.cube.seams.clear()
        self.pool.forget()
        reset = self.display.take(fresh)
        self.cull.forget()
        self.ab.set_silently(False)
        self._update_modes()
        self._update_layers()
        if fresh:
            self.layer_spin.set_value_silently(layer_count(self._pyramids[0][2][0]) // 2)
        if (self.cross() is None) != (self._geometry[0] is None) and self.lock is not None:
            self.readout.lock = None  # a cross's texels are not a layer's: the lock goes
            self.sigLocked.emit(None)
        self.cull.update_enabled()  # not over a cross
        self.ab.update_choices()
        self._rebuild()
        if reset:
            d = DisplaySettings()
            self.display.range_found((d.black, d.white))
        elif self.display.awaiting_range:
            self.display.start_auto_range()
        if old is not None and self.panels:
            self.panels[0].view.setRange(xRange=old[0], yRange=old[1], padding=0)

    def prepare(self, pyramids: list[tuple[str, str]], width: int, height: int) -> None:
        """Make the panels of a Run's results before they come (``PanelGrid.prepare``): one
        per (key, title), for a ``width`` x ``height`` image's chain of levels."""
        self.grid.prepare(pyramids, width, height)

    def discard_prepared(self) -> None:
        """The Run :meth:`prepare` made panels for ended without results: the view shows its
        pyramids again (``PanelGrid.discard``)."""
        self.grid.discard()

    @property
    def panels(self) -> list[Panel]:
        """The panels shown, in the grid's order."""
        return self.grid.panels

    @property
    def preparing(self) -> bool:
        """Whether :meth:`prepare` is still making panels or their image items."""
        return self.grid.preparing

    @property
    def filling(self) -> bool:
        """Whether the pyramids set last wait for :meth:`prepare`'s panels: they are shown in
        its last step, which emits ``sigFilled``."""
        return self.grid.filling

    @property
    def pending(self) -> bool:
        """Whether the panels were made for a Run's results that have not come
        (:meth:`prepare`)."""
        return self.grid.pending

    def set_reference(self, levels: tuple[np.ndarray, ...], fmt: Format) -> None:
        levels = self.volume.take_reference(levels, fmt)
        self._reference = (levels, fmt)
        self.ab.update_choices()
        if self.reference_check.isChecked():
            self._rebuild(keep_view=True)
        else:
            self.readout.show_lock()

    def panel(self, key: str) -> Panel:
        return next(p for p in self.panels if p.key == key)

    def panel_levels(self, key: str) -> tuple[np.ndarray, ...]:
        return self.panel(key).levels

    def entries(self) -> list[Entry]:
        """Every pyramid the view has, the reference last when it has one."""
        entries = list(self._pyramids)
        if self._reference is not None:
            levels, fmt = self._reference
            entries.append((REFERENCE_KEY, REFERENCE_TITLE, tuple(levels), fmt))
        return entries

    def _entry(self, key: str) -> Entry:
        return next(e for e in self.entries() if e[0] == key)

    def _update_modes(self) -> None:
        count = max((len(p[2]) for p in self._pyramids), default=1)
        current = self.mode_combo.currentData()
        self.mode_combo.blockSignals(True)
        self.mode_combo.clear()
        self.mode_combo.addItem("All levels", ALL_LEVELS)
        for i in range(count):
            self.mode_combo.addItem(f"Level {i}", i)
        idx = self.mode_combo.findData(current)
        self.mode_combo.setCurrentIndex(max(0, idx))
        self.mode_combo.blockSignals(False)

    # --- volumes --------------------------------------------------------------------------
    def is_volume(self) -> bool:
        """Whether the pyramids shown are of a volume (shown a slice at a time)."""
        return self.volume.is_volume()

    def slice_axis(self) -> str:
        """The axis a volume's slices are taken across ("z" when not a volume)."""
        return self.volume.slice_axis()

    def set_slice_axis(self, axis: str) -> None:
        """Slice a volume across ``axis``: "z", "y" or "x"."""
        self.volume.set_slice_axis(axis)

    def layers(self) -> int:
        """Most array layers of any pyramid shown (1: no layer selector)."""
        return max((layer_count(p[2][0]) for p in self._pyramids if p[2]), default=1)

    def _update_layers(self) -> None:
        n = self.layers()
        self.layer_spin.set_count(n)
        cubes = self.cube_count()
        self.layer_spin.set_cubes(cubes)
        self.cube.seams_check.setVisible(cubes > 0)

    # --- cube maps ------------------------------------------------------------------------
    def set_cube(self, faces: int) -> None:
        """6: the pyramids shown (and those set later, until told otherwise) are of a cube map,
        shown as crosses when their levels are 6 k square layers; 1: they are not."""
        self.cube.set_cube(faces)

    def cube_count(self) -> int:
        """Cubes of the pyramids shown (``CubeDisplay.cube_count``; 0: not a cube map)."""
        return self.cube.cube_count()

    def cross(self) -> int | None:
        """The cube each level is shown unfolded of (a cross), or None (a layer is shown)."""
        return self.cube.cross()

    def set_cross(self, cube: int = 0) -> None:
        """Show each level of cube ``cube`` as a cross (a cube map only)."""
        self.cube.set_cross(cube)

    def _shown_array(self, a: np.ndarray) -> np.ndarray:
        """The texels of level ``a`` on screen: the cross's cube's faces, or the layer's."""
        if self.cube.crossable(a):
            c = self.cross()
            return a[FACES * c:FACES * (c + 1)]
        return layer_of(a, self.volume.slice_shown(a))

    def _image_key(self, a: np.ndarray) -> int | tuple[str, int]:
        """What of level ``a`` is shown: ("cross", cube), or the layer (clamped)."""
        if self.cube.crossable(a):
            return ("cross", self.cross())
        return self.volume.slice_shown(a)

    def texel_of(self, a: np.ndarray, x: int, y: int) -> tuple[int, int, int] | None:
        """(layer, x, y) of the texel of level ``a`` shown at (x, y): in a cross, the face's
        layer and the texel in that face (None over an empty cell); else the layer shown."""
        if not self.cube.crossable(a):
            layer = self.volume.slice_shown(a) if self.volume.is_volume() \
                else self.layer_spin.value()
            return layer, x, y
        found = cross_texel(a.shape[1], x, y)
        if found is None:
            return None
        f, i, j = found
        return FACES * self.cross() + f, i, j

    def _layer_changed(self) -> None:
        """Another layer or cross: between a layer and a cross the places change, so the lock
        moves to the same texel in the other's coordinates (or goes), the cull rectangle goes,
        and the view is fitted again."""
        cross = self.cross()
        was, layer = self._geometry
        if (cross is None) == (was is None):
            self._relayout(fit=False)
            return
        if self.lock is not None:
            self.readout.lock = self.cube.moved_lock(self.lock, cross, layer)
            self.sigLocked.emit(self.lock)
        self.cull.rect = None
        self.cull.update_enabled()
        self._relayout()

    def seam_figures(self, key: str) -> dict[int, SeamFigures]:
        """Level -> the seam metric of the cube panel ``key`` shows as crosses."""
        return self.cube.seam_figures(key)

    def seam_segments(self, key: str) -> list[tuple[QPointF, QPointF, int]]:
        """The edges panel ``key`` draws over its crosses (``CubeDisplay.seam_segments``)."""
        return self.cube.seam_segments(key)

    def set_layer(self, layer: int) -> None:
        self.layer_spin.setValue(layer)

    def layer(self) -> int:
        return self.layer_spin.value()

    def set_mode(self, level: int) -> None:
        """``ALL_LEVELS`` or one level index."""
        self.mode_combo.setCurrentIndex(max(0, self.mode_combo.findData(level)))

    # --- drawing --------------------------------------------------------------------------
    def _rebuild(self, keep_view: bool = False) -> None:
        old = self.panels[0].view.viewRange() if (keep_view and self.panels) else None
        entries = list(self._pyramids)
        if self.reference_check.isChecked() and self._reference is not None:
            entries.append(self.entries()[-1])
        if not self.grid.take(entries):
            return  # they fill prepare's panels in its last step
        # the pyramids a panel of the same key showed (a later Run's, or those ``prepare`` made
        # the panels for): its box, label and image items stay, so a Run's result costs the UI
        # thread no new graphics items (the stall they made)
        for panel, (key, title, levels, fmt) in zip(self.panels, entries, strict=True):
            panel.source, panel.title, panel.levels, panel.fmt = key, title, tuple(levels), fmt
            panel.expected = []
            self._label(panel)
        self.ab.reshow()
        self._relayout(fit=old is None)
        if old is not None and self.panels:
            self.panels[0].view.setRange(xRange=old[0], yRange=old[1], padding=0)

    def _relayout(self, fit: bool = True) -> None:
        """Place and draw every panel's levels."""
        for panel in self.panels:
            self.grid.place_items(panel)
            self._draw_items(panel)
        self._geometry = (self.cross(), self.layer_spin.value())
        self.readout.show_lock()
        self.cull.show()
        self.display.update_histogram()
        if fit:
            self.fit()

    def _draw_items(self, panel: Panel) -> None:
        self.display.draw(panel)
        self.hiz.draw(panel)
        self.cube.draw(panel)

    def hiz_counts(self, key: str) -> dict[int, dict[str, int]]:
        """Level -> texels the Hi-Z overlay marks per kind (``HizOverlay.counts``)."""
        return self.hiz.counts(key)

    def marks_shown(self, key: str, level: int) -> np.ndarray | None:
        """The Hi-Z overlay panel ``key`` draws over ``level`` (None: none, or not yet)."""
        return self.hiz.shown(key, level)

    def _label(self, panel: Panel) -> None:
        """The panel's title, flipped or not, with the Hi-Z overlay's counts."""
        flipped = panel.source != panel.key
        text = panel.title + self.hiz.label(panel)
        seams, tip = self.cube.seam_label(panel)
        text += seams
        verdict = self._verdicts.get(panel.source)
        if verdict:
            text = (f"<span style='color:{OUT_OF_TOLERANCE}'><b>OUT OF TOLERANCE</b></span> "
                    f"{text}")
            tip = f"{verdict}\n\n{tip}".strip()
        colour = "#ffb060" if flipped else "#d8d8d8"
        if (panel.label.text, panel.label.opts.get("color")) != (text, colour):  # a relayout
            panel.label.setText(text, color=colour)
        if panel.label.toolTip() != tip:
            panel.label.setToolTip(tip)

    def set_verdicts(self, out: dict[str, str]) -> None:
        """Mark the panels of results out of tolerance: pyramid key -> its verdict's summary
        (the title says so in red, the tooltip gives the summary). Cleared by set_pyramids."""
        self._verdicts = dict(out)
        for panel in self.panels:
            self._label(panel)

    def verdict_marked(self, key: str) -> bool:
        """Whether panel ``key``'s title says its result is out of tolerance."""
        return "OUT OF TOLERANCE" in self.panel(key).label.text

    def displayed(self, key: str, level: int) -> np.ndarray | None:
        """The RGBA image panel ``key`` shows for ``level`` (None: not shown, or not yet)."""
        return self.display.displayed(key, level)

    def _settings_changed(self, settings: DisplaySettings) -> None:
        old, self.settings = self.settings, settings
        self.histogram.set_range(settings.black, settings.white, emit=False)
        self.cull.update_text()  # linear depth and the Z convention are in its text
        if settings.values_key != old.values_key:  # the histogram counts the values shown
            self.display.update_histogram()
        depth = (settings.depth, settings.near, settings.far, settings.reversed_z)
        if depth != (old.depth, old.near, old.far, old.reversed_z) and self.display.start_auto_range():
            return  # new units: drawn when the range is found
        if replace(settings, hiz=old.hiz) == old:  # only the Hi-Z overlay: images stay
            for panel in self.panels:
                self.hiz.draw(panel)
            return
        self.display.images.clear()
        for panel in self.panels:
            self.display.draw(panel)
            self.hiz.draw(panel)

    def fit(self) -> None:
        """Every level in view (``PanelGrid.fit``)."""
        self.grid.fit()

    def one_to_one(self) -> None:
        """One texel per device pixel, keeping the view centre."""
        self.grid.one_to_one()

    # --- histogram ------------------------------------------------------------------------
    def auto_range(self) -> None:
        """Black and white to the extent of the histogram's finite values."""
        self.histogram.auto_range()

    # --- flip -----------------------------------------------------------------------------
    @property
    def flipped(self) -> bool:
        """Whether the first panel shows the pyramid chosen in "A/B with" (``AbFlip``)."""
        return self.ab.flipped

    def flip(self) -> None:
        """Toggle A/B: the first panel shows the pyramid chosen in "A/B with", or its own."""
        self.ab.flip()

    def set_flipped(self, on: bool) -> None:
        self.ab.set_flipped(on)

    # --- pick, lock and go to -------------------------------------------------------------
    @property
    def lock(self) -> tuple[int, int, int] | None:
        """The locked texel: (level, x, y), in the grid of that level (``TexelReadout.lock``)."""
        return self.readout.lock

    def texel_at(self, panel: Panel, pos: QPointF) -> tuple[int, int, int] | None:
        """(level, x, y) under ``pos`` (view coordinates of ``panel``), or None."""
        return self.readout.texel_at(panel, pos)

    def lock_texel(self, level: int, x: int, y: int) -> None:
        """Lock texel (x, y) of ``level`` (clamped to the pyramids' levels and sizes)."""
        self.readout.lock_texel(level, x, y)

    def unlock(self) -> None:
        self.readout.unlock()

    def go_to(self, x: int, y: int, level: int = 0) -> None:
        """Lock texel (x, y) of ``level`` and centre the view on it, one texel per pixel."""
        self.readout.go_to(x, y, level)

    def go_to_dialog(self) -> None:
        """Ctrl+G: ask for "x, y [, level]" and go there."""
        self.readout.go_to_dialog()

    def locked_texels(self) -> dict[int, tuple[int, int]]:
        """Level -> the texel under the locked texel's centre ({} when none is locked)."""
        return self.readout.locked_texels()

    def locked_values(self) -> dict[tuple[str, int], tuple[float, ...]]:
        """(pyramid key, level) -> normalised RGBA of :meth:`locked_texels` in every pyramid and
        the reference (of the layer shown)."""
        return self.readout.locked_values()

    def footprints(self, key: str) -> dict[int, QRectF]:
        """Level -> the outline drawn in panel ``key`` (view coordinates)."""
        return self.readout.footprints(key)

    def readout_text(self, panel: Panel, level: int, x: int, y: int) -> str:
        """The readout of texel (x, y) of ``level`` as shown (``TexelReadout.text``)."""
        return self.readout.text(panel, level, x, y)

    def _sizes(self) -> list[tuple[int, int]]:
        pyramids = self._pyramids
        return self.cube.level_sizes(pyramids[0][2]) if pyramids and pyramids[0][2] else []

    # --- cull test ------------------------------------------------------------------------
    @property
    def cull_rect(self) -> tuple[int, int, int, int] | None:
        """The cull test's rectangle of level-0 texels (``CullProbeView.rect``)."""
        return self.cull.rect

    @property
    def cull_probes(self) -> dict[str, CullProbe]:
        """The cull test's outcome per panel key (``CullProbeView.probes``)."""
        return self.cull.probes

    def set_cull_mode(self, on: bool) -> None:
        """Drawing the cull test's rectangle on or off (``CullProbeView.set_mode``)."""
        self.cull.set_mode(on)

    def set_taps(self, taps: str) -> None:
        """Which texels the cull test reads (``culling.TAPS``)."""
        self.cull.set_taps(taps)

    def set_cull_rect(self, rect: tuple[int, int, int, int] | None) -> None:
        """Test the rectangle (x0, y0, x1, y1) of level-0 texels (``CullProbeView.set_rect``)."""
        self.cull.set_rect(rect)

    def cull_outlines(self, key: str) -> dict[tuple[str, int], list[QRectF]]:
        """The outlines panel ``key`` draws for the cull test (``CullProbeView.outlines``)."""
        return self.cull.outlines(key)

    def shutdown(self) -> None:
        self.pool.shutdown()

