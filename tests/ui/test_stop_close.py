"""Stop and close take effect at once: a stopped Run's analysis ends within a level, closing the
window never waits for a busy worker, and automation (``--quit``/``--screenshot``) reports an
error on stderr and exits 2 instead of waiting in a modal dialog."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np
from PIL import Image

from mipview.check import reference
from tests.ui.test_main_window import ROOT, SPECS, WAIT_MS, open_and_wait

#: what Stop and close must take (0.5 s), with room for a loaded 2-core CI machine
LATENCY_S = 1.5


@dataclass(frozen=True)
class _Busy:
    """A job that keeps its worker busy without looking at Stop."""

    job: int


def test_close_returns_without_waiting_for_a_busy_worker(qtbot, make_window):
    w = make_window()
    started, release = threading.Event(), threading.Event()

    def busy(req, stop):
        started.set()
        release.wait(20)

    w.worker.handle(_Busy, "Busy", busy)
    w._send("run", _Busy)
    assert started.wait(WAIT_MS / 1000)
    t0 = time.perf_counter()
    w.close()
    closed_s = time.perf_counter() - t0
    release.set()
    assert closed_s < LATENCY_S
    assert w.worker.thread() is w.thread_  # still there: the worker ends it by itself
    t0 = time.perf_counter()
    w.shutdown()  # whoever ran the event loop joins the threads afterwards
    assert time.perf_counter() - t0 < LATENCY_S
    assert not w.thread_.isRunning() and not w.compare_thread.isRunning()


def _slow_levels(monkeypatch, seconds: float) -> dict[str, list[float]]:
    """Every exact reduction step takes ``seconds`` longer, as at 4096² on a slow machine;
    returns the times each one finished."""
    done: dict[str, list[float]] = {"at": []}
    real = reference.reduce_level

    def slow(values):
        out = real(values)  # its checkpoint comes first: a stopped job makes no new level
        time.sleep(seconds)
        done["at"].append(time.perf_counter())
        return out

    monkeypatch.setattr(reference, "reduce_level", slow)
    return done


def test_stop_during_the_analysis_ends_the_job_at_once(qtbot, make_window, small_png,
                                                        monkeypatch):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    levels = _slow_levels(monkeypatch, 0.6)  # 64x48: 6 levels per pyramid, 3.6 s each
    w.panel.repeat_spin.setValue(0)  # levels, then the analysis
    analysed = []
    w.sigAnalysisShown.connect(analysed.append)
    with qtbot.waitSignal(w.sigRunShown, timeout=WAIT_MS):
        job = w.run(False, SPECS)
    qtbot.waitUntil(lambda: len(levels["at"]) >= 1, timeout=WAIT_MS)  # the reference is under way
    t0 = time.perf_counter()
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == job):
        w.stop()
    stop_s = time.perf_counter() - t0
    assert stop_s < LATENCY_S
    assert analysed == [] and w.errors == []  # stopped quietly, nothing half-shown
    # the reference under way ends at its next level, in the background: at most one more
    qtbot.wait(1500)
    assert len([t for t in levels["at"] if t > t0]) <= 1
    # the next Run of the image computes that reference again, in full
    monkeypatch.undo()
    with qtbot.waitSignal(w.sigAnalysisShown, timeout=WAIT_MS):
        w.run(False, SPECS)
    assert all(e.within_tolerance for e in analysed[-1].errors)


def test_close_during_the_analysis_ends_the_threads_within_a_level(qtbot, make_window,
                                                                    small_png, monkeypatch):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    levels = _slow_levels(monkeypatch, 0.6)
    w.panel.repeat_spin.setValue(0)
    w.run(False, SPECS)
    qtbot.waitUntil(lambda: len(levels["at"]) >= 1, timeout=WAIT_MS)
    t0 = time.perf_counter()
    w.close()
    assert time.perf_counter() - t0 < LATENCY_S
    w.shutdown()  # the analysis pool ends with the worker: within the level under way
    assert time.perf_counter() - t0 < LATENCY_S + 0.6
    assert not w.thread_.isRunning()


def test_automation_reports_a_bad_image_and_exits_2(tmp_path):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "cfg"), QT_QPA_PLATFORM="offscreen")
    missing = tmp_path / "nonexistent.png"
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    shot = tmp_path / "shot.png"
    for path, extra in ((missing, ["--quit"]), (broken, ["--screenshot", str(shot)])):
        res = subprocess.run([sys.executable, "-m", "mipview", "gui", str(path), *extra],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert res.returncode == 2, res.stdout + res.stderr
        ours = [line for line in res.stderr.splitlines() if line.startswith("error:")]
        assert len(ours) == 1 and path.name in ours[0], res.stderr
        assert "Traceback" not in res.stderr
    assert not shot.exists()


def test_automation_still_exits_0_on_a_good_image(tmp_path):
    good = tmp_path / "good.png"
    Image.fromarray(np.full((16, 16, 4), 200, np.uint8)).save(good)
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "cfg"), QT_QPA_PLATFORM="offscreen")
    res = subprocess.run([sys.executable, "-m", "mipview", "gui", str(good), "--quit"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "error:" not in res.stderr


def test_a_job_registered_without_checkpoints_is_not_abandoned_by_them(qapp):
    from mipview.core.cancel import checkpoint
    from mipview.ui.workers.jobs import JobWorker

    done: list[tuple[str, int]] = []

    def handler(req, stop):
        checkpoint()  # the numpy work such a job calls
        done.append(("through", req.job))

    for checkpoints, expected in ((True, []), (False, [("through", 1)])):
        w = JobWorker()
        w.handle(_Busy, "Busy", handler, checkpoints=checkpoints)
        errors, finished = [], []
        w.sigError.connect(errors.append)
        w.sigJobFinished.connect(finished.append)
        done.clear()
        w.cancel(1)
        w.work(_Busy(1))
        assert done == expected and errors == [] and finished == [1]
