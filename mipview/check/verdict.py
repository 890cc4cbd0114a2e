"""Is this result correct? The one answer for every caller: the staged Run of the window,
``mipview run`` and ``bench`` (runs/staged.analyse), batches (cli/batch.py) and whatever
comes next.

A result is judged by the rule of what its strategy promises (``StrategyResult.promise``), with
bounds per level derived in :mod:`mipview.check.bounds` (README, "What correct means"):

- ``stored`` (per-level, the batch ways: every level reduced from the stored level below): each
  level within :func:`bounds.step_bounds` of the exact reduction of the stored level below (8-bit:
  correctly rounded, 0.5 LSB plus the float32 arithmetic's 1.8e-4; floats: one rounding of the
  format); the chain within what any chain keeping those steps reaches from this image
  (:func:`bounds.stored_chain_bounds`: the envelope of correctly rounded stored chains), not a
  flat number: rounding every level lets the chain error grow with the level count. A filter's
  ``alpha=coverage`` (docs/filters.md): the step with the level's own alpha scale
  (check.filter_reference.fit_scale), every level of 256 texels or more within 1% of level 0's
  coverage (:func:`coverage_breaches`), the chain reported;
- ``carried`` (subgroup, single-pass, npot-exact: intermediates in registers, shared memory or
  float buffers): step and chain within :func:`bounds.step_bounds` and
  :func:`bounds.carried_chain_bounds`, derived from the levels' sources the result carries (which
  re-read a stored level, which take bilinear samples, how much fp16 arithmetic);
- ``emulated`` (blit): not exact by design. Its figures against the reference that emulates it
  (``reference.EMULATIONS``) and against the exact one are reported, but not held to a bound:
  a blit's filter weights are implementation-defined (lavapipe is ~5 LSB off the emulation on
  8-bit images, an H200 ~1e-2 relative on NPOT float16), so any fixed bound would be a guess;
- ``file`` (a texture file's own chain: ``containers.TextureFile.as_result``): the tool that made
  it seldom says how, and a chain made with another filter than the box, or block-compressed, is
  what its author wanted: the chain is fitted against every reference filter
  (:mod:`mipview.check.chain_fit`: ``Verdict.fit``) and reported, held to no bound. Where the
  user says which filter to expect (``expected``: the result's reduction), each level is held
  to that filter's step from the stored level above within :func:`chain_fit.match_bounds` (its
  own rounding, plus the level above's carried through the filter: made from the stored level
  below, from values kept at higher precision or from level 0, all pass), the chain to what a
  chain keeping those steps reaches from this image.

A new kind of promise is one more entry in ``_RULES``.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from mipview.check import bounds, chain_fit, compare, tolerances
from mipview.check.chain_fit import ChainFit
from mipview.check.compare import Breach, ErrorReport
from mipview.check.filter_reference import (
    BOX_NAMES,
    coverage,
    named_reference,
    scaled_by_result,
    step_stats,
)
from mipview.core.filters.spec import parse_filter
from mipview.core.formats import Format
from mipview.core.nonfinite import (
    NonFinite,
    Propagation,
    count_nonfinite,
    nonfinite_per_level,
    propagation,
)
from mipview.core.results import LevelSource, Promise, StrategyResult


class ReferenceCache:
    """Reference pyramids of one level 0, each computed once and shared by every strategy,
    and by later runs of the same image when the caller keeps the cache (the GUI does).

    It holds one image at a time (a 4096^2 float64 pyramid is ~700 MiB): asking about another
    level 0 forgets the previous one. Level 0 is recognised by identity (the array is held, so its
    id cannot be reused); a writeable array is also fingerprinted by its bytes, so a write
    in between is noticed. The pyramids handed out are read-only. Thread-safe: threads asking
    for different pyramids compute them side by side, and a thread asking for one that another
    is computing waits for it instead of computing it again.
    """

    def __init__(self) -> None:
        self._level0: np.ndarray | None = None
        self._key: tuple[object, ...] = ()
        self._refs: dict[tuple[object, ...], _Slot] = {}
        self._lock = threading.Lock()
        self._held = threading.local()  # this thread's (level0, fingerprint) in unchanged()

    @staticmethod
    def _fingerprint(level0: np.ndarray) -> tuple[object, ...]:
        digest = None
        if level0.flags.writeable:
            digest = hashlib.blake2b(np.ascontiguousarray(level0).data, digest_size=16).digest()
        return level0.shape, level0.dtype.str, digest

    @contextmanager
    def unchanged(self, level0: np.ndarray) -> Iterator[None]:
        """Within it, this thread does not write ``level0``: a writeable one is fingerprinted
        once, not at every question (a verdict asks two per level, each a pass over level 0's
        bytes: 13 s of a 27 s test at 1921x1079)."""
        before = getattr(self._held, "value", None)
        self._held.value = (level0, self._fingerprint(level0))
        try:
            yield
        finally:
            self._held.value = before

    def _cached(self, level0: np.ndarray, key: tuple[object, ...],
                make: Callable[[], object]) -> object:
        held = getattr(self._held, "value", None)
        if held is not None and held[0] is level0:
            fingerprint = held[1]
        else:
            fingerprint = self._fingerprint(level0)
        with self._lock:
            if level0 is not self._level0 or fingerprint != self._key:
                self._level0, self._key, self._refs = level0, fingerprint, {}
            slot = self._refs.setdefault(key, _Slot())
        with slot.lock:  # held while computing: a second asker waits for this entry only
            if slot.value is None:
                slot.value = make()
            return slot.value

    def get(self, level0: np.ndarray, fmt: Format, name: str) -> list[np.ndarray]:
        """The pyramid ``name`` (check.filter_reference.named_reference: mean, min, max, blit, a
        filter) of ``level0``."""
        return self._cached(  # type: ignore[return-value]
            level0, (fmt, name), lambda: _read_only(named_reference(name, level0, fmt)))

    def magnitude(self, level0: np.ndarray, fmt: Format,
                  reduction: str) -> list[np.ndarray] | None:
        """The mean chain of |level0| where level 0 is a float image with negative texels
        (compare.texel_errors' ``mag``: what the chain's rounding errors are relative to), else
        None. Whether it has such texels is looked at once per image, like the pyramids."""
        if reduction != "mean":
            return None

        def make() -> list[np.ndarray]:
            if not compare.signed_floats(level0, fmt, reduction):
                return []  # kept, so the next strategy does not look again
            return _read_only(named_reference("mean", np.abs(level0), fmt))
        return self._cached(level0, (fmt, "magnitude"), make) or None  # type: ignore[return-value]

    def figures(self, level0: np.ndarray, fmt: Format, key: Hashable,
                make: Callable[[], object]) -> object:
        """``make()``'s value for ``key``, computed once per image and format like the
        pyramids (compare.error_report's ``memo``: one level's figures and heatmap, by the hash
        of its values). At most :data:`FIGURES_KEPT` are kept, the oldest dropped first (a
        dropped one is computed again when asked for)."""
        value = self._cached(level0, (fmt, "figures", key), make)
        with self._lock:
            figures = [k for k in self._refs if k[1:2] == ("figures",)]
            for k in figures[:max(0, len(figures) - FIGURES_KEPT)]:
                del self._refs[k]
        return value

    def memo(self, level0: np.ndarray, fmt: Format) -> compare.Memo:
        """:meth:`figures` of this level 0 and format, as compare.error_report's ``memo``."""
        return lambda key, make: self.figures(level0, fmt, key, make)

    def stored_bounds(self, level0: np.ndarray, fmt: Format, reduction: str,
                      steps: Sequence[float]) -> tuple[float, ...]:
        """:func:`bounds.stored_chain_bounds` of ``level0`` for these step bounds."""
        def make() -> tuple[float, ...]:
            return tuple(bounds.stored_chain_bounds(
                level0, fmt, steps, self.get(level0, fmt, reduction), reduction))  # type: ignore[arg-type]
        return self._cached(level0, (fmt, "stored", reduction, tuple(steps)),  # type: ignore[return-value]
                            make)

    def nonfinite(self, level0: np.ndarray, fmt: Format, reduction: str) -> tuple[NonFinite, ...]:
        """The non-finite texels per level of the exact ``reduction`` pyramid of ``level0``;
        empty when level 0 has none (the usual case: one pass over level 0, no pyramid)."""
        def make() -> tuple[NonFinite, ...]:
            if not count_nonfinite(level0):
                return ()
            return tuple(nonfinite_per_level(self.get(level0, fmt, reduction)))
        return self._cached(level0, (fmt, "nonfinite", reduction), make)  # type: ignore[return-value]


