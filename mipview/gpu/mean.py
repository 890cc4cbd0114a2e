"""The exact mean (and log-mean) of an image of any size on the GPU (mipview/gpu/mean.comp).

A blit pyramid's 1x1 level is not the image mean on NPOT sizes, and it jumps when a window grows
by one pixel (auto-exposure flicker). This reduces level 0 directly: passes of 4S x 4S blocks per
S x S work group (S = 8 or 16, a specialization constant) until one value per layer is left;
texels outside the image are never loaded. Methods (``method``):

* ``weighted`` (default): every partial mean carries the number of texels it covers and merges
  by weight, i.e. the seed's correction factor applied at every merge instead of once at the end.
  Equal in exact arithmetic; a constant image gives exactly its constant.
* ``padded``: the seed's literal scheme: outside texels are zeros, every block a plain average,
  and the final value times npo(w) * npo(h) / (w * h), npo(x) = (4S)^passes.

Kinds: ``mean`` averages every channel in decoded space (linear light for sRGB; the shader
decodes sRGB itself, exactly as numpy does, through a UNORM view); ``log-mean`` is
exp(mean(log(Y + LOG_EPS))), Y the Rec.709 luminance of the linear colour (the geometric mean used
for auto-exposure). Results match numpy's float64 to float32 rounding (tests/test_mean.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mipview.core.errors import MipviewError
from mipview.core.formats import REC709_LUMA, Format, decode, encode, texels
from mipview.core.results import DispatchStep, TimingSettings, TimingStats
from mipview.gpu.shaders.shipped import MEAN
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.dispatch import record_steps
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import Buffer, MipImage
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.timing import Marks, TimedWork, time_interleaved
from mipview.gpu.vulkan.vkapi import flag

KINDS = ("mean", "log-mean")
METHODS = ("weighted", "padded")
BLOCKS = (8, 16)
LOG_EPS = 1e-4  # = MEAN_LOG_EPS of mean.comp (passed as its specialization constant)


class MeanError(MipviewError):
    pass


def _check_args(kind: str, block: int, method: str) -> None:
    if kind not in KINDS:
        raise MeanError(f"unknown mean kind {kind!r}; choose one of {', '.join(KINDS)}")
    if block not in BLOCKS:
        raise MeanError(f"block must be 8 or 16, got {block}")
    if method not in METHODS:
        raise MeanError(f"unknown mean method {method!r}; choose one of {', '.join(METHODS)}")


# --- numpy reference ------------------------------------------------------------------------------
def mean_reference(level0: np.ndarray, fmt: Format, kind: str = "mean") -> np.ndarray:
    """float64 reference: ``mean`` is :func:`mipview.check.reference.exact_mean` (storage units, (4,)
    or (L, 4)); ``log-mean`` is the geometric mean luminance, linear, shape () or (L,)."""
    a = texels(level0)
    # NaN or +Inf with -Inf in a float image make a NaN mean, as IEEE arithmetic says: no
    # warning about it (the command says so once, in its words)
    with np.errstate(invalid="ignore", over="ignore"):
        if kind == "mean":
            return encode(decode(a, fmt).mean(axis=(-3, -2)), fmt)
        lum = np.maximum(decode(a, fmt)[..., :3] @ REC709_LUMA, 0.0)
        return np.exp(np.log(lum + LOG_EPS).mean(axis=(-2, -1)))


# --- the reduction --------------------------------------------------------------------------------
@dataclass(frozen=True)
class MeanPass:
    grid: tuple[int, int]     # input elements
    span: int                 # level-0 texels per input element, per axis
    groups: tuple[int, int]   # = output elements


def plan_passes(width: int, height: int, block: int) -> list[MeanPass]:
    """Passes until one element is left (at least one pass: it reads the image)."""
    reach = 4 * block
    passes: list[MeanPass] = []
    gw, gh, span = width, height, 1
    while True:
        groups = (-(-gw // reach), -(-gh // reach))
        passes.append(MeanPass((gw, gh), span, groups))
        if groups == (1, 1):
            return passes
        gw, gh, span = groups[0], groups[1], span * reach


class MeanReducer:
    """Mean of level 0 of ``image``: ``record`` the passes (any number of times), ``read`` the
    result after the submit. Barriers: the caller orders earlier writes of level 0 before
    ``record``; passes are ordered among themselves here."""

    def __init__(self, ctx: GpuContext, image: MipImage, kind: str = "mean", block: int = 8,
                 method: str = "weighted") -> None:
        _check_args(kind, block, method)
        self.ctx, self.image, self.kind, self.block, self.method = ctx, image, kind, block, method
        self.passes = plan_passes(image.width, image.height, block)
        n_pass = len(self.passes)
        npo = (4 * block) ** n_pass
        self.scale = npo * npo / (image.width * image.height) if method == "padded" else 1.0
        first = self.passes[0].groups
        elems = max(1, first[0] * first[1]) * image.layers
        usage = flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
        self.buffers = [Buffer(ctx, 16 * elems, usage), Buffer(ctx, 16 * elems, usage, True)]
        srgb = image.fmt.is_srgb
        self.pipeline = get_pipeline(
            ctx, MEAN, ("sampled", "storage_buffer", "storage_buffer"),
            constants={"MEAN_S": block, "local_size_y_id": block, "MEAN_LOG": kind == "log-mean",
                       "MEAN_DECODE_SRGB": srgb, "MEAN_PADDED": method == "padded",
                       "MEAN_LOG_EPS": float(LOG_EPS)})
        # sRGB: the shader decodes the stored bytes itself
        src_view = (image.encoded_views if srgb else image.sampled_views)[0]
        sampler = get_sampler(ctx)
        self.sets = DescriptorSets(self.pipeline, n_pass)
        # pass i writes buffers[(n - i) % 2], so the last pass lands in the host-visible one
        self._dst = [(n_pass - i) % 2 for i in range(n_pass)]
        for i in range(n_pass):
            dst = self.buffers[self._dst[i]]
            src = self.buffers[1 - self._dst[i]]
            self.sets.write(i, [(src_view, sampler),
                                (src.handle, 0, src.size), (dst.handle, 0, dst.size)])
        last = n_pass - 1
        self.steps = tuple(
            DispatchStep(f"pass {i}", (), pipeline=0, descriptor_set=i,
                         push=MEAN.pack(gridSize=p.grid, imageSize=(image.width, image.height),
                                        span=p.span, firstPass=int(i == 0),
                                        lastPass=int(i == last),
                                        scale=self.scale if i == last else 1.0),
                         groups=(*p.groups, image.layers))
            for i, p in enumerate(self.passes))

    def record(self, cmd: Any, marks: Marks | None = None) -> None:
        record_steps(cmd, self.steps, [self.pipeline], self.sets.sets, marks or Marks(None))

    def read(self) -> np.ndarray:
        """The shader's value per layer, (L, 4) float64 (linear; log-mean in every channel)."""
        raw = self.buffers[1].read(16 * self.image.layers)
        return raw.view(np.float32).reshape(self.image.layers, 4).astype(np.float64)

    def release(self) -> None:
        self.sets.destroy()
        for b in self.buffers:
            b.destroy()


