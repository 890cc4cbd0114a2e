"""Volumes through the command line (docs/volumes.md "Running a volume"): ``run`` and
``bench`` of ``--synthetic volume`` and of a 3D KTX2 or DDS make the chain with the volume
strategies, judged by the volume verdict (exit 0; 1 out of tolerance), written as
``*.volume.npy`` levels and texture files that read back bit for bit; bad input is one line and
exit 2 before any GPU work. Small volumes: lavapipe compiles and runs them on the CPU."""

from __future__ import annotations

import json

import numpy as np

from mipview.check.volume_reference import volume_pyramid
from mipview.cli.main import main
from mipview.core.formats import Format
from mipview.io import containers, imageio
from tests.run_report import read_report
from tests.stderr import one_line_error


def test_run_judges_writes_and_exports_a_volume(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["run", "--synthetic", "volume", "--size", "9x7x5", "--out", str(out),
                 "--strategies", "volume-per-level,volume-tiles:reduction=min",
                 "--export", "ktx2,dds"])
    text = capsys.readouterr().out
    assert code == 0, text
    report = read_report(out)
    assert report["volume"] == [9, 7, 5]
    assert [s["strategy"] for s in report["strategies"]] == ["volume-per-level",
                                                              "volume-tiles:reduction=min"]
    assert all(s["within_tolerance"] for s in report["strategies"])
    assert "volume-tiles:reduction=min" in text and "ok" in text
    tiles = out / "volume-tiles_reduction-min"
    levels = [np.load(tiles / f"level_{k:02d}.volume.npy") for k in range(4)]
    ref = volume_pyramid(levels[0], Format.UNORM, "min")
    assert all(np.array_equal(a, r.astype(np.uint8)) for a, r in zip(levels, ref, strict=True))
    for kind in ("ktx2", "dds"):  # the chain as a 3D texture, read back bit for bit
        back = imageio.load(tiles / f"{tiles.name}.{kind}", volumes=True)
        assert back.volume and back.texture is not None
        assert all(np.array_equal(a, b) for a, b in zip(back.texture.levels, levels,
                                                        strict=True))


def test_a_volume_file_runs_as_a_volume(tmp_path, capsys):
    level0 = np.random.default_rng(2).random((3, 5, 4, 4), dtype=np.float32)
    [path] = containers.export(tmp_path, "fog", [level0.astype(np.float16)], Format.F16,
                               ("ktx2",), volume=True)
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--strategies", "volume-tiles"]) == 0
    capsys.readouterr()
    report = read_report(out)
    assert report["format"] == "f16" and report["volume"] == [4, 5, 3]
    assert report["strategies"][0]["within_tolerance"]


def test_bench_times_each_volume_strategy(tmp_path, capsys):
    target = tmp_path / "bench.json"
    assert main(["bench", "--synthetic", "volume", "--size", "8", "--repeat", "3",
                 "--json", str(target)]) == 0
    text = capsys.readouterr().out
    assert "volume 8x8x8 unorm" in text
    data = json.loads(target.read_text())
    by_name = {r["strategy"]: r for r in data["results"]}
    assert set(by_name) == {"volume-per-level", "volume-tiles"}
    assert by_name["volume-per-level"]["timing"]["n"] == 3
    assert len(by_name["volume-per-level"]["plan"]) == 3 > len(by_name["volume-tiles"]["plan"])


def test_bad_volume_input_is_one_line_and_exit_2(tmp_path, capsys):
    out = str(tmp_path / "out")
    cases = [
        (["--size", "9x0x3"], "bad volume size"),
        (["--size", "9", "--strategies", "per-level"], "makes 2D pyramids"),
        (["--size", "9", "--strategies", "volume-tiles:filter=tent"], "reduction=... and load=... only"),
        (["--size", "9", "--format", "d32"], "a depth image is 2D"),
        (["--size", "9", "--layers", "2"], "slices, not layers"),
        (["--size", "100000"], "exceeds the device limit"),
        (["--size", "9", "--export", "ktx2,exr"], "EXR holds no volumes"),
    ]
    for extra, fragment in cases:
        assert main(["run", "--synthetic", "volume", *extra, "--out", out]) == 2, extra
        one_line_error(capsys, fragment)
    assert main(["bench", "--synthetic", "volume", "--size", "9", "--sizes", "8,9"]) == 2
    one_line_error(capsys, "--sizes")
    assert not (tmp_path / "out").exists()
