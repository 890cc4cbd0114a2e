"""Let the UI thread run while a worker thread makes many Vulkan calls.

The ``vulkan`` binding (cffi, ABI mode) releases the interpreter lock around every call and
takes it back at once. So a thread waiting for the lock sees it change hands all the time.
CPython's switch interval counts from the last hand-over, so it never asks the calling thread
to let go, and the waiting thread can go hungry.

On the H100 machine the window's UI thread was blocked 47-68 ms of a 60-86 ms stall. In that
time the GPU worker was recording a Run's command buffers (docs/bench/window-31, ``tools/measure
--why``). A short sleep every few milliseconds hands the lock over for real.
"""

from __future__ import annotations

import time

#: how long a worker may go on calling Vulkan before it lets others run (the UI's 5 ms ticks)
EVERY_S = 0.002
#: long enough for a waiting thread to wake and take the lock
SLEEP_S = 0.0002

_last = 0.0


def share_gil() -> None:
    """Call between Vulkan calls in a long loop: sleeps ``SLEEP_S`` once ``EVERY_S`` has passed
    since the last time (from any thread: a late or early turn costs nothing)."""
    global _last
    now = time.perf_counter()
    if now - _last >= EVERY_S:
        time.sleep(SLEEP_S)
        _last = time.perf_counter()
