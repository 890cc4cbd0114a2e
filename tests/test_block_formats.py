"""Block formats beyond BC1-BC5/BC7 read at their full precision: BC6H to half floats, signed
BC4/BC5 and EAC R11/RG11 to float32, ETC1/ETC2 to their 8-bit codes, ASTC LDR and HDR at every
2D block size (half floats; sRGB to codes).

Each family is checked two ways: against an independent decoder (another library than the one
mipview decodes it with) within that decoder's 8 bits, and hand-built blocks whose texels are
worked out here from the format's specification. Each check is also shown failing on a wrong
decode (channels swapped, a signed format read as unsigned, a block read as the wrong variant).
"""

from __future__ import annotations

import io
import struct
import sys
from pathlib import Path

import astc_encoder
import numpy as np
import pytest
import texture2ddecoder as t2d
from PIL import Image

from mipview.core.formats import Format
from mipview.io import imageio
from mipview.io.containers import dds_header, ktx1, ktx2
from mipview.io.containers.blocks import BlockCodec, astc, bc6h, channels, decode, etc
from mipview.io.containers.texture import TextureFile
from mipview.io.imageio import ImageLoadError

SHIPPED = Path(__file__).parent / "data" / "shipped"


# --- files of blocks, as each container lays them out ---------------------------------------------
def _ktx2(vk_format: int, width: int, height: int, level: bytes) -> bytes:
    """A KTX2 of one level of ``level``'s blocks (no DFD: the reader goes by vkFormat)."""
    header = struct.pack("<12s13I2Q", ktx2.IDENTIFIER, vk_format, 1, width, height, 0, 0, 1, 1,
                         0, 0, 0, 0, 0, 0, 0)
    return header + struct.pack("<3Q", 104, len(level), len(level)) + level


def _dds(dxgi: int, width: int, height: int, level: bytes) -> bytes:
    return dds_header.pack_dx10(width, height, 1, dxgi, 1, len(level), linear_size=True) + level


def _ktx1(internal: int, width: int, height: int, level: bytes) -> bytes:
    return (ktx1.IDENTIFIER + struct.pack("<13I", 0x04030201, 0, 1, 0, internal, 0, width,
                                          height, 0, 0, 1, 1, 0)
            + struct.pack("<I", len(level)) + level + bytes(-len(level) % 4))


def _read(tmp_path: Path, name: str, data: bytes) -> TextureFile:
    path = tmp_path / name
    path.write_bytes(data)
    return imageio.read_chain(path)


def _within_8_bits(mine: np.ndarray, theirs: np.ndarray) -> bool:
    """The check of every comparison with an 8-bit decoder: at most 1 code apart."""
    return bool(np.abs(mine.astype(np.int64) - theirs.astype(np.int64)).max() <= 1)


def _bgra(raw: bytes, width: int, height: int) -> np.ndarray:
    """texture2ddecoder's output (BGRA bytes) as RGBA."""
    return np.frombuffer(raw, np.uint8).reshape(height, width, 4)[..., [2, 1, 0, 3]]


# --- ASTC ----------------------------------------------------------------------------------------
def _astc_encode(image: np.ndarray, size: tuple[int, int], profile: int) -> bytes:
    """``image`` (uint8 or float32, (H, W, 4)) compressed by astc-encoder, fastest search."""
    kind = astc_encoder.ASTCType.U8 if image.dtype == np.uint8 else astc_encoder.ASTCType.F32
    config = astc_encoder.ASTCConfig(astc_encoder.ASTCProfile(profile), *size, 1,
                                     astc_encoder.ASTCQualityPreset.FASTEST)
    picture = astc_encoder.ASTCImage(kind, image.shape[1], image.shape[0], 1, image.tobytes())
    return astc_encoder.ASTCContext(config).compress(picture, astc_encoder.ASTCSwizzle())


def _picture(height: int, width: int, seed: int) -> np.ndarray:
    """Gradients and noise: blocks of every kind of endpoint and weight."""
    y, x = np.mgrid[0:height, 0:width]
    image = np.stack([x * 255 // max(1, width - 1), y * 255 // max(1, height - 1),
                      (x * y) % 256, 255 - (x * 7) % 256], axis=-1).astype(np.uint8)
    noise = np.random.default_rng(seed).integers(0, 256, image.shape, dtype=np.uint8)
    image[::5] = noise[::5]
    return image


