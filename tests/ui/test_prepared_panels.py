"""The pyramid view makes a Run's panels when Run is pressed (``PyramidView.prepare``), before
the worker's threads start, and the levels that come then fill those very panels; a panel made
for a result that never comes (skipped, stopped) does not stay."""

from __future__ import annotations

import numpy as np

from mipview.core.formats import Format, mip_count
from mipview.core.specs import StrategySpec
from mipview.io import containers
from mipview.ui.display import to_display
from tests.ui.conftest import stamp_image
from tests.ui.test_main_window import SPECS, WAIT_MS, open_and_wait, run_and_wait, send_reply


def _pyramid(w: int, h: int) -> tuple[np.ndarray, ...]:
    return tuple(np.full((max(1, h >> i), max(1, w >> i), 4), 40 * i, np.uint8)
                 for i in range(mip_count(w, h)))


def _made(view) -> dict:
    """Each panel's graphics objects, by key."""
    return {p.key: (p, p.view, p.label, list(p.items)) for p in view.panels}


def _in_grid(view) -> set:
    return set(view.graphics.ci.items)


def test_results_fill_the_prepared_panels_and_a_skipped_one_goes(view, qtbot):
    fmt = Format.UNORM
    view.set_pyramids([("source", "stamp (source)", (stamp_image(),), fmt)])
    source = view.panels[0]
    # how many panels hold image items after each turn of the event loop that prepares
    with_items: list[int] = []
    step = view.grid._prepare_step

    def counted(generation: int) -> None:
        step(generation)
        with_items.append(sum(bool(p.items) for p in view.panels if p.key != "source"))

    view.grid._prepare_step = counted
    view.prepare([("a", "A"), ("b", "B"), ("c", "C")], 64, 48)
    assert view.pending and not view.ab.flip_button.isEnabled()
    # made in turns of the event loop after the press of Run, not in it
    assert view.preparing and [p.key for p in view.panels] == ["source"]
    qtbot.waitUntil(lambda: not view.preparing, timeout=2000)
    # a panel's image items per turn: 55 in one turn were a 32 ms stall
    assert [n for n in with_items if n] == [1, 2, 3, 3]
    assert [(p.key, p.label.text) for p in view.panels] == [("a", "A"), ("b", "B"), ("c", "C")]
    # every level of a 64x48 pyramid has its image item, in the result's places
    assert all(len(p.items) == 7 and p.levels == () for p in view.panels)
    assert view.panels[0].rects[6].width() == 1
    assert source.view.scene() is None and source.view not in _in_grid(view)
    made = _made(view)

    # "c" was skipped: the results fill the panels of "a" and "b", and "c"'s leaves the grid
    view.set_pyramids([("a", "A", _pyramid(64, 48), fmt), ("b", "B", _pyramid(64, 48), fmt)])
    assert not view.pending and view.ab.flip_button.isEnabled()
    assert [p.key for p in view.panels] == ["a", "b"]
    for panel in view.panels:
        p, vb, label, items = made[panel.key]
        assert panel is p and panel.view is vb and panel.label is label
        assert all(a is b for a, b in zip(panel.items, items, strict=True))
    gone = made["c"]
    assert gone[1].scene() is None and gone[2].scene() is None
    assert _in_grid(view) == {p.view for p in view.panels} | {p.label for p in view.panels}
    assert view.panels[1].view.linkedView(0) is view.panels[0].view
    qtbot.waitUntil(lambda: view.displayed("b", 6) is not None, timeout=WAIT_MS)
    last = view.panel_levels("b")[6]
    assert np.array_equal(view.displayed("b", 6), to_display(last, fmt, 0, view.settings))


def test_results_before_the_panels_are_made_fill_them_in_prepares_last_step(view, qtbot):
    """A fast GPU's results come while prepare still makes the panels. The results' turn makes
    no panel, grid or image item (made there, they were a first Run's longest turn on the H100
    machine); prepare's steps go on, one panel or one panel's items per turn, and the last one
    fills the panels. A panel for a result that did not come is not made."""
    fmt = Format.UNORM
    view.set_pyramids([("source", "stamp (source)", (stamp_image(),), fmt)])
    filled: list[list[str]] = []
    view.sigFilled.connect(lambda: filled.append([p.key for p in view.panels if p.levels]))
    view.prepare([("a", "A"), ("b", "B"), ("c", "C")], 64, 48)
    qtbot.waitUntil(lambda: len(view.grid.ahead) == 1, timeout=2000)
    keys = ["a", "b"]  # "c" was skipped
    view.set_pyramids([(k, k.upper(), _pyramid(64, 48), fmt) for k in keys])
    assert view.filling and view.preparing and view.pending
    assert [p.key for p in view.panels] == ["source"] and list(view.grid.ahead) == ["a"]
    # after each later step: panels made, and panels with their image items
    counts: list[tuple[int, int]] = []
    step = view.grid._prepare_step

    def counted(generation: int) -> None:
        step(generation)
        new = [p for p in view.panels if p.key != "source"]
        counts.append((len(view.grid.ahead) + len(new), sum(bool(p.items) for p in new)))

    view.grid._prepare_step = counted
    qtbot.waitUntil(lambda: not view.filling, timeout=2000)
    assert counts == [(2, 0), (2, 0), (2, 1), (2, 2), (2, 2)]
    assert filled == [keys] and not view.pending and not view.preparing
    assert [(p.key, p.label.text) for p in view.panels] == [("a", "A"), ("b", "B")]
    assert [len(p.items) for p in view.panels] == [7, 7]
    for k in keys:
        qtbot.waitUntil(lambda k=k: view.displayed(k, 6) is not None, timeout=WAIT_MS)
        assert np.array_equal(view.displayed(k, 6),
                              to_display(view.panel_levels(k)[6], fmt, 0, view.settings))


