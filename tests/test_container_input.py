"""Texture files mipview did not write: malformed, truncated and absurd ones (one line each, no
reading past the end, no allocation the file cannot back), block-compressed ones (decoded with
Pillow), legacy DDS headers, KTX2 orientations, and formats mipview cannot decode."""

from __future__ import annotations

import io
import struct
import time
import tracemalloc

import ktx2_spec_reader
import numpy as np
import pytest
from PIL import Image

from mipview.check.verdict import judge
from mipview.core.formats import Format, level_size, mip_count, to_storage
from mipview.io import containers, imageio
from mipview.io.imageio import ImageLoadError


def _chain(fmt: Format, width: int = 37, height: int = 23, layers: int | None = 2,
           seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for p in range(mip_count(width, height)):
        w, h = level_size(width, height, p)
        shape = (h, w, 4) if layers is None else (layers, h, w, 4)
        if fmt.is_float:
            out.append((rng.standard_normal(shape) * 4).astype(fmt.dtype))
        else:
            out.append(rng.integers(0, 256, shape, dtype=np.uint8))
    return out


def _fails(tmp_path, name: str, data: bytes, *fragments: str) -> str:
    """Load ``data`` as ``name``: one ImageLoadError line naming the file and ``fragments``."""
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ImageLoadError) as info:
        imageio.load(path)
    message = str(info.value)
    prefix = f"cannot open '{path}': "
    assert "\n" not in message and message.startswith(prefix)
    reason = message[len(prefix):]  # the path names the test, which may say "truncated"
    for fragment in fragments:
        assert fragment in reason, message
    return reason


