"""``mipview diff A B``: what two saved runs (run folders) or two texture chains hold, texel by
texel ("did the new driver change anything?").

Per strategy and level: the largest and mean difference in the format's unit and the texels
further apart than both runs' promises allow (mipview.check.diff), a verdict per strategy and
overall, and the devices and drivers of both sides. Exit 0 identical or within the promises, 1
beyond them, 2 bad input (mismatched inputs included), as one line on stderr.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from mipview import __version__
from mipview.check.compare import format_error
from mipview.check.diff import BEYOND, ChainDiff, LevelDiff, is_unbounded, worst_verdict
from mipview.cli.common import EXIT_FAILED, EXIT_OK, non_empty
from mipview.cli.output import JsonFile
from mipview.core.formats import Format
from mipview.runs.saved import TEXTURE_FILE, Saved, compare_saved, open_saved


def add_parser(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """Register ``diff`` with the main parser's ``add(name, help)``."""
    p = add("diff", "compare two saved runs (run folders) or two texture chains texel by texel")
    p.add_argument("a", metavar="A", type=non_empty,
                   help="a `mipview run --out` folder, or a KTX2/DDS/EXR chain")
    p.add_argument("b", metavar="B", type=non_empty, help="the same kind as A, of the same image")
    p.add_argument("--json", metavar="FILE", help="write the figures as JSON here")
    p.epilog = ("exit codes: 0 identical or within the promises; 1 differs beyond them; 2 bad "
                "or mismatched inputs (one line on stderr); 130 interrupted")
    p.set_defaults(func=cmd_diff)


def cmd_diff(args: argparse.Namespace) -> int:
    target = JsonFile(args.json)  # checked before reading anything
    a, b = open_saved(args.a), open_saved(args.b)
    diffs = compare_saved(a, b)
    verdict = worst_verdict(d.verdict for d in diffs)
    print("\n".join(report_lines(a, b, diffs, verdict)))
    if target.write(as_dict(a, b, diffs, verdict)):
        print(f"wrote {target.path}")
    return EXIT_FAILED if verdict == BEYOND else EXIT_OK


def _side(label: str, s: Saved) -> str:
    made = "file" if s.kind == TEXTURE_FILE else s.device
    return f"{label}: {s.path} ({s.kind}): {made} | {s.driver}"


def _value(v: float, fmt: Format) -> str:
    if v == 0.0:
        return "0"
    return f"{v:.2e}" if fmt.is_float else f"{v:.4g}"


def _bound(lv: LevelDiff, fmt: Format) -> str:
    if lv.bound is None or is_unbounded(lv.bound):
        return "none"
    return _value(lv.bound, fmt)


def _promise_note(a: Saved, b: Saved, name: str) -> str:
    """What the promises of ``name`` are, when they are not two chains of bounds."""
    if a.kind == TEXTURE_FILE:
        return "texture files carry no promise: any difference is beyond"
    ca, cb = a.chain(name), b.chain(name)
    unchecked = [s for s, c in (("A", ca), ("B", cb)) if c.bounds is None]
    if unchecked:
        return (f"{' and '.join(unchecked)} not checked (--no-check): no promise, any "
                "difference is beyond")
    if any(is_unbounded(v) for v in (*(ca.bounds or ()), *(cb.bounds or ()))):
        return "not exact by design (no bound where 'none'): a difference there is within"
    return f"promises {ca.promise} | {cb.promise}: beyond = past A's chain bound + B's"


def _strategy_verdict(d: ChainDiff, fmt: Format) -> str:
    if d.verdict != BEYOND:
        return d.verdict
    where = "; ".join(f"level {lv.level}: {lv.beyond} texel{'s' if lv.beyond != 1 else ''}"
                      for lv in d.levels if lv.beyond)
    worst = max(d.levels, key=lambda lv: lv.max_diff)
    layer, y, x, ch = worst.worst
    at = f"layer {layer}, " if worst.layers > 1 else ""
    return (f"{d.verdict} ({where}; largest at level {worst.level} ({at}x={x}, y={y}, ch {ch}): "
            f"{format_error(worst.max_diff, fmt.error_unit)})")


def report_lines(a: Saved, b: Saved, diffs: list[ChainDiff], verdict: str) -> list[str]:
    """The text ``diff`` prints."""
    fmt, unit = a.fmt, a.fmt.error_unit
    lines = [_side("A", a), _side("B", b), f"{a.describe()}; differences in {unit}"]
    head = (f"  {'level':>5}  {'size':<11} {'max':>10} {'mean':>10} {'bound':>10} "
            f"{'beyond':>7}")
    for d in diffs:
        lines += [f"{d.name}: {_promise_note(a, b, d.name)}", head]
        lines += [f"  {lv.level:>5}  {f'{lv.width}x{lv.height}':<11} "
                  f"{_value(lv.max_diff, fmt):>10} {_value(lv.mean_diff, fmt):>10} "
                  f"{_bound(lv, fmt):>10} {lv.beyond:>7}" for lv in d.levels]
        lines.append(f"  {d.name}: {_strategy_verdict(d, fmt)}")
    lines.append(f"overall: {verdict}")
    return lines


def _side_dict(s: Saved) -> dict[str, Any]:
    return {"path": s.path, "kind": s.kind, "device": s.device, "driver": s.driver,
            "strategies": {c.name: {"promise": c.promise, "chain_bounds": None if c.bounds is None
                                    else [str(v) if is_unbounded(v) else v for v in c.bounds]}
                           for c in s.chains}}


def as_dict(a: Saved, b: Saved, diffs: list[ChainDiff], verdict: str) -> dict[str, Any]:
    """``--json``: the same figures as the text."""
    return {"generator": f"mipview {__version__}", "a": _side_dict(a), "b": _side_dict(b),
            "image": {"width": a.width, "height": a.height, "layers": a.layers,
                      "format": a.fmt.label},
            "unit": a.fmt.error_unit, "strategies": [d.as_dict() for d in diffs],
            "beyond": sum(d.beyond for d in diffs), "verdict": verdict}
