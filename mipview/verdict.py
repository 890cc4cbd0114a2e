"""Is this result correct? The one answer for every caller: ``mipview run`` and ``bench``
(report.check_results), the GUI (ui/worker.analyse), batches (cli_batch) and whatever comes next.

A result is judged by the rule of what its strategy promises (``StrategyResult.promise``):

- ``exact``: step error within the step tolerance, chain error within the per-level chain
  allowance (``compare.ErrorReport.exact_breaches``: compare.TOLERANCE, plus one float ulp per
  stored level for float formats);
- ``emulated`` (blit): not exact by design. Its figures against the reference that emulates it
  (``reference.EMULATIONS``) and against the exact one are reported, but not held to a bound:
  a blit's filter weights are implementation-defined (lavapipe is ~5 LSB off the emulation on
  8-bit images, an H200 ~1e-2 relative on NPOT float16), so any fixed bound would be a guess.

A new kind of promise (e.g. strategies that store every level vs ones that carry intermediates
in registers) is one more entry in ``_RULES``.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mipview import compare
from mipview.compare import Breach, ErrorReport
from mipview.formats import Format
from mipview.reference import named_reference
from mipview.results import Promise, StrategyResult


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
        self._refs: dict[tuple[Format, str], _Slot] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _fingerprint(level0: np.ndarray) -> tuple[object, ...]:
        digest = None
        if level0.flags.writeable:
            digest = hashlib.blake2b(np.ascontiguousarray(level0).data, digest_size=16).digest()
        return level0.shape, level0.dtype.str, digest

    def get(self, level0: np.ndarray, fmt: Format, name: str) -> list[np.ndarray]:
        """The pyramid ``name`` (reference.named_reference: mean, min, max, blit) of ``level0``."""
        key = self._fingerprint(level0)
        with self._lock:
            if level0 is not self._level0 or key != self._key:
                self._level0, self._key, self._refs = level0, key, {}
            slot = self._refs.setdefault((fmt, name), _Slot())
        with slot.lock:  # held while computing: a second asker waits for this pyramid only
            if slot.refs is None:
                refs = named_reference(name, level0, fmt)
                for a in refs:
                    a.setflags(write=False)
                slot.refs = refs
            return slot.refs


class _Slot:
    """One pyramid of a ReferenceCache, and the lock its computation holds."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.refs: list[np.ndarray] | None = None


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

    @property
    def failing_levels(self) -> tuple[int, ...]:
        return tuple(sorted({b.error.level for b in self.breaches}))

    def summary(self) -> str:
        """``ok``, or ``OUT OF TOLERANCE`` and the first level that broke the rule."""
        if self.within_tolerance:
            return "ok"
        return f"OUT OF TOLERANCE: {self.breaches[0]}" if self.breaches else "OUT OF TOLERANCE"


def _bound_text(value: float, fmt: Format) -> str:
    return compare.format_error(value, fmt.error_unit)


def _exact_rule(exact: ErrorReport, own: ErrorReport | None, fmt: Format, reduction: str,
                own_reference: str | None) -> tuple[tuple[Breach, ...], str]:
    step, chain = compare.TOLERANCE[fmt]
    text = (f"exact ({reduction}): step <= {_bound_text(step, fmt)}, "
            f"chain <= {_bound_text(chain, fmt)}")
    if fmt.is_float:
        text += " or one ulp per stored level, whichever is larger"
    return exact.exact_breaches(fmt), text


def _emulated_rule(exact: ErrorReport, own: ErrorReport | None, fmt: Format, reduction: str,
                   own_reference: str | None) -> tuple[tuple[Breach, ...], str]:
    return (), (f"not exact by design: errors against its own reference ({own_reference}) and "
                f"the exact one ({reduction}) are reported, not held to a bound")


#: (exact report, own report, format, reduction, own reference) -> (breaches, rule as text)
_Rule = Callable[[ErrorReport, ErrorReport | None, Format, str, str | None],
                 tuple[tuple[Breach, ...], str]]
_RULES: dict[str, _Rule] = {"exact": _exact_rule, "emulated": _emulated_rule}


def judge(levels: Sequence[np.ndarray], level0: np.ndarray, fmt: Format,
          reduction: str = "mean", own_reference: str | None = None,
          refs: ReferenceCache | None = None, promise: Promise = "exact",
          maps: bool = False) -> Verdict:
    """Judge the pyramid ``levels`` (level 0 .. n-1 as read back) made from the uploaded
    ``level0``.

    ``own_reference`` names the reference that emulates the strategy (``blit``); ``refs`` shares
    the reference pyramids between strategies and runs (a fresh cache when None); ``maps`` keeps
    the heatmap of each chain level in ``Verdict.exact.maps`` (computed with the figures).
    """
    rule = _RULES.get(promise)
    if rule is None:
        raise ValueError(f"unknown promise {promise!r} (known: {', '.join(_RULES)})")
    if promise == "emulated" and own_reference is None:
        raise ValueError("an emulated result needs the name of its own reference")
    refs = refs if refs is not None else ReferenceCache()
    levels = list(levels)
    exact = compare.error_report(levels, fmt, refs.get(level0, fmt, reduction), reduction,
                                 maps=maps)
    own = None
    if own_reference is not None:
        own = ErrorReport(step=(), chain=tuple(
            compare.level_errors(levels, refs.get(level0, fmt, own_reference), fmt)))
    breaches, text = rule(exact, own, fmt, reduction, own_reference)
    return Verdict(promise, reduction, exact, own, not breaches, text, breaches)


def judge_result(res: StrategyResult, level0: np.ndarray, fmt: Format,
                 refs: ReferenceCache | None = None, maps: bool = False) -> Verdict:
    """:func:`judge` with what the result carries (its reduction, reference and promise)."""
    return judge(res.levels, level0, fmt, res.reduction, res.own_reference, refs, res.promise,
                 maps)
