"""Let the window's UI thread have the interpreter lock first while background work runs.

The window's background threads (the GPU worker, the analysis and band threads, the pixel
pool) run Python between their numpy and Vulkan calls. CPython hands the lock to a thread that
waits for it only after the switch interval (5 ms), and then to whichever waiting thread the OS
wakes. The UI thread takes and gives back the lock around each of its many Qt calls, so with
four busy threads it waits again and again: on the H100 machine it was blocked for 40-64 ms of
each 60-90 ms stall while those threads used about as much CPU (docs/bench/window-stalls,
``tools/measure --why``). Sleeping now and then in the worker was not enough: each sleep hands
the lock to any thread, most often another worker.

So the UI thread beats a heartbeat (:func:`beat`, a timer of the window: ui/heartbeat.py) while
background work is asking for turns, and every background thread calls :func:`give_turn`
between pieces of its work. A late heartbeat means the UI thread is working or waiting for the
lock: the caller sleeps, with the lock released, until the next beat wakes it. Without a window nothing
beats and :func:`give_turn` costs a clock read.
"""

from __future__ import annotations

import threading
import time

#: the heartbeat's period while background work runs (the window's timer)
TICK_S = 0.002
#: a beat older than this means the UI thread is busy: background threads wait
LATE_S = 0.004
#: a beat older than this means no event loop is running (a window closed, a test that does not
#: spin one): nobody to wait for
GONE_S = 0.25
#: the longest one call waits, so a UI thread that waits on this thread costs a bounded delay
WAIT_MAX_S = 0.05
#: the heartbeat slows down once no thread has asked for a turn for this long
KEEP_S = 0.5
_last_beat: float | None = None  # None: no heartbeat (no window, or one idling)
_ui_thread: int | None = None  # the thread that beats never waits for itself
_last_wanted = float("-inf")
_beats = 0  # beats so far: a waiting thread waits for the next one
_beaten = threading.Condition()


def beat() -> bool:
    """Called by the UI thread on each tick: records it and wakes the threads waiting for it.
    Returns whether background threads still ask for turns (the caller keeps ticking every
    TICK_S) or not (it may slow down; until its next beat, :func:`give_turn` does not wait)."""
    global _last_beat, _ui_thread, _beats
    _ui_thread = threading.get_ident()
    now = time.perf_counter()
    busy = now - _last_wanted < KEEP_S
    with _beaten:
        _last_beat = now if busy else None
        _beats += 1
        _beaten.notify_all()
    return busy


def stop() -> None:
    """The event loop is going away: nothing to wait for until the next :func:`beat`."""
    global _last_beat
    with _beaten:
        _last_beat = None
        _beaten.notify_all()


def ui_late() -> bool:
    """The UI thread's heartbeat is late: it has been busy (painting, showing a reply) since it
    last ran its timers."""
    last = _last_beat
    return last is not None and LATE_S < time.perf_counter() - last < GONE_S


def give_turn() -> float:
    """Call between pieces of work that may run on a background thread: there, when the UI
    thread's heartbeat is late, sleeps until it beats again (at most WAIT_MAX_S); on the UI
    thread it returns at once. Returns the seconds waited."""
    global _last_wanted
    if threading.get_ident() == _ui_thread:
        return 0.0
    now = time.perf_counter()
    _last_wanted = now
    if not ui_late():
        return 0.0
    # wait on a condition, not in naps: a napping thread takes the lock at every wake-up,
    # which is what the UI thread must not have to wait for
    with _beaten:
        seen = _beats
        _beaten.wait_for(lambda: _beats != seen, WAIT_MAX_S)
    return time.perf_counter() - now
