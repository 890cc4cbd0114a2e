"""Level 0 of one and two channels read a 2x2 block per textureGather and channel (gather_mode):
the same texels as four texel loads, so the same levels, the mean included."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check.reference import reference_pyramid
from mipview.check.verdict import judge_result
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu.session import run_once
from mipview.gpu.shaders.shipped import gather_mode


def test_gather_mode_takes_one_instruction_per_channel_where_that_is_fewer():
    assert [gather_mode(f, 0) for f in (Format.R32F, Format.R8, Format.RG16F, Format.RG32F)] \
        == [1, 1, 2, 2]
    # four channels (RGBA, and the packed formats' words) read no faster by gather
    assert {gather_mode(f, 0) for f in (Format.UNORM, Format.F32, Format.RGB10A2,
                                        Format.B10G11R11)} == {0}
    # a depth level 0 has one component; under RG levels it stands in both, the levels have two
    assert (gather_mode(Format.D32, 0), gather_mode(Format.D16, 0)) == (1, 1)
    assert (gather_mode(Format.D32_RG32F, 0), gather_mode(Format.D32_RG32F, 1)) == (3, 2)


@pytest.mark.parametrize("fmt", [Format.R8, Format.RG16F], ids=lambda f: f.label)
def test_the_mean_of_a_gathered_level0_is_the_exact_mean(gpu, fmt):
    """single-pass and npot-exact's fast path read an even level 0 by gather: the mean of every
    level stays within its promise, and the min texel for texel the reference's."""
    rng = np.random.default_rng(7)
    level0 = fmt.unpack(fmt.pack(rng.random((40, 64, 4), dtype=np.float32)))
    specs = [StrategySpec.parse(s) for s in ("single-pass", "single-pass:reduction=min")]
    mip = run_once(gpu, level0, fmt, specs)
    assert not mip.skipped and not mip.validation_messages
    mean, least = mip.results
    assert judge_result(mean, level0, fmt).within_tolerance
    for k, (got, want) in enumerate(zip(least.levels, reference_pyramid(level0, fmt, "min"),
                                        strict=True)):
        assert np.array_equal(got, want.astype(fmt.dtype)), k
