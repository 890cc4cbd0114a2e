"""The window's Image list: an EXR that holds more than one image (a render's R G B A beside its
depth Z) lists them as its reader does (``TextureFile.images``), and picking one reopens the
file with that image's ``#`` suffix through the worker, as File > Open does."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from mipview.io import imageio
from mipview.io.containers import exr_channels
from tests.test_exr_channels import H, W, write_exr
from tests.ui.conftest import WAIT_MS
from tests.ui.test_error_paths import open_by_menu

exr = pytest.importorskip("OpenEXR")


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def _render(tmp_path):
    """R G B A and a Z far from them, every mantissa bit of Z in use."""
    rng = np.random.default_rng(4)
    planes = {c: rng.random((H, W), np.float32) for c in "RGBA"}
    depth = (rng.random((H, W), np.float32) * 0.5 + 0.25).astype(np.float32)
    path = tmp_path / "render.exr"
    write_exr(path, {**planes, "Z": depth})
    return path, planes, depth


def _pick(qtbot, w, text: str):
    """Pick the entry ``text`` of the Image list as a user does from the keyboard (one step
    up or down, which sends ``activated`` as a click on the popup does) and wait for the file
    to be opened again."""
    combo = w.panel.image_combo
    i = combo.findText(text)
    assert abs(i - combo.currentIndex()) == 1, [combo.itemText(k) for k in range(combo.count())]
    key = Qt.Key.Key_Down if i > combo.currentIndex() else Qt.Key.Key_Up
    with qtbot.waitSignal(w.sigImageOpened, timeout=WAIT_MS) as opened:
        qtbot.keyClick(combo, key)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    return opened.args[0]


def test_the_image_list_offers_an_exrs_depth_and_reads_it_bit_for_bit(
        qtbot, make_window, monkeypatch, tmp_path, dialogs):
    path, planes, depth = _render(tmp_path)
    w = make_window()
    assert w.panel.image_combo.isHidden()  # no file of several images yet
    with qtbot.waitSignal(w.sigImageOpened, timeout=WAIT_MS):
        open_by_menu(qtbot, w, monkeypatch, str(path))
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    combo = w.panel.image_combo
    assert not combo.isHidden()
    assert [combo.itemText(i) for i in range(combo.count())] == ["R, G, B, A", "Z  (#Z)"]
    assert combo.currentText() == "R, G, B, A"
    assert np.array_equal(_bits(w.pyramid.panel_levels("source")[0][..., 0]), _bits(planes["R"]))

    opened = _pick(qtbot, w, "Z  (#Z)")
    assert opened.path == f"{path}#Z"
    level0 = w.pyramid.panel_levels("source")[0]
    assert np.array_equal(_bits(level0[..., 0]), _bits(depth))  # Z, every bit
    assert not np.array_equal(level0[..., 0], planes["R"])
    assert combo.currentText() == "Z  (#Z)"  # the list says what was read
    assert "float Z" in w.image_label.text(), w.image_label.text()
    assert w.windowTitle() == "mipview - render.exr#Z"

    opened = _pick(qtbot, w, "R, G, B, A")
    assert opened.path == str(path)  # the file as it reads without a choice
    assert np.array_equal(_bits(w.pyramid.panel_levels("source")[0][..., 0]), _bits(planes["R"]))
    assert "float RGBA" in w.image_label.text() and combo.currentText() == "R, G, B, A"
    assert not dialogs

    # a file of one image: the list goes
    only = tmp_path / "only.exr"
    write_exr(only, planes)
    with qtbot.waitSignal(w.sigImageOpened, timeout=WAIT_MS):
        open_by_menu(qtbot, w, monkeypatch, str(only))
    assert combo.isHidden() and combo.count() == 0


def test_the_list_is_what_the_reader_holds_each_suffix_reading_its_image(tmp_path):
    path, planes, depth = _render(tmp_path)
    held = imageio.load(path).texture.images
    assert [(h.words, h.suffix, h.read) for h in held] == [("R, G, B, A", "", True),
                                                          ("Z", "Z", False)]
    for h in held:  # each suffix reads the image it names, and the list marks it
        texture = imageio.load(f"{path}#{h.suffix}" if h.suffix else path).texture
        assert [x.words for x in texture.images if x.read] == [h.words]
    assert imageio.load(f"{path}#R").texture.images[-1].words == "R"  # a choice not listed
    # parts of one layout are an array's layers, read together: nothing to choose
    parts = [("layer00", ["R", "G", "B", "A"]), ("layer01", ["R", "G", "B", "A"])]
    read = exr_channels.resolve(parts, None)[0]
    assert exr_channels.held(parts, read) == ()
    assert exr_channels.held([("", ["R", "G", "B", "A"])], read) == ()


def test_picking_nothing_new_asks_for_nothing(qtbot, make_window, monkeypatch, tmp_path):
    path, _, _ = _render(tmp_path)
    w = make_window()
    with qtbot.waitSignal(w.sigImageOpened, timeout=WAIT_MS):
        open_by_menu(qtbot, w, monkeypatch, str(path))
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    asked = []
    monkeypatch.setattr(w, "open_image", asked.append)
    w.panel.image_combo.setCurrentIndex(1)  # the window filling the list, not a user's pick
    assert asked == []
    w.panel.image_combo.activated.emit(1)
    assert asked == [f"{path}#Z"]
