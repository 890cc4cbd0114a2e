"""A cube map level unfolded as a horizontal cross, for the viewer (pure numpy, no Qt).

The cross is a grid of 4 x 3 cells of N x N texels (so the picture is 4N wide, 3N high)::

            +Y
        -X  +Z  +X  -Z
            -Y

Faces are stored as mipview holds them (docs/cube-maps.md, mipview/core/cube.py): row 0 at the
top, as seen from inside the cube, in Vulkan's face coordinates. Seen from inside, looking
towards +Z with +Y up, -X is on the left and +X on the right, and behind +X comes -Z; so in
this arrangement every face keeps its stored orientation (no cell turns a face): the
adjacency derived from Vulkan's face table (``cube.ADJACENCY``) has +Z's left edge on -X's
right edge, +Z's right on +X's left, +X's right on -Z's left, +Z's top on +Y's bottom and +Z's
bottom on -Y's top, each running the same way (not reversed). :func:`layout_errors` checks it
texel row for texel row with :func:`mipview.core.cube.fold_cube` (tests/ui/test_cube_cross.py
runs it, and shows that a wrong layout fails it); a layout may still turn a face in its cell
(:attr:`Cell.turns`, ``np.rot90``'s quarter turns), which every function here honours.

Of a cube's 12 edges, 5 join two faces in the picture (-X|+Z, +Z|+X, +X|-Z, +Y over +Z, +Z over
-Y); the other 7 are open: each appears twice on the cross's outline (for instance -Z's right
edge is -X's left edge, and +Y's top is -Z's top, reversed). :func:`seam_lines` gives every
edge's segments in cross pixel coordinates (texel corners), the two sides of an open edge with
the same number and oriented so their first points are the same corner of the cube.

Empty cells are transparent: 0 (alpha 0) for integer arrays (the viewer's uint8 RGBA), NaN for
floats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mipview.core import cube

#: faces in layer order, as the viewer names them
FACE_LABELS = ("+X", "-X", "+Y", "-Y", "+Z", "-Z")
PX, NX, PY, NY, PZ, NZ = range(cube.FACES)
#: cells of the cross's grid
COLS, ROWS = 4, 3


@dataclass(frozen=True)
class Cell:
    """Where a face lies in the cross: column and row of its cell, and the quarter turns
    (counter-clockwise, as ``np.rot90``'s ``k``) it is drawn with."""

    face: int
    col: int
    row: int
    turns: int = 0


#: the horizontal cross (module docstring): no face needs turning
CROSS: tuple[Cell, ...] = (
    Cell(PX, 2, 1), Cell(NX, 0, 1), Cell(PY, 1, 0), Cell(NY, 1, 2), Cell(PZ, 1, 1),
    Cell(NZ, 3, 1))

#: a face's edges as segments between texel corners (x, y), from position 0 along the edge (the
#: first texel of ``cube.edge_run``: down for left and right, rightwards for top and bottom)
_EDGE_CORNERS = {"left": ((0, 0), (0, 1)), "right": ((1, 0), (1, 1)),
                 "top": ((0, 0), (1, 0)), "bottom": ((0, 1), (1, 1))}


@dataclass(frozen=True)
class SeamLine:
    """One segment of a cube edge on the cross, in cross pixel coordinates (texel corners):
    ``edge`` indexes ``cube.CUBE_EDGES``; ``joined`` edges are drawn once where their faces
    touch, open ones twice (both sides with the same ``label``, 1..7; 0 for a joined edge).
    ``face`` and ``side`` name the edge as seen from the face this segment borders; ``p0`` is
    the same corner of the cube on both sides of an open edge."""

    edge: int
    label: int
    joined: bool
    face: int
    side: str
    p0: tuple[int, int]
    p1: tuple[int, int]


def cross_size(n: int) -> tuple[int, int]:
    """(width, height) of the cross of faces of side ``n``."""
    return COLS * n, ROWS * n


def cross_layout(n: int, layout: tuple[Cell, ...] = CROSS) -> dict[int, tuple[int, int, int]]:
    """Face -> (x, y, turns): the top-left pixel of its cell in the cross of faces of side
    ``n``, and the quarter turns it is drawn with."""
    return {c.face: (c.col * n, c.row * n, c.turns) for c in layout}


def _turn(x, y, turns: int, size: int):
    """(x, y) after ``turns`` quarter turns of ``np.rot90`` of a square: texel indices with
    ``size`` n - 1, corner points with ``size`` n. One turn takes (x, y) to (y, size - x)."""
    for _ in range(turns % 4):
        x, y = y, size - x
    return x, y


def to_cell(n: int, turns: int, i, j):
    """Texel (column ``i``, row ``j``) of a face -> (column, row) in its cell when drawn with
    ``turns``. Affine: a texel past an edge maps past the matching side of the cell."""
    return _turn(i, j, turns, n - 1)


def from_cell(n: int, turns: int, u, v):
    """Inverse of :func:`to_cell`: (column ``u``, row ``v``) in a cell -> the face's texel."""
    return _turn(u, v, -turns, n - 1)


def _cube_faces(level: np.ndarray, cube_index: int) -> np.ndarray:
    a = np.asarray(level)
    if a.ndim < 3 or a.shape[1] != a.shape[2] or a.shape[0] < cube.FACES * (cube_index + 1):
        raise ValueError(f"unfold: cube {cube_index} of a cube map (6 k, N, N[, C]) needs "
                         f"{cube.FACES * (cube_index + 1)} square layers, got shape {a.shape}")
    return a[cube.FACES * cube_index:cube.FACES * (cube_index + 1)]


def unfold(level: np.ndarray, cube: int = 0, layout: tuple[Cell, ...] = CROSS) -> np.ndarray:
    """Cube ``cube`` of a cube map level (6 k, N, N[, C]) as the cross (3 N, 4 N[, C]), in
    ``level``'s dtype; cells without a face are 0 (integers: transparent) or NaN (floats)."""
    faces = _cube_faces(level, cube)
    n = faces.shape[1]
    fill = np.nan if np.issubdtype(faces.dtype, np.floating) else 0
    out = np.full((ROWS * n, COLS * n, *faces.shape[3:]), fill, faces.dtype)
    for c in layout:
        out[c.row * n:(c.row + 1) * n, c.col * n:(c.col + 1) * n] = np.rot90(faces[c.face],
                                                                             c.turns)
    return out


def cross_texel(n: int, x: int, y: int, layout: tuple[Cell, ...] = CROSS) \
        -> tuple[int, int, int] | None:
    """(face, column, row) of the face texel at pixel (x, y) of the cross of faces of side
    ``n``; None in an empty cell or outside the cross."""
    if not (0 <= x < COLS * n and 0 <= y < ROWS * n):
        return None
    col, row = x // n, y // n
    c = next((c for c in layout if (c.col, c.row) == (col, row)), None)
    if c is None:
        return None
    i, j = from_cell(n, c.turns, x - col * n, y - row * n)
    return c.face, int(i), int(j)


def cross_position(n: int, face: int, i: int, j: int,
                   layout: tuple[Cell, ...] = CROSS) -> tuple[int, int]:
    """Pixel (x, y) of the cross where texel (``i``, ``j``) of ``face`` is drawn."""
    c = next(c for c in layout if c.face == face)
    u, v = to_cell(n, c.turns, i, j)
    return int(c.col * n + u), int(c.row * n + v)


def touching(layout: tuple[Cell, ...] = CROSS) -> list[tuple[Cell, Cell, str]]:
    """The pairs of cells that share a side in the picture: (a, b, "right") with b right of
    a, (a, b, "bottom") with b below a."""
    at = {(c.col, c.row): c for c in layout}
    out = []
    for c in layout:
        for (dx, dy), side in (((1, 0), "right"), ((0, 1), "bottom")):
            other = at.get((c.col + dx, c.row + dy))
            if other is not None:
                out.append((c, other, side))
    return out


def layout_errors(n: int, layout: tuple[Cell, ...] = CROSS) -> list[str]:
    """Where faces that touch in the picture do not share that edge of the cube, texel for
    texel ([] for a correct layout): for each pair of touching cells and each texel along their
    common side, the texel one step past the first face's edge (in the picture: in the second
    cell) must be, folded over that edge onto its neighbour (``cube.fold_cube``), the texel the
    second cell draws there; and the two face edges on that side must be partners in
    ``cube.ADJACENCY``."""
    errors = []
    for a, b, side in touching(layout):
        dx, dy = (1, 0) if side == "right" else (0, 1)
        edge_a = cell_side_edge(n, a, side)
        edge_b = cell_side_edge(n, b, "left" if side == "right" else "top")
        partner = cube.ADJACENCY[(a.face, edge_a)]
        if partner[:2] != (b.face, edge_b):
            errors.append(f"{FACE_LABELS[a.face]} {edge_a} meets {FACE_LABELS[partner[0]]} "
                          f"{partner[1]} on the cube, but {FACE_LABELS[b.face]} {edge_b} in "
                          f"the cross")
        for t in range(n):
            u, v = (n - 1, t) if dx else (t, n - 1)  # a's texel on the common side
            past = from_cell(n, a.turns, u + dx, v + dy)  # one step on, in a's face coordinates
            got = tuple(int(k) for k in cube.fold_cube(a.face, *past, n))
            ou, ov = (0, t) if dx else (t, 0)  # what b draws there
            want = (b.face, *(int(k) for k in from_cell(n, b.turns, ou, ov)))
            if got != want:
                errors.append(f"{FACE_LABELS[a.face]} | {FACE_LABELS[b.face]} at {t}: past "
                              f"the edge is {FACE_LABELS[got[0]]} ({got[1]}, {got[2]}), the "
                              f"cross shows {FACE_LABELS[want[0]]} ({want[1]}, {want[2]})")
    return errors


def _edge_segment(n: int, c: Cell, edge: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The segment (from position 0 along it) of ``c``'s face's ``edge`` in cross pixels."""
    points = []
    for x, y in _EDGE_CORNERS[edge]:
        u, v = _turn(x * n, y * n, c.turns, n)
        points.append((int(c.col * n + u), int(c.row * n + v)))
    return points[0], points[1]


def cell_side_edge(n: int, c: Cell, side: str) -> str:
    """The edge of ``c``'s face drawn on its cell's ``side`` (left, right, top, bottom)."""
    x0, y0 = c.col * n, c.row * n
    want = {"left": {(x0, y0), (x0, y0 + n)}, "right": {(x0 + n, y0), (x0 + n, y0 + n)},
            "top": {(x0, y0), (x0 + n, y0)}, "bottom": {(x0, y0 + n), (x0 + n, y0 + n)}}[side]
    return next(e for e in cube.EDGE_NAMES if set(_edge_segment(n, c, e)) == want)


def seam_lines(n: int, layout: tuple[Cell, ...] = CROSS) -> list[SeamLine]:
    """Every cube edge (``cube.CUBE_EDGES``) on the cross of faces of side ``n``: one segment
    where its two faces touch running the same way (``joined``), else two, one on each face's
    side, numbered alike (1, 2, .. in edge order) and oriented so that ``p0`` is the same cube
    corner on both."""
    cells = {c.face: c for c in layout}
    lines, label = [], 0
    for k, ((f, e), (g, e2)) in enumerate(cube.CUBE_EDGES):
        a = _edge_segment(n, cells[f], e)
        b = _edge_segment(n, cells[g], e2)
        if cube.ADJACENCY[(f, e)][2]:
            b = (b[1], b[0])
        if a == b:
            lines.append(SeamLine(k, 0, True, f, e, *a))
            continue
        label += 1
        lines.append(SeamLine(k, label, False, f, e, *a))
        lines.append(SeamLine(k, label, False, g, e2, *b))
    return lines
