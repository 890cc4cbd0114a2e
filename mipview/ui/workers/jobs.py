"""The one way a worker thread runs a job.

A request is a frozen dataclass of :mod:`mipview.ui.messages` with a ``job`` id. A worker
registers one handler per request type (:meth:`JobWorker.handle`); :meth:`JobWorker.work`, the
slot every request arrives at, calls it with a ``stop`` callable, turns any exception into
``sigError`` titled for that kind of request, and emits ``sigJobFinished`` last, whatever
happened. Stopping is cooperative and thread-safe: :meth:`JobWorker.cancel` records the newest
job to abandon, and handlers poll ``stop()`` at their checkpoints (a plain int store, so the UI
thread never waits). A handler also runs under ``stop`` as its thread's token
(:mod:`mipview.core.cancel`), unless registered without checkpoints, so long numpy work it calls ends
within one step of a Stop.

Signals
-------
sigReply(object)      every result of a job, a frozen dataclass (:mod:`mipview.ui.messages`)
                      that the receiver routes by its type
sigProgress(str)      a line for the status bar
sigJobFinished(int)   the job id, after its last other signal, also when it failed
sigError(WorkerError) anything that went wrong; the worker stays usable
"""

from __future__ import annotations

import os
import threading
import traceback
import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from mipview.core.cancel import Cancelled, stop_token
from mipview.io import imageio
from mipview.ui.messages import WorkerError

#: polled by a running job: True once it should end early
Stop = Callable[[], bool]
Handler = Callable[[Any, Stop], None]


class JobWorker(QObject):
    sigReply = Signal(object)
    sigProgress = Signal(str)
    sigJobFinished = Signal(int)
    sigError = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self._cancel_upto = -1
        self._handlers: dict[type, tuple[str, Handler, bool]] = {}

    def handle(self, request: type, failure_title: str, handler: Handler,
               checkpoints: bool = True) -> None:
        """Run ``handler(req, stop)`` for requests of type ``request``; an exception it raises
        becomes a dialog titled ``failure_title``. With ``checkpoints``, it also runs under
        ``stop`` as its thread's token, so Stop ends it at the next ``cancel.checkpoint()`` of
        the work it calls; without, it ends only where it polls ``stop()`` itself (a job that
        shows what it has done when stopped, or must never be left half done)."""
        self._handlers[request] = (failure_title, handler, checkpoints)

    # --- called from the UI thread ------------------------------------------------------
    def cancel(self, upto_job: int) -> None:
        """Abandon every job with id <= ``upto_job`` at its next checkpoint (thread-safe)."""
        self._cancel_upto = max(self._cancel_upto, upto_job)

    # --- slots: run in the worker's thread -----------------------------------------------
    @Slot(object)
    def work(self, req: Any) -> None:
        job = req.job
        title, handler, checkpoints = self._handlers[type(req)]

        def stop() -> bool:
            return self._cancel_upto >= job

        try:
            with stop_token(stop if checkpoints else None):
                handler(req, stop)
        except Cancelled:  # stopped at a checkpoint: nothing to say
            pass
        except imageio.ImageLoadError as exc:  # the file's fault, not ours: no traceback
            self.sigError.emit(WorkerError(job, "Cannot open image", str(exc)))
        except Exception as exc:  # noqa: BLE001 - every failure becomes a dialog
            self._failed(req, title, exc)
        finally:
            self.sigJobFinished.emit(job)

    @Slot()
    def shutdown(self) -> None:
        """Release what the worker holds, in its own thread, then end that thread's event loop.
        (Subclasses override ``_release``, not this: PySide calls an overriding slot directly,
        in the emitting thread.)"""
        try:
            self._release()
        finally:
            QThread.currentThread().quit()

    def _release(self) -> None:
        """What the worker must free in its own thread before the thread ends."""

    def _failed(self, req: Any, title: str, exc: Exception) -> None:
        """The handler of ``req`` raised ``exc``: a dialog (a subclass may recover first)."""
        self._fail(req.job, title, exc)

    def _fail(self, job: int, title: str, exc: BaseException) -> None:
        detail = "".join(traceback.format_exception(exc))
        self.sigError.emit(WorkerError(job, title, str(exc) or type(exc).__name__, detail))


def worker_thread(worker: JobWorker, name: str, parent: QObject) -> QThread:
    """A (not yet started) thread named ``name`` that ``worker`` now lives in."""
    thread = QThread(parent)
    thread.setObjectName(name)
    worker.moveToThread(thread)
    return thread


def lower_priority(step: int = 5) -> int | None:
    """Raise the calling thread's nice value by ``step`` (Linux: per thread), so the UI thread
    wins the CPU when both want it; returns the old value, None where that is not possible."""
    tid = threading.get_native_id()
    try:
        old = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, old + step))
    except (AttributeError, OSError):  # not Linux, or not allowed: only a nicety
        return None
    return old


class OneInFlight:
    """Requests of one kind where only the newest state matters (a preview, a comparison with
    the baseline during live profiling): at most one is at the worker; asking again meanwhile
    sends once more when it finishes, so a busy worker never queues stale work.

    ``send()`` sends a request of the state now and returns its job id (None: nothing to send).
    A bound method is held weakly: the window that owns this must not be kept in a reference
    cycle, which Python's cyclic collector could then free in a worker thread (destroying Qt
    widgets there deadlocks against the UI thread).
    """

    def __init__(self, send: Callable[[], int | None]) -> None:
        self._send: Callable[[], Callable[[], int | None] | None] = (
            weakref.WeakMethod(send) if hasattr(send, "__self__")  # type: ignore[arg-type]
            else lambda: send)
        #: the job at the worker, None when idle
        self.pending: int | None = None
        #: the newest job sent: its reply is the one to show
        self.last: int | None = None
        self._again = False

    def request(self) -> None:
        if self.pending is not None:
            self._again = True
            return
        send = self._send()
        self.pending = send() if send is not None else None
        if self.pending is not None:
            self.last = self.pending

    def finished(self, job: int) -> None:
        """A job ended (replied or failed): send the newest state if asked meanwhile."""
        if job != self.pending:
            return
        self.pending = None
        if self._again:
            self._again = False
            self.request()
