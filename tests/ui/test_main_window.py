"""The window end to end on lavapipe: open, run, views hold the worker's data, live mode,
unsupported strategies, bad files, screenshot."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QImage
from PySide6.QtWidgets import QMessageBox

from mipview.check import compare
from mipview.check.reference import reference_pyramid
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from mipview.gpu.strategies import auto
from mipview.gpu.strategies.base import OptionSpec, Strategy
from mipview.ui.messages import DeviceReady
from mipview.ui.views.heatmap_view import format_value

WAIT_MS = 60_000

ROOT = Path(__file__).resolve().parents[2]
SPECS = [StrategySpec("blit"), StrategySpec("per-level")]


def open_and_wait(qtbot, window, path):
    with qtbot.waitSignal(window.sigImageOpened, timeout=WAIT_MS) as blocker:
        window.open_image(str(path))
    return blocker.args[0]


def send_reply(qtbot, window, msg, worker=None):
    """Send ``msg`` as ``worker`` (default: the GPU worker) sends a reply, and wait until the
    window has shown it (replies that come together are shown one per turn)."""
    (worker or window.worker).sigReply.emit(msg)
    qtbot.waitUntil(lambda: not window.replies.pending(), timeout=WAIT_MS)


def run_and_wait(qtbot, window, specs=SPECS, repeat=4):
    """Run and collect what the window showed, in order."""
    window.panel.repeat_spin.setValue(repeat)
    got = {}
    errors_before = len(window.errors)
    window.sigRunShown.connect(lambda o: got.setdefault("output", o))
    window.sigAnalysisShown.connect(lambda a: got.setdefault("analysis", a))
    window.sigStatsShown.connect(lambda s: got.__setitem__("stats", s))
    with qtbot.waitSignal(window.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == window.latest_job("run")):
        job = window.run(False, specs)
        assert job is not None
    assert window.errors[errors_before:] == []
    return got


def test_open_by_api_and_by_drop(qtbot, make_window, small_png, tmp_path):
    w = make_window()
    opened = open_and_wait(qtbot, w, small_png)
    assert (opened.source.width, opened.source.height) == (64, 48)
    levels = w.pyramid.panel_levels("source")
    assert len(levels) == 1 and levels[0].shape == (48, 64, 4)
    assert "64x48" in w.image_label.text()
    assert w.recent_files()[0] == str(small_png)

    other = tmp_path / "dropped.png"
    other.write_bytes(small_png.read_bytes())
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(other))])
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(w.sigImageOpened, timeout=WAIT_MS) as blocker:
        w.dropEvent(drop)
    assert blocker.args[0].path == str(other)
    assert drop.isAccepted()


def test_settings_are_written_at_close_not_mid_session(qtbot, make_window, small_png,
                                                       temp_settings, tmp_path):
    """An open changes the recent files, an export the folder; neither writes the settings
    file then (its sync is an fsync on the UI thread), and both are in it after close."""
    from mipview.ui.main_window import make_settings

    w = make_window()
    ini = Path(make_settings().fileName())
    w.save_settings()  # a file to compare with
    before = ini.read_bytes()
    open_and_wait(qtbot, w, small_png)
    w._export_folder = str(temp_settings)
    shader = tmp_path / "mine.comp"
    shader.write_text("#version 450\nvoid main() {}\n")
    w.shaders.add(shader)
    qtbot.wait(50)  # a QSettings write would sync itself in a turn of the event loop
    assert ini.read_bytes() == before
    assert w.recent_files()[0] == str(small_png)

    w.save_settings()
    again = make_settings()
    assert again.value("recent")[0] == str(small_png)
    assert again.value("export/folder") == str(temp_settings)
    assert again.value("shaders/paths") in ([str(shader)], str(shader))


def test_run_views_hold_worker_data(qtbot, make_window, small_png, tmp_path):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    got = run_and_wait(qtbot, w)
    out, analysis, stats = got["output"], got["analysis"], got["stats"]
    mip = out.mip
    assert mip.validation_messages == ()
    assert stats.final and stats.validation_messages == ()
    assert [str(r.spec) for r in mip.results] == ["blit", "per-level"]

    # pyramid view: exactly the arrays the worker returned
    for res in mip.results:
        shown = w.pyramid.panel_levels(str(res.spec))
        assert len(shown) == len(res.levels) == 7
        for a, b in zip(shown, res.levels, strict=True):
            assert a is b
        items = w.pyramid.panel(str(res.spec)).items
        assert np.array_equal(items[1].image, res.levels[1])

    # heatmap table: exactly compare's numbers against the exact reference
    fmt = mip.fmt
    assert fmt is Format.UNORM
    ref = reference_pyramid(out.level0, fmt)
    for res in mip.results:
        w.heatmap.select(str(res.spec))
        expected = compare.level_errors(list(res.levels), ref, fmt)
        assert w.heatmap.table.rowCount() == len(expected)
        for row, e in enumerate(expected):
            cell = w.heatmap.table.item(row, 2)
            assert cell.data(Qt.ItemDataRole.UserRole) == e.max_error
            assert cell.text() == format_value(e.max_error, fmt)
            assert w.heatmap.table.item(row, 3).data(Qt.ItemDataRole.UserRole) == e.mean_error
            psnr = w.heatmap.table.item(row, 4).data(Qt.ItemDataRole.UserRole)
            assert psnr == e.psnr or (math.isinf(psnr) and math.isinf(e.psnr))
        worst = int(np.argmax([e.max_error for e in expected]))
        assert w.heatmap.worst_level == worst
        assert w.heatmap.table.selectionModel().selectedRows()[0].row() == worst
        m = compare.error_map(res.levels[worst], ref[worst], fmt)
        assert np.array_equal(w.heatmap.image.image, m)
    # per-level is exact: within 2 LSB of the chain; the map shows it
    per_level = next(e for e in analysis.errors if e.spec.name == "per-level")
    assert per_level.within_tolerance

    # strategy against strategy (computed by the compare worker)
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS):
        w.heatmap.select("blit", "per-level")
    expected = compare.level_errors(list(mip.results[0].levels), list(mip.results[1].levels), fmt)
    got_max = [w.heatmap.table.item(r, 2).data(Qt.ItemDataRole.UserRole)
               for r in range(w.heatmap.table.rowCount())]
    assert got_max == [e.max_error for e in expected]

    # chart: bars are the medians of the timing data
    assert [str(s) for s, _ in stats.timings] == ["blit", "per-level"]
    assert all(len(t.total.samples_us) == 4 for _, t in stats.timings)
    assert w.chart.medians() == [t.total.median for _, t in stats.timings]
    assert "llvmpipe" in w.chart.plot.titleLabel.text
    w.chart.breakdown_check.setChecked(True)
    per_level_t = stats.timings[1][1]
    assert len(per_level_t.marks) == 6
    assert float(w.chart.stack[0].opts["height"][1]) == per_level_t.marks[0][1].median

    csv_path = tmp_path / "t.csv"
    w.chart.export_csv(str(csv_path))
    rows = list(csv.DictReader(csv_path.open()))
    totals = [r for r in rows if r["region"] == "total"]
    assert [float(r["median_us"]) for r in totals] == pytest.approx(w.chart.medians(), abs=1e-3)
    assert w.chart.export_png(str(tmp_path / "chart.png"))
    assert QImage(str(tmp_path / "chart.png")).width() > 100

    # hover readout: level 1 of blit, texel (2, 1)
    panel = w.pyramid.panel("blit")
    r1 = panel.rects[1]
    level, x, y = w.pyramid.texel_at(panel, QPointF(r1.x() + 2.5, r1.y() + 1.5))
    assert (level, x, y) == (1, 2, 1)
    text = w.pyramid.readout_text(panel, level, x, y)
    assert f"{int(mip.results[0].levels[1][1, 2, 0]):3d}" in text and "level 1 (32x24)" in text
    assert "run" in w.run_label.text()


def test_live_profile_updates_then_stops(qtbot, make_window, small_png, monkeypatch):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    # the device's title is the one live statistics bring: their updates never set it again,
    # which would widen its plot's column and paint the chart twice in one turn
    title = w.chart.plot.titleLabel.text
    assert w.caps.name in title and w.caps.driver in title
    titled = []
    monkeypatch.setattr(w.chart.plot, "setTitle", titled.append)
    updates = []
    w.sigStatsShown.connect(updates.append)
    job = w.run(True, SPECS)
    qtbot.waitUntil(lambda: len(updates) >= 4, timeout=WAIT_MS)
    assert w.is_busy() and w.panel.stop_button.isEnabled()
    assert w.chart.updates >= 4
    assert not any(u.final for u in updates)
    assert titled == [] and w.chart.plot.titleLabel.text == title
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS, check_params_cb=lambda j: j == job):
        w.panel.stop_button.click()
    assert updates[-1].final and updates[-1].validation_messages == ()
    assert w.chart.medians() == [t.total.median for _, t in updates[-1].timings]
    assert not w.is_busy() and w.panel.run_button.isEnabled()


class _Fake(Strategy):
    name = "fake-test"
    title = "Fake strategy"
    description = "registered by a test"
    options = (OptionSpec("mode", ("a", "b"), "a", "which mode"),)

    @classmethod
    def unsupported_reason(cls, caps, fmt, width, height, layers=1, options=None):
        return f"fake strategy needs mode b (got {options['mode']})" \
            if options and options["mode"] == "a" else None


def test_unsupported_strategy_is_disabled_with_reason(qtbot, make_window, small_png, monkeypatch):
    monkeypatch.setitem(strategies.REGISTRY, "fake-test", _Fake)
    monkeypatch.setattr(strategies.REGISTRY["blit"], "unsupported_reason",
                        classmethod(lambda cls, *a, **k: "no blits on this test device"))
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    blit = w.panel.rows["blit"]
    assert not blit.check.isEnabled()
    assert "no blits on this test device" in blit.check.toolTip()
    fake = w.panel.rows["fake-test"]
    assert not fake.check.isEnabled() and "needs mode b" in fake.check.toolTip()
    fake.combos["mode"].setCurrentText("b")  # another option makes it runnable
    assert fake.check.isEnabled()
    fake.check.setChecked(True)
    assert StrategySpec("fake-test", (("mode", "b"),)) in w.panel.specs()
    assert all(s.name != "blit" for s in w.panel.specs())


def test_strategy_tooltip_says_what_auto_becomes(qtbot, make_window, small_png, monkeypatch):
    # a table for this lavapipe device; the 64x48 image has even sides: bilinear applies
    monkeypatch.setattr(auto, "TABLE", (auto.Entry(
        "cpu", "single-pass", "load", "bilinear", (Format.UNORM,), "below 4096²", "a test row"),))
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    single = w.panel.rows["single-pass"]
    assert single.combos["load"].currentText() == "auto"
    tip = single.check.toolTip()
    assert "auto load=bilinear: cpu, unorm, below 4096²: a test row" in tip
    single.combos["load"].setCurrentText("texel")  # asked explicitly: nothing to resolve
    assert "auto load=" not in single.check.toolTip()


@pytest.mark.parametrize("kind", ["empty", "truncated", "not-an-image"])
def test_bad_file_shows_error_and_window_still_works(qtbot, make_window, small_png, tmp_path,
                                                     monkeypatch, kind):
    shown = []
    monkeypatch.setattr(QMessageBox, "critical",
                        staticmethod(lambda parent, title, text, *a, **k: shown.append(text)))
    bad = tmp_path / f"bad_{kind}.png"
    data = small_png.read_bytes()
    bad.write_bytes({"empty": b"", "truncated": data[: len(data) // 3],
                     "not-an-image": b"hello, I am text\n" * 20}[kind])
    w = make_window()
    with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS):
        w.open_image(str(bad))
    assert len(shown) == 1 and str(bad) in shown[0]
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    assert w.opened is None
    opened = open_and_wait(qtbot, w, small_png)
    assert opened.source.width == 64
    if kind == "empty":  # one full run after a failure is enough
        got = run_and_wait(qtbot, w, [StrategySpec("per-level")], repeat=1)
        assert got["output"].mip.validation_messages == ()


def test_device_switch_recreates_context(qtbot, make_window, small_png):
    w = make_window()
    first = w.worker.ctx
    with qtbot.waitSignal(w.worker.sigReply, timeout=WAIT_MS,
                          check_params_cb=lambda m: isinstance(m, DeviceReady)):
        w.set_device(str(w.caps.index))
    assert w.worker.ctx is not first and w.caps is not None
    open_and_wait(qtbot, w, small_png)
    got = run_and_wait(qtbot, w, [StrategySpec("blit")], repeat=1)
    assert got["output"].mip.device.name == w.caps.name


def test_screenshot_after_run_is_not_blank(qtbot, make_window, small_png):
    w = make_window()
    w.show()
    open_and_wait(qtbot, w, small_png)
    run_and_wait(qtbot, w, repeat=3)
    qtbot.wait(100)
    out = ROOT / "test-artifacts" / "ui_main_window.png"
    out.parent.mkdir(exist_ok=True)
    assert w.screenshot(str(out))
    img = QImage(str(out)).convertToFormat(QImage.Format.Format_RGBA8888)
    assert img.width() >= 800 and img.height() >= 600
    arr = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.width(), 4)
    assert arr[..., :3].std() > 20
    assert len(np.unique(arr[::4, ::4, :3].reshape(-1, 3), axis=0)) > 200


def test_gui_automation_writes_screenshot_and_quits(tmp_path, small_png):
    import os
    import subprocess
    import sys

    out = tmp_path / "auto.png"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "cfg"), QT_QPA_PLATFORM="offscreen")
    res = subprocess.run([sys.executable, "-m", "mipview", "gui", str(small_png), "--run",
                          "blit,per-level", "--screenshot", str(out), "--quit"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    img = QImage(str(out))
    assert img.width() == 1600 and img.height() == 1000


def test_qt_refcount_workaround_keeps_none_alive(qapp):
    import sys

    from PySide6.QtCore import QObject

    from mipview.ui import qt_compat

    obj = QObject()
    for _ in range(20000):  # without the workaround, 6.12 on 3.11 aborts well before this
        obj.setObjectName("x")
    assert sys.getrefcount(None) > 1000
    assert qt_compat.pin_singletons() == (sys.version_info < (3, 12) and qt_compat._PINNED)


def test_pinned_pyside_does_not_leak_none(qapp):
    """pyproject pins PySide6 < 6.12 because 6.12.0 leaks; the installed one must be clean, so
    the qt_compat guard stays inactive."""
    import PySide6

    from mipview.ui import qt_compat

    version = tuple(int(p) for p in PySide6.__version__.split(".")[:2])
    if version >= (6, 12):
        pytest.skip(f"PySide6 {PySide6.__version__} is outside the pinned range")
    assert not qt_compat.leaks_none()
    assert not qt_compat._PINNED
