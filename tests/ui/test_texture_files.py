"""Texture files in the window: a KTX2 with its own chain opens, and after a Run its chain is one
more result ("file: NAME") in the pyramid and heatmap views, fitted by the one verdict; File >
Export... writes the chain of the result shown in the compare worker (driven through
``MainWindow.export_chain``; the dialog's choices checked on their own)."""

from __future__ import annotations

import ktx2_spec_reader
import numpy as np

from mipview.check.reference import stored_chain
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.io import containers, imageio
from mipview.ui.dialogs.export_dialog import ExportDialog
from mipview.ui.views.batch_view import expand_sources
from mipview.ui.window.opening import IMAGE_FILTER
from tests.ui.conftest import stamp_image
from tests.ui.test_main_window import WAIT_MS, open_and_wait, run_and_wait

PER_LEVEL = [StrategySpec("per-level")]
FILE_KEY = "file:name=stamp.ktx2"


def _stamp_ktx2(folder, alter_level3: bool = False):
    """stamp_image and its correctly rounded chain as ``stamp.ktx2`` (level 3 with two texels
    of a 2x2 block swapped when ``alter_level3``: level 4 stays its exact reduction)."""
    fmt = Format.SRGB
    level0 = stamp_image()
    levels = [level0, *(np.rint(lv).astype(np.uint8) for lv in list(stored_chain(level0, fmt))[1:])]
    (path,) = containers.export(folder, "stamp", levels, fmt, ["ktx2"])
    if alter_level3:
        data = bytearray(path.read_bytes())
        at = ktx2_spec_reader.parse(bytes(data)).levels[3][0] + 4 * 4  # texels (4, 0), (5, 0)
        data[at:at + 4], data[at + 4:at + 8] = data[at + 4:at + 8], data[at:at + 4]
        path.write_bytes(bytes(data))
        assert not np.array_equal(imageio.read_chain(path).levels[3], levels[3])
    return path


def test_texture_files_are_offered_where_images_are(tmp_path):
    for suffix in (".ktx2", ".dds", ".exr"):
        assert f"*{suffix}" in IMAGE_FILTER.split(";;")[0]
        (tmp_path / f"a{suffix}").write_bytes(b"")
    (tmp_path / "notes.txt").write_bytes(b"")
    assert sorted(p.rsplit("/", 1)[1] for p in expand_sources([str(tmp_path)])) \
        == ["a.dds", "a.exr", "a.ktx2"]


def test_a_ktx2_chain_is_a_result_after_a_run(qtbot, make_window, tmp_path):
    w = make_window()
    opened = open_and_wait(qtbot, w, _stamp_ktx2(tmp_path))
    assert opened.source.texture.has_chain and w.current_format() is Format.SRGB
    got = run_and_wait(qtbot, w, PER_LEVEL, repeat=2)
    mip = got["output"].mip
    assert [str(r.spec) for r in mip.results] == ["per-level", FILE_KEY]
    assert [s.name for s in w._latest["run"].specs] == ["per-level"]  # "file" is never run
    assert "file" not in w.panel.rows
    assert w.pyramid.panel(FILE_KEY).title == "file: stamp.ktx2"
    file_result = mip.results[1]
    for shown, level in zip(w.pyramid.panel_levels(FILE_KEY), file_result.levels, strict=True):
        assert shown is level
    verdicts = {str(e.spec): e.verdict for e in got["analysis"].errors}
    assert verdicts[FILE_KEY].within_tolerance and verdicts[FILE_KEY].promise == "file"
    combo = w.heatmap.strategy_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["per-level", "file: stamp.ktx2"]
    w.heatmap.select(FILE_KEY)
    assert w.heatmap.strategy() == FILE_KEY and w.heatmap.table.rowCount() == 7
    stats = got["stats"]  # timed: the strategies only
    assert [str(s) for s, _ in stats.timings] == ["per-level"]

    # the same file with level 3 altered: reported (no filter expected) as a misfit at level 3
    # alone, per-level unmoved
    (tmp_path / "altered").mkdir()
    open_and_wait(qtbot, w, _stamp_ktx2(tmp_path / "altered", alter_level3=True))
    got = run_and_wait(qtbot, w, PER_LEVEL, repeat=1)
    verdicts = {str(e.spec): e.verdict for e in got["analysis"].errors}
    assert verdicts[FILE_KEY].within_tolerance
    assert verdicts[FILE_KEY].fit.misfits == (3,)
    assert "level 3 does not" in verdicts[FILE_KEY].summary()
    assert verdicts["per-level"].within_tolerance
    # the window says it too: the fit is the file's verdict in the status bar
    qtbot.waitUntil(lambda: "level 3 does not" in w.statusBar().currentMessage(),
                    timeout=WAIT_MS)


