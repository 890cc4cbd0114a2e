"""Work the UI thread splits into steps (a Run's panels, chart labels and history curves made
ahead, a worker's replies that came together) runs one step per turn of the event loop, each
STEP_MS after the paints of the step before, whichever view queued it.

Each view once had its own timer chain: two chains' steps fell due in the same turn and ran back
to back, one stall of both (18 + 10 ms on 2 cores; docs/bench/window-stalls). A step's paints come in
the turn after it; a timer started at the step's end fell due during a long paint, so the next
step ran in the paint's turn. The timer now starts once the paints asked for are done
(:func:`after_paints`).

:class:`Paced` shows a worker's replies through it: replies posted while the UI thread was busy
arrive together, and Qt delivered them all in one turn with the paints each asked for (on
lavapipe's 2 cores a later Run's statistics, reference and first verdict with two paints of the
chart: one 54-76 ms turn). Paced, a reply is shown at once when the paints of the one before are
done, and otherwise as a step of its own, ahead of the views' steps, in the order they came.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer, Signal

from mipview.core import turns

#: a 0 ms timer would run in the same turn as a tick that was due
STEP_MS = 2

#: (step, the object it works on: the step is skipped once that is deleted)
_queue: deque[tuple[Callable[[], None], QObject | None]] = deque()
#: steps that go before ``_queue``'s (``soon``)
_first: deque[tuple[Callable[[], None], QObject | None]] = deque()
_due = False


def later(step: Callable[[], None], owner: QObject | None = None) -> None:
    """Run ``step`` on the UI thread, after the steps queued before it, each in a turn of its
    own; not at all once ``owner`` (the view it draws in) is deleted. Call on the UI thread."""
    _queue.append((step, owner))
    _schedule()


def soon(step: Callable[[], None], owner: QObject | None = None) -> None:
    """As :func:`later`, but before every step queued by :func:`later` (after those queued by
    ``soon`` before it)."""
    _first.append((step, owner))
    _schedule()


def pending() -> bool:
    """Steps are queued (a test or a screenshot waits for what they show)."""
    return bool(_first or _queue)


def _schedule() -> None:
    global _due
    if (_first or _queue) and not _due:
        _due = True
        QTimer.singleShot(STEP_MS, _run_one)


def _run_one() -> None:
    try:
        if _first or _queue:
            step, owner = (_first or _queue).popleft()
            if owner is None or shiboken6.isValid(owner):
                step()
    finally:
        after_paints(_next_one)


def _next_one() -> None:
    global _due
    _due = False
    _schedule()


class _AfterPaints(QObject):
    """Calls a function STEP_MS after the paints asked for so far: a queued signal is delivered
    after the events posted before it (a graphics scene's update among them, which posts the
    paint of its view: so the timer starts there, and fires in a turn after that paint)."""

    _sig = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self._sig.connect(lambda fn: QTimer.singleShot(STEP_MS, fn),
                          Qt.ConnectionType.QueuedConnection)


_after: _AfterPaints | None = None


def after_paints(fn: Callable[[], None]) -> None:
    """Call ``fn`` on the UI thread in a turn after the one that paints what was changed before
    this call."""
    global _after
    if _after is None:
        _after = _AfterPaints()
    _after._sig.emit(fn)


class Paced:
    """Calls that come in bursts (a worker's replies, in order), one at a time, each in a turn
    after the paints of the one before: a call is made at once when none is waiting, the paints
    of the last one are done and the UI thread has not been busy since its last timers (a late
    heartbeat, :func:`mipview.core.turns.ui_late`: a view's step or its paint in this turn),
    else queued as a step (:func:`soon`). Call on the UI thread."""

    def __init__(self) -> None:
        self._waiting: deque[Callable[[], None]] = deque()
        #: the last call's paints may not be done yet
        self._painting = False

    def call(self, fn: Callable[[], None]) -> None:
        if not self._waiting and not self._painting and not turns.ui_late():
            self._make(fn)
            return
        self._waiting.append(fn)
        if len(self._waiting) == 1:
            soon(self._next)

    def pending(self) -> bool:
        """Calls are waiting for their turn."""
        return bool(self._waiting)

    def drop(self) -> None:
        """Forget the calls waiting (their receiver is going away)."""
        self._waiting.clear()

    def _next(self) -> None:
        if not self._waiting:  # dropped meanwhile
            return
        fn = self._waiting.popleft()
        if self._waiting:
            soon(self._next)
        self._make(fn)

    def _make(self, fn: Callable[[], None]) -> None:
        self._painting = True
        try:
            fn()
        finally:
            after_paints(self._painted)

    def _painted(self) -> None:
        self._painting = False
