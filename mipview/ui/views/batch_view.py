"""The Batch tab: many images of different sizes mipmapped by each scheduling way at once.

Sources are a folder, several files (dropped on the window) or N seeded synthetic images
(``mipview.io.synthetic``). The run happens in the GPU worker (``mipview.gpu.batch``);
this widget only builds the request and shows the :class:`BatchResult`: a bar chart of each
way's median time, a table of the ways (dispatches, expansion memory, bit-identical), a table of
the images (size, levels), and the pyramid of the image clicked in a :class:`PyramidView`.

Signals
-------
sigRun(object)   Run pressed: :meth:`BatchView.fields` (the window adds job and format)
sigStop()        Stop pressed
"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mipview.gpu.batch import WAYS, BatchResult, unsupported_reason
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.io.containers import SUFFIXES
from mipview.ui.views.pyramid_view import PyramidView
from mipview.ui.views.timing_chart import PALETTE, time_bar_plot

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".gif", ".tga", ".webp",
                  *SUFFIXES}
WAY_COLUMNS = ("way", "median us", "dispatches", "expansion bytes", "identical")
IMAGE_COLUMNS = ("image", "size", "levels")


def expand_sources(paths: list[str]) -> list[str]:
    """Files as given; folders replaced by their image files (sorted, not recursive)."""
    out: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += [str(f) for f in sorted(p.iterdir())
                    if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES]
        else:
            out.append(str(p))
    return out


def _item(text: str, value: object = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setData(Qt.ItemDataRole.UserRole, value)
    return item


class BatchView(QWidget):
    sigRun = Signal(object)
    sigStop = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.paths: list[str] = []
        self.result: BatchResult | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)

        top = QHBoxLayout()
        src = QFormLayout()
        files = QHBoxLayout()
        self.open_button = QPushButton("Open folder...")
        self.open_button.clicked.connect(self._open_folder)
        self.clear_button = QPushButton("Synthetic")
        self.clear_button.setToolTip("forget the files: run seeded synthetic images")
        self.clear_button.clicked.connect(lambda: self.set_sources([]))
        self.source_label = QLabel("")
        files.addWidget(self.open_button)
        files.addWidget(self.clear_button)
        files.addWidget(self.source_label, 1)
        src.addRow("Images", files)
        synth = QHBoxLayout()
        self.count_spin = QSpinBox()
        self.count_spin.setRange(1, 100000)
        self.count_spin.setValue(100)
        self.max_side_spin = QSpinBox()
        self.max_side_spin.setRange(1, 16384)
        self.max_side_spin.setValue(512)
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 1 << 30)
        for label, w in (("count", self.count_spin), ("max side", self.max_side_spin),
                         ("seed", self.seed_spin)):
            synth.addWidget(QLabel(label))
            synth.addWidget(w)
        src.addRow("Synthetic", synth)
        top.addLayout(src, 1)

        runs = QFormLayout()
        ways = QHBoxLayout()
        self.way_checks: dict[str, QCheckBox] = {}
        for way in WAYS:
            check = QCheckBox(way)
            check.setChecked(True)
            self.way_checks[way] = check
            ways.addWidget(check)
        runs.addRow("Ways", ways)
        buttons = QHBoxLayout()
        self.repeat_spin = QSpinBox()
        self.repeat_spin.setRange(0, 100000)
        self.repeat_spin.setValue(10)
        self.repeat_spin.setToolTip("timed runs per way (0: generate and compare only)")
        self.run_button = QPushButton("Run batch")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.run_button.clicked.connect(lambda: self.sigRun.emit(self.fields()))
        self.stop_button.clicked.connect(self.sigStop.emit)
        buttons.addWidget(QLabel("timed runs"))
        buttons.addWidget(self.repeat_spin)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.stop_button)
        runs.addRow(buttons)
        top.addLayout(runs)
        lay.addLayout(top)

        split = QSplitter(Qt.Orientation.Horizontal)
        left = QSplitter(Qt.Orientation.Vertical)
        self.plot = pg.PlotWidget(background="#1e1f22")
        self.bars = time_bar_plot(self.plot.getPlotItem(), "GPU time per batch",
                                  "median GPU time per way")
        left.addWidget(self.plot)
        self.ways_table = self._table(WAY_COLUMNS)
        left.addWidget(self.ways_table)
        self.images_table = self._table(IMAGE_COLUMNS)
        self.images_table.itemSelectionChanged.connect(self._show_selected)
        left.addWidget(self.images_table)
        left.setSizes([220, 120, 300])
        split.addWidget(left)
        self.pyramid = PyramidView()
        split.addWidget(self.pyramid)
        split.setSizes([450, 700])
        lay.addWidget(split, 1)
        self.summary = QLabel("")
        lay.addWidget(self.summary)
        self.set_sources([])

    @staticmethod
    def _table(columns: tuple[str, ...]) -> QTableWidget:
        t = QTableWidget(0, len(columns))
        t.setHorizontalHeaderLabels(list(columns))
        t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        t.verticalHeader().setVisible(False)
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        return t

    # --- sources and request ----------------------------------------------------------------
    def set_sources(self, paths: list[str]) -> None:
        """Image files (folders expanded) for the next run; empty: synthetic images."""
        self.paths = expand_sources(paths)
        synthetic = not self.paths
        for w in (self.count_spin, self.max_side_spin, self.seed_spin):
            w.setEnabled(synthetic)
        self.source_label.setText("synthetic (seeded, heavy-tailed sizes)" if synthetic
                                  else f"{len(self.paths)} file(s)")

    def _open_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Batch folder")
        if folder:
            self.set_sources([folder])

    def ways(self) -> list[str]:
        return [w for w, c in self.way_checks.items() if c.isChecked() and c.isEnabled()]

    def fields(self) -> dict[str, object]:
        """The BatchRequest fields of the choices shown (all but the job and the format)."""
        return {"ways": tuple(self.ways()), "paths": tuple(self.paths),
                "synthetic": self.count_spin.value(), "max_side": self.max_side_spin.value(),
                "seed": self.seed_spin.value(), "repeat": self.repeat_spin.value()}

    def update_support(self, caps: DeviceCaps | None) -> None:
        for way, check in self.way_checks.items():
            reason = unsupported_reason(caps, way) if caps is not None else "no Vulkan device"
            check.setEnabled(reason is None)
            check.setToolTip(f"Unsupported here: {reason}" if reason else "")

    def set_busy(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)

    # --- result -----------------------------------------------------------------------------
    def medians(self) -> list[float | None]:
        """Median µs per way of the result shown, in the result's order (None: not timed)."""
        if self.result is None:
            return []
        return [w.timing.total.median if w.timing is not None else None
                for w in self.result.ways]

    def set_result(self, result: BatchResult) -> None:
        self.result = result
        ways = result.ways
        heights = [m if m is not None else 0.0 for m in self.medians()]
        self.bars.setOpts(x=list(range(len(ways))), height=heights, width=0.6,
                          brushes=[pg.mkBrush(PALETTE[i % len(PALETTE)]) for i in range(len(ways))])
        self.plot.getAxis("bottom").setTicks([[(i, w.way) for i, w in enumerate(ways)]])
        self.plot.setTitle(f"median GPU time per way — {result.device.name}")
        self.plot.autoRange()

        self.ways_table.setRowCount(len(ways))
        for row, (w, m) in enumerate(zip(ways, self.medians(), strict=True)):
            cells = [_item(w.way), _item("-" if m is None else f"{m:.1f}", m),
                     _item(str(w.dispatches), w.dispatches),
                     _item(f"{w.expansion_bytes:,}", w.expansion_bytes),
                     _item({True: "yes", False: "NO", None: "-"}[w.identical], w.identical)]
            cells[2].setToolTip(w.dispatch_detail)
            for col, item in enumerate(cells):
                self.ways_table.setItem(row, col, item)

        self.images_table.blockSignals(True)
        self.images_table.setRowCount(len(result.images))
        for row, info in enumerate(result.images):
            for col, item in enumerate((_item(info.name), _item(f"{info.width}x{info.height}"),
                                        _item(str(info.levels), info.levels))):
                self.images_table.setItem(row, col, item)
        self.images_table.blockSignals(False)
        texels = sum(i.width * i.height for i in result.images)
        skipped = "; ".join(f"{w}: {r}" for w, r in result.skipped)
        timed = any(w.timing is not None for w in ways)
        clock = "" if not timed else "; " + (
            result.clock.label() if result.clock is not None
            else f"clock: not readable on {result.device.name}")
        self.summary.setText(f"{len(result.images)} images, {texels:,} level-0 texels, "
                             f"{result.fmt.label}, packed {result.packed_bytes:,} bytes in "
                             f"{result.pages} page(s)" + (f"; skipped {skipped}" if skipped else "")
                             + clock)
        if result.images:
            self.show_image(0)
        else:
            self.pyramid.set_pyramids([])

    def show_image(self, index: int) -> None:
        """Show image ``index``'s chain in the pyramid viewer (and select its row)."""
        if self.result is None or not 0 <= index < len(self.result.levels):
            return
        self.images_table.blockSignals(True)
        self.images_table.selectRow(index)
        self.images_table.blockSignals(False)
        info = self.result.images[index]
        self.pyramid.set_pyramids([(f"batch:{index}", f"{info.name} ({info.width}x{info.height})",
                                    self.result.levels[index], self.result.fmt)])

    def _show_selected(self) -> None:
        rows = self.images_table.selectionModel().selectedRows()
        if rows:
            self.show_image(rows[0].row())
