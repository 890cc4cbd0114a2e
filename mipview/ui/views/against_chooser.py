"""The Heatmaps tab's choice of what is shown against what: a result of the Run shown (the
strategy), and what it is compared with.

Against the exact reference, the figures are the strategy's verdict's (the view keeps them as
they arrive). Against another strategy of the Run, ``compare.level_errors`` /
``compare.difference_map`` are computed on demand by the compare worker: the chooser asks with
``sigCompare``, the view says "computing" meanwhile, and what comes back is kept.

More choices compare a result with its own other chains (:mod:`mipview.runs.against` says when
each is offered): "previous version", the levels an earlier Run of the same strategy wrote that
differ (after a custom shader's hot reload: what the edit changed); "device N", the same
strategy run on the Run's level 0 on that device (:meth:`AgainstChooser.set_devices`; asked of
the window by ``sigRunOnDevice``: a job of the GPU worker, on a context of its own, once per
Run); and "saved run…", a folder dialog (or :meth:`AgainstChooser.load_saved_run`) whose run
folder is read in the ``sides`` pool, the same strategy's levels there. All are compared by the
compare worker as another strategy is (the window asks for the levels by
:meth:`AgainstChooser.against_levels`), in the format's unit; a saved run that does not fit, or
a device that cannot run the strategy, is told by ``sigError`` and changes nothing.

Signals
-------
sigCompare(str, str)   strategy and what it is compared with (another strategy, PREVIOUS,
                       SAVED or a device): a comparison not got yet
sigError(WorkerError)  a saved run that cannot be compared with the run shown (why, one line)
sigRunOnDevice(str, str)  device index and strategy: run it there on the Run's level 0
sigSavedLoaded(str)    a saved run's folder was read and is offered (and shown) as "against"
sigRefresh()           the pair chosen, or what it is compared with, changed: show it again
"""

from __future__ import annotations

import contextlib
import itertools
import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QSignalBlocker, Signal
from PySide6.QtWidgets import QComboBox, QFileDialog, QWidget

from mipview.io import containers
from mipview.runs.against import (
    DeviceSide,
    Kept,
    PreviousVersions,
    SavedFailed,
    SavedSide,
    chain_key,
    levels_differ,
    open_saved_side,
    read_saved_side,
)
from mipview.ui.messages import Comparison, DeviceRunOutput, LevelsReady, WorkerError
from mipview.ui.panels.steady_label import SteadyLabel
from mipview.ui.views.pixel_pool import PixelPool

EXACT = "__exact__"
#: against the strategy's previous version (runs.against: an earlier Run's levels that differ);
#: with a space, so no spec is spelt so
PREVIOUS = "previous version"
#: against the strategy's levels in the saved run read last
SAVED = "saved run"
#: the entry that opens a folder dialog for a saved run; it never stays selected
PICK_SAVED = "pick a saved run"
#: the data of a "device N" choice: this prefix and the device's index
DEVICE = "device:"
#: the entries that depend on the strategy shown and on what the view keeps (_offer_against)
SIDE_CHOICES = (PREVIOUS, SAVED, PICK_SAVED)
#: a file read runs in the pool's thread however small (PixelPool runs small inputs at once)
FILE_READ = 1 << 62
SAVED_TITLE = "Cannot compare with saved run"
DEVICE_TITLE = "Cannot compare with another device"


def is_device(against: object) -> bool:
    """A "device N" choice (the combo's data: None where it has no entry)."""
    return isinstance(against, str) and against.startswith(DEVICE)


def kept_choice(against: object) -> bool:
    """A side the user chose (previous version, saved run, device N): kept across Runs where it
    is offered again, and "no texel differs" when nothing does."""
    return against in (PREVIOUS, SAVED) or is_device(against)


