"""share_gil hands the interpreter lock over at most once per EVERY_S (mipview/gpu/vulkan/gil.py)."""

from __future__ import annotations

from mipview.gpu.vulkan import gil


def test_sleeps_once_per_interval(monkeypatch):
    clock = [100.0]
    sleeps: list[float] = []
    monkeypatch.setattr(gil.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(gil.time, "sleep", sleeps.append)
    monkeypatch.setattr(gil, "_last", 0.0)
    gil.share_gil()  # long since the last turn: hand over
    gil.share_gil()  # at once again: nothing
    clock[0] += gil.EVERY_S / 2
    gil.share_gil()
    assert sleeps == [gil.SLEEP_S]
    clock[0] += gil.EVERY_S
    gil.share_gil()
    assert sleeps == [gil.SLEEP_S, gil.SLEEP_S]
