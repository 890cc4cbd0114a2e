"""The per-dispatch timeline in the Chrome trace event format (mipview/runs/trace.py): one complete
event per dispatch per run, durations that are the samples, runs where the GPU ran them (or, with
no start times kept, in the order the timing loop took them), never overlapping on a track."""

from __future__ import annotations

import json

from mipview.core.formats import Format
from mipview.core.results import (
    DeviceSummary,
    DispatchStep,
    GpuTiming,
    RunResult,
    StrategyResult,
    TimingStats,
)
from mipview.core.specs import StrategySpec
from mipview.runs.trace import chrome_trace

DEVICE = DeviceSummary("gpu", "discrete", "d", "1.3", 32)


def _result(name, parts, starts=()):
    """A strategy timed len(parts) runs, with marks 'a' (level 1) and 'b' (levels 2-4)."""
    a, b = (tuple(p[i] for p in parts) for i in (0, 1))
    totals = tuple(x + y + 0.5 for x, y in zip(a, b, strict=True))
    timing = GpuTiming(TimingStats(totals), (("a", TimingStats(a)), ("b", TimingStats(b))),
                       tuple(starts))
    plan = (DispatchStep("a", (1,)), DispatchStep("b", (2, 3, 4)))
    return StrategyResult(StrategySpec(name), (), plan=plan, timing=timing)


def _mip(*results):
    return RunResult(Format.UNORM, 16, 16, 1, DEVICE, results)


def x_events(trace, tid=None):
    return [e for e in trace["traceEvents"] if e["ph"] == "X" and tid in (None, e["tid"])]


def assert_no_overlap(events):
    for prev, e in zip(events, events[1:], strict=False):
        assert e["ts"] >= prev["ts"] + prev["dur"], (prev, e)


def test_gpu_start_times_place_the_runs():
    parts = [(1.0, 2.0), (1.5, 2.5), (1.25, 2.0)]
    mip = _mip(_result("p", parts, starts=(1000.0, 1010.0, 1020.0)),
               _result("q", parts[:2], starts=(1004.0, 1014.0)))
    trace = json.loads(json.dumps(chrome_trace(mip)))  # valid JSON, as written
    assert trace["otherData"]["timestamps"] == "gpu"
    p = x_events(trace, 1)
    assert [(e["name"], e["args"]["run"]) for e in p] == [(m, r) for r in range(3) for m in "ab"]
    assert [e["ts"] for e in p[::2]] == [0.0, 10.0, 20.0]  # relative to the first run
    assert [e["dur"] for e in p] == [v for run in parts for v in run]  # the samples
    assert p[1]["ts"] == p[0]["ts"] + p[0]["dur"]  # marks follow one another
    assert [e["args"]["levels"] for e in p[:2]] == ["1", "2-4"]
    assert [e["ts"] for e in x_events(trace, 2)[::2]] == [4.0, 14.0]
    names = {(e["name"], e.get("tid")): e["args"] for e in trace["traceEvents"] if e["ph"] == "M"}
    assert names[("process_name", None)] == {"name": "gpu"}
    assert names[("thread_name", 2)] == {"name": "q"}


def test_without_start_times_runs_are_laid_out_in_the_order_taken():
    parts = [(1.0, 2.0)] * 5
    mip = _mip(_result("p", parts), _result("q", parts))
    trace = chrome_trace(mip, runs_per_batch=2)
    assert trace["otherData"]["timestamps"] == "laid out from durations"
    run = 3.5  # a + b + the gap to the end stamp
    order = sorted(x_events(trace)[::2], key=lambda e: e["ts"])
    assert [(e["tid"], e["args"]["run"]) for e in order] == [
        (1, 0), (1, 1), (2, 0), (2, 1), (1, 2), (1, 3), (2, 2), (2, 3), (1, 4), (2, 4)]
    assert [e["ts"] for e in order] == [i * run for i in range(10)]
    for tid in (1, 2):
        assert len(x_events(trace, tid)) == 2 * 5
        assert_no_overlap(x_events(trace, tid))


def test_start_times_that_go_backwards_are_not_trusted():
    """A timestamp counter that wrapped mid-run: the starts cannot place the runs."""
    mip = _mip(_result("p", [(1.0, 2.0)] * 3, starts=(50.0, 60.0, 5.0)))
    trace = chrome_trace(mip)
    assert trace["otherData"]["timestamps"] == "laid out from durations"
    assert_no_overlap(x_events(trace))


def test_events_never_overlap_on_a_track():
    """Starts closer than a run lasts (rounding, or marks summing past the total): each run
    begins where the previous one's last event ended, never inside it."""
    mip = _mip(_result("p", [(1.0, 2.0)] * 3, starts=(0.0, 2.5, 6.0)))
    events = x_events(chrome_trace(mip))
    assert_no_overlap(events)
    assert events[2]["ts"] == 3.0 and events[4]["ts"] == 6.0
