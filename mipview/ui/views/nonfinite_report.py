"""The error table's count columns of float formats, which do not overlap: per level, the
strategy's texels holding NaN or +-Inf (counted as the verdict counts them,
``nonfinite.count_nonfinite``, beside the exact reduction's where level 0 has some and they
differ) and its texels holding a finite negative value (the overlay's "negative" mark). They
are counted in the pixel pool, off the UI thread."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QBrush, QColor

from mipview.core.formats import Format
from mipview.core.nonfinite import NonFinite, Propagation, count_nonfinite
from mipview.ui.display import MARKS, texel_marks
from mipview.ui.views.error_table import NEGATIVE_COLUMN, NONFINITE_COLUMN, ErrorTable, cell
from mipview.ui.views.pixel_pool import PixelPool


def level_counts(levels: tuple[np.ndarray, ...]) -> list[tuple[NonFinite, int]]:
    """Per level: its non-finite texels (as the verdict counts them) and how many texels hold a
    finite negative value (the overlay's "negative" mark)."""
    return [(count_nonfinite(a), int(np.count_nonzero(texel_marks(a).get("negative", False))))
            for a in levels]


def _nonfinite_text(n: NonFinite) -> str:
    return f"{n.texels} ({n.kinds()})" if n else "0"


def nonfinite_cell(got: NonFinite, p: Propagation | None, level: int) -> str:
    """The NaN / +-Inf cell of ``level``: the strategy's count, and the exact reduction's where
    level 0 has some and they differ (kinds included)."""
    want = p.reference[level] if p is not None and level < len(p.reference) else got
    text = _nonfinite_text(got)
    return text if got == want else f"{text} (exact: {_nonfinite_text(want)})"


def count_marks(table: ErrorTable, pool: PixelPool, levels: tuple[np.ndarray, ...] | None,
                fmt: Format, propagation: Propagation | None) -> None:
    """Fill ``table``'s count columns for ``levels`` once ``pool`` has counted them;
    ``propagation``: what the exact reduction holds where level 0 has non-finite texels.
    Nothing to count in an integer format."""
    if not levels or not fmt.is_float:
        return
    texels = sum(int(np.prod(a.shape[:-1])) for a in levels)
    pool.submit("counts", texels, level_counts, (levels,),
                lambda counts: _fill_counts(table, counts, propagation))


def _fill_counts(table: ErrorTable, counts: list[tuple[NonFinite, int]],
                 propagation: Propagation | None) -> None:
    for row, (nonfinite, negative) in enumerate(counts[:table.rowCount()]):
        item = cell(nonfinite_cell(nonfinite, propagation, row), nonfinite.texels)
        kind = next((k for k, n in (("nan", nonfinite.nan), ("+inf", nonfinite.pos_inf),
                                    ("-inf", nonfinite.neg_inf)) if n), None)
        if kind is not None:
            item.setForeground(QBrush(QColor(*MARKS[kind])))
        table.setItem(row, NONFINITE_COLUMN, item)
        item = cell(str(negative), negative)
        if negative:
            item.setForeground(QBrush(QColor(*MARKS["negative"])))
        table.setItem(row, NEGATIVE_COLUMN, item)
