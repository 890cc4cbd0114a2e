"""The one verdict (mipview/check/verdict.py): a corrupted level is out of tolerance and named, the
rule follows the result's promise, and the reference cache computes each pyramid once."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check import bounds
from mipview.check import verdict as verdict_mod
from mipview.check.filter_reference import named_reference
from mipview.check.reference import blit_reference, reference_pyramid, stored_chain
from mipview.check.tolerances import TOLERANCE
from mipview.check.verdict import ReferenceCache, judge, judge_result
from mipview.core.formats import Format, round_to_grid, to_storage
from mipview.core.specs import StrategySpec
from mipview.gpu.session import run_once
from tests.gpu_formats import GPU_FORMATS


def _level0(w: int, h: int, fmt: Format, seed: int = 5) -> np.ndarray:
    pixels = np.random.default_rng(seed).random((h, w, 4))
    return to_storage(pixels * (4.0 if fmt.is_float else 1.0), fmt)


def _corrupt(level: np.ndarray, fmt: Format, y: int, x: int, ch: int) -> np.ndarray:
    """One texel moved by 3 LSB (8-bit) or 1 % (floats; b10g11r11 3 ulp of its 5-bit B):
    three times the step tolerance and more than the chain's."""
    out = level.copy()
    if fmt.is_float:
        factor = 1.01 if not fmt.packing else 1 + 3 * TOLERANCE[fmt][0]
        out[y, x, ch] = out[y, x, ch] * fmt.dtype.type(factor)
    else:
        v = int(out[y, x, ch])
        out[y, x, ch] = v + 3 if v < 250 else v - 3
    return out


@pytest.mark.parametrize("fmt", GPU_FORMATS, ids=lambda f: f.label)
def test_a_per_level_result_keeps_its_promise(gpu, fmt):
    level0 = _level0(32, 24, fmt)
    mip = run_once(gpu, level0, fmt, [StrategySpec("per-level")])
    good = judge_result(mip.results[0], level0, fmt)
    assert good.within_tolerance and good.breaches == () and good.summary() == "ok"


@pytest.mark.parametrize("fmt", GPU_FORMATS, ids=lambda f: f.label)
def test_a_texel_3_lsb_off_at_level_2_is_out_of_tolerance_and_named(gpu, fmt):
    level0 = _level0(32, 24, fmt)
    mip = run_once(gpu, level0, fmt, [StrategySpec("per-level")])
    res = mip.results[0]
    good = judge_result(res, level0, fmt)
    assert good.within_tolerance and good.breaches == () and good.summary() == "ok"
    assert good.promise == "stored" and "step <=" in good.rule

    levels = list(res.levels)
    ch = min(2, fmt.channels - 1)  # a channel the image has
    levels[2] = _corrupt(levels[2], fmt, 1, 3, ch)
    bad = judge(levels, level0, fmt)
    assert not bad.within_tolerance
    assert bad.failing_levels[0] == 2
    at_2 = [b for b in bad.breaches if b.error.level == 2]
    assert {b.figure for b in at_2} == {"step", "chain"}
    assert all(b.error.worst == (0, 1, 3, ch) for b in at_2)
    assert bad.summary().startswith(f"OUT OF TOLERANCE: step error at level 2 (x=3, y=1, ch {ch})")
    # the untouched levels keep their figures: only the level below the change moves its step
    for k in (0, 1):
        assert bad.exact.step[k] == good.exact.step[k] and bad.exact.chain[k] == good.exact.chain[k]


def test_the_rule_follows_the_promise():
    """A blit's NPOT levels are far off the exact reference: held to the stored promise they
    fail; as promised (emulated), they are measured against their own reference."""
    fmt = Format.UNORM
    level0 = _level0(37, 23, fmt)
    levels = [lv.astype(np.uint8) for lv in blit_reference(level0, fmt)]
    as_exact = judge(levels, level0, fmt)
    assert not as_exact.within_tolerance and as_exact.own is None
    emulated = judge(levels, level0, fmt, own_reference="blit", promise="emulated")
    assert emulated.within_tolerance and emulated.breaches == ()
    assert emulated.own is not None and emulated.own.max_chain == 0.0
    assert emulated.exact == as_exact.exact  # the same figures, another rule
    assert "own reference (blit)" in emulated.rule
    with pytest.raises(ValueError, match="own reference"):
        judge(levels, level0, fmt, promise="emulated")
    with pytest.raises(ValueError, match="unknown promise"):
        judge(levels, level0, fmt, promise="roughly")  # type: ignore[arg-type]


