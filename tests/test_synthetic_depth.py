"""``--synthetic depth``: a perspective depth buffer (mipview.io.synthetic), standard and
reversed-Z, and the command line that makes it an r32f run unless --format says otherwise."""

import json

import numpy as np
import pytest

from mipview.cli.common import image_format, load_source, source_dims
from mipview.cli.main import build_parser, main
from mipview.core.formats import Format
from mipview.io import synthetic
from mipview.io.synthetic import FAR, NEAR
from tests.stderr import without_compile_progress


def depth(width, height, seed=0, reversed_z=False):
    src = synthetic.image(width, height, seed=seed, kind="depth", reversed_z=reversed_z)
    assert src.pixels.dtype == np.float32 and src.pixels.shape == (height, width, 4)
    return src


def test_depth_is_one_channel_in_0_1_over_a_far_background():
    src = depth(64, 40)
    px = src.pixels
    assert src.suggested_format() == Format.R32F  # one channel, as a depth .npy suggests
    # held as r32f holds it (G, B 0); shown grey, as a one-channel image opened in more is
    own = src.storage(Format.R32F)
    assert (own[..., 1:3] == 0).all() and (own[..., 3] == 1).all()
    assert (px[..., 1] == px[..., 0]).all() and (px[..., 2] == px[..., 0]).all()
    assert (px[..., 3] == 1).all()
    d = px[..., 0]
    assert ((d >= 0) & (d <= 1)).all()
    background = d == 1.0  # exactly: the far plane
    assert 0.1 < background.mean() < 0.9, "objects cover part of the view, not all of it"
    # nearest object at 2.8 or more from the eye (near 1): depth well above 0
    assert d.min() > FAR * (2.8 - NEAR) / (2.8 * (FAR - NEAR)) - 1e-6
    # sloped surfaces: many distinct depths, not a few flat cards
    assert len(np.unique(d[~background])) > 200
    # hard silhouettes: neighbours jump from an object to the background in one texel
    jump = np.abs(np.diff(d, axis=1))
    assert (jump > 0.05).any()


def test_reversed_z_is_the_reversed_mapping_of_the_same_scene():
    """Standard d = f (z - n) / (z (f - n)), reversed r = n (f - z) / (z (f - n)): for one view
    distance z, d + r = (f z - f n + n f - n z) / (z (f - n)) = 1. So r is 1 - d in exact
    arithmetic; stored as float32 each is its own rounding. Recovering z from r,
    z = f n / (n + r (f - n)), and mapping it the standard way gives d back to float32 rounding."""
    d = depth(53, 31, seed=4).pixels[..., 0].astype(np.float64)
    r = depth(53, 31, seed=4, reversed_z=True).pixels[..., 0].astype(np.float64)
    assert ((r >= 0) & (r <= 1)).all()
    np.testing.assert_array_equal(r == 0.0, d == 1.0)  # background: exactly 0 reversed
    assert np.abs(d + r - 1.0).max() <= 2.0 ** -23
    z = FAR * NEAR / (NEAR + r * (FAR - NEAR))
    again = synthetic.perspective_depth(z).astype(np.float32).astype(np.float64)
    ulp = np.spacing(d.astype(np.float32)).astype(np.float64)
    assert (np.abs(again - d) <= ulp).all()
    # nearer is smaller standard and larger reversed, texel for texel
    order = np.argsort(d, axis=None, kind="stable")
    assert (np.diff(r.ravel()[order]) <= 2.0 ** -24).all()


def test_depth_is_deterministic_per_seed_and_seeds_differ():
    a = depth(40, 24, seed=7).pixels
    np.testing.assert_array_equal(a, depth(40, 24, seed=7).pixels)
    assert not np.array_equal(a, depth(40, 24, seed=8).pixels)


@pytest.mark.parametrize("size", [(1, 1), (3, 5), (37, 1), (1, 37)])
def test_odd_sizes(size):
    for reversed_z in (False, True):
        d = depth(*size, reversed_z=reversed_z).pixels[..., 0]
        assert np.isfinite(d).all() and ((d >= 0) & (d <= 1)).all()


def _args(*argv):
    return build_parser().parse_args(["run", *argv])


def test_cli_kinds_and_formats():
    assert "depth" in synthetic.KINDS
    args = _args("--size", "1920x1080", "--synthetic", "depth")
    assert source_dims(args).suggested == Format.R32F  # before anything is made
    assert source_dims(_args("--size", "8")).suggested == Format.UNORM  # zone plate, as before
    args = _args("--size", "5x3", "--synthetic", "depth", "--format", "unorm", "--reversed-z")
    src = load_source(args)
    fmt = image_format(args, src)
    assert fmt == Format.UNORM and args.reversed_z
    level0 = src.storage(fmt)
    assert level0.dtype == np.uint8 and level0.shape == (3, 5, 4)
    np.testing.assert_array_equal(
        src.pixels, depth(5, 3, reversed_z=True).pixels)


@pytest.mark.parametrize("argv, needle", [
    (["run", "--synthetic", "depth"], "give --size"),
    (["run", "--size", "8", "--synthetic", "nope"], "invalid choice"),
], ids=["synthetic-without-size", "unknown-kind"])
def test_bad_synthetic_is_one_line_and_exit_2(tmp_path, capsys, argv, needle):
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = without_compile_progress(capsys.readouterr().err).strip()
    assert err.count("\n") == 0 and err.startswith("mipview: error:"), err
    assert needle in err


def test_cli_run_synthetic_depth_makes_an_r32f_min_pyramid(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--size", "37x19", "--synthetic", "depth", "--strategies",
                 "per-level:reduction=min", "--out", str(out), "--validate"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["image"]["format"] == "r32f"
    (entry,) = report["strategies"]
    assert entry["within_tolerance"] is True and report["validation_messages"] == []
    folder = out / entry["files"][0].split("/")[0]
    levels = [np.load(folder / f"level_{i:02d}.npy") for i in range(6)]  # 37x19 .. 1x1
    d = depth(37, 19).pixels[..., 0]
    np.testing.assert_array_equal(levels[0].reshape(19, 37), d)
    assert levels[-1].size == 1 and levels[-1].item() == d.min()  # conservative: the nearest
