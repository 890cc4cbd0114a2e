"""The GPU worker: one :class:`~mipview.ui.workers.jobs.JobWorker` living in one QThread that owns the
:class:`GpuContext`.

Every Vulkan call of the app happens in this worker's slots, which run in that thread's event
loop, one request at a time. Requests (open, run, batch, sweep) arrive at ``work`` by one queued
signal and run the way :mod:`mipview.ui.workers.jobs` runs every job; every result leaves by the
one ``sigReply``, a frozen dataclass of :mod:`mipview.ui.messages` that the window routes by its
type (``MainWindow._routes``).

Replies (besides sigProgress, sigJobFinished and sigError of JobWorker)
-------
DeviceList     devices found at start-up, and the one in use
DeviceReady    after a device switch
OpenedImage    an image was loaded
A run (mipview.runs.staged: the same steps without Qt) replies, in this order:
LevelsReady        levels read back
TimingPhase        timing begins, with its warm-up
LiveStats          timing statistics (throttled; ``final`` once timing is done)
ReferenceReady     the exact reference per level
StrategyAnalysed   each strategy's verdict and heatmaps, as each is ready
RunAnalysed        all of them (the run's analysis is done)
A volume's run (mipview.runs.volume) replies VolumeRan (chains, verdicts, reference, error
maps), then LiveStats once, final, when it was timed.
Live profiling analyses before it times, and then streams LiveStats until stopped.
BatchOutput        a batch run's result (Batch tab)
SweepProgress, SweepOutput   a width sweep (Sweep tab)
DeviceRunOutput    a strategy run again on a device of its own (Heatmaps tab, "device N")
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np
from PySide6.QtCore import Slot

from mipview.check.verdict import ReferenceCache
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import (
    ClockSample,
    ClockState,
    GpuTiming,
    RunResult,
    TimingSettings,
    TimingStats,
)
from mipview.core.specs import StrategySpec
from mipview.gpu.measure.clocks import clock_reader
from mipview.gpu.vulkan.context import GpuContext, list_devices
from mipview.io import cube_faces, imageio
from mipview.runs import against, analysis, staged
from mipview.runs.prepare import level0_of, prepare
from mipview.runs.staged import RunListener
from mipview.ui.messages import (
    BatchOutput,
    BatchRequest,
    DeviceList,
    DeviceReady,
    DeviceRunOutput,
    DeviceRunRequest,
    LevelsReady,
    LiveStats,
    OpenedImage,
    OpenRequest,
    ReferenceReady,
    RunAnalysed,
    RunRequest,
    StrategyAnalysed,
    SweepOutput,
    SweepProgress,
    SweepRequest,
    TimingPhase,
    VolumeRan,
)
from mipview.ui.workers.gpu_timeout import resets_device, timeout_error
from mipview.ui.workers.jobs import JobWorker, Stop, lower_priority

#: at most this many statistics updates per second (the chart redraws on each)
STATS_HZ = staged.UPDATE_HZ
#: live profiling keeps statistics over this many most recent runs per strategy
LIVE_WINDOW = 256
#: a live batch aims at this much wall time, so updates keep flowing on slow devices
LIVE_BATCH_S = 0.04
#: live profiling shows the clock samples of about this many recent batches
LIVE_CLOCK_SAMPLES = 32


class _Rolling:
    """The most recent runs of one strategy: totals and per-mark durations, one window each,
    so a statistics update copies them and rebuilds nothing per run."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.totals: deque[float] = deque(maxlen=size)
        self.parts: list[deque[float]] = []
        self.labels: tuple[str, ...] = ()

    def add(self, timing: GpuTiming) -> None:
        labels = tuple(label for label, _ in timing.marks)
        if labels != self.labels:  # a strategy's marks never change; this is the first batch
            self.labels = labels
            self.parts = [deque(maxlen=self.size) for _ in labels]
        self.totals.extend(timing.total.samples_us)
        for part, (_, stats) in zip(self.parts, timing.marks, strict=True):
            part.extend(stats.samples_us)

    def timing(self) -> GpuTiming:
        marks = tuple((label, TimingStats(tuple(part)))
                      for label, part in zip(self.labels, self.parts, strict=True))
        return GpuTiming(TimingStats(tuple(self.totals)), marks)


