"""What the volume strategies share: a strategy makes levels 1.. of a
:class:`~mipview.gpu.vulkan.volume_image.VolumeImage` from its level 0 (docs/volumes.md).

The interface of the 2D :class:`~mipview.gpu.strategies.base.Strategy`, cut to what a volume
needs: ``prepare`` builds the dispatch plan once (:attr:`steps`), ``record`` records exactly that
plan (:func:`~mipview.gpu.vulkan.dispatch.record_steps`), ``level_sources`` says per level how it
was made (the rounding bounds of :mod:`mipview.check.bounds`), ``release`` frees the per-volume
state. Volume strategies are named apart from the 2D ones (``volume_strategy``), so ``all`` and
every 2D sweep keep meaning 2D.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from mipview.core import reductions
from mipview.core.formats import Format
from mipview.core.results import DispatchStep, LevelSource, Promise
from mipview.core.volume import volume_mip_count
from mipview.gpu.strategies.base import compute_reason
from mipview.gpu.vulkan.context import DeviceCaps, GpuContext
from mipview.gpu.vulkan.dispatch import record_steps
from mipview.gpu.vulkan.pipelines import ComputePipeline, DescriptorSets
from mipview.gpu.vulkan.timing import Marks
from mipview.gpu.vulkan.volume_image import VolumeImage


class VolumeStrategy(ABC):
    name: ClassVar[str]
    title: ClassVar[str]
    promise: ClassVar[Promise] = "stored"
    #: how the first level of a dispatch may read the stored one (``load=``), the default first
    LOADS: ClassVar[tuple[str, ...]] = ("texel",)

    def __init__(self, ctx: GpuContext, reduction: str = "mean", load: str = "texel") -> None:
        if reduction not in reductions.CODES:
            raise ValueError(f"unknown reduction {reduction!r} (known: "
                             f"{', '.join(reductions.NAMES)})")
        if load not in self.LOADS:
            raise ValueError(f"{self.name} takes load={'|'.join(self.LOADS)}, not {load!r}")
        self.ctx = ctx
        self.reduction = reduction
        self.load = load
        self.steps: tuple[DispatchStep, ...] = ()
        self.pipelines: list[ComputePipeline] = []
        self.sets: DescriptorSets | None = None

    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, reduction: str = "mean",
                           load: str = "texel") -> str | None:
        if fmt.depth_source:
            return f"{fmt.label} is a depth image's format; depth images are 2D"
        return (reductions.format_reason(reduction, fmt) or reductions.load_reason(reduction, load)
                or compute_reason(caps, fmt))

    @abstractmethod
    def prepare(self, image: VolumeImage) -> None:
        """Build :attr:`steps`, :attr:`pipelines` and the sets for ``image``."""

    def descriptor_sets(self) -> Sequence[Any]:
        """The sets :attr:`steps` index (DispatchStep.descriptor_set)."""
        assert self.sets is not None, "prepare first"
        return self.sets.sets

    def record(self, cmd: Any, image: VolumeImage, marks: Marks) -> None:
        record_steps(cmd, self.steps, self.pipelines, self.descriptor_sets(), marks)

    def level_sources(self, width: int, height: int, depth: int) -> list[LevelSource]:
        """How levels 1 .. n-1 are made: by default each from the stored level below, its sums
        along three axes."""
        return [LevelSource(axes=3)] * (volume_mip_count(width, height, depth) - 1)

    def release(self) -> None:
        if self.sets is not None:
            self.sets.destroy()
            self.sets = None
        self.steps = ()
        self.pipelines = []
