"""The array-layer picker shared by the pyramid and heatmap views: hidden until there are layers.

For a cube map (:meth:`LayerSelector.set_cubes`, the pyramid view's) it offers, per cube, the
cube unfolded as a cross (``ui.cube_cross``) besides each of its faces by name, and starts on
the first cube's cross. For a volume (:meth:`LayerSelector.set_volume`) it picks a slice of
level 0 and the axis the slices are taken across (``ui.volume_slices``)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSpinBox, QWidget

from mipview.core.cube import FACES
from mipview.core.cube_cross import FACE_LABELS
from mipview.ui.volume_slices import AXES, PLANES

CROSS = "cross"


class LayerSelector(QWidget):
    """A "layer" label and spin box; ``valueChanged(int)`` fires on user changes only (the
    layer shown: for a cube's cross, its first face's)."""

    valueChanged = Signal(int)
    #: a volume's slices are now taken across this axis (user changes only)
    axisChanged = Signal(str)

    def __init__(self, label: str, tooltip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self._label_text = label
        self._label = QLabel(label)
        self._spin = QSpinBox()
        self._spin.setRange(0, 0)
        self._spin.setToolTip(tooltip)
        self._spin.valueChanged.connect(self.valueChanged)
        # a cube map's choices: (CROSS, cube) or ("layer", layer) per item
        self._faces = QComboBox()
        self._faces.setToolTip("A cube map: each cube unfolded as a cross (+Y above; -X, +Z, "
                               "+X, -Z; -Y below), or one face (its array layer)")
        self._faces.currentIndexChanged.connect(lambda _: self.valueChanged.emit(self.value()))
        self._faces.setVisible(False)
        self._cubes = 0
        # a volume's slicing axis
        self._axis = QComboBox()
        for axis in AXES:
            across, down = PLANES[axis]
            self._axis.addItem(f"across {axis} ({across} right, {down} down)", axis)
        self._axis.setToolTip("A volume: the axis its slices are taken across; every level "
                              "shows the slice that holds level 0's slice chosen")
        self._axis.currentIndexChanged.connect(lambda _: self.axisChanged.emit(self.axis()))
        self._axis.setVisible(False)
        self._volume = False
        layout.addWidget(self._label)
        layout.addWidget(self._axis)
        layout.addWidget(self._spin)
        layout.addWidget(self._faces)
        self.setVisible(False)

    def set_count(self, n: int) -> None:
        """Layers available; the selector shows only when there is more than one (a volume's,
        always)."""
        self._set_spin_silently(min(self._spin.value(), max(0, n - 1)), maximum=n - 1)
        self.setVisible(n > 1 or self._volume)

    def set_volume(self, on: bool) -> None:
        """On: the layers are a volume's slices (of level 0), with the axis to slice across;
        off: plain layers again. Emits nothing."""
        self._volume = on
        self._axis.setVisible(on)
        self._label.setText("Slice" if on else self._label_text)
        if on:
            self.setVisible(True)

    def axis(self) -> str:
        """The axis a volume's slices are taken across ("z" when not a volume)."""
        return self._axis.currentData() if self._volume else "z"

    def set_axis(self, axis: str) -> None:
        """Slice across ``axis`` (a volume only); emits ``axisChanged``."""
        self._axis.setCurrentIndex(AXES.index(axis))

    def set_cubes(self, cubes: int) -> None:
        """``cubes`` > 0: the layers are that many cube maps (6 faces each, after
        :meth:`set_count`): offer each cube's cross and its faces by name, starting on cube 0's
        cross (a choice that still exists stays); 0: plain layers again. Emits nothing."""
        if cubes == self._cubes:
            return
        current = self._faces.currentData() if self._cubes else None
        self._cubes = cubes
        self._faces.blockSignals(True)
        self._faces.clear()
        for c in range(cubes):
            prefix = f"cube {c} " if cubes > 1 else ""
            self._faces.addItem(f"{prefix}cross", (CROSS, c))
            for f in range(FACES):
                layer = FACES * c + f
                self._faces.addItem(f"{prefix}{FACE_LABELS[f]} (layer {layer})", ("layer", layer))
        i = self._find(current) if current is not None else -1
        self._faces.setCurrentIndex(i if i >= 0 else 0)
        self._faces.blockSignals(False)
        self._faces.setVisible(cubes > 0)
        self._spin.setVisible(cubes == 0)
        self._label.setText("Face" if cubes else self._label_text)
        if cubes:
            self.setVisible(True)

    def _find(self, data: tuple) -> int:
        """The item holding ``data`` (-1: none); QComboBox.findData does not compare tuples."""
        return next((i for i in range(self._faces.count()) if self._faces.itemData(i) == data),
                    -1)

    def cubes(self) -> int:
        """Cube maps offered (0: plain layers)."""
        return self._cubes

    def cross(self) -> int | None:
        """The cube shown unfolded as a cross, or None (a layer is shown)."""
        if not self._cubes:
            return None
        kind, i = self._faces.currentData()
        return i if kind == CROSS else None

    def set_cross(self, cube: int) -> None:
        """Show cube ``cube`` as a cross (a cube map only); emits ``valueChanged``."""
        i = self._find((CROSS, cube))
        if i >= 0:
            self._faces.setCurrentIndex(i)

    def set_value_silently(self, value: int, maximum: int | None = None) -> None:
        """Programmatic change that does not emit ``valueChanged`` (of a cube map: that face)."""
        self._set_spin_silently(value, maximum)
        if self._cubes:
            i = self._find(("layer", value))
            if i >= 0:
                self._faces.blockSignals(True)
                self._faces.setCurrentIndex(i)
                self._faces.blockSignals(False)

    def _set_spin_silently(self, value: int, maximum: int | None = None) -> None:
        self._spin.blockSignals(True)
        if maximum is not None:
            self._spin.setRange(0, max(0, maximum))
        self._spin.setValue(value)
        self._spin.blockSignals(False)

    def value(self) -> int:
        """The layer shown; for a cube's cross its first face's (6 c)."""
        if self._cubes:
            kind, i = self._faces.currentData()
            return FACES * i if kind == CROSS else i
        return self._spin.value()

    def setValue(self, value: int) -> None:  # noqa: N802 (Qt naming, like QSpinBox)
        if self._cubes:  # that face, out of the cross
            i = self._find(("layer", min(max(0, value), self._spin.maximum())))
            if i >= 0:
                self._faces.setCurrentIndex(i)
            return
        self._spin.setValue(value)

    def maximum(self) -> int:
        return self._spin.maximum()
