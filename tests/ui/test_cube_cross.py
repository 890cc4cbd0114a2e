"""A cube map level unfolded as a cross (the viewer): the cross's geometry checked
against the cube's adjacency (mipview/core/cube.py), and the pyramid view showing a cube's
levels as crosses with their seams, naming faces in its readout, and showing any other array
layer by layer as before."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from mipview.check.seams import seam_metric
from mipview.core import cube, cube_cross
from mipview.core.cube_cross import (
    CROSS,
    FACE_LABELS,
    NX,
    NY,
    NZ,
    PX,
    PY,
    PZ,
    Cell,
    cross_position,
    cross_texel,
    layout_errors,
    seam_lines,
    unfold,
)
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.io.containers import ktx2
from mipview.io.synthetic import cube_image
from mipview.ui.display import to_display
from mipview.ui.views.pyramid_view import PyramidView
from tests.ui.test_main_window import open_and_wait, run_and_wait

SIDES = (1, 2, 3, 5, 8)

#: faces misplaced: +X and -X swapped
SWAPPED = tuple(Cell({PX: NX, NX: PX}.get(c.face, c.face), c.col, c.row, c.turns) for c in CROSS)
#: every face where it belongs, but +Y turned a quarter
TURNED = tuple(Cell(c.face, c.col, c.row, 1 if c.face == PY else 0) for c in CROSS)
#: -Y under -X instead of under +Z
MOVED = tuple(Cell(c.face, 0, 2) if c.face == NY else c for c in CROSS)
#: -Y and +Y swapped and each turned half (touching on the right edges, running the wrong way)
FLIPPED = tuple(Cell({PY: NY, NY: PY}.get(c.face, c.face), c.col, c.row,
                     2 if c.face in (PY, NY) else 0) for c in CROSS)
WRONG = {"swapped": SWAPPED, "turned": TURNED, "moved": MOVED, "flipped": FLIPPED}


def index_cube(n: int) -> np.ndarray:
    """(6, n, n, 3) int64: each texel holds (face, column, row)."""
    f, j, i = np.meshgrid(np.arange(6), np.arange(n), np.arange(n), indexing="ij")
    return np.stack([f, i, j], axis=-1)


def picture_errors(n: int, layout) -> list[str]:
    """Walk the unfolded picture itself (``unfold`` of an index cube): wherever two faces touch
    in it, the texel across the boundary must be the one ``cube.fold_cube`` finds one step past
    the edge, continuing the step taken inside the face (so n >= 2)."""
    pic = unfold(index_cube(n) + 1, 0, layout) - 1  # -1: an empty cell
    errors = []
    h, w = pic.shape[:2]
    for y in range(h):
        for x in range(w):
            for dx, dy in ((1, 0), (0, 1)):
                if (dx and (x + 1) % n) or (dy and (y + 1) % n) or x + dx >= w or y + dy >= h:
                    continue  # not on a boundary between two cells
                here, there = pic[y, x], pic[y + dy, x + dx]
                back = pic[y - dy, x - dx]  # one step back inside the same cell
                if here[0] < 0 or there[0] < 0:
                    continue
                step = here[1:] - back[1:]
                past = cube.fold_cube(int(here[0]), *(int(k) for k in here[1:] + step), n)
                if tuple(int(k) for k in past) != tuple(int(k) for k in there):
                    errors.append(f"({x}, {y}) -> ({x + dx}, {y + dy})")
    return errors


@pytest.mark.parametrize("n", SIDES)
def test_faces_touching_in_the_cross_share_that_edge(n):
    assert layout_errors(n) == []
    if n >= 2:
        assert picture_errors(n, CROSS) == []
    # the five joins, and each is a pair of the adjacency table running the same way
    joins = {(a.face, b.face, side) for a, b, side in cube_cross.touching()}
    assert joins == {(NX, PZ, "right"), (PZ, PX, "right"), (PX, NZ, "right"),
                     (PY, PZ, "bottom"), (PZ, NY, "bottom")}
    for a, b, side in cube_cross.touching():
        edge_a = cube_cross.cell_side_edge(n, a, side)
        edge_b = cube_cross.cell_side_edge(n, b, "left" if side == "right" else "top")
        assert cube.ADJACENCY[(a.face, edge_a)] == (b.face, edge_b, False)


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_layout_fails_the_check(name):
    for n in (2, 3, 4):
        assert layout_errors(n, WRONG[name]), name
        assert picture_errors(n, WRONG[name]), name


@pytest.mark.parametrize("n", SIDES)
def test_unfold_places_each_face_and_leaves_the_rest_empty(n):
    idx = index_cube(n)
    pic = unfold(idx.astype(np.float32), 0)
    assert pic.shape == (3 * n, 4 * n, 3)
    empty = np.isnan(pic[..., 0])
    assert empty.sum() == 6 * n * n  # 12 cells, 6 faces
    for y in range(3 * n):
        for x in range(4 * n):
            t = cross_texel(n, x, y)
            assert (t is None) == bool(empty[y, x])
            if t is not None:
                assert tuple(int(v) for v in pic[y, x]) == t
                assert cross_position(n, *t) == (x, y)
    assert cross_texel(n, -1, n) is None and cross_texel(n, 4 * n, n) is None
    # integers (the viewer's RGBA): empty cells are 0, so transparent; a second cube of an array
    rgba = np.full((12, n, n, 4), 200, np.uint8)
    rgba[6 + PZ] = 7
    u8 = unfold(rgba, 1)
    assert u8.dtype == np.uint8 and (u8[0:n, 0:n] == 0).all()
    assert (u8[n:2 * n, n:2 * n] == 7).all() and (u8[n:2 * n, 0:n] == 200).all()
    with pytest.raises(ValueError):
        unfold(rgba, 2)


@pytest.mark.parametrize("n", SIDES)
def test_seam_lines_mark_the_twelve_edges(n):
    lines = seam_lines(n)
    assert {line.edge for line in lines} == set(range(12))
    joined = [line for line in lines if line.joined]
    open_ = [line for line in lines if not line.joined]
    # 5 edges join faces in the picture; the 7 others are open, drawn on both faces' sides
    assert len(joined) == 5 and len(open_) == 14
    assert sorted(line.label for line in open_) == sorted(2 * list(range(1, 8)))
    for line in lines:
        (f, e), (g, e2) = cube.CUBE_EDGES[line.edge]
        assert (line.face, line.side) in ((f, e), (g, e2))
        assert abs(line.p1[0] - line.p0[0]) + abs(line.p1[1] - line.p0[1]) == n

    def corner(line, p):
        """The cube corner (3D, times n) at cross point p of the face ``line`` borders."""
        x0, y0, _ = cube_cross.cross_layout(n)[line.face]
        x, y = p[0] - x0, p[1] - y0  # no turns in CROSS
        return tuple(n * cube.NORMAL[line.face] + (2 * x - n) * cube.U[line.face]
                     + (2 * y - n) * cube.V[line.face])

    for label in range(1, 8):  # both sides of an open edge start at the same corner
        a, b = (line for line in open_ if line.label == label)
        assert a.edge == b.edge and (a.face, a.side) != (b.face, b.side)
        assert corner(a, a.p0) == corner(b, b.p0) and corner(a, a.p1) == corner(b, b.p1)
        assert (a.p0, a.p1) != (b.p0, b.p1)
    for line in joined:  # drawn once: the segment both faces border
        (f, e), (g, e2) = cube.CUBE_EDGES[line.edge]
        other = cube_cross._edge_segment(n, next(c for c in CROSS if c.face == g), e2)
        assert {line.p0, line.p1} == set(other)


# --- the view ---------------------------------------------------------------------------------
def cube_pyramid(n: int = 16) -> tuple[np.ndarray, ...]:
    """The synthetic sky's levels (6, n >> k, n >> k, 4), float32, a 2x2 box each."""
    levels = [cube_image(n).pixels]
    while levels[-1].shape[1] > 1:
        a = levels[-1]
        levels.append(a.reshape(6, a.shape[1] // 2, 2, a.shape[2] // 2, 2, 4).mean(axis=(2, 4)))
    return tuple(levels)


def scene_at(view: PyramidView, key: str, level: int, x: float, y: float) -> QPointF:
    panel = view.panel(key)
    rect = panel.rects[panel.shown.index(level)]
    return panel.view.mapViewToScene(QPointF(rect.x() + x, rect.y() + y))


def test_a_cube_pyramid_is_shown_as_crosses_with_its_seams(view, qtbot):
    levels = cube_pyramid(16)
    view.set_pyramids([("a", "A", levels, Format.F32)], faces=6)
    assert view.cube_count() == 1 and view.cross() == 0
    assert not view.layer_spin.isHidden() and not view.cube.seams_check.isHidden()
    assert not view.cull_button.isEnabled()
    for k, level in enumerate(levels):
        qtbot.waitUntil(lambda k=k: view.displayed("a", k) is not None, timeout=10_000)
        n = level.shape[1]
        shown = view.displayed("a", k)
        faces = np.stack([to_display(level, Format.F32, f, view.settings) for f in range(6)])
        assert shown.shape == (3 * n, 4 * n, 4)
        assert np.array_equal(shown, unfold(faces))
        assert (shown[:n, :n, 3] == 0).all()  # an empty cell: transparent
        assert np.array_equal(shown[n:2 * n, n:2 * n], faces[PZ])
    rects = view.panel("a").rects
    assert (rects[0].width(), rects[0].height()) == (64, 48)

    # the seams item: every edge of every cross shown, once per joined edge, twice per open one
    segments = view.seam_segments("a")
    assert len(segments) == 19 * len(levels)
    assert view.panel("a").seam_item.parentItem() is view.panel("a").view.childGroup
    r0 = rects[0]
    drawn = {((a.x() - r0.x(), a.y() - r0.y()), (b.x() - r0.x(), b.y() - r0.y()), k)
             for a, b, k in segments[:19]}
    assert drawn == {(line.p0, line.p1, line.label) for line in seam_lines(16)}
    view.cube.seams_check.setChecked(False)
    assert view.seam_segments("a") == [] and not view.panel("a").seam_item.isVisible()
    view.cube.seams_check.setChecked(True)
    assert len(view.seam_segments("a")) == 19 * len(levels)

    # the seam metric of each level, in the label (the worst level) and the tooltip (each)
    qtbot.waitUntil(lambda: len(view.seam_figures("a")) == len(levels), timeout=10_000)
    figures = view.seam_figures("a")
    for k, level in enumerate(levels):
        want = seam_metric(level, Format.F32)
        assert figures[k] == want
    label, tip = view.panel("a").label.text, view.panel("a").label.toolTip()
    assert "seams worst L" in label and "mean ratio" in label and "max step" in label
    assert f"level 0 (16x16): mean ratio {figures[0].mean_ratio:.2f}" in tip
    assert tip.count("\nlevel ") == len(levels)
    view.set_mode(1)  # one level: its own figures
    assert f"seams L1: mean ratio {figures[1].mean_ratio:.2f}" in view.panel("a").label.text


def test_the_readout_names_the_face_and_its_texel(view, qtbot):
    levels = cube_pyramid(8)
    view.set_pyramids([("a", "A", levels, Format.F32)], faces=6)
    panel = view.panel("a")
    for face, (i, j) in ((PZ, (3, 5)), (NX, (0, 7)), (NY, (7, 0)), (NZ, (6, 2))):
        x, y = cross_position(8, face, i, j)
        text = view.readout_text(panel, 0, x, y)
        want = levels[0][face, j, i]
        assert f"face {FACE_LABELS[face]} (layer {face}/6)" in text
        assert f"x {i}, y {j}" in text and f"{want[0]:.4f}" in text
        # through the mouse: the texel under the cursor
        with qtbot.waitSignal(view.sigHover, timeout=2000) as hover:
            view.readout.hover(scene_at(view, "a", 0, x + 0.5, y + 0.5))
        assert hover.args[0] == text
    # level 1 (4x4 faces): its own cross
    x, y = cross_position(4, PY, 1, 2)
    assert "face +Y (layer 2/6) | level 1 (4x4) | x 1, y 2" in view.readout_text(panel, 1, x, y)
    # an empty cell: nothing under the cursor, no texel to lock
    assert view.readout_text(panel, 0, 1, 1) == ""
    with qtbot.waitSignal(view.sigHover, timeout=2000) as hover:
        view.readout.hover(scene_at(view, "a", 0, 1.5, 1.5))
    assert hover.args[0] == ""
    assert view.texel_at(panel, QPointF(1.5, 1.5)) is None

    # a lock in the cross: values and the table name the face's texel in every level
    x, y = cross_position(8, PX, 4, 2)
    view.lock_texel(0, x, y)
    values = view.locked_values()
    assert values[("a", 0)] == tuple(float(c) for c in levels[0][PX, 2, 4])
    assert values[("a", 1)] == tuple(float(c) for c in levels[1][PX, 1, 2])
    assert view.readout.lock_table.verticalHeaderItem(0).text() == "L0 +X (4, 2)"
    # out of the cross onto a face: the lock keeps the face's texel
    view.set_layer(PX)
    assert view.cross() is None and view.lock == (0, 4, 2)
    assert view.displayed("a", 0).shape == (8, 8, 4)
    assert "layer 0/6 | level 0 (8x8) | x 4, y 2" in view.readout_text(panel, 0, 4, 2)
    assert view.seam_segments("a") == []
    view.set_cross(0)
    assert view.cross() == 0 and view.lock == (0, x, y)
    assert view.displayed("a", 0).shape == (24, 32, 4)


def test_cube_array_offers_a_cross_per_cube(view):
    two = tuple(np.concatenate([a, a[::-1]]) for a in cube_pyramid(4))
    view.set_pyramids([("a", "A", two, Format.F32)], faces=6)
    assert view.cube_count() == 2 and view.cross() == 0
    view.set_cross(1)
    assert view.cross() == 1
    shown = view.displayed("a", 0)
    faces = np.stack([to_display(two[0], Format.F32, 6 + f, view.settings) for f in range(6)])
    assert np.array_equal(shown, unfold(faces))
    x, y = cross_position(4, NX, 1, 1)
    assert "cube 1 face -X (layer 7/12)" in view.readout_text(view.panel("a"), 0, x, y)


def test_arrays_that_are_not_cube_maps_show_layers_as_before(view):
    six = tuple(a.copy() for a in cube_pyramid(8))
    # six square layers, but not a cube map's (faces 1): layers, no cross, no seams
    view.set_pyramids([("a", "A", six, Format.F32)], faces=1)
    assert view.cube_count() == 0 and view.cross() is None
    assert view.layer_spin.maximum() == 5 and view.cube.seams_check.isHidden()
    view.set_layer(4)
    assert np.array_equal(view.displayed("a", 0), to_display(six[0], Format.F32, 4,
                                                             view.settings))
    assert view.seam_segments("a") == [] and view.seam_figures("a") == {}
    assert "layer 4/6 |" in view.readout_text(view.panel("a"), 0, 1, 1)
    # a cube source whose levels are not 6 k square layers (an image made of it): no cross
    flat = tuple(a[0] for a in six)
    view.set_pyramids([("a", "A", flat, Format.F32)], faces=6)
    assert view.cube_count() == 0 and view.cross() is None and view.layer_spin.isHidden()
    # told later that the six layers are a cube: crosses
    view.set_pyramids([("a", "A", six, Format.F32)], faces=1)
    view.set_cube(6)
    assert view.cross() == 0 and view.displayed("a", 0).shape == (24, 32, 4)
    view.set_cube(1)
    assert view.cross() is None and view.displayed("a", 0).shape == (8, 8, 4)


def test_window_shows_an_opened_cube_map_as_crosses(qtbot, make_window, tmp_path):
    level0 = np.rint(cube_image(8).pixels * 255).astype(np.uint8)
    path = tmp_path / "sky.ktx2"
    path.write_bytes(ktx2.encode([level0], Format.UNORM, faces=6))
    w = make_window()
    opened = open_and_wait(qtbot, w, path)
    assert opened.source.is_cube
    view = w.pyramid
    assert view.cross() == 0 and view.displayed("source", 0).shape == (24, 32, 4)
    assert len(view.seam_segments("source")) == 19

    # a run of the cube: its results are crosses too; one of layers the Layers control made
    # from the first face (six square layers, no cube map) is shown layer by layer
    got = run_and_wait(qtbot, w, [StrategySpec("per-level")], repeat=0)
    assert got["output"].mip.layers == 6
    assert view.cross() == 0 and view.displayed("per-level", 0).shape == (24, 32, 4)
    w.panel.layers_spin.setValue(6)
    got = run_and_wait(qtbot, w, [StrategySpec("per-level")], repeat=0)
    assert got["output"].mip.layers == 6 and view.cube_count() == 0 and view.cross() is None
    assert view.displayed("per-level", 0).shape == (8, 8, 4)


def test_window_opens_one_of_six_face_images_as_their_cube_map(qtbot, make_window, tmp_path):
    from PIL import Image

    faces = np.rint(cube_image(8).pixels * 255).astype(np.uint8)
    for face, name in enumerate(cube.FACE_NAMES):
        Image.fromarray(faces[face]).save(tmp_path / f"sky_{name}.png")
    w = make_window()
    opened = open_and_wait(qtbot, w, tmp_path / "sky_pz.png")
    assert opened.source.is_cube
    assert np.array_equal(opened.source.rgba8, faces)  # every face, in layer order
    assert w.pyramid.cross() == 0


def _open_sky(qtbot, make_window, tmp_path):
    """A window that has opened an 8x8 cube map KTX2 of the synthetic sky."""
    level0 = np.rint(cube_image(8).pixels * 255).astype(np.uint8)
    path = tmp_path / "sky.ktx2"
    path.write_bytes(ktx2.encode([level0], Format.UNORM, faces=6))
    w = make_window()
    open_and_wait(qtbot, w, path)
    return w


def test_the_preview_shows_a_cube_result_as_the_sky_at_a_chosen_lod(qtbot, make_window,
                                                                     tmp_path):
    from tests.ui.conftest import WAIT_MS

    w = _open_sky(qtbot, make_window, tmp_path)
    got = run_and_wait(qtbot, w, [StrategySpec("per-level")], repeat=0)
    assert w.preview.kind_combo.currentText() == "sky"
    w.show()
    with qtbot.waitSignal(w.sigPreviewShown, timeout=WAIT_MS) as blocker:
        w.preview_dock.toggleViewAction().trigger()
    image = blocker.args[0].image
    assert (image.lod == 0).all() and image.level_share[0] == 1.0
    # looking at +Z (the middle of the horizon, half a pixel off it): level 0's +Z face, the
    # blend of its four middle texels, within a rounding of their mean
    levels = got["output"].mip.results[0].levels
    middle = levels[0][4, 3:5, 3:5, :3].astype(float).mean(axis=(0, 1))
    assert np.abs(image.rgba[160, 256, :3] - middle).max() <= 1.0
    with qtbot.waitSignal(w.sigPreviewShown, timeout=WAIT_MS) as blocker:
        w.preview.slider.setValue(w.preview.slider.maximum())  # past the last level: clamped
    image = blocker.args[0].image
    assert image.level_share[-1] == 1.0
    # 1x1 faces: one colour each, +Z's straight ahead, and no other colours anywhere
    assert (image.rgba[160, 256, :3] == levels[-1][4, 0, 0, :3]).all()
    assert {tuple(c) for c in image.rgba[..., :3].reshape(-1, 3)} == \
        {tuple(c) for c in levels[-1][:, 0, 0, :3]}
    # a plain image's results are not offered the sky
    w.panel.layers_spin.setValue(6)
    run_and_wait(qtbot, w, [StrategySpec("per-level")], repeat=0)
    assert w.preview.kind_combo.findText("sky") < 0


def test_a_cube_result_exports_as_a_cube_map(qtbot, make_window, tmp_path):
    from mipview.io import imageio
    from tests.ui.conftest import WAIT_MS

    w = _open_sky(qtbot, make_window, tmp_path)
    got = run_and_wait(qtbot, w, [StrategySpec("per-level")], repeat=0)
    with qtbot.waitSignal(w.sigExported, timeout=WAIT_MS) as exported:
        w.export_chain(str(tmp_path / "out"), ["ktx2", "dds"], "per-level")
    levels = got["output"].mip.results[0].levels
    for f in exported.args[0].files:
        back = imageio.load(f)
        assert back.is_cube, f  # a cube map again, not six array layers
        for mine, theirs in zip(back.texture.levels, levels, strict=True):
            assert np.array_equal(mine, theirs)
