"""Real files as they look in the window: a cube map's crosses fill their panels under thin
seam lines the user can hide, and a volume opens on its middle slice at its own range."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.io.containers import ktx2
from mipview.io.synthetic import cube_image
from mipview.ui import steps
from tests.shader_examples import needs_compilers
from tests.ui.conftest import WAIT_MS
from tests.ui.test_main_window import open_and_wait

FOUR = [StrategySpec(s) for s in ("per-level", "blit", "single-pass", "filter-pairs")]


def click_run(qtbot, w, specs: list[StrategySpec], repeat: int = 0) -> None:
    """Tick ``specs`` in the Setup list, click Run and wait for the Run to end."""
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)  # the open's job ends
    w.panel.set_specs(specs)
    w.panel.repeat_spin.setValue(repeat)
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        qtbot.mouseClick(w.panel.run_button, Qt.MouseButton.LeftButton)
    assert w.errors == []


def settled(qtbot, w) -> None:
    qtbot.waitUntil(lambda: not w.pyramid.pool.busy() and not steps.pending()
                    and not w.replies.pending(), timeout=WAIT_MS)


def shown_window(make_window, qtbot):
    w = make_window()
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    return w


def open_sky(qtbot, w, tmp_path, n: int = 64):
    level0 = np.rint(cube_image(n).pixels * 255).astype(np.uint8)
    path = tmp_path / "sky.ktx2"
    path.write_bytes(ktx2.encode([level0], Format.UNORM, faces=6))
    open_and_wait(qtbot, w, path)


def cross_fill(panel, n: int) -> float:
    """How much of its panel level 0's cross takes on screen: the larger of its share of the
    box's width and of its height."""
    (x0, x1), (y0, y1) = panel.view.viewRange()
    w, h = panel.view.width(), panel.view.height()
    return max(4 * n * w / (x1 - x0) / w, 3 * n * h / (y1 - y0) / h)


def test_cube_crosses_fill_their_panels_after_a_run_of_four(qtbot, make_window, tmp_path):
    w = shown_window(make_window, qtbot)
    open_sky(qtbot, w, tmp_path)
    click_run(qtbot, w, FOUR)
    settled(qtbot, w)
    view = w.pyramid
    assert sorted(p.key for p in view.panels) == sorted(str(s) for s in FOUR)
    widths = {round(p.view.width()) for p in view.panels}
    assert len(widths) == 1, widths  # linked boxes of locked aspect need alike columns
    for panel in view.panels:
        assert cross_fill(panel, 64) > 0.6, (panel.key, panel.view.viewRange())


def test_cross_fill_fails_a_view_zoomed_out(qtbot, make_window, tmp_path):
    w = shown_window(make_window, qtbot)
    open_sky(qtbot, w, tmp_path)
    settled(qtbot, w)
    panel = w.pyramid.panels[0]
    assert cross_fill(panel, 64) > 0.6
    panel.view.scaleBy((6, 6))
    assert cross_fill(panel, 64) < 0.6


def _seam_share(qtbot, w) -> float:
    """The share of the first panel's pixels the Seams check changes."""
    view = w.pyramid

    def grab():
        settled(qtbot, w)
        qtbot.wait(50)
        img = view.graphics.grab().toImage()
        return np.array([[img.pixel(x, y) for x in range(0, img.width(), 2)]
                         for y in range(0, img.height(), 2)])

    on = grab()
    view.cube.seams_check.click()  # the user's click: the lines go
    assert not view.cube.seams_check.isChecked() and view.seam_segments("per-level") == []
    off = grab()
    view.cube.seams_check.click()
    assert len(view.seam_segments("per-level")) == 19 * 7  # every level's cross
    values, counts = np.unique(off, return_counts=True)
    backgrounds = values[np.argsort(counts)[-2:]]  # the grid's and the boxes'
    cross = (~np.isin(off, backgrounds)).sum()  # the levels (and the titles)
    return float((on != off).sum() / max(1, cross))


def test_seams_are_thin_lines_the_user_can_hide(qtbot, make_window, tmp_path):
    w = shown_window(make_window, qtbot)
    open_sky(qtbot, w, tmp_path)
    click_run(qtbot, w, FOUR)
    assert w.pyramid.cube.seams_check.isVisible()
    share = _seam_share(qtbot, w)
    assert 0 < share < 0.2, share  # 2-pixel lines with numbers over them took 0.48


def volume_file(tmp_path):
    """A dim fog: slice 0 is black, the middle slices hold a glow no brighter than 0.25."""
    z, y, x = np.mgrid[0:16, 0:24, 0:32]
    r = np.sqrt((x - 16) ** 2 + (y - 12) ** 2 + 4 * (z - 8) ** 2)
    vol = np.zeros((16, 24, 32, 4), np.uint8)
    vol[..., 0] = np.clip(64 - r * 6, 0, 64).astype(np.uint8)
    vol[..., 1] = vol[..., 0] // 2
    vol[..., 3] = 255
    path = tmp_path / "fog.volume.npy"
    np.save(path, vol)
    return path, vol


