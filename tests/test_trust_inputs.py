"""Inputs a user must be told the truth about: float TIFF variants Pillow cannot read, images
past mipview's size limit, and non-finite texels (counted, never a numpy warning on stderr)."""

from __future__ import annotations

import json
import struct
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mipview.check import reference
from mipview.core.formats import Format
from mipview.core.nonfinite import NonFinite, count_nonfinite, nonfinite_per_level
from mipview.io import imageio
from mipview.io.imageio import ImageLoadError, load
from tests.stderr import without_compile_progress


def _tiff(samples: np.ndarray, sample_format: int = 3) -> bytes:
    """A minimal uncompressed little-endian TIFF (one strip) of (H, W) or (H, W, C) samples,
    written here independently of Pillow, which cannot write float64 or RGB float."""
    a = np.asarray(samples)
    h, w = a.shape[:2]
    c = 1 if a.ndim == 2 else a.shape[2]
    data = a.astype(a.dtype.newbyteorder("<")).tobytes()
    bits = 8 * a.dtype.itemsize
    n_tags = 11
    extra = 8 + 2 + 12 * n_tags + 4  # where out-of-line values start
    bits_field = (c, bits) if c <= 2 else (c, extra)
    data_at = extra + (2 * c if c > 2 else 0)
    tags = [(256, 3, 1, w), (257, 3, 1, h), (258, 3, *bits_field), (259, 3, 1, 1),
            (262, 3, 1, 1 if c == 1 else 2), (273, 4, 1, data_at), (277, 3, 1, c),
            (278, 3, 1, h), (279, 4, 1, len(data)), (284, 3, 1, 1), (339, 3, 1, sample_format)]
    out = b"II*\x00" + struct.pack("<IH", 8, n_tags)
    for tag, kind, count, value in tags:
        packed = struct.pack("<HH", value, 0) if kind == 3 and count == 1 else struct.pack("<I", value)
        out += struct.pack("<HHI", tag, kind, count) + packed
    out += b"\x00" * 4
    if c > 2:
        out += struct.pack(f"<{c}H", *([bits] * c))
    assert len(out) == data_at
    return out + data


# --- TIFF variants -------------------------------------------------------------------------------

def test_float64_tiff_is_named_unsupported_not_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "f64.tif"
    path.write_bytes(_tiff(np.array([[0.5, -1.0], [2.0, 0.25]], np.float64)))
    # (before: "truncated or corrupt TIFF data")
    with pytest.raises(ImageLoadError, match=r"^cannot open '.*f64\.tif': unsupported TIFF variant:"
                                             r" 64-bit float samples \(Pillow.*32-bit") as err:
        load(path)
    assert "\n" not in str(err.value)


def test_rgb_float_tiff_is_named_unsupported(tmp_path: Path) -> None:
    path = tmp_path / "rgb.tif"
    path.write_bytes(_tiff(np.zeros((2, 3, 3), np.float32)))
    with pytest.raises(ImageLoadError, match="32-bit float samples, 3 per pixel"):
        load(path)


# Pillow itself warns "Corrupt EXIF data" on a cut IFD (its own UserWarning, not mipview's)
@pytest.mark.filterwarnings("ignore:Corrupt EXIF data")
def test_the_tiff_writer_here_is_valid_and_damage_still_reads_as_corrupt(tmp_path: Path) -> None:
    """The helper writes TIFF Pillow reads where Pillow supports it (grey float32), so the
    messages above are about the sample layout; and a broken IFD is still "corrupt"."""
    g = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    path = tmp_path / "g.tif"
    path.write_bytes(_tiff(g))
    np.testing.assert_array_equal(load(path).pixels[..., 0], g)
    path.write_bytes(_tiff(g.astype(np.float64))[:30])  # cut inside the first IFD
    with pytest.raises(ImageLoadError, match="truncated or corrupt TIFF data"):
        load(path)


# --- size limit -----------------------------------------------------------------------------------

