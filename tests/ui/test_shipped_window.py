"""A texture file as an engine ships it, dropped on the window and run: what the reader says of
it (three channels read as RGBA with alpha 1, the transcoder that read a Basis Universal file)
reaches the user, and a file mipview refuses is one dialog naming its format, the window still
usable."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QStatusBar

from mipview.core.specs import StrategySpec
from tests.ui.conftest import WAIT_MS
from tests.ui.test_error_paths import open_by_drop
from tests.ui.test_real_files import click_run

SHIPPED = Path(__file__).parents[1] / "data" / "shipped"


def _recorded_status(monkeypatch) -> list[str]:
    """Every message the status bar is given, from now on."""
    shown: list[str] = []
    show = QStatusBar.showMessage

    def record(bar: QStatusBar, text: str, timeout: int = 0) -> None:
        shown.append(text)
        show(bar, text, timeout)

    monkeypatch.setattr(QStatusBar, "showMessage", record)
    return shown


def test_a_dropped_rgb_ktx2_runs_and_its_note_reaches_the_status_bar(qtbot, make_window,
                                                                      monkeypatch):
    shown = _recorded_status(monkeypatch)
    w = make_window()
    with qtbot.waitSignal(w.sigImageOpened, timeout=WAIT_MS):
        open_by_drop(qtbot, w, monkeypatch, str(SHIPPED / "g03n2c08.ktx2"))
    assert w.opened.source.texture.pixel_format == "VK_FORMAT_R8G8B8_SRGB"
    click_run(qtbot, w, [StrategySpec("per-level")])
    assert any("g03n2c08.ktx2: 3 channels (RGB), read as RGBA with alpha 1" in line
               for line in shown), shown


def test_a_dropped_basis_file_runs_and_names_its_transcoder(qtbot, make_window, monkeypatch,
                                                           dialogs):
    shown = _recorded_status(monkeypatch)
    w = make_window()
    with qtbot.waitSignal(w.sigImageOpened, timeout=WAIT_MS):
        open_by_drop(qtbot, w, monkeypatch, str(SHIPPED / "ktx_document_uastc_rdo4_zstd5.ktx2"))
    texture = w.opened.source.texture
    assert texture.pixel_format == "UASTC (Basis Universal, Zstandard)"
    assert len(texture.levels) == 11 and texture.decoded_from == "UASTC"
    click_run(qtbot, w, [StrategySpec("per-level")])
    assert any("transcoded to RGBA8 by Basis Universal's transcoder" in line
               for line in shown), shown
    assert not dialogs


def test_a_dropped_basis_file_without_its_transcoder_is_one_dialog_naming_the_extra(
        qtbot, make_window, monkeypatch, dialogs):
    monkeypatch.setitem(sys.modules, "opengl_basisu", None)  # import fails: not installed
    w = make_window()
    open_by_drop(qtbot, w, monkeypatch, str(SHIPPED / "alpha_simple_basis.ktx2"))
    qtbot.waitUntil(lambda: bool(dialogs), timeout=WAIT_MS)
    (title, text), = dialogs
    assert "ETC1S" in text and "pip install mipview[basis]" in text, text
    # the job's end comes in a later turn of the event loop than its error
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    assert w.opened is None and len(dialogs) == 1