def test_a_volume_opens_on_its_middle_slice_at_its_range(qtbot, make_window, tmp_path):
    path, vol = volume_file(tmp_path)
    assert not vol[0, ..., :3].any()  # the slice a volume used to open on
    w = shown_window(make_window, qtbot)
    open_and_wait(qtbot, w, path)
    settled(qtbot, w)
    view = w.pyramid
    assert view.layer() == 8 and view.layer_spin.value() == 8
    s = view.settings
    assert s.black == 0.0 and abs(s.white - 64 / 255) < 1e-6  # the volume's range, not [0, 1]
    shown = view.displayed("source", 0)
    assert shown[12, 16, 0] == 255  # the glow's centre at white
    # a Run of the same volume keeps the slice the user chose
    view.layer_spin.setValue(5)
    click_run(qtbot, w, [StrategySpec("per-level")])
    settled(qtbot, w)
    assert view.layer() == 5


def ticked_rows(panel) -> list[str]:
    """The strategies the Setup list shows ticked, as the user sees them (rows not hidden)."""
    from PySide6.QtWidgets import QCheckBox

    out = []
    for i in range(panel.list.count()):
        item = panel.list.item(i)
        check = panel.list.itemWidget(item).findChild(QCheckBox)
        if not panel.list.isRowHidden(i) and check.isChecked():
            out.append(str(item.data(Qt.ItemDataRole.UserRole)))
    return out


def test_after_a_volume_run_the_setup_list_shows_what_ran(qtbot, make_window, tmp_path,
                                                          small_png):
    path, _ = volume_file(tmp_path)
    w = shown_window(make_window, qtbot)
    open_and_wait(qtbot, w, path)
    assert ticked_rows(w.panel) == ["volume-per-level", "volume-tiles"]  # what Run will make
    click_run(qtbot, w, [StrategySpec("single-pass"), StrategySpec.parse("per-level:reduction=min")])
    ran = ticked_rows(w.panel)
    assert sorted(ran) == sorted(str(v) for v in w.volume_ran.done.verdicts)
    assert sorted(ran) == ["volume-per-level", "volume-per-level:reduction=min",
                           "volume-tiles", "volume-tiles:reduction=min"]
    # a 2D image: its own strategies again, as they were ticked
    open_and_wait(qtbot, w, small_png)
    assert sorted(ticked_rows(w.panel)) == ["per-level", "single-pass"]


def test_a_screenshot_waits_for_the_verdicts(qtbot, tmp_path, small_png, monkeypatch):
    from PySide6.QtWidgets import QApplication

    from mipview.cli.main import build_parser
    from mipview.ui import app

    monkeypatch.setattr(QApplication, "exit", staticmethod(lambda status=0: None))
    out = tmp_path / "shot.png"
    window, auto = app.build_gui(build_parser().parse_args(
        ["gui", str(small_png), "--run", "blit,per-level", "--screenshot", str(out)]))
    qtbot.addWidget(window)
    seen = []
    grab = window.screenshot

    def screenshot(path: str) -> bool:
        seen.append((window.statusBar().currentMessage(), window.analysis))
        return grab(path)

    window.screenshot = screenshot
    try:
        qtbot.waitUntil(lambda: bool(seen), timeout=WAIT_MS)
        message, analysis = seen[0]
        assert analysis is not None and out.exists()
        assert message == "verdicts: all ok: blit, per-level", message  # not "analysing 2/2"
    finally:
        window.shutdown()


ODD_EDGE_BUG = "odd_edge_bug.comp"


@needs_compilers
def test_a_result_out_of_tolerance_is_marked_in_the_window(qtbot, make_window, tmp_path):
    from PIL import Image

    from mipview.ui.workers.shader_watch import shader_name
    from tests.shader_examples import EXAMPLES
    from tests.ui.test_custom_shaders import add_and_wait

    image = tmp_path / "odd.png"  # odd sides: the shader skips a column and a row of level 1
    Image.fromarray(np.random.default_rng(3).integers(0, 256, (23, 37, 4), np.uint8)).save(image)
    shader = tmp_path / "bug.comp"
    shader.write_text((EXAMPLES / ODD_EDGE_BUG).read_text())
    w = shown_window(make_window, qtbot)
    open_and_wait(qtbot, w, image)
    name = add_and_wait(qtbot, w, shader)
    assert name == shader_name(shader)
    click_run(qtbot, w, [StrategySpec(name), StrategySpec("per-level")])
    settled(qtbot, w)
    line = w.statusBar().currentMessage()
    assert line.startswith(f"verdicts: {name}: OUT OF TOLERANCE") and "ok: per-level" in line
    view = w.pyramid
    assert view.verdict_marked(name) and not view.verdict_marked("per-level")
    assert w.panel.verdict_shown(name).startswith("OUT OF TOLERANCE")
    assert w.panel.verdict_shown("per-level") == ""
    # a Run that keeps every promise: the marks go
    click_run(qtbot, w, [StrategySpec("per-level")])
    settled(qtbot, w)
    assert w.statusBar().currentMessage() == "verdicts: all ok: per-level"
    assert not view.verdict_marked("per-level") and w.panel.verdict_shown(name) == ""
