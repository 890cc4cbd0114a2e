"""The command line: happy paths write what they promise; bad input is one line and exit 2."""

import json
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from mipview.cli.main import main
from mipview.core.formats import Format
from mipview.core.results import (
    DeviceSummary,
    GpuTiming,
    RunResult,
    StrategyResult,
    TimingSettings,
    TimingStats,
)
from mipview.core.specs import StrategySpec
from mipview.runs import report
from tests.stderr import without_compile_progress


@pytest.fixture
def png(tmp_path, rng):
    path = tmp_path / "img.png"
    Image.fromarray(rng.integers(0, 256, (21, 34, 4), dtype=np.uint8), "RGBA").save(path)
    return path


def test_devices_lists_lavapipe():
    res = subprocess.run([sys.executable, "-m", "mipview", "devices"], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "llvmpipe" in res.stdout and "subgroup size" in res.stdout


def test_run_writes_levels_and_report(png, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(png), "--strategies", "blit,per-level", "--out", str(out),
                 "--validate"]) == 0
    levels = sorted((out / "per-level").glob("level_*.png"))
    assert len(levels) == 6
    assert Image.open(levels[1]).size == (17, 10)
    report = json.loads((out / "report.json").read_text())
    per_level = next(s for s in report["strategies"] if s["name"] == "per-level")
    assert per_level["within_tolerance"] is True
    assert len(per_level["errors"]["chain"]) == 6
    assert report["validation_messages"] == []
    blit = next(s for s in report["strategies"] if s["name"] == "blit")
    assert blit["max_chain_error"] > per_level["max_chain_error"]  # NPOT: blit drops texels


def test_run_float_format_writes_16_bit_png(png, tmp_path):
    out = tmp_path / "f"
    assert main(["run", str(png), "--strategies", "per-level", "--format", "f16",
                 "--out", str(out)]) == 0
    data = (out / "per-level" / "level_01.png").read_bytes()
    assert data[24] == 16  # IHDR bit depth


def test_bench_json(tmp_path, capsys):
    path = tmp_path / "b.json"
    assert main(["bench", "--size", "40x24", "--strategies", "per-level", "--repeat", "3",
                 "--warmup-ms", "0", "--json", str(path)]) == 0
    data = json.loads(path.read_text())
    s = data["strategies"][0]
    assert s["timing"]["n"] == 3 and s["timing"]["min_us"] <= s["timing"]["median_us"]
    assert [d["label"] for d in s["dispatches"]] == [f"level {i}" for i in range(1, 6)]
    assert s["effective_gbps"] > 0 and 0 < s["fraction_of_copy_floor"]
    assert data["copy_bandwidth"]["floor_gbps"] > 0
    assert data["device"]["subgroup_size"] >= 4 and data["image"]["format"] == "unorm"
    # the driver as VkPhysicalDeviceDriverProperties says it, apart and as one line
    dev = data["device"]
    assert dev["driver_name"] and dev["driver_version"]
    assert dev["driver"].startswith(f"{dev['driver_name']} {dev['driver_version']}")
    assert data["cache"] == "warm"
    assert "median" in capsys.readouterr().out


