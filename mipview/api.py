"""mipview for scripts and notebooks, apart from the app: open an image, run strategies on it,
time them; each returns what ``mipview run`` and ``mipview bench`` print (levels, verdicts,
timings) as data; :func:`encode` judges a run's chains block-compressed (``run --encode``).
The window and the command line use the same staged Run (mipview.runs.staged).

    import mipview
    image = mipview.open_image("resources/photo_npot_1000x750.png")
    done = mipview.run(image, strategies="per-level,single-pass")
    print(done.table())

docs/api.md has a longer example (a test runs it). A cube map (a cube KTX2 or DDS, one face of
six face images, ``mipview.io.synthetic.cube_image``) runs as ``mipview run`` runs it: its faces
as array layers, each result with its seam figures (docs/cube-maps.md). A volume (a 3D KTX2 or
DDS, a ``*.volume.npy``, ``mipview.io.synthetic.volume_image``) runs through :func:`run_volume`
(docs/volumes.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mipview.check.seams import SeamFigures
from mipview.check.verdict import ReferenceCache, Verdict
from mipview.check.volume_verdict import VolumeVerdict
from mipview.core.errors import MipviewError
from mipview.core.results import GpuTiming, RunResult, TimingSettings
from mipview.gpu.volume_session import VolumeResult
from mipview.io.imageio import SourceImage
from mipview.runs import report, staged
from mipview.runs.cube import CubeSeams
from mipview.runs.prepare import ImageLike, format_of, level0_of, prepare

if TYPE_CHECKING:
    from mipview.gpu.vulkan.context import GpuContext
    from mipview.runs.encode import EncodedChain


@dataclass(frozen=True)
class StrategyOutcome:
    """One strategy's levels (storage values, level 0 first), verdict and timing."""

    spec: str
    levels: tuple[np.ndarray, ...]
    #: None when not checked (``check=False``)
    verdict: Verdict | None
    #: None when not timed (:func:`run`)
    timing: GpuTiming | None
    #: a cube map's seam figures per level (mipview.check.seams.pyramid_seams); None for other
    #: images
    seams: tuple[SeamFigures, ...] | None = None

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
    #: a cube map's seam figures: every result's, each exact reference's (``references``, by
    #: reduction; none when not checked), and each result's convention; None for other images
    cube: CubeSeams | None = None

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
    it: one face of six face images (``sky_px.png`` with ``sky_nx.png``... beside it) opens the
    cube map of all six; raises :class:`mipview.MipviewError` saying why it cannot."""
    from mipview.io import cube_faces

    return cube_faces.open_image(path)


def run(image: ImageLike, strategies: str = "all", format: str | None = None,
        check: bool = True, device: str | None = None) -> Outcome:
    """Every strategy of ``strategies`` (the CLI's ``--strategies``) once on ``image``: its
    levels and its verdict, as ``mipview run`` writes and prints them. ``image``: a file, a
    SourceImage, or float32 or uint8 (H, W, 4) pixels. ``format``: unorm, srgb,
    f16 or f32 (default: what the image suggests); ``device``: an index or a name substring."""
    return _staged(image, strategies, format,
                   lambda ctx: staged.RunOptions(judge=check, maps=False), device)


def encode(done: Outcome, codecs: str,
           perceptual: bool = True) -> dict[str, dict[str, EncodedChain]]:
    """Each result of ``done`` (a :func:`run` or :func:`bench`) block-compressed in each codec
    of ``codecs`` (``mipview run --encode``'s text: ``"bc7:quality=4,astc-6x6"``), decoded back
    and judged per level: filter, codec and total error (docs/compression.md). By strategy,
    then by codec label; each chain's blocks write out with
    ``mipview.runs.encode.export``. Raises :class:`mipview.MipviewError` for a codec that
    cannot take the image, or whose encoder is not installed (the ``encode`` extra).
    ``perceptual``: each level's FLIP and SSIM too (the ``perceptual`` extra), the costliest
    part by far at large sizes (about 97 s for a 4096x4096 chain on 2 cores); the filter pair
    is made once per result whatever the number of codecs."""
    from mipview.check.perceptual import FilterPairs
    from mipview.runs import encode as encoding

    choices = encoding.parse_codecs(codecs)
    results = done.result.results
    why = encoding.refusal(choices, done.result.fmt, results)
    if why:
        raise MipviewError(why)
    if not results:
        return {}
    level0 = results[0].levels[0]  # every result starts from the uploaded level 0
    refs, filters = ReferenceCache(), FilterPairs()
    return {str(r.spec): {c.label: encoding.encode_result(r, level0, done.result.fmt, c, refs,
                                                          perceived=perceptual,
                                                          filters=filters)
                          for c in choices} for r in results}


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
    from mipview.gpu.vulkan.context import GpuContext

    run = prepare(image, format, strategies)  # as the command line: edge=cube on a cube only
    with GpuContext(device=device) as ctx:
        opts = options(ctx)
        done = run.run_whole(ctx, opts)
    verdicts = done.verdicts
    cube = run.seams(done.mip, judged=opts.judge)
    return Outcome(done.mip, {
        # the one generating run carries a timestamp too, but only a bench is timed
        str(r.spec): StrategyOutcome(str(r.spec), tuple(r.levels), verdicts.get(str(r.spec)),
                                     r.timing if opts.timing is not None else None,
                                     None if cube is None else cube.results[str(r.spec)])
        for r in done.mip.results}, cube)


@dataclass(frozen=True)
class VolumeOutcome:
    """What :func:`run_volume` produced: each result (levels ``(d, h, w, 4)``, plan, timing) and
    its verdict by name (``volume-tiles``, ``volume-tiles:reduction=min``), in the order asked."""

    results: Mapping[str, VolumeResult]
    verdicts: Mapping[str, VolumeVerdict]
    #: strategies that could not run on this device, with the reason
    skipped: Mapping[str, str]

    @property
    def ok(self) -> bool:
        """Every checked result within its bound, as ``mipview run``'s exit code 0 says."""
        return all(v.within_tolerance for v in self.verdicts.values())


def run_volume(volume: SourceImage | str | os.PathLike[str], strategies: str = "all", format: str | None = None,
               check: bool = True, repeat: int = 0, cold: bool = False,
               device: str | None = None) -> VolumeOutcome:
    """The volume strategies of ``strategies`` (``volume-per-level``, ``volume-tiles``, each
    with ``:reduction=min|max|minmax``, volume-tiles also with ``:load=trilinear``; ``all``:
    both, the mean) once on ``volume``, judged
    against the 3D reference (``check``), and with ``repeat`` > 0 timed as ``mipview bench``
    times them (``cold``: caches emptied before each run)."""
    from mipview.gpu.vulkan.context import GpuContext
    from mipview.io import imageio
    from mipview.runs.volume import parse_volume_specs, result_name, run_volume_specs

    source = volume if isinstance(volume, SourceImage) else imageio.load(volume, volumes=True)
    if not source.volume:
        raise MipviewError(f"{source.description}: not a volume; a 2D image runs through run()")
    fmt = format_of(source, format)
    specs = parse_volume_specs(strategies)
    level0 = level0_of(source, fmt)
    with GpuContext(device=device) as ctx:
        settings = TimingSettings.for_device(ctx.caps.device_type, repeat=repeat, cold=cold) \
            if repeat > 0 else None
        done = run_volume_specs(ctx, level0, fmt, specs, settings, check)
    return VolumeOutcome({result_name(r): r for r in done.results}, done.verdicts,
                         dict(done.skipped))
