"""Texture files as engines and tools ship them (tests/data/shipped/; MANIFEST.md says where each
comes from): each one opens (``mipview run FILE`` writes its run) and its level 0 equals an
independent decoder's (Pillow, the PNG its repository ships beside it, or the bytes laid out as
its specification says; Basis Universal files: tests/test_basis_files.py), or it is refused in
one line that names its format and what would read it. What no shipped file holds
(depth-stencil texels, ZLIB levels, a big-endian KTX 1.1, padded rows, cube maps) is hand-built
with known texels."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
import zstandard
from PIL import Image

from mipview.cli.main import main
from mipview.core.formats import Format
from mipview.io import containers, imageio
from mipview.io.containers import dds_header, ktx1
from mipview.io.imageio import ImageLoadError
from tests.stderr import one_line_error
from tests.test_basis_files import BASIS

SHIPPED = Path(__file__).parent / "data" / "shipped"

#: file -> the independent decoder its level 0 is compared with
OPENS = {
    **{name: "spec" for name in (
        "ccwn2c08.ktx2", "g03n2c08.ktx2", "rgb-mipmap-reference-u.ktx2", "tbrn2c08.ktx2",
        "luminance_reference_u.ktx2", "rg_reference_u.ktx2", "test_rgba8.ktx2",
        "orient-down-metadata-u.ktx2", "arraytex_7_mipmap_reference_u.ktx2",
        "3dtex_7_reference_u.ktx2", "color_grid_zstd.ktx2", "hdr-rgb-r16.ktx",
        "hdr-rgb-rgb16.ktx", "hdr-rgb-rgb32.ktx", "hdr-rgba-rgba16.ktx", "hdr-rgba-rgba32.ktx",
        "ldr-l-01-3.dds")},
    "ldr.ktx": "ldr.png", "ldr.dds": "ldr.png",
    "DXGI_FORMAT_R8G8B8A8_UNORM_SRGB.dds": "DXGI_FORMAT_R8G8B8A8_UNORM_SRGB.png",
    **{name: "pillow" for name in ("uncompressed_l.dds", "uncompressed_la.dds", "bc1.dds",
                                   "DXGI_FORMAT_BC7_UNORM_SRGB.dds", "ati1.dds")},
    # compared with an independent decoder in tests/test_block_formats.py
    **{name: "blocks" for name in ("astc_ldr_6x6_arraytex_7.ktx2", "bc6h.dds")},
}
#: file -> what its one-line refusal names: the format, and what would read it
REFUSED = {
    "bgr15.dds": ("D3DFMT_X1R5G5B5", "texconv"),
    "palette.dds": ("D3DFMT_P8", "convert it to PNG"),
}
_VOLUMES = ("3dtex_7_reference_u.ktx2", "ldr-l-01-3.dds")


def test_every_shipped_file_is_checked_and_listed_with_its_source():
    files = {p.name for p in SHIPPED.iterdir()} - {"MANIFEST.md"}
    references = {r for r in OPENS.values() if r.endswith(".png")}
    assert files == set(OPENS) | set(REFUSED) | references | set(BASIS)
    manifest = (SHIPPED / "MANIFEST.md").read_text()
    for name in files:
        assert f"`{name}`" in manifest, name
    assert sum(p.stat().st_size for p in SHIPPED.iterdir()) < 2_000_000


# --- independent decoders ------------------------------------------------------------------------
def _ktx2_level0(data: bytes) -> np.ndarray:
    """Level 0 of an 8-bit KTX2 as the specification lays it out: (images, H, W, components),
    its images a volume's slices or an array's layers; Zstandard inflated here."""
    vk_format, _, width, height = struct.unpack_from("<4I", data, 12)
    scheme = struct.unpack_from("<I", data, 44)[0]
    offset, length, full = struct.unpack_from("<3Q", data, 80)
    blob = data[offset:offset + length]
    if scheme == 2:
        blob = zstandard.ZstdDecompressor().decompress(blob, max_output_size=full)
    components = {9: 1, 16: 2, 23: 3, 29: 3, 37: 4, 43: 4}[vk_format]
    return np.frombuffer(blob, np.uint8).reshape(-1, height, width, components)


def _ktx1_level0(data: bytes) -> np.ndarray:
    """Level 0 of a little-endian KTX 1.1 of whole 4-byte rows: (1, H, W, components)."""
    fields = struct.unpack_from("<13I", data, 12)
    gl_type, gl_format, width, height, kvd = fields[1], fields[3], fields[6], fields[7], fields[12]
    dtype = {0x140B: "<f2", 0x1406: "<f4"}[gl_type]
    components = {0x1903: 1, 0x1907: 3, 0x1908: 4}[gl_format]  # GL_RED, GL_RGB, GL_RGBA
    count = height * width * components
    return np.frombuffer(data, dtype, count, 64 + kvd + 4).reshape(1, height, width, components)


def _by_spec(path: Path) -> np.ndarray:
    data = path.read_bytes()
    if path.suffix == ".ktx2":
        return _ktx2_level0(data)
    if path.suffix == ".ktx":
        return _ktx1_level0(data)
    # a legacy 8-bit luminance volume: the texels right after the 128-byte header
    header = dds_header.unpack(data)
    assert header.rgb_bits == 8 and header.pf_flags & dds_header.DDPF_LUMINANCE
    count = header.depth * header.height * header.width
    return np.frombuffer(data, np.uint8, count, 128).reshape(header.depth, header.height,
                                                             header.width, 1)


def _by_pillow(path: Path) -> np.ndarray:
    """What Pillow decodes, as mipview holds it: grey in R, G and B, alpha opaque if none."""
    with Image.open(path) as im:
        im.load()
        mode, pixels = im.mode, np.asarray(im)
    if mode == "L":
        return np.dstack([pixels] * 3 + [np.full_like(pixels, 255)])
    if mode == "LA":
        return np.dstack([pixels[..., 0]] * 3 + [pixels[..., 1]])
    if mode == "RGB":
        return np.dstack([pixels, np.full_like(pixels[..., 0], 255)])
    return pixels


@pytest.mark.parametrize("name", sorted(OPENS))
def test_level0_of_each_shipped_file_equals_an_independent_decoders(name):
    path = SHIPPED / name
    texture = imageio.load(path, volumes=True).texture
    level0 = np.asarray(texture.levels[0])
    how = OPENS[name]
    if how == "blocks":
        assert texture.decoded_from
        return
    if how == "spec":
        raw = _by_spec(path)
        mine = level0 if level0.ndim == 4 else level0[None]
        components = raw.shape[-1]
        if name.endswith(".dds"):  # luminance: grey in R, G and B
            assert np.array_equal(mine[..., :3], np.repeat(raw, 3, axis=-1))
        else:
            assert np.array_equal(mine[..., :components], raw.astype(mine.dtype))
        if components == 3:  # RGB read as RGBA with alpha 1, and the file says so
            assert (mine[..., 3] == texture.fmt.one).all()
            assert any("alpha 1" in note for note in texture.notes)
        return
    if how == "pillow":
        theirs = _by_pillow(path)
        if texture.decoded_from == "BC4":  # Vulkan reads BC4 as (R, 0, 0, 1); Pillow as grey
            assert np.array_equal(level0[..., 0], theirs[..., 0])
            assert (level0[..., 1:3] == 0).all()
            return
    else:  # the PNG the source repository ships beside it
        theirs = _by_pillow(SHIPPED / how)
    assert np.array_equal(level0, theirs)


@pytest.mark.parametrize("name", sorted(OPENS))
def test_mipview_run_opens_each_shipped_file(tmp_path, capsys, name):
    strategy = "volume-per-level" if name in _VOLUMES else "per-level"
    out = tmp_path / "out"
    code = main(["run", str(SHIPPED / name), "--strategies", strategy, "--out", str(out)])
    # a file's own chain is fitted and reported, never failed without an expected filter
    assert code == 0, code
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed
    notes = imageio.load(SHIPPED / name, volumes=True).texture.notes
    if any("alpha 1" in note for note in notes):
        assert "read as RGBA with alpha 1" in printed  # the note reaches the user


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_each_refused_shipped_file_is_one_line_naming_its_format(tmp_path, capsys, name):
    out = tmp_path / "out"
    assert main(["run", str(SHIPPED / name), "--strategies", "per-level", "--out",
                 str(out)]) == 2
    one_line_error(capsys, name, *REFUSED[name])
    assert not out.exists()  # nothing half-written


# --- hand-built KTX2 -----------------------------------------------------------------------------
def _ktx2(vk_format: int, width: int, height: int, levels: list[bytes], scheme: int = 0,
          full: list[int] | None = None) -> bytes:
    """A KTX2 of ``levels`` (each level's bytes as stored), no DFD or key/value data."""
    n = len(levels)
    full = full or [len(b) for b in levels]
    offset = 80 + 24 * n
    index, body = b"", b""
    for blob, size in zip(levels, full, strict=True):
        index += struct.pack("<3Q", offset + len(body), len(blob), size)
        body += blob
    header = containers.ktx2.IDENTIFIER + struct.pack(
        "<9I4I2Q", vk_format, 1, width, height, 0, 0, 1, n, scheme, 0, 0, 0, 0, 0, 0)
    return header + index + body


def _load(tmp_path: Path, name: str, data: bytes) -> containers.TextureFile:
    (tmp_path / name).write_bytes(data)
    return imageio.read_chain(tmp_path / name)


_DEPTH = np.array([[0.0, 0.25, 0.5], [0.75, 1.0, 0.125]], np.float32)
_STENCIL = np.array([[1, 2, 3], [250, 0xAB, 7]], np.uint32)


@pytest.mark.parametrize("vk_format", [130, 129, 128])
def test_ktx2_depth_stencil_reads_the_depth_and_says_the_stencil_was_dropped(tmp_path, vk_format):
    # the texels as the KTX 2.0 specification's "Depth and Stencil Formats" defines them
    if vk_format == 130:  # D32_SFLOAT_S8_UINT: the float, then a word with the stencil in its LSBs
        texels = np.stack([_DEPTH.view(np.uint32), _STENCIL], axis=-1).astype("<u4")
        want, fmt = _DEPTH, Format.D32
    elif vk_format == 129:  # D24_UNORM_S8_UINT: stencil in the 8 LSBs, the depth above
        d24 = np.rint(_DEPTH * 0xFFFFFF).astype(np.uint32)
        texels = ((d24 << 8) | _STENCIL).astype("<u4")
        want, fmt = (d24 / 0xFFFFFF).astype(np.float32), Format.D32
    else:  # D16_UNORM_S8_UINT: the 16-bit depth, then a 16-bit word with the stencil
        d16 = np.rint(_DEPTH * 0xFFFF).astype(np.uint16)
        texels = np.stack([d16, _STENCIL.astype(np.uint16)], axis=-1).astype("<u2")
        want, fmt = d16, Format.D16
    texture = _load(tmp_path, "d.ktx2", _ktx2(vk_format, 3, 2, [texels.tobytes()]))
    assert texture.fmt is fmt
    assert np.array_equal(texture.levels[0][..., 0], want)
    assert (texture.levels[0][..., 3] == fmt.one).all()
    assert any("stencil was dropped" in note for note in texture.notes), texture.notes


@pytest.mark.parametrize(("vk_format", "dtype", "fmt"), [
    (84, "<u2", Format.RGBA16), (90, "<f2", Format.F16), (106, "<f4", Format.F32),
    (30, "u1", Format.UNORM)])
def test_ktx2_three_channels_read_as_rgba_with_alpha_one(tmp_path, vk_format, dtype, fmt):
    rgb = (np.arange(2 * 3 * 3).reshape(2, 3, 3) * 7).astype(dtype)
    texture = _load(tmp_path, "c.ktx2", _ktx2(vk_format, 3, 2, [rgb.tobytes()]))
    order = [2, 1, 0] if vk_format == 30 else [0, 1, 2]  # B8G8R8: blue first
    assert texture.fmt is fmt and np.array_equal(texture.levels[0][..., :3], rgb[..., order])
    assert (texture.levels[0][..., 3] == fmt.one).all()
    assert texture.notes == ("3 channels (RGB), read as RGBA with alpha 1",)


def _chain() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.integers(0, 256, (max(1, 5 >> p), max(1, 6 >> p), 4), dtype=np.uint8)
            for p in range(3)]