def _small_and_fast(tmp_path, name: str, data: bytes, *fragments: str) -> None:
    """Fails in well under a second, allocating next to nothing (a header claiming gigabytes
    must not be believed before the file's size is)."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        _fails(tmp_path, name, data, *fragments)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 1.0
    assert peak < 8 << 20, f"{peak:,} bytes allocated"


def _u32(value: int) -> bytes:
    return struct.pack("<I", value)


def _u64(value: int) -> bytes:
    return struct.pack("<Q", value)


def _put(data: bytes, at: int, value: bytes) -> bytes:
    return data[:at] + value + data[at + len(value):]


# --- KTX2 ----------------------------------------------------------------------------------------
@pytest.fixture
def ktx2_file() -> bytes:
    return containers.ktx2.encode(_chain(Format.UNORM), Format.UNORM)


def test_ktx2_with_the_wrong_identifier(tmp_path, ktx2_file):
    _fails(tmp_path, "a.ktx2", b"\xacKTX 20" + ktx2_file[7:], "not a KTX2 file (wrong magic)")
    _fails(tmp_path, "b.ktx2", b"\xabKTX 11\xbb\r\n\x1a\n" + bytes(100), "KTX 1 file")
    # the identifier is what counts, not the name: a KTX2 called .png is still read as one
    (tmp_path / "c.png").write_bytes(ktx2_file)
    assert imageio.load(tmp_path / "c.png").texture.container == "KTX2"


def test_ktx2_truncated_anywhere_is_one_line(tmp_path, ktx2_file):
    parsed = ktx2_spec_reader.parse(ktx2_file)
    level0 = parsed.levels[0][0]
    for cut in (5, 12, 60, 79, 100, parsed.fields["dfdByteOffset"] + 10, parsed.levels[-1][0] + 3,
                level0 + 1, len(ktx2_file) - 1):
        _fails(tmp_path, "t.ktx2", ktx2_file[:cut], "truncated")


def test_ktx2_level_index_past_the_end(tmp_path, ktx2_file):
    _fails(tmp_path, "i.ktx2", _put(ktx2_file, 80, _u64(len(ktx2_file))),
           "level 0 lies past the end of the file")
    _fails(tmp_path, "j.ktx2", _put(ktx2_file, 80 + 8, _u64(5)), "level 0 holds 5 bytes")


def test_ktx2_absurd_sizes_in_a_tiny_file_fail_fast(tmp_path, ktx2_file):
    def header(width: int, height: int, layers: int, levels: int) -> bytes:
        return _put(ktx2_file, 20, _u32(width) + _u32(height) + _u32(0) + _u32(layers)
                    + _u32(1) + _u32(levels))

    tiny = header(30000, 30000, 0, 1)[:2000]
    _small_and_fast(tmp_path, "big.ktx2", tiny, "level 0 holds")
    _small_and_fast(tmp_path, "huge.ktx2", header(30000, 30000, 60000, 1)[:2000],
                    "more than mipview opens")
    _small_and_fast(tmp_path, "many.ktx2", header(37, 23, 2, 0xFFFFFFFF)[:2000],
                    "claims 4294967295 mip levels", "at most 6")


@pytest.mark.parametrize(("vk_format", "fragments"), [
    (1000054000, ("vkFormat 1000054000", "PVRTC")),
    (0, ("VK_FORMAT_UNDEFINED",)),
    (92, ("vkFormat 92 is not one mipview reads",)),  # R16G16B16A16_SNORM
])
def test_ktx2_formats_mipview_cannot_decode_are_named(tmp_path, ktx2_file, vk_format, fragments):
    _fails(tmp_path, "f.ktx2", _put(ktx2_file, 12, _u32(vk_format)), *fragments)


@pytest.mark.parametrize(("scheme", "name"), [(1, "BasisLZ"), (2, "Zstandard"), (3, "ZLIB")])
def test_supercompressed_ktx2_is_one_line(tmp_path, ktx2_file, scheme, name):
    _fails(tmp_path, "z.ktx2", _put(ktx2_file, 44, _u32(scheme)), f"scheme {scheme}, {name}")


def test_ktx2_broken_cube_maps_and_3d_textures_are_refused(tmp_path, ktx2_file):
    # cube maps are read (tests/test_cube_io.py); a 37x23 one or five faces are not
    _fails(tmp_path, "cube.ktx2", _put(ktx2_file, 36, _u32(6)),
           "a cube map with 37x23 faces: a cube's faces are square")
    _fails(tmp_path, "five.ktx2", _put(ktx2_file, 36, _u32(5)), "faceCount 5 is invalid")
    # volumes are read (tests/test_volume_io.py); an array of them (this file has 2 layers) is
    # not
    _fails(tmp_path, "vol.ktx2", _put(ktx2_file, 28, _u32(4)),
           "an array of 2 3D textures (pixelDepth 4, layerCount 2)")


def test_ktx2_bottom_up_orientation_is_shown_top_down(tmp_path):
    levels = _chain(Format.UNORM, layers=None)
    data = containers.ktx2.encode(levels, Format.UNORM).replace(b"KTXorientation\0rd",
                                                                b"KTXorientation\0ru")
    path = tmp_path / "up.ktx2"
    path.write_bytes(data)
    texture = imageio.read_chain(path)
    assert np.array_equal(texture.levels[1], levels[1][::-1])
    assert "KTXorientation 'ru'" in texture.notes[0]


# --- DDS -----------------------------------------------------------------------------------------
@pytest.fixture
def dds_file() -> bytes:
    return containers.dds.encode(_chain(Format.F16), Format.F16)


def test_dds_with_the_wrong_magic(tmp_path, dds_file):
    _fails(tmp_path, "a.dds", b"DDX " + dds_file[4:], "not a DDS file (wrong magic)")
    _fails(tmp_path, "b.dds", _put(dds_file, 4, _u32(100)), "header size 100")


def test_dds_truncated_anywhere_is_one_line(tmp_path, dds_file):
    for cut in (3, 60, 127, 140, 1000, len(dds_file) - 1):
        _fails(tmp_path, "t.dds", dds_file[:cut], "truncated")


def test_dds_absurd_sizes_in_a_tiny_file_fail_fast(tmp_path, dds_file):
    big = _put(_put(dds_file, 12, _u32(30000) + _u32(30000)), 140, _u32(1))[:4000]
    _small_and_fast(tmp_path, "big.dds", big, "need", "the file holds 4000")
    _small_and_fast(tmp_path, "huge.dds", _put(big, 140, _u32(2)), "more than mipview opens")
    _small_and_fast(tmp_path, "many.dds", _put(dds_file, 28, _u32(1000)), "1000 mip levels")


@pytest.mark.parametrize(("patch", "fragments"), [
    ((128, _u32(47)), ("X24_TYPELESS_G8_UINT", "the stencil alone")),
    ((128, _u32(25)), ("DXGI format 25 is not one mipview reads",)),  # R10G10B10A2_UINT
    ((128, _u32(13)), ("DXGI format 13 is not one mipview reads",)),  # R16G16B16A16_SNORM
    ((136, _u32(4)), ("a cube map with 37x23 faces", "square")),  # cubes: test_cube_io.py
    ((132, _u32(4)), ("a 3D texture with arraySize 2",)),  # volumes: test_volume_io.py
    ((84, b"DXT2"), ("premultiplied",)),
    ((84, b"ETC1"), ("FourCC ETC1 is not one mipview reads",)),
])
def test_dds_formats_and_kinds_mipview_cannot_read_are_named(tmp_path, dds_file, patch,
                                                             fragments):
    _fails(tmp_path, "f.dds", _put(dds_file, *patch), *fragments)


@pytest.mark.parametrize(("dxgi", "name", "fmt", "family", "block"), [
    (99, "DXGI_FORMAT_BC7_UNORM_SRGB", Format.SRGB, "BC7", 16),
    (83, "DXGI_FORMAT_BC5_UNORM", Format.UNORM, "BC5", 16),
    (80, "DXGI_FORMAT_BC4_UNORM", Format.UNORM, "BC4", 8),
    (75, "DXGI_FORMAT_BC2_UNORM_SRGB", Format.SRGB, "BC2", 16),
    (91, "DXGI_FORMAT_B8G8R8A8_UNORM_SRGB", Format.SRGB, None, 64),
])
def test_dds_block_and_bgra_formats_are_named_and_decoded(tmp_path, dxgi, name, fmt, family,
                                                         block):
    from mipview.io.containers import dds_header

    data = dds_header.pack_dx10(4, 4, 1, dxgi, 1, 16) + bytes(range(block))
    path = tmp_path / "x.dds"
    path.write_bytes(data)
    texture = imageio.read_chain(path)
    assert (texture.pixel_format, texture.fmt, texture.decoded_from) == (name, fmt, family)
    assert texture.levels[0].shape == (4, 4, 4)
    if family == "BC4":  # Vulkan's channels of a one-channel format: (R, 0, 0, 1)
        assert (texture.levels[0][..., 1:3] == 0).all() and (texture.levels[0][..., 3] == 255).all()
    if family is None:  # BGRA bytes 0, 1, 2, 3 are texel (2, 1, 0, 3)
        assert tuple(texture.levels[0][0, 0]) == (2, 1, 0, 3)


def test_legacy_uncompressed_dds_from_pillow(tmp_path):
    rgba = np.random.default_rng(3).integers(0, 256, (9, 13, 4), dtype=np.uint8)
    path = tmp_path / "legacy.dds"
    Image.fromarray(rgba).save(path)  # Pillow writes a legacy header with BGRA masks
    source = imageio.load(path)
    assert np.array_equal(source.rgba8, rgba)
    assert source.texture.fmt is Format.UNORM and not source.texture.has_chain
    assert "legacy DDS header" in source.texture.notes[0]


# --- block compression ---------------------------------------------------------------------------
def _gradient(width: int, height: int) -> np.ndarray:
    x = np.linspace(0, 255, width)[None, :, None]
    y = np.linspace(0, 255, height)[:, None, None]
    rgb = np.concatenate([x + 0 * y, 0 * x + y, (x + y) / 2 + 0 * x], axis=-1)
    return np.rint(rgb).astype(np.uint8)


@pytest.mark.parametrize(("pixel_format", "family"), [("DXT1", "BC1"), ("DXT5", "BC3"),
                                                      ("BC5", "BC5")])
def test_bcn_dds_made_by_pillow_decodes_as_pillow_decodes_it(tmp_path, pixel_format, family):
    rgb = _gradient(64, 32)
    buf = io.BytesIO()
    image = Image.fromarray(rgb) if family == "BC5" else Image.fromarray(rgb).convert("RGBA")
    image.save(buf, format="DDS", pixel_format=pixel_format)
    path = tmp_path / "bc.dds"
    path.write_bytes(buf.getvalue())
    texture = imageio.load(path).texture
    assert texture.decoded_from == family and texture.fmt is Format.UNORM
    with Image.open(path) as im:
        theirs = np.asarray(im.convert("RGBA"))
    mine = texture.levels[0]
    channels = 2 if family == "BC5" else 4  # BC5 holds red and green (Vulkan: blue 0, alpha 1)
    assert np.array_equal(mine[..., :channels], theirs[..., :channels])
    # and the decode is of this image: a smooth gradient survives BCn within a few codes
    error = mine.astype(int) - np.dstack([rgb, np.full(rgb.shape[:2], 255)])
    assert np.abs(error[..., :channels]).mean() < 4


# A hand-made BC1 block: colour0 pure red (565 0xF800) > colour1 pure blue (0x001F), so the
# four-colour mode; row 0 uses indices 0, 1, 2, 3, the other rows index 0.
# Decoded: red, blue, 2/3 red + 1/3 blue, 1/3 red + 2/3 blue.
_BC1_BLOCK = struct.pack("<HHI", 0xF800, 0x001F, 0b11100100)
_BC1_ROW0 = [(255, 0, 0, 255), (0, 0, 255, 255), (170, 0, 85, 255), (85, 0, 170, 255)]


def _bc1_chain_dds(levels: int) -> bytes:
    from mipview.io.containers import dds_header

    return dds_header.pack_dx10(4, 4, levels, 71, 1, 8, linear_size=True) + _BC1_BLOCK * levels


def test_a_hand_made_bc1_chain_decodes_to_known_colours_and_is_checked(tmp_path):
    path = tmp_path / "bc1.dds"
    path.write_bytes(_bc1_chain_dds(3))  # 4x4, 2x2, 1x1: one block each
    texture = imageio.read_chain(path)
    assert texture.pixel_format == "DXGI_FORMAT_BC1_UNORM" and len(texture.levels) == 3
    assert [tuple(t) for t in texture.levels[0][0]] == _BC1_ROW0
    assert (texture.levels[0][1:] == (255, 0, 0, 255)).all()
    assert [tuple(t) for t in texture.levels[1].reshape(-1, 4)] == [
        _BC1_ROW0[0], _BC1_ROW0[1], _BC1_ROW0[0], _BC1_ROW0[0]]
    assert tuple(texture.levels[2][0, 0]) == _BC1_ROW0[0]
    # the same block at every level is no mip chain: the check says so, level by level
    verdict = judge(texture.as_result().levels, texture.levels[0], texture.fmt)
    assert verdict.failing_levels == (1, 2)
    assert "compression error" in texture.as_result().notes[-1]


def _bc1_chain_ktx2(vk_format: int, levels: int) -> bytes:
    """A KTX2 file of one BC1 block per level, assembled here from the spec's layout."""
    index_end = 80 + 24 * levels
    first = index_end + 4  # an empty DFD block list: only dfdTotalSize (the reader needs none)
    index = b"".join(_u64(first + 8 * (levels - 1 - p)) + _u64(8) + _u64(8)
                     for p in range(levels))
    return (ktx2_spec_reader.IDENTIFIER + struct.pack("<9I", vk_format, 1, 4, 4, 0, 0, 1, levels,
                                                      0)
            + struct.pack("<4I2Q", index_end, 4, 0, 0, 0, 0) + index + _u32(4)
            + _BC1_BLOCK * levels)


