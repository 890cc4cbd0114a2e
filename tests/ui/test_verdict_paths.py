"""The window and ``mipview run`` give one verdict: the window's analysis (runs.staged.analyse
with heatmaps, as its worker calls it), the command line's (the same without heatmaps:
staged.verdicts) and the JSON of report.result_dict agree on within-tolerance and on every
figure (step and chain per level), and the heatmaps show those figures, for every strategy and
format, and a few sizes."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest

from mipview.check.compare import json_float
from mipview.check.reference import reference_pyramid, step_level
from mipview.check.verdict import ReferenceCache
from mipview.core.formats import Format, to_storage
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from mipview.gpu.session import run_once
from mipview.runs import report, staged
from tests.gpu_formats import GPU_FORMATS

# every registered strategy (the exact ones and blit), and a reduction other than the mean
SPECS = [*strategies.default_specs(), StrategySpec("single-pass", (("reduction", "max"),))]
#: every format at 37x23, the other sizes in one format each: a size changes the levels the
#: paths walk, a format the figures' units, and neither changes what the other does (every case
#: is a session of every strategy, a compile each on lavapipe)
CASES = [*(((37, 23), fmt) for fmt in GPU_FORMATS), ((16, 16), Format.UNORM),
         ((1, 17), Format.F16)]


def _level0(w: int, h: int, fmt: Format) -> np.ndarray:
    pixels = np.random.default_rng(w * 100 + h).random((h, w, 4))
    level0 = to_storage(pixels * (4.0 if fmt.is_float else 1.0), fmt)
    level0.setflags(write=False)
    return level0


def analyse(mip, level0: np.ndarray):
    """The window's analysis of a Run: staged.analyse, in a pool as the worker runs it."""
    with ThreadPoolExecutor(2) as pool:
        _, errors = staged.analyse(mip, level0, ReferenceCache(), staged.RunListener(), pool)
    return errors


def _figures(entries: list[dict]) -> list[float | str]:
    return [e["max_error"] for e in entries]


@pytest.mark.parametrize("size,fmt", CASES, ids=[f"{w}x{h}-{f.label}" for (w, h), f in CASES])
def test_gui_and_cli_paths_give_the_same_verdict(gpu, size, fmt):
    level0 = _level0(*size, fmt)
    mip = run_once(gpu, level0, fmt, SPECS)
    assert not mip.validation_messages and not mip.skipped

    gui = {str(e.spec): e for e in analyse(mip, level0)}
    cli = staged.verdicts(mip, level0)
    data = json.loads(json.dumps(report.result_dict(mip, cli)))  # what report.json holds
    assert list(gui) == list(cli) == [s["strategy"] for s in data["strategies"]]
    for entry in data["strategies"]:
        name = entry["strategy"]
        g, c = gui[name], cli[name]
        assert g.verdict == c, name  # the whole verdict: rule, figures, breaches
        assert g.within_tolerance == c.within_tolerance == entry["within_tolerance"], name
        assert _figures(entry["errors"]["step"]) == [json_float(e.max_error)
                                                     for e in g.verdict.exact.step], name
        assert _figures(entry["errors"]["chain"]) == [json_float(e.max_error) for e in g.levels]
        assert entry["rule"] == g.verdict.rule
        # the heatmap shows the figures the table and the verdict use
        assert [float(m.max()) for m in g.maps] == [float(np.float32(e.max_error))
                                                   for e in g.levels], name
        if g.verdict.promise != "emulated":  # lavapipe keeps every strategy's promise
            assert g.within_tolerance, (name, g.verdict.summary())
        else:
            assert entry["max_error_vs_own_reference"] == json_float(g.verdict.own.max_chain)


def test_both_paths_call_a_corrupted_level_out_of_tolerance(gpu):
    """The window used to hold results to a flat chain bound with no step check: a level more
    than 1 LSB off the reduction of the level below, chain still within 2 LSB, passed there and
    failed in ``mipview run``. Now both say no."""
    fmt = Format.UNORM
    level0 = _level0(16, 16, fmt)
    mip = run_once(gpu, level0, fmt, [StrategySpec("per-level")])
    res = mip.results[0]
    levels = list(res.levels)
    exact = step_level(levels[2], fmt)[0, 0, 0]  # what level 3 must be, from level 2 as stored
    chain = reference_pyramid(level0, fmt)[3][0, 0, 0]
    # more than 1 LSB off the step, the nearer way to the chain
    v = min((np.floor(exact) + 2, np.ceil(exact) - 2), key=lambda c: abs(c - chain))
    bad = levels[3].copy()
    bad[0, 0, 0] = v
    levels[3] = bad
    mip = replace(mip, results=(replace(res, levels=tuple(levels)),))
    cli = staged.verdicts(mip, level0)["per-level"]
    gui = analyse(mip, level0)[0]
    assert gui.verdict == cli
    assert not gui.within_tolerance and not cli.within_tolerance
    assert cli.failing_levels[0] == 3 and cli.breaches[0].figure == "step"
    assert cli.exact.chain[3].max_error <= 2.0  # the old flat chain bound passed it
