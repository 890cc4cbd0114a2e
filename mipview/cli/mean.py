"""``mipview mean`` and ``mipview sweep``: the exact image mean against each strategy's 1x1 level.

* ``mipview mean IMAGE`` (or ``--size WxH``): the exact mean per channel (numpy float64), the GPU
  mean (mipview.gpu.mean), and each strategy's 1x1 level with its error. ``--bench`` also times
  the GPU mean against every strategy's full pyramid (GPU timestamps, as ``mipview bench``).
* ``mipview sweep --width-range A:B --height H``: for every width A..B (inclusive) a synthetic
  image of that size, every strategy's 1x1 level against the exact mean: the auto-exposure
  flicker of a blit chain, as a table and (``--json``) data for the GUI's plot.

Errors are in storage units: LSB (1/255) for 8-bit formats, relative for floats, as everywhere.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

from mipview.check.compare import texel_errors
from mipview.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    closed_messages,
    duration_ms,
    open_context,
    positive_int,
    prepare_run,
    repeat_count,
    strategy_specs,
)
from mipview.cli.output import JsonFile
from mipview.runs.sweep import one_by_one, sweep_curves


def cmd_mean(args: argparse.Namespace) -> int:
    from mipview.gpu.mean import gpu_mean, mean_reference, time_mean

    specs = strategy_specs(args.strategies, getattr(args, "reversed_z", False))
    target = JsonFile(args.json)
    bench = (args.repeat, args.warmup_ms) if args.bench else None
    with open_context(args) as ctx:
        level0, fmt = prepare_run(args, ctx, len(specs), False, refuse_cube=(
            "`mipview mean` takes a 2D image (the mean of its texels); `mipview run` checks a "
            "cube map's chains"))
        unit = fmt.error_unit
        exact = mean_reference(level0, fmt, "mean")
        exact_log = mean_reference(level0, fmt, "log-mean")
        gmean = gpu_mean(ctx, level0, fmt, "mean", block=args.block, method=args.method)
        glog = gpu_mean(ctx, level0, fmt, "log-mean", block=args.block, method=args.method)
        mip, tops = one_by_one(ctx, level0, fmt, specs, bench)
        mean_timing = None
        if args.bench:
            mean_timing = time_mean(ctx, level0, fmt, "mean", args.block, args.method,
                                    args.repeat, args.warmup_ms)
    messages = closed_messages(ctx, mip.validation_messages)
    h, w = level0.shape[-3:-1]
    print(f"{w}x{h} {fmt.label}, {mip.device.name}")
    print(f"{'':<28} {'R':>12} {'G':>12} {'B':>12} {'A':>12}   max error ({unit})")
    rows: list[tuple[str, np.ndarray]] = [("exact (numpy float64)", exact),
                                          (f"gpu mean (s={args.block}, {args.method})", gmean)]
    rows += list(tops.items())
    data: dict[str, Any] = {"width": int(w), "height": int(h), "format": fmt.label,
                            "device": mip.device.name, "unit": unit, "exact": exact.tolist(),
                            "log_mean_exact": float(exact_log), "log_mean_gpu": float(glog),
                            "rows": []}
    for label, value in rows:
        err = float(texel_errors(value, exact, fmt).max())
        cells = " ".join(f"{v:12.5f}" for v in value)
        print(f"{label:<28} {cells}   {err:.3g}")
        data["rows"].append({"label": label, "value": value.tolist(), "max_error": err})
    print(f"log-mean luminance (eps 1e-4): exact {float(exact_log):.7g}, gpu {float(glog):.7g}")
    if not np.isfinite(exact).all() or not np.isfinite(exact_log):
        # the note at load counted them; here, what the non-finite figures above mean
        print("nan: a channel holds NaN, or both +Inf and -Inf (inf: +Inf or -Inf alone), so its "
              "exact mean is not a number; a GPU value counts as exact when it is the same")
    if args.bench:
        print(f"\nGPU time, {args.repeat} runs after {args.warmup_ms:g} ms warm-up "
              f"(median / min us):")
        assert mean_timing is not None
        print(f"{'mean (s=' + str(args.block) + ')':<34} {mean_timing.median:10.1f} "
              f"{mean_timing.min:10.1f}")
        data["bench"] = {"mean": mean_timing.as_dict()}
        for r in mip.results:
            if r.timing is not None:
                print(f"{str(r.spec) + ' (full pyramid)':<34} {r.timing.total.median:10.1f} "
                      f"{r.timing.total.min:10.1f}")
                data["bench"][str(r.spec)] = r.timing.total.as_dict()
    for spec, why in mip.skipped:
        print(f"{str(spec):<28} skipped: {why}")
    data["validation_messages"] = list(messages)
    if target.write(data):
        print(f"wrote {target.path}")
    return EXIT_OK if not messages else EXIT_FAILED


def _width_range(text: str) -> range:
    try:
        a, b = (int(v) for v in text.split(":"))
    except ValueError:
        raise UsageError(f"bad --width-range {text!r} (want A:B, e.g. 1900:1940)") from None
    if a < 1 or b < a:
        raise UsageError(f"bad --width-range {text!r}: need 1 <= A <= B")
    return range(a, b + 1)


def cmd_sweep(args: argparse.Namespace) -> int:
    from mipview.cli.limits import F32_TEXEL, ImageDims, check_run
    from mipview.core.formats import Format

    widths = _width_range(args.width_range)
    try:
        fmt = Format.parse(args.format)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    specs = strategy_specs(args.strategies, getattr(args, "reversed_z", False))
    target = JsonFile(args.json)
    with open_context(args) as ctx:
        # the widest image is the largest a sweep makes, one at a time
        check_run(ctx, ImageDims(widths[-1], args.height, 1, fmt, F32_TEXEL), fmt, len(specs),
                  False)
        res = sweep_curves(ctx, widths, args.height, fmt, specs, seed=args.seed, kind=args.kind)
    messages = closed_messages(ctx, res.validation_messages)
    curves = res.curves()
    _print_sweep(list(res.widths), curves, res.unit, print)
    for spec, why in res.skipped:
        print(f"{spec}: skipped: {why}")
    rows = [{"width": r.width, "exact": list(r.exact),
             "values": {n: list(v) for n, v in r.values}} for r in res.rows]
    if target.write({"height": args.height, "format": fmt.label, "kind": args.kind,
                     "unit": res.unit, "widths": list(res.widths), "max_error": curves,
                     "rows": rows, "skipped": [list(s) for s in res.skipped],
                     "validation_messages": list(messages)}):
        print(f"wrote {target.path}")
    return EXIT_OK if not messages else EXIT_FAILED


def _print_sweep(widths: list[int], curves: dict[str, list[float]], unit: str,
                 out: Callable[[str], None]) -> None:
    names = list(curves)
    out(f"1x1 level vs exact mean, max over channels ({unit})")
    out(f"{'width':>6} " + " ".join(f"{n[:14]:>14}" for n in names))
    for i, w in enumerate(widths):
        out(f"{w:>6} " + " ".join(f"{curves[n][i]:14.4g}" for n in names))
    out(f"{'max':>6} " + " ".join(f"{max(curves[n]):14.4g}" for n in names))


def add_parsers(add: Callable[[str, str], argparse.ArgumentParser],
                device_opts: Callable[[argparse.ArgumentParser], None],
                image_opts: Callable[..., None]) -> None:
    """Register ``mean`` and ``sweep`` with the main parser's ``add(name, help)``."""
    from mipview.io.synthetic import KINDS

    p = add("mean", "exact image mean vs GPU mean vs each strategy's 1x1 level")
    image_opts(p, True, layers=False, cube=False)  # one layer: the mean of an image
    p.add_argument("--block", type=int, choices=(8, 16), default=8,
                   help="work group side s of the mean reduction (4s x 4s texels per group)")
    p.add_argument("--method", choices=("weighted", "padded"), default="weighted",
                   help="weighted merges (default) or the seed's zero padding + correction")
    p.add_argument("--bench", action="store_true",
                   help="also time the GPU mean against each strategy's full pyramid")
    p.add_argument("--repeat", type=repeat_count, default=50, help="timed runs with --bench")
    p.add_argument("--warmup-ms", type=duration_ms, default=1000.0, help="warm-up with --bench")
    p.add_argument("--json", help="write the figures as JSON here")
    device_opts(p)
    p.set_defaults(func=cmd_mean)

    p = add("sweep", "each strategy's 1x1 level vs the exact mean over widths")
    p.add_argument("--width-range", required=True, help="A:B, widths A..B inclusive")
    p.add_argument("--height", type=positive_int, required=True)
    p.add_argument("--strategies", default="all", help="as for run/bench")
    p.add_argument("--format", default="srgb", help="unorm | srgb | f16 | f32 (default srgb)")
    p.add_argument("--kind", default=KINDS[0], choices=KINDS,
                   help=f"synthetic image (default {KINDS[0]})")
    p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--json", help="write the curves as JSON here")
    device_opts(p)
    p.set_defaults(func=cmd_sweep)