def test_bc1_in_ktx2_decodes_like_bc1_in_dds(tmp_path):
    path = tmp_path / "bc1.ktx2"
    path.write_bytes(_bc1_chain_ktx2(134, 3))  # VK_FORMAT_BC1_RGBA_SRGB_BLOCK
    texture = imageio.read_chain(path)
    assert (texture.fmt, texture.decoded_from, len(texture.levels)) == (Format.SRGB, "BC1", 3)
    assert texture.description() == "KTX2 VK_FORMAT_BC1_RGBA_SRGB_BLOCK, 3 levels, decoded from BC1"
    assert [tuple(t) for t in texture.levels[0][0]] == _BC1_ROW0
    path.write_bytes(_bc1_chain_ktx2(131, 3))  # the RGB variant: alpha 1 whatever the block
    assert (imageio.read_chain(path).levels[0][..., 3] == 255).all()


# --- EXR -----------------------------------------------------------------------------------------
@pytest.fixture
def exr_file() -> bytes:
    pytest.importorskip("OpenEXR")
    return containers.exr.encode(_chain(Format.F16, layers=None), Format.F16)[0]


def test_exr_with_the_wrong_magic(tmp_path, exr_file):
    _fails(tmp_path, "a.exr", b"\x76\x2f\x31\x02" + exr_file[4:], "not an OpenEXR file")
    _fails(tmp_path, "b.exr", b"GIF89a" + exr_file[6:], "not an OpenEXR file (wrong magic)")


