"""The Batch tab: a synthetic batch and a dropped set of files run in the worker through
mipview.gpu.batch; the chart, the tables and the pyramid viewer show exactly its result."""

from __future__ import annotations

import numpy as np
from PIL import Image
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from mipview.check import compare
from mipview.check.reference import reference_pyramid
from mipview.core.formats import Format, mip_count
from mipview.gpu.batch import WAYS, unsupported_reason
from mipview.io.synthetic import synthetic_batch, synthetic_sizes
from tests.ui.conftest import stamp_image

WAIT_MS = 60_000


def run_batch_and_wait(qtbot, w):
    got = []
    w.sigBatchShown.connect(got.append)
    before = len(w.errors)
    job = w.run_batch()
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS, check_params_cb=lambda j: j == job):
        pass
    assert w.errors[before:] == [] and len(got) == 1
    return got[0].result


def test_synthetic_batch(qtbot, make_window):
    w = make_window()
    view = w.batch
    view.count_spin.setValue(8)
    view.max_side_spin.setValue(64)
    view.seed_spin.setValue(3)
    view.repeat_spin.setValue(3)
    supported = [way for way in WAYS if unsupported_reason(w.caps, way) is None]
    assert view.ways() == supported
    result = run_batch_and_wait(qtbot, w)
    assert result.validation_messages == ()
    assert [way.way for way in result.ways] == supported
    assert all(way.identical for way in result.ways)

    sizes = synthetic_sizes(8, 3, 64)
    inputs = synthetic_batch(sizes, Format.UNORM, 3)
    assert [(i.width, i.height) for i in result.images] == sizes
    table = view.images_table
    assert table.rowCount() == 8
    for row, (wd, ht) in enumerate(sizes):
        assert table.item(row, 1).text() == f"{wd}x{ht}"
        assert table.item(row, 2).data(Qt.ItemDataRole.UserRole) == mip_count(wd, ht)

    # chart: one bar per way, heights = the medians of the timing data
    medians = [way.timing.total.median for way in result.ways]
    assert view.medians() == medians
    assert list(view.bars.opts["height"]) == medians
    assert view.ways_table.rowCount() == len(result.ways)
    for row, way in enumerate(result.ways):
        assert view.ways_table.item(row, 2).data(Qt.ItemDataRole.UserRole) == way.dispatches
        assert view.ways_table.item(row, 3).data(Qt.ItemDataRole.UserRole) == way.expansion_bytes

    # clicking an image shows its chain, exactly the arrays of the result
    biggest = max(range(8), key=lambda i: sizes[i][0] * sizes[i][1])
    table.selectRow(biggest)
    key = f"batch:{biggest}"
    shown = view.pyramid.panel_levels(key)
    assert len(shown) == mip_count(*sizes[biggest])
    assert all(a is b for a, b in zip(shown, result.levels[biggest], strict=True))
    assert np.array_equal(shown[0], inputs[biggest])
    ref = reference_pyramid(inputs[biggest], Format.UNORM)
    report = compare.error_report(list(shown), Format.UNORM, ref)
    assert report.within_tolerance(Format.UNORM)


def test_dropped_files_run_as_a_batch(qtbot, make_window, tmp_path):
    w = make_window()
    paths = []
    for i, (wd, ht) in enumerate([(17, 9), (32, 32), (5, 40)]):
        p = tmp_path / f"img{i}.png"
        Image.fromarray(stamp_image(wd, ht)).save(p)
        paths.append(p)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    w.dropEvent(drop)
    assert drop.isAccepted() and w.tabs.currentWidget() is w.batch
    assert w.batch.paths == [str(p) for p in paths]
    for way, check in w.batch.way_checks.items():
        check.setChecked(way == "loop")
    w.batch.repeat_spin.setValue(0)
    result = run_batch_and_wait(qtbot, w)
    assert [i.name for i in result.images] == ["img0.png", "img1.png", "img2.png"]
    assert [w_.way for w_ in result.ways] == ["loop"] and result.ways[0].timing is None
    assert w.batch.medians() == [None]
    w.batch.show_image(2)
    assert np.array_equal(w.batch.pyramid.panel_levels("batch:2")[0], stamp_image(5, 40))
