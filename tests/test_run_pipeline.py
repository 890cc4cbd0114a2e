"""The window's Run without Qt (mipview.runs.staged): steps in order, timings through the one
timing path, the same verdicts and heatmaps as the serial path, references computed once, stop."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from mipview.check import compare, verdict
from mipview.core.formats import Format, to_storage
from mipview.core.results import TimingSettings
from mipview.core.specs import StrategySpec
from mipview.runs import staged
from mipview.runs.staged import RunListener

RESOURCES = Path(__file__).resolve().parent.parent / "resources"

SPECS = [StrategySpec("blit"), StrategySpec("per-level"), StrategySpec("single-pass")]


def _level0(fmt: Format = Format.UNORM, w: int = 37, h: int = 24) -> np.ndarray:
    a = to_storage(np.random.default_rng(7).random((h, w, 4)), fmt)
    a.setflags(write=False)
    return a


class Recorder(RunListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def levels(self, mip, notes=()):
        self.events.append(("levels", mip))

    def warming_up(self, settings):
        self.events.append(("warming_up", settings))

    def timing_update(self, mip):
        self.events.append(("timing_update", mip))

    def timings(self, mip):
        self.events.append(("timings", mip))

    def reference(self, levels):
        self.events.append(("reference", levels))

    def analysed(self, done, total, errors):
        self.events.append(("analysed", (done, total, errors)))

    def kinds(self) -> list[str]:
        out = [k for k, _ in self.events]
        return [k for i, k in enumerate(out) if k != "timing_update" or out[i - 1] != k]


@pytest.fixture
def pool():
    with ThreadPoolExecutor(2) as p:
        yield p


def test_steps_come_in_order_and_figures_match_the_serial_verdict(gpu, pool):
    level0 = _level0()
    rec = Recorder()
    settings = TimingSettings(repeat=6, warmup_ms=0, runs_per_batch=2)
    out = staged.run(gpu, level0, Format.UNORM, SPECS, staged.RunOptions(settings), verdict.ReferenceCache(),
                           rec, pool=pool)
    assert out is not None and not out.mip.validation_messages
    kinds = rec.kinds()
    assert kinds[:2] == ["levels", "warming_up"]
    assert kinds[-5:] == ["timings", "reference", "analysed", "analysed", "analysed"]
    assert out.levels_s <= out.timings_s <= out.done_s
    # the levels came before any timing; the timings hold `repeat` samples each
    assert all(r.timing is None or len(r.timing.total.samples_us) == 1
               for r in rec.events[0][1].results)
    assert [len(r.timing.total.samples_us) for r in out.mip.results] == [6, 6, 6]
    assert [d for k, (d, _, _) in ((k, v) for k, v in rec.events if k == "analysed")] == [1, 2, 3]

    # the same verdict and heatmaps as judging one strategy after the other
    refs = verdict.ReferenceCache()
    for res, got in zip(out.mip.results, out.errors, strict=True):
        assert got.spec == res.spec
        assert got.verdict == verdict.judge_result(res, level0, Format.UNORM, refs)
        want = compare.error_maps(list(res.levels), refs.get(level0, Format.UNORM,
                                                            res.reduction), Format.UNORM)
        assert all(np.array_equal(a, b) for a, b in zip(got.maps, want, strict=True))
    mean = refs.get(level0, Format.UNORM, "mean")
    assert out.reference[0] is level0
    assert all(np.array_equal(a, b.astype(np.float32))
               for a, b in zip(out.reference[1:], mean[1:], strict=True))


def test_on_a_gpu_the_analysis_runs_while_timing_and_is_reported_after(gpu, pool, monkeypatch):
    """On a GPU (not a CPU device, whose cores the timing uses) every strategy's analysis starts
    while the GPU warms up and is timed; the figures still come after the timings, the same as
    judging the strategies one after the other, each level computed once (the cache keeps the
    figures: the analysis after the timings finds them)."""
    import dataclasses

    monkeypatch.setattr(gpu, "caps", dataclasses.replace(gpu.caps, device_type="discrete"))
    rec = Recorder()
    seen_at = []
    real = staged.analysis.analyse_strategy

    def spying(*args):
        seen_at.append([k for k, _ in rec.events])
        return real(*args)

    levels = []
    real_level = compare._level_error

    def counting(a, ref, fmt, level, with_map, mag=None):
        levels.append(level)
        return real_level(a, ref, fmt, level, with_map, mag)

    monkeypatch.setattr(staged.analysis, "analyse_strategy", spying)
    monkeypatch.setattr(compare, "_level_error", counting)
    level0 = _level0()
    settings = TimingSettings(repeat=4, warmup_ms=300, runs_per_batch=2)
    out = staged.run(gpu, level0, Format.UNORM, SPECS, staged.RunOptions(settings), verdict.ReferenceCache(),
                           rec, pool=pool)
    assert out is not None and not out.mip.validation_messages
    assert len(seen_at) == 2 * len(SPECS)  # during the timing, then after it
    assert all("timings" not in kinds for kinds in seen_at[:len(SPECS)])
    assert rec.kinds()[-5:] == ["timings", "reference", "analysed", "analysed", "analysed"]
    # levels above 0 only once (step and chain figures, blit's own): the second pass reads them
    above0 = len(levels) - levels.count(0)
    assert above0 <= sum(3 * (len(r.levels) - 1) for r in out.mip.results)
    refs = verdict.ReferenceCache()
    for res, got in zip(out.mip.results, out.errors, strict=True):
        assert got.verdict == verdict.judge_result(res, level0, Format.UNORM, refs)


def test_levels_only_without_settings(gpu, pool):
    rec = Recorder()
    out = staged.run(gpu, _level0(), Format.UNORM, SPECS[1:2], staged.RunOptions(),
                           verdict.ReferenceCache(), rec, pool=pool)
    assert out is not None and out.timings_s is None
    assert rec.kinds() == ["levels", "reference", "analysed"]


def test_references_computed_once_per_image_and_format(gpu, pool, monkeypatch):
    calls = []
    real = verdict.named_reference
    lock = threading.Lock()

    def counting(name, level0, fmt):
        with lock:
            calls.append((name, fmt))
        return real(name, level0, fmt)

    monkeypatch.setattr(verdict, "named_reference", counting)
    refs = verdict.ReferenceCache()
    level0 = _level0()
    for _ in range(2):
        staged.run(gpu, level0, Format.UNORM, SPECS, staged.RunOptions(), refs, RunListener(), pool=pool)
    assert sorted(calls) == sorted([("mean", Format.UNORM), ("blit", Format.UNORM)])
    srgb = _level0(Format.SRGB)  # another image (and format): its own references
    staged.run(gpu, srgb, Format.SRGB, SPECS[1:2], staged.RunOptions(), refs, RunListener(), pool=pool)
    assert calls[2:] == [("mean", Format.SRGB)]


def test_stop_during_the_analysis_returns_none_and_leaves_nothing_running(gpu, monkeypatch):
    stop = threading.Event()
    started = []
    real = staged.analysis.analyse_strategy

    def slow(*args):
        started.append(1)
        stop.set()  # the user presses Stop while the first strategy is analysed
        time.sleep(0.3)  # longer than the run takes to see it
        return real(*args)

    monkeypatch.setattr(staged.analysis, "analyse_strategy", slow)
    rec = Recorder()
    with ThreadPoolExecutor(1) as pool:
        out = staged.run(gpu, _level0(), Format.UNORM, SPECS, staged.RunOptions(),
                               verdict.ReferenceCache(), rec, stop.is_set, pool)
        assert out is None
        assert pool.submit(lambda: 1).result(timeout=5) == 1  # the pool is free again
    assert len(started) == 1  # the others were dropped before they began
    assert "analysed" not in rec.kinds()


def test_a_failing_analysis_raises_from_run(gpu, pool, monkeypatch):
    def broken(*args):
        raise RuntimeError("analysis exploded")

    monkeypatch.setattr(staged.analysis, "analyse_strategy", broken)
    with pytest.raises(RuntimeError, match="analysis exploded"):
        staged.run(gpu, _level0(), Format.UNORM, SPECS[:1], staged.RunOptions(),
                         verdict.ReferenceCache(), RunListener(), pool=pool)


def test_shader_digests_follow_the_version_that_runs(tmp_path):
    """The digest is the running version's: an edit that compiles changes it, a broken save of
    a pinned shader does not (the last good version still runs), a missing file is unreadable."""
    from mipview.gpu.strategies import custom

    box = (RESOURCES / "shaders" / "box_per_level.comp").read_text()
    shader = tmp_path / "mine.comp"
    shader.write_text(box)
    specs = [StrategySpec("per-level"), StrategySpec(f"shader:{shader}")]
    first = staged.shader_digests(specs)
    assert [s for s, _ in first] == [f"shader:{shader}"]
    assert staged.shader_digests(specs) == first
    shader.write_text(box + "// edited\n")
    edited = staged.shader_digests(specs)
    assert edited != first
    custom.pin(custom.custom_version(f"shader:{shader}"))
    try:
        shader.write_text("this does not compile\n")
        assert staged.shader_digests(specs) == edited
    finally:
        custom.unpin(f"shader:{shader}")
    shader.unlink()
    assert staged.shader_digests(specs) == ((f"shader:{shader}", "unreadable"),)


def test_headless_entry_prints_when_timings_and_everything_were_ready(capsys):
    from mipview.cli import window_run

    status = window_run.main(["--size", "32", "--strategies", "blit,per-level",
                              "--repeat", "3", "--runs", "2", "--device", "llvmpipe"])
    text = capsys.readouterr().out
    assert status == 0, text
    assert "llvmpipe" in text and "3 runs after 0 ms warm-up" in text
    for run in (1, 2):
        assert f"run {run}: levels after" in text
    assert text.count("timings after") == 2 and text.count("everything after") == 2
    assert text.count("median") == 4 and text.count(" ok") == 4
