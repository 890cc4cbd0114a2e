"""Judge results (mipview.check.verdict) and turn them into JSON and text tables.

Shared by ``mipview run`` and ``mipview bench``; the window judges with the same
``verdict.judge_result``, so all of them report the same figures and verdicts.
"""

from __future__ import annotations

import math
from typing import Any

from mipview import __version__
from mipview.check.filter_reference import BOX_NAMES, result_figures
from mipview.check.verdict import Verdict
from mipview.core.formats import Format
from mipview.core.results import RunResult, StrategyResult, TimingStats
from mipview.runs.cube import CubeSeams, cube_dict, strategy_cube_dict
from mipview.runs.drift import detect_drift

#: the key of report.json (and bench's JSON) that says mipview wrote it: ``mipview run`` only
#: ever replaces a folder whose report.json has it (mipview/cli/output.py)
GENERATOR_KEY = "generator"


def bytes_moved(mip: RunResult) -> int:
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


def _with_samples(stats: TimingStats) -> dict[str, Any]:
    """The statistics and every sample they were made from, in the order taken (a saved run
    then serves as a baseline with a noise estimate: mipview/runs/baseline.py)."""
    return {**stats.as_dict(), "samples_us": list(stats.samples_us)}


def strategy_dict(res: StrategyResult, mip: RunResult, check: Verdict | None) -> dict[str, Any]:
    d: dict[str, Any] = {
        "strategy": str(res.spec), "name": res.spec.name, "options": res.spec.option_dict,
        # every option, defaults filled, as asked and as run (each ``auto`` resolved: the notes
        # say why)
        "options_asked": dict(res.options_asked) or res.spec.option_dict,
        "options_used": dict(res.options_used) or res.spec.option_dict,
        "plan": [{"label": p.label, "levels": list(p.levels), "detail": p.detail}
                 for p in res.plan],
        "notes": list(res.notes), "reduction": res.reduction, "promise": res.promise,
    }
    if res.reduction not in BOX_NAMES and res.levels:
        d["filter"] = result_figures(res.levels, mip.fmt, res.reduction)
    if res.timing is not None:
        d["timing"] = _with_samples(res.timing.total)
        if res.timing.starts_us:
            d["timing"]["run_starts_us"] = list(res.timing.starts_us)
        d["dispatches"] = [{"label": label, **_with_samples(stats)}
                           for label, stats in res.timing.marks]
        gbps = bytes_moved(mip) / (res.timing.total.median * 1e3)
        d["effective_gbps"] = gbps
        if mip.copy_bandwidth_gbps:
            d["fraction_of_copy_floor"] = gbps / mip.copy_bandwidth_gbps
        drift = detect_drift(res.timing.total.samples_us)
        d["drift"] = None if drift is None else {
            "first_quarter_median_us": drift.first_median,
            "last_quarter_median_us": drift.last_median, "change": drift.change,
            "p_first_slower": drift.p_first_slower, "text": drift.label()}
    if check is not None:
        d["max_step_error"] = _num(check.exact.max_step)
        d["max_chain_error"] = _num(check.exact.max_chain)
        d["error_unit"] = mip.fmt.error_unit
        d["within_tolerance"] = check.within_tolerance
        d["rule"] = check.rule
        # the bound of every level under the promise's rule (mipview.check.bounds), and what broke it
        d["bounds"] = {"step": [_num(b) for b in check.step_bounds],
                       "chain": [_num(b) for b in check.chain_bounds]}
        d["breaches"] = [{"level": b.error.level, "figure": b.figure,
                          "error": _num(b.error.max_error), "bound": _num(b.bound),
                          "worst": b.error.as_dict()["worst"], "text": str(b)}
                         for b in check.breaches]
        d["errors"] = check.exact.as_dict()
        # NaN and +-Inf of level 0 carried down, per level, beside the exact reduction
        d["nonfinite"] = check.nonfinite.as_dict() if check.nonfinite is not None else None
        if check.own is not None:
            d["max_error_vs_own_reference"] = _num(check.own.max_chain)
        if check.fit is not None:  # a texture file's chain: the filter that best explains it
            d["fit"] = check.fit.as_dict()
    return d


def fit_lines(check: Verdict, indent: int) -> list[str]:
    """A texture file's fit per level for ``mipview run``'s table (none for other results):
    each level's error against the fitted filter's step from the stored level above."""
    fit = check.fit
    if fit is None:
        return []
    pad = " " * indent
    lines = [f"{pad} fit: {fit.candidate.words(fit.fmt)}, each level from the stored level above"
             + (f" (decoded from {fit.codec}: the codec's error included)" if fit.codec else "")]
    for lv in fit.levels:
        mark = "" if fit.codec else ("  matches" if lv.matches else "  DOES NOT MATCH")
        lines.append(f"{pad}   level {lv.level:>2}: max {_fmt_err(lv.max_error, fit.fmt).strip()}"
                     f" mean {_fmt_err(lv.mean_error, fit.fmt).strip()} {fit.fmt.error_unit}"
                     f"{mark}")
    return lines