def _png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header says width x height, with one empty IDAT: opening it reads the header
    (and runs any size guard), decoding it fails."""
    def chunk(tag: bytes, payload: bytes) -> bytes:
        return (struct.pack(">I", len(payload)) + tag + payload
                + struct.pack(">I", zlib.crc32(tag + payload) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b""))
            + chunk(b"IEND", b""))


def test_too_large_is_one_line_in_mipviews_words(tmp_path: Path, capfd) -> None:
    path = tmp_path / "huge.png"
    path.write_bytes(_png_header_only(40000, 40000))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ImageLoadError) as err:
            load(path)
    # (before: Pillow's "Image size (1600000000 pixels) exceeds limit of 178956970 pixels,
    # could be decompression bomb DOS attack.")
    assert str(err.value) == (
        f"cannot open '{path}': 40000x40000 is 1,600,000,000 pixels, more than mipview opens "
        "(1,073,741,824 = 32768x32768: no Vulkan device holds a larger 2D image)")
    assert caught == []
    assert without_compile_progress(capfd.readouterr().err) == ""


def test_pillows_bomb_warning_never_reaches_stderr(tmp_path: Path, capfd,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """12000^2 is past Pillow's default guard (89.5 Mpixel: a DecompressionBombWarning, raw on
    stderr, before). Below mipview's limit it opens silently (decoding this header-only file
    then fails); above a lowered limit it is refused in one line, before decoding."""
    path = tmp_path / "big.png"
    path.write_bytes(_png_header_only(12000, 12000))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ImageLoadError, match="truncated or corrupt PNG data"):
            load(path)
        monkeypatch.setattr(imageio, "MAX_PIXELS", 100_000_000)
        with pytest.raises(ImageLoadError, match="12000x12000 is 144,000,000 pixels, more than"):
            load(path)
    assert [str(w.message) for w in caught] == []
    assert without_compile_progress(capfd.readouterr().err) == ""


def test_the_limit_counts_every_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = [Image.new("L", (10, 10)) for _ in range(3)]
    pages[0].save(tmp_path / "m.tif", save_all=True, append_images=pages[1:])
    monkeypatch.setattr(imageio, "MAX_PIXELS", 250)
    with pytest.raises(ImageLoadError, match=r"3 pages \(10x10 the last\) is 300 pixels"):
        load(tmp_path / "m.tif")
    monkeypatch.setattr(imageio, "MAX_PIXELS", 300)
    assert load(tmp_path / "m.tif").layers == 3


# --- non-finite texels ----------------------------------------------------------------------------

def _nonfinite_grey() -> np.ndarray:
    """7x5 grey float32 with NaN, +Inf and -Inf, +Inf and -Inf in one 2x2 block (inf - inf in
    the reduction), a value past float16's range, the rest finite."""
    g = np.linspace(-0.5, 1.5, 35, dtype=np.float32).reshape(5, 7)
    g[0, 0], g[0, 1] = np.inf, -np.inf
    g[2, 3] = np.nan
    g[4, 6] = -np.inf
    g[3, 0] = 1e6
    return g


def test_nonfinite_texels_are_counted_on_load(tmp_path: Path) -> None:
    Image.fromarray(_nonfinite_grey()).save(tmp_path / "nf.tif")
    s = load(tmp_path / "nf.tif")
    assert s.nonfinite == NonFinite(texels=4, nan=1, pos_inf=1, neg_inf=2)
    assert s.nonfinite.describe() == "4 non-finite texels (1 NaN, 1 +Inf, 2 -Inf)"
    Image.fromarray(np.ones((3, 3), np.float32)).save(tmp_path / "ok.tif")
    assert not load(tmp_path / "ok.tif").nonfinite


def test_nonfinite_input_raises_no_numpy_warning(tmp_path: Path, capfd) -> None:
    Image.fromarray(_nonfinite_grey()).save(tmp_path / "nf.tif")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning fails the test
        s = load(tmp_path / "nf.tif")
        for fmt in Format:
            level0 = s.storage(fmt)
            reference.reference_pyramid(level0, fmt)
            reference.step_level(level0, fmt)
            reference.blit_reference(level0, fmt)
            reference.exact_mean(level0, fmt)
            for op in ("min", "max"):
                reference.reference_pyramid(level0, fmt, op)
    assert without_compile_progress(capfd.readouterr().err) == ""
    # NaN becomes 0 in 8-bit storage (what a float -> UNORM conversion gives), +-Inf clip
    u = s.storage(Format.UNORM)[..., 0]
    assert (u[2, 3], u[0, 0], u[0, 1]) == (0, 255, 0)


def test_count_nonfinite_kinds_layers_and_levels() -> None:
    a = np.zeros((2, 3, 4, 4), np.float32)  # two layers
    a[0, 0, 0] = [np.nan, np.inf, 0, 0]  # one texel, two kinds
    a[1, 2, 3, 3] = -np.inf
    assert count_nonfinite(a) == NonFinite(texels=2, nan=1, pos_inf=1, neg_inf=1)
    assert count_nonfinite(a[1]) == NonFinite(texels=1, neg_inf=1)
    assert count_nonfinite(np.zeros((2, 2, 4), np.uint8)) == NonFinite()
    assert count_nonfinite(np.zeros((2, 2, 4), np.float16)).describe() == ""
    with pytest.raises(ValueError):
        count_nonfinite(np.zeros((2, 2, 3), np.float32))
    # propagation down an exact pyramid: the NaN texel of a 4x4 level reaches every level
    level0 = np.zeros((4, 4, 4), np.float32)
    level0[1, 2, 0] = np.nan
    with np.errstate(invalid="raise"):
        pyramid = reference.reference_pyramid(level0, Format.F32)
    assert nonfinite_per_level(pyramid) == [NonFinite(texels=1, nan=1)] * 3
    assert nonfinite_per_level(reference.reference_pyramid(np.ones((4, 4, 4), np.float32),
                                                           Format.F32)) == [NonFinite()] * 3