class GpuWorker(JobWorker):
    def __init__(self, device: str | None = None, validate: bool | None = None) -> None:
        super().__init__()
        self._wanted_device = device
        self._validate = validate
        self.ctx: GpuContext | None = None
        self._messages: list[str] = []
        #: (source, format, layers) -> level 0 storage of the last image (converting 4096^2
        #: takes time)
        self._level0: tuple[object, Format, int, np.ndarray] | None = None
        #: the exact references of the current image, kept across runs
        self.refs = ReferenceCache()
        self._pool: ThreadPoolExecutor | None = None
        self.handle(OpenRequest, "Cannot open image", self._open_image)
        self.handle(RunRequest, "GPU run failed", self._run)
        # stopped, these show what they did so far: they poll stop() between images or widths
        self.handle(BatchRequest, "Batch run failed", self._run_batch, checkpoints=False)
        self.handle(SweepRequest, "Sweep failed", self._run_sweep, checkpoints=False)
        self.handle(DeviceRunRequest, "Cannot compare with another device", self._run_on_device)

    # --- slots: run in the worker thread -------------------------------------------------
    @Slot()
    def start(self) -> None:
        try:
            devices = tuple(list_devices())
            self._open_context(self._wanted_device)
            self.sigReply.emit(DeviceList(devices, self.ctx.caps if self.ctx else None))
        except Exception as exc:  # noqa: BLE001 - every failure becomes a dialog
            self.sigReply.emit(DeviceList((), None))
            self._fail(-1, "No Vulkan device", exc)

    @Slot(str)
    def set_device(self, wanted: str) -> None:
        try:
            self._open_context(wanted)
            self.sigReply.emit(DeviceReady(self.ctx.caps if self.ctx else None))
        except Exception as exc:  # noqa: BLE001
            self.sigReply.emit(DeviceReady(None))
            self._fail(-1, "Cannot open device", exc)

    # --- internals -------------------------------------------------------------------------
    def _failed(self, req: Any, title: str, exc: Exception) -> None:
        """A GPU wait timed out: the context is of no use any more, so a new one is opened
        before the user reads what happened; the next job runs on it."""
        if not resets_device(exc) or self.ctx is None:
            super()._failed(req, title, exc)
            return
        timeout_s, index = self.ctx.timeout_s, str(self.ctx.caps.index)
        try:
            self._open_context(index)  # gives the hung context up (GpuContext.close)
            self.sigReply.emit(DeviceReady(self.ctx.caps if self.ctx else None))
        except Exception as again:  # noqa: BLE001
            self.sigReply.emit(DeviceReady(None))
            self._fail(req.job, "Cannot open device", again)
        self.sigError.emit(timeout_error(req, timeout_s, exc))

    def _release(self) -> None:
        # the analysis threads first (a stopped Run's analyses end at their next checkpoint):
        # the teardown goes in the reverse order of the setup, nothing of a Run outlives its device
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        self._close_context()  # in the thread that made it

    def _analysis_pool(self) -> ThreadPoolExecutor:
        """Threads for analyses (analysis.pool_size: one core is left to the UI thread)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(analysis.pool_size(), "mipview-analysis")
        return self._pool

    def _open_context(self, wanted: str | None) -> None:
        self._close_context()
        with _niced():
            self.ctx = GpuContext(device=wanted or None, validate=self._validate)
        # a CPU device's first run compiles for a while: the status bar says so, not "running"
        emit = self.sigProgress.emit
        self.ctx.compile_ahead.report = lambda progress: emit(progress.message())
        # what a first Run would otherwise load in the middle of its timing, as its first
        # results reach the window: the clock's reader (NVML) and numpy.ma, which np.percentile
        # imports on first use. An import holds the interpreter lock while it compiles a module
        # with no cached bytecode: 290 and 320 ms of a first Run on the H100 machine, the UI
        # thread blocked 80-100 ms of it (py-spy --gil; docs/bench/window-stalls)
        import numpy.ma  # noqa: F401
        clock_reader(self.ctx)

    def _close_context(self) -> None:
        if self.ctx is not None:
            ctx, self.ctx = self.ctx, None
            ctx.close()
            self._messages.extend(ctx.messages)

    def _device(self) -> GpuContext:
        if self.ctx is None:
            raise RuntimeError("no Vulkan device is open")
        return self.ctx

    def _storage(self, source: imageio.SourceImage, fmt: Format, layers: int = 1) -> np.ndarray:
        """Level 0 in ``fmt``; ``layers`` > 1 builds that many layers from (layer 0 of) it."""
        cached = self._level0
        if cached is not None and cached[0] is source and cached[1] is fmt \
                and cached[2] == layers:
            return cached[3]
        level0 = level0_of(source, fmt, layers)
        self._level0 = (source, fmt, layers, level0)
        return level0

    def _take_messages(self, mip: RunResult | None = None) -> tuple[str, ...]:
        out = list(self._messages)
        self._messages.clear()
        if mip is not None:
            out += list(mip.validation_messages)
        return tuple(out)

    def _open_image(self, req: OpenRequest, stop: Stop) -> None:
        self.sigProgress.emit(f"loading {req.path}")
        # one face of six: their cube map; a volume is shown a slice at a time
        source = cube_faces.open_image(req.path, volumes=True)
        fmt = req.fmt or source.suggested_format()
        level0 = self._storage(source, fmt)  # read-only, and the next run's level 0
        _ = source.nonfinite  # counted here, not on the UI thread that tells the user
        self.sigReply.emit(OpenedImage(req.job, req.path, source, level0, fmt))

    def _run(self, req: RunRequest, stop: Stop) -> None:
        from mipview.gpu.session import Session
        from mipview.gpu.vulkan.resources import check_image_limits

        ctx = self._device()
        source = req.source
        if source.volume:
            self._run_volume(req, stop)
            return
        check_image_limits(ctx.caps, source.width, source.height, req.layers)
        self.sigProgress.emit(f"uploading {source.width}x{source.height} {req.fmt.label}")
        # level 0 and the references kept across Runs of the image; a seamless spec on a 2D
        # image is a skipped row beside the strategies that run, not a dialog
        run = prepare(source, req.fmt, req.specs, layers=req.layers, refuse_edge_cube=False,
                      refs=self.refs, storage=self._storage)
        # the settings `mipview bench` times with on this device
        settings = TimingSettings.for_device(ctx.caps.device_type, repeat=req.repeat,
                                             cold=req.cold)
        emit = _Emitter(self, req, ctx.caps.name, run.level0, ctx.caps.driver, settings.cache)
        pool = self._analysis_pool()
        if not req.live:
            options = staged.RunOptions(timing=settings if req.repeat > 0 else None)
            out = run.run(ctx, options, emit, stop, pool)
            if out is not None:
                self.sigReply.emit(RunAnalysed(req.job, req.fmt, out.reference, out.errors))
            return
        # live profiling: the same prepared Run, generated and analysed, then timed until stopped
        with Session(ctx, run.level0, run.fmt, list(run.specs)) as session:
            mip = staged.generate(session, emit, run.source)
            got = None if stop() else staged.analyse(mip, run.level0, run.refs, emit, pool,
                                                     stop)
            if got is None:
                return
            self.sigReply.emit(RunAnalysed(req.job, req.fmt, *got))
            if session.prepared:
                self._profile_live(req, session, settings, emit, stop)

    def _run_volume(self, req: RunRequest, stop: Stop) -> None:
        """Every volume strategy with the reductions asked for (``volume.window_specs``), timed
        as a 2D run is unless Repeat is 0; live profiling runs it once."""
        from mipview.runs import volume

        ctx = self._device()
        source = req.source
        size = (source.width, source.height, source.depth)
        refused = volume.size_refusal(ctx.caps, size)
        if refused:
            raise MipviewError(refused)
        refused = volume.format_refusal(req.fmt)
        if refused:
            raise MipviewError(f"format {req.fmt.label}: {refused}")
        level0 = self._storage(source, req.fmt)
        specs = volume.window_specs(req.specs)
        settings = TimingSettings.for_device(ctx.caps.device_type, repeat=req.repeat,
                                             cold=req.cold) if req.repeat > 0 else None
        what = f"volume {'x'.join(map(str, size))} {req.fmt.label}"
        self.sigProgress.emit(f"{what}: {len(specs)} chains" + (
            f", {req.repeat} timed runs each" if settings else ""))
        t0 = time.perf_counter()
        done = volume.run_volume_specs(ctx, level0, req.fmt, specs, settings)
        if stop():
            return
        self.sigProgress.emit(f"{what}: the reference and the error maps")
        shown = volume.shown_levels(done, level0, req.fmt)
        self._messages.extend(done.messages)
        self.sigReply.emit(VolumeRan(req.job, req.fmt, done, shown))
        timings = tuple((StrategySpec.parse(volume.result_name(r)), r.timing)
                        for r in done.results if r.timing is not None)
        if timings:
            emit = _Emitter(self, req, ctx.caps.name, level0, ctx.caps.driver,
                            settings.cache if settings else "warm")
            self.sigReply.emit(emit.final_stats(timings, time.perf_counter() - t0))

    def _run_on_device(self, req: DeviceRunRequest, stop: Stop) -> None:
        """On a context of its own, opened and closed in this thread: the window's context and
        the device it runs on are left as they are (against.run_on_device)."""
        if stop():  # a Run sent since stops it before a context is opened for nothing
            return
        got = against.run_on_device(req.device, req.level0, req.fmt, req.strategy,
                                    self._validate)
        self.sigReply.emit(DeviceRunOutput(req.job, req.device, req.strategy, req.level0, got))

    def _run_batch(self, req: BatchRequest, stop: Stop) -> None:
        from mipview.gpu.batch import BatchSession
        from mipview.io.synthetic import synthetic_batch, synthetic_sizes

        ctx = self._device()
        if req.paths:
            sources = []
            for i, path in enumerate(req.paths):
                self.sigProgress.emit(f"loading {i + 1}/{len(req.paths)}: {path}")
                sources.append(imageio.load(path))
                if stop():
                    return
            fmt = req.fmt or sources[0].suggested_format()
            # a batch is 2D images: a layered file contributes its first layer
            level0 = [st[0] if st.ndim == 4 else st for st in (s.storage(fmt) for s in sources)]
            names = [s.name for s in sources]
        else:
            fmt = req.fmt or Format.UNORM
            sizes = synthetic_sizes(req.synthetic, req.seed, req.max_side)
            level0 = synthetic_batch(sizes, fmt, req.seed)
            names = [f"#{i} {w}x{h}" for i, (w, h) in enumerate(sizes)]
        self.sigProgress.emit(f"batch of {len(level0)} images: generating")
        with BatchSession(ctx, level0, fmt, req.ways, names) as session:
            session.generate()
            if req.repeat > 0 and not stop():
                settings = TimingSettings.for_device(ctx.caps.device_type, repeat=req.repeat)
                self.sigProgress.emit("batch: " + staged.phase_text(
                    settings, f"timing {req.repeat} runs per way"))
                session.time_with(settings, should_stop=stop)
            result = session.result()
        self._messages.extend(result.validation_messages)
        result = replace(result, validation_messages=self._take_messages())
        self.sigReply.emit(BatchOutput(req.job, result))

    def _run_sweep(self, req: SweepRequest, stop: Stop) -> None:
        from mipview.runs.sweep import sweep_curves

        ctx = self._device()
        widths = range(req.first, req.last + 1)

        def progress(done: int, total: int) -> None:
            self.sigReply.emit(SweepProgress(req.job, done, total))
            self.sigProgress.emit(f"sweep: width {widths[done - 1]} ({done}/{total})")

        self.sigProgress.emit(f"sweep: {len(widths)} widths x {req.height} {req.fmt.label}")
        result = sweep_curves(ctx, widths, req.height, req.fmt, req.specs, kind=req.kind,
                              should_stop=stop, progress=progress)
        self._messages.extend(result.validation_messages)
        result = replace(result, validation_messages=self._take_messages())
        self.sigReply.emit(SweepOutput(req.job, result))

    def _profile_live(self, req: RunRequest, session, settings: TimingSettings,
                      emit: _Emitter, stop: Stop) -> None:
        """Time batch after batch until stopped, statistics over the last LIVE_WINDOW runs. The
        first batch carries the device's warm-up: no figures before the clock is up."""
        windows = {p.spec: _Rolling(LIVE_WINDOW) for p in session.prepared}
        clock: deque[ClockSample] = deque(maxlen=LIVE_CLOCK_SAMPLES)
        emit.warming_up(settings)
        self.sigProgress.emit(staged.phase_text(settings, "profiling (live)"))
        # the warm-up submits batches of this size too: a few runs per submit keep the GPU busy
        warmup_ms, total_runs = settings.warmup_ms, 0
        batch = 8 if warmup_ms else 1
        t0: float | None = None
        last_emit = 0.0
        state: ClockState | None = None
        while not stop():
            start = time.perf_counter()
            # powers of two only: the runner caches one command buffer per batch size
            if not session.time_with(replace(settings, repeat=batch, runs_per_batch=batch,
                                             warmup_ms=warmup_ms), stop):
                break
            now = time.perf_counter()
            mip = session.result()
            self._messages.extend(mip.validation_messages)
            for r in mip.results:
                if r.timing is not None:
                    windows[r.spec].add(r.timing)
            if mip.clock is not None:
                clock.extend(mip.clock.samples)
                state = ClockState(mip.clock.source, tuple(clock), mip.clock.max_sm_mhz)
            total_runs += batch
            if t0 is None:  # the first batch ends the warm-up: figures start here
                t0, warmup_ms = now, 0.0
            elif now - start < LIVE_BATCH_S / 2 and batch < 64:
                batch *= 2
            elif now - start > LIVE_BATCH_S * 2 and batch > 1:
                batch //= 2
            if now - last_emit >= 1.0 / STATS_HZ:
                last_emit = now
                self.sigReply.emit(emit.stats(windows, total_runs, now - t0, state))
        if t0 is not None:
            self.sigReply.emit(emit.stats(windows, total_runs, time.perf_counter() - t0,
                                          state, final=True))