@pytest.mark.parametrize("size", astc.SIZES)
def test_astc_ldr_equals_texture2ddecoders_within_its_8_bits(tmp_path, size):
    width, height = 37, 23  # partial blocks on both sides
    blocks = _astc_encode(_picture(height, width, sum(size)), size, 1)
    theirs = _bgra(t2d.decode_astc(blocks, width, height, *size), width, height)
    number = 157 + 2 * astc.SIZES.index(size)  # VK_FORMAT_ASTC_WxH_UNORM_BLOCK
    unorm = _read(tmp_path, "u.ktx2", _ktx2(number, width, height, blocks))
    assert unorm.fmt is Format.F16 and unorm.decoded_from == f"ASTC {size[0]}x{size[1]}"
    mine = np.round(unorm.levels[0].astype(np.float64) * 255)
    assert _within_8_bits(mine, theirs)
    assert not _within_8_bits(mine[..., [2, 1, 0, 3]], theirs)  # the check sees a swap
    srgb = _read(tmp_path, "s.ktx2", _ktx2(number + 1, width, height, blocks))
    assert srgb.fmt is Format.SRGB and srgb.pixel_format.endswith("_SRGB_BLOCK")
    assert _within_8_bits(srgb.levels[0], theirs)


def _void_extent(colour: tuple[int, int, int, int], hdr: bool) -> bytes:
    """An ASTC void-extent block (ASTC specification, "Void-Extent Blocks"): one colour, 16
    bits a channel (UNORM16 or, ``hdr``, FP16), no extent."""
    return struct.pack("<Q4H", 0xFFFFFFFFFFFFFFFC if hdr else 0xFFFFFFFFFFFFFDFC, *colour)


def test_astc_known_blocks_decode_to_their_values_in_every_variant(tmp_path):
    ldr = _void_extent((0xFFFF, 0, 0x80FF, 0x01FF), hdr=False) * 2
    number = 157 + 2 * astc.SIZES.index((8, 5))  # VK_FORMAT_ASTC_8x5_UNORM_BLOCK
    unorm = _read(tmp_path, "u.ktx2", _ktx2(number, 16, 5, ldr)).levels[0]
    # decode_float16: 0xFFFF is 1.0, any other C the FP16 value of C / 65536 rounded toward
    # zero (0x80FF: 0.50341797, where rounding C / 65535 to nearest would give 0.50390625)
    assert unorm[0, 0, :3].tolist() == [1.0, 0.0, 0.5 + 7 * 2.0 ** -11]
    assert unorm[0, 0, 2] < np.float16(0x80FF / 65535)
    assert unorm[0, 0, 3] == 0x01FF / 65536  # exact in FP16: nothing to round
    # sRGB decodes the top 8 bits of each 16 (0x01 of 0x01FF), never a rounding of them (0x02)
    srgb = _read(tmp_path, "s.ktx2", _ktx2(number + 1, 16, 5, ldr)).levels[0]
    assert (srgb.reshape(-1, 4) == [255, 0, 0x80, 0x01]).all()
    hdr_colour = np.array([2.0, 0.25, 1000.0, 1.0], np.float16)
    hdr = _void_extent(tuple(int(v) for v in hdr_colour.view(np.uint16)), hdr=True)
    texture = _read(tmp_path, "h.ktx2", _ktx2(1000066000 + 11, 10, 10, hdr))  # 10x10 SFLOAT
    assert texture.fmt is Format.F16 and texture.decoded_from == "ASTC 10x10 HDR"
    assert (texture.levels[0].reshape(-1, 4) == hdr_colour).all()
    # an HDR block read as LDR (UNORM) is the specification's error colour, not its values
    as_ldr = _read(tmp_path, "l.ktx2", _ktx2(157 + 2 * 11, 10, 10, hdr)).levels[0]
    assert not (as_ldr.reshape(-1, 4) == hdr_colour).all()


