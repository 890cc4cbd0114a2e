"""``mipview bench --batch DIR`` / ``--batch-synthetic N``: time the batch ways.

Prints, per way, the GPU time of the whole batch (median, min, p95 over ``--repeat`` runs after
``--warmup-ms``), the dispatch count, the expansion buffers' memory, and whether its chains are
bit-identical to the other ways'. Every chain is also checked against the exact numpy reference.
``--batch-sweep 1,10,100`` repeats the timing on the first k images of the batch to find the
crossover batch size where expansion starts to beat ``loop``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from mipview.cli.common import EXIT_FAILED, EXIT_OK, closed_messages, open_context, positive_int
from mipview.cli.output import JsonFile
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import TimingSettings


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The batch options of ``mipview bench`` (called from mipview/cli/main.py)."""
    p.add_argument("--batch", metavar="DIR", help="bench batched mipmapping on every image in DIR")
    p.add_argument("--batch-synthetic", type=positive_int, metavar="N",
                   help="bench batched mipmapping on N seeded images, 1x1..2048x2048 "
                        "(heavy-tailed; --seed picks them)")
    p.add_argument("--ways", default="loop,prefix-sum,po2-buckets",
                   help="batch ways to compare (default loop,prefix-sum,po2-buckets)")
    p.add_argument("--batch-sweep", metavar="K,K,...",
                   help="also time the first K images for each K (crossover batch size)")


def _load_dir(folder: str, fmt_name: str | None) -> tuple[list[np.ndarray], list[str], Format]:
    from mipview.core.formats import to_storage
    from mipview.io import imageio

    root = Path(folder)
    if not root.is_dir():
        raise MipviewError(f"--batch {folder}: not a folder")
    sources, names = [], []
    for path in sorted(p for p in root.iterdir() if p.is_file()):
        try:
            src = imageio.load(path)
        except imageio.ImageLoadError as exc:
            print(f"skipped {path.name}: {exc}")
            continue
        if src.layers != 1:
            print(f"skipped {path.name}: {src.layers} layers (batches hold 2D images)")
            continue
        sources.append(src)
        names.append(path.name)
    if not sources:
        raise MipviewError(f"--batch {folder}: no loadable images")
    fmt = Format.parse(fmt_name) if fmt_name else sources[0].suggested_format()
    return [to_storage(s.pixels, fmt) for s in sources], names, fmt


def _load(args: argparse.Namespace) -> tuple[list[np.ndarray], list[str], Format, str]:
    from mipview.io.synthetic import synthetic_batch, synthetic_sizes

    try:
        if args.batch:
            level0, names, fmt = _load_dir(args.batch, args.format)
            return level0, names, fmt, f"folder {args.batch}"
        n = args.batch_synthetic
        fmt = Format.parse(args.format) if args.format else Format.UNORM
    except ValueError as exc:
        raise MipviewError(str(exc)) from None
    sizes = synthetic_sizes(n, args.seed)
    names = [f"syn{i}_{w}x{h}" for i, (w, h) in enumerate(sizes)]
    return synthetic_batch(sizes, fmt, args.seed), names, fmt, f"synthetic {n} (seed {args.seed})"


def _check(result: Any, level0: list[np.ndarray]) -> dict[str, Any]:
    """Worst step / chain error of any image against the exact reference, and the images whose
    verdict (mipview.check.verdict: the ``stored`` promise, every level reduced from the stored level
    below) is out of tolerance, with the first breach of each."""
    from mipview.check.verdict import judge

    fmt = result.fmt
    worst_step = worst_chain = 0.0
    bad, breaches, rule = [], {}, ""
    for info, chain, src in zip(result.images, result.levels, level0, strict=True):
        verdict = judge(chain, src, fmt, promise="stored")
        rule = verdict.rule
        worst_step = max(worst_step, verdict.exact.max_step)
        worst_chain = max(worst_chain, verdict.exact.max_chain)
        if not verdict.within_tolerance:
            bad.append(info.name)
            breaches[info.name] = str(verdict.breaches[0])
    return {"max_step": worst_step, "max_chain": worst_chain, "unit": fmt.error_unit,
            "promise": "stored", "rule": rule, "out_of_tolerance": bad, "breaches": breaches}