def test_the_window_shows_a_run_once_its_levels_fill_the_panels(qtbot, make_window, small_png):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    w.panel.repeat_spin.setValue(0)
    out = run_and_wait(qtbot, w, SPECS)["output"]
    open_and_wait(qtbot, w, small_png)  # the source alone again
    signals: list[tuple[str, list[str]]] = []

    def record(name: str) -> None:
        signals.append((name, [p.key for p in w.pyramid.panels if p.levels]))

    w.sigRunShown.connect(lambda _o: record("shown"))
    w.sigJobFinished.connect(lambda j: record("finished") if j == out.job else None)
    # the same levels again, and the end of their job, as they come on a fast GPU while the
    # panels are still being made: the window says so once the levels are in the panels
    w.pyramid.prepare([(str(s), containers.title(s)) for s in SPECS], 64, 48)
    send_reply(qtbot, w, out)
    w.worker.sigJobFinished.emit(out.job)
    qtbot.waitUntil(lambda: not w.replies.pending(), timeout=WAIT_MS)
    assert w.pyramid.filling and signals == []
    qtbot.waitUntil(lambda: len(signals) == 2, timeout=WAIT_MS)
    assert signals == [("shown", [str(s) for s in SPECS]), ("finished", [str(s) for s in SPECS])]


def test_a_run_that_brings_nothing_gives_the_view_back(view, qtbot):
    fmt = Format.UNORM
    view.set_pyramids([("source", "stamp (source)", (stamp_image(),), fmt)])
    qtbot.waitUntil(lambda: view.displayed("source", 0) is not None, timeout=WAIT_MS)
    view.panels[0].view.setRange(xRange=(3, 13), yRange=(2, 12), padding=0)
    zoomed = view.panels[0].view.viewRange()
    view.prepare([("a", "A"), ("b", "B")], 64, 48)
    qtbot.waitUntil(lambda: not view.preparing, timeout=WAIT_MS)
    prepared = [p.view for p in view.panels]
    view.flip()  # nothing to flip while the panels wait
    assert not view.flipped
    view.discard_prepared()  # stopped: the source again, as it was, and no empty panel
    assert not view.pending
    assert [p.key for p in view.panels] == ["source"]
    assert all(vb.scene() is None for vb in prepared)
    assert view.displayed("source", 0) is not None
    assert np.allclose(view.panels[0].view.viewRange(), zoomed)


def test_run_makes_its_panels_ahead_and_its_levels_fill_them(qtbot, make_window, small_png):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    w.panel.repeat_spin.setValue(0)  # levels, then the analysis
    shown = []
    w.sigRunShown.connect(shown.append)
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        w.run(False, SPECS)
        assert w.pyramid.pending  # Run pressed: its panels are made in the next turns
        qtbot.waitUntil(lambda: not w.pyramid.preparing, timeout=WAIT_MS)
        assert [(p.key, p.label.text) for p in w.pyramid.panels] == [
            (str(s), containers.title(s)) for s in SPECS]
        made = _made(w.pyramid)
    assert len(shown) == 1 and w.errors == []
    for panel in w.pyramid.panels:
        p, vb, label, items = made[panel.key]
        assert panel is p and panel.view is vb and panel.label is label
        assert all(a is b for a, b in zip(panel.items, items, strict=True))
        assert panel.levels is not None and len(panel.levels) == 7

    # a Run with one more strategy, stopped at once: its new panel goes, the others stay
    extra = StrategySpec("npot-exact")
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        w.run(False, [*SPECS, extra])
        qtbot.waitUntil(lambda: not w.pyramid.preparing, timeout=WAIT_MS)
        assert [p.key for p in w.pyramid.panels] == [*made, str(extra)]
        new = w.pyramid.panel(str(extra)).view
        w.stop()
    assert len(shown) == 1 and not w.pyramid.pending
    assert [p.key for p in w.pyramid.panels] == list(made)
    assert all(p is made[p.key][0] and len(p.levels) == 7 for p in w.pyramid.panels)
    assert new.scene() is None


def test_panels_added_together_are_laid_out_at_once(view):
    """The grid is laid out once for all the panels added (not after each item, as pyqtgraph
    does), and before the turn ends: a fit in that turn needs the boxes' sizes."""
    fmt = Format.UNORM
    view.set_pyramids([(k, k.upper(), _pyramid(64, 48), fmt) for k in "abc"])
    boxes = [p.view.geometry() for p in view.panels]
    assert all(b.width() > 50 and b.height() > 50 for b in boxes)
    assert len({(b.x(), b.y()) for b in boxes}) == 3
    assert not any(b.intersects(c) for i, b in enumerate(boxes) for c in boxes[i + 1:])
