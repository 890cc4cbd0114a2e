"""Run strategies on one image: upload, generate, time, read back.

A :class:`Session` belongs to the thread that owns the context. Each strategy gets its own image
(uploaded once, levels 1.. filled with a sentinel), so results never leak between strategies.
Timed runs are recorded many to a command buffer, with timestamps around each, so the GPU stays
fed and no CPU gap drops its clock between samples (mipview/gpu/measure/clocks.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mipview.core.cancel import checkpoint
from mipview.core.formats import Format
from mipview.core.results import ClockState, RunResult, StrategyResult, TimingSettings
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from mipview.gpu.measure.clocks import ClockLog
from mipview.gpu.measure.evict import CacheEvictor
from mipview.gpu.strategies.auto import Pick
from mipview.gpu.strategies.base import Strategy
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.resources import Buffer, MipImage
from mipview.gpu.vulkan.timing import TimedWork, time_interleaved

MAX_STAMPS_PER_RUN = 64


@dataclass
class _Prepared:
    spec: StrategySpec
    strategy: Strategy
    image: MipImage
    work: TimedWork
    #: what each table ``auto`` of the spec became here (mipview.gpu.strategies.auto)
    picks: tuple[Pick, ...] = ()
    levels: list[np.ndarray] | None = None


class PreparedSession:
    """What a session of 2D strategies and one of volume strategies (volume_session.py) share:
    strategies prepared each on an image of its own, each with the TimedWork that runs it, and
    the cache eviction they are timed with; :meth:`close` frees them all."""

    ctx: GpuContext
    prepared: list[Any]
    evictor: CacheEvictor | None

    def close(self) -> None:
        self.ctx.wait_idle()
        for p in self.prepared:
            p.work.destroy()
            p.strategy.release()
            p.image.destroy()
        self.prepared.clear()
        if self.evictor is not None:
            self.evictor.destroy()
            self.evictor = None

    def __enter__(self) -> PreparedSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Session(PreparedSession):
    """Strategies prepared on one source image; ``generate`` then optionally ``time_with``
    (whose settings pick the cache eviction: mipview/gpu/measure/evict.py)."""

    def __init__(self, ctx: GpuContext, level0: np.ndarray, fmt: Format,
                 specs: list[StrategySpec]) -> None:
        self.ctx = ctx
        self.fmt = fmt
        data = np.asarray(level0)
        if data.ndim == 3:
            data = data[None]
        if data.ndim != 4 or data.shape[-1] != 4:
            raise ValueError(f"level 0 must be (H, W, 4) or (L, H, W, 4), got {level0.shape}")
        self.layers, self.height, self.width = data.shape[:3]
        self.level0 = np.ascontiguousarray(data.astype(fmt.dtype, copy=False))
        self.prepared: list[_Prepared] = []
        self.skipped: list[tuple[StrategySpec, str]] = []
        #: level 0 as the images hold it, packed and copied once for every strategy's image
        self._staging: Buffer | None = None
        #: empties the caches before every timed run (None: warm); others may time with it too
        self.evictor: CacheEvictor | None = None
        #: the GPU clocks of the last timing (None: not timed, or not readable here)
        self.clock: ClockState | None = None
        try:
            for spec in specs:
                checkpoint()  # each upload of a large level 0 takes a while
                self._prepare(spec)
        except Exception:
            self.close()
            raise
        finally:
            if self._staging is not None:
                self._staging.destroy()
                self._staging = None

    def _prepare(self, spec: StrategySpec) -> None:
        cls, options, picks = strategies.configure(spec, self.ctx.caps, self.fmt, self.width,
                                                   self.height, self.layers)
        reason = cls.unsupported_reason(self.ctx.caps, self.fmt, self.width, self.height,
                                        self.layers, options)
        if reason:
            self.skipped.append((spec, reason))
            return
        image = MipImage(self.ctx, self.fmt, self.width, self.height, self.layers)
        try:
            if self._staging is None:
                self._staging = image.staging(self.level0)
            image.upload_from(self._staging)
            strategy = cls(self.ctx, options)
            strategy.prepare(image)
        except Exception:
            image.destroy()
            raise
        work = TimedWork(self.ctx, lambda cmd, marks: strategy.record(cmd, image, marks),
                         stamps_per_run=MAX_STAMPS_PER_RUN)
        prepared = _Prepared(spec, strategy, image, work, picks)
        work.set_before_each(self._before_each(prepared))
        self.prepared.append(prepared)

    def _before_each(self, p: _Prepared) -> Callable[[Any, int], None]:
        """The untimed set-up ahead of each run: the cache eviction if cold, then the
        strategy's own (Strategy.before_run)."""
        def before(cmd: Any, i: int) -> None:
            if self.evictor is not None:
                self.evictor.record(cmd, i)
            p.strategy.before_run(cmd, p.image)
        return before

    @property
    def specs(self) -> list[StrategySpec]:
        return [p.spec for p in self.prepared]

    @property
    def cold(self) -> str | None:
        """The cache eviction before every timed run ("clean" or "dirty"), None when warm."""
        return self.evictor.mode if self.evictor is not None else None

    def _evict(self, wanted: str | None) -> None:
        """Time with this cache eviction (None: warm) from now on; the strategies' recorded
        batches are dropped when it changes (they hold the old one)."""
        if wanted == self.cold:
            return
        if self.evictor is not None:
            self.ctx.wait_idle()
            self.evictor.destroy()
            self.evictor = None
        if wanted is not None:
            self.evictor = CacheEvictor(self.ctx, wanted)
        for p in self.prepared:
            p.work.set_before_each(self._before_each(p))  # drops the batches holding the old

    # --- public -----------------------------------------------------------------------------
    def generate(self) -> None:
        """One run of every strategy, then read back every level."""
        for p in self.prepared:
            checkpoint()  # a stopped job ends between strategies (mipview.core.cancel)
            p.work.submit(1, keep=True)
            p.levels = p.image.read_levels()

    def time_with(self, settings: TimingSettings,
                  should_stop: Callable[[], bool] | None = None,
                  on_batch: Callable[[], None] | None = None) -> bool:
        """Time every strategy as ``settings`` say (:func:`time_interleaved`; ``cold`` and
        ``evict`` pick the cache eviction). Returns False if stopped early."""
        return time_sessions([self], settings, should_stop, on_batch)

    def result(self, copy_bandwidth_gbps: float | None = None) -> RunResult:
        results = []
        for p in self.prepared:
            # the very steps the strategy recorded, not a second planning
            cls = type(p.strategy)
            results.append(StrategyResult(
                spec=p.spec, levels=tuple(p.levels or ()), plan=p.strategy.plan(),
                timing=p.work.timing(),
                notes=(*(pick.note() for pick in p.picks), *p.strategy.notes()),
                options_asked=tuple(sorted(cls.check_options(p.spec.option_dict).items())),
                options_used=tuple(sorted(p.strategy.opts.items())),
                reduction=cls.reduction(p.strategy.opts), own_reference=cls.own_reference,
                promise=cls.promise,
                sources=tuple(p.strategy.level_sources(self.width, self.height, self.layers))))
        return RunResult(
            fmt=self.fmt, width=self.width, height=self.height, layers=self.layers,
            device=self.ctx.caps.summary(), results=tuple(results), skipped=tuple(self.skipped),
            validation_messages=tuple(self.ctx.take_messages()),
            copy_bandwidth_gbps=copy_bandwidth_gbps, clock=self.clock)

    def __enter__(self) -> Session:
        return self


def time_sessions(sessions: list[Session], settings: TimingSettings,
                  should_stop: Callable[[], bool] | None = None,
                  on_batch: Callable[[], None] | None = None) -> bool:
    """Time every strategy of every session (e.g. one image size each) in one
    :func:`time_interleaved`: one warm-up, then all of them interleaved, so every size sees the
    same clock. The sessions share one context. Returns False if stopped early."""
    if not sessions:
        return True
    for session in sessions:
        session._evict(settings.evict if settings.cold else None)
    log = ClockLog(sessions[0].ctx)

    def after_round() -> None:
        # the clock after each timed round: the state the samples were taken in, there for
        # ``on_batch`` to show
        log.sample()
        for session in sessions:
            session.clock = log.state
        if on_batch is not None:
            on_batch()

    try:
        return time_interleaved([p.work for s in sessions for p in s.prepared], settings,
                                should_stop, after_round, log.warm)
    finally:
        for session in sessions:
            session.clock = log.state


def run_once(ctx: GpuContext, level0: np.ndarray, fmt: Format,
             specs: list[StrategySpec]) -> RunResult:
    """Generate once with each strategy and return the levels (one timed run each)."""
    with Session(ctx, level0, fmt, specs) as session:
        session.generate()
        return session.result()
