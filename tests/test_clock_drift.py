"""Clock readings (NVML through a stand-in module: CI has no NVIDIA GPU) and the drift check."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from mipview.core.formats import Format
from mipview.core.results import DeviceSummary, RunResult
from mipview.gpu.measure.clocks import NVIDIA_VENDOR_ID, ClockSample, ClockState, open_reader
from mipview.runs import report
from mipview.runs.drift import detect_drift


class FakeNvml:
    """The few pynvml calls mipview makes, over a scripted SM clock."""

    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2

    def __init__(self, names: list[str], sm: list[int], fail: bool = False) -> None:
        self.names, self.sm, self.fail = names, list(sm), fail

    def nvmlInit(self) -> None:  # noqa: N802 - pynvml's names
        if self.fail:
            raise RuntimeError("NVML Shared Library Not Found")

    def nvmlDeviceGetCount(self) -> int:  # noqa: N802
        return len(self.names)

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:  # noqa: N802
        return i

    def nvmlDeviceGetName(self, h: int) -> bytes:  # noqa: N802
        return self.names[h].encode()

    def nvmlDeviceGetMaxClockInfo(self, h: int, kind: int) -> int:  # noqa: N802
        return 1980

    def nvmlDeviceGetClockInfo(self, h: int, kind: int) -> int:  # noqa: N802
        if kind == self.NVML_CLOCK_MEM:
            return 3201
        return self.sm.pop(0) if len(self.sm) > 1 else self.sm[0]


def test_reader_matches_the_vulkan_device_by_name_and_reads_clocks():
    nvml = FakeNvml(["NVIDIA A100", "NVIDIA H200"], [345, 1980, 1980])
    reader = open_reader("NVIDIA H200", NVIDIA_VENDOR_ID, nvml)
    assert reader is not None and reader._handle == 1
    samples = [reader.sample() for _ in range(3)]
    state = reader.state([s for s in samples if s is not None])
    assert state.sm_range == (345, 1980) and state.mem_range == (3201, 3201)
    assert state.changed and state.label() == "SM 345-1980 MHz, mem 3201 MHz"
    assert state.as_dict()["max_sm_mhz"] == 1980


def test_no_reader_where_nothing_can_be_read():
    assert open_reader("llvmpipe (LLVM 15.0.6, 256 bits)", 0x10005) is None  # not NVIDIA
    assert open_reader("NVIDIA H200", NVIDIA_VENDOR_ID, FakeNvml([], [], fail=True)) is None
    assert open_reader("NVIDIA H200", NVIDIA_VENDOR_ID,
                       FakeNvml(["NVIDIA A100", "NVIDIA L4"], [1000])) is None


def test_steady_clock_is_not_a_change():
    state = ClockState("nvml", tuple(ClockSample(i, 1980 - i, 3201) for i in range(5)), 1980)
    assert not state.changed and state.label() == "SM 1976-1980 MHz, mem 3201 MHz"


def test_a_clock_that_changed_mid_run_says_where_and_survives_the_json():
    readings = [1410, 1410, 1980, 1980, 1980, 1975, 1980, 1980]  # rose after 2 of 8 rounds
    state = ClockState("nvml", tuple(ClockSample(10.0 + i, sm, 3201)
                                     for i, sm in enumerate(readings)), 1980)
    assert state.changed and state.step() == (1410, 1980, 0.25)
    assert state.warning() == ("the GPU clock changed mid-run (SM 1410-1980 MHz; largest step "
                               "1410 -> 1980 MHz after 25% of the timed runs): the figures "
                               "are not comparable")
    d = json.loads(json.dumps(state.as_dict()))
    assert d["warning"] == state.warning() and d["readings"][2] == [2.0, 1980, 3201]
    back = ClockState.from_dict(d)
    assert back.step() == state.step() and back.warning() == state.warning()
    # written before the readings were kept: the range still says it changed
    old = ClockState.from_dict({k: v for k, v in d.items() if k != "readings"})
    assert old.changed and old.sm_range == (1410, 1980)
    steady = ClockState("nvml", tuple(ClockSample(i, 1980, 3201) for i in range(8)), 1980)
    assert steady.warning() is None and steady.step() == (1980, 1980, 0.125)
    mip = RunResult(Format.UNORM, 4, 4, 1, DeviceSummary("NVIDIA H200", "discrete", "565",
                                                         "1.3", 32), (), clock=state)
    assert report.clock_line(mip).endswith("; WARNING: " + state.warning())
    assert "WARNING" not in report.clock_line(replace(mip, clock=steady))


def test_drift_is_found_in_a_warming_gpu_and_not_in_noise():
    rng = np.random.default_rng(1)
    steady = 40.0 + rng.normal(0, 1.5, 40)
    assert detect_drift(steady) is None
    # the H200 seen from an idle start: 120-250 us falling to 30-60 us
    warming = np.concatenate([np.linspace(200, 50, 12), 45 + rng.normal(0, 2, 28)])
    d = detect_drift(warming)
    assert d is not None and d.change < -0.5 and d.p_first_slower > 0.9
    assert "drifting" in d.label()
    # a clock that rises mid-run the other way (throttling) is drift too
    assert detect_drift(warming[::-1]) is not None


@pytest.mark.parametrize("n", [0, 3, 15])
def test_too_few_samples_say_nothing(n):
    assert detect_drift(np.linspace(100, 10, n)) is None


def test_a_small_steady_shift_within_five_percent_is_noise():
    a = np.concatenate([np.full(20, 100.0), np.full(20, 97.0)])
    assert detect_drift(a) is None


def test_session_records_the_clock_after_every_timed_round(gpu, monkeypatch):
    """The one timing path samples the clock after each round and puts it on the result."""
    from mipview.core.formats import Format
    from mipview.core.results import TimingSettings
    from mipview.core.specs import StrategySpec
    from mipview.gpu.measure import clocks
    from mipview.gpu.measure.clocks import ClockReader
    from mipview.gpu.session import Session

    reader = ClockReader(FakeNvml(["x"], [1980, 1980, 1500]), 0)
    monkeypatch.setattr(clocks, "clock_reader", lambda ctx: reader)
    level0 = np.zeros((8, 8, 4), np.uint8)
    with Session(gpu, level0, Format.UNORM, [StrategySpec("per-level")]) as session:
        session.generate()
        assert session.result().clock is None  # not timed yet
        session.time_with(TimingSettings(repeat=6, warmup_ms=0, runs_per_batch=2))
        clock = session.result().clock
    assert clock is not None and len(clock.samples) == 3  # 6 runs, 2 per round
    assert clock.sm_range == (1500, 1980) and clock.changed


def test_warm_up_ends_once_the_clock_has_held_its_maximum(monkeypatch):
    """ClockLog.warm: the SM clock at the device's maximum for WARM_S, not before; a reading
    below the maximum starts the wait over; nothing readable never ends a warm-up early."""
    from mipview.gpu.measure import clocks
    from mipview.gpu.measure.clocks import ClockLog, ClockReader

    now = [0.0]
    monkeypatch.setattr(clocks.time, "perf_counter", lambda: now[0])
    reader = ClockReader(FakeNvml(["x"], [345, 1980, 1980, 1500, 1980, 1980, 1980]), 0)
    monkeypatch.setattr(clocks, "clock_reader", lambda ctx: reader)
    log = ClockLog(None)
    seen = []
    for _ in range(7):
        seen.append(log.warm())
        now[0] += clocks.WARM_S / 2
    # 345: cold; 1980 twice: half of WARM_S; 1500 starts over; then 0, 1/2, 1 x WARM_S at max
    assert seen == [False, False, False, False, False, False, True]
    assert not log._samples  # warm-up readings are not samples of the timing
    monkeypatch.setattr(clocks, "clock_reader", lambda ctx: None)
    assert not any(ClockLog(None).warm() for _ in range(3))


def test_session_warm_up_stops_when_the_clock_is_up(gpu, monkeypatch):
    """The one timing loop asks the clock after each warm-up round: a GPU at its maximum clock
    is timed after WARM_S instead of the full warm-up; one that never gets there warms up the
    whole time."""
    import time

    from mipview.core.formats import Format
    from mipview.core.results import TimingSettings
    from mipview.core.specs import StrategySpec
    from mipview.gpu.measure import clocks
    from mipview.gpu.measure.clocks import ClockReader
    from mipview.gpu.session import Session

    level0 = np.zeros((8, 8, 4), np.uint8)
    took = {}
    for sm in (1980, 1500):
        reader = ClockReader(FakeNvml(["x"], [sm]), 0)
        monkeypatch.setattr(clocks, "clock_reader", lambda ctx, r=reader: r)
        with Session(gpu, level0, Format.UNORM, [StrategySpec("per-level")]) as session:
            t = time.perf_counter()
            session.time_with(TimingSettings(repeat=2, warmup_ms=1500, runs_per_batch=2))
            took[sm] = time.perf_counter() - t
    assert took[1980] < 1.0 <= 1.5 <= took[1500]
