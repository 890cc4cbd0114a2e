"""Cube maps as mipview holds them: six square faces as array layers, in Vulkan's order.

A cube map of side N is an array of 6 layers (6, N, N, 4); a cube array of n cubes is 6 n
layers, cube c's face f at layer ``6 c + f`` (Vulkan's, KTX2's and D3D's layout). Faces are
stored as every other image here: row 0 at the top, column 0 at the left, as the face is seen
from inside the cube, with Vulkan's face coordinates (the spec's cube map face selection table).

Everything about how faces meet (:func:`fold_cube`, :data:`ADJACENCY`, :func:`pad_faces`) is
derived from that table (:data:`FACE_TABLE`), not written by hand: a texel's centre is a
direction, and a texel past an edge is the one the same direction, rotated over the edge onto
the neighbouring face, falls in (docs/cube-maps.md).
"""

from __future__ import annotations

import numpy as np

#: faces in layer order: +X, -X, +Y, -Y, +Z, -Z
FACE_NAMES = ("px", "nx", "py", "ny", "pz", "nz")
FACES = len(FACE_NAMES)

#: Vulkan's "Cube Map Face Selection" table, per face: (axis, sign) of the major axis ma, of sc
#: and of tc (axis 0 = x, 1 = y, 2 = z): +X is ma = rx, sc = -rz, tc = -ry, and so on.
FACE_TABLE: tuple[tuple[tuple[int, int], tuple[int, int], tuple[int, int]], ...] = (
    ((0, +1), (2, -1), (1, -1)),  # +X
    ((0, -1), (2, +1), (1, -1)),  # -X
    ((1, +1), (0, +1), (2, +1)),  # +Y
    ((1, -1), (0, +1), (2, -1)),  # -Y
    ((2, +1), (0, +1), (1, -1)),  # +Z
    ((2, -1), (0, -1), (1, -1)),  # -Z
)


def _axis(axis: int, sign: int) -> np.ndarray:
    v = np.zeros(3, np.int64)
    v[axis] = sign
    return v


# per face the outward normal N, and U, V: the directions in which the column (s) and the row (t)
# grow, so a face point is ``N + sc U + tc V`` with sc, tc in [-1, 1] (the table inverted)
NORMAL = np.array([_axis(*ma) for ma, _, _ in FACE_TABLE])
U = np.array([_axis(*sc) for _, sc, _ in FACE_TABLE])
V = np.array([_axis(*tc) for _, _, tc in FACE_TABLE])

#: a face's edges: left = column -1, right = column N, top = row -1, bottom = row N
EDGE_NAMES = ("left", "right", "top", "bottom")


def cube_count(layers: int) -> int:
    """Cubes in an array of ``layers`` faces; raises ValueError when ``layers`` is not 6 n."""
    if layers < FACES or layers % FACES:
        raise ValueError(f"a cube map has 6 faces per cube, got {layers} layers")
    return layers // FACES


def is_cube_shape(layers: int, height: int, width: int) -> bool:
    """Whether ``layers`` layers of ``width`` x ``height`` can be a cube map: 6 n square
    faces."""
    return height == width >= 1 and layers >= FACES and layers % FACES == 0


def face_side(shape: tuple[int, ...]) -> int:
    """N of a cube map (array) of shape (6 n, N, N, C); ValueError for any other shape."""
    if len(shape) != 4 or not is_cube_shape(*shape[:3]):
        raise ValueError(f"a cube map is (6 n, N, N, C): 6 n square faces, got shape {shape}")
    return shape[1]


def face_directions(face: int, n: int, rows: tuple[int, int] | None = None) -> np.ndarray:
    """Unit directions (rows, n, 3) through the texel centres of ``face`` of a cube of side
    ``n``, rows [r0, r1) of ``rows`` (default all): column i has ``s = (i + 1/2) / n``,
    ``sc = 2 s - 1``, ``tc`` likewise from the row (row 0 at the top)."""
    r0, r1 = rows or (0, n)
    sc = (np.arange(n) + 0.5) * (2.0 / n) - 1.0
    tc = (np.arange(r0, r1) + 0.5) * (2.0 / n) - 1.0
    d = NORMAL[face] + sc[None, :, None] * U[face] + tc[:, None, None] * V[face]
    return d / np.linalg.norm(d, axis=-1, keepdims=True)


