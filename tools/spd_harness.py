"""Independent timing harness for AMD FidelityFX SPD (single pass downsampler).

What it is for: a yardstick for mipview's own timing of its SPD port
(``shader:resources/shaders/spd_mean.comp``). It runs SPD 2.0 (third_party/ffx_spd) integrated
the way AMD's Vulkan sample does it (tools/spd_harness_cs.comp: imageLoad source, an array of
storage images for levels 1..12, a coherent level 6, a self-resetting global atomic counter,
subgroup quad operations, SpdSetup's constants), with nothing from the ``mipview`` package: only
the ``vulkan`` binding, numpy, the standard library and glslc. If the two timings of the same
work disagree, one of the two measurements is wrong.

Each run of a size: [cache eviction: vkCmdFillBuffer of a 256 MiB device-local buffer and a full
barrier] + timestamp + one SPD dispatch + timestamp, ``--repeat`` runs in one command buffer.
Before the timed submit, that command buffer is resubmitted until ``--warmup-ms`` of wall time
has passed (clocks ramp up under load). Then the levels are read back and compared with a float64
2x2-box chain of level 0.

On the GPU machine, from the project root:

    source .gl/env.sh && python3 -m tools.spd_harness --sizes 4096,1920x1080 --repeat 50 \\
        --warmup-ms 1500 --json spd_harness.json

Chain mode (tools/spd_harness_chain.py): ``--chain-shader resources/shaders/spd_mean.comp`` times
a mipview whole-chain custom shader, compiled as mipview compiles it, through this same Vulkan
path, so that ``mipview bench --strategies shader:FILE`` and this harness time the same SPIR-V.

The cache state matches ``mipview bench --cold --evict dirty`` (a fill, leaving dirty lines);
``--warm`` skips the eviction. Here (lavapipe) timings are CPU time: use it for correctness,
e.g. ``python -m tools.spd_harness --sizes 64,40x24 --check-only --validate`` (``--validate``
needs the Khronos validation layer, which the GPU machine lacks).
"""


from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

# the machinery both modes share lives in the core, and the chain mode imports the core alone:
# this file imports the two, neither of them imports this file
from . import spd_harness_chain
from . import spd_harness_core as core

# the harness's public names, where callers found them before the core was split off
SpdContext = core.SpdContext
SizeResult = core.SizeResult
TOLERANCE_LSB = core.TOLERANCE_LSB
box_exact = core.box_exact
check_levels = core.check_levels
reference_levels = core.reference_levels
spd_setup = core.spd_setup


def time_size(ctx: SpdContext, width: int, height: int, repeat: int = 50,
              warmup_ms: float = 1500.0, cold: bool = True, evict_mib: int = core.EVICT_MIB,
              check: bool = True, seed: int = 0, timed: bool = True) -> SizeResult:
    """Time SPD on one ``width`` x ``height`` RGBA8 source and check its levels.

    ``timed=False`` (``--check-only``): one run, no warm-up, no eviction, no timing reported.
    """
    if repeat < 1:
        raise ValueError("repeat must be >= 1")
    if not timed:
        repeat, warmup_ms, cold = 1, 0.0, False
    chain = core._SpdChain(ctx, width, height)
    try:
        level0 = core.make_level0(width, height, seed)
        chain.upload(level0)
        samples = core.timed_samples(ctx, chain, repeat, warmup_ms, cold, evict_mib)
        levels, counter = chain.read_back()
    finally:
        chain.destroy()
    mips = chain.setup.mips
    exact = box_exact(width, height, mips)
    result_check = None
    if check:
        if not np.array_equal(levels[0], level0):
            raise RuntimeError(f"{width}x{height}: level 0 changed (SPD must only read it)")
        result_check = check_levels(levels[1:], reference_levels(level0, mips))
    arr = np.asarray(samples)
    return SizeResult(
        size=f"{width}x{height}", format=core.FORMAT_NAME, cold=cold,
        median_us=float(np.median(arr)) if timed else None,
        min_us=float(arr.min()) if timed else None,
        p90_us=float(np.percentile(arr, 90)) if timed else None,
        repeat=repeat, device=ctx.device_name, driver=ctx.driver, mips=mips,
        workgroups=chain.setup.num_work_groups, counter_after=counter,
        check_max_lsb=result_check.max_error if result_check else None,
        check_box_exact=exact,
        check_passed=(result_check.passed if exact else None) if result_check else None,
        samples_us=[float(x) for x in samples] if timed else [],
        level0=level0, levels=levels[1:], check=result_check)


# --- command line ------------------------------------------------------------------------------