def test_astc_hdr_decodes_what_was_encoded_beyond_one(tmp_path):
    rng = np.random.default_rng(4)
    image = np.exp2(rng.uniform(-4, 6, (12, 12, 4))).astype(np.float32)
    image[..., 3] = 1.0
    image[:6, :6] = [40.0, 0.5, 3.0, 1.0]  # one block of one colour: encoded near exactly
    blocks = _astc_encode(image, (6, 6), 3)
    level = _read(tmp_path, "h.ktx2", _ktx2(1000066004, 12, 12, blocks)).levels[0]
    assert np.allclose(level[:6, :6].astype(np.float32), image[:6, :6], rtol=2e-3)
    assert level.max() > 16  # half floats beyond 1, no LDR clamp


def test_an_astc_decode_leaves_the_processs_strings_alone(tmp_path):
    # astc-encoder-py's ASTCSwizzle.from_str("rgba") upper-cases its argument in place: the
    # interned "rgba" of every module (the window's channel names) would read "RGBA"
    _read(tmp_path, "a.ktx2", _ktx2(157, 4, 4, _void_extent((1, 2, 3, 4), hdr=False)))
    assert "rgba" == "".join(["r", "g", "b", "a"])


def test_shipped_astc_array_equals_texture2ddecoders():
    texture = imageio.read_chain(SHIPPED / "astc_ldr_6x6_arraytex_7.ktx2")
    data = (SHIPPED / "astc_ldr_6x6_arraytex_7.ktx2").read_bytes()
    offset, length, _ = struct.unpack_from("<3Q", data, 80)
    width, height = texture.width, texture.height
    per_layer = length // texture.layers
    for layer in range(texture.layers):
        blob = data[offset + layer * per_layer:offset + (layer + 1) * per_layer]
        theirs = _bgra(t2d.decode_astc(blob, width, height, 6, 6), width, height)
        assert _within_8_bits(texture.levels[0][layer], theirs)


# --- BC6H ----------------------------------------------------------------------------------------
def _mode11(endpoint: tuple[int, int, int]) -> bytes:
    """A BC6H mode-11 block (mode bits 00011: one region, 10-bit endpoints untransformed) whose
    texels all take endpoint 0 (every index 0)."""
    bits = 0b00011
    for k, value in enumerate(endpoint):
        bits |= (value & 0x3FF) << (5 + 10 * k)
    return bits.to_bytes(16, "little")


def _bc6h_value(component: int, signed: bool) -> np.float16:
    """A 10-bit endpoint component's texel value, unquantized as the BC6H specification (and
    DirectXTex) does: the half float whose bits it becomes."""
    if not signed:
        q = 0 if component == 0 else 0xFFFF if component == 1023 else \
            ((component << 16) + 0x8000) >> 10
        bits = (q * 31) >> 6
    else:
        c = component - 1024 if component & 0x200 else component
        magnitude = abs(c)
        q = 0 if magnitude == 0 else 0x7FFF if magnitude >= 511 else \
            ((magnitude << 15) + 0x4000) >> 9
        bits = ((q * 31) >> 5) | (0x8000 if c < 0 else 0)
    return np.array([bits], np.uint16).view(np.float16)[0]


def test_bc6h_known_blocks_decode_to_their_half_floats(tmp_path):
    endpoint = (600, 37, 1000)
    level = _read(tmp_path, "u.dds", _dds(95, 4, 4, _mode11(endpoint))).levels[0]
    want = [_bc6h_value(c, False) for c in endpoint]
    assert (level[..., :3] == want).all() and (level[..., 3] == 1).all()
    assert level.dtype == np.float16 and level.max() > 1  # HDR kept: not 8 bits
    signed = (600, (-200) & 0x3FF, 5)
    level = _read(tmp_path, "s.dds", _dds(96, 4, 4, _mode11(signed))).levels[0]
    want = [_bc6h_value(c, True) for c in signed]
    assert want[1] < 0 and (level[..., :3] == want).all()
    # the same block read as unsigned (UF16) is not those values: the check tells them apart
    wrong = _read(tmp_path, "w.dds", _dds(95, 4, 4, _mode11(signed))).levels[0]
    assert not (wrong[..., :3] == want).all()