class AgainstChooser(QObject):
    """The strategy and "against" combo boxes, what each choice is compared with, and the
    comparisons got so far for the Run shown. ``summary`` is the view's line, where the chooser
    says what it reads or runs, and what failed."""

    sigCompare = Signal(str, str)
    sigError = Signal(object)
    sigSavedLoaded = Signal(str)
    sigRunOnDevice = Signal(str, str)
    sigRefresh = Signal()

    def __init__(self, summary: SteadyLabel, parent: QWidget) -> None:
        super().__init__(parent)
        self.summary = summary
        self.strategy_combo = QComboBox()
        self.against_combo = QComboBox()
        self.output: LevelsReady | None = None
        #: (strategy, against) -> its comparison with another strategy, for ``output``
        self._cache: dict[tuple[str, str], Comparison] = {}
        #: (strategy, against) -> the job computing it
        self._pending: dict[tuple[str, str], int] = {}
        #: each strategy's previous version, since the image opened
        self.previous = PreviousVersions()
        self._checks = itertools.count()
        #: the saved run read last (by load_saved_run) and its levels read so far, by strategy
        self._saved: SavedSide | None = None
        self._saved_levels: dict[str, tuple[np.ndarray, ...]] = {}
        self._saved_reading: set[str] = set()
        #: the devices offered as "device N" (their names, by index), and what each made of the
        #: Run shown: (choice, strategy) -> levels, and the runs under way -> (job, whether it
        #: waits for the GPU worker's job before it)
        self._devices: list[str] = []
        self._device_sides: dict[tuple[str, str], DeviceSide] = {}
        self._device_running: dict[tuple[str, str], tuple[int, bool]] = {}
        #: PREVIOUS, SAVED or a device while the user keeps that choice: it outlives a Run (a
        #: hot reload's re-run shows what the edit changed) and comes back where it is offered
        #: again
        self._sticky: str | None = None
        #: the "against" the view showed last: where the pick entry returns to
        self.shown_against = EXACT
        #: the summary while a saved run is read, and what it said before
        self._reading_text = self._summary_before = ""
        #: set_run is under way: it offers the choices, and the view refreshes once, at its end
        self._building = False
        #: previous-version checks and saved-run reads: apart from the view's pool, which
        #: forgets its jobs at each Run, while these outlive it
        self.sides = PixelPool(self)
        self.strategy_combo.currentIndexChanged.connect(lambda _: self._strategy_changed())
        self.against_combo.currentIndexChanged.connect(lambda _: self._against_changed())

    # --- the choice -------------------------------------------------------------------------
    def strategy(self) -> str:
        """The result shown (``str`` of its spec), "" before a run."""
        return self.strategy_combo.currentData() or ""

    def selection(self) -> tuple[str, str]:
        return self.strategy(), self.against_combo.currentData() or EXACT

    def levels_of(self, name: str) -> tuple[np.ndarray, ...] | None:
        """Result ``name``'s levels in the Run shown."""
        if self.output is None:
            return None
        return next((r.levels for r in self.output.mip.results if str(r.spec) == name), None)

    def set_run(self, output: LevelsReady) -> None:
        """The strategies of a new Run, offered; the strategy shown stays where the Run has it.
        Quiet: the view refreshes."""
        self.output = output
        self._cache.clear()
        self._pending.clear()
        self._device_sides.clear()  # made from another Run's level 0
        keep = self.strategy()
        names = [str(r.spec) for r in output.mip.results]
        self._building = True
        try:
            with self._quiet_combos():
                self.strategy_combo.clear()
                self.against_combo.clear()
                self.against_combo.addItem("exact reference", EXACT)
                for r, n in zip(output.mip.results, names, strict=True):
                    self.strategy_combo.addItem(containers.title(r.spec), n)
                    self.against_combo.addItem(containers.title(r.spec), n)
                if keep in names:
                    self.strategy_combo.setCurrentIndex(self.strategy_combo.findData(keep))
            self._keep_versions(output)
            if self._saved is not None and self._saved.key != chain_key(output.mip):
                self._forget_saved()  # its levels cannot be compared with this Run's
            self._offer_against()
        finally:
            self._building = False

    def clear(self) -> None:
        """Another image: no result kept is a version of the next ones, no saved run fits
        them."""
        self.output = None
        self._cache.clear()
        self._pending.clear()
        self.previous.clear()
        self.sides.forget()
        self._forget_saved()
        self._sticky = None
        self.strategy_combo.clear()
        self.against_combo.clear()

    def select(self, strategy: str, against: str = EXACT) -> None:
        # both at once: the pair in between (the new strategy against the old choice) would
        # cost a comparison nobody asked for
        with self._quiet_combos():
            if self.strategy_combo.findData(strategy) >= 0:
                self.strategy_combo.setCurrentIndex(self.strategy_combo.findData(strategy))
            self._offer_against()  # the strategy's own choices (previous version, saved run)
            i = self.against_combo.findData(against) if against != PICK_SAVED else -1
            self.against_combo.setCurrentIndex(max(0, i))
            self._sticky = against if i >= 0 and kept_choice(against) else None
        self.sigRefresh.emit()

    def _strategy_changed(self) -> None:
        self._offer_against()
        self.sigRefresh.emit()

    def _against_changed(self) -> None:
        against = self.against_combo.currentData()
        if against == PICK_SAVED:  # an action, not a choice: back to the choice shown first
            with QSignalBlocker(self.against_combo):
                self.against_combo.setCurrentIndex(
                    max(0, self.against_combo.findData(self.shown_against)))
            self.pick_saved_run()
            return
        self._sticky = against if kept_choice(against) else None
        self.sigRefresh.emit()

    def _offer_against(self) -> None:
        """The "against" entries of the strategy shown: its previous version, its levels in the
        saved run read, and "saved run…" while a Run is shown. The choice stays where it is
        still offered (a kept PREVIOUS or SAVED comes back where offered again), else it is the
        exact reference. Quiet: the caller refreshes."""
        combo, name = self.against_combo, self.strategy()
        keep = combo.currentData()
        with QSignalBlocker(combo):
            for choice in SIDE_CHOICES:
                if (i := combo.findData(choice)) >= 0:
                    combo.removeItem(i)
            for i in reversed(range(combo.count())):
                if is_device(combo.itemData(i)):
                    combo.removeItem(i)
            if self.previous.levels(name) is not None:
                combo.addItem("previous version", PREVIOUS)
            if self._saved is not None and name in {c.name for c in self._saved.saved.chains}:
                combo.addItem(self._saved.label(), SAVED)
            if self.output is not None:
                for i, device in enumerate(self._devices):
                    combo.addItem(f"device {i}: {device}", f"{DEVICE}{i}")
                combo.addItem("saved run…", PICK_SAVED)
            want = self._sticky if self._sticky is not None \
                and combo.findData(self._sticky) >= 0 else keep
            combo.setCurrentIndex(max(0, combo.findData(want)))

    def _quiet_combos(self) -> contextlib.ExitStack:
        """The combo boxes, not telling anyone they change (the caller refreshes once)."""
        stack = contextlib.ExitStack()
        for combo in (self.strategy_combo, self.against_combo):
            stack.enter_context(QSignalBlocker(combo))
        return stack

    # --- what a choice is compared with -----------------------------------------------------
    def against_levels(self, name: str, against: str) -> tuple[np.ndarray, ...] | None:
        """The levels result ``name`` is compared with for ``against``: another result of the
        Run shown, ``name``'s previous version (PREVIOUS), its levels in the saved run (SAVED)
        or made on a device; None when there are none (yet)."""
        if against == PREVIOUS:
            return self.previous.levels(name)
        if against == SAVED:
            return self._saved_levels.get(name)
        if is_device(against):
            side = self._device_sides.get((against, name))
            return side.levels if side is not None else None
        return self.levels_of(against)

    def label(self, against: str) -> str:
        """``against`` as the summary names it."""
        if against == EXACT:
            return "the exact reference"
        if against == PREVIOUS:
            return "the previous version"
        if against == SAVED and self._saved is not None:
            return f"{self._saved.label()} ({self._saved.origin()})"
        if is_device(against):
            index = int(against.removeprefix(DEVICE))
            side = self._device_sides.get((against, self.strategy()))
            name = side.device if side is not None \
                else self._devices[index] if index < len(self._devices) else "?"
            return f"device {index} ({name})"
        return against

    def comparison(self, name: str, against: str) -> Comparison | None:
        """``name`` compared with ``against`` (not the exact reference), once got."""
        return self._cache.get((name, against))

    def ask(self, name: str, against: str) -> str:
        """Ask for what ``name`` against ``against`` needs, unless it is asked for already: the
        levels to compare with (a saved run's read, a device's run), else the comparison. What
        the summary says meanwhile."""
        if against == EXACT:  # the run's analysis brings it
            return f"analysing {name}…"
        if against == SAVED and name not in self._saved_levels:
            self._read_saved(name)
            return f"reading {name} from {self.label(against)}…"
        if is_device(against) and (against, name) not in self._device_sides:
            self._run_on_device(name, against)
            return f"running {name} on {self.label(against)}" + (
                " after the GPU's job under way…"
                if self._device_running.get((against, name), (0, False))[1] else "…")
        if (name, against) not in self._pending:
            self.sigCompare.emit(name, against)
        return f"computing {name} vs {self.label(against)}…"

    # --- strategy against strategy ----------------------------------------------------------
    def comparing(self, strategy: str, against: str, job: int) -> None:
        """``job`` computes the comparison asked for by ``sigCompare``."""
        self._pending[(strategy, against)] = job

    def set_comparison(self, comparison: Comparison) -> bool:
        """Keep ``comparison`` and show it if it is selected; False (and nothing changes) when it
        is of another run than the one shown."""
        if self.output is None or comparison.run_job != self.output.job:
            return False
        key = (comparison.strategy, comparison.against)
        if comparison.against in (PREVIOUS, SAVED) and self._pending.get(key) != comparison.job:
            return False  # of levels replaced since (a newer previous version, another run)
        self._cache[key] = comparison
        self._pending.pop(key, None)
        if key == self.selection():
            self.sigRefresh.emit()
        return True

    def job_finished(self, job: int) -> None:
        """A job ended: a comparison or a device's run it owed and did not send (it failed or
        was stopped) is no longer awaited; selecting it again asks again."""
        for key in [k for k, j in self._pending.items() if j == job]:
            del self._pending[key]
            if key == self.selection():
                self.summary.setText(f"  {key[0]} vs {key[1]}: not computed")
        for (choice, name) in [k for k, (j, _) in self._device_running.items() if j == job]:
            del self._device_running[(choice, name)]  # stopped: it sent nothing
            if (name, choice) == self.selection():
                self.summary.setText(f"  {name}: not run on {self.label(choice)}: stopped")

    # --- previous versions ------------------------------------------------------------------
    def _keep_versions(self, output: LevelsReady) -> None:
        """Each result of a new Run replaces the one shown of its spec: whether their levels
        differ is checked in ``sides`` (at once when small), and if so the replaced levels are
        its previous version (runs.against)."""
        key = chain_key(output.mip)
        self.previous.retain({str(r.spec) for r in output.mip.results})
        for r in output.mip.results:
            name = str(r.spec)
            old = self.previous.shown(name, Kept(key, r.levels))
            if old is None:
                continue
            texels = sum(a.size // 4 for a in r.levels)
            self.sides.submit(("differs", name, next(self._checks)), texels, levels_differ,
                              (r.levels, old.levels),
                              lambda differ, n=name, o=old: self._version_checked(n, o, differ))

    def _version_checked(self, name: str, old: Kept, differ: bool) -> None:
        if not self.previous.checked(name, old, differ):
            return
        key = (name, PREVIOUS)
        self._cache.pop(key, None)  # a comparison with the version before is of no use
        self._pending.pop(key, None)
        if self._building:  # set_run offers, and the view refreshes once, at its end
            return
        before = self.selection()
        self._offer_against()
        if self.selection() != before or self.selection() == key:
            self.sigRefresh.emit()

    # --- saved runs -------------------------------------------------------------------------
    def pick_saved_run(self) -> None:
        """The "saved run…" entry: a folder dialog, then :meth:`load_saved_run`."""
        start = str(Path(self._saved.path).parent) if self._saved is not None else ""
        path = QFileDialog.getExistingDirectory(
            self.parent(), "Compare with a saved run (a folder of mipview run --out)", start)
        if path:
            self.load_saved_run(path)

    def load_saved_run(self, path: str | os.PathLike[str]) -> bool:
        """Compare the strategy shown with its levels in the run folder ``path`` (``mipview run
        --out``), read in ``sides``, off the UI thread. Once read it is offered and shown
        (sigSavedLoaded); a folder that does not fit the Run shown (another size, format or
        layer count, not holding the strategy, not a run folder) is told by sigError and
        changes nothing. False when no Run is shown."""
        name, shown = self.strategy(), self.output
        levels = self.levels_of(name)
        if shown is None or levels is None:
            return False
        self._note_reading(f"reading {name} from {os.fspath(path)}…")
        self.sides.submit("open saved", FILE_READ, open_saved_side,
                          (os.fspath(path), name, chain_key(shown.mip), len(levels)),
                          self._saved_opened)
        return True

    def _note_reading(self, text: str) -> None:
        """Say in the summary that a saved run is read; :meth:`_end_reading` puts back what it
        said (a folder that does not fit changes nothing)."""
        if not self._reading_text:  # not while another is read: that one's text would stay
            self._summary_before = self.summary.text()
        self._reading_text = f"  {text}"
        self.summary.setText(self._reading_text)

    def _end_reading(self) -> None:
        if self._reading_text and self.summary.text() == self._reading_text:
            self.summary.setText(self._summary_before)
        self._reading_text = ""

    def _saved_opened(self, got: SavedSide | SavedFailed) -> None:
        self._end_reading()
        if isinstance(got, SavedFailed):
            self.sigError.emit(WorkerError(-1, SAVED_TITLE, got.message))
            return
        if self.output is None or chain_key(self.output.mip) != got.key:
            self.sigError.emit(WorkerError(-1, SAVED_TITLE, (
                f"'{got.path}': the run shown changed to another image, size or format while "
                "it was read; choose it again")))
            return
        self._forget_saved()
        self._saved, self._saved_levels = got, {got.strategy: got.levels}
        if self.strategy() == got.strategy:
            self.select(got.strategy, SAVED)
        else:  # another strategy was chosen meanwhile: offered, not forced on it
            self._offer_against()
        self.sigSavedLoaded.emit(got.path)

    def _read_saved(self, name: str) -> None:
        """``name``'s levels in the saved run read (the first strategy read came with it)."""
        saved, levels = self._saved, self.levels_of(name)
        if saved is None or levels is None or name in self._saved_reading:
            return
        self._saved_reading.add(name)
        self.sides.submit(("read saved", name), FILE_READ, read_saved_side,
                          (saved.saved, name, saved.key, len(levels)),
                          lambda got, n=name: self._saved_read(n, got))

    def _saved_read(self, name: str, got: SavedSide | SavedFailed) -> None:
        self._saved_reading.discard(name)
        if self._saved is None or got.path != self._saved.path:
            return  # another saved run (or none) since
        if isinstance(got, SavedFailed):
            if self.selection() == (name, SAVED):
                self.summary.setText(f"  {name}: not read from {self._saved.label()}")
            self.sigError.emit(WorkerError(-1, SAVED_TITLE, got.message))
            return
        self._saved_levels[name] = got.levels
        if self.selection() == (name, SAVED):
            self.sigRefresh.emit()

    def _forget_saved(self) -> None:
        self._saved, self._saved_levels = None, {}
        self._saved_reading.clear()
        for key in [k for k in (*self._cache, *self._pending) if k[1] == SAVED]:
            self._cache.pop(key, None)
            self._pending.pop(key, None)

    # --- another device ---------------------------------------------------------------------
    def set_devices(self, names: list[str]) -> None:
        """The Vulkan devices, by index: each is offered as "device N", on which the strategy
        shown runs again (once per Run) to be compared with, as ``mipview run --devices``."""
        self._devices = list(names)
        if self.output is not None:
            self._offer_against()

    def _run_on_device(self, name: str, choice: str) -> None:
        if self.levels_of(name) is not None and (choice, name) not in self._device_running:
            self.sigRunOnDevice.emit(choice.removeprefix(DEVICE), name)

    def running_on_device(self, device: str, name: str, job: int, queued: bool) -> None:
        """``job`` runs ``name`` on ``device`` as asked by ``sigRunOnDevice``; ``queued``: after
        the GPU worker's job under way (which a Stop ends with it)."""
        self._device_running[(f"{DEVICE}{device}", name)] = (job, queued)

    def set_device_run(self, out: DeviceRunOutput) -> None:
        """What a device made of ``out.strategy`` from ``out.level0``. Kept only while the Run
        shown is the one of that level 0 (the GPU worker's jobs outlive a Run, and another image
        of the same size and format would compare as this one's); else run again where still
        chosen."""
        choice, name, got = f"{DEVICE}{out.device}", out.strategy, out.got
        self._device_running.pop((choice, name), None)
        levels = self.levels_of(name)
        if levels is None or levels[0] is not out.level0:
            if self.selection() == (name, choice):
                self.sigRefresh.emit()
            return
        if isinstance(got, SavedFailed):
            if self.selection() == (name, choice):
                self.summary.setText(f"  {name}: not run on {self.label(choice)}")
            self.sigError.emit(WorkerError(-1, DEVICE_TITLE, got.message))
            return
        self._device_sides[(choice, name)] = got
        if self.selection() == (name, choice):
            self.sigRefresh.emit()

    def shutdown(self) -> None:
        self.sides.shutdown()