class _Emitter(RunListener):
    """A run's steps (mipview.runs.staged) as the worker's replies, for one request."""

    def __init__(self, worker: GpuWorker, req: RunRequest, device: str,
                 level0: np.ndarray, driver: str = "", cache: str = "warm") -> None:
        self.w = worker
        self.req = req
        self.device = device
        self.driver = driver
        self.cache = cache
        self.level0 = level0
        self.shaders = staged.shader_digests(req.specs)
        self.t0 = time.perf_counter()

    def progress(self, text: str) -> None:
        self.w.sigProgress.emit(text)

    def levels(self, mip: RunResult, notes: tuple[str, ...] = ()) -> None:
        mip = _with_messages(mip, self.w._take_messages(mip))
        self.w.sigReply.emit(LevelsReady(self.req.job, mip, self.level0,
                                         self.req.source.name, notes))

    def warming_up(self, settings: TimingSettings) -> None:
        self.t0 = time.perf_counter()
        self.w.sigReply.emit(TimingPhase(self.req.job, self.device, settings.warmup_ms,
                                         self.req.live))

    def timing_update(self, mip: RunResult) -> None:
        self.w.sigReply.emit(self._run_stats(mip, final=False))

    def timings(self, mip: RunResult) -> None:
        self.w.sigReply.emit(self._run_stats(mip, final=True))

    def reference(self, levels: tuple[np.ndarray, ...]) -> None:
        self.w.sigReply.emit(ReferenceReady(self.req.job, self.req.fmt, levels))

    def analysed(self, done: int, total: int, errors: analysis.StrategyAnalysis) -> None:
        self.w.sigReply.emit(StrategyAnalysed(self.req.job, self.req.fmt, done, total,
                                              errors))

    def _run_stats(self, mip: RunResult, final: bool) -> LiveStats:
        self.w._messages.extend(mip.validation_messages)
        timings = tuple((r.spec, r.timing) for r in mip.results if r.timing is not None)
        return self._stats(timings, _runs(timings), time.perf_counter() - self.t0, mip.clock,
                           final)

    def final_stats(self, timings: tuple[tuple[StrategySpec, GpuTiming], ...],
                    elapsed: float) -> LiveStats:
        """The last statistics of timings made outside a RunResult (a volume's Run)."""
        return self._stats(timings, _runs(timings), elapsed, None, final=True)

    def stats(self, windows: dict[StrategySpec, _Rolling], runs: int, elapsed: float,
              clock: ClockState | None, final: bool = False) -> LiveStats:
        """Live profiling's statistics over each strategy's recent runs."""
        timings = tuple((spec, w.timing()) for spec, w in windows.items() if w.totals)
        return self._stats(timings, runs, elapsed, clock, final)

    def _stats(self, timings: tuple[tuple[StrategySpec, GpuTiming], ...], runs: int,
               elapsed: float, clock: ClockState | None, final: bool) -> LiveStats:
        msgs = self.w._take_messages() if final else ()
        return LiveStats(self.req.job, self.device, timings, runs, elapsed, final, msgs,
                         clock=clock, shaders=self.shaders, driver=self.driver,
                         cache=self.cache)


def _runs(timings: tuple[tuple[StrategySpec, GpuTiming], ...]) -> int:
    """Runs every strategy of ``timings`` has (the fewest)."""
    return min((len(t.total.samples_us) for _, t in timings), default=0)


@contextlib.contextmanager
def _niced(step: int = 5) -> Iterator[None]:
    """Lower this thread's priority while the context is created. A CPU device (lavapipe)
    starts its worker threads then, from this thread, and they inherit the value: on a machine
    with few cores they then cannot starve the UI thread. GPU times come from timestamps, so
    they are unaffected; this thread's own (Python) work runs at normal priority again."""
    old = lower_priority(step)
    try:
        yield
    finally:
        if old is not None:
            with contextlib.suppress(OSError):  # lowering nice again needs CAP_SYS_NICE
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), old)


def _with_messages(mip: RunResult, messages: tuple[str, ...]) -> RunResult:
    from dataclasses import replace

    return replace(mip, validation_messages=messages)
