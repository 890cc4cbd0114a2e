"""The Heatmaps tab's table of figures per level: size, max and mean error, PSNR, where the worst
texel is, (float formats) the non-finite and negative texels (filled by
:mod:`mipview.ui.views.nonfinite_report`), and once the result is encoded the codec's and the
total max error with the block of the worst total texel (:meth:`ErrorTable.fill_encoded`). Units: LSB for 8-bit formats, relative error for
float formats. The worst level is bold and tinted, so it is found at a glance."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from mipview.check.codec_error import CodecLevelError
from mipview.check.compare import LevelError
from mipview.core.formats import Format

COLUMNS = ("level", "size", "max", "mean", "PSNR dB", "worst at (x, y, ch)",
           "NaN / ±Inf", "negative", "codec max", "total max", "worst block (layer, row, col)")
#: float formats only (an integer texel holds neither): the strategy's texels per level holding
#: NaN or +-Inf, beside the exact reduction's where level 0 has some (nonfinite.Propagation)
NONFINITE_COLUMN = COLUMNS.index("NaN / ±Inf")
#: float formats only: the strategy's texels per level holding a finite negative value
NEGATIVE_COLUMN = COLUMNS.index("negative")
#: an encoded result only (Encode): the codec's loss, decoded against the level encoded
CODEC_COLUMN = COLUMNS.index("codec max")
#: an encoded result only: the decoded level against the exact reference (what a player sees)
TOTAL_COLUMN = COLUMNS.index("total max")
#: an encoded result only: where the worst total texel is, in the codec's blocks
BLOCK_COLUMN = COLUMNS.index("worst block (layer, row, col)")
ENCODED_COLUMNS = (CODEC_COLUMN, TOTAL_COLUMN, BLOCK_COLUMN)
COLUMN_TIPS = {
    NONFINITE_COLUMN: "Texels of this result holding NaN, +Inf or -Inf in any channel (each "
                      "counted once; its kinds in brackets). Where level 0 has some, the exact "
                      "reduction's count follows where it differs.",
    NEGATIVE_COLUMN: "Texels of this result holding a finite negative value in any channel "
                     "(e.g. a lobed filter's ringing below 0); NaN and Inf are not counted "
                     "here.",
    CODEC_COLUMN: "Encoded result: the decoded level against the level that was encoded (the "
                  "codec's own loss), max over the channels the codec holds.",
    TOTAL_COLUMN: "Encoded result: the decoded level against the exact reference (what a "
                  "player sees); at most filter + codec per channel.",
    BLOCK_COLUMN: "Encoded result: the block holding the worst total texel (layer, block row, "
                  "block column).",
}


def format_value(v: float, fmt: Format) -> str:
    if not math.isfinite(v):
        return str(v)
    return f"{v:.3f}" if not fmt.is_float else f"{v:.3e}"


def format_psnr(v: float) -> str:
    return "inf" if v == math.inf else f"{v:.2f}"


def cell(text: str, value: object) -> QTableWidgetItem:
    """A right-aligned table cell holding ``value`` (sorting, tests) under its text."""
    item = QTableWidgetItem(text)
    item.setData(Qt.ItemDataRole.UserRole, value)
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def worst_level(errors: list[LevelError]) -> int:
    """The level of the largest error; a non-finite one counts as the largest."""
    return int(np.argmax([e.max_error if math.isfinite(e.max_error) else math.inf
                          for e in errors])) if errors else 0


class ErrorTable(QTableWidget):
    """One row per level; selecting a row shows that level's map."""

    def __init__(self) -> None:
        super().__init__(0, len(COLUMNS))
        self.setHorizontalHeaderLabels(list(COLUMNS))
        for col, tip in COLUMN_TIPS.items():
            self.horizontalHeaderItem(col).setToolTip(tip)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setVisible(False)
        # a scroll bar that comes and goes as the rows are cleared and filled again re-lays out
        # and repaints the whole tab twice per comparison (measured on lavapipe)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.show_count_columns(False)
        self.fill_encoded(None, None)

    def show_count_columns(self, shown: bool) -> None:
        for col in (NONFINITE_COLUMN, NEGATIVE_COLUMN):
            self.setColumnHidden(col, not shown)

    def fill(self, errors: list[LevelError], worst: int, fmt: Format) -> None:
        """A row per level of ``errors``, row ``worst`` marked where it has an error; the count
        columns shown for float formats, filled later (they are counted in the pixel pool)."""
        self.blockSignals(True)
        self.show_count_columns(fmt.is_float)
        self.setRowCount(len(errors))
        bold = QFont()
        bold.setBold(True)
        for row, e in enumerate(errors):
            _, y, x, ch = e.worst
            cells = [(str(e.level), e.level), (f"{e.width}x{e.height}", None),
                     (format_value(e.max_error, fmt), e.max_error),
                     (format_value(e.mean_error, fmt), e.mean_error),
                     (format_psnr(e.psnr), e.psnr), (f"({x}, {y}, {ch})", None)]
            for col, (text, value) in enumerate(cells):
                item = cell(text, value)
                if row == worst and e.max_error > 0:
                    item.setFont(bold)
                    item.setBackground(QBrush(QColor(150, 40, 40, 110)))
                self.setItem(row, col, item)
        self.blockSignals(False)

    def fill_encoded(self, figures: Sequence[CodecLevelError] | None,
                     fmt: Format | None) -> None:
        """The codec's and the total max error and the worst block of each level (``figures``
        of the result shown encoded); None: no encoded result, the columns hidden."""
        for col in ENCODED_COLUMNS:
            self.setColumnHidden(col, figures is None)
        if figures is None or fmt is None:
            return
        self.blockSignals(True)
        for row, f in enumerate(figures[:self.rowCount()]):
            for col, (text, value) in zip(ENCODED_COLUMNS, (
                    (format_value(f.codec.max_error, fmt), f.codec.max_error),
                    (format_value(f.total.max_error, fmt), f.total.max_error),
                    (str(f.worst_block), f.worst_block)), strict=True):
                self.setItem(row, col, cell(text, value))
        self.blockSignals(False)

    def selected_level(self) -> int | None:
        rows = self.selectionModel().selectedRows()
        return rows[0].row() if rows else None
