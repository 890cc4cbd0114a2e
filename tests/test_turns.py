"""give_turn lets a busy UI thread go first, and costs nothing without a heartbeat
(mipview/core/turns.py)."""

from __future__ import annotations

import threading
import time

import pytest

from mipview.core import turns


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """The heartbeat's state reset around each test."""
    monkeypatch.setattr(turns, "_last_beat", None)
    monkeypatch.setattr(turns, "_ui_thread", None)
    monkeypatch.setattr(turns, "_last_wanted", float("-inf"))


def _start(fn) -> tuple[threading.Thread, list]:
    out: list = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    return t, out


def _on_other_thread(fn):
    t, out = _start(fn)
    t.join()
    return out[0]


def _late(monkeypatch, by: float) -> None:
    """This (the UI) thread beat ``by`` seconds ago, while background threads ask for turns."""
    turns._last_wanted = time.perf_counter()
    assert turns.beat()
    monkeypatch.setattr(turns, "_last_beat", turns._last_beat - by)


def test_no_heartbeat_no_wait():
    assert _on_other_thread(turns.give_turn) == 0.0


def test_on_time_no_wait(monkeypatch):
    # a beat counts as on time for a second here: starting the thread may take longer than
    # the real 4 ms on a loaded machine, which made the beat late and the test wait 50 ms
    monkeypatch.setattr(turns, "LATE_S", 1.0)
    monkeypatch.setattr(turns, "GONE_S", 30.0)
    _late(monkeypatch, 0.0)
    assert _on_other_thread(turns.give_turn) == 0.0


def test_a_late_beat_holds_a_background_thread_until_the_next_beat(monkeypatch):
    monkeypatch.setattr(turns, "WAIT_MAX_S", 30.0)  # only the beat may end the wait here
    monkeypatch.setattr(turns, "GONE_S", 30.0)  # however late the thread starts
    _late(monkeypatch, 2 * turns.LATE_S)
    t, out = _start(turns.give_turn)
    t.join(0.05)
    assert t.is_alive()  # still waiting: the UI thread is "busy"
    turns.beat()
    t.join(5.0)
    assert not t.is_alive() and out[0] >= 0.05


def test_the_wait_is_capped(monkeypatch):
    monkeypatch.setattr(turns, "WAIT_MAX_S", 0.02)
    monkeypatch.setattr(turns, "GONE_S", 30.0)
    _late(monkeypatch, 2 * turns.LATE_S)
    waited = _on_other_thread(turns.give_turn)
    assert 0.02 <= waited < 5.0


def test_the_beating_thread_never_waits_for_itself(monkeypatch):
    monkeypatch.setattr(turns, "WAIT_MAX_S", 30.0)
    _late(monkeypatch, 2 * turns.LATE_S)
    assert turns.give_turn() == 0.0


def test_no_wait_once_the_loop_is_gone_or_stopped(monkeypatch):
    monkeypatch.setattr(turns, "WAIT_MAX_S", 30.0)
    _late(monkeypatch, turns.GONE_S + 0.01)  # nobody beat for long: no event loop to wait for
    assert _on_other_thread(turns.give_turn) == 0.0
    _late(monkeypatch, 2 * turns.LATE_S)
    turns.stop()
    assert _on_other_thread(turns.give_turn) == 0.0


def test_heartbeat_slows_down_when_nobody_asks(monkeypatch):
    assert not turns.beat()  # nobody asked: idle, and give_turn does not wait
    _on_other_thread(turns.give_turn)
    assert turns.beat()
    monkeypatch.setattr(turns, "_last_wanted", time.perf_counter() - turns.KEEP_S - 0.01)
    assert not turns.beat()
    assert turns._last_beat is None
