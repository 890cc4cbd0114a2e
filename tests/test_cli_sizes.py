"""``mipview bench --sizes``: several sizes in one run, one warm-up, one timing loop, a table
size x strategy, a JSON keeping every size; bad lists are one line and exit 2."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from mipview.cli.main import main
from mipview.cli.sizes import parse_sizes
from mipview.core.formats import Format
from mipview.core.results import DeviceSummary, GpuTiming, RunResult, StrategyResult, TimingStats
from mipview.core.specs import StrategySpec
from mipview.runs import report
from tests.stderr import without_compile_progress


def test_bench_sizes_times_every_size_in_one_loop_and_keeps_each_in_the_json(
        tmp_path, capsys, monkeypatch):
    from mipview.gpu import session

    loops = []
    original = session.time_interleaved
    monkeypatch.setattr(session, "time_interleaved",
                        lambda works, settings, *a: loops.append((len(works), settings))
                        or original(works, settings, *a))
    path = tmp_path / "s.json"
    sizes = [(40, 24), (32, 32), (33, 17)]
    assert main(["bench", "--sizes", "40x24,32,33x17", "--strategies",
                 "per-level,single-pass:load=bilinear", "--repeat", "4", "--warmup-ms", "0",
                 "--json", str(path)]) == 0
    # one warm-up and one loop over every strategy of every size (33x17: bilinear skipped)
    assert len(loops) == 1 and loops[0][0] == 5 and loops[0][1].repeat == 4
    data = json.loads(path.read_text())
    assert data["sizes"] == [list(s) for s in sizes] and data["repeat"] == 4
    assert len(data["results"]) == 3
    for (w, h), one in zip(sizes, data["results"], strict=True):
        # each entry is what `bench --size WxH --json` writes
        assert (one["image"]["width"], one["image"]["height"]) == (w, h)
        assert one["source"] == f"synthetic {w}x{h}" and one["image_read"]["median_us"] > 0
        for entry in one["strategies"]:
            assert entry["timing"]["n"] == 4 and entry["within_tolerance"]
            assert "errors" not in entry
    assert [s["strategy"] for s in data["results"][2]["skipped"]] == ["single-pass:load=bilinear"]
    out = capsys.readouterr().out
    head = next(line for line in out.splitlines() if line.startswith("median us"))
    assert head.split()[2:] == ["40x24", "32x32", "33x17"]
    row = next(line for line in out.splitlines() if line.startswith("single-pass:load=bil"))
    assert row.split()[-1] == "-"  # not run at 33x17
    assert "33x17 single-pass:load=bilinear: skipped: load=bilinear needs even sides" in out


def test_parse_sizes():
    assert parse_sizes("1920x1080, 4096") == [(1920, 1080), (4096, 4096)]


@pytest.mark.parametrize("argv, needle", [
    (["--sizes", ""], "bad size list"),
    (["--sizes", "64,,32"], "bad size list"),
    (["--sizes", "64,abc"], "bad size 'abc'"),
    (["--sizes", "0x4"], "at least 1"),
    (["--sizes", "64,64x64"], "given twice"),
    (["--sizes", "64", "--size", "32"], "takes no --size"),
    (["--sizes", "64", "--dirty", "0,0,4,4"], "takes no --dirty"),
    (["--sizes", "64,20000x4"], "device limit"),
], ids=["empty", "empty-item", "word", "zero", "twice", "size", "dirty", "too-large"])
def test_bad_sizes_are_one_line_and_exit_2(capsys, argv, needle):
    assert main(["bench", "--strategies", "per-level", "--repeat", "1", *argv]) == 2
    err = without_compile_progress(capsys.readouterr().err).strip()
    assert err.count("\n") == 0 and err.startswith("mipview: error:"), err
    assert needle.lower() in err.lower()


def test_sizes_table_marks_a_result_out_of_tolerance():
    device = DeviceSummary("gpu", "discrete", "d", "1.3", 32)
    res = StrategyResult(StrategySpec("per-level"), (),
                         timing=GpuTiming(TimingStats(tuple(np.full(8, 12.5)))))
    mips = [RunResult(Format.UNORM, 8, 8, 1, device, (res,)),
            RunResult(Format.UNORM, 16, 4, 1, device, (res,))]
    good = SimpleNamespace(within_tolerance=True, summary=lambda: "ok")
    bad = SimpleNamespace(within_tolerance=False, summary=lambda: "level 2 chain 3.0 > 0.5")
    text = report.sizes_table(mips, [{"per-level": good}, {"per-level": bad}])
    row = text.splitlines()[2].split()
    assert row == ["per-level", "12.5", "12.5", "!"]
    assert "16x4 per-level: level 2 chain 3.0 > 0.5" in text
    assert "!" not in report.sizes_table(mips, [{"per-level": good}, None])