# --- non-finite texels: told once, their propagation reported per strategy ----------------------

def _nonfinite_tif(tmp_path: Path) -> Path:
    g = np.abs(_nonfinite_grey())  # no negative values: the float bounds hold without cancellation
    g[0, 1] = g[4, 6] = -np.inf
    Image.fromarray(g).save(tmp_path / "nf.tif")
    return tmp_path / "nf.tif"


def test_run_tells_nonfinite_once_and_reports_propagation(tmp_path: Path, capfd) -> None:
    from mipview.cli.main import main

    out = tmp_path / "o"
    assert main(["run", str(_nonfinite_tif(tmp_path)), "--format", "f32", "--out", str(out),
                 "--strategies", "blit,per-level,single-pass"]) == 0
    captured = capfd.readouterr()
    assert without_compile_progress(captured.err) == ""  # no numpy RuntimeWarning
    lines = captured.out.splitlines()
    note = "nf.tif: level 0 has 4 non-finite texels (1 NaN, 1 +Inf, 2 -Inf); each result " \
           "reports how it propagated them"
    assert lines[0] == note and captured.out.count("level 0 has") == 1
    rows = {line.split()[0]: line for line in lines[1:4]}
    for name in ("per-level", "single-pass"):  # never a bare "ok"
        assert rows[name].endswith("ok; non-finite texels per level 4 4 1, as the exact "
                                   "reduction"), rows[name]
    assert "non-finite texels per level" in rows["blit"]
    data = json.loads((out / "report.json").read_text())
    assert data["source_nonfinite"] == {"texels": 4, "nan": 1, "pos_inf": 1, "neg_inf": 2}
    per_level = next(s for s in data["strategies"] if s["name"] == "per-level")["nonfinite"]
    assert per_level["as_reference"] is True
    assert [n["texels"] for n in per_level["levels"]] == [4, 4, 1]
    assert per_level["levels"] == per_level["reference"]


def test_8bit_run_says_how_nonfinite_texels_were_stored(tmp_path: Path, capfd) -> None:
    from mipview.cli.main import main

    assert main(["run", str(_nonfinite_tif(tmp_path)), "--format", "unorm", "--out",
                 str(tmp_path / "o"), "--strategies", "per-level"]) == 0
    captured = capfd.readouterr()
    assert without_compile_progress(captured.err) == ""
    assert captured.out.splitlines()[0].endswith(
        "stored as 8-bit codes (NaN and -Inf become 0, +Inf 255)")
    assert "per-level" in captured.out and "per level" not in captured.out  # nothing to carry


def test_mean_of_nonfinite_image_says_what_nan_means(tmp_path: Path, capfd) -> None:
    from mipview.cli.main import main

    assert main(["mean", str(_nonfinite_tif(tmp_path)), "--format", "f32",
                 "--strategies", "per-level"]) == 0
    captured = capfd.readouterr()
    assert without_compile_progress(captured.err) == ""  # the float64 mean of NaN raised a RuntimeWarning here
    assert "nan: a channel holds NaN, or both +Inf and -Inf" in captured.out
    assert captured.out.count("level 0 has") == 1
    Image.fromarray(np.ones((4, 4), np.float32)).save(tmp_path / "ok.tif")
    assert main(["mean", str(tmp_path / "ok.tif"), "--format", "f32",
                 "--strategies", "per-level"]) == 0
    assert "nan:" not in capfd.readouterr().out  # said only when a mean is not finite


def test_propagation_says_where_a_result_differs_from_the_exact_reduction() -> None:
    from mipview.check.verdict import judge

    level0 = np.ones((4, 4, 4), np.float32)
    level0[0, 0, 0] = np.nan
    level0[3, 3, 1] = np.inf
    good = [np.asarray(a, np.float32) for a in reference.reference_pyramid(level0, Format.F32)]
    v = judge(good, level0, Format.F32, promise="carried")
    assert v.within_tolerance and v.nonfinite is not None and v.nonfinite.as_reference
    assert v.summary() == "ok; non-finite texels per level 2 2 1, as the exact reduction"
    dropped = [good[0], good[1].copy(), good[2]]
    dropped[1][0, 0, 0] = 1.0  # the NaN lost at level 1 (a GPU that does not keep NaN)
    v = judge(dropped, level0, Format.F32, promise="carried")
    assert not v.within_tolerance and not v.nonfinite.as_reference
    assert v.summary().endswith("level 1 has 1 non-finite texel (1 +Inf) where the exact "
                                "reduction has 2 non-finite texels (1 NaN, 1 +Inf)")
    blit = judge(dropped, level0, Format.F32, "mean", "blit", promise="emulated")
    assert blit.within_tolerance and blit.summary().startswith("not exact by design; ")
    finite = np.ones((4, 4, 4), np.float32)
    plain = judge([np.asarray(a, np.float32) for a in reference.reference_pyramid(
        finite, Format.F32)], finite, Format.F32, promise="carried")
    assert plain.nonfinite is None and plain.summary() == "ok"
