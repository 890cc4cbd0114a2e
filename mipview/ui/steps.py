"""Work the UI thread splits into steps (a Run's panels, chart labels and history curves made
ahead) runs one step per turn of the event loop, STEP_MS apart, whichever view queued it.

Each view once had its own timer chain: two chains' steps fell due in the same turn and ran back
to back, one stall of both (18 + 10 ms on 2 cores; docs/bench/window-31).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from PySide6.QtCore import QTimer

#: a 0 ms timer would run in the same turn as a tick that was due
STEP_MS = 2

_queue: deque[Callable[[], None]] = deque()
_due = False


def later(step: Callable[[], None]) -> None:
    """Run ``step`` on the UI thread, after the steps queued before it, each in a turn of its
    own. Call on the UI thread."""
    _queue.append(step)
    _schedule()


def _schedule() -> None:
    global _due
    if _queue and not _due:
        _due = True
        QTimer.singleShot(STEP_MS, _run_one)


def _run_one() -> None:
    global _due
    _due = False
    try:
        if _queue:
            _queue.popleft()()
    finally:
        _schedule()
