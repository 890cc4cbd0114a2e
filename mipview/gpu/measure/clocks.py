"""The GPU's clocks while it is timed, where the device lets us read them.

A GPU idles at a low clock and needs a second or more of work to reach its sustained one
(345 MHz idle vs 1980 MHz under load on an H200), so a timing is only
worth its number if the clock was up. NVIDIA GPUs report their clocks through NVML; mipview reads
them with NVIDIA's own binding, the optional ``nvidia-ml-py`` package (``pip install
mipview[nvidia]``; module ``pynvml``): maintained by NVIDIA, pure Python, no build step, and the
one library that exposes the SM and memory clocks. Other devices (lavapipe, AMD, Intel) report
nothing here; callers then show "clock: not readable" instead of a number.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from mipview.core.results import ClockSample, ClockState

NVIDIA_VENDOR_ID = 0x10DE


class ClockReader:
    """Reads one NVIDIA GPU's clocks through NVML (any thread; NVML is thread-safe)."""

    def __init__(self, nvml: Any, handle: Any) -> None:
        self._nvml = nvml
        self._handle = handle
        self._lock = threading.Lock()
        try:
            self.max_sm_mhz = int(nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_SM))
        except Exception:  # noqa: BLE001 - a missing maximum only loses the headroom figure
            self.max_sm_mhz = 0

    def sample(self) -> ClockSample | None:
        nvml = self._nvml
        try:
            with self._lock:
                sm = nvml.nvmlDeviceGetClockInfo(self._handle, nvml.NVML_CLOCK_SM)
                mem = nvml.nvmlDeviceGetClockInfo(self._handle, nvml.NVML_CLOCK_MEM)
        except Exception:  # noqa: BLE001 - a reading that fails is a reading we do not have
            return None
        return ClockSample(time.perf_counter(), int(sm), int(mem))

    def state(self, samples: list[ClockSample]) -> ClockState:
        return ClockState("nvml", tuple(samples), self.max_sm_mhz)


def _decode(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def open_reader(device_name: str, vendor_id: int, nvml: Any | None = None) -> ClockReader | None:
    """A reader for the NVIDIA GPU of that name, or None (not NVIDIA, no ``pynvml``, no driver,
    or no GPU of that name). ``nvml`` replaces the module (tests)."""
    if vendor_id != NVIDIA_VENDOR_ID:
        return None
    if nvml is None:
        try:
            import pynvml as nvml  # type: ignore[import-not-found, no-redef]
        except ImportError:
            return None
    try:
        nvml.nvmlInit()
        handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(nvml.nvmlDeviceGetCount())]
        names = [_decode(nvml.nvmlDeviceGetName(h)) for h in handles]
    except Exception:  # noqa: BLE001 - no NVML driver library: nothing to read
        return None
    # Vulkan and NVML name a GPU the same way ("NVIDIA H200"); with several of one model the
    # first is taken, which is what a reader of the clock would see on a one-GPU machine.
    matches = [h for h, n in zip(handles, names, strict=True) if n == device_name]
    if not matches and len(handles) == 1:
        matches = handles
    return ClockReader(nvml, matches[0]) if matches else None


def clock_reader(ctx: Any) -> ClockReader | None:
    """The reader of the context's device, opened once per context (None: no clock to read)."""
    if "clock_reader" not in ctx.caches:
        caps = ctx.caps
        ctx.caches["clock_reader"] = open_reader(caps.name, caps.vendor_id)
    return ctx.caches["clock_reader"]


#: how long the SM clock must have read its maximum before a warm-up may end early, seconds
WARM_S = 0.25


class ClockLog:
    """The clock of one timing, sampled after each timed round (the state its samples were
    taken in); ``state`` is None where the device's clock cannot be read."""

    def __init__(self, ctx: Any) -> None:
        self._reader = clock_reader(ctx)
        self._samples: list[ClockSample] = []
        #: since when the warm-up has seen the SM clock at its maximum (None: not there)
        self._at_max_since: float | None = None

    def warm(self) -> bool:
        """Whether a warm-up may end: the SM clock has read the device's maximum for
        :data:`WARM_S` (the idle clock ramps up within a fraction of the default second of
        warm-up, and stays there under load). Always False where the clock or its maximum
        cannot be read: the warm-up then runs its full time. Not a sample of the timing."""
        got = self._reader.sample() if self._reader is not None else None
        if got is None or not 0 < self._reader.max_sm_mhz <= got.sm_mhz:  # type: ignore[union-attr]
            self._at_max_since = None
            return False
        if self._at_max_since is None:
            self._at_max_since = got.t
        return got.t - self._at_max_since >= WARM_S

    def sample(self) -> None:
        got = self._reader.sample() if self._reader is not None else None
        if got is not None:
            self._samples.append(got)

    @property
    def state(self) -> ClockState | None:
        return self._reader.state(self._samples) if self._reader is not None else None