@pytest.mark.parametrize("scheme", [2, 3])
def test_supercompressed_ktx2_levels_inflate_to_the_stored_texels(tmp_path, scheme):
    chain = _chain()
    pack = zstandard.ZstdCompressor().compress if scheme == 2 else zlib.compress
    data = _ktx2(37, 6, 5, [pack(level.tobytes()) for level in chain], scheme,
                 [level.nbytes for level in chain])
    texture = _load(tmp_path, "z.ktx2", data)
    assert all(np.array_equal(a, b) for a, b in zip(texture.levels, chain, strict=True))


@pytest.mark.parametrize("scheme", [2, 3])
def test_supercompressed_levels_that_do_not_fit_are_one_line(tmp_path, scheme):
    chain = _chain()
    pack = zstandard.ZstdCompressor().compress if scheme == 2 else zlib.compress
    name = "Zstandard" if scheme == 2 else "ZLIB"
    # a level whose stream holds more than its size: refused, not inflated past it
    with pytest.raises(ImageLoadError, match=f"scheme {scheme}, {name}.*level 0 inflates to "
                                             f"121\\+ bytes, its size needs 120"):
        _load(tmp_path, "long.ktx2", _ktx2(37, 6, 5, [pack(bytes(1 << 20))], scheme,
                                           [chain[0].nbytes]))
    with pytest.raises(ImageLoadError, match="level 0 does not inflate"):
        _load(tmp_path, "junk.ktx2", _ktx2(37, 6, 5, [b"junk" * 9], scheme, [chain[0].nbytes]))


