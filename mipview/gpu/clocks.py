"""The GPU's clocks while it is timed, where the device lets us read them.

A GPU idles at a low clock and needs a second or more of work to reach its sustained one
(../shared/gpu/README.md: 345 MHz idle vs 1980 MHz under load on an H200), so a timing is only
worth its number if the clock was up. NVIDIA GPUs report their clocks through NVML; mipview reads
them with NVIDIA's own binding, the optional ``nvidia-ml-py`` package (``pip install
mipview[nvidia]``; module ``pynvml``): maintained by NVIDIA, pure Python, no build step, and the
one library that exposes the SM and memory clocks. Other devices (lavapipe, AMD, Intel) report
nothing here; callers then show "clock: not readable" instead of a number.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

NVIDIA_VENDOR_ID = 0x10DE


@dataclass(frozen=True)
class ClockSample:
    """One reading: SM and memory clock in MHz, at ``t`` (time.perf_counter seconds)."""

    t: float
    sm_mhz: int
    mem_mhz: int


@dataclass(frozen=True)
class ClockState:
    """The clocks seen over one timed stretch, and the SM clock the device can reach."""

    source: str
    samples: tuple[ClockSample, ...]
    max_sm_mhz: int = 0

    @property
    def sm_range(self) -> tuple[int, int]:
        sm = [s.sm_mhz for s in self.samples]
        return (min(sm), max(sm)) if sm else (0, 0)

    @property
    def mem_range(self) -> tuple[int, int]:
        mem = [s.mem_mhz for s in self.samples]
        return (min(mem), max(mem)) if mem else (0, 0)

    @property
    def changed(self) -> bool:
        """The SM clock moved by more than 10% while timing: the runs are not comparable."""
        lo, hi = self.sm_range
        return hi > 0 and (hi - lo) > 0.1 * hi

    def label(self) -> str:
        """``SM 1980 MHz, mem 3201 MHz`` (a range where it moved)."""
        def span(r: tuple[int, int]) -> str:
            return f"{r[0]}" if r[0] == r[1] else f"{r[0]}-{r[1]}"
        if not self.samples:
            return "clock: no reading"
        return f"SM {span(self.sm_range)} MHz, mem {span(self.mem_range)} MHz"

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "sm_mhz": list(self.sm_range),
                "mem_mhz": list(self.mem_range), "max_sm_mhz": self.max_sm_mhz,
                "changed": self.changed, "samples": len(self.samples)}


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
