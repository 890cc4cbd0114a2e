"""The GPU worker: one :class:`~mipview.ui.jobs.JobWorker` living in one QThread that owns the
:class:`GpuContext`.

Every Vulkan call of the app happens in this worker's slots, which run in that thread's event
loop, one request at a time. Requests (open, run, batch, sweep) arrive at ``work`` by one queued
signal and run the way :mod:`mipview.ui.jobs` runs every job; results leave by signals carrying
the frozen dataclasses of :mod:`mipview.ui.messages`.

Signals (besides sigProgress, sigJobFinished and sigError of JobWorker)
-------
sigDevices(DeviceList)     devices found at start-up, and the one in use
sigDeviceReady(DeviceCaps) after a device switch
sigOpened(OpenedImage)     an image was loaded
sigRunOutput(RunOutput)    levels read back (first thing a run emits)
sigAnalysis(Analysis)      errors and heatmaps against the exact reference
sigStats(LiveStats)        timing statistics (throttled during a run; ``final`` at its end)
sigBatch(BatchOutput)      a batch run's result (Batch tab)
sigSweepProgress(SweepProgress), sigSweep(SweepOutput)  a width sweep (Sweep tab)
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
from PySide6.QtCore import Signal, Slot

from mipview import compare, imageio
from mipview.containers import with_file_chain
from mipview.formats import Format
from mipview.gpu.context import GpuContext, GpuTimeout, list_devices
from mipview.layers import make_layers
from mipview.results import GpuTiming, MipResult, StrategySpec, TimingStats
from mipview.ui.display import display_layers
from mipview.ui.gpu_timeout import timeout_error
from mipview.ui.jobs import JobWorker, Stop, lower_priority
from mipview.ui.messages import (
    Analysis,
    BatchOutput,
    BatchRequest,
    DeviceList,
    LiveStats,
    OpenedImage,
    OpenRequest,
    RunOutput,
    RunRequest,
    StrategyErrors,
    SweepOutput,
    SweepProgress,
    SweepRequest,
)
from mipview.verdict import ReferenceCache, judge_result

#: at most this many statistics updates per second (the chart redraws on each)
STATS_HZ = 10.0
#: live profiling keeps statistics over this many most recent runs per strategy
LIVE_WINDOW = 256
#: a live batch aims at this much wall time, so updates keep flowing on slow devices
LIVE_BATCH_S = 0.04


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
    sigDevices = Signal(object)
    sigDeviceReady = Signal(object)
    sigOpened = Signal(object)
    sigRunOutput = Signal(object)
    sigAnalysis = Signal(object)
    sigStats = Signal(object)
    sigBatch = Signal(object)
    sigSweepProgress = Signal(object)
    sigSweep = Signal(object)

    def __init__(self, device: str | None = None, validate: bool | None = None) -> None:
        super().__init__()
        self._wanted_device = device
        self._validate = validate
        self.ctx: GpuContext | None = None
        self._messages: list[str] = []
        #: (source, format, layers) -> level 0 storage of the last image (converting 4096^2
        #: takes time)
        self._level0: tuple[object, Format, int, np.ndarray] | None = None
        self.handle(OpenRequest, "Cannot open image", self._open_image)
        self.handle(RunRequest, "GPU run failed", self._run)
        self.handle(BatchRequest, "Batch run failed", self._run_batch)
        self.handle(SweepRequest, "Sweep failed", self._run_sweep)

    # --- slots: run in the worker thread -------------------------------------------------
    @Slot()
    def start(self) -> None:
        try:
            devices = tuple(list_devices())
            self._open_context(self._wanted_device)
            self.sigDevices.emit(DeviceList(devices, self.ctx.caps if self.ctx else None))
        except Exception as exc:  # noqa: BLE001 - every failure becomes a dialog
            self.sigDevices.emit(DeviceList((), None))
            self._fail(-1, "No Vulkan device", exc)

    @Slot(str)
    def set_device(self, wanted: str) -> None:
        try:
            self._open_context(wanted)
            self.sigDeviceReady.emit(self.ctx.caps if self.ctx else None)
        except Exception as exc:  # noqa: BLE001
            self.sigDeviceReady.emit(None)
            self._fail(-1, "Cannot open device", exc)

    # --- internals -------------------------------------------------------------------------
    def _failed(self, req: Any, title: str, exc: Exception) -> None:
        """A GPU wait timed out: the context is of no use any more, so a new one is opened
        before the user reads what happened; the next job runs on it."""
        if not isinstance(exc, GpuTimeout) or self.ctx is None:
            super()._failed(req, title, exc)
            return
        timeout_s, index = self.ctx.timeout_s, str(self.ctx.caps.index)
        try:
            self._open_context(index)  # gives the hung context up (GpuContext.close)
            self.sigDeviceReady.emit(self.ctx.caps if self.ctx else None)
        except Exception as again:  # noqa: BLE001
            self.sigDeviceReady.emit(None)
            self._fail(req.job, "Cannot open device", again)
        self.sigError.emit(timeout_error(req, timeout_s, exc))

    def _release(self) -> None:
        self._close_context()  # in the thread that made it

    def _open_context(self, wanted: str | None) -> None:
        self._close_context()
        with _niced():
            self.ctx = GpuContext(device=wanted or None, validate=self._validate)

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
        level0 = source.storage(fmt)  # 8-bit: the file's bytes, no float round trip
        if layers > 1:  # mirrors/flips/channel swaps: exact on storage values too
            level0 = make_layers(level0, layers)
        level0.setflags(write=False)
        self._level0 = (source, fmt, layers, level0)
        return level0

    def _take_messages(self, mip: MipResult | None = None) -> tuple[str, ...]:
        out = list(self._messages)
        self._messages.clear()
        if mip is not None:
            out += list(mip.validation_messages)
        return tuple(out)

    def _open_image(self, req: OpenRequest, stop: Stop) -> None:
        self.sigProgress.emit(f"loading {req.path}")
        source = imageio.load(req.path)
        level0 = self._storage(source, req.fmt or source.suggested_format())
        preview = display_layers(level0, req.fmt or source.suggested_format())
        self.sigOpened.emit(OpenedImage(req.job, req.path, source, preview))

    def _run(self, req: RunRequest, stop: Stop) -> None:
        from mipview.gpu.resources import check_image_limits
        from mipview.gpu.runner import Session

        ctx = self._device()
        source = req.source
        check_image_limits(ctx.caps, source.width, source.height, req.layers)
        self.sigProgress.emit(f"uploading {source.width}x{source.height} {req.fmt.label}")
        level0 = self._storage(source, req.fmt, req.layers)
        t0 = time.perf_counter()
        with Session(ctx, level0, req.fmt, list(req.specs)) as session:
            self.sigProgress.emit("generating")
            session.generate()
            mip = session.result()
            mip = _with_messages(mip, self._take_messages(mip))
            mip, notes = with_file_chain(mip, source, req.fmt, level0)  # a texture's own chain
            self.sigRunOutput.emit(RunOutput(req.job, mip, level0, source.name, notes))
            if stop():
                return
            self.sigProgress.emit("checking against the exact reference")
            self.sigAnalysis.emit(analyse(req.job, mip, level0))
            if stop() or not session.prepared or (req.repeat <= 0 and not req.live):
                return
            device = ctx.caps.name
            if req.live:
                self._profile_live(req, session, device, stop)
            else:
                self._profile(req, session, device, stop, t0)

    def _run_batch(self, req: BatchRequest, stop: Stop) -> None:
        from mipview.gpu.batch import BatchSession
        from mipview.gpu.batch.synthetic import synthetic_batch, synthetic_sizes

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
                self.sigProgress.emit(f"batch: timing {req.repeat} runs per way")
                session.time(req.repeat, should_stop=stop)
            result = session.result()
        self._messages.extend(result.validation_messages)
        result = replace(result, validation_messages=self._take_messages())
        self.sigBatch.emit(BatchOutput(req.job, result))

    def _run_sweep(self, req: SweepRequest, stop: Stop) -> None:
        from mipview.sweep import sweep_curves

        ctx = self._device()
        widths = range(req.first, req.last + 1)

        def progress(done: int, total: int) -> None:
            self.sigSweepProgress.emit(SweepProgress(req.job, done, total))
            self.sigProgress.emit(f"sweep: width {widths[done - 1]} ({done}/{total})")

        self.sigProgress.emit(f"sweep: {len(widths)} widths x {req.height} {req.fmt.label}")
        result = sweep_curves(ctx, widths, req.height, req.fmt, req.specs, kind=req.kind,
                              should_stop=stop, progress=progress)
        self._messages.extend(result.validation_messages)
        result = replace(result, validation_messages=self._take_messages())
        self.sigSweep.emit(SweepOutput(req.job, result))

    def _profile(self, req: RunRequest, session, device: str, stop: Stop, t0: float) -> None:
        last = [0.0]

        def on_batch() -> None:
            now = time.perf_counter()
            if now - last[0] >= 1.0 / STATS_HZ:
                last[0] = now
                self.sigStats.emit(self._stats(req.job, session.result(), device, t0))

        self.sigProgress.emit(f"timing {req.repeat} runs per strategy")
        session.time(req.repeat, should_stop=stop, on_batch=on_batch)
        stats = self._stats(req.job, session.result(), device, t0, final=True)
        self.sigStats.emit(stats)

    def _stats(self, job: int, mip: MipResult, device: str, t0: float,
               final: bool = False) -> LiveStats:
        self._messages.extend(mip.validation_messages)
        timings = tuple((r.spec, r.timing) for r in mip.results if r.timing is not None)
        runs = min((len(t.total.samples_us) for _, t in timings), default=0)
        msgs = self._take_messages() if final else ()
        return LiveStats(job, device, timings, runs, time.perf_counter() - t0, final, msgs)

    def _profile_live(self, req: RunRequest, session, device: str, stop: Stop) -> None:
        windows = {p.spec: _Rolling(LIVE_WINDOW) for p in session.prepared}
        t0 = time.perf_counter()
        last_emit = 0.0
        batch, total_runs = 1, 0
        self.sigProgress.emit("profiling (live)")
        while not stop():
            start = time.perf_counter()
            session.time(batch, runs_per_batch=batch, should_stop=stop)
            took = time.perf_counter() - start
            mip = session.result()
            self._messages.extend(mip.validation_messages)
            for r in mip.results:
                if r.timing is not None:
                    windows[r.spec].add(r.timing)
            total_runs += batch
            # powers of two only: the runner caches one command buffer per batch size
            if took < LIVE_BATCH_S / 2 and batch < 64:
                batch *= 2
            elif took > LIVE_BATCH_S * 2 and batch > 1:
                batch //= 2
            now = time.perf_counter()
            if now - last_emit >= 1.0 / STATS_HZ:
                last_emit = now
                self.sigStats.emit(self._live(req.job, windows, device, total_runs, now - t0))
        self.sigStats.emit(self._live(req.job, windows, device, total_runs,
                                      time.perf_counter() - t0, final=True))

    def _live(self, job: int, windows: dict[StrategySpec, _Rolling], device: str, runs: int,
              elapsed: float, final: bool = False) -> LiveStats:
        timings = tuple((spec, w.timing()) for spec, w in windows.items() if w.totals)
        msgs = self._take_messages() if final else ()
        return LiveStats(job, device, timings, runs, elapsed, final, msgs)


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


def _with_messages(mip: MipResult, messages: tuple[str, ...]) -> MipResult:
    from dataclasses import replace

    return replace(mip, validation_messages=messages)


def analyse(job: int, mip: MipResult, level0: np.ndarray,
            refs: ReferenceCache | None = None) -> Analysis:
    """Every strategy judged by ``verdict.judge_result`` (the verdict ``mipview run`` prints)
    and its heatmaps against the exact reference (``compare.error_maps``); ``refs`` keeps the
    reference pyramids for later runs of the same image."""
    fmt = mip.fmt
    refs = refs if refs is not None else ReferenceCache()
    errors = []
    for res in mip.results:
        verdict = judge_result(res, level0, fmt, refs)
        maps = compare.error_maps(list(res.levels), refs.get(level0, fmt, res.reduction), fmt)
        errors.append(StrategyErrors(res.spec, verdict, tuple(maps)))
    mean_ref = refs.get(level0, fmt, "mean")
    reference = tuple([level0] + [r.astype(np.float32) for r in mean_ref[1:]])
    return Analysis(job, fmt, reference, tuple(errors))
