"""The status bar's progress bar: a job's share done where it says, else a slow sweep.

Qt's own busy look (range 0..0) is an animation that repaints the bar, the status bar and the
window behind it about 60 times a second for as long as a job runs. During live profiling on
lavapipe (2 cores) that was 800 paints in 5 s and 70 of the UI thread's 215 ms of work a second;
each paint of the window also takes the interpreter lock the GPU worker holds in turns. The sweep
here moves a few times a second: the window still shows it is working, at a few paints a second.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressBar, QWidget

#: steps of one sweep, and the time between two
SWEEP_STEPS = 8
STEP_MS = 200


class BusyBar(QProgressBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextVisible(False)
        self._sweep = QTimer(self)
        self._sweep.setObjectName("busy-sweep")
        self._sweep.setInterval(STEP_MS)
        self._sweep.timeout.connect(self._step)
        self._busy = False
        self.busy()

    def busy(self) -> None:
        """No share known: sweep (fill, then empty from the other side) while shown."""
        self._busy = True
        self.setRange(0, SWEEP_STEPS)
        self.setValue(0)
        self.setInvertedAppearance(False)
        if self.isVisible():
            self._sweep.start()

    def show_progress(self, done: int, total: int) -> None:
        self._busy = False
        self._sweep.stop()
        self.setInvertedAppearance(False)
        self.setRange(0, total)
        self.setValue(done)

    def sweeping(self) -> bool:
        return self._sweep.isActive()

    def _step(self) -> None:
        if self.value() >= SWEEP_STEPS:
            self.setInvertedAppearance(not self.invertedAppearance())
            self.setValue(0)
        else:
            self.setValue(self.value() + 1)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._busy:
            self._sweep.start()

    def hideEvent(self, event) -> None:  # noqa: N802
        super().hideEvent(event)
        self._sweep.stop()
