"""A Run of a volume (docs/volumes.md): the volume strategies asked for, each with its reduction,
generated (and timed) on one device, and judged against the 3D reference. What ``mipview run``
and ``bench`` of a volume (mipview/cli/volume.py) and :func:`mipview.api.run_volume` share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mipview.check.volume_verdict import VolumeVerdict, judge_volume
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import TimingSettings
from mipview.core.specs import StrategySpec
from mipview.gpu.volume_session import VOLUME_STRATEGIES, VolumeResult, VolumeSession
from mipview.gpu.vulkan.context import GpuContext

#: a volume strategy and its reduction
VolumeSpec = tuple[str, str]


def parse_volume_specs(text: str) -> list[VolumeSpec]:
    """``name[:reduction=...]``, comma-separated, or ``all`` (every volume strategy's mean);
    a MipviewError naming what is wrong otherwise."""
    if text == "all":
        return [(name, "mean") for name in VOLUME_STRATEGIES]
    out = []
    for part in text.split(","):
        try:
            spec = StrategySpec.parse(part.strip())
        except ValueError as exc:
            raise MipviewError(f"strategies: {exc}") from None
        if spec.name not in VOLUME_STRATEGIES:
            raise MipviewError(f"strategies: {spec.name!r} makes 2D pyramids; a volume is made "
                               f"by {', '.join(VOLUME_STRATEGIES)}")
        unknown = sorted(set(spec.option_dict) - {"reduction"})
        if unknown:
            raise MipviewError(f"strategies: {spec.name} takes reduction=... only, not "
                               f"{', '.join(unknown)}")
        out.append((spec.name, spec.option_dict.get("reduction", "mean")))
    return out


def result_name(res: VolumeResult) -> str:
    """How reports name a result: the strategy, with its reduction unless the mean."""
    return res.strategy if res.reduction == "mean" else f"{res.strategy}:reduction={res.reduction}"


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
    """One session per reduction asked for (a session makes one), generated and, with
    ``settings``, timed; then judged (``check``)."""
    results: dict[VolumeSpec, VolumeResult] = {}
    skipped: list[tuple[str, str]] = []
    messages: list[str] = []
    for reduction in dict.fromkeys(r for _, r in specs):
        names = [n for n, r in specs if r == reduction]
        with VolumeSession(ctx, level0, fmt, names, reduction) as session:
            session.generate()
            if settings is not None:
                session.time_with(settings)
            run = session.result()
        results.update({(r.strategy, reduction): r for r in run.results})
        skipped += [(n if reduction == "mean" else f"{n}:reduction={reduction}", why)
                    for n, why in run.skipped]
        messages += run.validation_messages
    ordered = tuple(results[k] for k in specs if k in results)
    verdicts = {result_name(r): judge_volume(r.levels, level0, fmt, r.reduction, r.sources)
                for r in ordered} if check else {}
    return VolumeDone(ordered, verdicts, tuple(skipped), tuple(messages))
