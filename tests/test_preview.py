"""The sampled preview (mipview/runs/preview.py): the level of detail a GPU picks from screen-space
derivatives, and the trilinear blend, against hand-computed values."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mipview.core.formats import Format
from mipview.runs import preview
from mipview.runs.preview import PreviewSettings


def _flat_pyramid(size: int = 64) -> list[np.ndarray]:
    """Level k filled with 10 * k (one channel, float): a sample's value says its levels."""
    levels, k = [], 0
    while size >= 1:
        levels.append(np.full((size, size, 1), 10.0 * k, np.float32))
        size, k = size // 2, k + 1
    return levels


@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
def test_a_footprint_of_2_to_the_k_texels_picks_level_k(k):
    levels = [lv / 80.0 for lv in _flat_pyramid()]  # level k shows as k/8 of white
    out = preview.render(levels, None, PreviewSettings(width=16, height=8, kind=preview.QUAD,
                                                       zoom=2.0 ** -k))
    np.testing.assert_allclose(out.lod, k)
    assert out.level_share[k] == 1.0
    # exactly on level k: no blend with the next level
    assert set(out.rgba[..., 0].ravel().tolist()) == {round(k / 8 * 255)}


def test_lod_from_derivatives_takes_the_longer_axis():
    lod = preview.lod_from_derivatives(np.array([4.0, 3.0, 0.5]), np.array([0.0, 4.0, 0.0]),
                                       np.array([1.0, 0.0, 0.25]), np.array([0.0, 0.0, 0.0]))
    np.testing.assert_allclose(lod, [2.0, np.log2(5.0), -1.0])


def test_fine_derivatives_are_per_pixel_pair_of_a_quad():
    a = np.array([[0.0, 1.0, 3.0, 7.0], [0.0, 2.0, 4.0, 9.0]])
    dx, dy = preview.fine_derivatives(a)
    np.testing.assert_array_equal(dx, [[1, 1, 4, 4], [2, 2, 5, 5]])
    np.testing.assert_array_equal(dy, [[0, 1, 1, 2], [0, 1, 1, 2]])
    with pytest.raises(ValueError):
        preview.fine_derivatives(np.zeros((3, 4)))


def test_trilinear_blends_floor_and_next_level_by_the_fraction():
    levels = _flat_pyramid()
    s = t = np.array([0.3, 0.3, 0.3, 0.3, 0.3])
    lod = np.array([1.25, 2.5, -3.0, 99.0, 0.0])
    got = preview.sample_trilinear(levels, None, s, t, lod)[:, 0]
    # 0.75 * 10 + 0.25 * 20; half of 20 and 30; magnification: level 0; clamped to the last
    np.testing.assert_allclose(got, [12.5, 25.0, 0.0, 60.0, 0.0])


def test_bilinear_weights_of_one_level_by_hand():
    # a 2x2 level: texel centres at s = 0.25 and 0.75; (s, t) = (0.375, 0.5) lies a quarter of
    # the way from column 0 to column 1 and half way between the rows
    level = np.array([[[0.0], [100.0]], [[40.0], [60.0]]], np.float32)
    got = preview.sample_trilinear([level], None, np.array([0.375]), np.array([0.5]),
                                   np.array([0.0]))[0, 0]
    top, bottom = 0.75 * 0 + 0.25 * 100, 0.75 * 40 + 0.25 * 60
    assert got == pytest.approx(0.5 * top + 0.5 * bottom)  # 35.0
    # repeat addressing: s = 0 is half way between the last column and the first
    wrap = preview.sample_trilinear([level], None, np.array([0.0]), np.array([0.25]),
                                    np.array([0.0]))[0, 0]
    assert wrap == pytest.approx(50.0)


def test_srgb_is_filtered_in_linear_light():
    level = np.zeros((1, 2, 4), np.uint8)
    level[0, 1] = 255
    got = preview.sample_trilinear([level], Format.SRGB, np.array([0.5]), np.array([0.5]),
                                   np.array([0.0]))[0]
    assert got[0] == pytest.approx(0.5)  # the mean of linear 0 and 1, not of the bytes