def parse_sizes(text: str) -> list[tuple[int, int]]:
    """``4096,1920x1080`` -> [(4096, 4096), (1920, 1080)]."""
    sizes = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        w, _, h = part.partition("x")
        try:
            sizes.append((int(w), int(h or w)))
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad size {part!r} (want N or WxH)") from None
    if not sizes:
        raise argparse.ArgumentTypeError("no sizes")
    return sizes


def _check_line(r: SizeResult) -> str:
    counter = "" if r.counter_after == 0 else \
        f"; FAIL: SPD left its counter at {r.counter_after}, not 0"
    return core.check_text(r, counter)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tools.spd_harness",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=parse_sizes, default=parse_sizes("4096,1920x1080"),
                   help="N or WxH, comma-separated (default 4096,1920x1080; at most 4096 a side)")
    p.add_argument("--repeat", type=int, default=50, help="timed runs per size (default 50)")
    p.add_argument("--warmup-ms", type=float, default=1500.0,
                   help="wall time of warm-up submits before the timed one (default 1500)")
    cache = p.add_mutually_exclusive_group()
    cache.add_argument("--cold", dest="cold", action="store_true", default=True,
                       help="evict caches before every run with a 256 MiB fill (default)")
    cache.add_argument("--warm", dest="cold", action="store_false", help="no eviction")
    p.add_argument("--evict-mib", type=int, default=core.EVICT_MIB,
                   help=f"size of the eviction buffer (default {core.EVICT_MIB})")
    p.add_argument("--device", default=None,
                   help="device index or name substring (default: first discrete GPU)")
    p.add_argument("--json", type=Path, default=None, help="write the results here")
    p.add_argument("--check-only", action="store_true",
                   help="one untimed run per size, then the check (quick on lavapipe)")
    p.add_argument("--no-check", action="store_true", help="skip the numpy check")
    p.add_argument("--seed", type=int, default=0, help="seed of the random level 0")
    p.add_argument("--validate", action="store_true",
                   help="Khronos validation layer with synchronization validation; "
                        "exit 1 on any message")
    p.add_argument("--robust", action="store_true",
                   help="enable robustBufferAccess and robustImageAccess (AMD's sample does not)")
    p.add_argument("--lds-vec4", action="store_true",
                   help="one vec4 LDS array (as mipview's port) instead of the sample's R/G/B/A")
    p.add_argument("--no-wave-ops", action="store_true",
                   help="SPD_NO_WAVE_OPERATIONS: LDS instead of subgroup quad operations")
    chain = p.add_argument_group(
        "chain mode", "time a mipview whole-chain custom shader (e.g. "
        "resources/shaders/spd_mean.comp) through this harness's own Vulkan path instead of "
        "SPD (tools/spd_harness_chain.py)")
    chain.add_argument("--chain-shader", type=Path, default=None, metavar="FILE",
                       help="the whole-chain .comp file (compiled as mipview compiles it)")
    chain.add_argument("--chain-tolerance", type=float, default=None, metavar="LSB",
                       help="limit of the level check (default 0.5625: a correctly rounded "
                            "level, with 1/16 LSB to spare)")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.chain_shader is not None:
        spd_only = [flag for flag, on in (("--robust", args.robust), ("--lds-vec4", args.lds_vec4),
                                          ("--no-wave-ops", args.no_wave_ops)) if on]
        if spd_only:
            parser.error(f"{', '.join(spd_only)}: SPD-mode options; a chain shader declares "
                         "its own (robust: '#pragma mipview robust')")
        return spd_harness_chain.main_chain(args, parser)
    if args.chain_tolerance is not None:
        parser.error("--chain-tolerance needs --chain-shader")
    for w, h in args.sizes:
        if not (2 <= max(w, h) <= core.SPD_MAX_SIDE and min(w, h) >= 1):
            parser.error(f"{w}x{h}: SPD makes 1..{core.SPD_MAX_MIPS} levels from sources of "
                         f"2..{core.SPD_MAX_SIDE} per side")
    results: list[SizeResult] = []
    failed = False
    with SpdContext(args.device, validate=args.validate, robust=args.robust,
                    lds_vec4=args.lds_vec4, wave_ops=not args.no_wave_ops) as ctx:
        print(f"spd-harness: {ctx.device_name} ({ctx.driver}), subgroup {ctx.subgroup_size}, "
              f"defines {' '.join(ctx.defines) or 'none'}", flush=True)
        for w, h in args.sizes:
            r = time_size(ctx, w, h, repeat=args.repeat, warmup_ms=args.warmup_ms,
                          cold=args.cold, evict_mib=args.evict_mib, check=not args.no_check,
                          seed=args.seed, timed=not args.check_only)
            results.append(r)
            failed |= core.report_size("spd-harness", r, _check_line(r))
    return core.finish(results, ctx.messages, args.json, failed)



if __name__ == "__main__":
    sys.exit(main())
