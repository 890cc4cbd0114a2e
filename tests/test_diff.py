"""``mipview diff A B``: two saved runs or texture chains compared texel by texel.
Identical inputs are `identical`; a level altered within both runs' chain bounds is `differs
within the promises` (exit 0); texels altered far beyond are counted at exactly their level
(exit 1); texture files promise nothing; mismatched or missing inputs are one line and exit 2."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from PIL import Image

from mipview.check.diff import BEYOND, IDENTICAL, diff_chain
from mipview.cli.main import main
from mipview.core.formats import Format
from mipview.io import containers
from mipview.runs.saved import open_saved
from tests.stderr import without_compile_progress


def _run(out, size: str, fmt: str = "unorm") -> None:
    assert main(["run", "--synthetic", "noise", "--size", size, "--format", fmt,
                 "--strategies", "per-level", "--out", str(out)]) == 0


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run folders made once (lavapipe, tiny): 13x7 unorm and f16, 13x9 unorm."""
    root = tmp_path_factory.mktemp("runs")
    made = {"unorm": root / "unorm", "f16": root / "f16", "tall": root / "tall"}
    _run(made["unorm"], "13x7")
    _run(made["f16"], "13x7", "f16")
    _run(made["tall"], "13x9")
    return made


def _copy(src, tmp_path, name: str = "b"):
    dst = tmp_path / name
    shutil.copytree(src, dst)
    return dst


def _alter_png(path, texels: list[tuple[int, int, int]], delta: int) -> None:
    a = np.array(Image.open(path))
    for y, x, c in texels:
        a[y, x, c] = np.clip(int(a[y, x, c]) + delta, 0, 255)
    Image.fromarray(a).save(path)


