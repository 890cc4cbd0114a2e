"""The pyramid view's display controls: exposure, offset, gamma, channel, transfer, false colour
for out-of-range values, the NaN/Inf/negative overlay and the alpha checkerboard. They edit one
:class:`~mipview.ui.display.DisplaySettings`; the black/white range comes from the histogram.

Signals
-------
sigChanged(DisplaySettings)   the settings after any change
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QWidget

from mipview.ui.display import CHANNELS, TRANSFERS, DisplaySettings

CHANNEL_LABELS = {"rgba": "RGBA", "r": "R", "g": "G", "b": "B", "a": "A",
                  "luminance": "Luminance"}
#: what one key press changes (tev's steps)
STEPS = {"exposure": 0.5, "offset": 0.05, "gamma": 0.1}


class DisplayControls(QWidget):
    sigChanged = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        defaults = DisplaySettings()
        self._range = (defaults.black, defaults.white)
        self.spins: dict[str, QDoubleSpinBox] = {}
        for name, lo, hi, tip in (
                ("exposure", -20.0, 20.0, "value x 2^exposure (E / Shift+E)"),
                ("offset", -10.0, 10.0, "added after exposure (O / Shift+O)"),
                ("gamma", 0.05, 10.0, "shown value ^ (1 / gamma) (G / Shift+G)")):
            spin = QDoubleSpinBox()
            spin.setRange(lo, hi)
            spin.setDecimals(2)
            spin.setSingleStep(STEPS[name])
            spin.setValue(getattr(defaults, name))
            spin.setToolTip(tip)
            spin.valueChanged.connect(lambda _: self._changed())
            lay.addWidget(QLabel(name.capitalize()))
            lay.addWidget(spin)
            self.spins[name] = spin
        self.channel_combo = QComboBox()
        for c in CHANNELS:
            self.channel_combo.addItem(CHANNEL_LABELS[c], c)
        self.channel_combo.setToolTip("Channel shown: RGBA, or one solo as grey (Ctrl+1..6)")
        self.transfer_combo = QComboBox()
        for t in TRANSFERS:
            self.transfer_combo.addItem("sRGB encode" if t == "srgb" else "as stored", t)
        self.transfer_combo.setToolTip("Display transfer: values as display values, or linear "
                                       "light encoded to sRGB (tev's default for floats)")
        for label, combo in (("Channel", self.channel_combo), ("Transfer", self.transfer_combo)):
            combo.currentIndexChanged.connect(lambda _: self._changed())
            lay.addWidget(QLabel(label))
            lay.addWidget(combo)
        self.false_check = QCheckBox("Out of range")
        self.false_check.setToolTip("Paint values above white orange, below black blue (U)")
        self.overlay_check = QCheckBox("NaN/Inf/neg")
        self.overlay_check.setToolTip("Paint texels holding NaN (magenta), +Inf (yellow), -Inf "
                                      "(cyan) or a negative value (green) (N)")
        self.checker_check = QCheckBox("Checkerboard")
        self.checker_check.setToolTip("Show alpha over a checkerboard (K)")
        for check, on in ((self.false_check, defaults.false_colour),
                          (self.overlay_check, defaults.overlay),
                          (self.checker_check, defaults.checker)):
            check.setChecked(on)
            check.toggled.connect(lambda _: self._changed())
            lay.addWidget(check)
        lay.addStretch(1)

    def settings(self) -> DisplaySettings:
        return DisplaySettings(
            exposure=self.spins["exposure"].value(), offset=self.spins["offset"].value(),
            gamma=self.spins["gamma"].value(), black=self._range[0], white=self._range[1],
            channel=self.channel_combo.currentData(), transfer=self.transfer_combo.currentData(),
            false_colour=self.false_check.isChecked(), overlay=self.overlay_check.isChecked(),
            checker=self.checker_check.isChecked())

    def set_settings(self, s: DisplaySettings) -> None:
        """Show ``s`` in the controls, then one sigChanged."""
        widgets = [*self.spins.values(), self.channel_combo, self.transfer_combo,
                   self.false_check, self.overlay_check, self.checker_check]
        blockers = [QSignalBlocker(w) for w in widgets]
        for name, spin in self.spins.items():
            spin.setValue(getattr(s, name))
        self.channel_combo.setCurrentIndex(self.channel_combo.findData(s.channel))
        self.transfer_combo.setCurrentIndex(self.transfer_combo.findData(s.transfer))
        self.false_check.setChecked(s.false_colour)
        self.overlay_check.setChecked(s.overlay)
        self.checker_check.setChecked(s.checker)
        self._range = (s.black, s.white)
        del blockers
        self._changed()

    def set_range(self, black: float, white: float) -> None:
        self.set_settings(replace(self.settings(), black=black, white=white))

    def step(self, name: str, steps: int) -> None:
        """Exposure, offset or gamma by ``steps`` key presses."""
        spin = self.spins[name]
        spin.setValue(spin.value() + steps * STEPS[name])

    def set_channel(self, channel: str) -> None:
        self.channel_combo.setCurrentIndex(self.channel_combo.findData(channel))

    def reset(self) -> None:
        """Exposure 0, offset 0, gamma 1, range [0, 1]; channel and toggles stay."""
        d = DisplaySettings()
        self.set_settings(replace(self.settings(), exposure=d.exposure, offset=d.offset,
                                  gamma=d.gamma, black=d.black, white=d.white,
                                  transfer=d.transfer))

    def _changed(self) -> None:
        self.sigChanged.emit(self.settings())