# --- hand-built DDS ------------------------------------------------------------------------------
@pytest.mark.parametrize("dxgi", [20, 21, 45, 46])
def test_dds_depth_stencil_reads_the_depth(tmp_path, dxgi):
    # Direct3D 11's interleaved texels: R32G8X24 8 bytes (float depth, stencil byte, 24 unused
    # bits), R24G8 one 32-bit word (depth in the 24 LSBs, stencil above)
    if dxgi in (20, 21):
        texels = np.stack([_DEPTH.view(np.uint32), _STENCIL | 0xABCDEF00], axis=-1)
        want = _DEPTH
    else:
        d24 = np.rint(_DEPTH * 0xFFFFFF).astype(np.uint32)
        texels, want = d24 | (_STENCIL << 24), (d24 / 0xFFFFFF).astype(np.float32)
    data = dds_header.pack_dx10(3, 2, 1, dxgi, 1, 3 * texels.itemsize) + \
        texels.astype("<u4").tobytes()
    texture = _load(tmp_path, "d.dds", data)
    assert texture.fmt is Format.D32 and np.array_equal(texture.levels[0][..., 0], want)
    assert any("stencil was dropped" in note for note in texture.notes)


def test_dds_rgb32f_and_stencil_only_views(tmp_path):
    rgb = np.linspace(-1, 4, 18, dtype=np.float32).reshape(2, 3, 3)
    texture = _load(tmp_path, "c.dds", dds_header.pack_dx10(3, 2, 1, 6, 1, 36) + rgb.tobytes())
    assert np.array_equal(texture.levels[0][..., :3], rgb)
    assert (texture.levels[0][..., 3] == 1).all()
    assert any("alpha 1" in note for note in texture.notes)
    with pytest.raises(ImageLoadError, match="DXGI_FORMAT_X24_TYPELESS_G8_UINT: the stencil "
                                             "alone"):
        _load(tmp_path, "s.dds", dds_header.pack_dx10(3, 2, 1, 47, 1, 12) + bytes(24))


