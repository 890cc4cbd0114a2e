"""File > Export...: which result of the run shown, which folder, which kinds of texture file.

The dialog only gathers the choices; :meth:`MainWindow.export_chain` sends them to a worker, so
automation and tests export without it. Every kind holds every format.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from mipview.core.specs import StrategySpec
from mipview.io import containers


class ExportDialog(QDialog):
    def __init__(self, specs: list[StrategySpec], shown: str, folder: str = "",
                 parent: QWidget | None = None,
                 offered: tuple[str, ...] = containers.EXPORT_KINDS) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export chain")
        form = QFormLayout(self)
        self.strategy_combo = QComboBox()
        for spec in specs:
            self.strategy_combo.addItem(containers.title(spec), str(spec))
        self.strategy_combo.setCurrentIndex(max(0, self.strategy_combo.findData(shown)))
        form.addRow("Result", self.strategy_combo)
        self.folder_edit = QLineEdit(folder)
        browse = QPushButton("Browse...")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder_edit, 1)
        row.addWidget(browse)
        form.addRow("Folder", row)
        self.kind_checks: dict[str, QCheckBox] = {}
        kinds = QHBoxLayout()
        for kind in containers.EXPORT_KINDS:
            check = QCheckBox(kind.upper())
            check.setChecked(kind in offered)
            check.setEnabled(kind in offered)  # EXR holds no volumes
            check.setToolTip(f"write the chain as {kind.upper()}" if kind in offered else
                             f"{kind.upper()} cannot hold this chain")
            self.kind_checks[kind] = check
            kinds.addWidget(check)
        form.addRow("Files", kinds)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        form.addRow(buttons)
        for check in self.kind_checks.values():
            check.toggled.connect(self._update_ok)
        self.folder_edit.textChanged.connect(self._update_ok)
        self._update_ok()

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export to folder",
                                                  self.folder_edit.text())
        if folder:
            self.folder_edit.setText(folder)

    def _update_ok(self) -> None:
        self.ok_button.setEnabled(bool(self.folder().strip() and self.kinds()))

    def folder(self) -> str:
        return self.folder_edit.text()

    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k, c in self.kind_checks.items() if c.isEnabled() and c.isChecked())

    def spec(self) -> str:
        return str(self.strategy_combo.currentData())
