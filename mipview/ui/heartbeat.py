"""The UI thread's heartbeat (mipview/core/turns.py): while background threads ask for turns it
beats every 2 ms, so they can see when the UI thread is busy and let it have the lock first;
otherwise every 100 ms, so an idle window does not wake the machine 500 times a second."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer

from mipview.core import turns

IDLE_MS = 100
BUSY_MS = max(1, round(turns.TICK_S * 1000))


class Heartbeat(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setObjectName("heartbeat")  # named where a profile lists timers
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._beat)
        self._timer.start(IDLE_MS)

    def _beat(self) -> None:
        interval = BUSY_MS if turns.beat() else IDLE_MS
        if self._timer.interval() != interval:
            self._timer.setInterval(interval)

    def stop(self) -> None:
        """No more beats (the window is closing and may wait for the workers)."""
        self._timer.stop()
        turns.stop()
