"""Elementwise work on a large level split into bands of rows, run on the analysis threads.

numpy works on one core; at 4096^2 a float64 pass over a level costs a good fraction of a
second, and the analysis of a Run is a chain of them (decode, reduce, encode, compare). Work
that computes each output element from its own inputs only (no sum, no dot across the band)
gives the same bytes however the rows are split, so it can be split freely: :func:`for_rows`
runs ``fn(start, stop)`` over bands of rows in a pool of :func:`cores` threads (numpy lets go
of the GIL in its loops) and returns when all are done.

Any thread may call :func:`for_rows`, pool threads of callers included: a band that calls it
again runs its rows itself, so no band ever waits for another and nothing can deadlock.
:func:`by_rows` is the same for an elementwise function of whole arrays.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from mipview.core.turns import give_turn

#: below this many elements a level is done in one piece: a pool round trip costs ~0.1 ms,
#: and a band should be large enough to keep a core busy for longer than that
MIN_ELEMENTS = 1 << 19

_NAME = "mipview-bands"
_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


#: analysis threads unless ``MIPVIEW_THREADS`` says otherwise. On a 16-core GPU machine a
#: window's first Run at 4096^2 analysed on 16 threads stalled the UI 0.9 s and put its timings
#: on screen after 2.4-3.1 s (every thread's Python-side numpy work queues for the GIL the UI and
#: timing threads need); on 4 the stall was 0.13 s, the timings came after 1.0 s, and the whole
#: analysis ended as soon (docs/bench/window-stalls)
DEFAULT_THREADS = 4


def cores() -> int:
    """The threads analyses may use: ``MIPVIEW_THREADS`` when set, else the cores this process
    may run on, at most :data:`DEFAULT_THREADS`."""
    wanted = os.environ.get("MIPVIEW_THREADS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        available = os.cpu_count() or 1
    return min(available, DEFAULT_THREADS)


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(cores(), _NAME)
        return _pool


def for_rows(fn: Callable[[int, int], None], rows: int, elements: int) -> None:
    """Call ``fn(start, stop)`` for bands of ``rows`` rows that together cover ``0 .. rows``,
    in parallel when the work (``elements``, all rows together) is worth it; errors of a band
    are raised here."""
    n = min(rows, cores(), max(1, elements // MIN_ELEMENTS))
    if n <= 1 or threading.current_thread().name.startswith(_NAME):
        # a band that splits its own work again does it itself: waiting on the pool from
        # inside it could leave every pool thread waiting for a band none is free to run
        fn(0, rows)
        return
    edges = [rows * i // n for i in range(n + 1)]
    pool = _shared_pool()

    def band(start: int, stop: int) -> None:
        give_turn()  # the window's UI thread first (mipview/core/turns.py)
        fn(start, stop)

    jobs = [pool.submit(band, a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
    for job in jobs:
        job.result()


def by_rows(fn: Callable[..., None], *arrays: np.ndarray) -> None:
    """``fn(*arrays)`` for an elementwise ``fn`` over arrays of one shape (the last one written),
    in bands of rows (axis -3, layers together) on the analysis threads: the same bytes. Arrays of fewer
    than 3 axes are done in one piece."""
    if arrays[0].ndim < 3:
        fn(*arrays)
        return
    for_rows(lambda start, stop: fn(*(x[..., start:stop, :, :] for x in arrays)),
             arrays[0].shape[-3], arrays[0].size)
