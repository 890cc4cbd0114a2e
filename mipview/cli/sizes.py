"""``mipview bench --sizes 1920x1080,2560x1440,4096``: one sweep over image sizes.

Every size gets its own synthetic image and :class:`~mipview.gpu.session.Session`; all of them are
prepared and generated first, then timed together by one
:func:`~mipview.gpu.session.time_sessions` (one warm-up, every strategy of every size interleaved
in the one timing loop), so the GPU never idles between sizes and every size sees the same
clock. The text output is one table, a row per strategy and a column per size (median GPU us);
the JSON keeps each size's result exactly as ``bench --size`` writes it (``results``).
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from mipview.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    open_context,
    parse_size,
    prepare_run,
    strategy_specs,
)
from mipview.cli.output import JsonFile
from mipview.core.results import TimingSettings

#: options of ``bench`` that describe one image or one comparison, not a sweep over sizes
_SINGLE_ONLY = (("image", "an IMAGE"), ("size", "--size"), ("dirty", "--dirty"),
                ("baseline", "--baseline"), ("trace", "--trace"), ("batch", "--batch"),
                ("batch_synthetic", "--batch-synthetic"))


def parse_sizes(text: str) -> list[tuple[int, int]]:
    """``--sizes``: comma-separated sizes (``N`` or ``WxH``), each once, at least one."""
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(not p for p in parts):
        raise argparse.ArgumentTypeError(
            f"bad size list {text!r} (want sizes separated by commas, e.g. 1920x1080,4096)")
    sizes = []
    for part in parts:
        try:
            size = parse_size(part)
        except UsageError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if size in sizes:
            raise argparse.ArgumentTypeError(f"size {size[0]}x{size[1]} given twice in {text!r}")
        sizes.append(size)
    return sizes


def size_label(width: int, height: int) -> str:
    return f"{width}x{height}"


def bench_sizes(args: argparse.Namespace) -> int:
    """``bench --sizes``: exit 0, or 1 when a result is out of tolerance or validation spoke."""
    from mipview.gpu.measure.bandwidth import copy_bandwidth
    from mipview.gpu.measure.image_read import image_read
    from mipview.gpu.session import Session, time_sessions
    from mipview.runs import report, staged

    given = [what for key, what in _SINGLE_ONLY if getattr(args, key, None) is not None]
    if given:
        raise UsageError(f"--sizes makes one synthetic image per size: it takes no "
                         f"{', '.join(given)}")
    specs = strategy_specs(args.strategies, getattr(args, "reversed_z", False))
    target = JsonFile(args.json)
    with open_context(args) as ctx:
        # every size's limits are checked (and its image made) before any GPU work
        sources = [prepare_run(argparse.Namespace(**{**vars(args), "size": size_label(w, h)}),
                               ctx, len(specs), not args.no_check) for w, h in args.sizes]
        bandwidth = copy_bandwidth(ctx)
        settings = TimingSettings.for_device(ctx.caps.device_type, repeat=args.repeat,
                                             warmup_ms=args.warmup_ms, cold=args.cold,
                                             evict=args.evict)
        with contextlib.ExitStack() as stack:
            sessions = [stack.enter_context(Session(ctx, level0, fmt, specs))
                        for level0, fmt in sources]
            for session in sessions:
                session.generate()  # the levels checked below come from these first runs
            time_sessions(sessions, settings)
            mips = [s.result(copy_bandwidth_gbps=bandwidth.floor_gbps) for s in sessions]
            reads = [image_read(ctx, level0, fmt, s.evictor,
                                repeats=max(5, min(args.repeat, 50)))
                     for (level0, fmt), s in zip(sources, sessions, strict=True)]
    checks = [None if args.no_check else staged.verdicts(mip, level0)
              for mip, (level0, _) in zip(mips, sources, strict=True)]
    first = mips[0]
    cache = f"cold (L2 evicted before each run, {args.evict})" if args.cold else "warm"
    print(f"{first.device.name} | {first.device.driver} | subgroup {first.device.subgroup_size}")
    print(f"{len(mips)} sizes, {first.fmt.label}, {first.layers} layer(s), {args.repeat} runs "
          f"after one {settings.warmup_ms:g} ms warm-up, caches {cache}; "
          f"{report.clock_line(first)}")
    print(f"copy floor {bandwidth.floor_gbps:.1f} GB/s (vkCmdCopyBuffer "
          f"{bandwidth.transfer_gbps:.1f}, compute copy {bandwidth.compute_gbps:.1f})")
    print(report.sizes_table(mips, checks))
    extra: dict[str, Any] = {
        "repeat": args.repeat, "warmup_ms": settings.warmup_ms,
        "cache": f"cold-{args.evict}" if args.cold else "warm",
        "copy_bandwidth": bandwidth.as_dict()}
    results = []
    for mip, check, read in zip(mips, checks, reads, strict=True):
        data = report.result_dict(mip, check, {
            "source": f"synthetic {size_label(mip.width, mip.height)}", **extra,
            "image_read": read.as_dict()})
        for entry in data["strategies"]:
            entry.pop("errors", None)  # per-level detail belongs to `mipview run`
        results.append(data)
    whole = {key: results[0][key] for key in (report.GENERATOR_KEY, "device")}
    whole.update(sizes=[[m.width, m.height] for m in mips], **extra, results=results)
    if target.write(whole):
        print(f"wrote {target.path}")
    failed = any(not v.within_tolerance for c in checks if c is not None for v in c.values())
    return EXIT_FAILED if failed or any(m.validation_messages for m in mips) else EXIT_OK
