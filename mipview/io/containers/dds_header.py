"""The DDS file header (Microsoft's DDS_HEADER, DDS_PIXELFORMAT and DDS_HEADER_DXT10): layout,
flags, and packing. Used by the DDS reader and writer and by the BCn decoder's wrapper."""

from __future__ import annotations

import struct
from dataclasses import dataclass

MAGIC = b"DDS "
#: magic, dwSize, dwFlags, dwHeight, dwWidth, dwPitchOrLinearSize, dwDepth, dwMipMapCount,
#: dwReserved1[11], then DDS_PIXELFORMAT (dwSize, dwFlags, dwFourCC, dwRGBBitCount, 4 masks),
#: dwCaps, dwCaps2, dwCaps3, dwCaps4, dwReserved2
HEADER = struct.Struct("<4s7I44x8I5I")
#: dxgiFormat, resourceDimension, miscFlag, arraySize, miscFlags2
DX10 = struct.Struct("<5I")

DDSD_CAPS, DDSD_HEIGHT, DDSD_WIDTH, DDSD_PITCH = 0x1, 0x2, 0x4, 0x8
DDSD_PIXELFORMAT, DDSD_MIPMAPCOUNT, DDSD_LINEARSIZE, DDSD_DEPTH = 0x1000, 0x20000, 0x80000, 0x800000
DDPF_ALPHAPIXELS, DDPF_FOURCC, DDPF_RGB, DDPF_LUMINANCE = 0x1, 0x4, 0x40, 0x20000
DDSCAPS_COMPLEX, DDSCAPS_TEXTURE, DDSCAPS_MIPMAP = 0x8, 0x1000, 0x400000
DDSCAPS2_CUBEMAP, DDSCAPS2_VOLUME = 0x200, 0x200000
#: DDSCAPS2_CUBEMAP_POSITIVEX, _NEGATIVEX, _POSITIVEY, _NEGATIVEY, _POSITIVEZ, _NEGATIVEZ: the
#: faces a legacy cube map holds, in the order they are stored (mipview.core.cube's)
DDSCAPS2_CUBEMAP_FACES = (0x400, 0x800, 0x1000, 0x2000, 0x4000, 0x8000)
DDSCAPS2_CUBEMAP_ALLFACES = sum(DDSCAPS2_CUBEMAP_FACES)
DIMENSION_TEXTURE2D, DIMENSION_TEXTURE3D = 3, 4
MISC_TEXTURECUBE = 0x4
FOURCC_DX10 = int.from_bytes(b"DX10", "little")


@dataclass(frozen=True)
class Header:
    size: int
    flags: int
    height: int
    width: int
    pitch: int
    depth: int
    mip_count: int
    pf_flags: int
    fourcc: int
    rgb_bits: int
    masks: tuple[int, int, int, int]  # R, G, B, A
    caps: int
    caps2: int

    @property
    def fourcc_text(self) -> str:
        raw = self.fourcc.to_bytes(4, "little")
        return raw.decode("ascii") if all(32 <= b < 127 for b in raw) else str(self.fourcc)


def pack_dx10(width: int, height: int, mip_count: int, dxgi: int, array_size: int,
              pitch: int, linear_size: bool = False, cube: bool = False,
              depth: int = 0) -> bytes:
    """Magic, header and DX10 extension of a 2D texture (array) of ``mip_count`` levels.
    ``pitch`` is the bytes of a row (uncompressed), or of the top level with ``linear_size``
    (block-compressed). ``cube``: a cube map (array) of ``array_size`` cubes, flagged as
    DirectXTex writes one: MISC_TEXTURECUBE, and in the legacy header DDSCAPS_COMPLEX and
    DDSCAPS2_CUBEMAP with all six faces (for readers that look there). ``depth`` > 0: a 3D
    texture of that many slices (``array_size`` must be 1): resourceDimension TEXTURE3D,
    dwDepth, DDSD_DEPTH and DDSCAPS2_VOLUME as DirectXTex writes them, and DDSCAPS_COMPLEX,
    which the volume layout's documentation asks for."""
    if depth and (cube or array_size != 1):
        raise ValueError("a 3D texture is no cube map and no array (arraySize 1)")
    flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT
    flags |= DDSD_LINEARSIZE if linear_size else DDSD_PITCH
    caps = DDSCAPS_TEXTURE
    if mip_count > 1:
        flags |= DDSD_MIPMAPCOUNT
        caps |= DDSCAPS_COMPLEX | DDSCAPS_MIPMAP
    caps2 = misc = 0
    if depth:
        flags |= DDSD_DEPTH
        caps |= DDSCAPS_COMPLEX
        caps2 = DDSCAPS2_VOLUME
    if cube:
        caps |= DDSCAPS_COMPLEX
        caps2 = DDSCAPS2_CUBEMAP | DDSCAPS2_CUBEMAP_ALLFACES
        misc = MISC_TEXTURECUBE
    return (HEADER.pack(MAGIC, 124, flags, height, width, pitch, depth, mip_count,
                        32, DDPF_FOURCC, FOURCC_DX10, 0, 0, 0, 0, 0,
                        caps, caps2, 0, 0, 0)
            # alpha mode 0 (unknown): mipview averages every channel alike, claiming nothing
            + DX10.pack(dxgi, DIMENSION_TEXTURE3D if depth else DIMENSION_TEXTURE2D, misc,
                        array_size, 0))


def unpack(data: bytes) -> Header:
    """The header of ``data``, which must hold at least ``HEADER.size`` bytes."""
    (_, size, flags, height, width, pitch, depth, mips, _, pf_flags, fourcc, bits,
     r, g, b, a, caps, caps2, _, _, _) = HEADER.unpack_from(data)
    return Header(size, flags, height, width, pitch, depth, mips, pf_flags, fourcc, bits,
                  (r, g, b, a), caps, caps2)