def test_exr_truncated_anywhere_is_one_line(tmp_path, exr_file):
    header_end = exr_file.index(b"scanlineimage\0") + len(b"scanlineimage\0")
    for cut in (2, 6, 30, header_end - 3, header_end + 1, header_end + 12, len(exr_file) - 1):
        _fails(tmp_path, "t.exr", exr_file[:cut], "truncated")


def test_corrupt_exr_pixel_data_is_one_line_and_the_library_stays_quiet(tmp_path, exr_file,
                                                                        capfd):
    bad = exr_file[:-50] + b"\xff" * 10 + exr_file[-40:]
    capfd.readouterr()
    _fails(tmp_path, "c.exr", bad, "OpenEXR could not decode it", "EXR_ERR_CORRUPT_CHUNK")
    assert capfd.readouterr() == ("", "")


def test_exr_attribute_too_short_for_its_type(tmp_path, exr_file):
    key = b"dataWindow\0box2i\0"
    at = exr_file.index(key) + len(key)
    short = exr_file[:at] + _u32(8) + exr_file[at + 4:at + 12] + exr_file[at + 20:]
    _fails(tmp_path, "s.exr", short, "corrupt EXR header")


def test_a_corrupt_part_of_a_layered_exr_is_not_left_out(tmp_path, capfd):
    pytest.importorskip("OpenEXR")
    # zeros compress (a chunk no smaller than its pixels is stored as it is, never inflated)
    good = containers.exr.encode([np.zeros((2, 9, 13, 4), np.float16)], Format.F16)[0]
    # two parts (layers) of one ZIP chunk each: find layer 1's through the offset table, whose
    # entries point at chunks that start with (part number, y)
    layer1 = next(off for i in range(8, len(good) - 8)
                  for (off,) in [struct.unpack_from("<Q", good, i)]
                  if i < off < len(good) - 12 and struct.unpack_from("<ii", good, off) == (1, 0))
    _, _, size = struct.unpack_from("<3i", good, layer1)  # part, y, packed size
    bad = good[:layer1 + 12] + b"\xff" * size + good[layer1 + 12 + size:]  # no valid deflate
    capfd.readouterr()
    _fails(tmp_path, "l.exr", bad, "OpenEXR could not decode it")
    assert capfd.readouterr() == ("", "")


