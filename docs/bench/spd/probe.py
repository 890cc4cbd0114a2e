"""Where the last microseconds between mipview's timing of spd_mean.comp and the independent
harness's timing of the same SPIR-V (tools/spd_harness.py --chain-shader) go: mipview's own
timing path with one difference at a time, interleaved in one process (one call):

  as-is      - 10 runs per command buffer, stamps: begin, the "chain" mark, end;
  batch25    - 25 runs per command buffer;
  batch50    - all 50 runs in one command buffer, as the harness records them;
  two-stamps - no mark between the dispatch and the end stamp, as the harness stamps.
--strategies times built-in strategies the same ways (default: the SPD port).

    source .gl/env.sh && python3 docs/bench/spd/probe.py [--sizes 4096,1920x1080] [--cold]
"""

from __future__ import annotations

import argparse
import statistics
from contextlib import contextmanager

import numpy as np

from mipview.core.formats import Format, to_storage
from mipview.core.results import TimingSettings
from mipview.gpu.session import Session
from mipview.gpu.strategies.specs import expand_specs
from mipview.gpu.vulkan import timing
from mipview.gpu.vulkan.context import GpuContext

SPD = "shader:resources/shaders/spd_mean.comp"


@contextmanager
def two_stamps():
    """Marks.mark labels without stamping: each run is begin and end only."""
    real_mark, real_durations = timing.Marks.mark, timing.Marks.durations_us

    def mark(self, cmd, label):
        self.labels.append(label)

    def durations(self, stamps):
        total = self.pool.elapsed_ns(stamps, self.first, self.next - 1) / 1000.0
        return total, [total] * len(self.labels)

    timing.Marks.mark, timing.Marks.durations_us = mark, durations
    try:
        yield
    finally:
        timing.Marks.mark, timing.Marks.durations_us = real_mark, real_durations


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="4096,1920x1080")
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--evict", default="dirty", help="with --cold: clean or dirty")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--strategies", default=SPD)
    parser.add_argument("--ways", default="as-is,batch25,batch50,two-stamps")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    got: dict[tuple[str, str], list[float]] = {}
    with GpuContext() as ctx:
        sessions = []
        for size in args.sizes.split(","):
            w, h = (int(v) for v in (size.split("x") if "x" in size else (size, size)))
            level0 = to_storage(rng.random((h, w, 4)), Format.UNORM)
            sessions.append((f"{w}x{h}", Session(ctx, level0, Format.UNORM,
                                                 expand_specs(args.strategies))))
        for _ in range(args.rounds):
            for way in args.ways.split(","):
                for name, s in sessions:
                    per_batch = int(way[5:]) if way.startswith("batch") else 10
                    settings = TimingSettings(50, 1500.0, per_batch, cold=args.cold,
                                              evict=args.evict)
                    if way == "two-stamps":
                        with two_stamps():
                            for p in s.prepared:
                                p.work.destroy()  # re-record the batches with the patch
                            s.time_with(settings)
                        for p in s.prepared:
                            p.work.destroy()
                    else:
                        s.time_with(settings)
                    for res in s.result().results:
                        got.setdefault((name, str(res.spec), way), []).append(
                            res.timing.total.median)
        for _, s in sessions:
            s.close()
    print(f"{ctx.caps.name}, caches {f'cold ({args.evict})' if args.cold else 'warm'}: median of "
          f"50 per round, {args.rounds} rounds")
    for (name, spec, way), medians in sorted(got.items()):
        print(f"  {name:>10} {spec[-24:]:<24} {way:<11} "
              + " ".join(f"{m:6.1f}" for m in medians)
              + f"   median {statistics.median(medians):6.1f} us")


if __name__ == "__main__":
    main()
