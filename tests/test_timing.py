"""The one timing loop: warm-up by wall time, warm samples dropped, ``repeat`` runs per work
interleaved batch by batch; Session, BatchSession and time_mean all time through it."""

from __future__ import annotations

import time

import numpy as np
import pytest

from mipview.core.formats import Format, to_storage
from mipview.core.results import TimingSettings
from mipview.core.specs import StrategySpec
from mipview.gpu.session import Session
from mipview.gpu.vulkan import timing
from mipview.gpu.vulkan.vkapi import vk


class _Work:
    """Stands in for a TimedWork: logs its submits, one fake sample per kept run."""

    def __init__(self, name, log, delay=0.0):
        self.name, self.log, self.delay = name, log, delay
        self.runs = [(0.0, [])]  # an earlier (generate) run, not a warm sample

    def submit(self, runs, keep):
        time.sleep(self.delay)
        self.log.append((self.name, runs, keep))
        if keep:
            self.runs += [(1.0, [])] * runs

    def clear(self):
        self.runs.clear()


def test_defaults_are_the_bench_defaults():
    s = TimingSettings()
    assert (s.repeat, s.warmup_ms, s.runs_per_batch, s.cold, s.evict) == (50, 1000.0, 25, False,
                                                                          "clean")


def test_interleaved_batch_by_batch():
    log = []
    works = [_Work("a", log), _Work("b", log), _Work("c", log)]
    rounds = []
    assert timing.time_interleaved(works, TimingSettings(7, 0.0, 3),
                                   on_batch=lambda: rounds.append(len(log)))
    assert log == [(w, n, True) for n in (3, 3, 1) for w in "abc"]
    assert rounds == [3, 6, 9]
    assert all(len(w.runs) == 7 for w in works)  # the generate run is dropped


def test_warm_up_by_wall_time_keeps_nothing():
    log = []
    works = [_Work("a", log, delay=0.01), _Work("b", log, delay=0.01)]
    assert timing.time_interleaved(works, TimingSettings(2, 60.0, 5))
    warm = [e for e in log if not e[2]]
    assert len(warm) >= 4 and warm[:2] == [("a", 2, False), ("b", 2, False)]
    assert log[len(warm):] == [("a", 2, True), ("b", 2, True)]
    assert all(len(w.runs) == 2 for w in works)


def test_should_stop_ends_early():
    log = []
    works = [_Work("a", log)]
    assert not timing.time_interleaved(works, TimingSettings(10, 0.0, 2),
                                       should_stop=lambda: len(log) >= 2)
    assert log == [("a", 2, True), ("a", 2, True)]
    assert not timing.time_interleaved([_Work("b", [])], TimingSettings(10, 50.0, 2),
                                       should_stop=lambda: True)


def _level0(rng):
    return to_storage(rng.random((40, 60, 4)), Format.UNORM)


def test_session_time_with_settings_and_eviction(gpu, rng, monkeypatch):
    fills = []
    real_fill = vk.vkCmdFillBuffer
    monkeypatch.setattr(vk, "vkCmdFillBuffer",
                        lambda cmd, buf, off, size, v: (fills.append(size),
                                                        real_fill(cmd, buf, off, size, v)))
    specs = [StrategySpec("per-level"), StrategySpec("blit")]
    with Session(gpu, _level0(rng), Format.UNORM, specs) as s:
        s.generate()
        assert s.cold is None
        s.time_with(TimingSettings(3, 0.0, 2))
        assert not fills
        assert all(len(r.timing.total.samples_us) == 3 for r in s.result().results)
        # the same session, now cold with dirty lines: the batches are re-recorded with a fill
        s.time_with(TimingSettings(4, 0.0, 4, cold=True, evict="dirty"))
        assert s.cold == "dirty" and s.evictor is not None
        # one fill zeroes the new buffer, then one before each of the 2 x 4 runs
        assert len(fills) == 1 + 2 * 4 and set(fills) == {s.evictor.buffer.size}
        res = s.result().results
        assert all(len(r.timing.total.samples_us) == 4 for r in res)
        # a new batch size, the same eviction: the evictor is kept, the batches re-recorded
        fills.clear()
        evictor = s.evictor
        s.time_with(TimingSettings(2, 0.0, 2, cold=True, evict="dirty"))
        assert s.evictor is evictor and len(fills) == 2 * 2
        s.time_with(TimingSettings(1, 0.0, 1))
        assert s.cold is None and s.evictor is None


