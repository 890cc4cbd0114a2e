"""A volume in the pyramid viewer, a slice at a time.

A volume (``PyramidView.set_pyramids``' ``volume``, levels ``(D, H, W, C)``) is shown a slice
at a time (``ui.volume_slices``): the layer selector becomes a slice of level 0 and the axis to
slice across, every level shows the slice that holds it, and every tool (exposure, histogram,
readout, lock, A/B, the reference) works on the slices shown. The readout names the slice and
the texel's (x, y, z) in the level. A volume new to the view opens on its middle slice, its
range set to its whole level 0's extent (slice 0 of most volumes is near black).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QWidget

from mipview.core.array_layers import layer_count
from mipview.core.formats import Format
from mipview.ui.views.pyramid_panels import Entry
from mipview.ui.volume_slices import oriented, slice_of

Reference = tuple[tuple[np.ndarray, ...], Format]


class VolumeDisplay:
    """The volume of a pyramid view (``view``, whose part it is; the view module imports this
    one), as given, and the slices of it the view's pyramids are."""

    def __init__(self, view: QWidget) -> None:
        self.view = view
        #: a volume's pyramids and reference as given, levels (D, H, W, C); None: no volume.
        #: the view's pyramids and reference hold them turned to the axis sliced across
        self.given: tuple[list[Entry], Reference | None] | None = None
        view.layer_spin.axisChanged.connect(lambda _: self._axis_changed())

    def take(self, pyramids: list[Entry], volume: bool) -> tuple[list[Entry], bool]:
        """Keep ``pyramids`` as given (``volume``: they are a volume's), and give them as the
        view shows them (slices across the axis chosen), and whether they are a volume new to
        the view."""
        # a volume new to the view opens on its middle slice (slice 0 of most volumes is near
        # black), at its own range; a Run's results of the same volume keep the slice and range
        fresh = volume and bool(pyramids) and bool(pyramids[0][2]) and (
            self.given is None or not self.given[0] or not self.given[0][0][2]
            or self.given[0][0][2][0].shape != pyramids[0][2][0].shape)
        self.given = (list(pyramids), None) if volume else None
        self.view.layer_spin.set_volume(volume)
        return (self._oriented(pyramids) if volume else pyramids), fresh

    def take_reference(self, levels: tuple[np.ndarray, ...],
                       fmt: Format) -> tuple[np.ndarray, ...]:
        """Keep a volume's reference as given; its levels as the view shows them (as given
        when not a volume)."""
        if self.given is None:
            return levels
        self.given = (self.given[0], (levels, fmt))
        return self._turned(levels)

    def is_volume(self) -> bool:
        """Whether the pyramids shown are of a volume (shown a slice at a time)."""
        return self.given is not None

    def slice_axis(self) -> str:
        """The axis a volume's slices are taken across ("z" when not a volume)."""
        return self.view.layer_spin.axis()

    def set_slice_axis(self, axis: str) -> None:
        """Slice a volume across ``axis``: "z", "y" or "x"."""
        self.view.layer_spin.set_axis(axis)

    def _turned(self, levels: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        """A volume's levels as slices across the axis chosen (views, no copies)."""
        axis = self.slice_axis()
        return tuple(oriented(a, axis) for a in levels)

    def _oriented(self, pyramids: list[Entry]) -> list[Entry]:
        return [(key, title, self._turned(levels), fmt) for key, title, levels, fmt in pyramids]

    def _axis_changed(self) -> None:
        """Another axis: the slices are of other shapes, so their displays, the lock and the
        view's fit go; the slice number stays (clamped to the new axis)."""
        if self.given is None:
            return
        view = self.view
        given, reference = self.given
        view._pyramids = self._oriented(given)
        if reference is not None:
            view._reference = (self._turned(reference[0]), reference[1])
        view.display.images.clear()
        view.hiz.marks.clear()
        view.pool.forget()
        if view.lock is not None:
            view.readout.lock = None
            view.sigLocked.emit(None)
        view._update_layers()
        view._rebuild()

    def slice_shown(self, a: np.ndarray) -> int:
        """The layer of ``a`` shown: of a volume's level, the slice holding level 0's slice
        chosen (``volume_slices.slice_of``); else the layer chosen, clamped."""
        view = self.view
        chosen = view.layer_spin.value()
        if self.given is not None and view._pyramids and view._pyramids[0][2]:
            return slice_of(chosen, layer_count(view._pyramids[0][2][0]), layer_count(a))
        return min(chosen, layer_count(a) - 1)
