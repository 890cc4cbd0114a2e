"""Compiling is not executing: a pipeline the driver compiles for longer than the GPU timeout
is not a hung shader (lavapipe compiles at the first dispatch; an empty Mesa cache makes it
compile here), the same compile without compiling ahead is (so the first test can fail), a
shader that runs too long still is (tests/test_custom_strategies.py), and the wait is told on
the CLI's stderr."""

from __future__ import annotations

import pytest

from mipview.check.verdict import judge_result
from mipview.cli.main import main
from mipview.core.formats import Format, to_storage
from mipview.gpu.session import Session
from mipview.gpu.strategies.specs import expand_specs
from mipview.gpu.vulkan import compile_ahead, context
from mipview.gpu.vulkan.compile_ahead import CompileProgress
from mipview.gpu.vulkan.context import GpuContext, GpuTimeout
from mipview.gpu.vulkan.vkapi import ffi

#: far below what LLVM takes for an sRGB per-level pipeline (~2 s here), far above its run
#: on 67x33 (~5 ms)
TIMEOUT_S = 0.2


@pytest.fixture
def cold_context(tmp_path, monkeypatch):
    """A context whose driver has compiled nothing yet: its own empty Mesa cache."""
    monkeypatch.setenv("MESA_SHADER_CACHE_DIR", str(tmp_path / "mesa"))
    ctx = GpuContext(validate=True)
    yield ctx
    ctx.close()
    assert not ctx.messages, ctx.messages


def _level0(rng):
    return to_storage(rng.random((33, 67, 4)), Format.SRGB)


def test_a_compile_longer_than_the_timeout_is_not_a_hang(cold_context, rng):
    ctx = cold_context
    level0 = _level0(rng)
    ctx.timeout_s = TIMEOUT_S
    with Session(ctx, level0, Format.SRGB, expand_specs("per-level")) as session:
        session.generate()
        result = session.result().results[0]
    assert ctx.compile_ahead.seconds > TIMEOUT_S  # the compile alone outlasted the limit
    assert judge_result(result, level0, Format.SRGB).within_tolerance


def test_the_same_compile_inside_the_timed_submit_reads_as_a_hang(cold_context, rng,
                                                                   monkeypatch):
    ctx = cold_context
    monkeypatch.setattr(ctx.compile_ahead, "before_submit", lambda cmd: None)
    session = Session(ctx, _level0(rng), Format.SRGB, expand_specs("per-level"))
    ctx.timeout_s = TIMEOUT_S
    with pytest.raises(GpuTimeout, match="did not finish within 0.2 s"):
        session.generate()
    ctx.timeout_s = 120  # the compile ends by itself: waiting for it gives the context back
    session.close()
    assert ctx.hung is None


def test_what_is_ready_is_not_compiled_again_and_what_is_destroyed_is_forgotten(gpu, rng):
    level0 = to_storage(rng.random((20, 36, 4)), Format.UNORM)
    with Session(gpu, level0, Format.UNORM, expand_specs("per-level")) as session:
        session.generate()
        after_first = gpu.compile_ahead.submits
        assert after_first > 0 and gpu.compile_ahead.pending() == 0
        session.generate()  # new command buffers, the same pipelines and sets
        assert gpu.compile_ahead.submits == after_first
        sets = [int(ffi.cast("uintptr_t", s)) for s in session.prepared[0].strategy.sets.sets]
        assert {k[1] for k in gpu.compile_ahead._ready} >= set(sets)
    # destroyed sets' handles may come back for other images: nothing of theirs stays ready
    assert not {k[1] for k in gpu.compile_ahead._ready} & set(sets)


def test_the_cli_says_it_is_compiling(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MESA_SHADER_CACHE_DIR", str(tmp_path / "mesa"))
    monkeypatch.setattr(compile_ahead, "REPORT_AFTER_S", 0.0)  # told from the first poll,
    monkeypatch.setattr(context, "_POLL_S", 0.01)  # which comes soon: any real compile is told
    assert main(["run", "--size", "67x33", "--format", "srgb", "--strategies", "per-level",
                 "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("mipview: compiling shaders (first run on llvmpipe"), err
    assert err[-1].startswith("mipview: compiled 2 shader pipeline(s) for llvmpipe"), err
    assert len(err) == 2  # not a line a second in a log


@pytest.mark.parametrize(("progress", "text"), [
    (CompileProgress(0, 4, 1.4, "dev"), "compiling shaders (first run on dev, 0 of 4 pipelines, "
                                        "1 s so far)"),
    (CompileProgress(1, 4, 6.0, "dev"), "compiling shaders (first run on dev, 1 of 4 pipelines, "
                                        "about 18 s left)"),
    (CompileProgress(4, 4, 20.2, "dev", finished=True),
     "compiled 4 shader pipeline(s) for dev in 20 s (first run; later runs reuse them)"),
])
def test_progress_reads_as_a_user_wants(progress, text):
    assert progress.message() == text
