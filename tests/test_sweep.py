"""``sweep_curves`` (the loop behind ``mipview sweep`` and the GUI's Sweep tab) against numpy's
exact mean, and the CLI printing/writing exactly its numbers."""

from __future__ import annotations

import json

import numpy as np

from mipview.core.formats import Format, to_storage
from mipview.core.specs import StrategySpec
from mipview.gpu.mean import mean_reference
from mipview.io import synthetic
from mipview.runs.sweep import sweep_curves

SPECS = [StrategySpec("blit"), StrategySpec("per-level")]


def test_sweep_curves_against_exact_mean(gpu):
    res = sweep_curves(gpu, range(30, 35), 17, Format.SRGB, SPECS)
    assert res.widths == (30, 31, 32, 33, 34) and not res.stopped
    assert res.unit == "LSB" and res.validation_messages == ()
    assert [n for n, _ in res.errors] == ["blit", "per-level"]
    for row, w in zip(res.rows, res.widths, strict=True):
        level0 = to_storage(synthetic.image(w, 17).pixels, Format.SRGB)
        exact = mean_reference(level0, Format.SRGB, "mean")
        np.testing.assert_array_equal(row.exact, exact)
        values = dict(row.values)
        for name, errors in [("gpu-mean", res.gpu_mean), *res.errors]:
            i = res.widths.index(w)
            assert errors[i] == np.abs(np.asarray(values[name]) - exact).max()
    assert max(res.gpu_mean) < 1e-3  # float32 sums of 8-bit values: far below 1 LSB
    errors = dict(res.errors)
    assert max(errors["per-level"]) <= 1.5
    assert max(errors["blit"]) > 10  # NPOT blit: the 1x1 level is far from the mean


def test_sweep_stops_and_reports_progress(gpu):
    seen = []
    res = sweep_curves(gpu, range(8, 13), 5, Format.UNORM, SPECS[:1],
                       should_stop=lambda: len(seen) >= 2, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 5), (2, 5)] and res.stopped and res.widths == (8, 9)
    assert len(res.gpu_mean) == 2 and len(res.errors[0][1]) == 2


def test_cli_sweep_json(gpu, tmp_path, capsys):
    from mipview.cli.main import main

    out = tmp_path / "s.json"
    code = main(["sweep", "--width-range", "30:32", "--height", "17", "--strategies",
                 "blit,per-level", "--json", str(out), "--validate"])
    text = capsys.readouterr().out
    assert code == 0, text
    data = json.loads(out.read_text())
    res = sweep_curves(gpu, range(30, 33), 17, Format.SRGB, SPECS)
    assert data["widths"] == [30, 31, 32] and data["unit"] == "LSB"
    assert data["max_error"] == res.curves()
    assert list(data["max_error"]) == ["gpu-mean", "blit", "per-level"]
    assert data["rows"][0]["values"]["blit"] == list(dict(res.rows[0].values)["blit"])
    assert f"{max(res.curves()['blit']):14.4g}" in text.splitlines()[-2]
