"""Loading, synthetic images, saving levels, bundled samples."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.io import imageio
from mipview.io.imageio import (
    ImageLoadError,
    SourceImage,
    encode_png16,
    load,
    save_level,
)
from mipview.io.samples import SAMPLES, generate, sample_path
from mipview.io.synthetic import image as synthetic

# --- a minimal PNG codec for 16-bit data, independent of the code under test -------------------


def _chunk(tag: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + tag + payload + struct.pack(
        ">I", zlib.crc32(tag + payload) & 0xFFFFFFFF)


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def write_png16(samples: np.ndarray, colour_type: int) -> bytes:
    """uint16 (H, W, C) -> PNG bytes, rows filtered with None, Sub, Up, Average, Paeth in turn."""
    h, w, c = samples.shape
    bpp = 2 * c
    raw = samples.astype(">u2").view(np.uint8).reshape(h, w * bpp).astype(int)
    out = bytearray()
    prev = [0] * (w * bpp)
    for y in range(h):
        ftype = y % 5
        row = [int(v) for v in raw[y]]
        out.append(ftype)
        for i, v in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            cc = prev[i - bpp] if i >= bpp else 0
            pred = (0, a, b, (a + b) // 2, _paeth(a, b, cc))[ftype]
            out.append((v - pred) % 256)
        prev = row
    ihdr = struct.pack(">IIBBBBB", w, h, 16, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(bytes(out)))
            + _chunk(b"IEND", b""))


def read_png16_unfiltered(data: bytes) -> np.ndarray:
    """Parse a 16-bit RGBA PNG whose rows all use filter 0 (what save_level writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        tag, payload = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(tag + payload) & 0xFFFFFFFF, tag
        if tag == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", payload)
        elif tag == b"IDAT":
            idat += payload
        pos += 12 + length
    assert ihdr is not None
    w, h, depth, ctype, _, _, interlace = ihdr
    assert (depth, ctype, interlace) == (16, 6, 0)
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * 8)
    assert np.all(rows[:, 0] == 0)
    return rows[:, 1:].copy().view(">u2").reshape(h, w, 4).astype(np.uint16)


# --- loading -----------------------------------------------------------------------------------

@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


def test_png_rgba8(tmp_path: Path, rng: np.random.Generator) -> None:
    a = rng.integers(0, 256, (5, 7, 4), dtype=np.uint8)
    Image.fromarray(a).save(tmp_path / "a.png")
    s = load(tmp_path / "a.png")
    assert s.pixels.dtype == np.float32 and s.pixels.shape == (5, 7, 4)
    assert (s.width, s.height, s.layers) == (7, 5, 1)
    np.testing.assert_array_equal(np.rint(s.pixels * 255), a)
    assert s.description == "PNG RGBA 8-bit"
    assert (s.bit_depth, s.is_float) == (8, False)
    assert s.suggested_format() is Format.UNORM
    assert s.path == str(tmp_path / "a.png") and s.name == "a.png"
    np.testing.assert_array_equal(s.storage(Format.UNORM), a)
    with pytest.raises(ValueError):
        s.pixels[0, 0, 0] = 1.0  # shared between threads: read-only


def test_png_grey16(tmp_path: Path) -> None:
    g = np.array([[0, 1, 1000], [40000, 65534, 65535]], np.uint16)
    Image.fromarray(g).save(tmp_path / "g.png")
    s = load(tmp_path / "g.png")
    assert s.description == "PNG grey 16-bit" and s.bit_depth == 16
    assert s.suggested_format() is Format.R16  # one grey channel: its codes exactly
    np.testing.assert_array_equal(s.storage(Format.R16)[..., 0], g)
    for c in range(3):
        np.testing.assert_array_equal(np.rint(s.pixels[..., c].astype(np.float64) * 65535), g)
    np.testing.assert_array_equal(s.pixels[..., 3], 1.0)


