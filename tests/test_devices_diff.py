"""``mipview run --devices A,B``: the same strategies on two devices, compared texel
by texel. lavapipe opened twice exercises the plumbing: alike, the runs are `identical`; a level
altered on the second device's side is counted at exactly its texels, `differs beyond them`,
exit 1; a bad --devices is one line and exit 2."""

from __future__ import annotations

import json

import pytest

from mipview.check.diff import BEYOND, IDENTICAL
from mipview.cli import main as cli_main
from mipview.cli.main import main
from tests.stderr import without_compile_progress
from tests.test_diff import _alter_png

ARGS = ["run", "--synthetic", "noise", "--size", "13x7", "--strategies", "per-level",
        "--devices", "0,llvmpipe"]


def test_one_device_twice_is_identical(tmp_path, capsys):
    out = tmp_path / "out"
    assert main([*ARGS, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "  per-level: identical\noverall: identical\n" in text
    assert text.count("llvmpipe") >= 2  # both sides' device and driver
    report = json.loads((out / "report.json").read_text())
    assert report["verdict"] == IDENTICAL
    assert report["b"]["path"] == str(out / "device-2")
    # each side is a run folder of its own, which `diff` reads again
    assert main(["diff", str(out / "device-1"), str(out / "device-2")]) == 0


def test_a_level_altered_on_one_side_is_beyond_at_exactly_its_texels(tmp_path, capsys,
                                                                      monkeypatch):
    real = cli_main.run_into

    def second_side_altered(args, folder):
        code = real(args, folder)
        if folder.name == "device-2":  # a driver that gets two texels of level 1 wrong
            _alter_png(folder / "per-level" / "level_01.png", [(1, 2, 0), (2, 4, 2)], 60)
        return code

    monkeypatch.setattr(cli_main, "run_into", second_side_altered)
    out = tmp_path / "out"
    assert main([*ARGS, "--out", str(out)]) == 1
    report = json.loads((out / "report.json").read_text())
    assert report["verdict"] == BEYOND and report["beyond"] == 2
    [levels] = [s["levels"] for s in report["strategies"]]
    assert [lv["beyond"] for lv in levels] == [0, 2, 0, 0]
    assert "overall: differs beyond them" in capsys.readouterr().out


@pytest.mark.parametrize("devices", ["0", "0,1,2", "0,"])
def test_devices_needs_two(devices, capsys):
    assert main(["run", "--size", "8", "--devices", devices, "--out", "unused"]) == 2
    err = without_compile_progress(capsys.readouterr().err)
    assert err.count("\n") == 1 and "give two devices" in err, err