@pytest.mark.parametrize("evict", ["clean", "dirty"])
def test_bench_cold_no_check_and_image_read(tmp_path, capsys, evict):
    path = tmp_path / "b.json"
    assert main(["bench", "--size", "64x48", "--strategies", "single-pass:tiles=2", "--repeat",
                 "2", "--warmup-ms", "0", "--cold", "--evict", evict, "--no-check",
                 "--validate", "--json", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["cache"] == f"cold-{evict}"
    assert "max_chain_error" not in data["strategies"][0]  # --no-check: nothing compared
    read = data["image_read"]
    assert read["bytes"] == 64 * 48 * 4 and read["median_us"] > 0 and read["bilinear"]
    assert "through the sampler" in capsys.readouterr().out


def _bad(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


@pytest.mark.parametrize("argv_fn, needle", [
    (lambda t: ["run", str(t / "missing.png")], "no such file"),
    (lambda t: ["run", _bad(t, "empty.png", b"")], "empty"),
    (lambda t: ["run", _bad(t, "text.png", b"hello, not an image\n" * 20)], "not an image"),
    (lambda t: ["run", _bad(t, "trunc.png", _truncated_png())], "trunc"),
    (lambda t: ["bench", "--size", "64", "--strategies", "nope"], "unknown strategy"),
    (lambda t: ["bench", "--size", "64", "--strategies", "per-level:foo=1"], "no option"),
    (lambda t: ["bench", "--size", "64", "--device", "no-such-gpu"], "no Vulkan device"),
    (lambda t: ["bench", "--size", "20000x4", "--strategies", "per-level"], "device limit"),
    (lambda t: ["bench", "--size", "abc"], "bad size"),
    (lambda t: ["run", "--size", "8", "--format", "rgb565"], "unknown format"),
], ids=["missing", "empty", "not-image", "truncated", "strategy", "option", "device",
        "too-large", "size", "format"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv_fn, needle):
    argv = argv_fn(tmp_path)
    if argv[0] == "run":
        argv += ["--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = without_compile_progress(capsys.readouterr().err).strip()
    assert err.count("\n") == 0 and err.startswith("mipview: error:"), err
    assert needle.lower() in err.lower()


def _truncated_png():
    import io

    buf = io.BytesIO()
    Image.fromarray(np.arange(64 * 64 * 3, dtype=np.uint32).astype(np.uint8).reshape(64, 64, 3)
                    ).save(buf, "PNG")
    return buf.getvalue()[: len(buf.getvalue()) // 2]


def test_strategy_specs_expand_all():
    from mipview.gpu.strategies.specs import expand_specs

    names = [str(s) for s in expand_specs("per-level,single-pass:reduction=all")]
    # minmax too: it depends on the format (two channels), so a run says why where it cannot
    assert names == ["per-level", "single-pass:reduction=mean", "single-pass:reduction=min",
                     "single-pass:reduction=max", "single-pass:reduction=minmax"]


def test_bench_times_with_the_device_default_settings_and_records_clock_and_drift(
        tmp_path, capsys, monkeypatch):
    """No --warmup-ms: the device's default (lavapipe: none, it has no clock to raise), taken
    from TimingSettings.for_device, the builder the window uses too; the JSON says the clock
    could not be read and whether each timing drifted."""
    from mipview.core.results import TimingSettings
    from mipview.gpu import session

    seen = []
    original = session.Session.time_with
    monkeypatch.setattr(session.Session, "time_with",
                        lambda self, settings, *a, **k: seen.append(settings)
                        or original(self, settings, *a, **k))
    path = tmp_path / "b.json"
    assert main(["bench", "--size", "40x24", "--strategies", "per-level", "--repeat", "16",
                 "--cold", "--json", str(path)]) == 0
    assert seen == [TimingSettings.for_device("cpu", repeat=16, cold=True)]
    data = json.loads(path.read_text())
    assert data["warmup_ms"] == 0.0 and data["clock"] is None
    assert "drift" in data["strategies"][0]  # None, or the figures of a drift
    assert "clock: not readable on" in capsys.readouterr().out


def test_bench_table_names_a_drifting_strategy():
    def result(samples):
        return StrategyResult(StrategySpec("per-level"), (), timing=GpuTiming(
            TimingStats(tuple(samples))))

    device = DeviceSummary("gpu", "discrete", "d", "1.3", 32)
    warming = np.concatenate([np.linspace(200, 50, 12), np.full(28, 45.0)])
    drifting = RunResult(Format.UNORM, 8, 8, 1, device, (result(warming),))
    steady = RunResult(Format.UNORM, 8, 8, 1, device, (result(np.full(40, 45.0)),))
    assert "drifting: first quarter" in report.bench_table(drifting)
    assert "drifting" not in report.bench_table(steady)
    assert report.result_dict(drifting)["strategies"][0]["drift"]["change"] < -0.5
    assert report.result_dict(steady)["strategies"][0]["drift"] is None


def test_the_json_keeps_every_sample_in_the_order_taken():
    total, part = TimingStats((9.0, 7.5, 8.25)), TimingStats((4.0, 3.0, 5.5))
    device = DeviceSummary("gpu", "discrete", "d", "1.3", 32)
    for starts in ((), (100.0, 110.0, 120.0)):
        res = StrategyResult(StrategySpec("per-level"), (),
                             timing=GpuTiming(total, (("level 1", part),), starts))
        entry = report.result_dict(RunResult(Format.UNORM, 8, 8, 1, device, (res,)))[
            "strategies"][0]
        assert tuple(entry["timing"]["samples_us"]) == total.samples_us
        assert tuple(entry["dispatches"][0]["samples_us"]) == part.samples_us
        assert entry["timing"]["median_us"] == 8.25  # the statistics stay beside them
        assert tuple(entry["timing"].get("run_starts_us", ())) == starts


def test_bench_keeps_samples_compares_with_its_own_run_and_writes_a_trace(tmp_path, capsys):
    """bench --json keeps every sample; a second bench with the first as --baseline prints one
    line per strategy and dispatch against it; --trace holds one event per dispatch per run,
    where the GPU ran it, with the samples as durations."""
    from mipview.runs.trace import PID

    old, new, trace_path = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "t.json"
    argv = ["bench", "--size", "40x24", "--strategies", "per-level,single-pass", "--repeat", "12",
            "--warmup-ms", "0"]
    assert main([*argv, "--json", str(old)]) == 0
    capsys.readouterr()
    assert main([*argv, "--json", str(new), "--baseline", str(old), "--trace",
                 str(trace_path)]) == 0
    against = capsys.readouterr().out.split("\nbaseline: ", 1)[1]  # after the table
    data = json.loads(new.read_text())
    for s in data["strategies"]:
        samples = s["timing"]["samples_us"]
        assert len(samples) == 12 and np.median(samples) == s["timing"]["median_us"]
        assert len(s["timing"]["run_starts_us"]) == 12
        assert all(len(d["samples_us"]) == 12 for d in s["dispatches"])
        line = next(li for li in against.splitlines() if li.startswith(s["strategy"] + " "))
        assert "x [" in line and line.split("] ")[1].split(" (")[0] in (
            "within noise", "faster", "slower"), line
    figures = data["baseline"]["figures"]
    assert data["baseline"]["path"] == str(old)
    assert len(figures) == sum(1 + len(s["dispatches"]) for s in data["strategies"])
    assert data["baseline"]["warnings"] == []  # same device, image and cache

    trace = json.loads(trace_path.read_text())
    assert trace["otherData"]["timestamps"] == "gpu"
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {e["pid"] for e in events} == {PID}
    for tid, s in enumerate(data["strategies"], 1):
        mine = [e for e in events if e["tid"] == tid]
        assert len(mine) == 12 * len(s["dispatches"])
        for i, d in enumerate(s["dispatches"]):
            assert [e["dur"] for e in mine[i::len(s["dispatches"])]] == d["samples_us"]
            assert {e["name"] for e in mine[i::len(s["dispatches"])]} == {d["label"]}
    # one queue: the strategies' runs never overlap either, and per-level's first batch of
    # runs came before single-pass's (the timing loop interleaves them batch by batch)
    ordered = sorted(events, key=lambda e: e["ts"])
    for prev, e in zip(ordered, ordered[1:], strict=False):
        assert e["ts"] >= prev["ts"] + prev["dur"] - 1e-3, (prev, e)
    assert ordered[0]["tid"] == 1 and ordered[0]["ts"] == 0.0
    # the first strategy's first batch (interleaved batch by batch), then the second's
    first_batch = min(TimingSettings.runs_per_batch, 12)
    assert [e["tid"] for e in ordered].index(2) == \
        first_batch * len(data["strategies"][0]["dispatches"])
