"""The command line when things go wrong: every failure is one line on stderr and a documented exit
code, found before any work where it can be, and output is written whole or not at all.

Exit codes: 0 ok, 1 a checked result out of tolerance (or validation messages), 2 bad input or
environment, 130 interrupted.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mipview.cli import limits as cli_limits
from mipview.cli.main import main
from mipview.core.formats import Format
from mipview.gpu.vulkan import context as gpu_context
from mipview.gpu.vulkan import resources
from mipview.gpu.vulkan.vkapi import vk
from mipview.io import imageio, synthetic
from tests.stderr import without_compile_progress


def _one_line_error(capsys, needle: str) -> str:
    err = without_compile_progress(capsys.readouterr().err).strip()
    assert err.count("\n") == 0 and err.startswith("mipview: error:"), err
    assert needle.lower() in err.lower(), err
    return err


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a command opens the device or makes an image: its input should have been
    refused before any work."""
    def refuse(*args, **kwargs):
        raise AssertionError("work started before the input was checked")

    monkeypatch.setattr(gpu_context, "GpuContext", refuse)
    monkeypatch.setattr(synthetic, "image", refuse)


# --- outputs checked before any work --------------------------------------------------------------
def _out_cases(t: Path) -> list[tuple[list[str], str]]:
    (t / "afile").write_text("x")
    (t / "user").mkdir()
    (t / "user" / "notes.txt").write_text("mine")
    return [
        (["run", "--size", "8", "--out", str(t / "afile")], "is a file"),
        (["run", "--size", "8", "--out", str(t / "afile" / "sub")], "is a file"),
        (["run", "--size", "8", "--out", "/proc/mipview-out"], "cannot write"),
        (["run", "--size", "8", "--out", str(t / "user")], "not a mipview run"),
        (["run", "--size", "8", "--out", str(t / "user" / "..")], "current folder"),
        (["bench", "--size", "8", "--json", str(t)], "is a folder"),
        (["bench", "--size", "8", "--json", "/proc/mipview.json"], "cannot write"),
        (["bench", "--size", "8", "--json", str(t / "afile" / "b.json")], "is a file"),
        (["mean", "--size", "8", "--json", str(t)], "is a folder"),
        (["mean", "--size", "8", "--json", "/proc/mipview.json"], "cannot write"),
        (["sweep", "--width-range", "4:5", "--height", "3", "--json", str(t)], "is a folder"),
        (["sweep", "--width-range", "4:5", "--height", "3", "--json", "/proc/m.json"],
         "cannot write"),
    ]


@pytest.mark.parametrize("case", range(12))
def test_bad_output_paths_are_refused_before_any_work(tmp_path, capsys, no_work, monkeypatch,
                                                      case):
    monkeypatch.chdir(tmp_path)
    argv, needle = _out_cases(tmp_path)[case]
    assert main(argv) == 2
    _one_line_error(capsys, needle)
    assert (tmp_path / "user" / "notes.txt").read_text() == "mine"  # never touched


