"""The window times exactly as ``mipview bench`` does: one timing function
(mipview.gpu.vulkan.timing.time_interleaved, through Session.time_with) with the same settings, the
ones TimingSettings.for_device builds for the device (cli.py will build bench's the same way:
``for_device(caps.device_type, repeat=args.repeat, warmup_ms=args.warmup_ms or None,
cold=args.cold, evict=args.evict)``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mipview.cli import main as cli
from mipview.core.results import TimingSettings
from mipview.gpu import session
from tests.ui.test_main_window import SPECS, WAIT_MS, open_and_wait


@pytest.fixture
def timed(monkeypatch):
    """(settings, number of things timed) of every call of the one timing loop."""
    calls = []
    real = session.time_interleaved

    def spy(works, settings, *args, **kwargs):
        calls.append((settings, len(works)))
        return real(works, settings, *args, **kwargs)

    monkeypatch.setattr(session, "time_interleaved", spy)
    return calls


def _window(qtbot, make_window, png, cold: bool, timed) -> tuple[TimingSettings, str]:
    w = make_window()
    open_and_wait(qtbot, w, png)
    w.panel.repeat_spin.setValue(4)
    w.panel.cold_check.setChecked(cold)
    before = len(timed)
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        w.run(False, SPECS)
    assert w.errors == []
    [(settings, works)] = timed[before:]
    assert works == len(SPECS)
    return settings, w.caps.device_type


def _bench(png, cold: bool, timed) -> TimingSettings:
    before = len(timed)
    argv = ["bench", str(png), "--strategies", ",".join(str(s) for s in SPECS), "--repeat",
            "4", "--no-check", "--device", "llvmpipe", *(["--cold"] if cold else [])]
    assert cli.main(argv) == 0
    [(settings, works)] = timed[before:]
    assert works == len(SPECS)
    return settings


@pytest.mark.parametrize("cold", [False, True], ids=["warm", "cold"])
def test_window_and_bench_time_through_one_function(qtbot, make_window, small_png, timed, cold):
    window, device_type = _window(qtbot, make_window, small_png, cold, timed)
    assert window == TimingSettings.for_device(device_type, repeat=4, cold=cold)
    assert window.cold is cold and window.evict == "clean"
    bench = _bench(small_png, cold, timed)
    # everything but the warm-up already agrees (bench's default warm-up is cli.py's own
    # 1000 ms until it takes the device's default, which is 0 on lavapipe)
    assert replace(bench, warmup_ms=window.warmup_ms) == window


def test_window_and_bench_time_with_the_same_settings(qtbot, make_window, small_png, timed):
    window, _ = _window(qtbot, make_window, small_png, False, timed)
    assert _bench(small_png, False, timed) == window
