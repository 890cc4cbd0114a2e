"""Cube maps without a GPU: the faces' adjacency against Vulkan's face selection,
faces padded with their neighbours, the seamless reference (edge=cube) and the seam metric."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check.filter_reference import cube_filter, filtered_pyramid, make_level
from mipview.check.reference import reduce_level, reference_pyramid
from mipview.check.seams import pyramid_seams, seam_metric
from mipview.core import cube
from mipview.core.filters.kernels import FILTER_NAMES, kernel
from mipview.core.filters.resample import EDGES
from mipview.core.filters.spec import FilterSpec, parse_filter
from mipview.core.formats import Format, level_size

SIDES = range(1, 10)


def vulkan_texel(d: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(face, column, row) Vulkan samples for directions ``d`` (..., 3): the spec's "Cube Map
    Face Selection" table written out literally, independent of cube.FACE_TABLE."""
    rx, ry, rz = d[..., 0], d[..., 1], d[..., 2]
    axis = np.argmax(np.abs(d), axis=-1)
    face = 2 * axis + (np.take_along_axis(d, axis[..., None], -1)[..., 0] < 0)
    table = {0: (-rz, -ry, rx), 1: (rz, -ry, rx), 2: (rx, rz, ry), 3: (rx, -rz, ry),
             4: (rx, -ry, rz), 5: (-rx, -ry, rz)}
    sc, tc, ma = (np.select([face == f for f in range(6)], [table[f][k] for f in range(6)])
                  for k in range(3))
    s, t = 0.5 * (sc / np.abs(ma) + 1), 0.5 * (tc / np.abs(ma) + 1)
    return face, np.minimum(np.floor(s * n), n - 1).astype(int), \
        np.minimum(np.floor(t * n), n - 1).astype(int)


