"""A/B flip of the pyramid viewer: another pyramid in the first panel's place, and back.

Flip (T) shows the pyramid chosen in "A/B with" (another result, or the reference) in the first
panel's place, its title marked, and back; the other panels stay as they are. While a Run's
panels wait for its results there is nothing to flip.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QPushButton, QWidget

from mipview.ui.views.pyramid_panels import Panel


class AbFlip:
    """The A/B flip of a pyramid view (``view``, whose part it is; the view module imports
    this one): the "A/B with" choice and the Flip button in the view's bar, and whether the
    first panel shows the pyramid chosen."""

    def __init__(self, view: QWidget) -> None:
        self.view = view
        self.flipped = False
        self.flip_combo = QComboBox()
        self.flip_combo.setToolTip("What Flip (T) shows in the first panel's place")
        self.flip_combo.currentIndexChanged.connect(lambda _: self._target_changed())
        self.flip_button = QPushButton("Flip")
        self.flip_button.setCheckable(True)
        self.flip_button.setToolTip("Show the pyramid chosen beside it in the first panel's "
                                    "place, and back (T)")
        self.flip_button.toggled.connect(self.set_flipped)

    def update_choices(self) -> None:
        """"A/B with" offers every pyramid but the first (the reference too), keeping the one
        chosen when it is still there."""
        current = self.flip_combo.currentData()
        pyramids = self.view._pyramids
        first = pyramids[0][0] if pyramids else None
        self.flip_combo.blockSignals(True)
        self.flip_combo.clear()
        for key, title, _, _ in self.view.entries():
            if key != first:
                self.flip_combo.addItem(title, key)
        i = self.flip_combo.findData(current)
        self.flip_combo.setCurrentIndex(i if i >= 0 else 0)
        self.flip_combo.blockSignals(False)
        self.flip_button.setEnabled(self.flip_combo.count() > 0)

    def _target_changed(self) -> None:
        view = self.view
        if self.flipped and view.panels:
            self.show_source(view.panels[0], self.flip_combo.currentData())
            view._relayout(fit=False)

    def flip(self) -> None:
        """Toggle A/B: the first panel shows the pyramid chosen in "A/B with", or its own."""
        if self.flip_combo.count():
            self.flip_button.toggle()

    def set_flipped(self, on: bool) -> None:
        view = self.view
        if on and view.pending:  # the panels wait for a Run's results: nothing to flip
            on = False
        self.set_silently(on)
        if view.panels and not view.pending:
            first = view.panels[0]
            self.show_source(first, self.flip_combo.currentData() if on else first.key)
            view._relayout(fit=False)

    def hold(self) -> None:
        """A Run's panels are being made (``PanelGrid.prepare``): the first panel shows its own
        pyramid, and Flip waits for the results."""
        panels = self.view.panels
        if self.flipped and panels:
            self.show_source(panels[0], panels[0].key)
        self.set_silently(False)
        self.flip_button.setEnabled(False)  # until the results come

    def reshow(self) -> None:
        """The first panel, given its own pyramid again, shows the one chosen while flipped."""
        panels = self.view.panels
        if self.flipped and panels:
            self.show_source(panels[0], self.flip_combo.currentData())

    def set_silently(self, on: bool) -> None:
        self.flipped = on
        self.flip_button.blockSignals(True)
        self.flip_button.setChecked(on)
        self.flip_button.blockSignals(False)

    def show_source(self, panel: Panel, source: str) -> None:
        """Panel ``panel`` shows pyramid ``source`` (its own key: its own pyramid)."""
        _, title, levels, fmt = self.view._entry(source)
        panel.source, panel.levels, panel.fmt = source, tuple(levels), fmt
        flipped = source != panel.key
        panel.title = f"{title}   [B: flipped, T]" if flipped else title
        self.view._label(panel)
