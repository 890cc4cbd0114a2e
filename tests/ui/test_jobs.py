"""Job plumbing: JobWorker turns failures into errors and always finishes a job; the window shows
only the latest job of each kind; strategy-against-strategy heatmaps come from the compare
worker's thread, are cached, and stale ones are dropped."""

from __future__ import annotations

import threading

import numpy as np
from PySide6.QtCore import Qt

from mipview.check import compare
from mipview.io import imageio
from mipview.ui.messages import Comparison, LevelsReady, LiveStats, OpenRequest
from mipview.ui.workers.jobs import JobWorker
from tests.ui.test_main_window import SPECS, WAIT_MS, open_and_wait, run_and_wait, send_reply


# --- JobWorker, in this thread -------------------------------------------------------------
def _worker(handler):
    w = JobWorker()
    w.handle(OpenRequest, "Open failed", handler)
    got = {"errors": [], "finished": []}
    w.sigError.connect(got["errors"].append)
    w.sigJobFinished.connect(got["finished"].append)
    return w, got


def test_job_failure_becomes_titled_error_and_job_still_finishes(qapp):
    def fail(req, stop):
        raise ValueError("bad thing")

    w, got = _worker(fail)
    w.work(OpenRequest(7, "x.png"))
    [err] = got["errors"]
    assert (err.job, err.title, err.message) == (7, "Open failed", "bad thing")
    assert "ValueError" in err.detail  # the traceback, for the dialog's details
    assert got["finished"] == [7]

    def load_error(req, stop):
        raise imageio.ImageLoadError("x.png is not an image")

    w, got = _worker(load_error)
    w.work(OpenRequest(8, "x.png"))
    [err] = got["errors"]
    assert (err.title, err.message, err.detail) == ("Cannot open image", "x.png is not an image",
                                                    "")
    assert got["finished"] == [8]

    w, got = _worker(lambda req, stop: None)
    w.work(OpenRequest(9, "x.png"))
    assert got["errors"] == [] and got["finished"] == [9]


def test_stop_callable_follows_cancel(qapp):
    seen = []
    w, got = _worker(lambda req, stop: seen.append((req.job, stop())))
    w.cancel(4)
    for job in (3, 4, 5):
        w.work(OpenRequest(job, "x.png"))
    w.cancel(2)  # cancelling less than before changes nothing
    w.work(OpenRequest(4, "x.png"))
    assert seen == [(3, True), (4, True), (5, False), (4, True)]


# --- the window -------------------------------------------------------------------------------
def test_failing_run_shows_error_and_finishes(qtbot, make_window, small_png, monkeypatch,
                                              dialogs):
    threads = []

    def broken_analyse(*args):
        threads.append(threading.get_ident())
        raise RuntimeError("analysis exploded")

    monkeypatch.setattr("mipview.runs.analysis.analyse_strategy", broken_analyse)
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    shown = []
    w.sigRunShown.connect(shown.append)
    with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS) as error:
        job = w.run(False, SPECS)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    err = error.args[0]
    assert (err.job, err.title, err.message) == (job, "GPU run failed", "analysis exploded")
    assert dialogs == [("GPU run failed", f"analysis exploded\n\n{err.detail[-1500:]}")]
    assert [o.job for o in shown] == [job] and w.analysis is None  # levels came, then the error
    assert threads and threading.get_ident() not in threads  # it ran off the UI thread
    assert w.panel.run_button.isEnabled() and not w.panel.stop_button.isEnabled()


def test_newer_jobs_replace_older_ones(qtbot, make_window, small_png, tmp_path):
    w = make_window()
    other = tmp_path / "other.png"
    other.write_bytes(small_png.read_bytes())
    opened = []
    w.sigImageOpened.connect(opened.append)
    first = w.open_image(str(other))
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == first + 1):
        second = w.open_image(str(small_png))
    assert second == first + 1
    # both loaded; only the second was shown
    assert [o.job for o in opened] == [second] and w.opened.path == str(small_png)

    shown = {"run": [], "analysis": [], "stats": []}
    w.sigRunShown.connect(shown["run"].append)
    w.sigAnalysisShown.connect(shown["analysis"].append)
    w.sigStatsShown.connect(shown["stats"].append)
    finished = []
    w.sigJobFinished.connect(finished.append)
    w.panel.repeat_spin.setValue(2)
    live = w.run(True, SPECS)  # stopped by the next run before it shows anything
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == live + 1):
        newer = w.run(False, SPECS[1:])
    assert newer == live + 1 and finished == [live, newer]
    assert [m.job for m in shown["run"] + shown["analysis"]] == [newer, newer]
    assert {m.job for m in shown["stats"]} == {newer} and shown["stats"][-1].final
    assert [p.key for p in w.pyramid.panels] == ["per-level"]
    assert w.chart.medians() == [t.total.median for _, t in shown["stats"][-1].timings]


