"""Per-pixel numpy work of the views (display transforms, histograms, overlays, signed error
maps) off the UI thread, so a large level never stalls the window.

Small inputs run at once on the caller's thread (they cost less than a round trip, and tests
see their result synchronously); larger ones run on one background thread (numpy releases the
GIL), and their result comes back through a queued signal. A later job with the same key
supersedes an earlier one: the earlier one's result is dropped, so the view only ever shows what
its latest settings asked for.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

from mipview.core.turns import give_turn

#: inputs of at most this many texels run on the caller's thread (128 x 128: well under a
#: millisecond; a run shows tens of levels at once, so larger ones would add up)
SYNC_TEXELS = 1 << 14


class PixelPool(QObject):
    """Signals: ``sigIdle()`` when the last job in flight has delivered its result."""

    sigIdle = Signal()
    _sigDone = Signal(object, int, object, object)  # key, generation, callback, result

    def __init__(self, parent: QObject | None = None, sync_texels: int | None = None) -> None:
        super().__init__(parent)
        self.sync_texels = SYNC_TEXELS if sync_texels is None else sync_texels
        self._executor: ThreadPoolExecutor | None = None
        #: executors shut down without waiting: a job of theirs may still run
        self._ending: list[ThreadPoolExecutor] = []
        self._latest: dict[Any, int] = {}
        self._counter = itertools.count(1)
        self._sigDone.connect(self._deliver)

    def submit(self, key: Any, texels: int, fn: Callable[..., Any], args: tuple,
               done: Callable[[Any], None]) -> None:
        """``done(fn(*args))`` on this object's thread, unless a later job of ``key`` came first."""
        gen = self._latest[key] = next(self._counter)
        if texels <= self.sync_texels:
            self._deliver(key, gen, done, fn(*args))
            return
        if self._executor is None:
            # not niced: a niced thread waiting for a core while it holds the GIL blocks the
            # UI thread (what stalled live profiling through the compare thread)
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="mipview-pixels")
        self._executor.submit(self._run, key, gen, fn, args, done)

    def _run(self, key: Any, gen: int, fn: Callable[..., Any], args: tuple,
             done: Callable[[Any], None]) -> None:
        if self._latest.get(key) != gen:  # superseded before it started
            return
        give_turn()  # the UI thread first (mipview/core/turns.py)
        result = fn(*args)
        try:
            self._sigDone.emit(key, gen, done, result)
        except RuntimeError:  # the view is gone
            pass

    def _deliver(self, key: Any, gen: int, done: Callable[[Any], None], result: Any) -> None:
        if self._latest.get(key) != gen:
            return
        del self._latest[key]
        done(result)
        if not self._latest:
            self.sigIdle.emit()

    def busy(self) -> bool:
        """Whether a job's result is still to come."""
        return bool(self._latest)

    def forget_key(self, key: Any) -> None:
        """Drop the result of ``key``'s job still to come."""
        if self._latest.pop(key, None) is not None and not self._latest:
            self.sigIdle.emit()

    def forget(self) -> None:
        """Drop every result still to come (the data they were computed from is gone)."""
        self._latest.clear()

    def shutdown(self, wait: bool = False) -> None:
        """Drop what is to come and end the thread; with ``wait``, return once a job under way
        (also one left running by an earlier shutdown) has ended: it emits to this object, so
        it must be over before the window that owns this is destroyed."""
        self.forget()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._ending.append(self._executor)
            self._executor = None
        while wait and self._ending:
            self._ending.pop().shutdown(wait=True)