@pytest.mark.parametrize("colour_type,channels", [(6, 4), (2, 3), (4, 2)])
def test_png16_colour_keeps_16_bits_with_every_filter(tmp_path: Path, rng: np.random.Generator,
                                                      colour_type: int, channels: int) -> None:
    samples = rng.integers(0, 65536, (7, 6, channels), dtype=np.uint16)
    (tmp_path / "c.png").write_bytes(write_png16(samples, colour_type))
    s = load(tmp_path / "c.png")
    assert s.bit_depth == 16 and "16-bit" in s.description, s.description
    got = np.rint(s.pixels.astype(np.float64) * 65535).astype(np.uint16)
    if channels == 2:
        expected = np.concatenate([samples[..., :1].repeat(3, -1), samples[..., 1:]], -1)
    elif channels == 3:
        expected = np.concatenate([samples, np.full((7, 6, 1), 65535, np.uint16)], -1)
    else:
        expected = samples
    np.testing.assert_array_equal(got, expected)


def test_grey_and_grey_alpha(tmp_path: Path) -> None:
    g = np.array([[0, 128], [200, 255]], np.uint8)
    Image.fromarray(g).save(tmp_path / "l.png")
    s = load(tmp_path / "l.png")
    assert s.description == "PNG grey 8-bit"
    for c in range(3):
        np.testing.assert_array_equal(np.rint(s.pixels[..., c] * 255), g)
    np.testing.assert_array_equal(s.pixels[..., 3], 1.0)

    la = np.stack([g, 255 - g], -1)
    Image.fromarray(la).save(tmp_path / "la.png")
    s = load(tmp_path / "la.png")
    np.testing.assert_array_equal(np.rint(s.pixels[..., 0] * 255), g)
    np.testing.assert_array_equal(np.rint(s.pixels[..., 3] * 255), 255 - g)


def test_palette_with_transparency(tmp_path: Path) -> None:
    img = Image.new("P", (3, 2))
    img.putpalette([255, 0, 0, 0, 255, 0, 0, 0, 255] + [0] * (3 * 253))
    img.putdata([0, 1, 2, 2, 1, 0])
    img.save(tmp_path / "p.png", transparency=1)
    s = load(tmp_path / "p.png")
    assert "palette" in s.description
    px = np.rint(s.pixels * 255).astype(int)
    assert px[0, 0].tolist() == [255, 0, 0, 255]
    assert px[0, 1, 3] == 0  # index 1 is transparent
    assert px[0, 2].tolist() == [0, 0, 255, 255]


def test_one_bit(tmp_path: Path) -> None:
    img = Image.new("1", (4, 2))
    img.putpixel((1, 0), 1)
    img.save(tmp_path / "b.png")
    s = load(tmp_path / "b.png")
    assert s.bit_depth == 1
    assert s.pixels[0, 1, 0] == 1.0 and s.pixels[0, 0, 0] == 0.0


def test_jpeg_bmp_gif_tga(tmp_path: Path, rng: np.random.Generator) -> None:
    rgb = np.kron(rng.integers(0, 256, (4, 4, 3), dtype=np.uint8), np.ones((4, 4, 1), np.uint8))
    Image.fromarray(rgb).save(tmp_path / "a.jpg", quality=95, subsampling=0)
    s = load(tmp_path / "a.jpg")
    assert s.description == "JPEG RGB 8-bit"
    with Image.open(tmp_path / "a.jpg") as im:
        np.testing.assert_array_equal(np.rint(s.pixels[..., :3] * 255), np.asarray(im))
    assert np.abs(s.pixels[..., :3] * 255 - rgb).mean() < 6

    Image.fromarray(rgb).save(tmp_path / "a.bmp")
    s = load(tmp_path / "a.bmp")
    assert s.description.startswith("BMP")
    np.testing.assert_array_equal(np.rint(s.pixels[..., :3] * 255), rgb)

    pal = Image.fromarray(rgb).quantize(colors=16)
    pal.save(tmp_path / "a.gif")
    s = load(tmp_path / "a.gif")
    assert s.description.startswith("GIF")
    expected = np.asarray(pal.convert("RGB"))
    np.testing.assert_array_equal(np.rint(s.pixels[..., :3] * 255), expected)

    rgba = np.concatenate([rgb, rng.integers(0, 256, (16, 16, 1), dtype=np.uint8)], -1)
    Image.fromarray(rgba).save(tmp_path / "a.tga")
    s = load(tmp_path / "a.tga")
    assert s.description == "TGA RGBA 8-bit"
    np.testing.assert_array_equal(np.rint(s.pixels * 255), rgba)