def test_the_plane_recedes_through_every_level_and_tints_them():
    levels = _flat_pyramid(256)
    plain = preview.render(levels, None, PreviewSettings(width=64, height=40))
    lod = plain.lod[np.isfinite(plain.lod)]
    # further up the screen is further away: lambda grows towards the horizon
    covered = np.isfinite(plain.lod).all(axis=1)
    rows = plain.lod[covered].mean(axis=1)
    assert (np.diff(rows) <= 1e-9).all() and lod.max() > 5
    assert np.isnan(plain.lod[0]).all()  # above the horizon: no surface
    assert sum(plain.level_share) == pytest.approx(1.0)
    grey = [np.full(lv.shape[:2] + (4,), 0.5, np.float32) for lv in levels]
    tinted = preview.render(grey, None, PreviewSettings(width=64, height=40, tint_levels=True))
    band = (tinted.lod >= 2.0) & (tinted.lod < 3.0)
    assert band.any()
    tint2, tint3 = ((1 - preview.TINT) * 0.5 + preview.TINT * preview.LEVEL_COLOURS[k]
                    for k in (2, 3))
    f = (tinted.lod[band] - 2.0)[:, None]
    np.testing.assert_allclose(tinted.rgba[band][:, :3] / 255.0, (1 - f) * tint2 + f * tint3,
                               atol=0.5 / 255 + 1e-9)
    untinted = preview.render(grey, None, PreviewSettings(width=64, height=40))
    assert set(untinted.rgba[np.isfinite(untinted.lod)][:, 0].tolist()) <= {127, 128}


@pytest.mark.parametrize(("k", "want"), [(2.0, (255, 255, 255)), (0.0, (0, 0, 0)),
                                         (2.25, (255, 255, 64)), (1.75, (255, 255, 64)),
                                         (3.0, (0, 0, 0))])
def test_the_error_view_samples_the_error_maps_on_a_heat_ramp(k, want):
    # all the error is in level 2 (4 units, the peak): the whole ramp at lambda 2, three
    # quarters of it (heat 0.75: red and green 1, blue 0.25) where level 2 has three quarters
    # of the blend with a clean level (lambda 2.25 and 1.75), none where it is not sampled
    maps = [np.zeros((2 ** (6 - i), 2 ** (6 - i)), np.float32) for i in range(7)]
    maps[2][:] = 4.0
    out = preview.render(maps, None, PreviewSettings(width=16, height=8, kind=preview.QUAD,
                                                     zoom=2.0 ** -k, show=preview.ERROR))
    assert out.peak == 4.0
    assert {tuple(p) for p in out.rgba[..., :3].reshape(-1, 3).tolist()} == {want}


# --- the sky of a cube map ---------------------------------------------------------------------
def test_face_selection_inverts_the_face_directions():
    from mipview.core import cube

    n = 6
    for f in range(cube.FACES):
        face, s, t = cube.face_of(cube.face_directions(f, n))
        assert (face == f).all()
        assert np.allclose(s * n - 0.5, np.arange(n)[None, :])
        assert np.allclose(t * n - 0.5, np.arange(n)[:, None])


def test_a_swapped_face_table_fails_the_inversion(monkeypatch):
    from mipview.core import cube

    nz = cube.FACE_NAMES.index("nz")
    d = cube.directions(4)[nz]  # through -Z's texel centres, by Vulkan's table
    # selection with -Z's sc the other way round (as +Z's): its columns come out mirrored
    monkeypatch.setattr(cube, "U", cube.U.copy())
    cube.U[nz] *= -1
    face, s, _ = cube.face_of(d)
    assert (face == nz).all()
    assert np.allclose(s * 4 - 0.5, np.arange(4)[::-1][None, :])


def _cube_levels(n: int = 8) -> list[np.ndarray]:
    """A cube map whose face f of level k is the value 10 k + f everywhere (float, 1 channel)."""
    levels, k = [], 0
    while n >= 1:
        levels.append(np.stack([np.full((n, n, 1), 10.0 * k + f, np.float32)
                                for f in range(6)]))
        n, k = n // 2, k + 1
    return levels


def test_the_sky_shows_each_face_where_its_directions_are():
    settings = PreviewSettings(width=64, height=32, kind=preview.SKY)
    colour, lod, share = preview._scene(_cube_levels(), None, settings)
    v = colour[..., 0]
    assert v[0, 0] == 2 and v[-1, 0] == 3  # straight up +Y, straight down -Y
    middle = 16  # the horizon: -Z behind at both ends, -X, +Z, +X between
    assert [v[middle, x] for x in (0, 16, 32, 48, 63)] == [5, 1, 4, 0, 5]
    assert (lod == 0).all() and share[0] == 1.0


