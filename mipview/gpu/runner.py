"""Run strategies on one image: upload, generate, time, read back.

A :class:`Session` belongs to the thread that owns the context. Each strategy gets its own image
(uploaded once, levels 1.. filled with a sentinel), so results never leak between strategies.
Timed runs are recorded many to a command buffer, with timestamps around each, so the GPU stays
fed and no CPU gap drops its clock between samples (../shared/gpu/README.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mipview import MipviewError
from mipview.formats import Format
from mipview.gpu import strategies
from mipview.gpu.context import GpuContext
from mipview.gpu.evict import CacheEvictor
from mipview.gpu.resources import MipImage
from mipview.gpu.strategies.base import Strategy
from mipview.gpu.timing import TimedBatch, timing_from_runs
from mipview.results import MipResult, StrategyResult, StrategySpec

MAX_STAMPS_PER_RUN = 64


@dataclass
class _Prepared:
    spec: StrategySpec
    strategy: Strategy
    image: MipImage
    runs: list[tuple[float, list[float]]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    levels: list[np.ndarray] | None = None
    batches: dict[int, TimedBatch] = field(default_factory=dict)


class Session:
    """Strategies prepared on one source image; ``generate`` then optionally ``time``."""

    def __init__(self, ctx: GpuContext, level0: np.ndarray, fmt: Format,
                 specs: list[StrategySpec], cold: bool | str = False) -> None:
        """``cold``: evict caches before every timed run, True or "clean" (a read leaves clean
        lines), or "dirty" (a fill leaves dirty ones; mipview/gpu/evict.py)."""
        self.ctx = ctx
        self.fmt = fmt
        self.cold = cold
        data = np.asarray(level0)
        if data.ndim == 3:
            data = data[None]
        if data.ndim != 4 or data.shape[-1] != 4:
            raise ValueError(f"level 0 must be (H, W, 4) or (L, H, W, 4), got {level0.shape}")
        self.layers, self.height, self.width = data.shape[:3]
        self.level0 = np.ascontiguousarray(data.astype(fmt.dtype, copy=False))
        self.prepared: list[_Prepared] = []
        self.skipped: list[tuple[StrategySpec, str]] = []
        #: empties the caches before every timed run (None: warm); others may time with it too
        self.evictor: CacheEvictor | None = None
        try:
            for spec in specs:
                self._prepare(spec)
            if cold:
                self.evictor = CacheEvictor(ctx, "clean" if cold is True else str(cold))
        except Exception:
            self.close()
            raise

    def _prepare(self, spec: StrategySpec) -> None:
        cls, options = strategies.resolve(spec)
        reason = cls.unsupported_reason(self.ctx.caps, self.fmt, self.width, self.height,
                                        self.layers, options)
        if reason:
            self.skipped.append((spec, reason))
            return
        image = MipImage(self.ctx, self.fmt, self.width, self.height, self.layers)
        try:
            image.upload(self.level0)
            strategy = cls(self.ctx, options)
            strategy.prepare(image)
        except Exception:
            image.destroy()
            raise
        self.prepared.append(_Prepared(spec, strategy, image))

    @property
    def specs(self) -> list[StrategySpec]:
        return [p.spec for p in self.prepared]

    # --- command buffers ------------------------------------------------------------------
    def _batch(self, p: _Prepared, runs: int) -> TimedBatch:
        """A command buffer of ``runs`` timed runs, recorded once and resubmitted."""
        if runs not in p.batches:
            p.batches[runs] = TimedBatch(
                self.ctx, runs, lambda cmd, marks: p.strategy.record(cmd, p.image, marks),
                before_each=self.evictor.record if self.evictor is not None else None,
                stamps_per_run=MAX_STAMPS_PER_RUN)
        return p.batches[runs]

    def _submit(self, p: _Prepared, runs: int, keep: bool) -> None:
        batch = self._batch(p, runs)
        samples = batch.submit(timed=keep)
        if keep:
            p.runs += samples
            p.labels = batch.labels

    # --- public -----------------------------------------------------------------------------
    def generate(self) -> None:
        """One run of every strategy, then read back every level."""
        for p in self.prepared:
            self._submit(p, 1, keep=True)
            p.levels = p.image.read_levels()

    def time(self, repeat: int, warmup_ms: float = 0.0, runs_per_batch: int = 10,
             should_stop: Callable[[], bool] | None = None,
             on_batch: Callable[[], None] | None = None) -> bool:
        """Warm up for ``warmup_ms`` of wall time, then ``repeat`` timed runs per strategy,
        interleaved batch by batch (A B C A B C ...) so clock drift hits all alike.
        Returns False if stopped early."""
        stop = should_stop or (lambda: False)
        batch = max(1, min(runs_per_batch, repeat))
        end = time.perf_counter() + warmup_ms / 1000.0
        while time.perf_counter() < end and self.prepared:
            for p in self.prepared:
                self._submit(p, batch, keep=False)
            if stop():
                return False
        for p in self.prepared:  # the generate() run is not a warm sample
            p.runs.clear()
        done = 0
        while done < repeat:
            n = min(batch, repeat - done)
            for p in self.prepared:
                self._submit(p, n, keep=True)
            done += n
            if on_batch is not None:
                on_batch()
            if stop():
                return False
        return True

    def clear_timings(self) -> None:
        for p in self.prepared:
            p.runs.clear()

    def result(self, copy_bandwidth_gbps: float | None = None) -> MipResult:
        results = []
        for p in self.prepared:
            timing = timing_from_runs(p.runs, p.labels) if p.runs else None
            cls = type(p.strategy)
            results.append(StrategyResult(
                spec=p.spec, levels=tuple(p.levels or ()),
                plan=tuple(p.strategy.plan(self.width, self.height)), timing=timing,
                notes=tuple(p.strategy.notes(self.width, self.height)),
                reduction=cls.reduction(p.strategy.opts), own_reference=cls.own_reference,
                promise=cls.promise,
                sources=tuple(p.strategy.level_sources(self.width, self.height, self.layers))))
        return MipResult(
            fmt=self.fmt, width=self.width, height=self.height, layers=self.layers,
            device=self.ctx.caps.summary(), results=tuple(results), skipped=tuple(self.skipped),
            validation_messages=tuple(self.ctx.take_messages()),
            copy_bandwidth_gbps=copy_bandwidth_gbps)

    def close(self) -> None:
        self.ctx.wait_idle()
        for p in self.prepared:
            for batch in p.batches.values():
                batch.destroy()
            p.batches.clear()
            p.strategy.release()
            p.image.destroy()
        self.prepared.clear()
        if self.evictor is not None:
            self.evictor.destroy()
            self.evictor = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_once(ctx: GpuContext, level0: np.ndarray, fmt: Format,
             specs: list[StrategySpec]) -> MipResult:
    """Generate once with each strategy and return the levels (one timed run each)."""
    with Session(ctx, level0, fmt, specs) as session:
        session.generate()
        return session.result()


def check_size(ctx: GpuContext, width: int, height: int) -> None:
    limit = ctx.caps.max_image_dimension_2d
    if width > limit or height > limit:
        raise MipviewError(f"image is {width}x{height}, larger than the device limit of "
                           f"{limit}x{limit} ({ctx.caps.name})")
