"""``run`` and ``bench`` of a volume (docs/volumes.md): a 3D KTX2 or DDS, a
``*.volume.npy``, or ``--synthetic volume --size N`` (``WxHxD``). The volume strategies
(``volume-per-level``, ``volume-tiles``; ``--strategies`` names them, each with
``:reduction=min|max|minmax``, volume-tiles also with ``:load=trilinear``) make the chain on the
GPU, and the verdict holds every level to the 3D reference, texel by texel
(mipview/check/volume_verdict.py)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from mipview.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    closed_messages,
    export_kinds,
    image_format,
    open_context,
    source_label,
)
from mipview.core.formats import Format
from mipview.io.imageio import SourceImage
from mipview.runs.prepare import level0_of
from mipview.runs.volume import (
    format_refusal,
    parse_volume_specs,
    result_name,
    result_slug,
    run_volume_specs,
    size_refusal,
)

#: ``--synthetic`` of a volume (mipview.io.synthetic.volume_image)
VOLUME_KIND = "volume"


def requested(args: argparse.Namespace) -> bool:
    """Whether ``run`` or ``bench`` was given a volume: ``--synthetic volume``, or an IMAGE whose
    header says it is one (read before anything is decoded)."""
    if getattr(args, "synthetic", None) == VOLUME_KIND:
        return True
    path = getattr(args, "image", None)
    if not path or getattr(args, "size", None):
        return False
    from mipview.io.containers import decode

    try:
        with open(path, "rb") as f:
            head = f.read(decode.HEAD_BYTES)
    except OSError:
        return False  # the 2D path says why in one line
    return decode.claims(path, head) and decode.is_volume(path, head)


def parse_volume_size(text: str) -> tuple[int, int, int]:
    """``64`` -> (64, 64, 64); ``64x32x16`` -> (64, 32, 16)."""
    try:
        sides = [int(v) for v in text.lower().split("x")]
    except ValueError:
        sides = []
    if len(sides) == 1:
        sides *= 3
    if len(sides) != 3 or min(sides) < 1:
        raise UsageError(f"bad volume size {text!r} (want N or WxHxD, e.g. 256 or 64x32x16, "
                         "sides at least 1)")
    return sides[0], sides[1], sides[2]


#: host bytes per texel of level 0 a checked run holds at once, besides the strategies' levels:
#: the float source, the float64 reference chain and the texel errors of one level (about)
HOST_PER_TEXEL = 16 + 2 * 32 + 32


def check_volume(ctx: Any, size: tuple[int, int, int], fmt: Format, strategies: int,
                 check: bool) -> None:
    """Refuse, in one line and before any work, a volume the device or the memory cannot take:
    a side past the device's 3D limit, a depth format (depth images are 2D), or more host
    memory than there is (every strategy's chain read back, the reference, the errors)."""
    from mipview.cli.limits import LimitError, host_available

    w, h, d = size
    refused = size_refusal(ctx.caps, size)
    if refused:
        raise LimitError(refused)
    refused = format_refusal(fmt)
    if refused:
        raise UsageError(f"--format {fmt.label}: {refused}")
    texels = w * h * d
    need = texels * (16 + (HOST_PER_TEXEL if check else 0)) \
        + texels * 8 // 7 * 16 * strategies  # the chains read back, unpacked to four channels
    available = host_available()
    if available is not None and need > available:
        raise LimitError(f"volume {w}x{h}x{d} {fmt.label} needs about {need / 2**30:.1f} GiB "
                         f"of memory for {strategies} strategies, "
                         f"{available / 2**30:.1f} GiB available")


def load_volume(args: argparse.Namespace, ctx: Any,
                strategies: int) -> tuple[SourceImage, np.ndarray, Format]:
    """The volume, its level 0 as storage values ``(D, H, W, 4)`` (read-only) and its format,
    checked against the device and the memory (:func:`check_volume`): a synthetic one before it
    is made, a file once read (its reader bounds what it decodes)."""
    from mipview.io import imageio, synthetic

    if getattr(args, "layers", 1) > 1:
        raise UsageError(f"--layers {args.layers}: a volume has slices, not layers; leave it out")
    check = not args.no_check
    if getattr(args, "synthetic", None) == VOLUME_KIND:
        if not getattr(args, "size", None):
            raise UsageError("--synthetic volume makes the volume of --size N or WxHxD: give "
                             "--size too")
        size = parse_volume_size(args.size)
        # synthetic volumes are 8-bit sources (synthetic.volume_image): unorm unless --format
        check_volume(ctx, size, image_format(args, None, Format.UNORM), strategies, check)
        source = synthetic.volume_image(*size, seed=args.seed)
    else:
        source = imageio.load(args.image, volumes=True)
    fmt = image_format(args, source)
    check_volume(ctx, (source.width, source.height, source.depth), fmt, strategies, check)
    return source, level0_of(source, fmt), fmt


def _result_dict(res: Any, verdict: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "strategy": result_name(res), "name": res.strategy, "reduction": res.reduction,
        "promise": res.promise,
        "plan": [{"label": s.label, "levels": list(s.levels), "detail": s.detail}
                 for s in res.plan],
        "sizes": [list(lv.shape[2::-1]) for lv in res.levels]}
    if verdict is not None:
        out.update(within_tolerance=verdict.within_tolerance,
                   breaches=list(verdict.breaches),
                   step=[e.as_dict() for e in verdict.step],
                   chain=[e.as_dict() for e in verdict.chain],
                   step_bounds=list(verdict.step_bounds), chain_bounds=list(verdict.chain_bounds))
    if res.timing is not None:
        t = res.timing.total
        out["timing"] = {"n": len(t.samples_us), "median_us": t.median, "min_us": t.min,
                         "p95_us": t.p95, "samples_us": list(t.samples_us),
                         "dispatches": [{"label": label, "median_us": m.median}
                                        for label, m in res.timing.marks]}
    return out


def _line(res: Any, verdict: Any, fmt: Format) -> str:
    if verdict is None:
        return f"{result_name(res):<34} not checked (--no-check)"
    state = "ok" if verdict.within_tolerance else "OUT OF TOLERANCE: " + verdict.breaches[0]
    step = max((e.max_error for e in verdict.step), default=0.0)
    chain = max((e.max_error for e in verdict.chain), default=0.0)
    return f"{result_name(res):<34} step {step:.3g} chain {chain:.3g} {fmt.error_unit}  {state}"


def _exit(verdicts: dict, messages: list[str]) -> int:
    bad = any(not v.within_tolerance for v in verdicts.values())
    return EXIT_FAILED if bad or messages else EXIT_OK


def volume_export_kinds(text: str | None) -> tuple[str, ...]:
    """``--export`` of a volume: KTX2 and DDS hold 3D textures (``all`` is both), EXR does not,
    and says so before any work."""
    kinds = export_kinds(text)
    if text is not None and text.strip().lower() == "all":
        return tuple(k for k in kinds if k != "exr")
    if "exr" in kinds:
        raise UsageError(f"--export {text}: EXR holds no volumes (3D textures); export ktx2 "
                         "or dds")
    return kinds


def run_into(args: argparse.Namespace, folder: Path) -> int:
    """``mipview run`` of a volume into ``folder`` (empty): each strategy's levels as
    ``level_KK.volume.npy`` (storage values), its chain as ``--export`` texture files, and
    report.json; one line per strategy on stdout; the exit code of the verdicts."""
    from mipview.io import containers

    specs = parse_volume_specs(args.strategies)
    kinds = volume_export_kinds(args.export)
    with open_context(args) as ctx:
        source, level0, fmt = load_volume(args, ctx, len(specs))
        done = run_volume_specs(ctx, level0, fmt, specs, check=not args.no_check)
    results, verdicts, skipped = done.results, done.verdicts, done.skipped
    messages = list(closed_messages(ctx, done.messages))
    d, h, w = level0.shape[:3]
    data: dict[str, Any] = {"source": source_label(args), "volume": [w, h, d], "format": fmt.label,
                            "strategies": [], "skipped": [list(s) for s in skipped],
                            "validation_messages": messages}
    for res in results:
        entry = _result_dict(res, verdicts.get(result_name(res)))
        sub = folder / result_slug(res)
        sub.mkdir()
        files = []
        for k, level in enumerate(res.levels):
            path = sub / f"level_{k:02d}.volume.npy"
            np.save(path, level)
            files.append(path)
        if kinds:
            files += containers.export(sub, sub.name, res.levels, fmt, kinds, volume=True)
        entry["files"] = [f.relative_to(folder).as_posix() for f in files]
        data["strategies"].append(entry)
        print(_line(res, verdicts.get(result_name(res)), fmt))
    (folder / "report.json").write_text(json.dumps(data, indent=2))
    for name, why in skipped:
        print(f"{name:<34} skipped: {why}")
    return _exit(verdicts, messages)


def bench(args: argparse.Namespace) -> int:
    """``mipview bench`` of a volume: every strategy timed with GPU timestamps, interleaved
    after one warm-up, caches cold with ``--cold``; the verdicts of the first run."""
    from mipview.cli.output import JsonFile
    from mipview.core.results import TimingSettings

    if args.sizes is not None or args.batch or args.batch_synthetic is not None \
            or args.dirty or args.trace or args.baseline is not None:
        raise UsageError("a volume is timed with --repeat, --cold and --json; --sizes, "
                         "--batch, --dirty, --trace and --baseline take 2D images")
    specs = parse_volume_specs(args.strategies)
    target = JsonFile(args.json)
    with open_context(args) as ctx:
        source, level0, fmt = load_volume(args, ctx, len(specs))
        settings = TimingSettings.for_device(ctx.caps.device_type, repeat=args.repeat,
                                             warmup_ms=args.warmup_ms, cold=args.cold,
                                             evict=args.evict)
        device = ctx.caps.summary()
        done = run_volume_specs(ctx, level0, fmt, specs, settings, check=not args.no_check)
    results, verdicts, skipped = done.results, done.verdicts, done.skipped
    messages = list(closed_messages(ctx, done.messages))
    d, h, w = level0.shape[:3]
    cache = f"cold (L2 evicted before each run, {args.evict})" if args.cold else "warm"
    print(f"{device.name} | {device.driver}")
    print(f"volume {w}x{h}x{d} {fmt.label}, {args.repeat} runs after {settings.warmup_ms:g} ms "
          f"warm-up, caches {cache}")
    print(f"{'median us':<34} {'dispatches':>10}")
    for res in results:
        median = res.timing.total.median if res.timing is not None else float("nan")
        print(f"{result_name(res):<34} {median:10.1f} {len(res.plan):>10}")
    for res in results:
        print(_line(res, verdicts.get(result_name(res)), fmt))
    for name, why in skipped:
        print(f"{name:<34} skipped: {why}")
    if target.path is not None:
        target.write({
            "source": source_label(args), "volume": [w, h, d], "format": fmt.label,
            "device": asdict(device), "repeat": args.repeat,
            "warmup_ms": settings.warmup_ms, "cache": settings.cache,
            "results": [_result_dict(r, verdicts.get(result_name(r))) for r in results],
            "skipped": [list(s) for s in skipped], "validation_messages": messages})
        print(f"wrote {target.path}")
    return _exit(verdicts, messages)