def _result(values: np.ndarray, fmt: Format, kind: str, layered: bool) -> np.ndarray:
    out = encode(values, fmt) if kind == "mean" else values[:, 0]
    return out if layered else out[0]


def _upload(ctx: GpuContext, level0: np.ndarray, fmt: Format) -> tuple[MipImage, bool]:
    a = texels(level0)
    layered = a.ndim == 4
    a4 = a if layered else a[None]
    image = MipImage(ctx, fmt, a4.shape[2], a4.shape[1], a4.shape[0], levels=1)
    try:
        image.upload(a4)
    except Exception:
        image.destroy()
        raise
    return image, layered


def gpu_mean(ctx: GpuContext, level0: np.ndarray, fmt: Format, kind: str = "mean",
             block: int = 8, method: str = "weighted") -> np.ndarray:
    """The mean on the GPU, shaped like :func:`mean_reference`: ``mean`` in storage units
    ((4,) or (L, 4)), ``log-mean`` the linear geometric-mean luminance (() or (L,))."""
    _check_args(kind, block, method)
    image, layered = _upload(ctx, level0, fmt)
    try:
        reducer = MeanReducer(ctx, image, kind, block, method)
        try:
            with ctx.one_shot() as cmd:
                reducer.record(cmd)
                memory_barrier(cmd, "COMPUTE_SHADER", "SHADER_WRITE", "HOST", "HOST_READ")
            return _result(reducer.read(), fmt, kind, layered)
        finally:
            reducer.release()
    finally:
        image.destroy()


def time_mean(ctx: GpuContext, level0: np.ndarray, fmt: Format, kind: str = "mean",
              block: int = 8, method: str = "weighted", repeat: int = 50,
              warmup_ms: float = 200.0, runs_per_batch: int = 10) -> TimingStats:
    """GPU time of the whole reduction (all passes), ``repeat`` runs after ``warmup_ms`` of
    untimed runs; runs are batched in one command buffer as the runner does (no CPU gaps)."""
    _check_args(kind, block, method)
    image, _ = _upload(ctx, level0, fmt)
    reducer = MeanReducer(ctx, image, kind, block, method)
    work = TimedWork(ctx, lambda cmd, marks: reducer.record(cmd, marks),
                     stamps_per_run=len(reducer.passes) + 2)
    try:
        time_interleaved([work], TimingSettings(repeat, warmup_ms, runs_per_batch))
        return TimingStats(tuple(total for total, _ in work.runs))
    finally:
        work.destroy()
        reducer.release()
        image.destroy()
