"""The block formats beyond BC1-BC5/BC7 each container reads, as layouts for its table: signed
BC4/BC5, BC6H, ETC1, ETC2, EAC and ASTC (:mod:`mipview.io.containers.blocks`). Each reader adds
its numbering's entries to its own table (Vulkan's for KTX2, DXGI's for DDS, OpenGL's for KTX
1.1), named as the file names them."""

from __future__ import annotations

from mipview.io.containers.blocks import BlockCodec, astc, bc6h, channels, etc
from mipview.io.containers.format_names import dxgi_name, vk_name
from mipview.io.containers.pixels import Blocks

#: VkFormat -> (codec, sRGB)
_VULKAN: dict[int, tuple[BlockCodec, bool]] = {
    140: (channels.BC4_SNORM, False), 142: (channels.BC5_SNORM, False),
    143: (bc6h.UF16, False), 144: (bc6h.SF16, False),
    147: (etc.ETC2_RGB, False), 148: (etc.ETC2_RGB, True),
    149: (etc.ETC2_RGBA1, False), 150: (etc.ETC2_RGBA1, True),
    151: (etc.ETC2_RGBA, False), 152: (etc.ETC2_RGBA, True),
    153: (channels.EAC_R11, False), 154: (channels.EAC_R11_SNORM, False),
    155: (channels.EAC_RG11, False), 156: (channels.EAC_RG11_SNORM, False),
    **{157 + 2 * i + srgb: (astc.codec(size, False), bool(srgb))
       for i, size in enumerate(astc.SIZES) for srgb in (0, 1)},
    **{1000066000 + i: (astc.codec(size, True), False) for i, size in enumerate(astc.SIZES)},
}
#: DXGI_FORMAT -> codec (DDS holds none of these as sRGB; BC6H_TYPELESS read as UF16)
_DXGI = {81: channels.BC4_SNORM, 84: channels.BC5_SNORM, 94: bc6h.UF16, 95: bc6h.UF16,
         96: bc6h.SF16}
#: a legacy DDS FourCC -> (its name, codec)
FOURCC = {b"BC4S": Blocks("BC4S (BC4 SNORM)", channels.BC4_SNORM, False),
          b"BC5S": Blocks("BC5S (BC5 SNORM)", channels.BC5_SNORM, False)}
_ASTC_GL = [f"{w}x{h}" for w, h in astc.SIZES]
#: glInternalFormat -> (name, codec, sRGB); OpenGL names one ASTC format for LDR and HDR
#: blocks alike, so its RGBA formats decode with the HDR profile, which decodes both
_GL: dict[int, tuple[str, BlockCodec, bool]] = {
    0x8DBC: ("GL_COMPRESSED_SIGNED_RED_RGTC1", channels.BC4_SNORM, False),
    0x8DBE: ("GL_COMPRESSED_SIGNED_RG_RGTC2", channels.BC5_SNORM, False),
    0x8E8E: ("GL_COMPRESSED_RGB_BPTC_SIGNED_FLOAT", bc6h.SF16, False),
    0x8E8F: ("GL_COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT", bc6h.UF16, False),
    0x8D64: ("GL_ETC1_RGB8_OES", etc.ETC1, False),
    0x9270: ("GL_COMPRESSED_R11_EAC", channels.EAC_R11, False),
    0x9271: ("GL_COMPRESSED_SIGNED_R11_EAC", channels.EAC_R11_SNORM, False),
    0x9272: ("GL_COMPRESSED_RG11_EAC", channels.EAC_RG11, False),
    0x9273: ("GL_COMPRESSED_SIGNED_RG11_EAC", channels.EAC_RG11_SNORM, False),
    0x9274: ("GL_COMPRESSED_RGB8_ETC2", etc.ETC2_RGB, False),
    0x9275: ("GL_COMPRESSED_SRGB8_ETC2", etc.ETC2_RGB, True),
    0x9276: ("GL_COMPRESSED_RGB8_PUNCHTHROUGH_ALPHA1_ETC2", etc.ETC2_RGBA1, False),
    0x9277: ("GL_COMPRESSED_SRGB8_PUNCHTHROUGH_ALPHA1_ETC2", etc.ETC2_RGBA1, True),
    0x9278: ("GL_COMPRESSED_RGBA8_ETC2_EAC", etc.ETC2_RGBA, False),
    0x9279: ("GL_COMPRESSED_SRGB8_ALPHA8_ETC2_EAC", etc.ETC2_RGBA, True),
    **{0x93B0 + i: (f"GL_COMPRESSED_RGBA_ASTC_{s}_KHR", astc.codec(size, True), False)
       for i, (s, size) in enumerate(zip(_ASTC_GL, astc.SIZES, strict=True))},
    **{0x93D0 + i: (f"GL_COMPRESSED_SRGB8_ALPHA8_ASTC_{s}_KHR", astc.codec(size, False), True)
       for i, (s, size) in enumerate(zip(_ASTC_GL, astc.SIZES, strict=True))},
}


def vulkan() -> dict[int, Blocks]:
    """KTX2's block layouts beyond BC1-BC5/BC7, by VkFormat."""
    return {n: Blocks(vk_name(n), codec, srgb) for n, (codec, srgb) in _VULKAN.items()}


def dxgi() -> dict[int, Blocks]:
    """DDS's block layouts beyond BC1-BC5/BC7, by DXGI_FORMAT."""
    return {n: Blocks(dxgi_name(n), codec, False) for n, codec in _DXGI.items()}


def gl() -> dict[int, Blocks]:
    """KTX 1.1's block layouts beyond BC1-BC5/BC7, by glInternalFormat."""
    return {n: Blocks(name, codec, srgb) for n, (name, codec, srgb) in _GL.items()}
