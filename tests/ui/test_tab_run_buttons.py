"""The Batch and Sweep tabs' Run buttons: a click sends exactly one job to the GPU worker, with
the tab's choices; ``run_batch()`` and ``run_sweep()`` without fields send the same choices,
read from the tab; a sweep with no strategy checked sends nothing."""

from __future__ import annotations

from PySide6.QtCore import Qt

from mipview.core.specs import StrategySpec
from mipview.ui.messages import BatchRequest, SweepRequest

WAIT_MS = 60_000


def click_and_finish(qtbot, w, button, sent: list) -> list:
    """Click ``button`` as a user does; the requests it sent (at once: the click's signal is
    direct), once the job has finished."""
    before = len(sent)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    now = sent[before:]
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    assert sent[before:] == now  # nothing more came of it while it ran
    return now


def fields_of(req, view) -> dict:
    return {name: getattr(req, name) for name in view.fields()}


def test_each_tab_run_button_starts_one_job(qtbot, make_window):
    w = make_window()
    sent: list = []
    w._sigRequest.connect(sent.append)
    batch = w.batch
    batch.count_spin.setValue(2)
    batch.max_side_spin.setValue(8)
    batch.repeat_spin.setValue(0)
    for way, check in batch.way_checks.items():
        check.setChecked(way == "loop")
    shown: list = []
    w.sigBatchShown.connect(shown.append)
    [req] = click_and_finish(qtbot, w, batch.run_button, sent)
    assert isinstance(req, BatchRequest) and req.job == w.latest_job("batch")
    assert fields_of(req, batch) == batch.fields() and req.ways == ("loop",)
    assert [out.job for out in shown] == [req.job] and w.errors == []
    job = w.run_batch()  # without fields: the tab's, with no round trip through its button
    assert [type(r) for r in sent] == [BatchRequest] * 2 and sent[-1].job == job
    assert fields_of(sent[-1], batch) == fields_of(req, batch)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)

    sweep = w.sweep
    w.panel.set_specs([StrategySpec("per-level")])
    sweep.from_spin.setValue(9)
    sweep.to_spin.setValue(8)  # the tab sorts the two
    sweep.height_spin.setValue(4)
    [req] = click_and_finish(qtbot, w, sweep.run_button, sent)
    assert isinstance(req, SweepRequest) and req.job == w.latest_job("sweep")
    assert fields_of(req, sweep) == sweep.fields() and (req.first, req.last) == (8, 9)
    assert [s.name for s in req.specs] == ["per-level"] and w.errors == []
    job = w.run_sweep()
    assert isinstance(sent[-1], SweepRequest) and sent[-1].job == job
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)

    w.panel.set_specs([])
    assert click_and_finish(qtbot, w, sweep.run_button, sent) == []
    assert w.run_sweep() is None and "no runnable strategy" in w.statusBar().currentMessage()
