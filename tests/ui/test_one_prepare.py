"""The API, the command line and the window's Run button each prepare their Run one way
(mipview.runs.prepare.prepare) and run what it prepared: an entry point that made its own level
0, specs or reference cache would leave the spies below empty for its image."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

import mipview
from mipview.cli.main import main
from mipview.core.specs import StrategySpec
from mipview.io import synthetic
from mipview.runs import prepare
from tests.ui.test_main_window import WAIT_MS, open_and_wait


def _spy(monkeypatch) -> tuple[list, list]:
    """What prepare() opened, and what ran: the prepared image of each Run, in order."""
    opened, ran = [], []
    open_source, run = prepare.open_source, prepare.PreparedRun.run

    def spy_open(image):
        source = open_source(image)
        opened.append(source)
        return source

    def spy_run(self, *args, **kwargs):
        ran.append(self)
        return run(self, *args, **kwargs)

    monkeypatch.setattr(prepare, "open_source", spy_open)
    monkeypatch.setattr(prepare.PreparedRun, "run", spy_run)
    return opened, ran


def _one_prepared_run(opened: list, ran: list) -> prepare.PreparedRun:
    assert len(opened) == 1 and len(ran) == 1
    (run,) = ran
    assert run.source is opened[0] and not run.level0.flags.writeable
    opened.clear()
    ran.clear()
    return run


def test_api_cli_and_the_run_button_reach_the_one_prepare(qtbot, make_window, small_png,
                                                          tmp_path, monkeypatch) -> None:
    opened, ran = _spy(monkeypatch)

    image = synthetic.image(8, 8)
    done = mipview.run(image, strategies="blit")
    run = _one_prepared_run(opened, ran)
    assert run.source is image and [str(s) for s in run.specs] == ["blit"]
    assert done.ok and np.array_equal(done.strategies["blit"].levels[0], run.level0)

    assert main(["run", "--size", "8x6", "--strategies", "blit", "--out",
                 str(tmp_path / "out")]) == 0
    run = _one_prepared_run(opened, ran)
    assert (run.source.width, run.source.height) == (8, 6) and run.specs == (StrategySpec("blit"),)

    w = make_window()
    # f16: level 0 is converted (an 8-bit format would upload the file's bytes as they are)
    w.panel.format_combo.setCurrentIndex(w.panel.format_combo.findData("f16"))
    shown = open_and_wait(qtbot, w, small_png)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)  # the open's job ends
    w.panel.set_specs([StrategySpec("blit")])
    w.panel.repeat_spin.setValue(0)
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        qtbot.mouseClick(w.panel.run_button, Qt.MouseButton.LeftButton)
    assert w.errors == []
    run = _one_prepared_run(opened, ran)
    # the window's level 0 and references are kept across its Runs: the prepared ones
    assert run.source is shown.source
    assert run.level0 is shown.level0
    assert run.refs is w.worker.refs and run.specs == (StrategySpec("blit"),)
