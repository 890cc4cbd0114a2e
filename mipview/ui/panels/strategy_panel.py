"""The left panel: device, format, the strategy list (read from the registry), run controls.

The list has one line per strategy (:mod:`mipview.ui.panels.strategy_list`: its checkbox and a
summary of the options that differ from their defaults); the options of the current (selected)
strategy show in the detail pane below it (:mod:`mipview.ui.panels.option_pane`), so at a usual
window size every strategy is in view however many are checked.

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
``image_combo.sigChosen(str)``  an image of the open file picked (its ``#`` suffix)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mipview.core.formats import Format
from mipview.core.specs import CUSTOM_PREFIX, StrategySpec
from mipview.gpu import strategies
from mipview.gpu.strategies import auto
from mipview.gpu.strategies.base import Strategy
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.io.containers.texture import HeldImage
from mipview.ui.panels.image_choice import ImageChoice
from mipview.ui.panels.option_pane import OptionCombo, OptionPane
from mipview.ui.panels.strategy_list import ElidedLabel, StrategyList
from mipview.ui.settings import string_list

AUTO_FORMAT = "auto"
#: a row's line when its last result was out of tolerance (red, as the pyramid view's titles)
OUT_OF_TOLERANCE = "#d83b3b"


@dataclass
class StrategyRow:
    cls: type[Strategy]
    check: QCheckBox
    combos: dict[str, OptionCombo]
    reason: str | None = None
    #: the list's line after the checkbox: the options that differ from their defaults
    summary_label: QLabel | None = None

    def options(self) -> dict[str, str]:
        return {name: combo.currentText() for name, combo in self.combos.items()}

    def changed(self) -> list[tuple[str, str]]:
        """The options that differ from their default, in the strategy's order; not those
        that change nothing as the others are (a Kaiser width kept while the filter is box)."""
        defaults = {o.name: o.default for o in self.cls.options}
        options = self.options()
        idle = self.cls.idle_options(options)
        return [(k, v) for k, v in options.items() if v != defaults.get(k) and k not in idle]

    def spec(self) -> StrategySpec:
        """Only options that differ from their default, so names stay short."""
        return StrategySpec(self.cls.name, tuple(sorted(self.changed())))

    def summary(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.changed())


def row_label(name: str, cls: type[Strategy]) -> str:
    """What the list calls a strategy: its name; a custom one by its file's name (``title``),
    not its absolute path, which would widen the panel."""
    if name.startswith(CUSTOM_PREFIX) and getattr(cls, "title", ""):
        return CUSTOM_PREFIX + cls.title
    return name


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
        self.image_combo = ImageChoice()
        form.addRow("Image", self.image_combo)
        form.setRowVisible(self.image_combo, False)  # until a file holds more than one image
        self._form = form
        lay.addLayout(form)

        self.strategy_box = QGroupBox("Strategies")
        box_lay = QVBoxLayout(self.strategy_box)
        box_lay.setContentsMargins(4, 4, 4, 4)
        self.list = StrategyList()
        self.list.sigCurrent.connect(self._show_options)
        box_lay.addWidget(self.list)
        lay.addWidget(self.strategy_box)
        # the room left goes to the current strategy's options, which scroll in it if need be
        self.option_pane = OptionPane()
        lay.addWidget(self.option_pane, 1)

        # two controls a line: the run settings are short, the room is the options'
        runs = QHBoxLayout()
        self.repeat_spin = QSpinBox()
        self.repeat_spin.setRange(0, 100000)
        self.repeat_spin.setValue(20)
        self.repeat_spin.setToolTip("timed runs per strategy after the first (0: levels only)")
        self.layers_spin = QSpinBox()
        self.layers_spin.setRange(1, 64)
        self.layers_spin.setValue(1)
        self.layers_spin.setToolTip("array layers built from the image for the run (mirrors, "
                                    "flips, channel swaps; 1 = off: the image's own layers)")
        self.layers_spin.valueChanged.connect(lambda _: self.sigChanged.emit())
        for text, spin in (("Timed runs", self.repeat_spin), ("Layers", self.layers_spin)):
            label = QLabel(text)
            label.setBuddy(spin)
            label.setToolTip(spin.toolTip())
            runs.addWidget(label)
            runs.addWidget(spin, 1)
        lay.addLayout(runs)
        checks = QHBoxLayout()
        self.cold_check = QCheckBox("Cold caches")
        self.cold_check.setToolTip("empty the GPU caches before every timed run (untimed), as "
                                   "`mipview bench --cold`; off: warm caches")
        self.run_on_open = QCheckBox("Run on open")
        self.run_on_open.setToolTip("run the checked strategies when an image is opened")
        self.run_on_open.setChecked(True)
        checks.addWidget(self.cold_check)
        checks.addWidget(self.run_on_open)
        checks.addStretch(1)
        lay.addLayout(checks)

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
        current = self.list.current()
        self.list.clear_rows()
        self.option_pane.clear()
        self.rows.clear()
        for name, cls in {**strategies.REGISTRY, **self.custom}.items():
            label = row_label(name, cls)
            check = QCheckBox(label)
            check.setObjectName(f"strategy:{name}")
            check.toggled.connect(lambda _: self.sigChanged.emit())
            summary = ElidedLabel()
            combos = self.option_pane.add_page(name, cls, label)
            row = StrategyRow(cls, check, combos, summary_label=summary)
            for combo in combos.values():
                combo.currentIndexChanged.connect(lambda _, r=row: self._option_changed(r))
            self.list.add_row(name, check, summary)
            checked, opts = previous.get(name, (name in ("blit", "per-level"), {}))
            if name not in previous and name in self.custom:  # new: checked, as last saved
                saved = self._saved.get(name)
                checked, opts = True, saved.option_dict if saved else {}
            check.setChecked(checked)
            for key, value in opts.items():
                if key in combos:
                    combos[key].setCurrentText(value)
            self._set_reason(row, None)
            self._show_summary(row)
            self._show_idle(row)
            self.rows[name] = row
        self.select(current if current in self.rows else self._first_current())
        self.sigChanged.emit()  # new rows know no reasons yet

    def _first_current(self) -> str | None:
        """The row current at the start: the first checked strategy with options to show."""
        for name, row in self.rows.items():
            if row.check.isChecked() and row.combos:
                return name
        return next(iter(self.rows), None)

    def select(self, name: str | None) -> None:
        """Make ``name`` the current strategy: its options show in the detail pane."""
        if name is not None:
            self.list.select(name)
        self._show_options(name)

    def current(self) -> str | None:
        """The strategy whose options the detail pane shows."""
        return self.option_pane.shown()

    def summary(self, name: str) -> str:
        """The options of ``name`` that differ from their defaults, as the list shows them."""
        return self.rows[name].summary()

    def _show_options(self, name: str | None) -> None:
        self.option_pane.show_page(name)

    def _option_changed(self, row: StrategyRow) -> None:
        self._show_summary(row)
        self._show_idle(row)
        self.sigChanged.emit()

    @staticmethod
    def _show_idle(row: StrategyRow) -> None:
        """Grey out the options that change nothing with the others as they are (Kaiser's
        with another filter, say). An unsupported strategy's options stay editable: another
        choice may be supported where this one is not."""
        idle = row.cls.idle_options(row.options())
        for name, combo in row.combos.items():
            combo.set_idle(idle.get(name))

    def _show_summary(self, row: StrategyRow) -> None:
        """The options changed from their defaults; with none, the strategy's title, dimmed."""
        label = row.summary_label
        if label is None:
            return
        text = row.summary()
        fallback = "custom shader" if row.cls.name.startswith(CUSTOM_PREFIX) \
            else getattr(row.cls, "title", "")
        label.setText(text or fallback)
        label.setPalette(self.palette())  # a verdict's red goes (show_verdicts)
        label.setForegroundRole(QPalette.ColorRole.Text if text
                                else QPalette.ColorRole.PlaceholderText)
        label.setToolTip(text or getattr(row.cls, "description", "") or fallback)
        label.update()

    def add_custom(self, cls: type[Strategy]) -> None:
        """Add the row of a custom strategy, or give its row this (newer) version; a new one
        becomes the current row (its options are what the user will look at next)."""
        new = cls.name not in self.custom
        self.custom[cls.name] = cls
        self.rebuild_strategies()
        if new:
            self.select(cls.name)

    def remove_custom(self, name: str) -> None:
        if self.custom.pop(name, None) is not None:
            self.rebuild_strategies()

    def _set_reason(self, row: StrategyRow, reason: str | None,
                    picks: tuple[auto.Pick, ...] = ()) -> None:
        """``picks``: what each ``auto`` option becomes here, shown under the description."""
        row.reason = reason
        row.check.setEnabled(reason is None)
        if row.summary_label is not None:
            row.summary_label.setEnabled(reason is None)
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

    def show_verdicts(self, out: dict[str, str]) -> None:
        """Strategy name -> its verdict's summary, for the rows whose last result was out of
        tolerance: the row's line says so in red until its options change or the next
        verdicts come; {} shows every row's options again."""
        for name, row in self.rows.items():
            self._show_summary(row)
            label, summary = row.summary_label, out.get(name)
            if label is None or not summary:
                continue
            label.setText(summary)
            pal = label.palette()
            pal.setColor(QPalette.ColorRole.WindowText, QColor(OUT_OF_TOLERANCE))
            label.setPalette(pal)
            label.setForegroundRole(QPalette.ColorRole.WindowText)
            label.setToolTip(f"The last Run: {summary}")
            label.update()

    def verdict_shown(self, name: str) -> str:
        """The verdict the row of ``name`` shows ("" when its options show)."""
        label = self.rows[name].summary_label
        return label.text() if label is not None and label.text().startswith(
            "OUT OF TOLERANCE") else ""

    def show_volume(self, names: list[str] | None, ran: bool = False) -> None:
        """A volume is open: the list shows the volume strategies of ``names`` (as a Run makes
        them, or as the last one ran with ``ran``) in place of the 2D rows, whose checked
        strategies still pick the reductions; None: the 2D rows again."""
        tip = ("A volume's Run makes its chain with every volume strategy, with each reduction "
               "the 2D strategies checked ask for (open a 2D image to change them)")
        state = "ran on the volume" if ran else "runs on the volume"
        self.list.set_fixed_rows([(n, state, tip) for n in names or []])
        if names is None:  # a rebuilt list lost its hidden rows' place: the current row again
            self.select(self.current())

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

    def show_images(self, images: Sequence[HeldImage]) -> None:
        """The Image list of an opened file's images; hidden for a file of one."""
        self.image_combo.show_images(images)
        self._form.setRowVisible(self.image_combo, bool(images))

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
        specs = []
        for text in string_list(s, "panel/strategies"):
            try:
                specs.append(StrategySpec.parse(text))
            except ValueError:
                continue
        self.set_specs(specs)
        self._saved = {s.name: s for s in specs}  # for custom rows, which come later