def test_exr_absurd_data_window_in_a_tiny_file_fails_fast(tmp_path, exr_file):
    at = exr_file.index(b"dataWindow\0box2i\0") + len(b"dataWindow\0box2i\0") + 4
    big = _put(exr_file, at, struct.pack("<4i", 0, 0, 29999, 29999))
    _small_and_fast(tmp_path, "big.exr", big, "claims 30000x30000 texels")


def test_exr_keeps_hdr_values_and_counts_the_odd_ones(tmp_path):
    pytest.importorskip("OpenEXR")
    levels = _chain(Format.F32, layers=None)
    levels[0][0, 0] = (-2.5, 1e6, np.nan, np.inf)
    levels[0][0, 1] = (-1.0, 0.5, 0.5, 1.0)
    path = containers.export(tmp_path, "hdr", levels[:1], Format.F32, ["exr"])[0]
    source = imageio.load(path)
    assert source.is_float and source.suggested_format() is Format.F32
    assert np.array_equal(source.pixels, levels[0], equal_nan=True)
    assert source.nonfinite.describe() == "1 non-finite texel (1 NaN, 1 +Inf)"
    negative = int((levels[0] < 0).any(axis=-1).sum())
    assert f"{negative} texels with negative values" in " ".join(source.texture.notes)