def test_shipped_bc6h_equals_texture2ddecoders_within_its_8_bits():
    data = (SHIPPED / "bc6h.dds").read_bytes()
    texture = imageio.read_chain(SHIPPED / "bc6h.dds")
    assert texture.fmt is Format.F16 and texture.pixel_format == "DXGI_FORMAT_BC6H_UF16"
    width, height = texture.width, texture.height
    blob = data[148:148 + width * height]  # level 0: a byte a texel
    theirs = _bgra(t2d.decode_bc6(blob, width, height), width, height)
    # texture2ddecoder clamps each half float to [0, 1] and rounds it to 8 bits
    mine = np.round(np.clip(texture.levels[0].astype(np.float64), 0, 1) * 255)
    assert _within_8_bits(mine, theirs)
    assert not _within_8_bits(mine[..., [2, 1, 0, 3]], theirs)


# --- signed BC4/BC5 ------------------------------------------------------------------------------
def _bc4(red0: int, red1: int, indices: list[int]) -> bytes:
    """A BC4 block: two endpoints (signed bytes), 16 3-bit indices in row order."""
    bits = sum(i << (3 * k) for k, i in enumerate(indices))
    return struct.pack("<bb", red0, red1) + bits.to_bytes(6, "little")


def test_signed_bc4_known_blocks_decode_to_their_signed_values(tmp_path):
    indices = [2] * 16
    indices[6] = 7  # texel (x 2, y 1)
    block = _bc4(127, -127, indices)  # red0 > red1: six interpolated values
    texture = _read(tmp_path, "r.ktx2", _ktx2(140, 4, 4, block))  # BC4_SNORM
    assert texture.fmt is Format.R32F
    red = texture.levels[0][..., 0]
    assert red[0, 0] == np.float32(5 / 7)  # (6 * 127 - 127) / 7 / 127
    assert red[1, 2] == np.float32(-5 / 7)  # (127 - 6 * 127) / 7 / 127
    assert (texture.levels[0][..., 1:3] == 0).all() and (texture.levels[0][..., 3] == 1).all()
    # red0 <= red1: four interpolated values and the two ends, -1 and 1; -128 is -1 too
    short = _bc4(-128, 0, [6, 7, 1, 0] * 4)
    red = _read(tmp_path, "s.dds", _dds(81, 4, 4, short)).levels[0][0, :4, 0]
    assert red.tolist() == [-1.0, 1.0, 0.0, -1.0]
    # the same blocks read as unsigned BC4 are other values: the check tells them apart
    unsigned = _read(tmp_path, "u.ktx2", _ktx2(139, 4, 4, block)).levels[0][..., 0] / 255
    assert not np.allclose(unsigned, texture.levels[0][..., 0], atol=1 / 127)


def test_signed_bc5_equals_pillows_within_its_8_bits(tmp_path):
    blocks = np.random.default_rng(7).integers(0, 256, (9 * 6, 16), dtype=np.uint8).tobytes()
    width, height = 35, 22
    with Image.open(io.BytesIO(_dds(84, width, height, blocks))) as im:
        im.load()
        theirs = np.asarray(im)[..., :2]  # Pillow: (s + 1) / 2 in 8 bits
    for name, data in (("x.dds", _dds(84, width, height, blocks)),
                       ("f.dds", dds_header.HEADER.pack(
                           dds_header.MAGIC, 124, 0x1007 | dds_header.DDSD_LINEARSIZE, height,
                           width, len(blocks), 0, 1, 32, dds_header.DDPF_FOURCC,
                           int.from_bytes(b"BC5S", "little"), 0, 0, 0, 0, 0, 0x1000, 0, 0, 0,
                           0) + blocks),
                       ("k.ktx", _ktx1(0x8DBE, width, height, blocks))):
        texture = _read(tmp_path, name, data)
        assert texture.fmt is Format.RG32F
        rg = texture.levels[0][..., :2].astype(np.float64)
        assert rg.min() < -0.5 and (texture.levels[0][..., 2] == 0).all()
        assert _within_8_bits(np.round((rg + 1) / 2 * 255), theirs)
        assert not _within_8_bits(np.round((rg[..., ::-1] + 1) / 2 * 255), theirs)


# --- EAC -----------------------------------------------------------------------------------------
def _eac(base: int, multiplier: int, table: int, indices: dict[tuple[int, int], int],
         fill: int = 7) -> bytes:
    """An EAC block: base codeword, multiplier, modifier table, 3-bit indices stored column
    by column, most significant bits first; ``indices`` (x, y) -> index, ``fill`` elsewhere."""
    bits = 0
    for x in range(4):
        for y in range(4):
            bits = (bits << 3) | indices.get((x, y), fill)
    return bytes([base & 0xFF, (multiplier << 4) | table]) + bits.to_bytes(6, "big")