def test_the_sky_samples_the_chosen_level_and_blends_the_next():
    levels = _cube_levels()
    for lod, want in ((1.0, 10.0), (2.0, 20.0), (1.5, 15.0), (9.0, 30.0)):
        settings = PreviewSettings(width=16, height=8, kind=preview.SKY, lod=lod)
        colour, _, share = preview._scene(levels, None, settings)
        looking_at_pz = colour[4, 8, 0] - 4.0  # face +Z adds 4
        assert looking_at_pz == pytest.approx(want)
        assert share[min(int(lod), len(levels) - 1)] == 1.0


def test_the_sky_of_a_cube_array_is_the_cube_of_the_layer_shown():
    first = _cube_levels(4)
    second = [lv + 100.0 for lv in first]
    levels = [np.concatenate([a, b]) for a, b in zip(first, second, strict=True)]
    sky = PreviewSettings(width=16, height=8, kind=preview.SKY)
    assert preview._scene(levels, None, sky)[0][4, 8, 0] == 4.0
    assert preview._scene(levels, None, replace(sky, layer=7))[0][4, 8, 0] == 104.0


def test_the_sky_refuses_levels_that_are_no_cube_map():
    with pytest.raises(ValueError, match="shows a cube map"):
        preview.render([np.zeros((8, 8, 4), np.uint8)], Format.UNORM,
                       PreviewSettings(kind=preview.SKY))


# --- a volume's slice ----------------------------------------------------------------------------
def _volume(d: int = 8, n: int = 16) -> list[np.ndarray]:
    """Volume levels whose slice z of level k is 100 k + z everywhere (float, 1 channel)."""
    levels, k = [], 0
    while True:
        levels.append(np.stack([np.full((n, n, 1), 100.0 * k + z, np.float32)
                                for z in range(d)]))
        if d == 1 and n == 1:
            return levels
        d, n, k = max(d // 2, 1), max(n // 2, 1), k + 1


def test_a_volume_slice_blends_the_two_slices_around_its_depth():
    levels = _volume()
    for depth, want in ((0.5 / 8, 0.0), (3.5 / 8, 3.0), (4.0 / 8, 3.5), (0.0, 0.0), (1.0, 7.0)):
        got = preview.volume_slices(levels, None, depth)
        assert got[0].shape == (16, 16, 1) and (got[0] == want).all(), depth
    # level 1 has 4 slices: depth 0.5 lies between its slices 1 and 2
    assert (preview.volume_slices(levels, None, 0.5)[1] == 101.5).all()


def test_a_volume_slice_blends_srgb_in_linear_light():
    from mipview.core.formats import decode

    vol = np.zeros((2, 2, 2, 4), np.uint8)
    vol[1] = 255
    got = preview.volume_slices([vol], Format.SRGB, 0.5)[0]
    assert np.allclose(got[..., :3], 0.5) and not np.allclose(
        got[..., :3], decode(np.full(3, 128, np.uint8), Format.SRGB))


def test_a_volume_at_a_slice_renders_as_that_slice_would_in_2d():
    # slice z of a level of d slices is z / d: in [0, 1], shown unclipped, slices far apart
    levels = [(a % 100) / np.float32(a.shape[0]) for a in _volume()]
    for zoom in (1.0, 0.5, 0.25):  # lambda 0, 1, 2
        at = PreviewSettings(width=64, height=40, kind=preview.QUAD, zoom=zoom)
        got = preview.render(levels, None, replace(at, depth=2.5 / 8))
        # level 0 (8 slices): slice 2; level 1 (4): 0.75 of the way from 0 to 1; level 2 (2):
        # 0.125 of the way; then the single slices
        blended = [a[2] if k == 0 else a[0] + {1: 0.75, 2: 0.125}.get(k, 0.0) * (
            a[min(1, a.shape[0] - 1)] - a[0]) for k, a in enumerate(levels)]
        want = preview.render(blended, None, at)
        assert np.array_equal(got.rgba, want.rgba) and np.array_equal(got.lod, want.lod), zoom
        assert not np.array_equal(got.rgba, preview.render(
            [a[min(2 >> k, a.shape[0] - 1)] for k, a in enumerate(levels)], None, at).rgba) \
            or zoom == 1.0  # a nearest slice is another picture past level 0
    errors = preview.render_error([a[..., 0] for a in _volume()],
                                  replace(at, depth=2.5 / 8))
    assert errors.peak == 400.0  # the single slice of the last level
