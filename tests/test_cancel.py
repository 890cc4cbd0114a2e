"""Cooperative cancellation (mipview.core.cancel): long reference and comparison work ends within
one step once its stop token is set, and runs unchanged without one."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from mipview.check import compare, reference
from mipview.check.verdict import ReferenceCache
from mipview.core.cancel import Cancelled, checkpoint, run_with, stop_token
from mipview.core.formats import Format, mip_count

FMT = Format.UNORM


def _image(size: int = 64) -> np.ndarray:
    rng = np.random.default_rng(3)
    return rng.integers(0, 256, (size, size, 4), dtype=np.uint8)


@pytest.fixture
def levels_done(monkeypatch):
    """How many levels the exact reduction has produced so far (reference.reduce_level)."""
    done = [0]
    real = reference.reduce_level

    def counting(values):
        out = real(values)
        done[0] += 1
        return out

    monkeypatch.setattr(reference, "reduce_level", counting)
    return done


def test_checkpoint_raises_only_under_a_set_token():
    checkpoint()  # no token: nothing
    flag = [False]
    with stop_token(lambda: flag[0]):
        checkpoint()
        flag[0] = True
        with pytest.raises(Cancelled):
            checkpoint()
        with stop_token(None):  # a nested scope without a token
            checkpoint()
        with pytest.raises(Cancelled):  # the outer token is back
            checkpoint()
    checkpoint()


def test_token_is_per_thread():
    seen = []
    with stop_token(lambda: True):
        t = threading.Thread(target=lambda: seen.append(checkpoint()))
        t.start()
        t.join()
    assert seen == [None]  # another thread has no token: it ran on
    with pytest.raises(Cancelled):
        run_with(lambda: True, checkpoint)


@pytest.mark.parametrize("after", [0, 1, 3])
def test_reference_with_a_set_token_returns_after_at_most_one_level(levels_done, after):
    level0 = _image()
    assert mip_count(64, 64) == 7
    with stop_token(lambda: levels_done[0] >= after), pytest.raises(Cancelled):
        reference.reference_pyramid(level0, FMT)
    assert levels_done[0] == after  # the level under way when the token was set, no more
    # without a token, the same call computes every level
    levels_done[0] = 0
    assert len(reference.reference_pyramid(level0, FMT)) == 7
    assert levels_done[0] == 6


def test_blit_emulation_and_decode_stop_at_their_next_step():
    level0 = _image()
    calls = [0]

    def stop_after_one() -> bool:
        calls[0] += 1
        return calls[0] > 1

    with stop_token(stop_after_one), pytest.raises(Cancelled):
        reference.blit_reference(level0, Format.SRGB)
    # asked before level 1, then inside its decode (sRGB, in blocks): stopped there
    assert calls[0] == 2


def test_a_cancelled_reference_is_computed_again_by_the_next_asker(levels_done):
    refs = ReferenceCache()
    level0 = _image()
    level0.setflags(write=False)
    with stop_token(lambda: levels_done[0] >= 2), pytest.raises(Cancelled):
        refs.get(level0, FMT, "mean")
    got = refs.get(level0, FMT, "mean")  # not a half-made pyramid
    expected = reference.reference_pyramid(level0, FMT)
    assert len(got) == len(expected) == 7
    assert all(np.array_equal(a, b) for a, b in zip(got, expected, strict=True))


def test_comparisons_stop_between_levels(monkeypatch):
    levels = reference.reference_pyramid(_image(), FMT)
    compared = [0]
    real = compare._abs_diff

    def counting(a, ref):
        compared[0] += 1
        return real(a, ref)

    other = [lv + 1.0 for lv in levels]  # no level equals its reference: each is compared
    monkeypatch.setattr(compare, "_abs_diff", counting)
    with stop_token(lambda: compared[0] >= 2), pytest.raises(Cancelled):
        compare.level_errors(levels, other, FMT)
    assert compared[0] == 2
    assert len(compare.level_errors(levels, other, FMT)) == 7


def test_a_run_stops_between_strategies(gpu, monkeypatch):
    from mipview.core.specs import StrategySpec
    from mipview.gpu.session import Session

    submitted: list[str] = []
    specs = [StrategySpec("blit"), StrategySpec("per-level")]
    with Session(gpu, _image(32), FMT, specs) as session:
        for p in session.prepared:
            real = p.work.submit
            monkeypatch.setattr(p.work, "submit", lambda *a, _r=real, _n=str(p.spec), **k:
                                (submitted.append(_n), _r(*a, **k))[1])
        with stop_token(lambda: len(submitted) >= 1), pytest.raises(Cancelled):
            session.generate()
        assert submitted == ["blit"]  # the strategy under way finished, the next never began
        session.generate()  # no token: every strategy, levels read back
        assert submitted == ["blit", "blit", "per-level"]
        assert all(len(p.levels) == mip_count(32, 32) for p in session.prepared)