def test_dds_16bit_luminance(tmp_path):
    grey = np.arange(6, dtype=np.uint16).reshape(2, 3) * 10000
    header = bytearray(dds_header.pack_dx10(3, 2, 1, 0, 1, 6)[:128])
    # DDS_PIXELFORMAT at byte 76: size, DDPF_LUMINANCE, no FourCC, 16 bits, L mask 0xFFFF
    header[76:108] = struct.pack("<8I", 32, dds_header.DDPF_LUMINANCE, 0, 16, 0xFFFF, 0, 0, 0)
    texture = _load(tmp_path, "l16.dds", bytes(header) + grey.astype("<u2").tobytes())
    assert texture.pixel_format == "D3DFMT_L16" and texture.fmt is Format.RGBA16
    assert all(np.array_equal(texture.levels[0][..., c], grey) for c in range(3))
    assert (texture.levels[0][..., 3] == 65535).all()


# --- hand-built KTX 1.1 --------------------------------------------------------------------------
def _ktx_1(order: str, gl: tuple[int, int, int, int], width: int, height: int,
           levels: list[list[bytes]], layers: int = 0, faces: int = 1, kvd: bytes = b"") -> bytes:
    """A KTX 1.1 file in byte order ``order``: ``gl`` is (glType, glTypeSize, glFormat,
    glInternalFormat); each level its images (rows already padded to 4 bytes)."""
    gl_type, type_size, gl_format, internal = gl
    out = ktx1.IDENTIFIER + struct.pack(f"{order}13I", 0x04030201, gl_type, type_size, gl_format,
                                        internal, gl_format, width, height, 0, layers, faces,
                                        len(levels), len(kvd)) + kvd
    for images in levels:
        body = b"".join(images)
        size = len(images[0]) if faces == 6 and not layers else len(body)
        out += struct.pack(f"{order}I", size) + body + bytes(-len(body) % 4)
    return out


