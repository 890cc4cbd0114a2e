"""Run volume strategies on one volume: upload, generate, time, read back (:mod:`session` for
volumes, docs/volumes.md).

Each strategy gets its own :class:`~mipview.gpu.vulkan.volume_image.VolumeImage` (level 0
uploaded, levels 1.. the sentinel), recorded and timed the way 2D strategies are
(:class:`~mipview.gpu.vulkan.timing.TimedWork`: many runs per command buffer, interleaved after
one warm-up, the same cache eviction).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mipview.core.cancel import checkpoint
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import DispatchStep, GpuTiming, LevelSource, Promise, TimingSettings
from mipview.core.volume import volume_dims
from mipview.gpu.measure.evict import CacheEvictor
from mipview.gpu.session import PreparedSession
from mipview.gpu.strategies.volume_base import VolumeStrategy
from mipview.gpu.strategies.volume_per_level import VolumePerLevel
from mipview.gpu.strategies.volume_tiles import VolumeTiles
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.timing import TimedWork, time_interleaved
from mipview.gpu.vulkan.volume_image import VolumeImage

#: the volume strategies by name
VOLUME_STRATEGIES: dict[str, type[VolumeStrategy]] = {
    cls.name: cls for cls in (VolumePerLevel, VolumeTiles)}


def volume_strategy(name: str) -> type[VolumeStrategy]:
    """The volume strategy called ``name``; a MipviewError that lists them otherwise."""
    if name not in VOLUME_STRATEGIES:
        raise MipviewError(f"unknown volume strategy {name!r} (volume strategies: "
                           f"{', '.join(VOLUME_STRATEGIES)})")
    return VOLUME_STRATEGIES[name]


@dataclass(frozen=True)
class VolumeResult:
    """One strategy's chain of a volume: levels ``(d, h, w, 4)`` as read back, level 0 first."""

    strategy: str
    reduction: str
    promise: Promise
    levels: tuple[np.ndarray, ...]
    plan: tuple[DispatchStep, ...]
    sources: tuple[LevelSource, ...]
    timing: GpuTiming | None = None
    #: how the first level of a dispatch read the stored one (VolumeStrategy.LOADS)
    load: str = "texel"


@dataclass(frozen=True)
class VolumeRun:
    fmt: Format
    width: int
    height: int
    depth: int
    device: str
    results: tuple[VolumeResult, ...]
    #: (strategy, why it did not run)
    skipped: tuple[tuple[str, str], ...] = ()
    validation_messages: tuple[str, ...] = field(default=())


@dataclass
class _Prepared:
    strategy: VolumeStrategy
    image: VolumeImage
    work: TimedWork
    levels: list[np.ndarray] | None = None


class VolumeSession(PreparedSession):
    """Volume strategies prepared on one volume ``level0`` ``(D, H, W, 4)`` of storage values;
    ``generate`` then optionally ``time_with``."""

    def __init__(self, ctx: GpuContext, level0: np.ndarray, fmt: Format, names: list[str],
                 reduction: str = "mean", load: str = "texel") -> None:
        self.ctx = ctx
        self.fmt = fmt
        self.reduction = reduction
        self.load = load
        self.level0 = np.ascontiguousarray(np.asarray(level0, dtype=fmt.dtype))
        self.width, self.height, self.depth = volume_dims(self.level0)
        self.prepared: list[_Prepared] = []
        self.skipped: list[tuple[str, str]] = []
        self.evictor: CacheEvictor | None = None
        try:
            for name in names:
                checkpoint()
                self._prepare(volume_strategy(name))
        except Exception:
            self.close()
            raise

    def _prepare(self, cls: type[VolumeStrategy]) -> None:
        reason = cls.unsupported_reason(self.ctx.caps, self.fmt, self.reduction, self.load)
        if reason:
            self.skipped.append((cls.name, reason))
            return
        image = VolumeImage(self.ctx, self.fmt, self.width, self.height, self.depth)
        try:
            image.upload(self.level0)
            strategy = cls(self.ctx, self.reduction, self.load)
            strategy.prepare(image)
        except Exception:
            image.destroy()
            raise
        work = TimedWork(self.ctx, lambda cmd, marks: strategy.record(cmd, image, marks))
        self.prepared.append(_Prepared(strategy, image, work))

    def generate(self) -> None:
        """One run of every strategy, then read back every level."""
        for p in self.prepared:
            checkpoint()
            p.work.submit(1, keep=True)
            p.levels = p.image.read_levels()

    def time_with(self, settings: TimingSettings) -> bool:
        """Time every strategy as ``settings`` say (one warm-up, interleaved, the cache eviction
        of ``settings``)."""
        if settings.cold and self.evictor is None:
            self.evictor = CacheEvictor(self.ctx, settings.evict)
            for p in self.prepared:
                p.work.set_before_each(self.evictor.record)
        return time_interleaved([p.work for p in self.prepared], settings)

    def result(self) -> VolumeRun:
        results = tuple(VolumeResult(
            p.strategy.name, self.reduction, p.strategy.promise, tuple(p.levels or ()),
            p.strategy.steps, tuple(p.strategy.level_sources(self.width, self.height,
                                                             self.depth)),
            p.work.timing(), self.load) for p in self.prepared)
        return VolumeRun(self.fmt, self.width, self.height, self.depth, self.ctx.caps.summary(),
                         results, tuple(self.skipped), tuple(self.ctx.take_messages()))

    def __enter__(self) -> VolumeSession:
        return self


def run_volume(ctx: GpuContext, level0: np.ndarray, fmt: Format, names: list[str],
               reduction: str = "mean", load: str = "texel") -> VolumeRun:
    """Generate once with each strategy and return the levels."""
    with VolumeSession(ctx, level0, fmt, names, reduction, load) as session:
        session.generate()
        return session.result()
