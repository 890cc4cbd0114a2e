"""The window's space goes to what the user is doing: at 1600x1000 the Setup
panel shows every built-in strategy at once, however many are checked and whichever one's
options are open, and the Custom shaders dock and its messages take no room until they hold
something."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from tests.shader_examples import EXAMPLES, needs_compilers
from tests.ui.test_main_window import WAIT_MS

BOX = (EXAMPLES / "box_per_level.comp").read_text()
STORE = "    mipLevelStore(p, v);"
BROKEN = BOX.replace(STORE, "    mipLevelStore(p, nope);")
#: how tall an empty, collapsed Custom shaders dock may be: a title and one row of buttons
COLLAPSED_PX = 90


def shown_at_1600x1000(qtbot, window) -> None:
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    settle()


def settle() -> None:
    """Let layouts and docks take their new sizes."""
    for _ in range(5):
        QApplication.processEvents()


def fully_visible(widget: QWidget, window: QWidget) -> str | None:
    """Why ``widget`` is not fully on screen without scrolling (None: it is): hidden, cut by the
    viewport of a scroll area it sits in, or outside the window."""
    if not widget.isVisible():
        return "hidden"
    rect = widget.rect()
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            port = parent.viewport()
            inside = QRect(widget.mapTo(port, QPoint(0, 0)), rect.size())
            if not port.rect().contains(inside):
                return f"outside the viewport {port.rect()} of a scroll area: at {inside}"
        parent = parent.parentWidget()
    in_window = QRect(widget.mapTo(window, QPoint(0, 0)), rect.size())
    if not window.rect().contains(in_window):
        return f"outside the window: at {in_window}"
    if widget.visibleRegion().boundingRect() != rect:
        return f"partly covered: visible {widget.visibleRegion().boundingRect()} of {rect}"
    return None


def test_every_strategy_fits_with_several_checked(qtbot, make_window):
    w = make_window()
    shown_at_1600x1000(qtbot, w)
    names = list(strategies.REGISTRY)
    assert len(names) >= 7  # the built-in ones; each must fit, not only the first few
    # several checked, with non-default options: their options must not push the others out
    w.panel.set_specs([StrategySpec(n) for n in names if n != "register-chain"])
    w.panel.rows["per-level"].combos["filter"].setCurrentIndex(1)
    w.panel.rows["subgroup"].combos["layout"].setCurrentIndex(1)
    settle()
    cut = {name: fully_visible(w.panel.rows[name].check, w) for name in names}
    assert {name: why for name, why in cut.items() if why is not None} == {}


def test_the_current_strategys_options_show_below_the_list(qtbot, make_window):
    w = make_window()
    shown_at_1600x1000(qtbot, w)
    panel = w.panel
    for name in ("per-level", "subgroup", "blit", "single-pass"):
        panel.select(name)
        settle()
        assert panel.current() == name
        for other, row in panel.rows.items():
            assert fully_visible(row.check, w) is None, (name, other)
            for combo in row.combos.values():  # only the current strategy's options show
                assert combo.isVisible() == (other == name), (name, other)
        for combo in panel.rows[name].combos.values():
            # below the list, in the detail pane (which may scroll: the list does not)
            below = combo.mapTo(panel, QPoint(0, 0)).y()
            assert below > panel.rows[names_last(panel)].check.mapTo(panel, QPoint(0, 0)).y()


def names_last(panel) -> str:
    return list(panel.rows)[-1]


def test_the_summary_names_non_default_options(qtbot, make_window):
    w = make_window()
    row = w.panel.rows["per-level"]
    assert w.panel.summary("per-level") == ""
    row.combos["filter"].setCurrentText("lanczos3")
    assert "filter=lanczos3" in w.panel.summary("per-level")
    row.combos["filter"].setCurrentText("box")
    assert w.panel.summary("per-level") == ""


def test_options_that_change_nothing_are_greyed_out(qtbot, make_window):
    w = make_window()
    row = w.panel.rows["per-level"]
    width, cutoff = row.combos["kaiser-width"], row.combos["cutoff"]
    # the box: Kaiser's options, the edges and the alpha cutoff change nothing
    idle = {name for name, combo in row.combos.items() if not combo.isEnabled()}
    assert idle == {"edge", "kaiser-width", "kaiser-alpha", "cutoff"}
    assert not width.label.isEnabled()
    assert width.toolTip().startswith("No effect here: only with filter=kaiser.")
    row.combos["filter"].setCurrentText("kaiser")
    assert width.isEnabled() and width.label.isEnabled() and row.combos["edge"].isEnabled()
    assert not width.toolTip().startswith("No effect")
    assert not cutoff.isEnabled()
    row.combos["alpha"].setCurrentText("coverage")
    assert cutoff.isEnabled()
    # a value set while in play is kept when greyed out, but is not in the spec or summary
    width.setCurrentText("4")
    assert "kaiser-width=4" in w.panel.summary("per-level")
    row.combos["filter"].setCurrentText("lanczos3")
    assert not width.isEnabled() and width.currentText() == "4"
    assert "kaiser-width" not in w.panel.summary("per-level")
    assert "kaiser-width" not in str(row.spec())
    row.combos["filter"].setCurrentText("kaiser")
    assert "kaiser-width=4" in str(row.spec())


def test_empty_custom_shaders_and_messages_take_no_room(qtbot, make_window):
    w = make_window()
    shown_at_1600x1000(qtbot, w)
    # nothing added: no empty shader list, no empty messages box, the dock a strip at most
    assert not w.shaders.list.isVisible()
    assert not w.shaders.messages.isVisible()
    assert w.shader_dock.isHidden() or w.shader_dock.height() <= COLLAPSED_PX, \
        w.shader_dock.height()
    assert w.panel_dock.height() > 1000 - 300 - COLLAPSED_PX - 100  # the room went to Setup


@needs_compilers
def test_custom_shaders_and_messages_appear_when_they_hold_something(qtbot, make_window,
                                                                      tmp_path):
    w = make_window()
    shown_at_1600x1000(qtbot, w)
    path = tmp_path / "mine.comp"
    path.write_text(BOX)
    with qtbot.waitSignal(w.shaders.sigLoaded, timeout=WAIT_MS):
        w.shaders.add(path)
    settle()
    assert w.shader_dock.isVisible() and w.shaders.list.isVisible()
    assert w.shaders.list.count() == 1
    assert w.shader_dock.height() > COLLAPSED_PX
    assert not w.shaders.messages.isVisible()  # a good compile says nothing

    with qtbot.waitSignal(w.shaders.sigCompiled, timeout=WAIT_MS):
        path.write_text(BROKEN)
    settle()
    assert w.shaders.messages.isVisible() and w.shaders.messages.count() > 0
    # the list, the messages and every strategy (the shader's row too) fit the window as it is
    assert w.height() == 1000
    for n, row in w.panel.rows.items():
        assert fully_visible(row.check, w) is None, n

    with qtbot.waitSignal(w.shaders.sigCompiled, timeout=WAIT_MS):
        path.write_text(BOX)
    settle()
    assert not w.shaders.messages.isVisible()  # fixed: the messages go away again

    name = w.shaders.names()[0]
    w.shaders.remove(name)
    settle()
    assert not w.shaders.list.isVisible()
    assert w.shader_dock.isHidden() or w.shader_dock.height() <= COLLAPSED_PX
    # the built-in strategies still all fit
    for n in strategies.REGISTRY:
        assert fully_visible(w.panel.rows[n].check, w) is None, n


def test_a_click_on_a_row_shows_its_options_and_space_checks_it(qtbot, make_window):
    w = make_window()
    shown_at_1600x1000(qtbot, w)
    panel = w.panel
    # a click on the row's summary (as on a disabled checkbox: an unsupported strategy's
    # options can still be changed) makes it current
    qtbot.mouseClick(panel.rows["filter-pairs"].summary_label, Qt.MouseButton.LeftButton)
    assert panel.current() == "filter-pairs"
    assert panel.rows["filter-pairs"].combos["filter"].isVisible()
    # a click on a checkbox checks it and makes its row current
    check = panel.rows["subgroup"].check
    was = check.isChecked()
    qtbot.mouseClick(check, Qt.MouseButton.LeftButton)
    assert check.isChecked() != was and panel.current() == "subgroup"
    # the arrow keys move the current row; Space checks it
    panel.list.setFocus()
    panel.select("blit")
    qtbot.keyClick(panel.list, Qt.Key.Key_Down)
    assert panel.current() == list(panel.rows)[1]
    row = panel.rows[panel.current()]
    was = row.check.isChecked()
    qtbot.keyClick(panel.list, Qt.Key.Key_Space)
    assert row.check.isChecked() != was
