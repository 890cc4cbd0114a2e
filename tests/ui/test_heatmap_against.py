"""The Heatmaps tab's "against" list compares a result with its own other chains: its
previous version (an earlier Run of the same spec whose levels differ, as after a shader's hot
reload), the same strategy's levels in a saved run folder (``mipview run --out``), and the same
strategy run on another device ("device N": lavapipe on a context of its own here, made by the
GPU worker, the one thread that calls Vulkan). The maps are the texel differences, computed by
the compare worker; a saved run that does not fit is one message and changes nothing."""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import Qt, QThread
from PySide6.QtWidgets import QFileDialog

from mipview.check import compare
from mipview.cli.main import main
from mipview.core.specs import StrategySpec
from mipview.gpu.vulkan.context import GpuContext
from mipview.runs import against
from mipview.ui.messages import DeviceRunOutput
from mipview.ui.views.heatmap_view import DEVICE, EXACT, PICK_SAVED, PREVIOUS, SAVED, SAVED_TITLE
from tests.ui.test_main_window import WAIT_MS, open_and_wait, run_and_wait, send_reply

PER_LEVEL = StrategySpec("per-level")
BLIT = StrategySpec("blit")
#: level 2 (16x12 of the 64x48 stamp) altered at these (y, x, channel) by these many codes
ALTERED = {(1, 2, 0): 3, (5, 7, 2): 9, (11, 15, 3): 1}


@pytest.fixture(scope="module")
def saved_runs(tmp_path_factory):
    """Run folders made once (lavapipe, tiny): per-level on 13x7 and 13x9 noise."""
    root = tmp_path_factory.mktemp("saved")
    made = {size: root / size for size in ("13x7", "13x9")}
    for size, out in made.items():
        assert main(["run", "--synthetic", "noise", "--size", size, "--strategies",
                     "per-level", "--out", str(out)]) == 0
    return made


@pytest.fixture
def context_threads(monkeypatch):
    """The thread each Vulkan context is made in from now on, in order, with its name (a pool's
    thread may be gone when it is read)."""
    made = []
    real = GpuContext.__init__

    def init(self, *args, **kwargs):
        made.append((QThread.currentThread(), threading.current_thread().name))
        real(self, *args, **kwargs)

    monkeypatch.setattr(GpuContext, "__init__", init)
    return made


def _made_elsewhere(made: list[tuple[QThread, str]], window) -> list[str]:
    """The threads of ``made`` other than the window's GPU worker's, by name."""
    return [name for thread, name in made if thread is not window.thread_]


def test_the_thread_check_sees_a_context_made_off_the_worker(make_window, context_threads):
    w = make_window()
    assert len(context_threads) == 1 and _made_elsewhere(context_threads, w) == []
    with GpuContext():  # the UI thread: what the check is there to catch
        pass
    assert len(_made_elsewhere(context_threads, w)) == 1


def _choices(heat) -> list[object]:
    combo = heat.against_combo
    return [combo.itemData(i) for i in range(combo.count())]


