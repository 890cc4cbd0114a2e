"""The pyramid view's display controls: exposure, offset, gamma, channel, transfer, false colour
for out-of-range values, the NaN/Inf/negative overlay, the alpha checkerboard, the colormap of a
one-value display, depth linearisation (near, far, reversed Z) and the Hi-Z overlay. They edit
one :class:`~mipview.ui.display.DisplaySettings`; the black/white range comes from the histogram.

Signals
-------
sigChanged(DisplaySettings)   the settings after any change
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QWidget

from mipview.ui.display import CHANNELS, COLORMAPS, TRANSFERS, DisplaySettings, colormap_lut

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
        self.channel_combo.setToolTip("Channel shown: RGBA (a one- or two-channel format: its own "
                                      "channels), or one solo through the colormap (Ctrl+1..6)")
        self.transfer_combo = QComboBox()
        for t in TRANSFERS:
            self.transfer_combo.addItem("sRGB encode" if t == "srgb" else "as stored", t)
        self.transfer_combo.setToolTip("Display transfer: values as display values, or linear "
                                       "light encoded to sRGB (tev's default for floats)")
        self.colormap_combo = QComboBox()
        for name in COLORMAPS:
            colormap_lut(name)  # loaded here, on the UI thread; the pixel pool reads the cache
            self.colormap_combo.addItem(name, name)
        self.colormap_combo.setToolTip("Colours of one value per texel (a one-channel format, "
                                       "or one channel solo) over the black/white range")
        for label, combo in (("Channel", self.channel_combo), ("Colormap", self.colormap_combo),
                             ("Transfer", self.transfer_combo)):
            combo.currentIndexChanged.connect(lambda _: self._changed())
            lay.addWidget(QLabel(label))
            lay.addWidget(combo)
        self.depth_check = QCheckBox("Depth")
        self.depth_check.setToolTip("Show linear view depth, near*far / (far - z*(far - near)) "
                                    "of z in [0, 1], instead of raw depth; the range follows")
        self.depth_check.setChecked(defaults.depth)
        self.depth_spins: dict[str, QDoubleSpinBox] = {}
        lay.addWidget(self.depth_check)
        for name, tip in (("near", "near plane distance"), ("far", "far plane distance")):
            spin = QDoubleSpinBox()
            spin.setRange(1e-4, 1e7)
            spin.setDecimals(4)
            spin.setValue(getattr(defaults, name))
            spin.setToolTip(tip)
            spin.valueChanged.connect(lambda _: self._changed())
            lay.addWidget(QLabel(name))
            lay.addWidget(spin)
            self.depth_spins[name] = spin
        self.reversed_check = QCheckBox("Reversed-Z")
        self.reversed_check.setToolTip("Depth 1 is the near plane (near and far swapped)")
        self.reversed_check.setChecked(defaults.reversed_z)
        lay.addWidget(self.reversed_check)
        for check in (self.depth_check, self.reversed_check):
            check.toggled.connect(lambda _: self._changed())
        self.false_check = QCheckBox("Out of range")
        self.false_check.setToolTip("Paint values above white orange, below black blue (U)")
        self.overlay_check = QCheckBox("NaN/Inf/neg")
        self.overlay_check.setToolTip("Paint texels holding NaN (magenta), +Inf (yellow), -Inf "
                                      "(cyan) or a negative value (green) (N)")
        self.checker_check = QCheckBox("Checkerboard")
        self.checker_check.setToolTip("Show alpha over a checkerboard (K)")
        self.hiz_check = QCheckBox("Non-conservative")
        self.hiz_check.setToolTip("Min/max results: paint texels that are not the exact min/max "
                                  "of their footprint in the level below as stored; red past it "
                                  "(for min: greater), violet otherwise (C)")
        for check, on in ((self.false_check, defaults.false_colour),
                          (self.overlay_check, defaults.overlay),
                          (self.checker_check, defaults.checker),
                          (self.hiz_check, defaults.hiz)):
            check.setChecked(on)
            check.toggled.connect(lambda _: self._changed())
            lay.addWidget(check)
        lay.addStretch(1)
        self._sync_enabled()

    def settings(self) -> DisplaySettings:
        return DisplaySettings(
            exposure=self.spins["exposure"].value(), offset=self.spins["offset"].value(),
            gamma=self.spins["gamma"].value(), black=self._range[0], white=self._range[1],
            channel=self.channel_combo.currentData(), transfer=self.transfer_combo.currentData(),
            false_colour=self.false_check.isChecked(), overlay=self.overlay_check.isChecked(),
            checker=self.checker_check.isChecked(), colormap=self.colormap_combo.currentData(),
            depth=self.depth_check.isChecked(), near=self.depth_spins["near"].value(),
            far=self.depth_spins["far"].value(), reversed_z=self.reversed_check.isChecked(),
            hiz=self.hiz_check.isChecked())

    def set_settings(self, s: DisplaySettings) -> None:
        """Show ``s`` in the controls, then one sigChanged."""
        widgets = [*self.spins.values(), *self.depth_spins.values(), self.channel_combo,
                   self.transfer_combo, self.colormap_combo, self.false_check,
                   self.overlay_check, self.checker_check, self.depth_check,
                   self.reversed_check, self.hiz_check]
        blockers = [QSignalBlocker(w) for w in widgets]
        for name, spin in (*self.spins.items(), *self.depth_spins.items()):
            spin.setValue(getattr(s, name))
        self.colormap_combo.setCurrentIndex(self.colormap_combo.findData(s.colormap))
        self.depth_check.setChecked(s.depth)
        self.reversed_check.setChecked(s.reversed_z)
        self.hiz_check.setChecked(s.hiz)
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

    def set_channels(self, channels: int) -> None:
        """Offer the channels an image of ``channels`` channels has: RGBA reads "R" or "RG"
        (its own channels), and the ones it lacks are greyed out."""
        model = self.channel_combo.model()
        for i, c in enumerate(CHANNELS):
            own = c == "rgba" or channels == 4 or c in "rg"[:channels]
            model.item(i).setEnabled(own)
        self.channel_combo.setItemText(0, {1: "R", 2: "RG"}.get(channels, CHANNEL_LABELS["rgba"]))

    def reset(self) -> None:
        """Exposure 0, offset 0, gamma 1, range [0, 1]; channel and toggles stay."""
        d = DisplaySettings()
        self.set_settings(replace(self.settings(), exposure=d.exposure, offset=d.offset,
                                  gamma=d.gamma, black=d.black, white=d.white,
                                  transfer=d.transfer))

    def set_depth(self, on: bool, near: float | None = None, far: float | None = None,
                  reversed_z: bool | None = None) -> None:
        """Depth linearisation on or off (and its planes), then one sigChanged."""
        s = self.settings()
        self.set_settings(replace(s, depth=on, near=s.near if near is None else near,
                                  far=s.far if far is None else far,
                                  reversed_z=s.reversed_z if reversed_z is None else reversed_z))

    def _sync_enabled(self) -> None:
        """Near, far and Reversed-Z only with Depth on."""
        for w in (*self.depth_spins.values(), self.reversed_check):
            w.setEnabled(self.depth_check.isChecked())

    def _changed(self) -> None:
        self._sync_enabled()
        try:
            settings = self.settings()
        except ValueError:  # near equal to far while typing: wait for a valid pair
            return
        self.sigChanged.emit(settings)