def beyond(edge: str, n: int, depth: int, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(column, row) of the texels ``depth`` beyond ``edge``, at ``pos`` along it."""
    out, inside = (-1 - depth, n + depth), np.asarray(pos)
    return {"left": (out[0] + 0 * inside, inside), "right": (out[1] + 0 * inside, inside),
            "top": (inside, out[0] + 0 * inside), "bottom": (inside, out[1] + 0 * inside)}[edge]


def smooth_cube(n: int, cubes: int = 1) -> np.ndarray:
    """A cube map (6 cubes, n, n, 4) sampled at texel centres from a smooth function of
    direction, alpha 1, float32."""
    d = cube.directions(n)
    v = 0.5 + 0.3 * d[..., 0] + 0.2 * d[..., 1] * d[..., 2] + 0.15 * np.sin(3 * d[..., 2] + d[..., 0])
    one = np.stack([v, 1 - v, v * v, np.ones_like(v)], -1)
    return np.concatenate([one * (1 - 0.1 * c) for c in range(cubes)]).astype(np.float32)


# --- the faces and how they meet ---------------------------------------------------------------
@pytest.mark.parametrize("n", SIDES)
def test_texel_directions_select_their_own_texel(n: int) -> None:
    face, i, j = vulkan_texel(cube.directions(n), n)
    f, jj, ii = np.meshgrid(np.arange(6), np.arange(n), np.arange(n), indexing="ij")
    assert np.array_equal(face, f) and np.array_equal(i, ii) and np.array_equal(j, jj)


@pytest.mark.parametrize("n", SIDES)
def test_first_ring_past_an_edge_is_where_vulkan_samples_that_direction(n: int) -> None:
    # the face plane carried past the edge by one texel: the direction of that point selects
    # the neighbour's texel at depth 0, at the same place along the edge
    pos = np.arange(n)
    for f in range(6):
        for e in cube.EDGE_NAMES:
            i, j = beyond(e, n, 0, pos)
            x, y = (2 * i + 1 - n) / n, (2 * j + 1 - n) / n
            d = cube.NORMAL[f] + x[:, None] * cube.U[f] + y[:, None] * cube.V[f]
            want = vulkan_texel(d, n)
            got = cube.fold_cube(f, i, j, n)
            for a, b in zip(got, want, strict=True):
                assert np.array_equal(a, b), (n, cube.FACE_NAMES[f], e)


@pytest.mark.parametrize("n", SIDES)
def test_neighbours_across_an_edge_are_near_on_the_sphere(n: int) -> None:
    dirs = cube.directions(n)
    pitch = 2.0 / n  # a texel's angular size at most (at a face's centre)
    pos = np.arange(n)
    for f in range(6):
        for e in cube.EDGE_NAMES:
            for depth in range(n):
                g, i2, j2 = cube.fold_cube(f, *beyond(e, n, depth, pos), n)
                ci, cj = beyond(e, n, -1, pos)  # the face's own edge texels
                angle = np.arccos(np.clip(np.sum(dirs[g, j2, i2] * dirs[f, cj, ci], -1), -1, 1))
                # depth d past the edge is d + 1 texels from the edge row, and never farther
                assert np.all(angle <= (depth + 1) * pitch + 1e-12), (n, f, e, depth)
                assert np.all(angle > 0.0)


@pytest.mark.parametrize("n", SIDES)
def test_folding_back_across_the_same_edge_returns(n: int) -> None:
    pos = np.arange(n)
    for (f, e), (g, e2, reverse) in cube.ADJACENCY.items():
        assert cube.ADJACENCY[(g, e2)] == (f, e, reverse)
        for depth in range(n):
            g1, i1, j1 = cube.fold_cube(f, *beyond(e, n, depth, pos), n)
            assert np.all(g1 == g)
            # the texel it lands on is ``depth`` inside g's edge e2; past e2 by the same depth,
            # at the same place along the edge, is f's texel ``depth`` inside e
            along = pos[::-1] if reverse else pos
            back = cube.fold_cube(g, *beyond(e2, n, depth, along), n)
            own = beyond(e, n, -1 - depth, pos)
            assert np.all(back[0] == f) and np.array_equal(back[1], own[0]) \
                and np.array_equal(back[2], own[1])
            assert np.array_equal((i1, j1), beyond(e2, n, -1 - depth, along))


def test_the_cube_has_twelve_edges_each_face_four() -> None:
    assert len(cube.CUBE_EDGES) == 12
    seen = [side for pair in cube.CUBE_EDGES for side in pair]
    assert sorted(seen) == sorted(cube.ADJACENCY)
    # +X's left is +Z's right (the spec's table; every cube map tool agrees)
    assert cube.ADJACENCY[(0, "left")] == (4, "right", False)
    with pytest.raises(ValueError, match="corner"):
        cube.fold_cube(0, -1, -1, 4)


# --- faces padded with their neighbours ---------------------------------------------------------
@pytest.mark.parametrize("n", SIDES)
def test_pad_takes_each_border_texel_from_the_neighbour(n: int) -> None:
    dirs = cube.directions(n)
    for r in sorted({1, (n + 1) // 2, n}):
        padded = cube.pad_faces(dirs, r)
        assert padded.shape == (6, n + 2 * r, n + 2 * r, 3)
        assert np.array_equal(padded[:, r:r + n, r:r + n], dirs)
        pos = np.arange(n)
        for f in range(6):
            for e in cube.EDGE_NAMES:
                for depth in range(r):
                    i, j = beyond(e, n, depth, pos)
                    g, i2, j2 = cube.fold_cube(f, i, j, n)
                    assert np.array_equal(padded[f, j + r, i + r], dirs[g, j2, i2])
        # depth 0 is also where Vulkan samples the face plane carried past the edge
        i, j = beyond("top", n, 0, pos)
        y = (2 * j + 1 - n) / n
        d = cube.NORMAL[0] + ((2 * i + 1 - n) / n)[:, None] * cube.U[0] + y[:, None] * cube.V[0]
        g, i2, j2 = vulkan_texel(d, n)
        assert np.array_equal(padded[0, r - 1, r:r + n], dirs[g, j2, i2])


@pytest.mark.parametrize("n", SIDES)
def test_pad_corners_are_the_mean_of_the_three_texels_at_the_cube_corner(n: int) -> None:
    dirs = cube.directions(n)
    r = min(n, 2)
    padded = cube.pad_faces(dirs, r)
    for f in range(6):
        for sx, sy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
            block = padded[f, (slice(0, r) if sy < 0 else slice(n + r, None)),
                           (slice(0, r) if sx < 0 else slice(n + r, None))]
            ci, cj = (0 if sx < 0 else n - 1), (0 if sy < 0 else n - 1)
            (gx, ix, jx), (gy, iy, jy) = (cube.fold_cube(f, ci + sx, cj, n),
                                          cube.fold_cube(f, ci, cj + sy, n))
            three = [dirs[f, cj, ci], dirs[gx, jx, ix], dirs[gy, jy, iy]]
            np.testing.assert_allclose(block, np.broadcast_to(np.mean(three, 0), block.shape),
                                       atol=1e-15)
            # and points at the cube's corner: the three faces meeting there are distinct
            corner = cube.NORMAL[f] + sx * cube.U[f] + sy * cube.V[f]
            mean = np.mean(three, 0)
            cos = mean @ corner / np.linalg.norm(mean) / np.linalg.norm(corner)
            assert cos > 1 - 1e-12 if n == 1 else cos > np.cos(2.0 / n)


def test_faces_of_one_texel_pad_with_the_neighbours_and_the_corner_rule() -> None:
    # each texel holds its face's normal: the border is the neighbours' normals, -U, +U, -V, +V
    faces = cube.NORMAL[:, None, None, :].astype(np.float64)
    padded = cube.pad_faces(faces, 1)
    for f in range(6):
        u, v = cube.U[f], cube.V[f]
        assert np.array_equal(padded[f, 1, 0], -u) and np.array_equal(padded[f, 1, 2], u)
        assert np.array_equal(padded[f, 0, 1], -v) and np.array_equal(padded[f, 2, 1], v)
        np.testing.assert_allclose(padded[f, 0, 0], (cube.NORMAL[f] - u - v) / 3, atol=1e-16)


def test_a_cube_array_pads_each_cube_from_its_own_faces() -> None:
    a = np.random.default_rng(3).random((18, 5, 5, 4))
    whole = cube.pad_faces(a, 3)
    for c in range(3):
        assert np.array_equal(whole[6 * c:6 * c + 6], cube.pad_faces(a[6 * c:6 * c + 6], 3))


def test_wrong_shapes_are_refused() -> None:
    for shape in ((5, 4, 4, 4), (6, 4, 5, 4), (7, 2, 2, 4), (4, 4, 4)):
        with pytest.raises(ValueError, match="6 n square faces"):
            cube.pad_faces(np.zeros(shape), 1)
    with pytest.raises(ValueError, match=r"border 5 must be in \[0, 4\]"):
        cube.pad_faces(np.zeros((6, 4, 4, 4)), 5)


# --- the seamless reference -------------------------------------------------------------------
def test_edge_cube_is_a_spec_edge_but_not_a_gpu_edge_mode() -> None:
    assert parse_filter("tent,edge=cube").name == "tent,edge=cube"
    assert parse_filter("lanczos3,edge=cube,source=level0").edge == "cube"
    assert "cube" not in EDGES  # the strategies' per-axis modes (per-level's option) stay
    # the box's footprint never leaves the face: one spec for every edge
    assert parse_filter("box,edge=cube") == FilterSpec() == parse_filter("box,edge=wrap")


@pytest.mark.parametrize("n", range(2, 10))
def test_box_is_the_same_seamless_or_with_independent_faces(n: int) -> None:
    lin = np.random.default_rng(n).random((12, n, n, 4))
    np.testing.assert_allclose(cube_filter(lin, kernel("box"), n // 2), reduce_level(lin),
                               rtol=0, atol=1e-15)
    level0 = (lin * 255).astype(np.uint8)
    for a, b in zip(filtered_pyramid(level0, Format.SRGB, parse_filter("box,edge=cube")),
                    reference_pyramid(level0, Format.SRGB), strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("n", SIDES)
def test_a_constant_cube_stays_that_constant(n: int) -> None:
    value = np.float32(0.3)
    level0 = np.full((12, n, n, 4), value)
    for name in FILTER_NAMES:
        # one step: bit for bit the filter of independent faces (the same weights summed in the
        # same order on the same values: the corner rule adds no rounding)
        spec = parse_filter(f"{name},edge=cube")
        dst = level_size(n, n, 1)
        seamless = make_level(level0, Format.F32, spec, dst, 0.0)[0]
        apart = make_level(level0, Format.F32, parse_filter(name), dst, 0.0)[0]
        assert np.array_equal(seamless, apart), name
        np.testing.assert_allclose(seamless, float(value), rtol=1e-15)
    if n & (n - 1) == 0:  # the tent's weights are dyadic on even sides: exactly the constant
        for level in filtered_pyramid(level0, Format.F32, parse_filter("tent,edge=cube")):
            assert np.all(level == float(value))


@pytest.mark.parametrize("n", SIDES)
@pytest.mark.parametrize("name", ["tent", "lanczos3", "kaiser,source=level0", "mitchell"])
def test_seamless_levels_stay_square_and_cubes_stay_apart(n: int, name: str) -> None:
    level0 = smooth_cube(n, cubes=2)
    spec = parse_filter(f"{name},edge=cube")
    both = filtered_pyramid(level0, Format.F32, spec)
    assert [lv.shape for lv in both] == [(12, max(1, n >> k), max(1, n >> k), 4)
                                         for k in range(n.bit_length())]
    for c in range(2):
        alone = filtered_pyramid(level0[6 * c:6 * c + 6], Format.F32, spec)
        for a, b in zip(both, alone, strict=True):
            np.testing.assert_array_equal(a[6 * c:6 * c + 6], b)


def _rotation_z(n: int) -> np.ndarray:
    """Flat indices of the texels of a cube of side n whose values, placed at each texel,
    rotate the content by 90 degrees about z (a permutation: the grid maps onto itself)."""
    turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    f, i, j = vulkan_texel(cube.directions(n) @ turn, n)  # where each texel came from
    return (f * n + j) * n + i


@pytest.mark.parametrize("n", [2, 5, 8, 9])
@pytest.mark.parametrize("name", ["tent", "lanczos3"])
def test_seamless_filter_turns_with_the_cube(n: int, name: str) -> None:
    # a wrong neighbour or a reversed edge would break the cube's symmetry
    lin = np.random.default_rng(n).random((6, n, n, 4))
    dst = max(1, n // 2)

    def turn(a: np.ndarray) -> np.ndarray:
        m = a.shape[1]
        return a.reshape(-1, 4)[_rotation_z(m)].reshape(a.shape)
    np.testing.assert_allclose(cube_filter(turn(lin), kernel(name), dst),
                               turn(cube_filter(lin, kernel(name), dst)), rtol=0, atol=1e-14)


def test_edge_cube_refuses_what_is_not_a_cube_map() -> None:
    spec = parse_filter("tent,edge=cube")
    for shape in ((5, 8, 8, 4), (6, 8, 4, 4), (8, 8, 4), (6, 1, 2, 4)):
        with pytest.raises(ValueError, match="edge=cube needs a cube map: 6 n square faces"):
            filtered_pyramid(np.zeros(shape, np.uint8), Format.UNORM, spec)
    with pytest.raises(ValueError, match="edge=cube needs a cube map"):
        make_level(np.zeros((5, 4, 4, 4), np.uint8), Format.UNORM, spec, (2, 2), 0.0)


# --- the seam metric --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [8, 9, 32])
def test_seamless_tent_chain_has_lower_seams_than_independent_faces(n: int) -> None:
    level0 = smooth_cube(n)
    seamless = pyramid_seams(filtered_pyramid(level0, Format.F32,
                                              parse_filter("tent,edge=cube")), Format.F32)
    apart = pyramid_seams(filtered_pyramid(level0, Format.F32, parse_filter("tent")),
                          Format.F32)
    for k, (a, b) in enumerate(zip(seamless, apart, strict=True)):
        print(f"n={n} level {k} ({a.size}^2): seamless max/mean ratio "
              f"{a.max_ratio}/{a.mean_ratio}, step {a.max_step:.5f}; independent "
              f"{b.max_ratio}/{b.mean_ratio}, step {b.max_step:.5f}")
        if k == 0:
            assert a == b
        elif a.size > 1:
            assert a.max_ratio < b.max_ratio and a.mean_ratio < b.mean_ratio
        assert k == 0 or a.max_step < b.max_step


@pytest.mark.parametrize("n", [2, 5, 16, 64])
def test_seam_ratio_of_content_continuous_in_direction_is_about_one(n: int) -> None:
    # the step across an edge is not 0 (texel centres differ on either side), about the step
    # to the next row inside; on faces of 2 texels the two pairs lie apart on the sphere
    # unlike (measured: max ratio 1.29)
    figures = seam_metric(smooth_cube(n), Format.F32)
    assert figures.max_step > 0.0
    assert 0.5 < figures.mean_ratio <= figures.max_ratio < (1.1 if n >= 5 else 1.4)


def test_seam_metric_catches_shuffled_and_flipped_faces() -> None:
    level0 = smooth_cube(16, cubes=2)
    good = seam_metric(level0, Format.F32)
    shuffled = level0.copy()
    shuffled[6:12] = level0[[6, 8, 7, 9, 10, 11]]  # +Y and -X swapped in the second cube
    bad = seam_metric(shuffled, Format.F32)
    print(f"seam max ratio: right {good.max_ratio:.3f}, shuffled {bad.max_ratio:.3f}")
    assert bad.max_ratio > 10 * good.max_ratio and bad.worst[0] == 1
    flipped = level0.copy()
    flipped[4] = level0[4, :, ::-1]  # +Z mirrored left to right
    bad = seam_metric(flipped, Format.F32)
    assert bad.max_ratio > 10 * good.max_ratio and bad.worst[0] == 0


def test_seam_metric_of_flat_and_one_texel_cubes() -> None:
    flat = seam_metric(np.full((6, 4, 4, 4), 128, np.uint8), Format.SRGB)
    assert (flat.max_step, flat.max_ratio, flat.mean_ratio) == (0.0, 0.0, 0.0)
    # 1 texel per face: steps only, |f - g| of the faces' values over the 12 edges
    faces = np.arange(6, dtype=np.float64)[:, None, None, None] * np.ones((6, 1, 1, 4))
    one = seam_metric(faces)
    steps = [abs(f - g) for (f, _), (g, _) in cube.CUBE_EDGES]
    assert one.max_ratio is None and one.mean_ratio is None
    assert one.max_step == max(steps) and one.mean_step == pytest.approx(np.mean(steps))
