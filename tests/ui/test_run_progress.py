"""A Run in the window: its timings reach the chart before its analysis, which then comes
strategy by strategy; the exact reference of an image is computed once per format; the chart
flags drifting timings, says "warming up" before live figures, shows the clock state, and marks
changes in its history."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from mipview.check import verdict
from mipview.core.results import ClockSample, ClockState, GpuTiming, TimingStats
from mipview.core.specs import StrategySpec
from mipview.ui.messages import LiveStats, TimingFigures, TimingPhase
from mipview.ui.views.timing_chart import WARNING, TimingChart, clock_text, history_marks
from tests.ui.test_main_window import SPECS, WAIT_MS, open_and_wait

FIVE = [StrategySpec(n) for n in ("blit", "per-level", "npot-exact", "subgroup", "single-pass")]


def _record(w) -> list[tuple[str, object]]:
    events: list[tuple[str, object]] = []
    for name in ("sigRunShown", "sigTimingShown", "sigStatsShown", "sigReferenceShown",
                 "sigStrategyShown", "sigAnalysisShown"):
        getattr(w, name).connect(lambda m, n=name: events.append((n, m)))
    return events


def _run(qtbot, w, specs, repeat=3, live=False):
    w.panel.repeat_spin.setValue(repeat)
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        assert w.run(live, specs) is not None
    assert w.errors == []


def test_timings_reach_the_chart_before_the_analysis(qtbot, make_window, small_png):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    events = _record(w)
    medians_at_analysis = []
    w.sigStrategyShown.connect(lambda _m: medians_at_analysis.append(w.chart.medians()))
    _run(qtbot, w, FIVE)
    names = [n for n, _ in events]
    final = next(i for i, (n, m) in enumerate(events) if n == "sigStatsShown" and m.final)
    assert names[0] == "sigRunShown" and names[1] == "sigTimingShown"
    assert "sigStatsShown" not in names[final + 1:]
    # every analysis signal comes after the final timings
    assert names[final + 1:] == ["sigReferenceShown"] + ["sigStrategyShown"] * 5 + \
        ["sigAnalysisShown"]
    stats = events[final][1]
    # the chart already showed the final timings when the first strategy's analysis came
    assert medians_at_analysis[0] == [t.total.median for _, t in stats.timings]
    parts = [m for n, m in events if n == "sigStrategyShown"]
    assert [(p.done, p.total) for p in parts] == [(i, 5) for i in range(1, 6)]
    analysis = events[-1][1]
    assert {str(p.errors.spec) for p in parts} == {str(s) for s in FIVE}
    assert [e.spec for e in analysis.errors] == FIVE  # the run's order
    assert all(e.within_tolerance for e in analysis.errors if e.verdict.promise == "exact")
    # the heatmap holds each strategy as it arrived; the viewer has the reference
    assert set(w.heatmap.exact) == {str(s) for s in FIVE}
    assert w.heatmap.exact["subgroup"] is next(p.errors for p in parts
                                               if p.errors.spec.name == "subgroup")


def test_the_exact_reference_is_computed_once_per_image_and_format(qtbot, make_window,
                                                                    small_png, monkeypatch):
    calls = []
    lock = threading.Lock()
    real = verdict.named_reference

    def counting(name, level0, fmt):
        with lock:
            calls.append((name, fmt.label))
        return real(name, level0, fmt)

    monkeypatch.setattr(verdict, "named_reference", counting)
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    _run(qtbot, w, SPECS)
    _run(qtbot, w, SPECS, repeat=2)  # Run again: same image, same format
    assert sorted(calls) == [("blit", "unorm"), ("mean", "unorm")]
    w.panel.format_combo.setCurrentIndex(w.panel.format_combo.findData("srgb"))
    _run(qtbot, w, SPECS[1:])  # another format: its own reference, once
    _run(qtbot, w, SPECS[1:])
    assert calls[2:] == [("mean", "srgb")]


def test_live_profiling_says_warming_up_then_marks_a_change_of_strategies(qtbot, make_window,
                                                                          small_png):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    seen = []
    w.sigTimingShown.connect(lambda p: seen.append(("timing", w.chart.info.text())))
    w.sigStatsShown.connect(lambda s: seen.append(("stats", w.chart.info.text())))
    for specs in (SPECS, SPECS[1:]):
        before = len(seen)
        job = w.run(True, specs)
        qtbot.waitUntil(lambda b=before: sum(k == "stats" for k, _ in seen[b:]) >= 3,
                        timeout=WAIT_MS)
        with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                              check_params_cb=lambda j, job=job: j == job):
            w.stop()
        first_stats = next(i for i, (k, _) in enumerate(seen[before:], before) if k == "stats")
        kinds = [k for k, _ in seen[before:first_stats]]
        assert kinds == ["timing"] and "warming up" in seen[first_stats - 1][1]
        assert "warming up" not in seen[first_stats][1]  # the figures replaced it
        if specs is SPECS:
            assert not w.chart.marks  # nothing changed within the first live run
    assert [label for _, label in w.chart.marks] == ["-blit"]
    assert w.chart.clock_label.text() == f"clock: not readable on {w.caps.name}"
    assert w.errors == []


def _timing(samples) -> GpuTiming:
    return GpuTiming(TimingStats(tuple(float(s) for s in samples)))


def _stats(device="dev", specs=("a", "b"), clock=None, shaders=(), drifting=False):
    steady = np.full(40, 100.0) + np.tile([0.0, 1.0, -1.0, 0.5], 10)
    drift = np.linspace(200.0, 100.0, 40)  # a GPU clocking up while it was timed
    timings = tuple((StrategySpec(s), _timing(drift if drifting and i == 0 else steady))
                    for i, s in enumerate(specs))
    return LiveStats(1, device, timings, 40, 0.5, clock=clock, shaders=shaders)


@pytest.mark.usefixtures("qapp")
def test_a_drifting_timing_is_flagged_and_a_steady_one_is_not():
    assert TimingFigures.of(_stats(drifting=True).timings[0][1]).drift is not None
    assert TimingFigures.of(_stats().timings[0][1]).drift is None
    chart = TimingChart()
    chart.update_stats(_stats(drifting=True))
    flagged, clean = chart.drifting()
    assert flagged is not None and flagged.startswith("drifting: first quarter")
    assert clean is None
    assert "drifting" in chart.value_labels[0].textItem.toPlainText()
    assert "drifting" not in chart.value_labels[1].textItem.toPlainText()
    pens = chart.bars.opts["pens"]
    assert pens[0].color().name() == WARNING and pens[1].color().name() != WARNING
    assert "1 drifting" in chart.info.text()
    chart.update_stats(_stats())  # steady again: a clean bar
    assert chart.drifting() == [None, None]


def _clock(*sm: int) -> ClockState:
    return ClockState("nvml", tuple(ClockSample(float(i), s, 2619) for i, s in enumerate(sm)),
                      1980)


@pytest.mark.usefixtures("qapp")
def test_clock_state_in_the_header_and_changes_in_the_history():
    assert clock_text(_stats()) == "clock: not readable on dev"
    assert clock_text(_stats(clock=_clock(1980, 1980))) == "SM 1980 MHz, mem 2619 MHz"
    assert clock_text(_stats(clock=_clock(345, 1980))).startswith("clock CHANGED while timing")

    base = _stats(clock=_clock(1980), shaders=(("shader:x.comp", "d1"),))
    assert history_marks(None, base) == []
    assert history_marks(base, base) == []
    assert history_marks(base, _stats(clock=_clock(1900), shaders=base.shaders)) == []  # < 10%
    assert history_marks(base, _stats("other", clock=_clock(1980), shaders=base.shaders)) == \
        ["device: other"]
    assert history_marks(base, _stats(specs=("a", "c"), clock=_clock(1980),
                                      shaders=base.shaders)) == ["+c -b"]
    assert history_marks(base, _stats(clock=_clock(1980), shaders=(("shader:x.comp", "d2"),))) \
        == ["reloaded x.comp"]
    assert history_marks(base, _stats(clock=_clock(1400), shaders=base.shaders)) == \
        ["clock 1980->1400 MHz"]

    chart = TimingChart()
    chart.update_stats(base)
    chart.update_stats(_stats(clock=_clock(1700, 1980, 1980), shaders=base.shaders))
    assert [label for _, label in chart.marks] == ["clock moving"]
    assert chart.clock_label.text().startswith("clock CHANGED")
    assert WARNING in chart.clock_label.styleSheet()
    chart.warming_up(TimingPhase(2, "dev", 1000.0, live=True))
    assert "warming up 1.0 s" in chart.info.text() and chart.medians() == []


def test_a_first_run_that_compiles_says_so_in_the_status_bar(qtbot, make_window, small_png,
                                                             tmp_path, monkeypatch):
    """A CPU device compiling shaders for the first Run: the status bar tells what takes the
    time, and the Run ends as any other."""
    from mipview.gpu.vulkan import compile_ahead, context

    monkeypatch.setenv("MESA_SHADER_CACHE_DIR", str(tmp_path / "mesa"))  # nothing compiled yet
    monkeypatch.setattr(compile_ahead, "REPORT_AFTER_S", 0.0)  # told from the first poll,
    monkeypatch.setattr(context, "_POLL_S", 0.01)  # which comes soon: any real compile is told
    w = make_window()
    shown: list[str] = []
    w.statusBar().messageChanged.connect(shown.append)
    open_and_wait(qtbot, w, small_png)
    w.panel.format_combo.setCurrentIndex(w.panel.format_combo.findData("srgb"))
    _run(qtbot, w, SPECS[1:])
    compiling = [m for m in shown if m.startswith("compiling shaders (first run on llvmpipe")]
    assert compiling, shown
    assert any(m.startswith("compiled ") for m in shown[shown.index(compiling[0]):]), shown
