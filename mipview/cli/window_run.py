"""The window's Run without the window: ``python -m mipview.cli.window_run --size 4096
--strategies all --repeat 20`` generates, times as ``mipview bench`` does and analyses, as pressing
Run does (mipview.runs.staged, prepared by mipview.runs.prepare like every Run), and says when the
levels, the timings and everything were ready, and each strategy's median and verdict. No PySide6
needed: it measures the window's path where the window cannot run (docs/bench/window-run).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from mipview.core.errors import MipviewError
from mipview.core.results import RunResult, TimingSettings
from mipview.runs import analysis, staged
from mipview.runs.prepare import prepare


class _Printer(staged.RunListener):
    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.t0 = time.perf_counter()
        self.updated = False

    def progress(self, text: str) -> None:
        if self.verbose:
            print(f"  {time.perf_counter() - self.t0:6.2f} s  {text}", flush=True)

    def timing_update(self, mip: RunResult) -> None:
        # the end of the warm-up: the first figures a window would show
        if self.verbose and not self.updated:
            self.updated = True
            self.progress("first timings shown")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mipview.cli.window_run", description=(
        "Run strategies as the window's Run does (generate, time as `mipview bench`, analyse) "
        "and say when the timings and when everything were ready."))
    image = parser.add_mutually_exclusive_group(required=True)
    image.add_argument("--size", type=int, help="synthetic zone-plate image of N x N texels")
    image.add_argument("--image", help="image file")
    parser.add_argument("--strategies", default="all")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs (the window's 20)")
    parser.add_argument("--format", help="unorm | srgb | f16 | f32 (default: from the image)")
    parser.add_argument("--cold", action="store_true", help="evict caches before each run")
    parser.add_argument("--runs", type=int, default=1,
                        help="Runs one after the other, as pressing Run again (default 1)")
    parser.add_argument("--device", help="device index or name substring (env MIPVIEW_DEVICE)")
    parser.add_argument("--validate", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each step")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    from mipview.gpu.vulkan.context import GpuContext
    from mipview.io import imageio, synthetic

    try:
        source = synthetic.image(args.size, args.size) if args.size else \
            imageio.load(args.image)
        # a seamless spec on a 2D image is a skipped row, as in the window
        prepared = prepare(source, args.format, args.strategies, refuse_edge_cube=False)
        ctx = GpuContext(device=args.device, validate=True if args.validate else None)
    except (MipviewError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    fmt, specs = prepared.fmt, prepared.specs
    status = 0
    with ctx, ThreadPoolExecutor(analysis.pool_size(), "mipview-analysis") as pool:
        settings = TimingSettings.for_device(ctx.caps.device_type, repeat=args.repeat,
                                             cold=args.cold)
        print(f"{ctx.caps.name} | {source.width}x{source.height} {fmt.label} | "
              f"{len(specs)} strategies, {settings.repeat} runs after {settings.warmup_ms:g} ms "
              f"warm-up, caches {'cold' if settings.cold else 'warm'} | "
              f"{analysis.pool_size()} analysis threads")
        # the strategies' timings alone: a texture file's own chain is no strategy to time
        options = staged.RunOptions(settings, file_chain=False)
        for i in range(args.runs):  # one prepared image: a later Run finds its references
            out = prepared.run_whole(ctx, options, _Printer(args.verbose), pool)
            clock = out.mip.clock.label() if out.mip.clock else \
                f"clock: not readable on {ctx.caps.name}"
            print(f"run {i + 1}: levels after {out.levels_s:.2f} s, timings after "
                  f"{out.timings_s or 0.0:.2f} s, everything after {out.done_s:.2f} s ({clock})")
            for res, e in zip(out.mip.results, out.errors, strict=True):
                median = res.timing.total.median if res.timing else float("nan")
                print(f"  {str(res.spec):<28} median {median:9.1f} us   {e.verdict.summary()}")
            for spec, why in out.mip.skipped:
                print(f"  {str(spec):<28} skipped: {why}")
            status |= bool(out.mip.validation_messages)
    return status


if __name__ == "__main__":
    sys.exit(main())