def test_an_exr_level_of_the_wrong_size_is_named(tmp_path):
    pytest.importorskip("OpenEXR")
    files = containers.export(tmp_path, "c", _chain(Format.F16, layers=None), Format.F16, ["exr"])
    files[2].write_bytes(files[1].read_bytes())
    _fails(tmp_path, "c.level00.exr", files[0].read_bytes(), "c.level02.exr is not level 2",
           "18x11", "9x5")


def _small_chain(fmt: Format, layers: int | None) -> list[np.ndarray]:
    """A 5x3 chain of ``fmt``'s storage values from input beyond [0, 1], with NaN and
    infinities (stored as the format stores them: UNORM clamps, b10g11r11 has no sign)."""
    rng = np.random.default_rng(11)
    out = []
    for p in range(mip_count(5, 3)):
        w, h = level_size(5, 3, p)
        pixels = rng.uniform(-0.5, 1.5, (layers or 1, h, w, 4))
        if fmt.is_float:
            pixels *= 1000.0
        pixels[0, 0, 0, :3] = (np.nan, np.inf, -np.inf)
        level = to_storage(pixels, fmt)
        out.append(level if layers else level[0])
    return out


@pytest.mark.parametrize("fmt", list(Format), ids=[f.label for f in Format])
def test_every_format_round_trips_through_exr_bit_exactly(tmp_path, fmt):
    pytest.importorskip("OpenEXR")
    for layers in (None, 2):
        levels = _small_chain(fmt, layers)
        files = containers.export(tmp_path / str(layers), "c", levels, fmt, ["exr"])
        texture = imageio.read_chain(files[0])
        assert texture.fmt is fmt and texture.pixel_format.endswith(f" as {fmt.label}")
        for mine, written in zip(texture.levels, levels, strict=True):
            assert mine.shape == written.shape and mine.dtype == written.dtype
            assert np.array_equal(mine.view(np.uint8), written.view(np.uint8))  # NaN too


UNORM_FORMATS = [f for f in Format if not f.is_float]