# --- arguments ------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, needle", [
    (["bench", "--size", "8", "--layers", "0"], "--layers"),
    (["bench", "--size", "8", "--layers", "-3"], "--layers"),
    (["run", "--size", "8", "--layers", "0"], "--layers"),
    (["bench", "--size", "8", "--repeat", "0"], "--repeat"),
    (["bench", "--size", "8", "--repeat", "-1"], "--repeat"),
    (["bench", "--size", "8", "--warmup-ms", "nan"], "--warmup-ms"),
    (["bench", "--size", "8", "--warmup-ms", "-5"], "--warmup-ms"),
    (["bench", "--size", "8", "--warmup-ms", "inf"], "--warmup-ms"),
    (["bench", "--size", "8", "--strategies", ""], "no strategy"),
    (["run", "--size", "8", "--strategies", " , "], "no strategy"),
    (["run", "--size", "8", "--out", ""], "--out"),
    (["mean", "--size", "8", "--layers", "5"], "--layers"),
    (["mean", "--size", "8", "--bench", "--repeat", "0"], "--repeat"),
    (["bench", "--size", "8", "--dirty", "-1,0,4,4"], "--dirty"),
    (["bench", "--size", "8", "--dirty=-1,0,4,4"], "rectangle"),
    (["bench", "--size", "8", "--no-such-option"], "unrecognized"),
    (["bench", "--size", "8", "--bench-typo"], "unrecognized"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_rejected_arguments_are_one_line_and_exit_2(capsys, no_work, argv, needle):
    assert main(argv) == 2
    _one_line_error(capsys, needle)


@pytest.mark.parametrize("content, needle", [
    (None, "no such file"),
    ("[]", "not written by mipview bench"),
    ('{"generator": "mipview 0.1.0", "strategies": []}', "mipview run"),
    ("bench.json", "not JSON"),
], ids=["missing", "not-mipview", "run-report", "not-json"])
def test_a_bad_baseline_is_one_line_before_any_work(tmp_path, capsys, no_work, content, needle):
    path = tmp_path / "old.json"
    if content is not None:
        path.write_text(content)
    assert main(["bench", "--size", "8", "--baseline", str(path)]) == 2
    err = _one_line_error(capsys, needle)
    assert "--baseline" in err and str(path) in err


@pytest.mark.parametrize("argv, needle", [
    (["bench", "--batch-synthetic", "2", "--trace", "t.json"], "not --batch"),
    (["bench", "--size", "8", "--trace", "."], "is a folder"),
    (["bench", "--size", "8", "--trace", "/proc/t.json"], "cannot write"),
])
def test_a_bad_trace_is_one_line_before_any_work(capsys, no_work, argv, needle):
    assert main(argv) == 2
    _one_line_error(capsys, needle)


def test_help_documents_the_exit_codes(capsys):
    for command in ("run", "bench", "mean", "sweep"):
        assert main([command, "--help"]) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert "exit codes: 0 ok; 1 a checked result out of tolerance" in out, command
        assert "130 interrupted" in out


# --- limits, before anything big exists -------------------------------------------------------------
@pytest.fixture
def no_big_arrays(monkeypatch):
    """Fail if level 0 or a GPU image is made: limits must be checked before."""
    def refuse(*args, **kwargs):
        raise AssertionError("allocated before the limits were checked")

    monkeypatch.setattr(synthetic, "image", refuse)
    monkeypatch.setattr(imageio, "load", refuse)
    monkeypatch.setattr(resources.MipImage, "__init__", refuse)


@pytest.mark.parametrize("argv, needle", [
    (["bench", "--size", "16385"], "device limit"),
    (["bench", "--size", "20000x8"], "device limit"),
    (["run", "--size", "100000"], "device limit"),
    (["bench", "--size", "64", "--layers", "5000"], "layers exceed"),
    (["mean", "--size", "16385"], "device limit"),
    (["sweep", "--width-range", "16380:16390", "--height", "2"], "device limit"),
], ids=["16385", "20000x8", "100000", "layers-5000", "mean", "sweep"])
def test_device_limits_are_checked_before_allocating(tmp_path, capsys, no_big_arrays, argv,
                                                     needle):
    if argv[0] == "run":
        argv += ["--out", str(tmp_path / "o")]
    assert main(argv) == 2
    _one_line_error(capsys, needle)
    assert not (tmp_path / "o").exists()


def test_memory_is_estimated_before_allocating(capsys, no_big_arrays, monkeypatch):
    monkeypatch.setattr(cli_limits, "host_available", lambda: 1 << 30)
    assert main(["bench", "--size", "8192", "--strategies", "per-level"]) == 2
    err = _one_line_error(capsys, "needs about")
    assert "GiB of memory" in err and "1.0 GiB available" in err
    assert "float64 reference" in err  # what the estimate is made of


def test_an_image_files_size_is_read_from_its_header(tmp_path, capsys, no_big_arrays,
                                                     monkeypatch):
    from PIL import Image

    path = tmp_path / "wide.png"
    Image.new("RGBA", (20000, 2)).save(path)
    assert main(["bench", str(path)]) == 2
    _one_line_error(capsys, "20000x2 exceeds the device limit")


def test_the_memory_estimate_covers_a_real_run():
    dims = cli_limits.ImageDims(512, 300, 2, Format.UNORM, 4)
    need = cli_limits.estimate(dims, Format.UNORM, 3, True)
    level0 = 512 * 300 * 2 * 4
    assert dict(need.parts)["level 0"] == level0
    assert need.host > 4 * level0 + 512 * 300 * 2 * 32  # pyramids and a float64 reference
    assert need.device > 3 * level0
    no_check = cli_limits.estimate(dims, Format.UNORM, 3, False)
    assert no_check.host < need.host


# --- out of memory ----------------------------------------------------------------------------------
def test_host_out_of_memory_is_one_line(tmp_path, capsys, monkeypatch):
    def oom(*args, **kwargs):
        raise MemoryError("Unable to allocate 4.00 GiB for an array with shape (32768, 32768)")

    monkeypatch.setattr(synthetic, "image", oom)
    assert main(["run", "--size", "64", "--strategies", "per-level", "--out",
                 str(tmp_path / "o")]) == 2
    _one_line_error(capsys, "out of host memory")
    assert not (tmp_path / "o").exists()


def test_host_out_of_memory_after_the_gpu_work_is_one_line(tmp_path, capsys, monkeypatch):
    from mipview.check import verdict

    def oom(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(verdict.ReferenceCache, "get", oom)
    assert main(["run", "--size", "64", "--strategies", "per-level", "--out",
                 str(tmp_path / "o")]) == 2
    _one_line_error(capsys, "out of host memory")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("call, error", [
    ("vkBindImageMemory", "VkErrorOutOfDeviceMemory"),
    ("vkBindBufferMemory", "VkErrorOutOfDeviceMemory"),
    ("vkCreateImage", "VkErrorOutOfHostMemory"),
])
def test_device_out_of_memory_is_one_line(tmp_path, capsys, monkeypatch, call, error):
    def oom(*args, **kwargs):
        raise getattr(vk, error)()

    monkeypatch.setattr(vk, call, oom)
    assert main(["bench", "--size", "64", "--strategies", "per-level", "--repeat", "1",
                 "--warmup-ms", "0", "--json", str(tmp_path / "b.json")]) == 2
    _one_line_error(capsys, "out of")
    assert not (tmp_path / "b.json").exists()


# --- checked results set the exit code ------------------------------------------------------------
@pytest.fixture
def corrupt_level_2(monkeypatch):
    """Read-backs with one texel of level 2 moved by 40 LSB (as a broken strategy would)."""
    real = resources.MipImage.read_levels

    def read_levels(self):
        levels = real(self)
        if len(levels) > 2 and self.fmt.dtype == np.uint8:
            levels[2] = levels[2].copy()
            levels[2][..., 0, 0, 0] ^= 40
        return levels

    monkeypatch.setattr(resources.MipImage, "read_levels", read_levels)


def test_run_exits_1_when_a_result_is_out_of_tolerance(tmp_path, capsys, corrupt_level_2):
    out = tmp_path / "o"
    assert main(["run", "--size", "48x40", "--strategies", "per-level", "--out", str(out)]) == 1
    text = capsys.readouterr().out
    assert "OUT OF TOLERANCE" in text and "level 2" in text
    report = json.loads((out / "report.json").read_text())
    entry = report["strategies"][0]
    assert entry["within_tolerance"] is False and entry["promise"] == "stored"
    assert entry["breaches"][0]["level"] == 2 and entry["breaches"][0]["bound"] < 1
    assert len(entry["bounds"]["step"]) == len(entry["bounds"]["chain"]) == 6
    # --no-check: nothing compared, nothing to fail
    assert main(["run", "--size", "48x40", "--strategies", "per-level", "--no-check", "--out",
                 str(out)]) == 0
    assert "within_tolerance" not in json.loads((out / "report.json").read_text())["strategies"][0]


def test_bench_exits_1_when_a_result_is_out_of_tolerance(capsys, corrupt_level_2):
    argv = ["bench", "--size", "48x40", "--strategies", "per-level", "--repeat", "1",
            "--warmup-ms", "0"]
    assert main(argv) == 1
    assert "OUT OF TOLERANCE" in capsys.readouterr().out
    assert main([*argv, "--no-check"]) == 0


def test_batch_bench_no_check_skips_the_check(capsys, monkeypatch):
    from mipview.cli import batch as cli_batch

    def must_not_check(*args, **kwargs):
        raise AssertionError("checked despite --no-check")

    monkeypatch.setattr(cli_batch, "_check", must_not_check)
    assert main(["bench", "--batch-synthetic", "3", "--repeat", "1", "--warmup-ms", "0",
                 "--no-check"]) == 0


# --- output written whole, or not at all --------------------------------------------------------------
def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _interrupt_on(monkeypatch, module, name: str, call: int) -> None:
    real = getattr(module, name)
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, interrupted)


RUN = ["run", "--size", "40x24", "--strategies"]


def test_an_interrupted_run_keeps_the_previous_complete_run(tmp_path, capsys, monkeypatch):
    out = tmp_path / "o"
    assert main([*RUN, "per-level,subgroup", "--out", str(out)]) == 0
    before = _snapshot(out)
    capsys.readouterr()
    _interrupt_on(monkeypatch, imageio, "save_level", 3)  # mid-way through the levels
    assert main([*RUN, "per-level", "--out", str(out), "--size", "48x24"]) == 130
    assert without_compile_progress(capsys.readouterr().err).strip() == \
        "mipview: interrupted; nothing written"
    assert _snapshot(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["o"]  # no temporary folder left


def test_an_interrupted_first_run_writes_nothing(tmp_path, capsys, monkeypatch):
    _interrupt_on(monkeypatch, imageio, "save_level", 2)
    assert main([*RUN, "per-level", "--out", str(tmp_path / "o")]) == 130
    assert list(tmp_path.iterdir()) == []


def test_a_run_replaces_the_previous_one_whole(tmp_path):
    out = tmp_path / "o"
    assert main([*RUN, "per-level,subgroup", "--out", str(out)]) == 0
    assert main([*RUN, "npot-exact", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["npot-exact", "report.json"]
    report = json.loads((out / "report.json").read_text())
    assert [s["strategy"] for s in report["strategies"]] == ["npot-exact"]
    assert report["generator"].startswith("mipview")
    assert out.stat().st_mode & 0o777 == 0o777 & ~_umask()  # not mkdtemp's 0700


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_an_interrupted_json_write_keeps_the_previous_file(tmp_path, capsys, monkeypatch):
    import os

    target = tmp_path / "b.json"
    target.write_text('{"previous": true}')

    def half_then_interrupt(self, data, *args, **kwargs):  # what a Ctrl-C mid-write leaves
        with open(self, "w") as f:
            f.write(data[: len(data) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_text", half_then_interrupt)
    _interrupt_on(monkeypatch, os, "replace", 1)
    assert main(["bench", "--size", "16", "--strategies", "per-level", "--repeat", "1",
                 "--warmup-ms", "0", "--json", str(target)]) == 130
    assert json.loads(target.read_text()) == {"previous": True}
    assert [p.name for p in tmp_path.iterdir()] == ["b.json"]
    assert without_compile_progress(capsys.readouterr().err).strip() == \
        "mipview: interrupted; nothing written"