def test_stale_results_of_a_stopped_job_are_ignored(qtbot, make_window, small_png):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    old = dict(run_and_wait(qtbot, w, SPECS, repeat=2))  # a copy: its slots stay connected
    new = run_and_wait(qtbot, w, SPECS[1:], repeat=3)
    old_job, new_job = old["output"].job, new["output"].job
    assert old["stats"].job == old_job
    medians = w.chart.medians()
    shown = []
    for sig in (w.sigRunShown, w.sigStatsShown):
        sig.connect(shown.append)

    # what the stopped job would still send: dropped
    send_reply(qtbot, w, old["output"])
    send_reply(qtbot, w, old["stats"])
    assert shown == [] and w.output is new["output"] and w.chart.medians() == medians
    assert [p.key for p in w.pyramid.panels] == ["per-level"]

    # the same messages as the latest job's are shown: the filter is the job id
    send_reply(qtbot, w, LevelsReady(new_job, old["output"].mip, old["output"].level0))
    send_reply(qtbot, w, LiveStats(new_job, "dev", old["stats"].timings, 2, 0.1, True))
    assert [m.job for m in shown] == [new_job, new_job] and old_job != new_job
    assert [p.key for p in w.pyramid.panels] == ["blit", "per-level"]
    assert w.chart.medians() == [t.total.median for _, t in old["stats"].timings]


# --- strategy against strategy ----------------------------------------------------------------
def _table_max(heat) -> list[float]:
    return [heat.table.item(r, 2).data(Qt.ItemDataRole.UserRole)
            for r in range(heat.table.rowCount())]


def test_strategy_against_strategy_is_computed_off_the_ui_thread(qtbot, make_window, small_png,
                                                                monkeypatch):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    mip = run_and_wait(qtbot, w, SPECS, repeat=0)["output"].mip
    blit, per_level = (list(r.levels) for r in mip.results)
    expected = compare.level_errors(blit, per_level, mip.fmt)
    assert any(e.max_error > 0 for e in expected)  # the two differ, so the figures say something

    calls = []
    level_errors = compare.level_errors

    def recording(*args, **kwargs):
        calls.append(threading.get_ident())
        return level_errors(*args, **kwargs)

    monkeypatch.setattr(compare, "level_errors", recording)
    heat = w.heatmap
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS) as got:
        heat.select("blit", "per-level")
        assert heat.table.rowCount() == 0 and "computing blit vs per-level" in heat.summary.text()
    assert len(calls) == 1 and calls[0] != threading.get_ident()
    comparison = got.args[0]
    assert (comparison.strategy, comparison.against) == ("blit", "per-level")
    assert list(comparison.levels) == expected
    assert _table_max(heat) == [e.max_error for e in expected]
    worst = heat.worst_level
    assert np.array_equal(heat.image.image,
                          compare.difference_map(blit[worst], per_level[worst], mip.fmt))
    assert "vs per-level" in heat.summary.text()

    heat.select("blit")  # the exact reference, then back: from the cache, no new job
    exact = next(e for e in w.analysis.errors if e.spec.name == "blit")
    assert _table_max(heat) == [e.max_error for e in exact.levels]
    heat.select("blit", "per-level")
    assert _table_max(heat) == [e.max_error for e in expected] and len(calls) == 1

    # both choices change at once: one job, not one for the pair in between as well
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS):
        heat.select("per-level", "blit")
    assert len(calls) == 2
    assert _table_max(heat) == [e.max_error for e in compare.level_errors(per_level, blit,
                                                                           mip.fmt)]


def test_comparison_of_another_run_is_dropped(qtbot, make_window, small_png):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    out = run_and_wait(qtbot, w, SPECS, repeat=0)["output"]
    heat = w.heatmap
    w._sigCompare.disconnect(w.comparer.work)  # the replies sent below are the only ones
    heat.select("blit", "per-level")
    assert "computing" in heat.summary.text()
    fake = compare.level_errors(list(out.mip.results[0].levels), list(out.mip.results[0].levels),
                                out.mip.fmt)
    maps = tuple(np.zeros(level.shape[:-1], np.float32) for level in out.mip.results[0].levels)
    shown = []
    w.sigComparisonShown.connect(shown.append)
    stale = Comparison(999, out.job - 1, "blit", "per-level", tuple(fake), maps)
    send_reply(qtbot, w, stale, w.comparer)
    assert shown == [] and heat.table.rowCount() == 0
    current = Comparison(999, out.job, "blit", "per-level", tuple(fake), maps)
    send_reply(qtbot, w, current, w.comparer)
    assert shown == [current] and _table_max(heat) == [0.0] * len(fake)


def test_failing_comparison_shows_error_and_can_be_asked_again(qtbot, make_window, small_png,
                                                               monkeypatch, dialogs):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    run_and_wait(qtbot, w, SPECS, repeat=0)
    level_errors = compare.level_errors
    monkeypatch.setattr(compare, "level_errors", lambda *a, **k: 1 / 0)
    heat = w.heatmap
    with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS) as error:
        heat.select("per-level", "blit")
    assert error.args[0].title == "Comparison failed" and dialogs[0][0] == "Comparison failed"
    qtbot.waitUntil(lambda: "not computed" in heat.summary.text(), timeout=WAIT_MS)
    assert not w.is_busy()
    monkeypatch.setattr(compare, "level_errors", level_errors)
    with qtbot.waitSignal(w.sigComparisonShown, timeout=WAIT_MS):
        heat.select("per-level", "blit")
    assert heat.table.rowCount() > 0