def test_reductions_other_than_mean_use_their_reference():
    fmt = Format.F16
    level0 = _level0(9, 6, fmt)
    levels = [lv.astype(fmt.dtype) for lv in named_reference("max", level0, fmt)]
    assert judge(levels, level0, fmt, reduction="max").exact.max_chain == 0.0
    assert not judge(levels, level0, fmt, reduction="mean").within_tolerance


def test_reference_cache_computes_each_pyramid_once(monkeypatch):
    calls: list[str] = []

    def counting(name, level0, fmt):
        calls.append(name)
        return named_reference(name, level0, fmt)

    monkeypatch.setattr(verdict_mod, "named_reference", counting)
    fmt = Format.UNORM
    level0 = _level0(13, 7, fmt)
    level0.setflags(write=False)
    levels = [lv.astype(np.uint8) for lv in blit_reference(level0, fmt)]
    cache = ReferenceCache()
    for _ in range(3):  # three strategies of one run, then a later run of the same image
        judge(levels, level0, fmt, refs=cache)
        judge(levels, level0, fmt, own_reference="blit", promise="emulated", refs=cache)
    assert calls == ["mean", "blit"]
    assert not cache.get(level0, fmt, "mean")[1].flags.writeable  # shared: read-only
    judge(levels, level0, Format.SRGB, refs=cache)  # the same bytes in another format
    assert calls[-1] == "mean" and len(calls) == 3
    judge(levels, level0.copy(), fmt, refs=cache)  # another image: computed again
    assert len(calls) == 4

    writeable = level0.copy()
    judge(levels, writeable, fmt, refs=cache)
    judge(levels, writeable, fmt, refs=cache)
    assert len(calls) == 5
    writeable[0, 0, 0] ^= 1  # written in between: noticed by its fingerprint
    judge(levels, writeable, fmt, refs=cache)
    assert len(calls) == 6


def test_a_verdict_fingerprints_a_writeable_level0_once(monkeypatch):
    """A verdict asks the cache about level 0 two times a level; a writeable level 0 has its
    bytes hashed once a verdict, not at each question, and a write between verdicts is still
    noticed (the test above)."""
    hashed = []
    real = ReferenceCache._fingerprint

    def counting(level0):
        hashed.append(level0.flags.writeable)
        return real(level0)

    monkeypatch.setattr(ReferenceCache, "_fingerprint", staticmethod(counting))
    fmt = Format.UNORM
    level0 = _level0(37, 23, fmt)
    levels = [lv.astype(np.uint8) for lv in blit_reference(level0, fmt)]
    cache = ReferenceCache()
    judge(levels, level0, fmt, refs=cache)
    judge(levels, level0, fmt, own_reference="blit", promise="emulated", refs=cache)
    assert hashed == [True, True]
    cache.get(level0, fmt, "mean")  # a question outside a verdict hashes again
    assert hashed == [True, True, True]


def test_a_run_carries_what_the_verdict_needs(gpu):
    fmt = Format.UNORM
    specs = [StrategySpec("blit"), StrategySpec("per-level"),
             StrategySpec("single-pass", (("reduction", "min"),))]
    mip = run_once(gpu, _level0(8, 8, fmt), fmt, specs)
    carried = {str(r.spec): (r.reduction, r.own_reference, r.promise) for r in mip.results}
    assert carried == {"blit": ("mean", "blit", "emulated"),
                       "per-level": ("mean", None, "stored"),
                       "single-pass:reduction=min": ("min", None, "carried")}
    assert all(len(r.sources) == len(r.levels) - 1 for r in mip.results)


def _rounded(levels, fmt: Format) -> list[np.ndarray]:
    """float64 storage values on the format's grid (or rounded to it), as the format stores."""
    return [round_to_grid(np.asarray(lv, np.float64), fmt).astype(fmt.dtype) for lv in levels]