def _altered(levels: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """A new version of ``levels``: level 2 changed at ALTERED's texels, by their deltas."""
    out = [a.copy() for a in levels]
    for (y, x, c), d in ALTERED.items():
        v = int(out[2][y, x, c])
        out[2][y, x, c] = v + d if v + d <= 255 else v - d
    return tuple(out)


def _texel_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Max over channels of |a - b| in LSB (8-bit codes), computed here from the levels."""
    return np.abs(a.astype(np.float64) - b.astype(np.float64)).max(axis=-1).astype(np.float32)


def test_previous_version_shows_exactly_the_texels_that_changed(qtbot, make_window, small_png):
    w = make_window()
    heat = w.heatmap
    open_and_wait(qtbot, w, small_png)
    run_and_wait(qtbot, w, [PER_LEVEL], repeat=0)
    assert PREVIOUS not in _choices(heat) and PICK_SAVED in _choices(heat)  # nothing before
    out = run_and_wait(qtbot, w, [PER_LEVEL], repeat=0)["output"]
    assert PREVIOUS not in _choices(heat)  # the same levels again: no new version

    # a new version of the strategy, sent as the worker sends a Run's levels
    old = out.mip.results[0]
    new = _altered(old.levels)
    send_reply(qtbot, w, replace(out, mip=replace(out.mip, results=(
        replace(old, levels=new),))))
    assert PREVIOUS in _choices(heat)
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS) as shown:
        heat.select(str(PER_LEVEL), PREVIOUS)
    assert (shown.args[0].strategy, shown.args[0].against) == (str(PER_LEVEL), PREVIOUS)
    assert len(heat.maps) == len(new) == 7
    for k, (a, b) in enumerate(zip(new, old.levels, strict=True)):
        assert np.array_equal(heat.maps[k], _texel_difference(a, b)), k
        changed = {tuple(int(i) for i in t) for t in zip(*np.nonzero(heat.maps[k]), strict=True)}
        assert changed == ({(y, x) for y, x, _ in ALTERED} if k == 2 else set()), k
    assert heat.worst_level == 2 and np.array_equal(heat.image.image, heat.maps[2])
    assert heat.table.item(2, 2).data(Qt.ItemDataRole.UserRole) == max(ALTERED.values())
    assert "vs the previous version" in heat.summary.text()
    heat.map_combo.setCurrentIndex(heat.map_combo.findData(0))  # R's signed change, new - old
    assert np.array_equal(heat.image.image,
                          compare.signed_error(new[2], old.levels[2], out.mip.fmt, 0))
    heat.map_combo.setCurrentIndex(heat.map_combo.findData(None))

    # the choice outlives a Run (a hot reload's re-run): the old levels again differ from the
    # new version, which is now their previous version
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS) as shown:
        w.worker.sigReply.emit(out)
    assert heat.against_combo.currentData() == PREVIOUS
    assert np.array_equal(heat.maps[2], _texel_difference(old.levels[2], new[2]))


def test_a_saved_run_of_the_same_image_and_strategy_is_identical(qtbot, make_window, saved_runs,
                                                                 dialogs, monkeypatch):
    folder = saved_runs["13x7"]
    w = make_window()
    heat = w.heatmap
    open_and_wait(qtbot, w, folder / "per-level" / "level_00.png")  # the run's own image
    mip = run_and_wait(qtbot, w, [PER_LEVEL], repeat=0)["output"].mip
    assert SAVED not in _choices(heat)
    # "saved run…" opens a folder dialog; its folder is read off the UI thread, then shown
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: str(folder)))
    with qtbot.waitSignals([heat.sigSavedLoaded, w.sigComparisonShown], timeout=WAIT_MS):
        heat.against_combo.setCurrentIndex(heat.against_combo.findData(PICK_SAVED))
    assert dialogs == []
    assert heat.against_combo.currentData() == SAVED
    assert heat.against_combo.currentText() == "saved run 13x7"
    assert len(heat.maps) == len(mip.results[0].levels) == 4
    assert all(m.shape == a.shape[:2] and not m.any()
               for m, a in zip(heat.maps, mip.results[0].levels, strict=True))
    assert "no texel differs from saved run 13x7 (llvmpipe" in heat.summary.text()


def _state(heat) -> tuple[object, ...]:
    """What the tab shows: its choices, the one made, the summary and the table's figures."""
    table = [heat.table.item(r, 2).data(Qt.ItemDataRole.UserRole)
             for r in range(heat.table.rowCount())]
    return _choices(heat), heat.against_combo.currentData(), heat.summary.text(), table


def test_saved_runs_that_do_not_fit_are_told_and_change_nothing(qtbot, make_window, saved_runs,
                                                                dialogs, tmp_path):
    folder = saved_runs["13x7"]
    w = make_window()
    heat = w.heatmap
    open_and_wait(qtbot, w, folder / "per-level" / "level_00.png")
    run_and_wait(qtbot, w, [PER_LEVEL, BLIT], repeat=0)
    qtbot.waitUntil(lambda: len(heat.exact) == 2, timeout=WAIT_MS)  # both analysed
    (tmp_path / "empty").mkdir()
    cases = [(saved_runs["13x9"], PER_LEVEL, ("holds 13x9 unorm", "the run shown is 13x7")),
             (tmp_path / "empty", PER_LEVEL, ("not a mipview run folder",)),
             (folder, BLIT, ("has no blit", "per-level"))]
    for path, spec, fragments in cases:
        heat.select(str(spec))
        before = _state(heat)
        with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS) as shown:
            assert heat.load_saved_run(path)
        assert shown.args[0].title == SAVED_TITLE
        title, text = dialogs[-1]
        assert title == SAVED_TITLE and all(f in text for f in fragments), text
        assert "\n" not in text
        assert _state(heat) == before
    assert len(dialogs) == len(cases)