def test_tiff_float32(tmp_path: Path) -> None:
    f = np.array([[-0.5, 0.0, 1.0], [2.5, 1e-3, 100.0]], np.float32)
    Image.fromarray(f).save(tmp_path / "f.tif")
    s = load(tmp_path / "f.tif")
    assert s.is_float and s.bit_depth == 32
    assert s.description == "TIFF grey 32-bit float"
    assert s.suggested_format() is Format.F32
    np.testing.assert_array_equal(s.pixels[..., 1], f)  # raw, not normalised or clipped
    np.testing.assert_array_equal(s.pixels[..., 3], 1.0)


def test_tiff_16bit(tmp_path: Path) -> None:
    g = np.array([[0, 300], [65535, 12345]], np.uint16)
    Image.fromarray(g).save(tmp_path / "g.tif")
    s = load(tmp_path / "g.tif")
    assert s.bit_depth == 16
    np.testing.assert_array_equal(np.rint(s.pixels[..., 0].astype(np.float64) * 65535), g)


def test_multipage_tiff_as_layers(tmp_path: Path, rng: np.random.Generator) -> None:
    pages = [rng.integers(0, 256, (6, 5, 3), dtype=np.uint8) for _ in range(3)]
    ims = [Image.fromarray(p) for p in pages]
    ims[0].save(tmp_path / "m.tif", save_all=True, append_images=ims[1:])
    s = load(tmp_path / "m.tif")
    assert s.layers == 3 and s.pixels.shape == (3, 6, 5, 4)
    assert "3 pages as layers" in s.description
    for i, p in enumerate(pages):
        np.testing.assert_array_equal(np.rint(s.pixels[i, ..., :3] * 255), p)

    ims = [Image.fromarray(pages[0]), Image.fromarray(pages[1][:4])]
    ims[0].save(tmp_path / "d.tif", save_all=True, append_images=ims[1:])
    s = load(tmp_path / "d.tif")
    assert s.layers == 1 and s.pixels.shape == (6, 5, 4)
    assert "first of 2 pages" in s.description


def test_exif_orientation(tmp_path: Path) -> None:
    # a bright stamp in the top-left corner of a landscape image; orientation 6 means "rotate 90
    # degrees clockwise to display": the stamp ends up top-right of a portrait image
    a = np.zeros((32, 48, 3), np.uint8)
    a[:12, :12] = 255
    img = Image.fromarray(a)
    exif = img.getexif()
    exif[0x0112] = 6
    img.save(tmp_path / "r.jpg", exif=exif, quality=95)
    s = load(tmp_path / "r.jpg")
    assert (s.width, s.height) == (32, 48)
    assert "EXIF orientation applied" in s.description
    grey = s.pixels[..., 0]
    assert grey[:12, -12:].mean() > 0.9  # top-right: the stamp
    for corner in (grey[:12, :12], grey[-12:, :12], grey[-12:, -12:]):
        assert corner.mean() < 0.1  # a flip or the wrong turn would land it here

    # every orientation agrees with Pillow's own exif_transpose (lossless PNG)
    from PIL import ImageOps
    b = np.arange(5 * 3 * 3, dtype=np.uint8).reshape(3, 5, 3) * 5
    for orientation in range(1, 9):
        im = Image.fromarray(b)
        ex = im.getexif()
        ex[0x0112] = orientation
        path = tmp_path / f"o{orientation}.png"
        im.save(path, exif=ex)
        with Image.open(path) as ref:
            expected = np.asarray(ImageOps.exif_transpose(ref))
        np.testing.assert_array_equal(np.rint(load(path).pixels[..., :3] * 255), expected)


@pytest.mark.parametrize("name,content,reason", [
    ("empty.png", b"", "file is empty"),
    ("text.png", b"hello, this is not a picture\n", "not an image file (no known format signature)"),
    ("sig.png", b"\x89PNG\r\n\x1a\n\x00\x00", "truncated or corrupt PNG data"),
])
def test_bad_files(tmp_path: Path, name: str, content: bytes, reason: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ImageLoadError) as exc:
        load(path)
    assert str(exc.value) == f"cannot open '{path}': {reason}"
    assert isinstance(exc.value, MipviewError)