def face_of(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vulkan's cube map face selection of directions ``d`` (..., 3): the face (the major
    axis; a tie goes to x, then y) and the normalised (s, t) on it, ``s = (sc / |ma| + 1) / 2``;
    the inverse of :func:`face_directions`."""
    d = np.asarray(d, np.float64)
    a = np.abs(d)
    axis = np.where((a[..., 0] >= a[..., 1]) & (a[..., 0] >= a[..., 2]), 0,
                    np.where(a[..., 1] >= a[..., 2], 1, 2))
    ma = np.take_along_axis(d, axis[..., None], -1)[..., 0]
    face = 2 * axis + (ma < 0)
    sc = np.einsum("...i,...i->...", d, U[face])
    tc = np.einsum("...i,...i->...", d, V[face])
    m = np.abs(ma)
    return face, (sc / m + 1) / 2, (tc / m + 1) / 2


def directions(n: int) -> np.ndarray:
    """(6, n, n, 3) unit directions of every texel centre of a cube map of side ``n``
    (:func:`face_directions` of each face)."""
    return np.stack([face_directions(f, n) for f in range(FACES)])


def fold_cube(face: np.ndarray | int, i: np.ndarray | int, j: np.ndarray | int,
              n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Texel (column ``i``, row ``j``) of ``face`` in a cube of side ``n``, where at most one of
    i, j lies outside [0, n) and by at most n (-n <= i < 2 n), as the texel of the cube it is:
    ``(face2, i2, j2)``, each in range. Texels inside are returned as they are; a texel at depth
    d beyond an edge (d = 0 the first ring) is the neighbour's texel at depth d inside the
    shared edge, at the same place along the edge (reversed where the edges run opposite ways).
    Vectorised: the arguments broadcast together. Corners (both outside) raise ValueError: no
    single texel is there (:func:`pad_faces` averages three)."""
    f, i, j = np.broadcast_arrays(np.asarray(face, np.int64), np.asarray(i, np.int64),
                                  np.asarray(j, np.int64))
    # twice the texel centre's face coordinates times n: odd integers in (-n, n) inside, so the
    # fold is exact integer arithmetic. The point on the face's plane is n N + x U + y V.
    x, y = 2 * i + 1 - n, 2 * j + 1 - n
    out_x, out_y = np.abs(x) > n, np.abs(y) > n
    if np.any(out_x & out_y):
        raise ValueError("fold_cube: a corner texel (both indices outside) has no one texel")
    if np.any(np.abs(x) > 3 * n) or np.any(np.abs(y) > 3 * n):
        raise ValueError(f"fold_cube: indices more than {n} texels beyond the face")
    # a point beyond an edge by delta is rotated about that edge onto the neighbour's plane: its
    # distance past the edge becomes a depth below the edge, measured along -N
    delta = np.where(out_x, np.abs(x) - n, np.where(out_y, np.abs(y) - n, 0))
    a = np.where(out_x, np.sign(x) * n, x)
    b = np.where(out_y, np.sign(y) * n, y)
    p = ((n - delta)[..., None] * NORMAL[f] + a[..., None] * U[f] + b[..., None] * V[f])
    # the major axis of the rotated point is its face (unique: the others are odd, below n)
    axis = np.argmax(np.abs(p), axis=-1)
    sign = np.take_along_axis(p, axis[..., None], axis=-1)[..., 0] > 0
    g = _FACE_OF[axis, sign.astype(np.int64)]
    i2 = (np.sum(p * U[g], axis=-1) + n - 1) // 2
    j2 = (np.sum(p * V[g], axis=-1) + n - 1) // 2
    return g, i2, j2


# face index by (major axis, sign > 0)
_FACE_OF = np.zeros((3, 2), np.int64)
for _f, ((_ax, _sg), _, _) in enumerate(FACE_TABLE):
    _FACE_OF[_ax, int(_sg > 0)] = _f


def _edge_texel(edge: str, n: int, depth: int, pos: int) -> tuple[int, int]:
    """(column, row) of the texel ``depth`` beyond ``edge`` (negative: inside), ``pos`` along it
    (down for left/right, rightwards for top/bottom)."""
    return {"left": (-1 - depth, pos), "right": (n + depth, pos),
            "top": (pos, -1 - depth), "bottom": (pos, n + depth)}[edge]