@pytest.mark.parametrize("order", ["<", ">"])
def test_ktx1_half_float_array_in_either_byte_order(tmp_path, order):
    rng = np.random.default_rng(5)
    chain = [rng.normal(size=(2, max(1, 4 >> p), max(1, 6 >> p), 4)).astype(np.float16)
             for p in range(3)]
    levels = [[layer.astype(f"{order}f2").tobytes() for layer in level] for level in chain]
    data = _ktx_1(order, (0x140B, 2, 0x1908, 0x881A), 6, 4, levels, layers=2)
    texture = _load(tmp_path, "h.ktx", data)
    assert texture.container == "KTX 1.1" and texture.fmt is Format.F16
    assert all(np.array_equal(a, b) for a, b in zip(texture.levels, chain, strict=True))


def test_ktx1_rgb8_rows_padded_to_four_bytes_and_flipped_by_orientation(tmp_path):
    rgb = np.arange(3 * 3 * 3, dtype=np.uint8).reshape(3, 3, 3)
    image = b"".join(row.tobytes() + b"\xee" * 3 for row in rgb)  # 9 bytes a row, padded to 12
    kvd_entry = b"KTXorientation\0S=r,T=u\0"
    kvd = struct.pack("<I", len(kvd_entry)) + kvd_entry + bytes(-len(kvd_entry) % 4)
    texture = _load(tmp_path, "p.ktx", _ktx_1("<", (0x1401, 1, 0x1907, 0x8051), 3, 3,
                                              [[image]], kvd=kvd))
    assert np.array_equal(texture.levels[0][..., :3], rgb[::-1])  # T=u: row 0 at the bottom
    assert (texture.levels[0][..., 3] == 255).all()
    assert any("alpha 1" in n for n in texture.notes) and any("T=u" in n for n in texture.notes)