def test_device_n_runs_the_strategy_there_and_shows_exactly_what_differs(qtbot, make_window,
                                                                          small_png, monkeypatch,
                                                                          context_threads):
    w = make_window()
    heat = w.heatmap
    open_and_wait(qtbot, w, small_png)
    out = run_and_wait(qtbot, w, [PER_LEVEL], repeat=0)["output"]
    choice = f"{DEVICE}0"
    assert choice in _choices(heat)  # every device the worker listed (lavapipe here)

    # lavapipe again, on a context of its own: the same levels, "no texel differs"
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS) as shown:
        heat.select(str(PER_LEVEL), choice)
    assert (shown.args[0].strategy, shown.args[0].against) == (str(PER_LEVEL), choice)
    assert all(not m.any() for m in heat.maps)
    assert "no texel differs from device 0" in heat.summary.text()
    # the window's context and the device's own, both made by the GPU worker
    assert len(context_threads) == 2 and _made_elsewhere(context_threads, w) == []

    # a device that gets level 2 wrong at ALTERED's texels: the maps show exactly those
    real = against.run_on_device

    def wrong_device(*args):
        got = real(*args)
        return replace(got, levels=_altered(got.levels))

    monkeypatch.setattr(against, "run_on_device", wrong_device)
    send_reply(qtbot, w, out)  # the same Run again: what the device made is made anew
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS):
        heat.select(str(PER_LEVEL), choice)
    old = out.mip.results[0].levels
    for k, (a, b) in enumerate(zip(old, _altered(old), strict=True)):
        assert np.array_equal(heat.maps[k], _texel_difference(a, b)), k
        changed = {tuple(int(i) for i in t) for t in zip(*np.nonzero(heat.maps[k]), strict=True)}
        assert changed == ({(y, x) for y, x, _ in ALTERED} if k == 2 else set()), k
    assert len(context_threads) == 3 and _made_elsewhere(context_threads, w) == []


def test_device_n_waits_for_the_job_under_way_and_stop_ends_both(qtbot, make_window, small_png,
                                                                 dialogs):
    w = make_window()
    heat = w.heatmap
    open_and_wait(qtbot, w, small_png)
    choice, name = f"{DEVICE}0", str(PER_LEVEL)
    with qtbot.waitSignal(w.sigStatsShown, timeout=WAIT_MS):  # profiling until stopped
        live = w.run(True, [PER_LEVEL])
    heat.against_combo.setCurrentIndex(heat.against_combo.findData(choice))
    assert "after the GPU's job under way" in heat.summary.text()
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS, check_params_cb=lambda j: j > live):
        w.panel.stop_button.click()
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    assert heat.summary.text().endswith(f"{name}: not run on device 0 ({w.caps.name}): stopped")
    assert heat.against_levels(name, choice) is None and dialogs == []

    # chosen again once stopped, it runs (the worker is free now)
    heat.against_combo.setCurrentIndex(heat.against_combo.findData(EXACT))
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS):
        heat.against_combo.setCurrentIndex(heat.against_combo.findData(choice))
    assert "no texel differs from device 0" in heat.summary.text()
    assert dialogs == []


def test_a_device_result_for_another_runs_level_0_is_not_kept(qtbot, make_window, small_png):
    # the GPU worker's jobs outlive a Run: a device's levels made from an earlier Run's level 0
    # (another image of the same size and format compares alike) must not stand for this Run's
    w = make_window()
    heat = w.heatmap
    open_and_wait(qtbot, w, small_png)
    out = run_and_wait(qtbot, w, [PER_LEVEL], repeat=0)["output"]
    levels = out.mip.results[0].levels
    choice, name = f"{DEVICE}0", str(PER_LEVEL)
    made = against.DeviceSide("d", levels)
    heat.set_device_run(DeviceRunOutput(-1, "0", name, levels[0].copy(), made))
    assert heat.against_levels(name, choice) is None
    heat.set_device_run(DeviceRunOutput(-1, "0", name, levels[0], made))
    assert heat.against_levels(name, choice) is levels