def _table(result: Any) -> str:
    rows = [f"{'way':<12} {'median µs':>11} {'min µs':>11} {'p95 µs':>11} {'dispatches':>10} "
            f"{'expansion':>10}  identical"]
    for w in result.ways:
        t = w.timing.total if w.timing else None
        cells = (f"{t.median:>11.1f} {t.min:>11.1f} {t.p95:>11.1f}" if t
                 else f"{'-':>11} {'-':>11} {'-':>11}")
        rows.append(f"{w.way:<12} {cells} {w.dispatches:>10} {w.expansion_bytes / 1024:>8.1f}Ki"
                    f"  {w.identical}")
    for way, why in result.skipped:
        rows.append(f"{way:<12} skipped: {why}")
    return "\n".join(rows)


def _settings(ctx: Any, args: argparse.Namespace) -> TimingSettings:
    """The bench's timing settings (the builder `mipview bench` and the window share)."""
    return TimingSettings.for_device(ctx.caps.device_type, repeat=args.repeat,
                                     warmup_ms=args.warmup_ms)


def _sweep(ctx: Any, level0: list[np.ndarray], fmt: Format, ways: list[str], ks: list[int],
           args: argparse.Namespace) -> list[dict[str, Any]]:
    from mipview.gpu.batch import BatchSession

    out = []
    for k in ks:
        with BatchSession(ctx, level0[:k], fmt, ways) as session:
            session.time_with(_settings(ctx, args))
            res = session.result()
        medians = {w.way: w.timing.total.median for w in res.ways if w.timing}
        out.append({"images": k, "median_us": medians,
                    "dispatches": {w.way: w.dispatches for w in res.ways}})
        print(f"  {k:>6} images: " + "  ".join(f"{w} {m:.1f} µs" for w, m in medians.items()))
    return out


def _crossover(sweep: list[dict[str, Any]], way: str) -> int | None:
    """Smallest swept batch size from which ``way`` stays faster than loop."""
    best = None
    for row in reversed(sweep):
        m = row["median_us"]
        if way not in m or "loop" not in m or m[way] >= m["loop"]:
            break
        best = row["images"]
    return best


def bench(args: argparse.Namespace) -> int:
    from mipview.gpu.batch import BatchSession, parse_ways

    ways = parse_ways(args.ways)
    try:
        ks = [int(k) for k in args.batch_sweep.split(",")] if args.batch_sweep else []
    except ValueError:
        raise MipviewError(f"bad --batch-sweep {args.batch_sweep!r} (want K,K,...)") from None
    target = JsonFile(args.json)
    level0, names, fmt, source = _load(args)
    with open_context(args) as ctx:
        with BatchSession(ctx, level0, fmt, ways, names) as session:
            session.generate()
            settings = _settings(ctx, args)
            session.time_with(settings)
            result = session.result()
        print(f"{result.device.name} | {result.device.driver} | subgroup "
              f"{result.device.subgroup_size}")
        print(f"{source}: {len(level0)} images, {fmt.label}, {result.packed_bytes / 2**20:.1f} MiB "
              f"packed in {result.pages} page(s), {args.repeat} runs after {settings.warmup_ms:g} ms "
              f"warm-up, {result.tile}x{result.tile} tiles")
        print(_table(result))
        sweep = []
        if ks:
            print("sweep (first K images):")
            sweep = _sweep(ctx, level0, fmt, ways, [k for k in ks if 0 < k <= len(level0)], args)
    messages = list(closed_messages(ctx, result.validation_messages))
    check = None if args.no_check else _check(result, level0)
    if check is not None:
        verdict = "ok" if not check["out_of_tolerance"] else \
            f"OUT OF TOLERANCE: {', '.join(check['out_of_tolerance'][:5])}"
        print(f"vs exact reference: step {check['max_step']:.3g} chain {check['max_chain']:.3g} "
              f"{check['unit']}  {verdict}")
        for name, breach in list(check["breaches"].items())[:5]:
            print(f"  {name}: {breach}")
    crossover = {w: _crossover(sweep, w) for w in ways if w != "loop"} if sweep else {}
    if crossover:
        print("crossover (expansion faster from K images on): "
              + ", ".join(f"{w} {k}" for w, k in crossover.items()))
    data = result.as_dict()
    data.update({"source": source, "repeat": args.repeat, "warmup_ms": settings.warmup_ms,
                 "check": check, "sweep": sweep, "crossover": crossover,
                 "validation_messages": messages,
                 "image_sizes": [[i.width, i.height] for i in result.images]})
    if target.write(data):
        print(f"wrote {target.path}")
    identical = all(w.identical is not False for w in result.ways)
    bad = check is not None and check["out_of_tolerance"]
    return EXIT_OK if identical and not bad and not messages else EXIT_FAILED
