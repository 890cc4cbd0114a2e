"""mipview.ui.steps runs the steps of every view one per turn of the event loop, in order."""

from __future__ import annotations

import time

import pytest
import shiboken6
from PySide6.QtCore import QObject

from mipview.ui import steps


@pytest.mark.usefixtures("qapp")
def test_each_step_runs_in_a_turn_of_its_own_in_the_order_queued(qtbot):
    ran: list[str] = []
    at: list[float] = []

    def chain(name: str, n: int) -> None:  # a view that queues its next step from its step
        ran.append(f"{name}{n}")
        at.append(time.perf_counter())
        if n < 3:
            steps.later(lambda: chain(name, n + 1))

    steps.later(lambda: chain("a", 1))
    steps.later(lambda: chain("b", 1))
    assert ran == []  # nothing in the call itself
    qtbot.waitUntil(lambda: len(ran) == 6, timeout=2000)
    assert ran == ["a1", "b1", "a2", "b2", "a3", "b3"]
    # two chains' steps never run back to back: each waits its own timer (a timer may fire up
    # to 5% early), so the window paints and ticks between them
    gaps = [b - a for a, b in zip(at, at[1:], strict=False)]
    assert min(gaps) >= 0.9 * steps.STEP_MS / 1000


@pytest.mark.usefixtures("qapp")
def test_a_failing_step_does_not_stop_the_ones_after(qtbot):
    ran: list[str] = []

    def fail() -> None:
        raise ValueError("step")

    with qtbot.capture_exceptions() as raised:
        steps.later(fail)
        steps.later(lambda: ran.append("after"))
        qtbot.waitUntil(lambda: ran == ["after"], timeout=1000)
    assert [type(e[1]) for e in raised] == [ValueError]


@pytest.mark.usefixtures("qapp")
def test_paced_calls_that_come_together_run_one_per_turn_in_order_before_views_steps(qtbot):
    ran: list[str] = []
    at: list[float] = []

    def call(name: str):
        return lambda: (ran.append(name), at.append(time.perf_counter()))

    paced = steps.Paced()
    steps.later(call("view step"))
    for name in ("reply 1", "reply 2", "reply 3"):  # as a worker's replies come in one turn
        paced.call(call(name))
    assert ran == ["reply 1"] and paced.pending()  # the first at once, the others wait
    qtbot.waitUntil(lambda: len(ran) == 4, timeout=2000)
    assert ran == ["reply 1", "reply 2", "reply 3", "view step"] and not paced.pending()
    gaps = [b - a for a, b in zip(at, at[1:], strict=False)]
    assert min(gaps) >= 0.9 * steps.STEP_MS / 1000

    # a call in a later turn is made at once; dropped calls are never made
    qtbot.wait(1)
    paced.call(call("alone"))
    assert ran[-1] == "alone"
    paced.call(call("dropped"))
    assert paced.pending()
    paced.drop()
    qtbot.wait(5 * steps.STEP_MS)
    assert "dropped" not in ran


@pytest.mark.usefixtures("qapp")
def test_a_step_of_a_deleted_view_is_skipped(qtbot):
    """A closed window's views leave steps queued; they must not run on deleted widgets."""
    ran: list[str] = []
    view = QObject()
    steps.later(lambda: ran.append("of the deleted view"), view)
    steps.later(lambda: ran.append("kept"))
    shiboken6.delete(view)
    qtbot.waitUntil(lambda: "kept" in ran, timeout=1000)
    assert ran == ["kept"]
