"""The left panel: device, format, the strategy list (read from the registry), run controls.

Nothing here knows a strategy by name: checkboxes and option combo boxes are generated from
the classes of ``strategies.REGISTRY`` and the custom strategies added with ``add_custom``
(``title``, ``description``, ``options``), and a strategy the device or the image cannot run is
disabled with ``unsupported_reason(...)`` as its tooltip (else the tooltip says what each
``auto`` option becomes for this device, format and size).

Signals
-------
sigRun(bool)          Run (False) or Profile live (True) pressed
sigStop()             Stop pressed
sigDeviceChosen(str)  device index picked in the combo box
sigChanged()          format, strategy or option changed (the window re-checks support)
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from mipview.gpu.strategies import auto
from mipview.gpu.strategies.base import Strategy
from mipview.gpu.vulkan.context import DeviceCaps

AUTO_FORMAT = "auto"


@dataclass
class StrategyRow:
    cls: type[Strategy]
    check: QCheckBox
    combos: dict[str, QComboBox]
    reason: str | None = None

    def options(self) -> dict[str, str]:
        return {name: combo.currentText() for name, combo in self.combos.items()}

    def spec(self) -> StrategySpec:
        """Only options that differ from their default, so names stay short."""
        defaults = {o.name: o.default for o in self.cls.options}
        opts = {k: v for k, v in self.options().items() if v != defaults.get(k)}
        return StrategySpec(self.cls.name, tuple(sorted(opts.items())))


class StrategyPanel(QWidget):
    sigRun = Signal(bool)
    sigStop = Signal()
    sigDeviceChosen = Signal(str)
    sigChanged = Signal()

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self.rows: dict[str, StrategyRow] = {}
        #: custom strategies (shader:PATH) after the built-in ones, by name
        self.custom: dict[str, type[Strategy]] = {}
        self._saved: dict[str, StrategySpec] = {}
        self._devices: list[DeviceCaps] = []
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)

        form = QFormLayout()
        self.device_combo = QComboBox()
        self.device_combo.setToolTip("Vulkan device; switching recreates the GPU context")
        self.device_combo.activated.connect(self._device_activated)
        form.addRow("Device", self.device_combo)
        self.format_combo = QComboBox()
        self.format_combo.addItem("auto (from image)", AUTO_FORMAT)
        for f in Format:
            self.format_combo.addItem(f.label, f.label)
        self.format_combo.currentIndexChanged.connect(lambda _: self.sigChanged.emit())
        form.addRow("Format", self.format_combo)
        lay.addLayout(form)

        self.strategy_box = QGroupBox("Strategies")
        self._strategy_layout = QVBoxLayout(self.strategy_box)
        self._strategy_layout.setSpacing(2)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.strategy_box)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        lay.addWidget(scroll, 1)

        runs = QFormLayout()
        self.repeat_spin = QSpinBox()
        self.repeat_spin.setRange(0, 100000)
        self.repeat_spin.setValue(20)
        self.repeat_spin.setToolTip("timed runs per strategy after the first (0: levels only)")
        runs.addRow("Timed runs", self.repeat_spin)
        self.cold_check = QCheckBox("Cold caches")
        self.cold_check.setToolTip("empty the GPU caches before every timed run (untimed), as "
                                   "`mipview bench --cold`; off: warm caches")
        runs.addRow(self.cold_check)
        self.layers_spin = QSpinBox()
        self.layers_spin.setRange(1, 64)
        self.layers_spin.setValue(1)
        self.layers_spin.setToolTip("array layers built from the image for the run (mirrors, "
                                    "flips, channel swaps; 1 = off: the image's own layers)")
        self.layers_spin.valueChanged.connect(lambda _: self.sigChanged.emit())
        runs.addRow("Layers", self.layers_spin)
        self.run_on_open = QCheckBox("Run when an image is opened")
        self.run_on_open.setChecked(True)
        runs.addRow(self.run_on_open)
        lay.addLayout(runs)

        buttons = QHBoxLayout()
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Generate with every checked strategy, then time it (Ctrl+R)")
        self.live_button = QPushButton("Profile (live)")
        self.live_button.setToolTip("Repeat the runs and stream timings until Stop (Ctrl+L)")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.run_button.clicked.connect(lambda: self.sigRun.emit(False))
        self.live_button.clicked.connect(lambda: self.sigRun.emit(True))
        self.stop_button.clicked.connect(self.sigStop.emit)
        for b in (self.run_button, self.live_button, self.stop_button):
            buttons.addWidget(b)
        lay.addLayout(buttons)
        self.rebuild_strategies()
        self._restore()

    # --- strategies -----------------------------------------------------------------------
    def rebuild_strategies(self) -> None:
        """(Re)create one row per registered strategy, keeping the user's choices."""
        previous = {name: (r.check.isChecked(), r.options()) for name, r in self.rows.items()}
        while self._strategy_layout.count():
            item = self._strategy_layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.rows.clear()
        for name, cls in {**strategies.REGISTRY, **self.custom}.items():
            box = QWidget()
            v = QVBoxLayout(box)
            v.setContentsMargins(0, 2, 0 , 2)
            check = QCheckBox(f"{name}  ({cls.title})" if getattr(cls, "title", "") else name)
            check.setObjectName(f"strategy:{name}")
            check.toggled.connect(lambda _: self.sigChanged.emit())
            v.addWidget(check)
            combos: dict[str, QComboBox] = {}
            if cls.options:
                opt_form = QFormLayout()
                opt_form.setContentsMargins(22, 0, 0, 0)
                for opt in cls.options:
                    combo = QComboBox()
                    combo.setObjectName(f"option:{name}:{opt.name}")
                    combo.addItems(list(opt.choices))
                    combo.setCurrentText(opt.default)
                    combo.setToolTip(opt.help)
                    combo.currentIndexChanged.connect(lambda _: self.sigChanged.emit())
                    opt_form.addRow(QLabel(opt.name), combo)
                    combos[opt.name] = combo
                v.addLayout(opt_form)
            self._strategy_layout.addWidget(box)
            row = StrategyRow(cls, check, combos)
            checked, opts = previous.get(name, (name in ("blit", "per-level"), {}))
            if name not in previous and name in self.custom:  # new: checked, as last saved
                saved = self._saved.get(name)
                checked, opts = True, saved.option_dict if saved else {}
            check.setChecked(checked)
            for key, value in opts.items():
                if key in combos:
                    combos[key].setCurrentText(value)
            self._set_reason(row, None)
            self.rows[name] = row
        self._strategy_layout.addStretch(1)
        self.sigChanged.emit()  # new rows know no reasons yet

    def add_custom(self, cls: type[Strategy]) -> None:
        """Add the row of a custom strategy, or give its row this (newer) version."""
        self.custom[cls.name] = cls
        self.rebuild_strategies()

    def remove_custom(self, name: str) -> None:
        if self.custom.pop(name, None) is not None:
            self.rebuild_strategies()

    def _set_reason(self, row: StrategyRow, reason: str | None,
                    picks: tuple[auto.Pick, ...] = ()) -> None:
        """``picks``: what each ``auto`` option becomes here, shown under the description."""
        row.reason = reason
        row.check.setEnabled(reason is None)
        for combo in row.combos.values():
            # options stay editable: another choice may be supported where this one is not
            combo.setEnabled(True)
        desc = getattr(row.cls, "description", "")
        row.check.setToolTip(f"Unsupported here: {reason}" if reason
                             else "\n".join([desc, *(p.note() for p in picks)]))

    def update_support(self, caps: DeviceCaps | None, fmt: Format | None, width: int,
                       height: int, layers: int) -> None:
        """Disable every strategy that cannot run on ``caps`` for this image and format."""
        for row in self.rows.values():
            picks: tuple[auto.Pick, ...] = ()
            if caps is None or fmt is None:
                reason = "no Vulkan device is open" if caps is None else None
            else:
                try:
                    used, picks = auto.resolve(row.cls, caps, fmt, width, height, layers,
                                               row.options())
                    reason = row.cls.unsupported_reason(caps, fmt, width, height, layers, used)
                except Exception as exc:  # noqa: BLE001 - a broken strategy must not break the UI
                    reason = f"unsupported_reason failed: {exc}"
            self._set_reason(row, reason, picks)

    def specs(self) -> list[StrategySpec]:
        """Checked strategies that can run, with their options."""
        return [r.spec() for r in self.rows.values() if r.check.isChecked() and r.reason is None]

    def set_specs(self, specs: list[StrategySpec]) -> None:
        """Check exactly these strategies (the first spec of a name sets its options)."""
        wanted: dict[str, StrategySpec] = {}
        for s in specs:
            wanted.setdefault(s.name, s)
        for name, row in self.rows.items():
            row.check.setChecked(name in wanted)
            if name in wanted:
                for key, value in wanted[name].options:
                    if key in row.combos:
                        row.combos[key].setCurrentText(value)

    # --- device and format ----------------------------------------------------------------
    def set_devices(self, devices: list[DeviceCaps], current: DeviceCaps | None) -> None:
        self._devices = list(devices)
        self.device_combo.blockSignals(True)
        self.device_combo.clear()
        for d in devices:
            self.device_combo.addItem(f"{d.index}: {d.name}  ({d.device_type}, subgroup "
                                      f"{d.subgroup_size})", str(d.index))
            self.device_combo.setItemData(self.device_combo.count() - 1,
                                          f"{d.driver}\nVulkan {d.api_version}",
                                          Qt.ItemDataRole.ToolTipRole)
        if current is not None:
            self.device_combo.setCurrentIndex(self.device_combo.findData(str(current.index)))
        self.device_combo.blockSignals(False)

    def _device_activated(self, i: int) -> None:
        self.sigDeviceChosen.emit(str(self.device_combo.itemData(i)))

    def format_choice(self) -> str:
        return str(self.format_combo.currentData())

    def set_busy(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy)
        self.live_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        self.device_combo.setEnabled(not busy)

    # --- persistence ----------------------------------------------------------------------
    def save(self) -> None:
        s = self._settings
        if s is None:
            return
        s.setValue("panel/format", self.format_choice())
        s.setValue("panel/repeat", self.repeat_spin.value())
        s.setValue("panel/cold", self.cold_check.isChecked())
        s.setValue("panel/layers", self.layers_spin.value())
        s.setValue("panel/run_on_open", self.run_on_open.isChecked())
        s.setValue("panel/strategies", [str(r.spec()) for r in self.rows.values()
                                        if r.check.isChecked()])

    def _restore(self) -> None:
        s = self._settings
        if s is None or not s.contains("panel/repeat"):
            return
        i = self.format_combo.findData(s.value("panel/format", AUTO_FORMAT))
        self.format_combo.setCurrentIndex(max(0, i))
        self.repeat_spin.setValue(int(s.value("panel/repeat", 20)))
        self.cold_check.setChecked(str(s.value("panel/cold", False)).lower() == "true")
        self.layers_spin.setValue(int(s.value("panel/layers", 1)))
        self.run_on_open.setChecked(str(s.value("panel/run_on_open", True)).lower() == "true")
        saved = s.value("panel/strategies", []) or []
        if isinstance(saved, str):
            saved = [saved]
        specs = []
        for text in saved:
            try:
                specs.append(StrategySpec.parse(text))
            except ValueError:
                continue
        self.set_specs(specs)
        self._saved = {s.name: s for s in specs}  # for custom rows, which come later
