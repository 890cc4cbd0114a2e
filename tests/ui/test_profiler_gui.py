"""The profiler in the window: a saved run against a baseline with the bootstrap
verdict beside each bar, the distributions beside the bars, the clock-changed warning, the
driver in the title, the sampled preview dock, and a shortcut for every Profile action."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtGui import QAction

from mipview.core.results import ClockSample, ClockState, GpuTiming, TimingStats
from mipview.core.specs import StrategySpec
from mipview.runs.timing_figures import DIST_BINS
from mipview.ui.messages import LiveStats
from mipview.ui.views.timing_chart import DISTRIBUTION_VIEW, HISTORY_VIEW, TimingChart

WAIT_MS = 60_000


def _bench(strategies: dict[str, list[float]], driver: str = "565.57") -> dict:
    """A hand-made ``mipview bench --json`` file: every strategy's samples."""
    return {"generator": "mipview 0.1.0",
            "device": {"name": "NVIDIA H200", "type": "discrete", "driver": driver},
            "image": {"width": 4096, "height": 4096, "layers": 1, "format": "unorm"},
            "repeat": 40, "cache": "warm",
            "clock": {"source": "nvml", "sm_mhz": [1980, 1980], "mem_mhz": [3201, 3201],
                      "max_sm_mhz": 1980, "changed": False, "samples": 4},
            "strategies": [{"strategy": name, "timing": {"samples_us": samples},
                            "dispatches": [], "drift": None}
                           for name, samples in strategies.items()]}


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def _interval(text: str) -> tuple[float, float]:
    lo, hi = text[text.index("[") + 1:text.index("]")].split(",")
    return float(lo), float(hi)


def test_baseline_deltas_of_two_hand_made_runs(qtbot, make_window, tmp_path):
    base = [100.0 + (i % 5) for i in range(40)]  # median 102
    old = _bench({"per-level": base, "subgroup": base, "blit": base, "npot-exact": base})
    new = _bench({"per-level": [200.0 + (i % 5) for i in range(40)],  # median 202: slower
                  "subgroup": base[::-1],  # the same samples: within noise
                  "blit": [50.0 + (i % 5) for i in range(40)],  # median 52: faster
                  "single-pass": base})  # not in the baseline
    w = make_window()
    assert w.open_saved_run(_write(tmp_path, "new.json", new))
    assert w.chart.medians() == [202.0, 102.0, 52.0, 102.0]
    assert "driver 565.57" in w.chart.plot.titleLabel.text
    with qtbot.waitSignal(w.sigBaselineShown, timeout=WAIT_MS):
        assert w.load_baseline(_write(tmp_path, "old.json", old))
    deltas = w.chart.baseline_deltas()
    assert set(deltas) == {"per-level", "subgroup", "blit", "single-pass"}
    assert deltas["per-level"].startswith(f"{202 / 102:.3f}x [")
    assert deltas["per-level"].endswith("] slower")
    assert deltas["subgroup"].startswith("1.000x [") and deltas["subgroup"].endswith("] within noise")
    assert deltas["blit"].startswith(f"{52 / 102:.3f}x [") and deltas["blit"].endswith("] faster")
    assert deltas["single-pass"] == "new"
    lo, hi = _interval(deltas["per-level"])
    assert 1.0 < lo <= 202 / 102 <= hi
    lo, hi = _interval(deltas["subgroup"])
    assert lo <= 1.0 <= hi
    lo, hi = _interval(deltas["blit"])
    assert lo <= 52 / 102 <= hi < 1.0
    # the baseline's median as a tick on each bar it has
    assert list(w.chart.baseline_ticks.getData()[1]) == [102.0, 102.0, 102.0]
    assert "NVIDIA H200" in w.chart.baseline_label.text()
    # the shown run as the baseline: every figure within noise of itself
    with qtbot.waitSignal(w.sigBaselineShown, timeout=WAIT_MS):
        assert w.use_run_as_baseline()
    assert all(t.startswith("1.000x [") and t.endswith("within noise")
               for t in w.chart.baseline_deltas().values())
    w.set_baseline(None)
    assert w.chart.baseline_deltas() == {} and not w.chart.baseline_label.isVisible()


def test_a_file_that_is_no_run_is_refused_with_its_reason(make_window, tmp_path, dialogs):
    w = make_window()
    assert not w.load_baseline(_write(tmp_path, "report.json", {"generator": "mipview 0.1",
                                                                "strategies": []}))
    assert dialogs and "want the --json of `mipview bench`" in dialogs[-1][1]
    assert w.baseline_run is None


def _stats(samples: list[float], clock: ClockState | None = None) -> LiveStats:
    return LiveStats(1, "dev", ((StrategySpec("blit"), GpuTiming(TimingStats(tuple(samples)))),),
                     len(samples), 1.0, clock=clock, driver="llvmpipe 24.0")


