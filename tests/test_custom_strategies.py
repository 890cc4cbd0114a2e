"""Custom strategies on the GPU (lavapipe, validation on): the examples in resources/shaders keep
the exact promise at POT and NPOT sizes, the deliberately wrong one fails it at exactly the texels
it skips, the plan and timing come through like a built-in's, and a shader that runs too long
ends in a timeout the process survives."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check import compare, reference, tolerances
from mipview.check.verdict import judge_result
from mipview.cli.main import main
from mipview.core.formats import Format, to_storage
from mipview.core.results import TimingSettings
from mipview.gpu.session import Session, run_once
from mipview.gpu.strategies.specs import expand_specs
from mipview.gpu.vulkan.context import GpuContext, GpuTimeout
from tests.shader_examples import example, needs_compilers
from tests.stderr import without_compile_progress

pytestmark = needs_compilers

BOX = example("box_per_level.comp")
CHAIN = example("chain_last_group.comp")
BUG = example("odd_edge_bug.comp")

# Each invocation loops SPIN times (lavapipe ends an invocation after 65535 loop iterations in
# all, so the time grows with the image instead): 256^2 takes about a second there.
SPIN = """#version 460
#pragma mipview kind per-level
#pragma mipview option SPIN 0 60000
#extension GL_GOOGLE_include_directive : require
#include "mip_level.glsl"
layout(constant_id = 0) const int SPIN = 0;
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    vec4 v = mipLevelLoad(2 * p);
    for (int i = 0; i < SPIN; ++i) {
        v = fract(v * 1.0001 + 0.1);
    }
    mipLevelStore(p, v);
}
"""


def _source(w, h, fmt, rng, layers=1):
    pixels = rng.random((layers, h, w, 4) if layers > 1 else (h, w, 4))
    return to_storage(pixels * (4.0 if fmt.is_float else 1.0), fmt)


@pytest.mark.parametrize("spec", [BOX, CHAIN], ids=["per-level", "whole-chain"])
@pytest.mark.parametrize("size,fmt,layers", [
    ((64, 64), Format.UNORM, 1), ((37, 23), Format.UNORM, 1), ((1, 7), Format.UNORM, 1),
    ((45, 30), Format.SRGB, 2), ((33, 64), Format.F16, 1), ((20, 9), Format.F32, 1),
], ids=lambda v: f"{v[0]}x{v[1]}" if isinstance(v, tuple) else getattr(v, "label", v))
def test_examples_keep_the_exact_promise(gpu, rng, spec, size, fmt, layers):
    level0 = _source(*size, fmt, rng, layers)
    mip = run_once(gpu, level0, fmt, expand_specs(f"{spec}:GROUP=all"))
    assert not mip.skipped and not mip.validation_messages
    for res in mip.results:
        verdict = judge_result(res, level0, fmt)
        assert res.promise == ("stored" if spec == BOX else "carried")
        assert len(res.levels) == max(size).bit_length()
        assert verdict.within_tolerance, (str(res.spec), verdict.summary())


def test_wrong_example_fails_at_exactly_the_skipped_texels(gpu, rng):
    fmt = Format.UNORM
    level0 = _source(37, 23, fmt, rng)  # 37x23 -> 18x11 -> 9x5 -> 4x2 -> 2x1 -> 1x1
    mip = run_once(gpu, level0, fmt, expand_specs(f"{BUG},{BOX}"))
    bug, box = (list(r.levels) for r in mip.results)
    verdict = judge_result(mip.results[0], level0, fmt)
    assert not verdict.within_tolerance and verdict.failing_levels == (1, 2, 3, 4, 5)
    step_bound = tolerances.TOLERANCE[fmt][0]
    for level in range(1, len(bug)):
        below = bug[level - 1]
        skipped = np.zeros(bug[level].shape[:2], bool)
        skipped[:, -1] |= below.shape[1] % 2 == 1  # the level below has an odd width
        skipped[-1, :] |= below.shape[0] % 2 == 1
        # the heatmap of each level against the exact reduction of the level below as stored
        err = compare.error_map(bug[level], reference.step_level(below, fmt), fmt)
        assert np.array_equal(err > step_bound, skipped), level
        assert err[~skipped].max(initial=0.0) <= 0.5 + tolerances.REFERENCE_SLACK
    # level 1 comes from the same level 0 as the correct example's: equal bit for bit except
    # at the skipped texels, and against the exact reference only those break the bound
    diff = compare.difference_map(bug[1], box[1], fmt)
    assert np.array_equal(diff != 0, diff > step_bound) and (diff != 0).sum() == 18 + 11 - 1
    chain = compare.error_map(bug[1], reference.reference_pyramid(level0, fmt)[1], fmt)
    assert np.array_equal(chain > step_bound, diff != 0)


def test_plan_and_timing_are_the_strategys_steps(gpu, rng):
    level0 = _source(40, 24, Format.UNORM, rng)
    with Session(gpu, level0, Format.UNORM, expand_specs(f"{BOX},{CHAIN}")) as session:
        session.generate()
        session.time_with(TimingSettings(3, 0.0))
        box, chain = session.result().results
    assert [s.label for s in box.plan] == [f"level {i}" for i in range(1, 6)]
    assert [s.groups for s in box.plan][:2] == [(3, 2, 1), (2, 1, 1)]  # 20x12, 10x6 by 8x8
    assert [label for label, _ in box.timing.marks] == [s.label for s in box.plan]
    assert [s.label for s in chain.plan] == ["chain"] and chain.plan[0].groups == (2, 1, 1)
    assert chain.plan[0].levels == (1, 2, 3, 4, 5)
    # the counters are zeroed ahead of each run, untimed: the run is the shader's alone
    assert [label for label, _ in chain.timing.marks] == ["chain"]
    assert box.timing.total.samples_us and len(chain.timing.total.samples_us) == 3


def test_cli_run_and_bench_with_a_custom_strategy(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--size", "24x10", "--validate", "--out", str(out), "--strategies",
                 f"{BOX},per-level"]) == 0
    folders = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert folders == ["per-level", f"{BOX}".replace(":", "_").replace("/", "_")]
    assert len(list((out / folders[1]).glob("level_*.png"))) == 5
    assert main(["bench", "--size", "24x10", "--repeat", "2", "--warmup-ms", "0",
                 "--strategies", f"{CHAIN}:GROUP=8"]) == 0
    assert "chain_last_group.comp:GROUP=8" in capsys.readouterr().out


def test_a_shader_that_runs_too_long_times_out_and_the_process_goes_on(tmp_path, rng):
    spin = tmp_path / "spin.comp"
    spin.write_text(SPIN)
    level0 = _source(256, 256, Format.UNORM, rng)
    ctx = GpuContext(validate=True)
    try:
        session = Session(ctx, level0, Format.UNORM, expand_specs(f"shader:{spin}:SPIN=60000"))
        ctx.timeout_s = 0.1
        with pytest.raises(GpuTimeout, match=r"did not finish within 0\.1 s: a shader that "
                                             r"never ends or takes far too long"):
            session.generate()
        # the late submit ends by itself here: waiting for it gives the context back intact
        ctx.timeout_s = 120
        session.close()
        assert ctx.hung is None
        mip = run_once(ctx, level0[:8, :8], Format.UNORM, expand_specs(BOX))
        assert judge_result(mip.results[0], level0[:8, :8], Format.UNORM).within_tolerance
    finally:
        ctx.close()
    assert not ctx.messages, ctx.messages


def test_a_context_left_by_a_timed_out_session_is_given_up(tmp_path, rng):
    """The session's close could not wait for the late submit, so its images and buffers are
    still alive: closing the context gives the device up instead of destroying it under them,
    however long it may wait by now (the GUI closes its hung context whenever its thread gets
    to it; under load, after the submit has ended)."""
    spin = tmp_path / "spin.comp"
    spin.write_text(SPIN)
    level0 = _source(256, 256, Format.UNORM, rng)
    ctx = GpuContext(validate=True)
    session = Session(ctx, level0, Format.UNORM, expand_specs(f"shader:{spin}:SPIN=60000"))
    ctx.timeout_s = 0.1
    with pytest.raises(GpuTimeout):
        session.generate()
    with pytest.raises(GpuTimeout):
        session.close()  # still running: nothing it uses is destroyed
    ctx.timeout_s = 120
    ctx.close()
    assert ctx.device is None
    assert not ctx.messages, ctx.messages  # no "objects still alive" at vkDestroyDevice


def test_cli_timeout_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    spin = tmp_path / "spin.comp"
    spin.write_text(SPIN)
    monkeypatch.setenv("MIPVIEW_GPU_TIMEOUT", "0.1")
    assert main(["run", "--size", "256", "--out", str(tmp_path / "out"),
                 "--strategies", f"shader:{spin}:SPIN=60000"]) == 2
    err = without_compile_progress(capsys.readouterr().err)
    assert err.count("\n") == 1 and "did not finish within 0.1 s" in err
    # the context was given up while its submit still ran; a new one works
    monkeypatch.delenv("MIPVIEW_GPU_TIMEOUT")
    assert main(["run", "--size", "8", "--out", str(tmp_path / "again"),
                 "--strategies", BOX]) == 0
