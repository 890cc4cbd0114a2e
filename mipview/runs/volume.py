"""A Run of a volume (docs/volumes.md): the volume strategies asked for, each with its reduction,
generated (and timed) on one device, and judged against the 3D reference. What ``mipview run``
and ``bench`` of a volume (mipview/cli/volume.py) and :func:`mipview.api.run_volume` share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mipview.check.compare import error_maps
from mipview.check.volume_reference import volume_pyramid
from mipview.check.volume_verdict import VolumeVerdict, judge_volume
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import TimingSettings
from mipview.core.specs import StrategySpec
from mipview.gpu.volume_session import VOLUME_STRATEGIES, VolumeResult, VolumeSession
from mipview.gpu.vulkan.context import DeviceCaps, GpuContext

#: a volume strategy, its reduction and its load (VolumeStrategy.LOADS)
VolumeSpec = tuple[str, str, str]


def parse_volume_specs(text: str) -> list[VolumeSpec]:
    """``name[:reduction=...][:load=...]``, comma-separated, or ``all`` (every volume
    strategy's mean); a MipviewError naming what is wrong otherwise."""
    if text == "all":
        return [(name, "mean", "texel") for name in VOLUME_STRATEGIES]
    out = []
    for part in text.split(","):
        try:
            spec = StrategySpec.parse(part.strip())
        except ValueError as exc:
            raise MipviewError(f"strategies: {exc}") from None
        if spec.name not in VOLUME_STRATEGIES:
            raise MipviewError(f"strategies: {spec.name!r} makes 2D pyramids; a volume is made "
                               f"by {', '.join(VOLUME_STRATEGIES)}")
        unknown = sorted(set(spec.option_dict) - {"reduction", "load"})
        if unknown:
            raise MipviewError(f"strategies: {spec.name} takes reduction=... and load=... only, "
                               f"not {', '.join(unknown)}")
        loads = VOLUME_STRATEGIES[spec.name].LOADS
        load = spec.option_dict.get("load", loads[0])
        if load not in loads:
            raise MipviewError(f"strategies: {spec.name} takes load={'|'.join(loads)}, not "
                               f"load={load}")
        out.append((spec.name, spec.option_dict.get("reduction", "mean"), load))
    return out


def spec_name(name: str, reduction: str, load: str) -> str:
    """How reports name a strategy run: with its reduction unless the mean, its load unless
    texel loads."""
    return name + ("" if reduction == "mean" else f":reduction={reduction}") \
        + ("" if load == "texel" else f":load={load}")


def result_name(res: VolumeResult) -> str:
    """:func:`spec_name` of a result."""
    return spec_name(res.strategy, res.reduction, res.load)


def result_slug(res: VolumeResult) -> str:
    """:func:`result_name` as a file or folder name (``volume-tiles_reduction-min``)."""
    return result_name(res).replace(":", "_").replace("=", "-")


#: the texture files that hold a volume's chain (3D textures; EXR holds none)
VOLUME_EXPORT_KINDS = ("ktx2", "dds")


@dataclass(frozen=True)
class VolumeDone:
    """The results in the order asked, their verdicts by :func:`result_name` (none when not
    checked), what could not run and why, and the validation messages."""

    results: tuple[VolumeResult, ...]
    verdicts: dict[str, VolumeVerdict]
    skipped: tuple[tuple[str, str], ...]
    messages: tuple[str, ...]


def run_volume_specs(ctx: GpuContext, level0: np.ndarray, fmt: Format,
                     specs: Sequence[VolumeSpec], settings: TimingSettings | None = None,
                     check: bool = True) -> VolumeDone:
    """One session per reduction and load asked for (a session makes one of each), generated
    and, with ``settings``, timed; then judged (``check``)."""
    results: dict[VolumeSpec, VolumeResult] = {}
    skipped: list[tuple[str, str]] = []
    messages: list[str] = []
    for reduction, load in dict.fromkeys((r, lo) for _, r, lo in specs):
        names = [n for n, r, lo in specs if (r, lo) == (reduction, load)]
        with VolumeSession(ctx, level0, fmt, names, reduction, load) as session:
            session.generate()
            if settings is not None:
                session.time_with(settings)
            run = session.result()
        results.update({(r.strategy, reduction, load): r for r in run.results})
        skipped += [(spec_name(n, reduction, load), why) for n, why in run.skipped]
        messages += run.validation_messages
    ordered = tuple(results[k] for k in specs if k in results)
    verdicts = {result_name(r): judge_volume(r.levels, level0, fmt, r.reduction, r.sources)
                for r in ordered} if check else {}
    return VolumeDone(ordered, verdicts, tuple(skipped), tuple(messages))


def size_refusal(caps: DeviceCaps, size: tuple[int, int, int]) -> str | None:
    """Why the device cannot hold a volume of ``size`` (w, h, d), in one line, or None."""
    limit = caps.max_image_dimension_3d
    if max(size) > limit:
        return (f"volume {'x'.join(map(str, size))} exceeds the device limit of {limit} per "
                f"side ({caps.name})")
    return None


def format_refusal(fmt: Format) -> str | None:
    """Why a volume cannot be made in ``fmt`` (a depth format), or None; the caller names
    where the format came from."""
    if fmt.depth_source:
        return f"a depth image is 2D; a volume of depths is {fmt.chain.label}"
    return None


def window_specs(specs: Sequence[StrategySpec]) -> list[VolumeSpec]:
    """What the window's Run makes of a volume: every volume strategy, with each reduction the
    strategies checked ask for (the mean when none asks)."""
    reductions = dict.fromkeys(s.option_dict.get("reduction", "mean") for s in specs)
    return [(name, r, "texel") for r in (reductions or {"mean": None})
            for name in VOLUME_STRATEGIES]


@dataclass(frozen=True)
class VolumeShown:
    """What the window shows of a volume's Run besides the chains: the exact mean reference
    per level (level 0 as uploaded, then float32 storage units, as the 2D viewer's), and each
    result's error per level against the reference of its own reduction, ``(D, H, W, 4)``
    float32 with the error in channel 0 (``compare.error_map``: LSB or relative) and its unit."""

    reference: tuple[np.ndarray, ...]
    errors: dict[str, tuple[np.ndarray, ...]]
    unit: str


def shown_levels(done: VolumeDone, level0: np.ndarray, fmt: Format) -> VolumeShown:
    """:class:`VolumeShown` of ``done`` (numpy work: the window's worker makes it)."""
    refs: dict[str, list[np.ndarray]] = {}

    def reference(reduction: str) -> list[np.ndarray]:
        if reduction not in refs:
            refs[reduction] = volume_pyramid(level0, fmt, reduction)  # type: ignore[arg-type]
        return refs[reduction]

    errors = {}
    for res in done.results:
        maps = error_maps(res.levels, reference(res.reduction), fmt)
        errors[result_name(res)] = tuple(_in_channel_0(m) for m in maps)
    mean = reference("mean")
    shown = tuple([level0] + [r.astype(np.float32) for r in mean[1:]])
    return VolumeShown(shown, errors, "relative" if fmt.is_float else "LSB")


def _in_channel_0(error: np.ndarray) -> np.ndarray:
    out = np.zeros((*error.shape, 4), np.float32)
    out[..., 0] = error
    out[..., 3] = 1.0
    return out
