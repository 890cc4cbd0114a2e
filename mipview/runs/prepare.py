"""What a Run starts from, made one way for the API, the command line and the window: the image
(a file, an array or a :class:`SourceImage`), its format, its strategy specs (text, expanded once,
or specs already made), ``edge=cube`` refused on an image that is no cube map, and level 0 as the
Run uploads it, read-only, beside the reference cache that knows it.

A :class:`PreparedRun` then runs (:meth:`PreparedRun.run`, :func:`mipview.runs.staged.run`) as
often as asked, and gives a cube map's seam figures (:meth:`PreparedRun.seams`): the one way into
:mod:`mipview.runs.cube` after the Run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from mipview.check.verdict import ReferenceCache
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.reductions import DEPTH_NAMES, EXTREMES
from mipview.core.specs import StrategySpec
from mipview.io.imageio import SourceImage, depth_source
from mipview.runs import cube, staged

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from mipview.core.results import RunResult
    from mipview.gpu.vulkan.context import GpuContext

#: what a Run can be given as its image: a SourceImage, float32 or uint8 (H, W, 4) or
#: (L, H, W, 4) pixels, or a file (one face of six: the cube map of all six)
ImageLike = SourceImage | np.ndarray | str | os.PathLike[str]
#: makes level 0 of a source in a format with a number of layers (:func:`level0_of`)
Storage = Callable[[SourceImage, Format, int], np.ndarray]


def open_source(image: ImageLike) -> SourceImage:
    """``image`` as a SourceImage: a file opened as ``mipview run`` opens it; pixels that are no
    image (shape, type) raise a MipviewError saying why."""
    if isinstance(image, SourceImage):
        return image
    if isinstance(image, np.ndarray):
        try:
            return SourceImage(image)
        except ValueError as exc:
            raise MipviewError(str(exc)) from None
    from mipview.io import cube_faces

    return cube_faces.open_image(image)


def format_of(source: SourceImage, fmt: Format | str | None) -> Format:
    """``fmt`` (a Format, or its label: an unknown one raises ValueError as Format.parse does),
    or the one the image suggests."""
    if isinstance(fmt, Format):
        return fmt
    return Format.parse(fmt) if fmt else source.suggested_format()


def level0_of(source: SourceImage, fmt: Format, layers: int = 1) -> np.ndarray:
    """The storage array to upload, read-only (the verdict's reference cache knows it by
    identity); ``layers`` > 1 makes that many different layers from the image."""
    out = source.storage(fmt)  # 8-bit sources: their bytes as they are (read-only)
    if layers > 1:  # --layers N: N different layers made from the image
        from mipview.io.layers import make_layers

        out = make_layers(out, layers)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class PreparedRun:
    """An image ready to run: everything :func:`mipview.runs.staged.run` takes but the device,
    what the Run does (RunOptions) and who listens."""

    source: SourceImage
    fmt: Format
    specs: tuple[StrategySpec, ...]
    #: level 0 as uploaded, read-only; ``refs`` knows it by identity
    level0: np.ndarray
    #: the exact references of ``level0``, kept across every Run of this image
    refs: ReferenceCache = field(default_factory=ReferenceCache)

    @property
    def is_cube(self) -> bool:
        return self.source.is_cube

    def run(self, ctx: GpuContext, options: staged.RunOptions,
            listener: staged.RunListener | None = None, should_stop: staged.Stop | None = None,
            pool: Executor | None = None) -> staged.RunOutcome | None:
        """The one Run (:func:`mipview.runs.staged.run`) of this image; None when stopped."""
        return staged.run(ctx, self.level0, self.fmt, self.specs, options, self.refs,
                          listener or staged.RunListener(), should_stop, pool, self.source)

    def run_whole(self, ctx: GpuContext, options: staged.RunOptions,
                  listener: staged.RunListener | None = None,
                  pool: Executor | None = None) -> staged.RunOutcome:
        """:meth:`run` with nothing to stop it but Ctrl+C (the API, the command line)."""
        done = self.run(ctx, options, listener, None, pool)
        assert done is not None  # only should_stop stops a Run
        return done

    def seams(self, mip: RunResult, judged: bool) -> cube.CubeSeams | None:
        """A cube map Run's seam figures (every result's, and when ``judged`` every exact
        reference's, which the Run's verdicts left in ``refs``); None for other images."""
        if not self.is_cube:
            return None
        return cube.run_seams(mip, self.level0, self.refs if judged else None)


def prepare(image: ImageLike, fmt: Format | str | None = None,
            strategies: str | Sequence[StrategySpec] = "all", *, layers: int = 1,
            refuse_edge_cube: bool = True,
            refs: ReferenceCache | None = None,
            storage: Storage | None = None) -> PreparedRun:
    """``image`` ready to run ``strategies`` in ``fmt`` (default: what the image suggests):
    opened, its specs expanded, level 0 made (by ``storage``, :func:`level0_of` when None)
    with ``layers`` layers, and ``refs`` (a new cache when None) beside it.

    A seamless spec (``edge=cube``) on an image that is no cube map is a MipviewError before
    any GPU work: a 2D image or array, even one of 6 square layers, has no faces to read
    across. ``refuse_edge_cube=False`` leaves it to the Run instead, which lists it as skipped
    beside the strategies that run (the window)."""
    source = open_source(image)
    chosen = format_of(source, fmt)
    if isinstance(strategies, str):  # expanded once, here: the registry says what is wrong
        from mipview.gpu.strategies.specs import expand_specs

        specs = tuple(expand_specs(strategies))
    else:
        specs = tuple(strategies)
    # an EXR of colour and depth (Z) gives its Z to a depth run
    source = depth_source(source, chosen, any(
        spec.option_dict.get("reduction") in (*EXTREMES, *DEPTH_NAMES) for spec in specs))
    if refuse_edge_cube and not source.is_cube:  # a cube map serves every spec
        for spec in specs:
            why = cube.cube_spec_reason(spec, is_cube=False)
            if why:
                raise MipviewError(f"{spec}: {why}")
    level0 = (storage or level0_of)(source, chosen, layers)
    return PreparedRun(source, chosen, specs, level0, ReferenceCache() if refs is None else refs)