def test_ktx1_cube_map_gives_one_faces_image_size(tmp_path):
    faces = np.arange(6 * 2 * 2 * 4, dtype=np.uint8).reshape(6, 2, 2, 4)
    data = _ktx_1("<", (0x1401, 1, 0x1908, 0x8058), 2, 2, [[f.tobytes() for f in faces]],
                  faces=6)
    texture = _load(tmp_path, "c.ktx", data)
    assert texture.is_cube and np.array_equal(texture.levels[0], faces)
    broken = bytearray(data)
    struct.pack_into("<I", broken, 64, 6 * 16)  # the whole level's size: not what 1.1 says
    with pytest.raises(ImageLoadError, match="imageSize 96, but 6 x 2x2 of GL_RGBA8 is 16"):
        _load(tmp_path, "b.ktx", bytes(broken))


def test_ktx1_formats_it_does_not_read_are_named_with_a_way_to_convert(tmp_path):
    data = _ktx_1("<", (0, 1, 0, 0x8C00), 4, 4, [[bytes(8)]])  # GL_COMPRESSED_RGB_PVRTC_4BPPV1
    with pytest.raises(ImageLoadError, match="0x8c00, PVRTC blocks.*ktx create"):
        _load(tmp_path, "e.ktx", data)


def test_legacy_24bit_rgb_dds_from_pillow_reads_as_rgba_with_alpha_one(tmp_path):
    rgb = np.random.default_rng(9).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(tmp_path / "rgb.dds")  # Pillow writes 24-bit BGR masks
    texture = imageio.read_chain(tmp_path / "rgb.dds")
    assert texture.pixel_format.startswith("D3DFMT_R8G8B8 ")
    assert np.array_equal(texture.levels[0], _by_pillow(tmp_path / "rgb.dds"))
    assert np.array_equal(texture.levels[0][..., :3], rgb)
    assert texture.notes[-1] == "3 channels (RGB), read as RGBA with alpha 1"


def test_ktx1_bc1_blocks_decode_as_pillow_decodes_them_in_a_dds(tmp_path):
    blocks = np.random.default_rng(2).integers(0, 256, 4 * 8, dtype=np.uint8).tobytes()
    dds = tmp_path / "b.dds"
    dds.write_bytes(dds_header.pack_dx10(8, 8, 1, 71, 1, len(blocks), linear_size=True) + blocks)
    texture = _load(tmp_path, "b.ktx", _ktx_1("<", (0, 1, 0, 0x83F1), 8, 8, [[blocks]]))
    assert texture.decoded_from == "BC1"
    assert np.array_equal(texture.levels[0], _by_pillow(dds))


def test_ktx1_volume_reads_each_levels_slices_and_says_it_is_one(tmp_path):
    chain = [np.arange(4 * 2 * 2 * 4, dtype=np.uint8).reshape(4, 2, 2, 4),
             np.full((2, 1, 1, 4), 7, np.uint8)]
    data = bytearray(_ktx_1("<", (0x1401, 1, 0x1908, 0x8058), 2, 2,
                            [[level.tobytes()] for level in chain]))
    struct.pack_into("<I", data, 12 + 4 * 8, 4)  # pixelDepth 4
    data = bytes(data)
    assert containers.decode.is_volume("v.ktx", data[:containers.decode.HEAD_BYTES])
    (tmp_path / "v.ktx").write_bytes(data)
    texture = imageio.load(tmp_path / "v.ktx", volumes=True).texture
    assert texture.volume and texture.depth == 4
    assert all(np.array_equal(a, b) for a, b in zip(texture.levels, chain, strict=True))