def result_dict(mip: RunResult, checks: dict[str, Verdict] | None = None,
                extra: dict[str, Any] | None = None,
                cube: CubeSeams | None = None) -> dict[str, Any]:
    """The JSON of a run or bench; ``cube``: a cube map's seam figures (mipview.runs.cube), as
    the entry ``cube`` and each strategy's ``cube`` and ``seams``."""
    checks = checks or {}
    data = {
        GENERATOR_KEY: f"mipview {__version__}",
        "device": {"name": mip.device.name, "type": mip.device.device_type,
                   "driver": mip.device.driver, "api_version": mip.device.api_version,
                   "subgroup_size": mip.device.subgroup_size,
                   # VkPhysicalDeviceDriverProperties, apart ("" where not reported)
                   "driver_name": mip.device.driver_name,
                   "driver_version": mip.device.driver_version,
                   "driver_info": mip.device.driver_info},
        "image": {"width": mip.width, "height": mip.height, "layers": mip.layers,
                  "format": mip.fmt.label, "bytes_moved": bytes_moved(mip)},
        **(extra or {}),
        "copy_bandwidth_gbps": mip.copy_bandwidth_gbps,
        # the GPU clocks while timing (None: not timed, or not readable on this device)
        "clock": mip.clock.as_dict() if mip.clock is not None else None,
        "strategies": [strategy_dict(r, mip, checks.get(str(r.spec))) for r in mip.results],
        "skipped": [{"strategy": str(s), "reason": why} for s, why in mip.skipped],
        "validation_messages": list(mip.validation_messages),
    }
    if cube is not None:
        data["cube"] = cube_dict(cube)
        for entry in data["strategies"]:
            entry.update(strategy_cube_dict(cube, entry["strategy"]))
    return data


def bench_table(mip: RunResult, checks: dict[str, Verdict] | None = None) -> str:
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
    for res in mip.results:  # a median over drifting samples describes neither end
        drift = detect_drift(res.timing.total.samples_us) if res.timing else None
        if drift is not None:
            lines.append(f"{str(res.spec):<34} {drift.label()}")
    return "\n".join(lines)


def sizes_table(mips: list[RunResult], checks: list[dict[str, Verdict] | None]) -> str:
    """``bench --sizes``: one row per strategy, one column per size, median GPU us; ``!`` marks
    a result out of tolerance, ``-`` a strategy that did not run at that size (why: below)."""
    names: list[str] = []
    for mip in mips:
        for spec in [str(r.spec) for r in mip.results] + [str(s) for s, _ in mip.skipped]:
            if spec not in names:
                names.append(spec)
    head = f"{'median us':<34}" + "".join(f" {f'{m.width}x{m.height}':>12}" for m in mips)
    lines = [head, "-" * len(head)]
    for name in names:
        cells = [f"{name:<34}"]
        for mip, check in zip(mips, checks, strict=True):
            res = next((r for r in mip.results if str(r.spec) == name), None)
            if res is None or res.timing is None:
                cells.append(f" {'-':>12}")
                continue
            verdict = (check or {}).get(name)
            bad = " !" if verdict is not None and not verdict.within_tolerance else "  "
            cells.append(f" {res.timing.total.median:10.1f}{bad}")
        lines.append("".join(cells))
    for mip, check in zip(mips, checks, strict=True):
        size = f"{mip.width}x{mip.height}"
        lines += [f"{size} {spec}: skipped: {why}" for spec, why in mip.skipped]
        lines += [f"{size} {name}: {v.summary()}" for name, v in (check or {}).items()
                  if not v.within_tolerance]
        for res in mip.results:
            drift = detect_drift(res.timing.total.samples_us) if res.timing else None
            if drift is not None:
                lines.append(f"{size} {res.spec}: {drift.label()}")
    return "\n".join(lines)


def clock_line(mip: RunResult) -> str:
    """The GPU clocks while timing, or why there is no figure."""
    if mip.clock is None:
        return f"clock: not readable on {mip.device.name}"
    warning = mip.clock.warning()
    return f"clock: {mip.clock.label()}" + (f"; WARNING: {warning}" if warning else "")


def _fmt_err(v: float, fmt: Format) -> str:
    return f"{v:10.3f}" if not fmt.is_float else f"{v:10.2e}"