@pytest.mark.parametrize("fmt", UNORM_FORMATS, ids=[f.label for f in UNORM_FORMATS])
def test_every_unorm_code_survives_its_float_in_exr(tmp_path, fmt):
    """Every code of every channel (256 of 8 bits, sRGB's in linear light, 65536 of 16, 1024
    and 4 of rgb10a2) is written as its decoded float and rounds back to itself."""
    exr = pytest.importorskip("OpenEXR")
    top = np.broadcast_to(fmt.scale, (4,)).astype(int)
    side = int(np.ceil(np.sqrt(top.max() + 1)))
    codes = np.arange(side * side)
    level0 = np.stack([np.roll(codes, 37 * c) % (top[c] + 1) for c in range(4)], axis=-1)
    level0 = fmt.held(level0.reshape(side, side, 4).astype(fmt.dtype))
    (path,) = containers.export(tmp_path, "codes", [level0], fmt, ["exr"])
    file = exr.File(str(path))
    written = {n: c.pixels.dtype for n, c in file.parts[0].channels.items()}
    assert set(written.values()) == {np.dtype(np.float32)}  # FLOAT channels
    assert np.array_equal(imageio.read_chain(path).levels[0], level0)


def test_an_exr_off_its_formats_grid_or_of_no_format_is_one_line(tmp_path):
    exr = pytest.importorskip("OpenEXR")
    header = {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage}
    files = containers.export(tmp_path, "c", _small_chain(Format.UNORM, None), Format.UNORM,
                              ["exr"])
    level1 = exr.File(str(files[1]))
    rgba = np.array(level1.parts[0].channels["RGBA"].pixels)
    rgba[0, 1, 2] = 0.5 / 255  # between codes 0 and 1
    exr.File(dict(header), {"RGBA": rgba}).write(str(files[1]))  # the attribute dropped
    _fails(tmp_path, "c.level00.exr", files[0].read_bytes(), "c.level01.exr: its "
           "mipviewFormat attribute says unorm, but 1 of 2 texels hold values off that "
           "format's grid (the first: B = 0.00196078443 at x 1, y 0)")

    def named(label: str, channels: dict[str, np.ndarray]) -> bytes:
        buf = io.BytesIO()
        exr.File({**header, "mipviewFormat": label}, channels).write(buf)
        return buf.getvalue()

    half = np.full((3, 5, 3), 1 + 2.0 ** -10, np.float16)  # b10g11r11's mantissa has 6 bits
    _fails(tmp_path, "b.exr", named("b10g11r11", {"RGB": half}), "says b10g11r11",
           "15 of 15 texels")
    _fails(tmp_path, "n.exr", named("rgba9", {"RGB": half}),
           "its mipviewFormat attribute names no mipview format ('rgba9'; mipview writes unorm")


# --- anything else -------------------------------------------------------------------------------
def test_damaged_files_only_ever_end_in_one_line(tmp_path, capfd):
    """Random bytes changed (mostly in the headers) and random cuts: every file either loads or
    fails with ImageLoadError, and nothing reaches the terminal (before these checks, short
    EXR attributes escaped as struct.error and a corrupt part was silently left out)."""
    pytest.importorskip("OpenEXR")
    goods = {"f.ktx2": containers.ktx2.encode(_chain(Format.F16, 13, 9, 2), Format.F16),
             "f.dds": containers.dds.encode(_chain(Format.UNORM, 13, 9, 2), Format.UNORM),
             "f.exr": containers.exr.encode(_chain(Format.F32, 13, 9, 2), Format.F32)[0]}
    rng = np.random.default_rng(7)
    capfd.readouterr()
    for name, good in goods.items():
        for _ in range(150):
            data = bytearray(good)
            for _ in range(rng.integers(1, 6)):
                reach = 400 if rng.random() < 0.8 else len(data)
                data[rng.integers(0, min(len(data), reach))] = rng.integers(0, 256)
            if rng.random() < 0.3:
                data = data[:rng.integers(0, len(data))]
            (tmp_path / name).write_bytes(bytes(data))
            try:
                imageio.load(tmp_path / name)
            except ImageLoadError as e:
                assert "\n" not in str(e)
    assert capfd.readouterr() == ("", "")