def _diff(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(["diff", *argv])
    out, err = capsys.readouterr()
    return rc, out, without_compile_progress(err)


def _one_line_error(err: str, *fragments: str) -> None:
    assert err.count("\n") == 1 and err.startswith("mipview: error:"), err
    for fragment in fragments:
        assert fragment in err, err


def _chain_bounds(folder) -> list[float]:
    report = json.loads((folder / "report.json").read_text())
    return report["strategies"][0]["bounds"]["chain"]


def test_identical_run_folders_are_identical(runs, tmp_path, capsys):
    b = _copy(runs["unorm"], tmp_path)
    rc, out, err = _diff(capsys, str(runs["unorm"]), str(b), "--json", str(tmp_path / "d.json"))
    assert rc == 0 and err == ""
    assert "  per-level: identical\noverall: identical\n" in out
    assert out.count("llvmpipe") >= 2  # the device and driver of both sides
    data = json.loads((tmp_path / "d.json").read_text())
    assert data["verdict"] == IDENTICAL and data["beyond"] == 0
    assert data["a"]["device"] == data["b"]["device"] and data["a"]["driver"]


def test_one_lsb_within_both_chain_bounds_differs_within_the_promises(runs, tmp_path, capsys):
    a = runs["unorm"]
    bounds = _chain_bounds(a)
    assert 2 * bounds[3] >= 1.0  # 1 LSB at level 3 (1x1) is within bA + bB
    b = _copy(a, tmp_path)
    _alter_png(b / "per-level" / "level_03.png", [(0, 0, 0)], 1)
    rc, out, _ = _diff(capsys, str(a), str(b), "--json", str(tmp_path / "d.json"))
    assert rc == 0
    assert "per-level: differs within the promises" in out
    level3 = json.loads((tmp_path / "d.json").read_text())["strategies"][0]["levels"][3]
    assert level3["max_diff"] == 1.0 and level3["beyond"] == 0
    assert level3["bound"] == pytest.approx(2 * bounds[3])


def test_a_float_run_one_ulp_apart_is_within_its_relative_bounds(runs, tmp_path, capsys):
    a = runs["f16"]
    b = _copy(a, tmp_path)
    npy = b / "per-level" / "level_01.npy"
    level = np.load(npy)
    level[1, 2, 0] = np.nextafter(level[1, 2, 0], np.float16(2))  # one float16 ulp up
    np.save(npy, level)
    rc, out, _ = _diff(capsys, str(a), str(b))
    assert rc == 0 and "differs within the promises" in out and "relative" in out


def test_texels_altered_far_beyond_are_counted_at_their_level(runs, tmp_path, capsys):
    a = runs["unorm"]
    b = _copy(a, tmp_path)
    _alter_png(b / "per-level" / "level_01.png", [(1, 2, 1), (2, 5, 0)], 100)
    rc, out, _ = _diff(capsys, str(a), str(b), "--json", str(tmp_path / "d.json"))
    assert rc == 1
    assert "per-level: differs beyond them (level 1: 2 texels;" in out
    data = json.loads((tmp_path / "d.json").read_text())
    assert data["verdict"] == BEYOND and data["beyond"] == 2
    assert [lv["beyond"] for lv in data["strategies"][0]["levels"]] == [0, 2, 0, 0]


def test_texture_chains_promise_nothing(runs, tmp_path, capsys):
    levels = open_saved(str(runs["unorm"])).chains[0].read()
    a = containers.export(tmp_path / "a", "chain", levels, Format.UNORM, ("ktx2",))[0]
    b = containers.export(tmp_path / "b", "chain", levels, Format.UNORM, ("ktx2",))[0]
    rc, out, _ = _diff(capsys, str(a), str(b))
    assert rc == 0 and "overall: identical" in out and "texture files carry no promise" in out
    assert out.count("(texture file): file |") == 2

    altered = [lv.copy() for lv in levels]
    altered[2][0, 1, 3] ^= 1  # one texel, one LSB: beyond, as there is no promise
    b = containers.export(tmp_path / "b", "chain", altered, Format.UNORM, ("ktx2",))[0]
    rc, out, _ = _diff(capsys, str(a), str(b), "--json", str(tmp_path / "d.json"))
    assert rc == 1 and "level 2: 1 texel;" in out
    data = json.loads((tmp_path / "d.json").read_text())
    assert [lv["beyond"] for lv in data["strategies"][0]["levels"]] == [0, 0, 1, 0]


def test_nan_against_nan_is_identical_and_against_a_number_beyond():
    a = np.zeros((2, 3, 4), np.float16)
    a[1, 1, 0] = np.nan
    assert diff_chain("x", [a], [a.copy()], Format.F16, [0.0]).verdict == IDENTICAL
    b = a.copy()
    b[1, 1, 0] = 0.5
    d = diff_chain("x", [a], [b], Format.F16, [1e-3]).levels[0]
    assert d.beyond == 1 and d.max_diff == np.inf and d.worst == (0, 1, 1, 0)


def test_mismatched_sizes_are_one_line_and_exit_2(runs, capsys):
    rc, out, err = _diff(capsys, str(runs["unorm"]), str(runs["tall"]))
    assert rc == 2 and out == ""
    _one_line_error(err, "mismatched inputs", "13x7 unorm", "13x9 unorm")


def test_mismatched_strategies_are_one_line_and_exit_2(runs, tmp_path, capsys):
    b = _copy(runs["unorm"], tmp_path)
    report = json.loads((b / "report.json").read_text())
    report["strategies"][0]["strategy"] = "per-level:filter=tent"
    (b / "report.json").write_text(json.dumps(report))
    rc, _, err = _diff(capsys, str(runs["unorm"]), str(b))
    assert rc == 2
    _one_line_error(err, "mismatched inputs", "only in B per-level:filter=tent")


def test_bad_inputs_are_one_line_and_exit_2(runs, tmp_path, capsys):
    rc, _, err = _diff(capsys, str(runs["unorm"]), str(tmp_path / "missing"))
    assert rc == 2
    _one_line_error(err, "missing", "no such file or folder")
    (tmp_path / "empty").mkdir()
    rc, _, err = _diff(capsys, str(tmp_path / "empty"), str(runs["unorm"]))
    assert rc == 2
    _one_line_error(err, "not a mipview run folder")
    ktx = containers.export(tmp_path, "c", open_saved(str(runs["unorm"])).chains[0].read(),
                            Format.UNORM, ("ktx2",))[0]
    rc, _, err = _diff(capsys, str(runs["unorm"]), str(ktx))
    assert rc == 2
    _one_line_error(err, "mismatched inputs", "A is a run folder, B a texture file")
