"""Custom shaders in the window (lavapipe, validation on): added by the panel, by a drop and from
the settings; a watched file recompiled on save (off the UI thread), the last run repeated with
the new version and marked in the history; compile and interface errors in the messages panel
while the last good version keeps running; a shader that runs too long times out, the device is
reset and the app goes on."""

from __future__ import annotations

import os

import numpy as np
from PIL import Image
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from mipview.core.specs import StrategySpec
from mipview.ui.workers.shader_watch import shader_name
from tests.shader_examples import EXAMPLES, needs_compilers
from tests.test_custom_strategies import SPIN
from tests.ui.test_main_window import WAIT_MS, open_and_wait, run_and_wait

pytestmark = needs_compilers

BOX = (EXAMPLES / "box_per_level.comp").read_text()
STORE = "    mipLevelStore(p, v);"
#: every level's alpha 0.5 (128), its colour as before
HALF = BOX.replace(STORE, "    mipLevelStore(p, vec4(v.rgb, 0.5));")
BROKEN = BOX.replace(STORE, "    mipLevelStore(p, nope);")
BROKEN_LINE = BOX.splitlines().index(STORE) + 1


def add_and_wait(qtbot, window, path) -> str:
    name = shader_name(path)
    with qtbot.waitSignal(window.shaders.sigLoaded, timeout=WAIT_MS,
                          check_params_cb=lambda cls, reloaded: cls.name == name):
        assert window.shaders.add(path) == name
    return name


def save_and_wait(qtbot, window, path, text) -> None:
    """Write ``text`` to the watched ``path`` and wait until its compile is shown."""
    name = shader_name(path)
    with qtbot.waitSignal(window.shaders.sigCompiled, timeout=WAIT_MS,
                          check_params_cb=lambda n: n == name):
        path.write_text(text)


def test_add_by_the_panel_and_by_a_drop(qtbot, make_window, tmp_path):
    w = make_window()
    first, second = tmp_path / "first.comp", tmp_path / "second.comp"
    first.write_text(BOX)
    second.write_text(HALF)
    name = add_and_wait(qtbot, w, first)
    row = w.panel.rows[name]
    assert row.check.isChecked() and row.reason is None
    # the shader's named constant is an option like a built-in one's
    combo = w.panel.findChild(type(row.combos["GROUP"]), f"option:{name}:GROUP")
    assert combo is row.combos["GROUP"]
    assert [combo.itemText(i) for i in range(combo.count())] == ["8", "16"]
    combo.setCurrentText("16")
    assert StrategySpec(name, (("GROUP", "16"),)) in w.panel.specs()
    assert "per-level, 1 option(s)" in w.shaders.list.item(0).text()

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(second))])
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(w.shaders.sigLoaded, timeout=WAIT_MS):
        w.dropEvent(drop)
    assert drop.isAccepted() and w.latest_job("open") == -1  # not taken for an image
    assert shader_name(second) in w.panel.rows
    assert w.shaders.names() == [name, shader_name(second)]

    w.shaders.remove(name)
    assert name not in w.panel.rows and shader_name(second) in w.panel.rows


def test_a_saved_edit_runs_again_and_a_broken_one_keeps_the_last_good(
        qtbot, make_window, small_png, tmp_path, dialogs):
    w = make_window()
    path = tmp_path / "mine.comp"
    path.write_text(BOX)
    name = add_and_wait(qtbot, w, path)
    open_and_wait(qtbot, w, small_png)
    spec = [StrategySpec(name)]
    first = run_and_wait(qtbot, w, spec, repeat=2)["output"]
    assert w.chart.marks == type(w.chart.marks)()

    # an edit: compiled off the UI thread, the last run repeats with it, the history marks it
    with qtbot.waitSignal(w.sigRunShown, timeout=WAIT_MS,
                          check_params_cb=lambda out: out.job != first.job) as shown:
        path.write_text(HALF)
    halved = shown.args[0]
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    before, after = first.mip.results[0].levels, halved.mip.results[0].levels
    assert np.array_equal(after[0], before[0])
    for a, b in zip(after[1:], before[1:], strict=True):  # the new version ran
        assert np.array_equal(a[..., :3], b[..., :3]) and (b[..., 3] == 255).all()
        assert (a[..., 3] == 128).all()
    assert [label for _, label in w.chart.marks] == ["reloaded mine.comp"]

    # a compile error: its lines in the panel, no dialog, no run; the last good version stays
    save_and_wait(qtbot, w, path, BROKEN)
    problems = w.shaders.problems()
    assert problems and (problems[0].file, problems[0].line) == (str(path), BROKEN_LINE)
    assert problems[0].text.startswith(f"{path}:{BROKEN_LINE}: error: ") and "nope" in \
        problems[0].text
    assert w.shaders.messages.item(0).text() == problems[0].text
    assert "the last good version runs" in w.shaders.list.item(0).text()
    opened = []
    w.shaders.open_location = lambda file, line: opened.append((file, line))
    w.shaders.messages.itemActivated.emit(w.shaders.messages.item(0))
    assert opened == [(str(path), BROKEN_LINE)]
    again = run_and_wait(qtbot, w, spec, repeat=1)["output"]
    for a, b in zip(again.mip.results[0].levels, after, strict=True):
        assert np.array_equal(a, b)
    assert len(w.chart.marks) == 1

    # a pragma error and an interface mismatch: one clear line each, never a dialog
    save_and_wait(qtbot, w, path, BOX.replace("kind per-level", "kind sideways"))
    (problem,) = w.shaders.problems()
    assert (problem.file, problem.line) == (str(path), 6)
    assert problem.text == f"{path}:6: #pragma mipview kind: want one of per-level | whole-chain"
    save_and_wait(qtbot, w, path, BOX.replace("local_size_z = 1", "local_size_z = 2"))
    (problem,) = w.shaders.problems()
    assert problem.text == (f"{path}: the work group's z size is 2; it must be 1 (mipview puts "
                            f"array layers in the dispatch's z)")
    assert dialogs == [] and w.errors == []

    # fixed again: the messages go, the new version runs
    with qtbot.waitSignal(w.sigRunShown, timeout=WAIT_MS,
                          check_params_cb=lambda out: out.job > again.job) as shown:
        path.write_text(BOX)
    assert w.shaders.problems() == [] and w.shaders.messages.count() == 0
    for a, b in zip(shown.args[0].mip.results[0].levels, before, strict=True):
        assert np.array_equal(a, b)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)