def test_cold_settings_evict_clean_lines_by_default(gpu, rng):
    with Session(gpu, _level0(rng), Format.UNORM, [StrategySpec("per-level")]) as s:
        assert s.cold is None  # a session times warm until its settings say otherwise
        s.generate()
        assert s.time_with(TimingSettings(2, 0.0, cold=True))
        assert s.cold == "clean"


def test_time_mean_goes_through_the_loop(gpu, rng, monkeypatch):
    from mipview.gpu.mean import time_mean

    calls = []
    real = timing.time_interleaved
    monkeypatch.setattr("mipview.gpu.mean.time_interleaved",
                        lambda works, settings, *a: (calls.append(settings),
                                                     real(works, settings, *a))[1])
    stats = time_mean(gpu, _level0(rng), Format.UNORM, repeat=5, warmup_ms=0,
                      runs_per_batch=2)
    assert calls == [TimingSettings(5, 0, 2)]
    assert len(stats.samples_us) == 5 and np.all(np.asarray(stats.samples_us) > 0)


def test_batch_session_goes_through_the_loop(gpu, rng, monkeypatch):
    from mipview.gpu.batch.runner import BatchSession

    calls = []
    real = timing.time_interleaved
    monkeypatch.setattr("mipview.gpu.batch.runner.time_interleaved",
                        lambda works, settings, *a: (calls.append(len(works)),
                                                     real(works, settings, *a))[1])
    images = [_level0(rng), to_storage(rng.random((5, 9, 4)), Format.UNORM)]
    with BatchSession(gpu, images, Format.UNORM, ["loop", "po2-buckets"]) as bs:
        bs.generate()
        assert bs.time_with(TimingSettings(3, 0.0, 2))
        res = bs.result()
    assert calls == [2]
    assert [len(w.timing.total.samples_us) for w in res.ways] == [3, 3]


@pytest.mark.parametrize("repeat", [0, 1])
def test_tiny_repeats(repeat):
    log = []
    assert timing.time_interleaved([_Work("a", log)], TimingSettings(repeat, 0.0, 10))
    assert log == [("a", 1, True)] * repeat


def test_run_start_stamps_keep_nanoseconds_on_a_clock_counted_from_1970():
    """NVIDIA's timestamps count ns since 1970 (~1.7e18): as plain float microseconds they
    would step by 0.25 us; counted from the context's first stamp they keep every tick."""
    from types import SimpleNamespace

    pool = object.__new__(timing.TimestampPool)
    pool.ctx = SimpleNamespace(caps=SimpleNamespace(timestamp_period_ns=1.0), caches={})
    pool._mask = (1 << 64) - 1
    base = 1_700_000_000_000_000_000
    ticks = [base, base + 1, base + 1_000_003]
    assert [pool.stamp_us(ticks, i) for i in range(3)] == [0.0, 0.001, 1000.003]
    assert pool.stamp_us([base - 2000], 0) == -2.0  # one origin for every later read


def test_warm_up_ends_when_warm_says_so():
    log = []
    asked = []
    works = [_Work("a", log)]
    assert timing.time_interleaved(works, TimingSettings(2, 60_000.0, 2),
                                   warm=lambda: asked.append(1) or len(asked) >= 3)
    assert [e for e in log if not e[2]] == [("a", 2, False)] * 3  # three rounds, not a minute
    assert log[3:] == [("a", 2, True)] and len(asked) == 3
