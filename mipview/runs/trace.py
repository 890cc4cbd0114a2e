"""The per-dispatch timeline of a bench run in the Chrome trace event format
(``mipview bench --trace out.json``), which Perfetto (ui.perfetto.dev) and Tracy's importer
(``tracy-import-chrome``) open.

One complete event (``"ph": "X"``) per dispatch mark per timed run, ``ts`` and ``dur`` in
microseconds: ``pid`` is the device, ``tid`` the strategy (one track each; metadata events name
both), ``name`` the mark's label, ``args`` the run's index and the levels the dispatch wrote. A
strategy that writes no marks gets one event per run. ``dur`` is the sample itself
(``GpuTiming.marks``).

Where the runs are on the time axis: the timing loop keeps each run's opening GPU timestamp
(``GpuTiming.starts_us``, mipview/gpu/vulkan/timing.py), so each run sits where the GPU ran it, relative
to the first run of the bench, and its marks follow one another from there (their stamps are
consecutive: each dispatch begins where the previous one's stamp ended). Timings that kept no
start times (the window's rolling figures) are laid out from their durations alone, in the order
the timing loop took them (time_interleaved: ``runs_per_batch`` runs of each strategy in turn),
back to back: the order and the durations are faithful, the gaps between runs (barriers, cache
eviction) are not shown. ``otherData.timestamps`` says which.
"""

from __future__ import annotations

from typing import Any

from mipview import __version__
from mipview.core.results import DispatchStep, GpuTiming, RunResult, TimingSettings

#: the one process of the trace: the device
PID = 1


def _levels(steps: list[DispatchStep]) -> str:
    """The levels those steps wrote, as ``3`` or ``1-5`` ("" if none)."""
    levels = sorted({lv for step in steps for lv in step.levels})
    if not levels:
        return ""
    return str(levels[0]) if len(levels) == 1 else f"{levels[0]}-{levels[-1]}"


def _gpu_starts(timings: list[GpuTiming]) -> list[list[float]] | None:
    """Each timing's run starts relative to the earliest, when every timing kept them and each
    strategy's runs follow one another (a wrapped timestamp counter would not), else None."""
    if not all(len(t.starts_us) == len(t.total.samples_us) for t in timings):
        return None
    for t in timings:
        s = t.starts_us
        if any(b < a for a, b in zip(s, s[1:], strict=False)):
            return None
    origin = min((t.starts_us[0] for t in timings if t.starts_us), default=0.0)
    return [[s - origin for s in t.starts_us] for t in timings]


def _laid_out(timings: list[GpuTiming], runs_per_batch: int) -> list[list[float]]:
    """Run starts from durations alone: batches of each timing in turn, back to back."""
    starts: list[list[float]] = [[] for _ in timings]
    clock, done = 0.0, 0
    while any(done < len(t.total.samples_us) for t in timings):
        for i, t in enumerate(timings):
            for run in range(done, min(done + runs_per_batch, len(t.total.samples_us))):
                starts[i].append(clock)
                clock += t.total.samples_us[run]
        done += runs_per_batch
    return starts


def chrome_trace(mip: RunResult,
                 runs_per_batch: int = TimingSettings.runs_per_batch) -> dict[str, Any]:
    """The trace of every timed strategy in ``mip``, as a JSON object (``traceEvents``).
    ``runs_per_batch`` is only used to lay out timings that kept no GPU start times."""
    timed = [r for r in mip.results if r.timing is not None]
    timings = [r.timing for r in timed if r.timing is not None]
    starts = _gpu_starts(timings)
    source = "gpu" if starts is not None else "laid out from durations"
    if starts is None:
        starts = _laid_out(timings, max(1, runs_per_batch))
    events: list[dict[str, Any]] = [
        {"ph": "M", "name": "process_name", "pid": PID, "args": {"name": mip.device.name}}]
    for tid, (res, timing, run_starts) in enumerate(zip(timed, timings, starts, strict=True), 1):
        events += [
            {"ph": "M", "name": "thread_name", "pid": PID, "tid": tid,
             "args": {"name": str(res.spec)}},
            {"ph": "M", "name": "thread_sort_index", "pid": PID, "tid": tid,
             "args": {"sort_index": tid}}]
        marks = timing.marks or (("run", timing.total),)
        levels = {label: _levels([s for s in res.plan if s.label == label or not timing.marks])
                  for label, _ in marks}
        end = 0.0
        for run, start in enumerate(run_starts):
            # to the nanosecond (the finest timestamp period), and never before the previous
            # run's last event ended: Perfetto nests the events of a track, it cannot overlap them
            ts = max(round(start, 3), end)
            for label, stats in marks:
                dur = stats.samples_us[run]
                events.append({"ph": "X", "cat": "dispatch", "name": label, "pid": PID,
                               "tid": tid, "ts": ts, "dur": dur,
                               "args": {"run": run, "levels": levels[label]}})
                ts += dur
            end = ts
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"generator": f"mipview {__version__}", "timestamps": source,
                          "device": mip.device.name, "driver": mip.device.driver,
                          "clock": mip.clock.label() if mip.clock is not None else None}}