def test_a_save_by_rename_restarts_live_profiling(qtbot, make_window, small_png, tmp_path):
    w = make_window()
    path = tmp_path / "live.comp"
    path.write_text(BOX)
    name = add_and_wait(qtbot, w, path)
    open_and_wait(qtbot, w, small_png)
    with qtbot.waitSignal(w.sigStatsShown, timeout=WAIT_MS):
        live = w.run(True, [StrategySpec(name, (("GROUP", "16"),))])
    # an editor's "safe write": a new file renamed over the watched one
    with qtbot.waitSignal(w.sigRunShown, timeout=WAIT_MS,
                          check_params_cb=lambda out: out.job != live) as shown:
        (tmp_path / "live.comp.tmp").write_text(HALF)
        os.replace(tmp_path / "live.comp.tmp", path)
    out = shown.args[0]
    assert [str(r.spec) for r in out.mip.results] == [f"{name}:GROUP=16"]
    assert (out.mip.results[0].levels[1][..., 3] == 128).all()
    with qtbot.waitSignal(w.sigStatsShown, timeout=WAIT_MS,
                          check_params_cb=lambda st: st.job == out.job):
        pass  # profiling goes on, live, with the new version
    assert w.is_busy() and [label for _, label in w.chart.marks] == ["reloaded live.comp"]
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda job: job == out.job):
        w.stop()
    # and the file is still watched under its name
    save_and_wait(qtbot, w, path, BROKEN)
    assert w.shaders.problems()


def test_an_added_shader_comes_back_at_the_next_start(qtbot, make_window, tmp_path):
    path = tmp_path / "kept.comp"
    path.write_text(BOX)
    w = make_window()
    name = add_and_wait(qtbot, w, path)
    w.panel.rows[name].combos["GROUP"].setCurrentText("16")
    w.save_settings()
    w.shutdown()

    again = make_window(restore=False)
    assert again.shaders.names() == [name]
    qtbot.waitUntil(lambda: name in again.panel.rows, timeout=WAIT_MS)
    assert StrategySpec(name, (("GROUP", "16"),)) in again.panel.specs()


def test_a_shader_that_runs_too_long_times_out_and_the_app_goes_on(
        qtbot, make_window, tmp_path, monkeypatch, dialogs):
    monkeypatch.setenv("MIPVIEW_GPU_TIMEOUT", "0.2")
    w = make_window()
    hung = w.worker.ctx
    monkeypatch.setenv("MIPVIEW_GPU_TIMEOUT", "60")  # for the context made after the timeout
    image = tmp_path / "noise_256.png"
    pixels = np.random.default_rng(3).integers(0, 256, (256, 256, 4), dtype=np.uint8)
    Image.fromarray(pixels).save(image)
    spin = tmp_path / "spin.comp"
    spin.write_text(SPIN)
    name = add_and_wait(qtbot, w, spin)
    open_and_wait(qtbot, w, image)
    with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS) as error:
        w.run(False, [StrategySpec(name, (("SPIN", "60000"),))])
    assert (error.args[0].title, error.args[0].message) == (
        "GPU timeout", "spin.comp did not finish within 0.2 s; the device was reset.")
    assert dialogs[0][0] == "GPU timeout" and "MIPVIEW_GPU_TIMEOUT" in dialogs[0][1]
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    assert w.worker.ctx is not hung and w.worker.ctx.timeout_s == 60 and w.caps is not None

    got = run_and_wait(qtbot, w, [StrategySpec("blit"), StrategySpec("per-level")], repeat=2)
    assert got["output"].mip.validation_messages == () and len(got["output"].mip.results) == 2
    assert got["analysis"].errors[1].within_tolerance
    assert len(dialogs) == 1