def test_eac_known_blocks_decode_to_their_11_bit_values(tmp_path):
    # table 13 is (-1, -2, -3, -10, 0, 1, 2, 9); base 100, multiplier 2
    block = _eac(100, 2, 13, {(0, 1): 3})
    texture = _read(tmp_path, "r.ktx2", _ktx2(153, 4, 4, block))  # EAC_R11_UNORM
    assert texture.fmt is Format.R32F
    red = texture.levels[0][..., 0]
    assert red[0, 0] == np.float32((100 * 8 + 4 + 9 * 2 * 8) / 2047)
    assert red[1, 0] == np.float32((100 * 8 + 4 - 10 * 2 * 8) / 2047)  # row 1, column 0
    assert red[0, 1] == red[0, 0]  # the index lies down a column, not along a row
    # 948 / 2047 is between two 8-bit codes: EAC's 11 bits are kept
    assert red[0, 0] * 255 % 1 > 0.01
    # multiplier 0: the modifier is added unscaled (an eighth of multiplier 1)
    flat = _read(tmp_path, "z.ktx", _ktx1(0x9270, 4, 4, _eac(100, 0, 13, {}))).levels[0]
    assert (flat[..., 0] == np.float32((100 * 8 + 4 + 9) / 2047)).all()
    signed = _eac(-100, 2, 13, {})
    level = _read(tmp_path, "s.ktx2", _ktx2(154, 4, 4, signed)).levels[0]
    assert (level[..., 0] == np.float32((-100 * 8 + 9 * 2 * 8) / 1023)).all()
    # a signed block read as unsigned is other values: the check tells them apart
    wrong = _read(tmp_path, "w.ktx2", _ktx2(153, 4, 4, signed)).levels[0]
    assert not (wrong[..., 0] == level[..., 0]).all()
    # RG11: red's block, then green's
    rg = _read(tmp_path, "g.ktx2", _ktx2(155, 4, 4, block + _eac(200, 1, 0, {}))).levels[0]
    assert texture.fmt is Format.R32F and (rg[..., 0] == red).all()
    assert (rg[..., 1] == np.float32((200 * 8 + 4 + 14 * 8) / 2047)).all()


@pytest.mark.parametrize(("codec", "function", "signed"), [
    (channels.EAC_R11, "decode_eacr", False), (channels.EAC_R11_SNORM, "decode_eacr_signed", True),
    (channels.EAC_RG11, "decode_eacrg", False),
    (channels.EAC_RG11_SNORM, "decode_eacrg_signed", True)])
def test_eac_equals_texture2ddecoders_within_its_8_bits(codec: BlockCodec, function, signed):
    width, height = 30, 18
    count = 8 * 5 * codec.block_bytes
    blocks = np.random.default_rng(11).integers(0, 256, count, dtype=np.uint8).tobytes()
    mine = decode(codec, blocks, width, height).astype(np.float64)
    theirs = _bgra(getattr(t2d, function)(blocks, 32, 20), 32, 20)[:height, :width]
    planes = codec.block_bytes // 8
    as_bytes = np.round(((mine + 1) / 2 if signed else mine) * 255)[..., :planes]
    assert _within_8_bits(as_bytes, theirs[..., :planes])
    unsigned = np.round(mine * 255)[..., :planes]  # signed values taken for unsigned ones
    assert _within_8_bits(unsigned, theirs[..., :planes]) == (not signed)


# --- ETC1 / ETC2 ---------------------------------------------------------------------------------
#: an individual-mode block (ETC1 and ETC2): subblock colours 0x8/0x4/0x2 (136, 68, 34) and
#: 0xF/0x0/0x5 (255, 0, 85), tables 0 (2, 8) and 7 (47, 183), columns 0-1 and 2-3, every index
#: 0 (+ small) but texel (x 1, y 2): 3 (- large), its bits 22 and 6
_INDIVIDUAL = bytes([0x8F, 0x40, 0x25, 0x1C]) + ((1 << 22) | (1 << 6)).to_bytes(4, "big")


def _individual_texels() -> np.ndarray:
    out = np.zeros((4, 4, 4), np.uint8)
    out[:, :2] = [138, 70, 36, 255]
    out[:, 2:] = [255, 47, 132, 255]  # 255 + 47 clamps
    out[2, 1] = [128, 60, 26, 255]
    return out