def test_exr_channel_layouts_other_tools_write(tmp_path):
    exr = pytest.importorskip("OpenEXR")
    rgb = np.arange(5 * 7 * 3, dtype=np.float32).reshape(5, 7, 3) - 50
    grey = np.linspace(-1, 4, 35, dtype=np.float16).reshape(5, 7)
    header = {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage}
    exr.File(dict(header), {"RGB": rgb}).write(str(tmp_path / "rgb.exr"))
    exr.File(dict(header), {"Y": grey, "A": grey * 0 + 0.5}).write(str(tmp_path / "ya.exr"))
    exr.File(dict(header), {"Z": grey}).write(str(tmp_path / "z.exr"))
    a = imageio.load(tmp_path / "rgb.exr")
    assert a.texture.fmt is Format.F32 and np.array_equal(a.pixels[..., :3], rgb)
    assert (a.pixels[..., 3] == 1).all()
    b = imageio.load(tmp_path / "ya.exr")
    assert b.texture.fmt is Format.F16 and b.texture.pixel_format == "half RGBA"
    assert all(np.array_equal(b.texture.levels[0][..., c], grey) for c in range(3))
    assert (b.texture.levels[0][..., 3] == np.float16(0.5)).all()
    # a depth buffer (Z) is one channel: r16f here, G and B 0 and alpha 1 as a shader reads them
    z = imageio.load(tmp_path / "z.exr")
    assert z.texture.fmt is Format.R16F and z.texture.pixel_format == "half Z"
    assert np.array_equal(z.texture.levels[0][..., 0], grey) and z.suggested_format() is Format.R16F
    assert (z.texture.levels[0][..., 1:3] == 0).all() and (z.texture.levels[0][..., 3] == 1).all()
    # a lone Y (luminance, or depth as some tools write it) is one channel too
    exr.File(dict(header), {"Y": grey}).write(str(tmp_path / "y.exr"))
    y = imageio.load(tmp_path / "y.exr")
    assert y.texture.fmt is Format.R16F and np.array_equal(y.texture.levels[0][..., 0], grey)
    # channels of other names: one is read as it is, more need a choice (FILE#NAME)
    exr.File(dict(header), {"Q": grey}).write(str(tmp_path / "q.exr"))
    assert np.array_equal(imageio.load(tmp_path / "q.exr").texture.levels[0][..., 0], grey)
    exr.File(dict(header), {"P": grey, "Q": grey}).write(str(tmp_path / "pq.exr"))
    with pytest.raises(ImageLoadError, match="no colour channels mipview reads .* has P, Q"):
        imageio.load(tmp_path / "pq.exr")


def test_npy_arrays_are_read_as_the_format_their_shape_and_dtype_say(tmp_path):
    rng = np.random.default_rng(5)
    depth = rng.random((23, 37)).astype(np.float32) * 100.0
    cases = {"depth.npy": (depth, Format.R32F), "rg.npy": (depth[..., None].repeat(2, -1)
                                                            .astype(np.float16), Format.RG16F),
             "mask.npy": ((depth * 2).astype(np.uint8), Format.R8),
             "rgba.npy": (np.dstack([depth] * 4), Format.F32)}
    for name, (array, fmt) in cases.items():
        np.save(tmp_path / name, array)
        source = imageio.load(tmp_path / name)
        assert source.suggested_format() is fmt and source.texture.container == "NPY"
        stored = source.storage(fmt)
        own = array if array.ndim == 3 else array[..., None]
        assert np.array_equal(fmt.pack(stored), own.astype(fmt.dtype)), name  # every texel
        if fmt.channels < 4:  # the rest read as a shader reads them
            assert (stored[..., fmt.channels:3] == 0).all() and (stored[..., 3] == fmt.one).all()
    np.save(tmp_path / "three.npy", np.zeros((4, 4, 3), np.float32))
    _fails(tmp_path, "three.npy", (tmp_path / "three.npy").read_bytes(),
           "3 channel(s) of float32: mipview holds")
    np.save(tmp_path / "cube.npy", np.zeros((2, 4, 4, 4), np.float32))
    _fails(tmp_path, "cube.npy", (tmp_path / "cube.npy").read_bytes(),
           "an array of shape (2, 4, 4, 4)")