def test_truncated_png(tmp_path: Path, rng: np.random.Generator) -> None:
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (64, 64, 4), dtype=np.uint8)).save(buf, "PNG")
    path = tmp_path / "cut.png"
    path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    with pytest.raises(ImageLoadError, match=r"cannot open '.*cut\.png': truncated or corrupt PNG data"):
        load(path)
    # a 16-bit colour PNG goes through its own decode path: still an ImageLoadError
    data = write_png16(rng.integers(0, 65536, (40, 30, 4), dtype=np.uint16), 6)
    path.write_bytes(data[: len(data) - 200])
    with pytest.raises(ImageLoadError, match="truncated or corrupt PNG data"):
        load(path)


def test_missing_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ImageLoadError, match=r"^cannot open '.*nope\.png': no such file$"):
        load(tmp_path / "nope.png")
    with pytest.raises(ImageLoadError, match=r": is a directory$"):
        load(tmp_path)


def test_decompression_bomb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Image.new("RGB", (40, 40)).save(tmp_path / "big.png")
    monkeypatch.setattr(imageio, "MAX_PIXELS", 100)
    with pytest.raises(ImageLoadError, match=r"40x40 is 1,600 pixels, more than mipview opens \(100 = 10x10"):
        load(tmp_path / "big.png")


# --- synthetic ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["zoneplate", "noise", "ramp"])
def test_synthetic(kind: str) -> None:
    s = synthetic(37, 23, seed=3, kind=kind)
    assert s.pixels.shape == (23, 37, 4) and s.pixels.dtype == np.float32
    assert s.pixels.min() >= 0.0 and s.pixels.max() <= 1.0
    assert s.path is None and kind in s.description
    np.testing.assert_array_equal(s.pixels, synthetic(37, 23, seed=3, kind=kind).pixels)
    assert s.suggested_format() is Format.UNORM


