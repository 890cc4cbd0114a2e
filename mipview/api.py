"""mipview for scripts and notebooks, apart from the app: open an image, run strategies on it,
time them; each returns what ``mipview run`` and ``mipview bench`` print (levels, verdicts,
timings) as data. The window and the command line use the same staged Run (mipview.runs.staged).

    import mipview
    image = mipview.open_image("resources/photo_npot_1000x750.png")
    done = mipview.run(image, strategies="per-level,single-pass")
    print(done.table())

docs/api.md has a longer example (a test runs it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mipview.check.verdict import ReferenceCache, Verdict
from mipview.core.formats import Format
from mipview.core.results import GpuTiming, RunResult, TimingSettings
from mipview.io import imageio
from mipview.io.imageio import SourceImage
from mipview.runs import report, staged

if TYPE_CHECKING:
    from mipview.gpu.vulkan.context import GpuContext

ImageLike = SourceImage | str | os.PathLike[str]


@dataclass(frozen=True)
class StrategyOutcome:
    """One strategy's levels (storage values, level 0 first), verdict and timing."""

    spec: str
    levels: tuple[np.ndarray, ...]
    #: None when not checked (``check=False``)
    verdict: Verdict | None
    #: None when not timed (:func:`run`)
    timing: GpuTiming | None

    @property
    def ok(self) -> bool:
        """Within what the strategy promises (True when not checked)."""
        return self.verdict is None or self.verdict.within_tolerance

    @property
    def median_us(self) -> float | None:
        """The median GPU time of a whole chain, microseconds (None when not timed)."""
        return None if self.timing is None else self.timing.total.median


@dataclass(frozen=True)
class Outcome:
    """What a run or a bench produced, strategy by strategy in the order asked."""

    result: RunResult
    strategies: Mapping[str, StrategyOutcome]

    @property
    def ok(self) -> bool:
        """Every checked strategy within its promise, as ``mipview run``'s exit code 0 says."""
        return all(s.ok for s in self.strategies.values())

    @property
    def skipped(self) -> dict[str, str]:
        """Strategies that could not run on this device, with the reason."""
        return {str(spec): why for spec, why in self.result.skipped}

    def table(self) -> str:
        """The table ``mipview bench`` prints: timings, then step and chain errors."""
        verdicts = {k: s.verdict for k, s in self.strategies.items() if s.verdict is not None}
        return report.bench_table(self.result, verdicts or None)


def open_image(path: str | os.PathLike[str]) -> SourceImage:
    """An image or texture file (PNG, JPEG, TIFF, EXR, KTX2, DDS, ...) as ``mipview run`` opens
    it; raises :class:`mipview.MipviewError` saying why it cannot."""
    return imageio.load(path)


def run(image: ImageLike, strategies: str = "all", format: str | None = None,
        check: bool = True, device: str | None = None) -> Outcome:
    """Every strategy of ``strategies`` (the CLI's ``--strategies``) once on ``image``: its
    levels and its verdict, as ``mipview run`` writes and prints them. ``format``: unorm, srgb,
    f16 or f32 (default: what the image suggests); ``device``: an index or a name substring."""
    return _staged(image, strategies, format,
                   lambda ctx: staged.RunOptions(judge=check, maps=False), device)


def bench(image: ImageLike, strategies: str = "all", format: str | None = None,
          repeat: int = 100, cold: bool = False, check: bool = True,
          device: str | None = None) -> Outcome:
    """:func:`run`, then each strategy timed as ``mipview bench`` times it (a warm-up, then
    ``repeat`` runs, strategies interleaved; ``cold``: caches emptied before each run)."""
    def options(ctx: GpuContext) -> staged.RunOptions:
        settings = TimingSettings.for_device(ctx.caps.device_type, repeat=repeat, cold=cold)
        return staged.RunOptions(settings, judge=check, maps=False)
    return _staged(image, strategies, format, options, device)


def _staged(image: ImageLike, strategies: str, format: str | None,
            options: Callable[[GpuContext], staged.RunOptions], device: str | None) -> Outcome:
    """The staged Run on a context of its own (timing settings depend on the device)."""
    from mipview.gpu.strategies.specs import expand_specs
    from mipview.gpu.vulkan.context import GpuContext

    source = image if isinstance(image, SourceImage) else open_image(image)
    fmt = Format.parse(format) if format else source.suggested_format()
    specs = expand_specs(strategies)
    level0 = source.storage(fmt)
    level0.setflags(write=False)
    with GpuContext(device=device) as ctx:
        opts = options(ctx)
        done = staged.run(ctx, level0, fmt, specs, opts, ReferenceCache(), staged.RunListener(),
                          source=source)
    assert done is not None  # nothing asks it to stop
    verdicts = done.verdicts
    return Outcome(done.mip, {
        # the one generating run carries a timestamp too, but only a bench is timed
        str(r.spec): StrategyOutcome(str(r.spec), tuple(r.levels), verdicts.get(str(r.spec)),
                                     r.timing if opts.timing is not None else None)
        for r in done.mip.results})
