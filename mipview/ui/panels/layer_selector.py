"""The array-layer picker shared by the pyramid and heatmap views: hidden until there are layers."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QWidget


class LayerSelector(QWidget):
    """A "layer" label and spin box; ``valueChanged(int)`` fires on user changes only."""

    valueChanged = Signal(int)

    def __init__(self, label: str, tooltip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self._spin = QSpinBox()
        self._spin.setRange(0, 0)
        self._spin.setToolTip(tooltip)
        self._spin.valueChanged.connect(self.valueChanged)
        layout.addWidget(QLabel(label))
        layout.addWidget(self._spin)
        self.setVisible(False)

    def set_count(self, n: int) -> None:
        """Layers available; the selector shows only when there is more than one."""
        self.set_value_silently(min(self._spin.value(), max(0, n - 1)), maximum=n - 1)
        self.setVisible(n > 1)

    def set_value_silently(self, value: int, maximum: int | None = None) -> None:
        """Programmatic change that does not emit ``valueChanged``."""
        self._spin.blockSignals(True)
        if maximum is not None:
            self._spin.setRange(0, max(0, maximum))
        self._spin.setValue(value)
        self._spin.blockSignals(False)

    def value(self) -> int:
        return self._spin.value()

    def setValue(self, value: int) -> None:  # noqa: N802 (Qt naming, like QSpinBox)
        self._spin.setValue(value)

    def maximum(self) -> int:
        return self._spin.maximum()
