"""Command line: ``mipview [gui] | devices | run | bench | mean | sweep | diff``.

Exit codes (cli/common.EXIT_*): 0 ok; 1 a checked result out of tolerance, or validation
messages; 2 bad input or environment, as one line on stderr, never a traceback (out of memory
included), and checked before any work where it can be; 130 interrupted (Ctrl-C), with one line
saying what was written (output is written whole or not at all: cli/output.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mipview.cli import output
from mipview.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    ArgumentParser,
    closed_messages,
    duration_ms,
    export_kinds,
    face_files,
    non_empty,
    open_context,
    out_of_memory,
    positive_int,
    prepare_source,
    repeat_count,
    saved_bench,
    source_label,
    strategy_specs,
)
from mipview.cli.output import REPORT, JsonFile, RunFolder
from mipview.core.errors import MipviewError
from mipview.core.results import RunResult, TimingSettings
from mipview.runs import staged
from mipview.runs.staged import RunOptions

if TYPE_CHECKING:
    from mipview.core.formats import Format
    from mipview.core.results import StrategyResult


# --- commands --------------------------------------------------------------------------------------
def cmd_devices(args: argparse.Namespace) -> int:
    from mipview.gpu.vulkan.context import choose_device, list_devices

    devices = list_devices()
    if args.json:
        print(json.dumps([d.as_dict() for d in devices], indent=2))
        return 0
    default = choose_device(devices, None) if devices else None
    for d in devices:
        star = "*" if default is not None and d.index == default.index else " "
        print(f"{star}{d.index}: {d.name} [{d.device_type}]")
        print(f"    driver {d.driver}, Vulkan {d.api_version}")
        rng = f" (controllable {d.subgroup_size_range[0]}..{d.subgroup_size_range[1]})" \
            if d.subgroup_size_range else ""
        print(f"    subgroup size {d.subgroup_size}{rng}; ops: {', '.join(d.subgroup_ops)}")
        print(f"    timestamps {d.timestamp_bits} bits @ {d.timestamp_period_ns:g} ns; "
              f"graphics queue: {'yes' if d.has_graphics else 'no'}")
        print(f"    max image {d.max_image_dimension_2d}, shared memory {d.max_shared_memory} B, "
              f"workgroup {d.max_workgroup_invocations}, fp16 {'yes' if d.shader_float16 else 'no'}")
    if not devices:
        print("no Vulkan devices found")
        return 1
    print("(* = default choice: discrete > integrated > CPU; pick with --device or MIPVIEW_DEVICE)")
    return 0


def _verdicts_exit(mip: Any, checks: dict[str, Any] | None) -> int:
    """1 if a checked result is out of tolerance or validation spoke, else 0."""
    bad = checks is not None and any(not c.within_tolerance for c in checks.values())
    return EXIT_FAILED if bad or mip.validation_messages else EXIT_OK


def write_result(folder: Path, res: StrategyResult, fmt: Format,
                 kinds: tuple[str, ...], faces: int = 1) -> list[Path]:
    """A result's levels in its own subfolder of ``folder`` (imageio.save_level: PNG, and the
    exact float values as .npy), and its chain as each of ``kinds`` (``faces`` 6: as a cube map
    or cube array); returns every file."""
    from mipview.io import containers, imageio

    sub = folder / res.spec.slug
    sub.mkdir()
    files = [f for i, level in enumerate(res.levels)
             for f in imageio.save_level(sub / f"level_{i:02d}.png", level, fmt)]
    if kinds:
        files += containers.export(sub, res.spec.slug, res.levels, fmt, kinds, faces=faces)
    return files


def cmd_run(args: argparse.Namespace) -> int:
    out = RunFolder(args.out)
    if args.devices is not None:
        from mipview.cli.devices_diff import run_on_devices

        return run_on_devices(args, out, run_into)
    with out.writing() as folder:
        code = run_into(args, folder)
    print(f"wrote {out.path}/")
    return code


def run_into(args: argparse.Namespace, folder: Path) -> int:
    """``run``'s work on the device of ``args.device``: levels and report.json into ``folder``
    (empty), its lines on stdout; the exit code of its verdicts."""
    from mipview.cli import encode as encode_cli
    from mipview.cli import volume

    if volume.requested(args):  # a volume's strategies and verdict are its own
        return volume.run_into(args, folder)
    from mipview.check.filter_reference import kind_warning
    from mipview.runs import report

    specs = strategy_specs(args.strategies, getattr(args, "reversed_z", False))
    kinds = export_kinds(args.export)
    notes = _Notes()
    with open_context(args) as ctx:
        run = prepare_source(args, ctx, specs, not args.no_check)
        encode_cli.check(args, run.fmt)  # a codec that cannot take the image: before the GPU
        # the file's own chain, if it has one, is fitted and written like a strategy's result
        done = run.run_whole(ctx, RunOptions(judge=not args.no_check, expect=args.expect), notes)
    source, level0, fmt = run.source, run.level0, run.fmt
    mip = replace(done.mip, validation_messages=closed_messages(ctx, done.mip.validation_messages))
    seams = run.seams(mip, judged=not args.no_check)
    warning = kind_warning(level0, fmt, [r.reduction for r in mip.results])
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    said = source.nonfinite_note(fmt)  # said at load: not again among the file's notes
    lines = tuple(n for n in notes.lines if not (said and said.startswith(n)))
    checks = done.verdicts if not args.no_check else None
    data = report.result_dict(mip, checks, {"source": source_label(args),
                                            "source_nonfinite": source.nonfinite.as_dict()},
                              seams)
    faces = face_files(args) if seams is not None else None
    if faces is not None:  # six face images: which, in layer order
        data["cube"]["face_files"] = faces
    for res, entry in zip(mip.results, data["strategies"], strict=True):
        entry["files"] = [f.relative_to(folder).as_posix()
                          for f in write_result(folder, res, fmt, kinds, source.faces)]
    encoded = encode_cli.encode_into(args, folder, mip, level0, run.refs, data["strategies"],
                                     kinds)
    (folder / REPORT).write_text(json.dumps(data, indent=2))
    if seams is not None:
        print(seams.headline())
    for res in mip.results:
        if checks is None:
            print(f"{str(res.spec):<30} not checked (--no-check)")
        else:
            c = checks[str(res.spec)]
            print(f"{str(res.spec):<30} step {c.exact.max_step:.3g} chain {c.exact.max_chain:.3g} "
                  f"{fmt.error_unit}  {c.summary()}")
            for line in report.fit_lines(c, 30):
                print(line)
        if seams is not None:
            print(f"{'':<30} {seams.result_line(str(res.spec))}")
    if seams is not None:
        for line in seams.reference_lines(30):
            print(line)
    for line in encoded:
        print(line)
    for spec, why in mip.skipped:
        print(f"{str(spec):<30} skipped: {why}")
    for line in dict.fromkeys(lines):  # a file's notes may count what the loader counted
        print(line)
    if args.expect is not None and not any(r.promise == "file" for r in mip.results):
        print(f"warning: --expect: {source_label(args)} has no mip chain of its own that this "
              "run checks", file=sys.stderr)
    return _verdicts_exit(mip, checks)


def cmd_bench(args: argparse.Namespace) -> int:
    from mipview.cli import volume

    if volume.requested(args):
        return volume.bench(args)
    if args.sizes is not None:
        from mipview.cli import sizes

        return sizes.bench_sizes(args)
    if args.batch or args.batch_synthetic is not None:
        from mipview.cli import batch

        if args.baseline is not None or args.trace is not None:
            raise MipviewError("--baseline and --trace time strategies, not --batch ways")
        return batch.bench(args)
    from mipview.gpu.measure.bandwidth import copy_bandwidth
    from mipview.gpu.measure.image_read import image_read
    from mipview.runs import report

    specs = strategy_specs(args.strategies, getattr(args, "reversed_z", False))
    target = JsonFile(args.json)
    trace = JsonFile(args.trace, "--trace")
    rect = None
    if args.dirty:
        from mipview.gpu import dirty

        rect = dirty.parse_rect(args.dirty)  # the image's bounds are checked once it exists
    with open_context(args) as ctx:
        run = prepare_source(args, ctx, specs, not args.no_check)
        level0, fmt = run.level0, run.fmt
        if rect is not None:
            dirty.parse_rect(args.dirty, level0.shape[-2], level0.shape[-3])
        bandwidth = copy_bandwidth(ctx)
        floor = bandwidth.floor_gbps
        # the window times with the same builder: same settings for the same inputs
        settings = TimingSettings.for_device(ctx.caps.device_type, repeat=args.repeat,
                                             warmup_ms=args.warmup_ms, cold=args.cold,
                                             evict=args.evict)
        # the levels checked come from the first run, before the timing; a texture file's
        # own chain is no strategy to time
        options = RunOptions(settings, judge=not args.no_check, file_chain=False,
                             measure=lambda session: image_read(
                                 # the sampled-read ceiling of level 0, emptied from the
                                 # caches like the runs
                                 ctx, level0, fmt, session.evictor,
                                 repeats=max(5, min(args.repeat, 50))))
        done = run.run_whole(ctx, options)
        mip, read = replace(done.mip, copy_bandwidth_gbps=floor), done.measured
        dirty_rows = None
        if rect is not None:  # sub-rectangle update vs full run (mipview/gpu/dirty.py)
            dirty_rows = dirty.bench_dirty(ctx, level0, fmt, specs, rect, args.repeat)
    mip = replace(mip, validation_messages=closed_messages(ctx, mip.validation_messages))
    checks = done.verdicts if not args.no_check else None
    seams = run.seams(mip, judged=not args.no_check)
    cache = f"cold (L2 evicted before each run, {args.evict})" if args.cold else "warm"
    print(f"{mip.device.name} | {mip.device.driver} | subgroup {mip.device.subgroup_size}")
    print(f"{mip.width}x{mip.height}x{mip.layers} {fmt.label}, {args.repeat} runs after "
          f"{settings.warmup_ms:g} ms warm-up, caches {cache}; {report.clock_line(mip)}")
    print(f"copy floor {floor:.1f} GB/s (vkCmdCopyBuffer {bandwidth.transfer_gbps:.1f}, "
          f"compute copy {bandwidth.compute_gbps:.1f}); reading level 0 through the sampler "
          f"alone: {read.timing.median:.1f} us ({read.gbps:.1f} GB/s)")
    print(report.bench_table(mip, checks))
    if seams is not None:
        print(seams.headline())
        print("\n".join([f"{str(r.spec):<34} {seams.result_line(str(r.spec))}"
                         for r in mip.results] + seams.reference_lines(34)))
    if dirty_rows is not None:
        print(dirty.format_rows(dirty_rows))
    if checks is not None:
        for name, c in checks.items():
            if not c.within_tolerance or c.nonfinite is not None:
                print(f"{name}: {c.summary()}")
    data = report.result_dict(mip, checks, {
        "source": source_label(args),
        "repeat": args.repeat,
        "warmup_ms": settings.warmup_ms,
        "cache": settings.cache,
        "copy_bandwidth": bandwidth.as_dict(), "image_read": read.as_dict()}, seams)
    for entry in data["strategies"]:
        entry.pop("errors", None)  # per-level detail belongs to `mipview run`
    if dirty_rows is not None:
        data["dirty"] = dirty_rows
    if args.baseline is not None:  # read and checked by the parser, before any work
        from mipview.runs.baseline import compare_runs

        against = compare_runs(data, args.baseline.data)
        print("\n".join(against.lines()))
        data["baseline"] = {"path": args.baseline.path, **against.as_dict()}
    if trace.path is not None:
        from mipview.runs.trace import chrome_trace

        trace.write(chrome_trace(mip, settings.runs_per_batch), indent=None)
        print(f"wrote {trace.path}")
    if target.write(data):
        print(f"wrote {target.path}")
    return _verdicts_exit(mip, checks)


class _Notes(staged.RunListener):
    """The lines a run's texture file has for its user (its notes, or why its chain is not
    checked), as the Run reports them with its levels."""

    def __init__(self) -> None:
        self.lines: tuple[str, ...] = ()

    def levels(self, mip: RunResult, notes: tuple[str, ...] = ()) -> None:
        self.lines = notes


def cmd_gui(args: argparse.Namespace) -> int:
    try:
        from mipview.ui.app import run_gui
    except ImportError as exc:
        raise MipviewError(f"the GUI needs PySide6 and pyqtgraph ({exc})") from None
    return run_gui(args)


# --- parser -------------------------------------------------------------------------------------
def expected_filter(text: str) -> str:
    """``--expect``: a filter as ``kaiser:kaiser-width=4`` (or ``kaiser,kaiser-width=4``, or
    ``box``), to its reference name (``mean`` for the box)."""
    from mipview.core.filters.spec import parse_filter

    name, _, options = text.strip().partition(":")
    try:
        return parse_filter(f"{name},{options}" if options else name).name
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="mipview", description=(
        "Visualise, check and profile GPU mipmap generation (Vulkan)."), epilog=EXIT_CODES)
    sub = parser.add_subparsers(dest="command")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, epilog=EXIT_CODES)

    def device_opts(p: argparse.ArgumentParser) -> None:
        p.add_argument("--device", help="device index or name substring (env MIPVIEW_DEVICE)")
        p.add_argument("--validate", action="store_true",
                       help="Khronos validation + synchronization checks (env MIPVIEW_VALIDATE=1)")

    def image_opts(p: argparse.ArgumentParser, size: bool, layers: bool = True,
                   cube: bool = True) -> None:
        from mipview.core.formats import Format

        p.add_argument("image", nargs="?", help="image file (one face of six, sky_px.png: the "
                                                "cube map of all six)" if cube else "image file")
        p.set_defaults(cube_faces=cube)  # common.face_files
        channel_opt(p)
        if size:
            from mipview.cli.volume import VOLUME_KIND
            from mipview.io.synthetic import CUBE_KIND, KINDS

            kinds = (*KINDS, CUBE_KIND, VOLUME_KIND) if cube else KINDS
            p.add_argument("--size", help="synthetic image of N or WxH texels (--synthetic; "
                                          "a volume: N or WxHxD)")
            p.add_argument("--synthetic", choices=kinds, metavar="KIND",
                           help=f"what --size makes: {' | '.join(kinds)} (default {KINDS[0]}); "
                                "depth is a perspective depth buffer, r32f unless --format"
                                + ("; cube a cube map of 6 faces N x N (a sky); volume a 3D "
                                   "texture of noise and spheres, made by the volume "
                                   "strategies (docs/volumes.md)" if cube else ""))
            p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
        p.add_argument("--reversed-z", action="store_true",
                       help="depth is reversed-Z (near 1, far 0): reduction=nearest is max, "
                            "farthest min, and --synthetic depth is made so")
        p.add_argument("--strategies", default="all",
                       help="comma-separated specs name[:key=value,...], 'all', or key=all")
        p.add_argument("--format", help=" | ".join(f.label for f in Format)
                       + " (default: from the image; docs/formats.md)")
        if layers:
            p.add_argument("--layers", type=positive_int, default=1,
                           help="array layers made from the image (mirrors, flips, channel "
                                "swaps); not for a cube map, whose faces are its layers")

    def channel_opt(p: argparse.ArgumentParser) -> None:
        p.add_argument("--channel", metavar="NAME",
                       help="of an EXR, the channel, layer or part to read (Z, forward.u, "
                            "diffuse, part=1, part=beauty,Z): the same as IMAGE#NAME "
                            "(docs/formats.md, EXR)")

    def check_opt(p: argparse.ArgumentParser, what: str) -> None:
        p.add_argument("--no-check", action="store_true",
                       help=f"skip the comparison with the reference ({what}); exit 1 is then "
                            "for validation messages only")

    p = add("devices", "list Vulkan devices and capabilities")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_devices)

    p = add("run", "generate pyramids, write PNG levels and report.json")
    image_opts(p, size=True)
    p.add_argument("--out", type=non_empty, default="mipview-out",
                   help="output folder (default mipview-out): replaced when the run is complete, "
                        "if empty or an earlier run's")
    check_opt(p, "report.json then has no errors")
    p.add_argument("--export", metavar="KINDS",
                   help="also write each strategy's chain as texture files: ktx2, dds, exr "
                        "(float formats), comma-separated, or all")
    from mipview.cli.encode import add_options as encode_options

    encode_options(p)
    device_opts(p)
    from mipview.cli.devices_diff import parse_devices

    p.add_argument("--devices", type=parse_devices, metavar="A,B",
                   help="run on two devices (index or name substring each; the same one twice "
                        "opens it twice) and compare their levels texel by texel, as `diff` "
                        "does: OUT/device-1, OUT/device-2 and OUT/report.json")
    p.add_argument("--expect", type=expected_filter, metavar="FILTER",
                   help="the filter a texture file's own mip chain should match (box, tent, "
                        "kaiser, lanczos3, ...; options as kaiser:kaiser-width=4,edge=wrap): "
                        "exit 1 when it misses that filter's bounds. Without it the chain's "
                        "best-fitting filter is reported, not judged")
    p.set_defaults(func=cmd_run)

    p = add("bench", "time strategies with GPU timestamps")
    image_opts(p, size=True)
    from mipview.cli.sizes import parse_sizes

    p.add_argument("--sizes", type=parse_sizes, metavar="SIZES",
                   help="time every strategy at each of these sizes (N or WxH, comma-separated) "
                        "in one run after one warm-up: one table, and a JSON keeping every size")
    p.add_argument("--warmup-ms", type=duration_ms, default=None,
                   help="keep the GPU busy this long before timing (default: 1000 on a GPU, "
                        "0 on a CPU device such as lavapipe, whose clock needs no warming); "
                        "ends sooner once the GPU clock has read its maximum for 0.25 s "
                        "(NVIDIA, with nvidia-ml-py)")
    p.add_argument("--repeat", type=repeat_count, default=50,
                   help="timed runs per strategy (default 50)")
    p.add_argument("--cold", action="store_true",
                   help="evict caches before every timed run (untimed)")
    p.add_argument("--evict", choices=("clean", "dirty"), default="clean",
                   help="with --cold: read a large buffer (clean lines, default) or fill one "
                        "(dirty lines the timed run must write back)")
    check_opt(p, "sweeps of many options")
    p.add_argument("--json", help="write results as JSON here (every sample included)")
    p.add_argument("--baseline", type=saved_bench, metavar="OLD.json",
                   help="compare every figure with this earlier --json run: median ratio "
                        "new/old, its bootstrap interval, faster/slower/within noise")
    p.add_argument("--trace", metavar="FILE",
                   help="write the per-dispatch timeline of the timed runs here (Chrome trace "
                        "event format: Perfetto, Tracy's importer)")
    p.add_argument("--dirty", metavar="X,Y,W,H",
                   help="also time a sub-rectangle update against a full run")
    from mipview.cli import batch

    batch.add_arguments(p)  # --batch DIR, --batch-synthetic N, --ways, --batch-sweep
    device_opts(p)
    p.set_defaults(func=cmd_bench)

    from mipview.cli import mean  # `mean` and `sweep` (exact image mean)
    mean.add_parsers(add, device_opts, image_opts)

    from mipview.cli import diff  # two saved runs or texture chains, texel by texel
    diff.add_parser(add)

    p = add("gui", "open the desktop app (default command)")
    p.add_argument("image", nargs="?", help="image to open (default: bundled sample)")
    channel_opt(p)
    p.add_argument("--run", help="strategies to run right after opening")
    p.add_argument("--screenshot", help="save a PNG of the window after the run")
    p.add_argument("--quit", action="store_true", help="exit after --run/--screenshot")
    p.add_argument("--baseline", help="a `mipview bench --json` file to compare the run with")
    p.add_argument("--distributions", action="store_true",
                   help="show the samples' distributions beside the bars")
    p.add_argument("--preview", choices=[f"{k}{v}" for k in ("plane", "quad")
                                         for v in ("", "-tinted", "-error")],
                   help="show the sampled preview dock: levels, tinted, or their error")
    p.add_argument("--format", help=argparse.SUPPRESS)
    device_opts(p)
    p.set_defaults(func=cmd_gui)
    return parser


def _choose_channel(args: argparse.Namespace) -> None:
    """``--channel NAME`` is ``IMAGE#NAME``: the one way a part, layer or channel of an EXR is
    chosen (mipview.io.containers.exr_choice), whoever reads the path."""
    channel = getattr(args, "channel", None)
    if channel is None:
        return
    if not getattr(args, "image", None):
        raise MipviewError(f"--channel {channel} chooses what to read of an IMAGE: give one")
    from mipview.io.containers.exr_choice import with_choice

    args.image = with_choice(args.image, channel)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    if not argv or (argv[0] not in parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
                    and not argv[0].startswith("-")):
        argv = ["gui", *argv]
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0), or an argument error already told in one line (2)
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    output.written.clear()
    try:
        _choose_channel(args)
        return args.func(args)
    except KeyboardInterrupt:
        done = ", ".join(output.written)
        print(f"mipview: interrupted; {'wrote ' + done + ' before' if done else 'nothing written'}",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    except MipviewError as exc:
        message = str(exc)
    except Exception as exc:  # out of memory, host or device: one line, not a traceback
        message = out_of_memory(exc)
        if message is None:
            raise
    print(f"mipview: error: {' '.join(message.split())}", file=sys.stderr)
    return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
