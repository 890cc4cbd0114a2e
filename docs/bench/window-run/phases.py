"""CPU phases of one window Run (staged), timed one by one in this tree:
``python3 docs/bench/window-run/phases.py [--size 4096 | --image PATH] [--threads N]``
from the root of the tree to measure (its ``mipview`` is imported). Works on trees before and
after the analysis work: it only calls what both have (Session, ReferenceCache,
analysis.analyse_strategy, staged.analyse).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.getcwd())

from mipview.check.verdict import ReferenceCache  # noqa: E402
from mipview.core.formats import Format  # noqa: E402
from mipview.gpu.session import Session  # noqa: E402
from mipview.gpu.strategies.specs import expand_specs  # noqa: E402
from mipview.gpu.vulkan.context import GpuContext  # noqa: E402
from mipview.io import imageio, synthetic  # noqa: E402
from mipview.runs import analysis, staged  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--size", type=int)
    g.add_argument("--image")
    p.add_argument("--format")
    p.add_argument("--threads", type=int, default=analysis.pool_size())
    p.add_argument("--strategies", default="all")
    args = p.parse_args()
    src = synthetic.image(args.size, args.size) if args.size else imageio.load(args.image)
    fmt = Format.parse(args.format) if args.format else src.suggested_format()
    level0 = src.storage(fmt)
    level0.setflags(write=False)
    rows: list[tuple[str, float, float]] = []

    def timed(name, fn):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        rows.append((name, time.perf_counter() - t, time.process_time() - c))
        return out

    with GpuContext() as ctx:
        specs = expand_specs(args.strategies)
        # a first session compiles the pipelines (cached in the context): then the second one
        # measures what a later Run pays
        timed("session, first (pipelines, uploads)", lambda: Session(ctx, level0, fmt, specs).close())
        session = timed("session, later (uploads)", lambda: Session(ctx, level0, fmt, specs))
        with session:
            timed("generate (submit + read back)", session.generate)
            mip = session.result()
        # one strategy at a time, one thread: what each costs
        refs = ReferenceCache()
        for name in analysis.references_needed(mip.results):
            timed(f"reference {name}", lambda n=name: refs.get(level0, fmt, n))
        verdicts = []
        for res in mip.results:
            e = timed(f"analyse {res.spec} (1 thread)",
                      lambda r=res: analysis.analyse_strategy(r, level0, fmt, refs))
            verdicts.append(f"{res.spec}: {e.verdict.summary()}, max step "
                            f"{e.verdict.exact.max_step!r}, max chain {e.verdict.exact.max_chain!r}")
        # the whole analysis as the Run does it, fresh cache, in the pool
        with ThreadPoolExecutor(args.threads) as pool:
            timed(f"analysis, all, {args.threads} threads, fresh cache",
                  lambda: staged.analyse(mip, level0, ReferenceCache(),
                                               staged.RunListener(), pool))
            timed(f"analysis, all, {args.threads} threads, cached reference",
                  lambda: staged.analyse(mip, level0, refs, staged.RunListener(),
                                               pool))
    print(f"{ctx.caps.name} | {src.width}x{src.height} {fmt.label} | {os.cpu_count()} cores")
    print(f"  {'phase':<56} {'wall s':>7} {'cpu s':>7}")
    for name, wall, cpu in rows:
        print(f"  {name:<56} {wall:7.3f} {cpu:7.3f}")
    print("\n".join(verdicts))


if __name__ == "__main__":
    main()
