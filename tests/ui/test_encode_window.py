"""The Heatmaps tab's Encode: a Run's result block-compressed in the CPU worker, level by level
with progress, stoppable, its codec and total errors in the table and the map choice, and the
encoder's CPU time per level in the chart."""

from __future__ import annotations

import sys
import threading

import pytest
from PySide6.QtCore import QPoint, Qt

from mipview.core.specs import StrategySpec
from mipview.runs import encode as encoding
from mipview.runs.encode import encode_result, parse_codecs
from mipview.ui.views.error_table import BLOCK_COLUMN, CODEC_COLUMN, TOTAL_COLUMN
from tests.ui.test_main_window import WAIT_MS, open_and_wait

PER_LEVEL = StrategySpec("per-level")


def _run_per_level(qtbot, w, path) -> None:
    """Open ``path`` and Run per-level once with the Run button."""
    open_and_wait(qtbot, w, path)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    w.panel.set_specs([PER_LEVEL])
    w.panel.repeat_spin.setValue(0)
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        qtbot.mouseClick(w.panel.run_button, Qt.MouseButton.LeftButton)
    assert w.errors == [] and w.heatmap.strategy() == str(PER_LEVEL)


def _click_encode(qtbot, w, codec: str) -> None:
    bar = w.heatmap.encode_bar
    bar.codec_combo.setCurrentText(codec)
    qtbot.mouseClick(bar.button, Qt.MouseButton.LeftButton)


def _encode_and_wait(qtbot, w, codec: str):
    with qtbot.waitSignal(w.sigEncoded, timeout=WAIT_MS) as got:
        _click_encode(qtbot, w, codec)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    return got.args[0]


def _column(table, col: int) -> list:
    return [table.item(r, col).data(Qt.ItemDataRole.UserRole) for r in range(table.rowCount())]


def test_encode_shows_codec_and_total_errors_per_level(qtbot, make_window, small_png):
    w = make_window()
    _run_per_level(qtbot, w, small_png)
    res = w.output.mip.results[0]
    levels = len(res.levels)
    assert levels == 7  # 64x48 down to 1x1
    table = w.heatmap.table
    assert table.isColumnHidden(CODEC_COLUMN) and w.heatmap.map_combo.findData("total") < 0
    progress = []
    w.sigEncodeProgress.connect(lambda p: progress.append(
        (p.done, w.progress.value(), w.progress.maximum())))

    out = _encode_and_wait(qtbot, w, "bc1")

    # the bar moved once per level, through every level
    assert progress == [(i, i, levels) for i in range(1, levels + 1)]
    want = encode_result(res, res.levels[0], w.output.mip.fmt, parse_codecs("bc1")[0]).figures
    assert [f.codec.max_error for f in want] != [f.total.max_error for f in want]
    assert not table.isColumnHidden(CODEC_COLUMN) and table.rowCount() == levels
    assert _column(table, CODEC_COLUMN) == [f.codec.max_error for f in want]
    assert _column(table, TOTAL_COLUMN) == [f.total.max_error for f in want]
    assert _column(table, BLOCK_COLUMN) == [f.worst_block for f in want]
    assert "as bc1: worst total" in w.heatmap.summary.text()
    # the maps: one choice each, the total map of the level selected shown
    combo = w.heatmap.map_combo
    combo.setCurrentIndex(combo.findData("total"))
    qtbot.waitUntil(lambda: "total error as bc1" in w.heatmap.plot.titleLabel.text,
                    timeout=WAIT_MS)
    assert out.maps[0][1].shape == (48, 64) and out.maps[0][1].max() == want[0].total.max_error
    # the chart: the encoder's time per level, a plot of its own labelled CPU
    cpu = w.chart.cpu
    assert cpu.plot.scene() is not None and cpu.seconds == out.chain.seconds
    assert len(cpu.seconds) == levels and "CPU" in cpu.plot.titleLabel.text
    assert w.errors == []

    # the next Run's result is not encoded: its figures and maps go, and the CPU plot
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        qtbot.mouseClick(w.panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: table.rowCount() == levels, timeout=WAIT_MS)
    assert table.isColumnHidden(CODEC_COLUMN) and combo.findData("total") < 0
    assert combo.currentData() is None and cpu.plot.scene() is None