def test_synthetic_details() -> None:
    zp = synthetic(64, 64).pixels
    assert zp[..., 3][0, 0] == 0.0 and zp[..., 3][-1, -1] == 1.0  # alpha gradient
    assert not np.array_equal(zp[..., 0], zp[..., 1])  # channels phase-shifted
    assert zp[..., 0].std() > 0.3  # full-contrast rings
    a, b = synthetic(16, 16, seed=1, kind="noise"), synthetic(16, 16, seed=2, kind="noise")
    assert not np.array_equal(a.pixels, b.pixels)
    ramp = synthetic(5, 3, kind="ramp").pixels
    np.testing.assert_allclose(ramp[0, :, 0], [0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(ramp[:, 0, 1], [0, 0.5, 1.0])
    assert synthetic(1, 1).pixels.shape == (1, 1, 4)
    with pytest.raises(MipviewError, match="zoneplate"):
        synthetic(8, 8, kind="plaid")
    with pytest.raises(MipviewError):
        synthetic(0, 8)


def test_source_image_validates() -> None:
    with pytest.raises(ValueError):
        SourceImage(np.zeros((4, 4, 3), np.float32))
    s = SourceImage(np.zeros((2, 4, 4, 4), np.float32), None, "layers", 16, False)
    assert (s.layers, s.width, s.height) == (2, 4, 4)
    assert s.suggested_format() is Format.F16


# --- saving ------------------------------------------------------------------------------------

def test_save_8bit_roundtrip(tmp_path: Path, rng: np.random.Generator) -> None:
    a = rng.integers(0, 256, (9, 11, 4), dtype=np.uint8)
    for fmt in (Format.UNORM, Format.SRGB):
        (path,) = save_level(tmp_path / f"{fmt.label}.png", a, fmt)
        with Image.open(path) as im:
            assert im.mode == "RGBA"
            np.testing.assert_array_equal(np.asarray(im), a)
    # a float64 reference in storage units is rounded
    save_level(tmp_path / "ref.png", a.astype(np.float64) + 0.3, Format.UNORM)
    with Image.open(tmp_path / "ref.png") as im:
        np.testing.assert_array_equal(np.asarray(im), a)


def test_save_16bit_unorm_as_its_codes(tmp_path: Path, rng: np.random.Generator) -> None:
    """r16 levels are 16-bit grey PNGs and rgba16 ones 16-bit RGBA PNGs of their codes as they
    are: loaded back, r16's suggests r16 and gives every code again."""
    a = rng.integers(0, 65536, (9, 11, 4)).astype(np.uint16)
    r16 = Format.R16.held(a)
    (path,) = save_level(tmp_path / "r16.png", r16, Format.R16)
    with Image.open(path) as im:
        assert im.mode == "I;16"
        np.testing.assert_array_equal(np.asarray(im), a[..., 0])
    s = load(path)
    assert s.suggested_format() is Format.R16 and s.description == "PNG grey 16-bit"
    np.testing.assert_array_equal(s.storage(Format.R16), r16)
    (path,) = save_level(tmp_path / "rgba16.png", a, Format.RGBA16)
    np.testing.assert_array_equal(read_png16_unfiltered(path.read_bytes()), a)
    assert load(path).suggested_format() is Format.F16  # 16-bit colour: as before
    np.testing.assert_array_equal(load(path).storage(Format.RGBA16), a)


def test_save_float_as_png16(tmp_path: Path, rng: np.random.Generator) -> None:
    v = rng.random((6, 10, 4)).astype(np.float32)
    v[0, 0] = [-1.0, 2.0, np.nan, 0.5]
    path, npy = save_level(tmp_path / "f.png", v.astype(np.float16), Format.F16)
    assert npy == tmp_path / "f.npy"
    expected = np.rint(np.clip(np.nan_to_num(v.astype(np.float16).astype(np.float64)), 0, 1)
                       * 65535).astype(np.uint16)
    got = read_png16_unfiltered(path.read_bytes())
    np.testing.assert_array_equal(got, expected)
    assert got[0, 0].tolist() == [0, 65535, 0, 32768]
    # Pillow reads 16-bit RGBA PNG as 8-bit RGBA: the high bytes
    with Image.open(path) as im:
        assert im.size == (10, 6)
        np.testing.assert_array_equal(np.asarray(im), (expected >> 8).astype(np.uint8))
    # and the loader gets all 16 bits back
    np.testing.assert_array_equal(np.rint(load(path).pixels.astype(np.float64) * 65535), expected)
    np.testing.assert_array_equal(read_png16_unfiltered(encode_png16(v.astype(np.float16))),
                                  expected)


def test_save_layers(tmp_path: Path, rng: np.random.Generator) -> None:
    a = rng.integers(0, 256, (2, 3, 4, 4), dtype=np.uint8)
    paths = save_level(tmp_path / "level1.png", a, Format.UNORM)
    assert [p.name for p in paths] == ["level1_layer00.png", "level1_layer01.png"]
    with Image.open(paths[1]) as im:
        np.testing.assert_array_equal(np.asarray(im), a[1])
    paths = save_level(tmp_path / "f.png", a.astype(np.float32) / 255, Format.F32)
    assert [p.name for p in paths] == ["f_layer00.png", "f_layer00.npy",
                                       "f_layer01.png", "f_layer01.npy"]
    np.testing.assert_array_equal(np.load(paths[3]), a[1].astype(np.float32) / 255)
    with pytest.raises(ValueError):
        save_level(tmp_path / "x.png", a[0, ..., :3], Format.UNORM)
    with pytest.raises(MipviewError, match="cannot write"):
        save_level(tmp_path / "no" / "such" / "dir.png", a[0], Format.UNORM)


def _special_values(dtype: type) -> np.ndarray:
    """(5, 7, 4) values of ``dtype`` with negative, > 1, NaN (two payloads), +-Inf, -0 and
    subnormal values, the rest random."""
    v = np.random.default_rng(5).normal(0.5, 2.0, (5, 7, 4)).astype(dtype)
    info = np.finfo(dtype)
    v[0, 0] = [-1.5, 3.25, np.inf, -np.inf]
    v[0, 1] = [np.nan, -0.0, info.smallest_subnormal, info.max]
    bits = v.view(np.uint16 if dtype == np.float16 else np.uint32)
    bits[0, 2, 0] = bits[0, 1, 0] | 1  # a NaN with another payload
    return v


@pytest.mark.parametrize("fmt", [Format.F16, Format.F32])
def test_save_float_levels_losslessly(tmp_path: Path, fmt: Format) -> None:
    v = _special_values(fmt.dtype.type)
    paths = save_level(tmp_path / "level_03.png", v, fmt)
    assert [p.name for p in paths] == ["level_03.png", "level_03.npy"]
    back = np.load(paths[1], allow_pickle=False)
    assert back.dtype == fmt.dtype and back.shape == v.shape
    uint = np.uint16 if fmt.element is Format.F16 else np.uint32
    np.testing.assert_array_equal(back.view(uint), v.view(uint))  # bit for bit, NaN payloads too
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_saving_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that dies half-way leaves the previous file whole and no temporary behind."""
    target = tmp_path / "level_00.png"
    a = np.zeros((4, 4, 4), np.uint8)
    save_level(target, a, Format.UNORM)
    before = target.read_bytes()

    class Interrupted(BaseException):
        pass

    real_fdopen = imageio.os.fdopen

    def half_write(fd: int, mode: str):  # writes half of the data, then the run is interrupted
        f = real_fdopen(fd, mode)
        real_write = f.write

        def write(data: bytes) -> int:
            real_write(data[: len(data) // 2])
            raise Interrupted
        f.write = write
        return f

    monkeypatch.setattr(imageio.os, "fdopen", half_write)
    with pytest.raises(Interrupted):
        save_level(target, np.full((4, 4, 4), 255, np.uint8), Format.UNORM)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["level_00.png"]


# --- bundled samples ---------------------------------------------------------------------------

def test_samples_present_and_small() -> None:
    default = sample_path()
    assert default.name == "photo_npot_1000x750.png"
    s = load(default)
    assert (s.width, s.height) == (1000, 750) and s.description == "PNG RGB 8-bit"
    for name in SAMPLES:
        path = sample_path(name)
        assert path.stat().st_size < 1_000_000
    assert sample_path("zoneplate_512") == sample_path("zoneplate_512.png")
    alpha = load(sample_path("alpha_300x200")).pixels[..., 3]
    assert alpha.min() == 0.0 and alpha.max() == 1.0 and 0.05 < alpha.mean() < 0.5
    with pytest.raises(MipviewError, match="no bundled sample"):
        sample_path("nope")


def test_samples_match_generator(tmp_path: Path) -> None:
    # the committed PNGs are what `python -m mipview.io.samples` writes, compared as pixels (zlib
    # versions change the bytes) and within 1 LSB (libm/SIMD differences in cos and pow can
    # tip a rounding on another machine)
    for path in generate(tmp_path):
        with Image.open(path) as fresh, Image.open(sample_path(path.name)) as committed:
            assert fresh.mode == committed.mode and fresh.size == committed.size
            diff = np.abs(np.asarray(fresh).astype(int) - np.asarray(committed).astype(int))
            assert diff.max() <= 1 and diff.mean() < 1e-3, path.name


# --- 8-bit fast path: uint8 samples kept, float pixels made on demand ----------------------------
@pytest.mark.parametrize("mode", ["RGBA", "RGB", "L", "LA"])
def test_8bit_fast_path_equals_float_path(tmp_path: Path, mode: str) -> None:
    """The uint8-keeping loader gives bit for bit the float32 pixels the float loader
    (``_rgba(samples, 255.0)``) gave, and storage() equals to_storage() of those pixels."""
    from mipview.core.formats import to_storage
    from mipview.io.imageio import _rgba

    values = np.arange(256, dtype=np.uint8)  # every 8-bit value, in every channel
    a = np.stack([np.roll(values, 37 * c) for c in range(4)], -1).reshape(16, 16, 4)
    a = np.concatenate([a, np.random.default_rng(7).integers(0, 256, (5, 16, 4), np.uint8)])
    img = Image.fromarray(a, "RGBA").convert(mode)
    img.save(tmp_path / "a.png")
    s = load(tmp_path / "a.png")
    assert s.rgba8 is not None and s.rgba8.dtype == np.uint8
    assert (s.width, s.height, s.layers) == (16, 21, 1)
    assert "pixels" not in s.__dict__  # sizes and 8-bit storage never convert to float
    for fmt in (Format.UNORM, Format.SRGB):
        assert s.storage(fmt) is s.rgba8
    assert "pixels" not in s.__dict__
    before = _rgba(np.asarray(img), 255.0)
    assert s.pixels.dtype == np.float32 and not s.pixels.flags.writeable
    np.testing.assert_array_equal(s.pixels, before)
    assert np.array_equal(s.pixels.view(np.uint32), before.view(np.uint32))  # bits, not ==
    for fmt in Format:
        np.testing.assert_array_equal(s.storage(fmt), to_storage(before, fmt))