def _adjacency() -> dict[tuple[int, str], tuple[int, str, bool]]:
    # folded on a side of 3: the middle texel of an edge tells which edge it lands on, the
    # first texel whether the run is reversed
    n, table = 3, {}
    for f in range(FACES):
        for e in EDGE_NAMES:
            g, i, j = (int(v) for v in fold_cube(f, *_edge_texel(e, n, 0, 1), n))
            e2 = "left" if i == 0 else "right" if i == n - 1 else "top" if j == 0 else "bottom"
            _, i0, j0 = fold_cube(f, *_edge_texel(e, n, 0, 0), n)
            along = int(j0) if e2 in ("left", "right") else int(i0)
            table[(f, e)] = (g, e2, along != 0)
    return table


#: (face, edge) -> (neighbour face, its edge, whether the edges run opposite ways), from
#: :func:`fold_cube` (so from the face table)
ADJACENCY: dict[tuple[int, str], tuple[int, str, bool]] = _adjacency()
#: the 12 edges of a cube, each once: ((face, edge), (face, edge))
CUBE_EDGES: tuple[tuple[tuple[int, str], tuple[int, str]], ...] = tuple(
    (k, v[:2]) for k, v in ADJACENCY.items() if k < v[:2])


def edge_run(faces: np.ndarray, face: int, edge: str, depth: int) -> np.ndarray:
    """The texels ``depth`` rows inside ``edge`` of ``face`` (0: the edge row) of every cube
    of ``faces`` (6 n, N, N, C), along the edge (down or rightwards): (n, N, C)."""
    cubes = faces.reshape(-1, FACES, *faces.shape[1:])[:, face]
    n = faces.shape[1]
    k = {"left": depth, "right": n - 1 - depth, "top": depth, "bottom": n - 1 - depth}[edge]
    return cubes[:, :, k] if edge in ("left", "right") else cubes[:, k, :]


def pad_faces(faces: np.ndarray, r: int) -> np.ndarray:
    """Each face of ``faces`` (6 n, N, N, C) with a border of ``r`` texels taken from the faces
    around it, as float64 (6 n, N + 2 r, N + 2 r, C): across each edge the neighbour's texels at
    depth 0 .. r-1 (:func:`fold_cube`), and each r x r corner block the mean of the three texels
    that meet at that cube corner (the face's corner texel and the two neighbours' touching it:
    Vulkan's rule for seamless filtering at a corner, used for the whole block since only three
    faces meet there). ``r <= N``: deeper taps would pass the neighbour into a third face; a
    caller that reaches further clamps its indices to the border. Each cube of an array is
    padded from its own six faces."""
    n = face_side(faces.shape)
    if not 0 <= r <= n:
        raise ValueError(f"pad_faces: border {r} must be in [0, {n}] (clamp deeper taps)")
    m, c = n + 2 * r, faces.shape[-1]
    out = np.empty((faces.shape[0] // FACES, FACES, m, m, c), np.float64)
    cubes = faces.reshape(-1, FACES, n, n, c)
    out[:, :, r:r + n, r:r + n] = cubes
    # the border texels only (a level 0 can be large): face, column, row of each
    k = np.arange(-r, n + r)
    f, j, i = np.broadcast_arrays(np.arange(FACES)[:, None, None], k[None, :, None],
                                  k[None, None, :])
    border = (i < 0) | (i >= n) | (j < 0) | (j >= n)
    f, i, j = f[border], i[border], j[border]
    corner = ((i < 0) | (i >= n)) & ((j < 0) | (j >= n))
    # the corner texel nearest each border texel, and one step off it across each edge
    ci, cj = np.clip(i, 0, n - 1), np.clip(j, 0, n - 1)

    def gather(g: np.ndarray, gi: np.ndarray, gj: np.ndarray) -> np.ndarray:
        return cubes[:, g, gj, gi].astype(np.float64)

    values = gather(*fold_cube(f, np.where(corner, ci, i), np.where(corner, cj, j), n))
    if corner.any():
        fc, ic, jc = f[corner], ci[corner], cj[corner]
        own = gather(fc, ic, jc)
        side_x = gather(*fold_cube(fc, ic + np.sign(i[corner] - ic), jc, n))
        side_y = gather(*fold_cube(fc, ic, jc + np.sign(j[corner] - jc), n))
        # the mean as own + (the other two's differences) / 3: exact where the three are
        # equal, so a constant cube stays that constant bit for bit
        values[:, corner] = own + ((side_x - own) + (side_y - own)) / 3.0
    out[:, f, j + r, i + r] = values
    return out.reshape(faces.shape[0], m, m, c)