def test_stop_ends_an_encode_at_the_next_level(qtbot, make_window, small_png, monkeypatch):
    w = make_window()
    _run_per_level(qtbot, w, small_png)
    levels = len(w.output.mip.results[0].levels)
    entered, release = threading.Event(), threading.Event()
    calls = []
    real = encoding.encode_level

    def held(choice, level, fmt):  # the second level waits until the test lets it go
        calls.append(level.shape)
        if len(calls) == 2:
            entered.set()
            release.wait(30)
        return real(choice, level, fmt)

    monkeypatch.setattr(encoding, "encode_level", held)
    encoded, progress = [], []
    w.sigEncoded.connect(encoded.append)
    w.sigEncodeProgress.connect(lambda p: progress.append(p.done))
    bar = w.heatmap.encode_bar
    _click_encode(qtbot, w, "bc1")
    job = w.latest_job("encode")
    qtbot.waitUntil(entered.is_set, timeout=WAIT_MS)
    assert bar.button.text() == "Stop encoding" and w.is_busy()
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == job):
        qtbot.mouseClick(bar.button, Qt.MouseButton.LeftButton)  # Stop
        release.set()
    # it ended within the level under way (judging has checkpoints too) or right after it
    assert encoded == [] and len(calls) == 2 and progress in ([1], [1, 2])
    assert not w.is_busy() and bar.button.text() == "Encode" and w.errors == []
    assert w.heatmap.table.isColumnHidden(CODEC_COLUMN)

    # the window still works: Run > Encode result encodes it whole
    monkeypatch.setattr(encoding, "encode_level", real)
    action = next(a for a in w.menuBar().actions() if a.text() == "&Run").menu().actions()
    with qtbot.waitSignal(w.sigEncoded, timeout=WAIT_MS) as got:
        next(a for a in action if a.text() == "&Encode result").trigger()
    assert len(got.args[0].chain.figures) == levels
    assert w.tabs.currentWidget() is w.heatmap


def test_missing_encoder_is_a_status_line(qtbot, make_window, small_png, monkeypatch,
                                          dialogs):
    w = make_window()
    _run_per_level(qtbot, w, small_png)
    installed = pytest.importorskip("etcpak")
    monkeypatch.setitem(sys.modules, "etcpak", None)  # its import fails
    _click_encode(qtbot, w, "bc1")
    assert "etcpak" in w.statusBar().currentMessage()
    assert w.latest_job("encode") == -1 and not w.is_busy() and dialogs == []
    # a codec that cannot take this result is bad input: a dialog, nothing sent
    _click_encode(qtbot, w, "bc4")
    assert [t for t, _ in dialogs] == ["Cannot encode"] and w.latest_job("encode") == -1
    monkeypatch.setitem(sys.modules, "etcpak", installed)
    out = _encode_and_wait(qtbot, w, "bc1")
    assert out.chain.choice.label == "bc1" and w.errors[-1].title == "Cannot encode"


def test_flip_ssim_box_asks_for_perceptual_figures(qtbot, make_window, small_png,
                                                   monkeypatch):
    from mipview.check import perceptual

    pytest.importorskip("flip_evaluator")
    made = []
    real = perceptual.compare
    monkeypatch.setattr(perceptual, "compare", lambda *a: made.append(1) or real(*a))
    w = make_window()
    _run_per_level(qtbot, w, small_png)
    box = w.heatmap.encode_bar.perceptual_box
    assert not box.isChecked() and "tens of seconds" in box.toolTip()
    off = _encode_and_wait(qtbot, w, "bc1")
    assert made == [] and all(f.perceptual is None for f in off.chain.figures)
    assert not any("perceptual" in n for n in off.chain.notes)

    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(4, box.height() // 2))
    assert box.isChecked()
    on = _encode_and_wait(qtbot, w, "bc1")
    levels = len(on.chain.figures)
    assert len(made) == 3 * levels and all(f.perceptual is not None for f in on.chain.figures)
    assert [f.total for f in on.chain.figures] == [f.total for f in off.chain.figures]
    assert w.errors == []
