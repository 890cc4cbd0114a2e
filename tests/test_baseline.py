"""A bench run against a saved one (mipview/runs/baseline.py): hand-made bench JSON files, the
verdicts, the seeded bootstrap, and saved runs that cannot serve as a baseline."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mipview.runs import baseline
from mipview.runs.baseline import (
    FASTER,
    MISSING,
    NEW,
    NO_SAMPLES,
    SLOWER,
    WITHIN_NOISE,
    BaselineError,
    bootstrap_ratio,
    compare_runs,
    load_run,
)

DEVICE = {"name": "NVIDIA H200", "type": "discrete", "driver": "565.57", "api_version": "1.3",
          "subgroup_size": 32}
CLOCK = {"source": "nvml", "sm_mhz": [1980, 1980], "mem_mhz": [3201, 3201],
         "max_sm_mhz": 1980, "changed": False, "samples": 5}


def _timing(samples, with_samples=True):
    d = {"n": len(samples), "median_us": float(np.median(samples))}
    if with_samples:
        d["samples_us"] = [float(v) for v in samples]
    return d


def _bench(strategies, device=DEVICE, clock=CLOCK, with_samples=True):
    """A bench JSON as mipview/runs/report.py writes it: {spec: (samples, {label: samples})}."""
    return {
        "generator": "mipview 0.1.0", "device": dict(device),
        "image": {"width": 4096, "height": 4096, "layers": 1, "format": "unorm"},
        "repeat": 40, "cache": "warm", "clock": clock,
        "strategies": [{"strategy": name, "timing": _timing(total, with_samples),
                        "dispatches": [{"label": label, **_timing(s, with_samples)}
                                       for label, s in marks.items()], "drift": None}
                       for name, (total, marks) in strategies.items()]}


def _save(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return load_run(path)


def _noise(rng, median, n=40):
    return median * (1 + 0.02 * rng.standard_normal(n))


def _by(report, strategy, mark=None):
    return next(d for d in report.deltas if d.strategy == strategy and d.mark == mark)


def test_slower_faster_within_noise_new_and_missing_from_two_files(tmp_path, rng):
    same = _noise(rng, 50.0)
    old = _save(tmp_path, "old.json", _bench({
        "per-level": (_noise(rng, 100.0), {"level 1": _noise(rng, 60.0),
                                           "level 2": _noise(rng, 40.0)}),
        "single-pass": (_noise(rng, 80.0), {"pass 1": _noise(rng, 80.0)}),
        "blit": (same, {"level 1": same}),
        "subgroup": (_noise(rng, 70.0), {}),
    }))
    new = _save(tmp_path, "new.json", _bench({
        "per-level": (_noise(rng, 200.0), {"level 1": _noise(rng, 120.0),
                                           "level 2": _noise(rng, 80.0)}),
        "single-pass": (_noise(rng, 40.0), {"pass 1": _noise(rng, 40.0)}),
        "blit": (same, {"level 1": same}),
        "npot-exact": (_noise(rng, 90.0), {}),
    }))
    report = compare_runs(new.data, old.data)

    slower = _by(report, "per-level")
    assert slower.verdict == SLOWER and slower.ratio == pytest.approx(2.0, rel=0.03)
    assert 1.0 < slower.interval[0] <= slower.ratio <= slower.interval[1]
    assert _by(report, "per-level", "level 2").verdict == SLOWER
    faster = _by(report, "single-pass", "pass 1")
    assert faster.verdict == FASTER and faster.interval[1] < 1.0
    noise = _by(report, "blit")
    assert noise.verdict == WITHIN_NOISE and noise.ratio == 1.0
    assert noise.interval[0] <= 1.0 <= noise.interval[1]
    assert _by(report, "npot-exact").verdict == NEW
    assert _by(report, "subgroup").verdict == MISSING
    assert report.warnings == ()  # same device, driver, clock, image, cache

    lines = report.lines()
    assert any(line.startswith("per-level") and "2.0" in line and "slower" in line
               for line in lines)
    assert any(line.startswith("npot-exact") and line.endswith(NEW) for line in lines)
    saved = json.loads(json.dumps(report.as_dict()))
    assert {(f["strategy"], f["mark"], f["verdict"]) for f in saved["figures"]} >= {
        ("per-level", None, SLOWER), ("blit", "level 1", WITHIN_NOISE), ("subgroup", None, MISSING)}


def test_old_json_without_samples_compares_medians(tmp_path, rng):
    a, b = _noise(rng, 100.0), _noise(rng, 150.0)
    old = _save(tmp_path, "old.json", _bench({"blit": (a, {"level 1": a})}, with_samples=False))
    new = _bench({"blit": (b, {"level 1": b})})
    report = compare_runs(new, old.data)
    for mark in (None, "level 1"):
        d = _by(report, "blit", mark)
        assert d.verdict == NO_SAMPLES and d.interval is None
        assert d.ratio == pytest.approx(np.median(b) / np.median(a))
    assert "noise unknown" in report.lines()[1]


def test_bootstrap_is_seeded_and_deterministic(rng):
    a, b = _noise(rng, 10.0, 30), _noise(rng, 11.0, 25)
    first = bootstrap_ratio(a, b)
    assert bootstrap_ratio(a, b) == first
    assert bootstrap_ratio(a, b, seed=1) != first  # the seed is what makes it repeatable
    low, high = first
    assert low < np.median(a) / np.median(b) < high
    wide = bootstrap_ratio(a, b, confidence=0.99)
    assert wide[0] <= low and high <= wide[1]


def test_bootstrap_resamples_in_chunks_alike(rng, monkeypatch):
    """Long runs are resampled a chunk at a time (bounded memory): still the same interval
    whatever the run length, it only moves the draws."""
    a, b = _noise(rng, 10.0, 200), _noise(rng, 10.0, 200)
    monkeypatch.setattr(baseline, "_CHUNK_ELEMENTS", 200 * 7)
    chunked = bootstrap_ratio(a, b)
    assert chunked == bootstrap_ratio(a, b)
    assert chunked[0] < 1.0 < chunked[1]


def test_device_driver_and_clock_differences_are_warned(rng):
    s = _noise(rng, 100.0)
    old = _bench({"blit": (s, {})})
    other = _bench({"blit": (s, {})}, device={**DEVICE, "name": "NVIDIA H100", "driver": "550"},
                   clock={**CLOCK, "sm_mhz": [1410, 1755], "changed": True})
    warnings = " | ".join(compare_runs(other, old).warnings)
    assert "compared across devices: NVIDIA H100 (driver 550) now, NVIDIA H200" in warnings
    assert "clock states differ: SM 1410-1755 MHz now, SM 1980 MHz in the baseline" in warnings
    assert "clock changed while timing this run" in warnings
    driver = _bench({"blit": (s, {})}, device={**DEVICE, "driver": "570.1"})
    assert [w.split(":")[0] for w in compare_runs(driver, old).warnings] == [
        "compared across devices"]
    unreadable = _bench({"blit": (s, {})}, clock=None)
    assert compare_runs(unreadable, old).warnings == (
        "clock states differ: not readable now, SM 1980 MHz in the baseline",)


@pytest.mark.parametrize("content, needle", [
    (None, "no such file"),
    ("", "not JSON"),
    ("{not json", "not JSON"),
    (b"\xff\xfe\x00", "not JSON"),
    ("[1, 2]", "not written by mipview bench"),
    ('{"ways": [], "device": {}}', "not written by mipview bench"),  # a --batch JSON
    ('{"generator": "mipview 0.1.0", "strategies": []}', "mipview run"),
    ('{"generator": "mipview 0.1.0", "repeat": 5, "strategies": {}}', "malformed"),
    ('{"generator": "mipview 0.1.0", "repeat": 5, "strategies": [{"timing": {}}]}',
     "malformed"),
    ('{"generator": "mipview 0.1.0", "repeat": 5, "strategies": '
     '[{"strategy": "blit", "timing": {"samples_us": ["x"]}}]}', "malformed"),
], ids=["missing", "empty", "broken", "binary", "list", "batch", "run-report", "no-list",
        "no-name", "bad-samples"])
def test_what_cannot_be_a_baseline_is_one_line(tmp_path, content, needle):
    path = tmp_path / "old.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(BaselineError, match=needle) as err:
        load_run(path)
    assert "\n" not in str(err.value) and str(err.value).startswith(str(path))
    with pytest.raises(BaselineError, match="is a folder"):
        load_run(tmp_path)


def test_a_bench_json_is_a_baseline(tmp_path, rng):
    saved = _save(tmp_path, "ok.json", _bench({"blit": (_noise(rng, 5.0), {})}))
    assert saved.path.endswith("ok.json") and saved.data["repeat"] == 40