#: level figures a ReferenceCache keeps: a 4096^2 pyramid's heatmaps are ~85 MiB (level 0's all
#: zero pages, not resident): 13 levels with their step figures make 25 entries, so 200 keep 8
FIGURES_KEPT = 200


def _read_only(pyramid: list[np.ndarray]) -> list[np.ndarray]:
    """A cached pyramid, shared by every strategy and thread: none may write to it."""
    for a in pyramid:
        a.setflags(write=False)
    return pyramid


class _Slot:
    """One entry of a ReferenceCache, and the lock its computation holds."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.value: object | None = None


@dataclass(frozen=True)
class Verdict:
    """One result judged: its figures, whether it keeps its promise, and by which rule."""

    promise: Promise
    reduction: str
    #: step and chain errors per level against the exact reference of ``reduction``
    exact: ErrorReport
    #: chain errors per level against the strategy's own emulating reference (blit), else None
    own: ErrorReport | None
    within_tolerance: bool
    #: the rule applied, in words (for reports and tooltips)
    rule: str
    #: what broke the rule, in level order (empty when within tolerance)
    breaches: tuple[Breach, ...] = ()
    #: per level 0 .. n-1, in the format's error unit: the step and chain bounds the rule set
    #: (inf where it sets none)
    step_bounds: tuple[float, ...] = ()
    chain_bounds: tuple[float, ...] = ()
    #: where level 0 has NaN or +-Inf texels: how the result carried them, level by level,
    #: beside the exact reduction (error figures count a texel non-finite in both as 0, one
    #: non-finite in only one of them as inf); None when level 0 has none
    nonfinite: Propagation | None = None
    #: a texture file's own chain (promise ``file``): the reference filter that best explains
    #: it and each level's error against it; None for every other result
    fit: ChainFit | None = None

    @property
    def failing_levels(self) -> tuple[int, ...]:
        return tuple(sorted({b.error.level for b in self.breaches}))

    def summary(self) -> str:
        """``ok``, or ``OUT OF TOLERANCE`` and the first level that broke the rule; with
        non-finite texels in level 0, how the result propagated them instead of a bare ``ok``."""
        if self.fit is not None and self.within_tolerance:
            # held to no bound: the fit is the whole story; else "ok" and the fit beside it
            unbounded = all(math.isinf(b) for b in self.step_bounds[1:])
            head = self.fit.line() if unbounded else f"ok; {self.fit.line()}"
        elif self.within_tolerance:
            head = "ok"
        else:
            head = f"OUT OF TOLERANCE: {self.breaches[0]}" if self.breaches else \
                "OUT OF TOLERANCE"
            if self.fit is not None:
                head = f"{head}; {self.fit.line()}"
        if self.nonfinite is None:
            return head
        if self.promise == "emulated" and not self.nonfinite.as_reference:
            head = "not exact by design"  # its figures are inf there: no bound, not "ok"
        return f"{head}; {self.nonfinite.describe()}"


@dataclass(frozen=True)
class _Case:
    """What a rule needs to set its bounds."""

    levels: Sequence[np.ndarray]
    level0: np.ndarray
    fmt: Format
    reduction: str
    sources: Sequence[LevelSource]
    own_reference: str | None
    refs: ReferenceCache
    #: promise ``file``: whether the user named the filter to expect (the reduction), and the
    #: chain's fit
    expected: bool = False
    fit: ChainFit | None = None


def _worst(values: Sequence[float], fmt: Format) -> str:
    return compare.format_error(max(values[1:], default=0.0), fmt.error_unit)


def _peak(level0: np.ndarray, fmt: Format) -> float:
    """Level 0's largest finite magnitude (a filter's float arithmetic error scales with it)."""
    if not fmt.is_float:
        return 1.0
    a = np.abs(np.asarray(level0, dtype=np.float64))
    return float(a[np.isfinite(a)].max(initial=1.0))


def _gains(case: _Case) -> list[float]:
    """Per level, how much a premultiplied, normal-map or coverage filter's last step amplifies
    its arithmetic error (bounds.kind_gain, from the exact step's figures); empty for others."""
    if case.reduction in BOX_NAMES:
        return []
    spec = parse_filter(case.reduction)
    if spec.alpha == "straight" and spec.kind != "normal":
        return []
    return [1.0] + [bounds.kind_gain(step_stats(case.levels, i, case.fmt, spec))
                    for i in range(1, len(case.levels))]


def _stored_rule(case: _Case) -> tuple[list[float], list[float], str]:
    n = len(case.levels)
    size = (case.level0.shape[-2], case.level0.shape[-3])
    steps = bounds.step_bounds(case.sources, case.fmt, n, case.reduction, size,
                               _peak(case.level0, case.fmt), _gains(case))
    chains = list(case.refs.stored_bounds(case.level0, case.fmt, case.reduction, steps))
    if scaled_by_result(case.reduction):
        return steps, chains, (
            f"stored ({case.reduction}): each level the correctly rounded filter of the stored "
            "level below, its alpha times one scale of the level's own (step <= "
            f"{_worst(steps, case.fmt)}); every level of {tolerances.COVERAGE_MIN_TEXELS} texels "
            f"or more within {tolerances.COVERAGE_BOUND:.0%} of level 0's coverage; the chain "
            "reported (each level's scale is a rank statistic of that level)")
    text = (f"stored ({case.reduction}): each level the correctly rounded reduction of the "
            f"stored level below (step <= {_worst(steps, case.fmt)}); chain <= what a chain "
            f"keeping those steps reaches from this image (<= {_worst(chains, case.fmt)}), "
            "per level")
    return steps, chains, text


def coverage_breaches(levels: Sequence[np.ndarray], fmt: Format,
                      reduction: str) -> tuple[Breach, ...]:
    """alpha=coverage: the levels of tolerances.COVERAGE_MIN_TEXELS texels or more whose coverage
    (alpha >= cutoff) is more than tolerances.COVERAGE_BOUND off level 0's; empty for others."""
    if not scaled_by_result(reduction) or not levels:
        return ()
    cutoff = parse_filter(reduction).cutoff
    target = coverage(levels[0], fmt, cutoff)
    out = []
    for k, lv in enumerate(levels[1:], 1):
        a = np.asarray(lv)
        h, w = a.shape[-3], a.shape[-2]
        layers = a.shape[0] if a.ndim == 4 else 1
        if w * h * layers < tolerances.COVERAGE_MIN_TEXELS:
            continue
        got = coverage(lv, fmt, cutoff)
        off = abs(got - target)
        if off > tolerances.COVERAGE_BOUND:
            err = compare.LevelError(k, w, h, off, off, math.nan, (0, 0, 0, 3), "of texels",
                                     layers)
            out.append(Breach("coverage", err, tolerances.COVERAGE_BOUND,
                              f"coverage at level {k}: {got:.2%} of texels pass alpha >= "
                              f"{cutoff:g}, level 0 {target:.2%} (off by {off:.2%} > "
                              f"{tolerances.COVERAGE_BOUND:.0%})"))
    return tuple(out)


def _carried_rule(case: _Case) -> tuple[list[float], list[float], str]:
    n = len(case.levels)
    steps = bounds.step_bounds(case.sources, case.fmt, n, case.reduction)
    chains = bounds.carried_chain_bounds(case.sources, case.fmt, n, case.reduction)
    text = (f"carried ({case.reduction}): step <= {_worst(steps, case.fmt)}, chain <= "
            f"{_worst(chains, case.fmt)}, per level from how it was made (stored levels "
            "re-read, bilinear samples, fp16 arithmetic)")
    return steps, chains, text


def _emulated_rule(case: _Case) -> tuple[list[float], list[float], str]:
    unbounded = [math.inf] * len(case.levels)
    return unbounded, unbounded, (
        f"not exact by design: errors against its own reference ({case.own_reference}) and the "
        f"exact one ({case.reduction}) are reported, not held to a bound")


def _file_rule(case: _Case) -> tuple[list[float], list[float], str]:
    n = len(case.levels)
    if not case.expected:
        unbounded = [math.inf] * n
        told = case.fit.line() if case.fit is not None else "one level, no chain"
        return unbounded, unbounded, (
            f"file: reported, held to no filter (none expected): {told}")
    size = (case.level0.shape[-2], case.level0.shape[-3])
    steps = chain_fit.match_bounds(case.reduction, case.fmt, n, size,
                                   _peak(case.level0, case.fmt))
    chains = list(case.refs.stored_bounds(case.level0, case.fmt, case.reduction, steps))
    text = (f"file, expected {case.reduction}: each level that filter of the stored level "
            f"above, within its own rounding and the level above's (step <= "
            f"{_worst(steps, case.fmt)}); chain <= what a chain keeping those steps reaches "
            f"from this image (<= {_worst(chains, case.fmt)}), per level")
    return steps, chains, text


def file_fit(levels: Sequence[np.ndarray], level0: np.ndarray, fmt: Format,
             codec: str | None = None, refs: ReferenceCache | None = None) -> ChainFit | None:
    """:func:`chain_fit.fit_chain` of a texture file's chain, once per chain and image in
    ``refs`` (a window's analysis may judge the same levels again after the timing)."""
    def make() -> ChainFit | None:
        return chain_fit.fit_chain(levels, fmt, codec, _peak(level0, fmt))
    if refs is None:
        return make()
    key = ("chain fit", codec, tuple(compare.digest(np.asarray(a)) for a in levels[1:]))
    return refs.figures(level0, fmt, key, make)  # type: ignore[return-value]


#: case -> (step bound per level, chain bound per level, rule as text)
_Rule = Callable[[_Case], tuple[list[float], list[float], str]]
_RULES: dict[str, _Rule] = {"stored": _stored_rule, "carried": _carried_rule,
                            "emulated": _emulated_rule, "file": _file_rule}


def judge(levels: Sequence[np.ndarray], level0: np.ndarray, fmt: Format,
          reduction: str = "mean", own_reference: str | None = None,
          refs: ReferenceCache | None = None, promise: Promise = "stored",
          sources: Sequence[LevelSource] = (), maps: bool = False, expected: bool = False,
          codec: str | None = None) -> Verdict:
    """Judge the pyramid ``levels`` (level 0 .. n-1 as read back) made from the uploaded
    ``level0``.

    ``own_reference`` names the reference that emulates the strategy (``blit``); ``refs`` shares
    the reference pyramids between strategies and runs (a fresh cache when None); ``sources``
    says how levels 1 .. n-1 were made (empty: each from the stored level below); ``maps`` keeps
    the heatmap of each chain level in ``Verdict.exact.maps`` (computed with the figures).
    A texture file's chain (promise ``file``) is fitted (``Verdict.fit``; ``codec``: the block
    compression its levels were decoded from) and held to ``reduction`` only when ``expected``.
    """
    rule = _RULES.get(promise)
    if rule is None:
        raise ValueError(f"unknown promise {promise!r} (known: {', '.join(_RULES)})")
    if promise == "emulated" and own_reference is None:
        raise ValueError("an emulated result needs the name of its own reference")
    refs = refs if refs is not None else ReferenceCache()
    levels = list(levels)
    with refs.unchanged(level0):
        # the memo: a level stored alike by another strategy, or in an earlier run, has its
        # figures
        exact = compare.error_report(levels, fmt, refs.get(level0, fmt, reduction), reduction,
                                     maps=maps, memo=refs.memo(level0, fmt),
                                     chain_magnitude=refs.magnitude(level0, fmt, reduction))
        own = None
        if own_reference is not None:
            own = ErrorReport(step=(), chain=tuple(compare.level_errors(
                levels, refs.get(level0, fmt, own_reference), fmt, refs.memo(level0, fmt),
                own_reference)))
        fit = file_fit(levels, level0, fmt, codec, refs) if promise == "file" else None
        steps, chains, text = rule(_Case(levels, level0, fmt, reduction, sources, own_reference,
                                         refs, expected, fit))
        breaches = tuple(sorted(exact.breaches(steps, chains)
                                + coverage_breaches(levels, fmt, reduction),
                                key=lambda b: b.error.level))
        spread = propagation(levels, refs.nonfinite(level0, fmt, reduction))
        return Verdict(promise, reduction, exact, own, not breaches, text, breaches, tuple(steps),
                       tuple(chains), spread, fit)


def judge_result(res: StrategyResult, level0: np.ndarray, fmt: Format,
                 refs: ReferenceCache | None = None, maps: bool = False) -> Verdict:
    """:func:`judge` with what the result carries (its reduction, reference, promise and level
    sources; a texture file's, what it was said to expect and decoded from: FILE_EXPECT and
    FILE_CODEC among its ``options_used``)."""
    told = dict(res.options_used) if res.promise == "file" else {}
    return judge(res.levels, level0, fmt, res.reduction, res.own_reference, refs, res.promise,
                 res.sources, maps, FILE_EXPECT in told, told.get(FILE_CODEC))


#: a texture file's result (promise ``file``) carries among its ``options_used`` the filter the
#: user expects its chain to match (``mipview run --expect``) and the block compression its
#: levels were decoded from (runs/staged.with_file_chain)
FILE_EXPECT = "expect"
FILE_CODEC = "decoded-from"