@pytest.mark.parametrize(("name", "data"), [
    ("e1.ktx", _ktx1(0x8D64, 4, 4, _INDIVIDUAL)),  # GL_ETC1_RGB8_OES
    ("e2.ktx2", _ktx2(147, 4, 4, _INDIVIDUAL)),  # ETC2_R8G8B8_UNORM
    ("e2s.ktx2", _ktx2(148, 4, 4, _INDIVIDUAL)),  # ETC2_R8G8B8_SRGB
])
def test_etc_individual_block_decodes_to_its_colours(tmp_path, name, data):
    texture = _read(tmp_path, name, data)
    assert texture.fmt is (Format.SRGB if name == "e2s.ktx2" else Format.UNORM)
    assert np.array_equal(texture.levels[0], _individual_texels())
    assert not np.array_equal(texture.levels[0][..., [2, 1, 0, 3]], _individual_texels())


def test_etc2_differential_block_decodes_to_its_colours(tmp_path):
    # differential mode, flipped (rows 0-1, rows 2-3): R 20 G 10 B 5 of 5 bits (165, 82, 41),
    # dR -4 dG +3 dB 0 (132, 107, 41), tables 1 (5, 17) and 2 (9, 29); every index 0 (+ small)
    # but texel (x 3, y 0): 1 (+ large), its bit 12
    block = bytes([0xA4, 0x53, 0x28, 0x2B]) + (1 << 12).to_bytes(4, "big")
    level = _read(tmp_path, "d.ktx2", _ktx2(147, 4, 4, block)).levels[0]
    want = np.zeros((4, 4, 4), np.uint8)
    want[:2] = [170, 87, 46, 255]
    want[2:] = [141, 116, 50, 255]
    want[0, 3] = [182, 99, 58, 255]
    assert np.array_equal(level, want)


def _planar(o: tuple[int, int, int], h: tuple[int, int, int], v: tuple[int, int, int]) -> bytes:
    """An ETC2 planar-mode block: colours O, H and V of 6, 7 and 6 bits, at their places in
    the 64 bits (OpenGL ES 3.0, table C.2 g), and bit 42 set: with O's blue 32 that makes
    B + dB (bits 47-43 and 42-40) negative, which selects the planar mode."""
    (ro, go, bo), (rh, gh, bh), (rv, gv, bv) = o, h, v
    bits = (ro << 57) | ((go >> 6) << 56) | ((go & 63) << 49) | ((bo >> 5) << 48) \
        | (((bo >> 3) & 3) << 43) | (1 << 42) | ((bo & 7) << 39) | ((rh >> 1) << 34) \
        | (1 << 33) | ((rh & 1) << 32) | (gh << 25) | (bh << 19) | (rv << 13) | (gv << 6) | bv
    return bits.to_bytes(8, "big")


def test_etc2_planar_block_decodes_to_its_gradient(tmp_path):
    # R: O 32 H 40 V 20 of 6 bits (130, 162, 81): (x (H - O) + y (V - O) + 4 O + 2) >> 2;
    # G 64 of 7 bits (129) and B 32 of 6 bits (130) flat
    level = _read(tmp_path, "p.ktx2", _ktx2(147, 4, 4, _planar((32, 64, 32), (40, 64, 32),
                                                               (20, 64, 32)))).levels[0]
    y, x = np.mgrid[0:4, 0:4]
    assert np.array_equal(level[..., 0], (x * 32 - y * 49 + 4 * 130 + 2) >> 2)
    assert (level[..., 1] == 129).all() and (level[..., 2] == 130).all()
    assert level[0, 3, 0] == 154 and level[3, 0, 0] == 93