def _export_and_wait(qtbot, w, folder, kinds, spec=None):
    with qtbot.waitSignal(w.sigExported, timeout=WAIT_MS) as blocker:
        job = w.export_chain(str(folder), kinds, spec)
    assert blocker.args[0].job == job == w.latest_job("export")
    return blocker.args[0].files


def test_export_writes_the_chain_shown(qtbot, make_window, tmp_path, small_png, dialogs):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    assert not w.export_action.isEnabled()  # nothing to export yet
    got = run_and_wait(qtbot, w, [StrategySpec("blit"), StrategySpec("per-level")], repeat=1)
    assert w.export_action.isEnabled()
    results = {str(r.spec): r for r in got["output"].mip.results}
    w.heatmap.select("per-level")
    files = _export_and_wait(qtbot, w, tmp_path / "out", ["dds", "ktx2"])
    assert [f.rsplit("/", 1)[1] for f in files] == ["per-level.ktx2", "per-level.dds"]
    for f in files:
        chain = imageio.read_chain(f)
        for mine, theirs in zip(chain.levels, results["per-level"].levels, strict=True):
            assert np.array_equal(mine, theirs)
    (blit,) = _export_and_wait(qtbot, w, tmp_path / "out", ["ktx2"], "blit")
    assert np.array_equal(imageio.read_chain(blit).levels[1], results["blit"].levels[1])
    # EXR of 8-bit levels: float channels that read back as the very codes
    exr_files = _export_and_wait(qtbot, w, tmp_path / "out", ["exr"])
    assert len(exr_files) == len(results["per-level"].levels)
    chain = imageio.read_chain(exr_files[0])
    assert chain.fmt is w.current_format()
    for mine, theirs in zip(chain.levels, results["per-level"].levels, strict=True):
        assert np.array_equal(mine, theirs)
    assert dialogs == []


def test_export_dialog_offers_every_kind(qtbot):
    specs = [StrategySpec("per-level"), StrategySpec("file", (("name", "a.ktx2"),))]
    d8 = ExportDialog(specs, "file:name=a.ktx2", "/tmp/x")
    qtbot.addWidget(d8)
    assert all(check.isEnabled() for check in d8.kind_checks.values())
    assert d8.kinds() == ("ktx2", "dds", "exr") and d8.spec() == "file:name=a.ktx2"
    assert d8.strategy_combo.currentText() == "file: a.ktx2"
    assert d8.ok_button.isEnabled()
    for check in d8.kind_checks.values():
        check.setChecked(False)
    assert not d8.ok_button.isEnabled()  # no kind chosen
    d16 = ExportDialog(specs, "")
    qtbot.addWidget(d16)
    assert d16.kinds() == ("ktx2", "dds", "exr")
    assert d16.spec() == "per-level" and not d16.ok_button.isEnabled()  # no folder yet
    d16.folder_edit.setText("/tmp/y")
    assert d16.ok_button.isEnabled()


def test_a_damaged_texture_file_is_a_dialog(qtbot, make_window, tmp_path, dialogs):
    w = make_window()
    bad = tmp_path / "cut.ktx2"
    bad.write_bytes(_stamp_ktx2(tmp_path).read_bytes()[:200])
    with qtbot.waitSignal(w.sigErrorShown, timeout=WAIT_MS):
        w.open_image(str(bad))
    assert len(dialogs) == 1 and f"cannot open '{bad}'" in dialogs[0][1]
    assert "truncated" in dialogs[0][1] and w.opened is None
