"""The public API (mipview.open_image, run, bench): the example of docs/api.md runs as written,
and what it returns is what the command line judges and writes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import mipview
from mipview.check.reference import reference_pyramid
from mipview.check.tolerances import REFERENCE_SLACK, chain_tolerance
from mipview.core.formats import Format
from mipview.runs import staged

ROOT = Path(__file__).resolve().parent.parent


def test_the_example_of_docs_api_runs(monkeypatch, capsys) -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1 and len(blocks[0].splitlines()) <= 30
    monkeypatch.chdir(ROOT)
    exec(compile(blocks[0], "docs/api.md", "exec"), {})
    printed = capsys.readouterr().out
    assert re.search(r"differ, per level: \[0, [0-9, ]+\]", printed)  # level 0 is the image
    assert re.search(r"fastest: (per-level|single-pass) at [0-9.]+ us", printed)


def test_run_gives_the_levels_and_verdicts_of_the_cli() -> None:
    image = mipview.open_image(ROOT / "resources" / "alpha_300x200.png")
    done = mipview.run(image, strategies="per-level,blit", format="unorm")
    level0 = image.storage(Format.UNORM)
    ref = reference_pyramid(level0, Format.UNORM)
    exact = done.strategies["per-level"]
    assert [lv.shape for lv in exact.levels] == [r.shape for r in ref]
    for k, (got, want) in enumerate(zip(exact.levels, ref, strict=True)):  # texel by texel
        bound = chain_tolerance(Format.UNORM, k) + REFERENCE_SLACK
        assert np.abs(got.astype(np.float64) - want).max() <= bound
    # the verdicts are the command line's, on the same levels
    assert {k: s.verdict for k, s in done.strategies.items()} == \
        staged.verdicts(done.result, level0)
    assert done.ok and exact.timing is None


def test_a_corrupted_level_makes_the_outcome_not_ok() -> None:
    image = mipview.open_image(ROOT / "resources" / "alpha_300x200.png")
    done = mipview.run(image, strategies="per-level", format="unorm")
    res = done.result.results[0]
    levels = list(res.levels)
    levels[2] = levels[2].copy()
    levels[2][0, 0, 0] ^= 0x40  # 64 LSB off at one texel
    from dataclasses import replace

    bad = replace(done.result, results=(replace(res, levels=tuple(levels)),))
    verdict = staged.verdicts(bad, image.storage(Format.UNORM))["per-level"]
    outcome = mipview.api.Outcome(bad, {"per-level": mipview.api.StrategyOutcome(
        "per-level", tuple(levels), verdict, None)})
    assert not outcome.ok and verdict.failing_levels[0] == 2


def test_bad_input_is_a_mipview_error(tmp_path) -> None:
    with pytest.raises(mipview.MipviewError):
        mipview.open_image(tmp_path / "missing.png")
    with pytest.raises(AttributeError):
        mipview.no_such_function  # noqa: B018