def test_etc2_t_block_decodes_to_its_paint_colours(tmp_path):
    # T mode (table C.2 c): R1 = R1a R1b = 00 01 with bit 58 set makes R 0 and dR -3, out of
    # range, which selects it; colours 1/A/3 (17, 170, 51) and 8/4/F (136, 68, 255), distance
    # index da db = 10 1: 32. Paint colours: 0 colour 1, 1 colour 2 + 32, 2 colour 2, 3 colour 2
    # - 32, clamped; texel i (by columns) takes index LSB bit i, MSB bit 16 + i
    high = (1 << 58) | (1 << 56) | (0xA << 52) | (0x3 << 48) | (0x8 << 44) | (0x4 << 40) \
        | (0xF << 36) | (0b10 << 34) | (1 << 33) | (1 << 32)
    low = (1 << 4) | (1 << (16 + 9)) | (1 << 15) | (1 << (16 + 15))  # (1, 0) 1, (2, 1) 2, (3, 3) 3
    level = _read(tmp_path, "t.ktx2", _ktx2(147, 4, 4, (high | low).to_bytes(8, "big"))).levels[0]
    want = np.zeros((4, 4, 4), np.uint8)
    want[...] = [17, 170, 51, 255]
    want[0, 1] = [168, 100, 255, 255]
    want[1, 2] = [136, 68, 255, 255]
    want[3, 3] = [104, 36, 223, 255]
    assert np.array_equal(level, want)


def test_etc2_alpha_blocks_decode_to_their_alpha(tmp_path):
    # RGBA8: an EAC alpha block (base 100, multiplier 2, table 13) before the colour block
    alpha = _eac(100, 2, 13, {(0, 1): 3})
    level = _read(tmp_path, "a.ktx2", _ktx2(151, 4, 4, alpha + _INDIVIDUAL)).levels[0]
    want = _individual_texels()
    want[..., 3] = 100 + 9 * 2
    want[1, 0, 3] = 100 - 10 * 2
    assert np.array_equal(level, want)
    # punch-through: opaque bit 0, differential mode, base 16/8/4 of 5 bits (132, 66, 33);
    # index 0 adds nothing, index 2 (texel x 1, y 1: bit 21) is transparent black
    punch = bytes([0x80, 0x40, 0x20, 0x00]) + (1 << 21).to_bytes(4, "big")
    level = _read(tmp_path, "p.ktx2", _ktx2(149, 4, 4, punch)).levels[0]
    assert (level[0, 0] == [132, 66, 33, 255]).all() and (level[1, 1] == 0).all()
    # read as ETC2 RGB the same block is individual mode: other colours, the check sees it
    assert not np.array_equal(_read(tmp_path, "q.ktx2", _ktx2(147, 4, 4, punch)).levels[0],
                              level)


def test_etc_decoder_crops_partial_blocks(tmp_path):
    blocks = _INDIVIDUAL * 4
    level = _read(tmp_path, "c.ktx2", _ktx2(147, 5, 7, blocks)).levels[0]
    assert level.shape == (7, 5, 4)
    assert np.array_equal(level[:4, :4], _individual_texels())


# --- what a missing decoder says -----------------------------------------------------------------
@pytest.mark.parametrize(("module", "data", "words"), [
    ("imagecodecs", _dds(95, 4, 4, _mode11((1, 2, 3))), "imagecodecs"),
    ("astc_encoder", _ktx2(157, 4, 4, bytes(16)), "astc-encoder-py"),
    ("texture2ddecoder", _ktx2(147, 4, 4, _INDIVIDUAL), "texture2ddecoder"),
])
def test_a_missing_decoder_is_refused_naming_the_extra(tmp_path, monkeypatch, module, data,
                                                       words):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    suffix = ".dds" if data.startswith(b"DDS ") else ".ktx2"
    with pytest.raises(ImageLoadError, match=f"{words} package, not installed: "
                                             r"pip install mipview\[codecs\]"):
        _read(tmp_path, "m" + suffix, data)


def test_every_block_codec_is_read_by_a_container():
    """Every codec of the package is in a reader's table, with its byte count per block."""
    from mipview.io.containers import block_layouts

    codecs = {b.codec for b in (*block_layouts.vulkan().values(), *block_layouts.dxgi().values(),
                                *block_layouts.gl().values())}
    assert {bc6h.UF16, bc6h.SF16, channels.BC4_SNORM, channels.BC5_SNORM, channels.EAC_R11,
            channels.EAC_R11_SNORM, channels.EAC_RG11, channels.EAC_RG11_SNORM, etc.ETC1,
            etc.ETC2_RGB, etc.ETC2_RGBA1, etc.ETC2_RGBA} <= codecs
    assert {c.block for c in codecs if c.decoder == "astc"} == set(astc.SIZES)