@pytest.mark.usefixtures("qapp")
def test_the_distribution_view_shows_the_samples_histogram():
    chart = TimingChart()
    # 3 samples at the minimum (bin 0), 2 in bin 12 of 24 over [10, 26], 5 at the maximum
    samples = [10.0] * 3 + [18.3] * 2 + [26.0] * 5
    chart.update_stats(_stats(samples))
    assert chart.history_plot.scene() is not None and chart.dist_plot.scene() is None
    chart.set_view(DISTRIBUTION_VIEW)
    assert chart.dist_plot.scene() is not None and chart.history_plot.scene() is None
    lower_edges, widths = chart.distribution(0)
    assert len(widths) == DIST_BINS
    np.testing.assert_allclose(lower_edges, np.linspace(10.0, 26.0, DIST_BINS + 1)[:-1])
    expected = np.zeros(DIST_BINS)
    expected[[0, 12, DIST_BINS - 1]] = [3, 2, 5]
    np.testing.assert_allclose(widths, expected / 5)
    chart.update_stats(_stats([10.0] * 5 + [26.0] * 5))  # redrawn in place with new counts
    expected[:] = 0
    expected[[0, DIST_BINS - 1]] = [1, 1]
    np.testing.assert_allclose(chart.distribution(0)[1], expected)
    chart.set_view(HISTORY_VIEW)
    assert chart.history_plot.scene() is not None and chart.dist_plot.scene() is None


@pytest.mark.usefixtures("qapp")
def test_the_clock_changed_warning_shows_on_a_drifting_run():
    chart = TimingChart()
    steady = ClockState("nvml", tuple(ClockSample(i, 1980, 3201) for i in range(8)), 1980)
    chart.update_stats(_stats([100.0] * 40, steady))
    assert chart.warning_label.isHidden()
    # warming up mid-run: slow samples while the clock was low, fast ones once it rose
    dropped = ClockState("nvml", tuple(ClockSample(i, 1400 if i < 2 else 1980, 3201)
                                       for i in range(8)), 1980)
    drifting = [150.0 + (i % 3) for i in range(10)] + [100.0 + (i % 3) for i in range(30)]
    chart.update_stats(_stats(drifting, dropped))
    assert not chart.warning_label.isHidden()
    text = chart.warning_label.text()
    assert "changed mid-run" in text and "1400 -> 1980 MHz after 25% of the timed runs" in text
    assert chart.drifting()[0] is not None  # the bar says it drifted, too
    assert "driver llvmpipe 24.0" in chart.plot.titleLabel.text
    chart.update_stats(_stats([100.0] * 40, steady))
    assert chart.warning_label.isHidden()


def test_every_profile_action_has_its_own_shortcut(make_window):
    w = make_window()
    menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Profile")
    actions = [a for a in menu.actions() if not a.isSeparator()]
    assert len(actions) >= 7 and all(not a.shortcut().isEmpty() for a in actions)
    every = [a.shortcut().toString() for a in w.findChildren(QAction)
             if not a.shortcut().isEmpty()]
    assert len(every) == len(set(every)), every
    w.distributions_action.trigger()
    assert w.chart.view() == DISTRIBUTION_VIEW


def test_the_sampled_preview_renders_the_chosen_result(qtbot, make_window, small_png):
    from tests.ui.test_main_window import open_and_wait, run_and_wait

    w = make_window()
    open_and_wait(qtbot, w, small_png)
    got = run_and_wait(qtbot, w, specs=[StrategySpec("per-level")], repeat=2)
    assert w.preview.strategy() == "per-level"
    w.show()
    with qtbot.waitSignal(w.sigPreviewShown, timeout=WAIT_MS) as blocker:
        w.preview_dock.toggleViewAction().trigger()  # Profile > Sampled preview
    out = blocker.args[0]
    assert out.name == "per-level" and out.image.rgba.shape == (320, 512, 4)
    levels = len(got["output"].mip.results[0].levels)
    assert len(out.image.level_share) == levels and sum(out.image.level_share) == \
        pytest.approx(1.0)
    with qtbot.waitSignal(w.sigPreviewShown, timeout=WAIT_MS) as blocker:
        w.preview.tint_action.trigger()
    assert blocker.args[0].image.rgba.tobytes() != out.image.rgba.tobytes()
    assert out.image.peak is None
    # its error against the exact reference, sampled the same way (the heatmaps are in)
    errors = w.heatmap.exact["per-level"]
    with qtbot.waitSignal(w.sigPreviewShown, timeout=WAIT_MS) as blocker:
        w.show_preview("quad", error=True)
    assert blocker.args[0].image.peak == max(float(m.max()) for m in errors.maps)


def test_automation_shows_a_baseline_distributions_and_the_preview(tmp_path, small_png):
    import os
    import subprocess
    import sys
    from pathlib import Path

    from PySide6.QtGui import QImage

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "cfg"), QT_QPA_PLATFORM="offscreen")
    base = _write(tmp_path, "base.json", _bench({"blit": [100.0] * 10}))
    out = tmp_path / "prof.png"

    def gui(*extra):
        return subprocess.run([sys.executable, "-m", "mipview", "gui", str(small_png), "--run",
                               "blit,per-level", "--distributions", "--preview",
                               "quad-error", "--screenshot", str(out), "--quit", *extra],
                              cwd=root, env=env, capture_output=True, text=True, timeout=120)

    res = gui("--baseline", base)
    assert res.returncode == 0, res.stdout + res.stderr
    assert QImage(str(out)).width() == 1600
    out.unlink()
    res = gui("--baseline", str(tmp_path / "none.json"))  # one line, before any window
    assert res.returncode == 2 and "none.json: no such file" in res.stderr
    assert not out.exists()
