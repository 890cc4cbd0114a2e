"""The Sweep tab: a small width sweep runs in the worker; the plot holds exactly the
SweepResult's numbers (the same loop as ``mipview sweep``), and Stop ends it early."""

from __future__ import annotations

import numpy as np

from mipview.core.formats import Format
from mipview.core.specs import StrategySpec

WAIT_MS = 60_000
SPECS = [StrategySpec("blit"), StrategySpec("per-level")]


def sweep_and_wait(qtbot, w, stop: bool = False):
    got = []
    w.sigSweepShown.connect(got.append)
    before = len(w.errors)
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS) as blocker:
        job = w.run_sweep()
        assert job is not None
        if stop:
            w.sweep.stop_button.click()
    assert blocker.args == [job]
    assert w.errors[before:] == [] and len(got) == 1
    return got[0].result


def setup(w, first: int, last: int, height: int) -> None:
    w.panel.set_specs(SPECS)
    view = w.sweep
    view.from_spin.setValue(first)
    view.to_spin.setValue(last)
    view.height_spin.setValue(height)
    view.format_combo.setCurrentIndex(view.format_combo.findData(Format.SRGB.label))


def test_sweep_plot_holds_the_result(qtbot, make_window):
    w = make_window()
    setup(w, 30, 34, 17)
    res = sweep_and_wait(qtbot, w)
    assert res.validation_messages == () and not res.stopped
    assert res.widths == (30, 31, 32, 33, 34) and res.fmt is Format.SRGB
    assert [n for n, _ in res.errors] == ["blit", "per-level"]
    view = w.sweep
    assert list(view.curves) == ["gpu-mean", "blit", "per-level"]
    for name, errors in [("gpu-mean", res.gpu_mean), *res.errors]:
        x, y = view.curve_data(name)
        np.testing.assert_array_equal(x, res.widths)
        np.testing.assert_array_equal(y, errors)
    assert [item.text for _, item in view.legend.items] == ["gpu-mean", "blit", "per-level"]
    assert "LSB" in view.plot.getAxis("left").labelText + view.plot.getAxis("left").labelUnits
    assert view.progress.value() == view.progress.maximum() == 5
    # per-level stays within the exact-strategy tolerance; blit's NPOT 1x1 level does not
    _, per_level = view.curve_data("per-level")
    _, blit = view.curve_data("blit")
    assert per_level.max() <= 1.5
    assert np.any(blit > per_level) and blit.max() > per_level.max()


def test_sweep_stop(qtbot, make_window):
    w = make_window()
    setup(w, 30, 60, 17)
    res = sweep_and_wait(qtbot, w, stop=True)
    assert res.stopped and len(res.widths) < 31
    assert w.sweep.summary.text().startswith(f"{len(res.widths)} widths (stopped)")
    assert w.sweep.run_button.isEnabled() and not w.sweep.stop_button.isEnabled()
