"""A stored mip chain is fitted, not failed (mipview.check.chain_fit): chains the reference makes
with each filter, edge and light are named back exactly, not as a near neighbour; a level
altered is a misfit at that level alone; a block-compressed chain is reported with its codec's
error; the ``file`` verdict reports the fit and holds the chain to a filter only when one is
expected, and ``mipview run FILE`` exits 1 only then."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check import chain_fit
from mipview.check.chain_fit import Candidate, fit_chain, level_fits, match_bounds
from mipview.check.filter_reference import stored_chain
from mipview.check.verdict import judge
from mipview.cli.main import main
from mipview.core.cancel import Cancelled, stop_token
from mipview.core.filters.spec import FilterSpec, parse_filter
from mipview.core.formats import Format
from tests.run_report import read_report
from tests.stderr import one_line_error
from tests.test_shipped_files import SHIPPED

#: filter -> a near neighbour that must not be taken for it
NEIGHBOURS = {
    "mean": "tent",
    "tent,edge=wrap": "tent",
    "kaiser": "kaiser,kaiser-alpha=5",
    "kaiser,edge=mirror,kaiser-width=4,kaiser-alpha=6": "kaiser,edge=mirror,kaiser-width=4",
    "lanczos3": "lanczos4",
    "mitchell,edge=wrap": "catmull-rom,edge=wrap",
}


def _noise(width: int, height: int, seed: int = 3) -> np.ndarray:
    """Level 0 of texels that tell filters apart: every code, every neighbour unlike."""
    return np.random.default_rng(seed).integers(0, 256, (height, width, 4), dtype=np.uint8)


def _chain(level0: np.ndarray, fmt: Format, name: str) -> list[np.ndarray]:
    """The correctly rounded chain of filter ``name``, each level from the stored one above."""
    return [level0, *list(stored_chain(level0, fmt, name))[1:]]


@pytest.mark.parametrize("fmt", [Format.UNORM, Format.SRGB], ids=lambda f: f.label)
@pytest.mark.parametrize("name", sorted(NEIGHBOURS))
def test_a_chain_the_reference_made_is_named_back_and_not_as_its_neighbour(fmt, name):
    levels = _chain(_noise(64, 48), fmt, name)
    fit = fit_chain(levels, fmt)
    assert fit is not None
    assert fit.filter == name and not fit.candidate.codes
    assert fit.misfits == () and all(lv.max_error <= 0.5 + 1e-9 for lv in fit.levels)
    words = fit.candidate.words(fmt)
    assert fit.line().startswith(f"levels 1-6 match {words}, within ")
    assert ("in linear light" in words) == fmt.is_srgb
    # the neighbour is told apart by the same bounds: it misses them
    near = Candidate(parse_filter(NEIGHBOURS[name]))
    size = (64, 48)
    missed = level_fits(levels, fmt, near, match_bounds(near.name, fmt, len(levels), size))
    assert any(not lv.matches for lv in missed)


def test_an_odd_sized_chain_and_one_made_on_the_srgb_codes_are_named_back():
    odd = _chain(_noise(45, 27, seed=5), Format.UNORM, "lanczos3,edge=wrap")
    assert fit_chain(odd, Format.UNORM).filter == "lanczos3,edge=wrap"
    # made as if the codes were linear, read as sRGB: the codes, not linear light
    codes = _chain(_noise(40, 40), Format.UNORM, "catmull-rom")
    fit = fit_chain(codes, Format.SRGB)
    assert fit.filter == "catmull-rom" and fit.candidate.codes and not fit.misfits
    assert "catmull-rom, clamp, on the sRGB codes" in fit.line()
    assert fit_chain(codes, Format.UNORM).filter == "catmull-rom"


def _alter(level: np.ndarray, d: int) -> np.ndarray:
    """``level`` with a texel pair side by side (x = 2i, 2i + 1) moved by +d and -d: a step
    d LSB off, while the next level, whose taps weigh the pair alike or nearly, moves by far
    less than its bound."""
    out = level.copy()
    v = out.astype(int)[..., 0]
    ys, xs = np.nonzero((v[:, 0:-1:2] >= d) & (v[:, 0:-1:2] <= 255 - d)
                        & (v[:, 1::2] >= d) & (v[:, 1::2] <= 255 - d))
    y, x = int(ys[len(ys) // 2]), 2 * int(xs[len(xs) // 2])
    out[y, x, 0] += d
    out[y, x + 1, 0] -= d
    return out


@pytest.mark.parametrize("name", ["mean", "kaiser"])
def test_a_level_altered_is_a_misfit_at_that_level_alone(name):
    fmt = Format.UNORM
    levels = _chain(_noise(64, 64), fmt, name)
    levels[2] = _alter(levels[2], 3)
    fit = fit_chain(levels, fmt)
    assert fit.filter == name
    assert fit.misfits == (2,)
    assert 2.5 <= fit.levels[1].max_error <= 3.5
    assert f"; level 2 does not (up to {fit.levels[1].max_error:.3g} LSB)" in fit.line()
    assert fit.line().startswith("levels 1, 3-6 match ")


def test_a_block_compressed_chain_is_reported_with_its_codec_error():
    fmt = Format.SRGB
    levels = _chain(_noise(32, 32), fmt, "mean")
    levels[1] = _alter(levels[1], 9)  # what an encoder may do to a level
    fit = fit_chain(levels, fmt, codec="BC7")
    assert fit.filter == "mean" and fit.misfits == ()
    assert all(lv.bound == float("inf") for lv in fit.levels)
    worst = fit.levels[0].max_error
    assert 8.5 <= worst <= 9.5
    line = fit.line()
    assert line.startswith("decoded from BC7: levels 1-5 against box, in linear light, each "
                           f"from the decoded level above: within {worst:.3g} LSB (worst "
                           "level 1)")
    assert "includes the BC7 codec's error" in line


def test_the_fit_stops_when_told():
    levels = _chain(_noise(32, 32), Format.UNORM, "tent")
    with stop_token(lambda: True), pytest.raises(Cancelled):
        fit_chain(levels, Format.UNORM)


def test_the_screen_keeps_the_made_filter_among_the_few_it_confirms():
    fmt = Format.UNORM
    levels = _chain(_noise(300, 200), fmt, "kaiser,edge=wrap,kaiser-width=5,kaiser-alpha=2")
    pool = chain_fit.candidates(fmt)
    assert len({c.name for c in pool}) == len(pool)  # a box reads no edge: once
    kept = [c.name for _, c in chain_fit.screen(levels, fmt, pool)[:chain_fit.KEEP]]
    assert kept[0] == "kaiser,edge=wrap,kaiser-width=5,kaiser-alpha=2"


# --- the verdict ----------------------------------------------------------------------------------
def test_the_file_verdict_reports_the_fit_and_judges_only_an_expected_filter():
    fmt = Format.UNORM
    level0 = _noise(40, 24)
    levels = _chain(level0, fmt, "kaiser")
    told = judge(levels, level0, fmt, promise="file")
    assert told.within_tolerance and told.fit is not None and told.fit.filter == "kaiser"
    assert told.summary() == told.fit.line()
    assert "held to no filter (none expected)" in told.rule
    kept = judge(levels, level0, fmt, "kaiser", promise="file", expected=True)
    assert kept.within_tolerance and kept.summary().startswith("ok; levels 1-5 match kaiser")
    missed = judge(levels, level0, fmt, "mean", promise="file", expected=True)
    assert not missed.within_tolerance and missed.failing_levels[0] == 1
    assert missed.rule.startswith("file, expected mean: ")
    assert missed.step_bounds == tuple(match_bounds("mean", fmt, len(levels), (40, 24)))
    # the box's bound: its own rounding at level 1, then the level above's too
    assert missed.step_bounds[1] < 0.51 and 0.99 < missed.step_bounds[2] < 1.01
    assert FilterSpec().name == "mean"


# --- mipview run ----------------------------------------------------------------------------------
def test_run_of_a_shipped_chain_exits_1_only_when_an_expected_filter_is_missed(tmp_path, capsys):
    path = SHIPPED / "rgb-mipmap-reference-u.ktx2"  # each level its own flat colours
    out = tmp_path / "out"
    assert main(["run", str(path), "--strategies", "per-level", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "no level matches a reference filter" in printed
    assert "level  3: max 255.000" in printed
    entry = next(s for s in read_report(out)["strategies"] if s["name"] == "file")
    assert entry["within_tolerance"] is True
    assert entry["fit"]["filter"] == "mean" and entry["fit"]["misfits"] == [1, 2, 3, 4, 5, 6]
    assert [lv["level"] for lv in entry["fit"]["levels"]] == [1, 2, 3, 4, 5, 6]
    assert main(["run", str(path), "--strategies", "per-level", "--expect", "box",
                 "--out", str(out)]) == 1
    entry = next(s for s in read_report(out)["strategies"] if s["name"] == "file")
    assert entry["options_used"]["expect"] == "mean" and entry["within_tolerance"] is False
    assert "OUT OF TOLERANCE" in capsys.readouterr().out


def test_run_of_a_shipped_bc7_chain_reports_the_codec_error(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(SHIPPED / "DXGI_FORMAT_BC7_UNORM_SRGB.dds"), "--strategies",
                 "per-level", "--out", str(out)]) == 0
    assert "includes the BC7 codec's error" in capsys.readouterr().out
    entry = next(s for s in read_report(out)["strategies"] if s["name"] == "file")
    assert entry["options_used"]["decoded-from"] == "BC7" and entry["fit"]["codec"] == "BC7"
    assert entry["fit"]["misfits"] == [] and entry["within_tolerance"] is True


def test_a_chain_that_is_its_expected_filter_exits_0(tmp_path):
    # a 7-layer array whose every layer is flat at every level: any filter makes it
    path = SHIPPED / "arraytex_7_mipmap_reference_u.ktx2"
    out = tmp_path / "out"
    assert main(["run", str(path), "--strategies", "per-level", "--expect",
                 "kaiser:kaiser-width=4", "--out", str(out)]) == 0
    entry = next(s for s in read_report(out)["strategies"] if s["name"] == "file")
    assert entry["reduction"] == "kaiser,kaiser-width=4" and entry["fit"]["misfits"] == []


def test_an_unknown_expected_filter_is_one_line_before_any_work(tmp_path, capsys, no_gpu_work):
    out = tmp_path / "out"
    assert main(["run", str(SHIPPED / "ldr.ktx"), "--expect", "kaiser:kaiser-width=99",
                 "--out", str(out)]) == 2
    one_line_error(capsys, "--expect", "kaiser-width must be in [1, 8]")
    assert not out.exists()


def test_an_expected_filter_without_a_chain_to_judge_is_said(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(SHIPPED / "ldr.ktx"), "--strategies", "per-level", "--expect",
                 "box", "--out", str(out)]) == 0
    assert "warning: --expect: " in capsys.readouterr().err
    assert [s["name"] for s in read_report(out)["strategies"]] == ["per-level"]
