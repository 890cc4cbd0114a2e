"""Check results against the references and turn them into JSON and text tables.

Shared by ``mipview run``, ``mipview bench`` and the GUI's exports, so all three report the same
figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mipview import compare
from mipview.formats import Format
from mipview.gpu import strategies
from mipview.reference import reference_pyramid
from mipview.results import MipResult, StrategyResult


@dataclass(frozen=True)
class Check:
    """One strategy's errors: against the exact reference, and (for strategies that are not
    exact by design, e.g. blit) against the reference that emulates them."""

    exact: compare.ErrorReport
    own: compare.ErrorReport | None
    within_tolerance: bool


def check_results(mip: MipResult, level0: np.ndarray) -> dict[str, Check]:
    """Errors of every strategy in ``mip``; ``level0`` is the uploaded storage array."""
    fmt = mip.fmt
    chains: dict[str, list[np.ndarray]] = {}
    out: dict[str, Check] = {}
    for res in mip.results:
        cls, options = strategies.resolve(res.spec)
        reduction = cls.reduction(options)
        if reduction not in chains:
            chains[reduction] = reference_pyramid(level0, fmt, reduction)
        exact = compare.error_report(list(res.levels), fmt, chains[reduction], reduction)
        own_ref = cls.own_reference(level0, fmt, options)
        own = None
        if own_ref is not None:
            own = compare.ErrorReport(step=(), chain=tuple(
                compare.level_errors(list(res.levels), own_ref, fmt)))
        ok = exact.within_tolerance(fmt) if cls.exact else True
        out[str(res.spec)] = Check(exact, own, ok)
    return out


def bytes_moved(mip: MipResult) -> int:
    """Level 0 read once plus every other level written once."""
    total = 0
    w, h = mip.width, mip.height
    while True:
        total += w * h * mip.layers * mip.fmt.bytes_per_texel
        if w == 1 and h == 1:
            return total
        w, h = max(1, w >> 1), max(1, h >> 1)


def _num(v: float) -> float | str | None:
    if v is None:
        return None
    return v if math.isfinite(v) else str(v)


def strategy_dict(res: StrategyResult, mip: MipResult, check: Check | None) -> dict[str, Any]:
    d: dict[str, Any] = {
        "strategy": str(res.spec), "name": res.spec.name, "options": res.spec.option_dict,
        "plan": [{"label": p.label, "levels": list(p.levels), "detail": p.detail}
                 for p in res.plan],
        "notes": list(res.notes),
    }
    if res.timing is not None:
        d["timing"] = res.timing.total.as_dict()
        d["dispatches"] = [{"label": label, **stats.as_dict()} for label, stats in res.timing.marks]
        gbps = bytes_moved(mip) / (res.timing.total.median * 1e3)
        d["effective_gbps"] = gbps
        if mip.copy_bandwidth_gbps:
            d["fraction_of_copy_floor"] = gbps / mip.copy_bandwidth_gbps
    if check is not None:
        d["max_step_error"] = _num(check.exact.max_step)
        d["max_chain_error"] = _num(check.exact.max_chain)
        d["error_unit"] = mip.fmt.error_unit
        d["within_tolerance"] = check.within_tolerance
        d["errors"] = check.exact.as_dict(mip.fmt)
        if check.own is not None:
            d["max_error_vs_own_reference"] = _num(check.own.max_chain)
    return d


def result_dict(mip: MipResult, checks: dict[str, Check] | None = None,
                extra: dict[str, Any] | None = None) -> dict[str, Any]:
    checks = checks or {}
    return {
        "device": {"name": mip.device.name, "type": mip.device.device_type,
                   "driver": mip.device.driver, "api_version": mip.device.api_version,
                   "subgroup_size": mip.device.subgroup_size},
        "image": {"width": mip.width, "height": mip.height, "layers": mip.layers,
                  "format": mip.fmt.label, "bytes_moved": bytes_moved(mip)},
        **(extra or {}),
        "copy_bandwidth_gbps": mip.copy_bandwidth_gbps,
        "strategies": [strategy_dict(r, mip, checks.get(str(r.spec))) for r in mip.results],
        "skipped": [{"strategy": str(s), "reason": why} for s, why in mip.skipped],
        "validation_messages": list(mip.validation_messages),
    }


def bench_table(mip: MipResult, checks: dict[str, Check] | None = None) -> str:
    """A fixed-width table, one row per strategy."""
    checks = checks or {}
    unit = "LSB" if not mip.fmt.is_float else "rel"
    head = (f"{'strategy':<34} {'min us':>10} {'median':>10} {'p95':>10} {'max':>10} "
            f"{'GB/s':>8} {'floor%':>7} {'step ' + unit:>10} {'chain ' + unit:>10}")
    lines = [head, "-" * len(head)]
    for res in mip.results:
        t = res.timing.total if res.timing else None
        check = checks.get(str(res.spec))
        cells = [f"{str(res.spec):<34}"]
        if t is not None:
            gbps = bytes_moved(mip) / (t.median * 1e3)
            floor = (f"{100 * gbps / mip.copy_bandwidth_gbps:6.1f}%"
                     if mip.copy_bandwidth_gbps else f"{'-':>7}")
            cells += [f"{t.min:10.1f}", f"{t.median:10.1f}", f"{t.p95:10.1f}", f"{t.max:10.1f}",
                      f"{gbps:8.2f}", floor]
        else:
            cells += [f"{'-':>10}"] * 4 + [f"{'-':>8}", f"{'-':>7}"]
        if check is not None:
            cells += [_fmt_err(check.exact.max_step, mip.fmt),
                      _fmt_err(check.exact.max_chain, mip.fmt)]
        lines.append(" ".join(cells))
    for spec, why in mip.skipped:
        lines.append(f"{str(spec):<34} skipped: {why}")
    return "\n".join(lines)


def _fmt_err(v: float, fmt: Format) -> str:
    return f"{v:10.3f}" if not fmt.is_float else f"{v:10.2e}"