@pytest.mark.parametrize("fmt", list(Format), ids=lambda f: f.label)
def test_a_file_chain_is_reported_and_held_to_a_box_only_when_one_is_expected(fmt):
    """A texture file's chain (promise ``file``) is fitted and reported, held to no bound; with
    the box expected, it is held to both ways a tool makes a correct chain, and no more:
    correctly rounded from the stored level below, or straight from level 0 (which the stored
    promise refuses where double rounding shows); one texel 3 LSB / 1 % off at level 2 fails
    there."""
    level0 = _level0(61, 45, fmt)
    stored = [level0, *_rounded(list(stored_chain(level0, fmt))[1:], fmt)]
    direct = [level0, *_rounded(reference_pyramid(level0, fmt)[1:], fmt)]
    n = len(direct)
    bad = direct[:2] + [_corrupt(direct[2], fmt, 3, 4, 0)] + direct[3:]
    told = judge(bad, level0, fmt, promise="file")
    assert told.within_tolerance and told.fit is not None
    assert told.step_bounds[1:] == (float("inf"),) * (n - 1)
    as_file = judge(direct, level0, fmt, promise="file", expected=True)
    assert as_file.within_tolerance, as_file.breaches
    assert judge(stored, level0, fmt, promise="file", expected=True).within_tolerance
    if not fmt.is_float:
        assert not judge(direct, level0, fmt).within_tolerance  # the stored promise
    # one rounding at level 1 (made from level 0 itself), then the level above's too
    store = bounds.STORE[fmt].bound(fmt)
    own = bounds.step_bounds((), fmt, n)
    assert as_file.step_bounds == (0.0, own[1], *(b + store for b in own[2:]))
    bad = judge(bad, level0, fmt, promise="file", expected=True)
    assert not bad.within_tolerance and bad.failing_levels[0] == 2
    assert bad.rule.startswith("file, expected mean")


def test_reference_cache_computes_each_pyramid_once_across_threads(monkeypatch):
    """Threads asking at once (a run's parallel analyses) share one computation per pyramid,
    and different pyramids are computed side by side."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    fmt = Format.UNORM
    level0 = _level0(33, 20, fmt)
    level0.setflags(write=False)
    calls, inside, most = [], [0], [0]
    lock = threading.Lock()
    gate = threading.Barrier(2, timeout=10)

    def slow(name, l0, f):
        with lock:
            calls.append(name)
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        gate.wait()  # mean and blit both in here at once, or this times out
        try:
            return named_reference(name, l0, f)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(verdict_mod, "named_reference", slow)
    cache = ReferenceCache()
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda name: cache.get(level0, fmt, name), ["mean", "blit"] * 8))
    assert sorted(calls) == ["blit", "mean"] and most[0] == 2
    assert all(g is got[i % 2] for i, g in enumerate(got))


@pytest.mark.parametrize("fmt", GPU_FORMATS, ids=lambda f: f.label)
def test_judge_with_maps_gives_the_same_verdict(gpu, fmt):
    level0 = _level0(19, 13, fmt)
    mip = run_once(gpu, level0, fmt, [StrategySpec("blit"), StrategySpec("per-level")])
    cache = ReferenceCache()
    for res in mip.results:
        plain = judge_result(res, level0, fmt, cache)
        mapped = judge_result(res, level0, fmt, cache, maps=True)
        assert mapped == plain and plain.exact.maps == ()
        assert len(mapped.exact.maps) == len(res.levels)
        assert [float(m.max()) for m in mapped.exact.maps] == \
            [float(np.float32(e.max_error)) for e in mapped.exact.chain]


def test_cache_keeps_level_figures_per_image_and_drops_the_oldest(monkeypatch) -> None:
    """ReferenceCache.figures: once per key and image; another image forgets them; beyond
    FIGURES_KEPT the oldest go (and are computed again when asked for), pyramids stay."""
    monkeypatch.setattr(verdict_mod, "FIGURES_KEPT", 3)
    cache = ReferenceCache()
    a = to_storage(np.random.default_rng(2).random((6, 6, 4)), Format.UNORM)
    made = []

    def make(k):
        return lambda: made.append(k) or k

    cache.get(a, Format.UNORM, "mean")
    for k in (1, 2, 1, 3, 4):
        assert cache.figures(a, Format.UNORM, k, make(k)) == k
    assert made == [1, 2, 3, 4]  # 1 asked twice, computed once; 4 pushed 1 out
    assert cache.figures(a, Format.UNORM, 1, make(1)) == 1 and made[-1] == 1
    assert cache.figures(a, Format.UNORM, 4, make(4)) == 4 and made.count(4) == 1
    assert any(k[1] == "mean" for k in cache._refs)  # pyramids are not figures
    b = a.copy()
    cache.figures(b, Format.UNORM, 4, make(4))
    assert made.count(4) == 2  # another image: nothing kept
