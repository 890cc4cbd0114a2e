"""FidelityFX SPD (third_party/ffx_spd) as a whole-chain custom strategy, on lavapipe with
validation on: resources/shaders/spd_mean.comp and spd_min.comp keep the exact promise at a
power of two (SPD's 2x2 is exact there), spd_min fails it honestly at an NPOT size, and the
counters cost the timed runs nothing: SPD resets its own (``counters self-reset``, checked after
the runs), and mipview's zeroing for the other shaders can go ahead of the opening timestamp."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check import reference
from mipview.check.verdict import judge_result
from mipview.core.formats import Format, to_storage
from mipview.core.results import TimingSettings
from mipview.gpu.session import Session
from mipview.gpu.strategies.specs import expand_specs
from tests.shader_examples import EXAMPLES, example, needs_compilers

pytestmark = needs_compilers

SPD_MEAN = example("spd_mean.comp")
SPD_MIN = example("spd_min.comp")
CHAIN = example("chain_last_group.comp")


def _run(gpu, level0, fmt, spec, repeat=3, prepared=None):
    """generate, then ``repeat`` timed runs (every run after the first starts from the counters
    the one before left); ``prepared(p)`` may change the prepared strategy's work first."""
    with Session(gpu, level0, fmt, expand_specs(spec)) as session:
        assert not session.skipped, session.skipped
        if prepared is not None:
            prepared(session.prepared[0])
        session.generate()
        session.time_with(TimingSettings(repeat, 0.0))
        result = session.result()
    assert not result.validation_messages
    return result.results[0]


@pytest.mark.parametrize("handoff", ["", ":HANDOFF=1"], ids=["model", "amd"])
def test_spd_mean_is_exact_at_a_power_of_two(gpu, rng, handoff):
    """Both hand-offs (the memory model's, AMD's relaxed one) make the same exact chain and
    leave the counters zero."""
    fmt = Format.UNORM
    level0 = to_storage(rng.random((2, 256, 256, 4)), fmt)  # two layers: a counter each
    res = _run(gpu, level0, fmt, SPD_MEAN + handoff)
    verdict = judge_result(res, level0, fmt)
    assert verdict.within_tolerance, verdict.summary()
    assert res.promise == "carried" and len(res.levels) == 9
    # 4x4 groups of 64x64 texels; the counter is SPD's own: no mipview mark in the run
    assert [s.groups for s in res.plan] == [(4, 4, 2)]
    assert [label for label, _ in res.timing.marks] == ["chain"]
    assert not res.notes  # the counters read back zero after the runs


def test_spd_min_is_bit_exact_at_a_power_of_two(gpu, rng):
    fmt = Format.R32F
    level0 = to_storage(rng.random((256, 256, 4)) * 4.0, fmt)
    res = _run(gpu, level0, fmt, SPD_MIN)
    assert res.reduction == "min" and not res.notes
    assert judge_result(res, level0, fmt).within_tolerance
    ref = reference.reference_pyramid(level0, fmt, "min")
    for level, (got, want) in enumerate(zip(res.levels, ref, strict=True)):
        assert np.array_equal(got[..., 0], want[..., 0].astype(np.float32)), level


def test_spd_min_fails_honestly_at_odd_sides(gpu, rng):
    # 200x120 -> 100x60 -> 50x30 -> 25x15 -> 12x7 -> 6x3 -> 3x1 -> 1x1: SPD's 2x2 min drops the
    # last column (row) of a level with an odd side, and its tiles of 64 cover level 6 from a
    # fraction of level 0: not conservative from level 4 on
    fmt = Format.R32F
    level0 = to_storage(rng.random((120, 200, 4)) * 4.0, fmt)
    res = _run(gpu, level0, fmt, SPD_MIN, repeat=1)
    verdict = judge_result(res, level0, fmt)
    assert not verdict.within_tolerance
    assert 4 in verdict.failing_levels and set(verdict.failing_levels) <= {4, 5, 6, 7}
    ref = reference.reference_pyramid(level0, fmt, "min")
    for level, (got, want) in enumerate(zip(res.levels, ref, strict=True)):
        got, want = got[..., 0], want[..., 0].astype(np.float32)
        if level <= 3:  # made from even sides only: exact
            assert np.array_equal(got, want), level
        else:  # a min over fewer texels than it covers: never below the exact min
            assert (got >= want).all(), level
    assert not np.array_equal(res.levels[4][..., 0], ref[4][..., 0].astype(np.float32))


def test_a_self_reset_shader_that_does_not_reset_is_reported(gpu, rng, tmp_path):
    # chain_last_group.comp never touches its counter: declared self-reset, it is wrong
    source = (EXAMPLES / "chain_last_group.comp").read_text()
    bad = tmp_path / "no_reset.comp"
    bad.write_text(source.replace("#pragma mipview kind whole-chain\n",
                                  "#pragma mipview kind whole-chain\n"
                                  "#pragma mipview counters self-reset\n"))
    fmt = Format.UNORM
    level0 = to_storage(rng.random((40, 24, 4)), fmt)
    res = _run(gpu, level0, fmt, f"shader:{bad}:GROUP=8", repeat=2)
    assert [label for label, _ in res.timing.marks] == ["chain"]  # mipview left them alone
    stale = [n for n in res.notes if n.startswith("COUNTERS NOT RESET")]
    # 2x3 groups per run (24x40), three runs (generate and two timed), never reset
    assert res.plan[0].groups == (2, 3, 1)
    assert len(stale) == 1 and "counter 0 of layer 0 reads 18 " in stale[0], res.notes


def test_zeroing_ahead_of_the_run_leaves_the_timed_span(gpu, rng):
    # a shader that is not self-reset: zeroed in before_run, recorded ahead of each run's barrier
    # and opening timestamp (as TimedWork's before_each is), the run has the shader's marks only
    fmt = Format.UNORM
    level0 = to_storage(rng.random((24, 40, 4)), fmt)

    def ahead(p):
        p.work.set_before_each(lambda cmd, i: p.strategy.before_run(cmd, p.image))

    res = _run(gpu, level0, fmt, f"{CHAIN}:GROUP=8", prepared=ahead)
    assert [label for label, _ in res.timing.marks] == ["chain"]
    assert len(res.timing.total.samples_us) == 3 and not res.notes
    assert judge_result(res, level0, fmt).within_tolerance  # every run got zeroed counters
