"""A DDS reader written from Microsoft's DDS documentation, not from mipview's writer: it checks
every header field of a DX10 file against what the documentation requires of an uncompressed
2D texture (array) or cube map (array) with a mip chain, and decodes its subresources by the
documented layout.

Sources: "DDS_HEADER structure", "DDS_PIXELFORMAT structure", "DDS_HEADER_DXT10 structure" and
"DDS File Layout for Textures", "DDS File Layout for Volume Textures"
(learn.microsoft.com/windows/win32/direct3ddds, and the DirectX 9 SDK's volume page): magic
"DDS " (0x20534444), dwSize 124, DDSD_CAPS/HEIGHT/WIDTH/PIXELFORMAT required in every file,
DDSD_MIPMAPCOUNT in a mipmapped texture, DDSD_PITCH with the pitch of an uncompressed texture,
(width * bits-per-pixel + 7) / 8; ddspf.dwSize 32 and DDPF_FOURCC "DX10" for the extension;
DDSCAPS_TEXTURE required, DDSCAPS_COMPLEX and DDSCAPS_MIPMAP for a mipmap; resourceDimension 3
for a 2D texture; arraySize layers; a texture array stores each layer's mip chain in turn.
Cube maps: DDSCAPS_COMPLEX ("any file that contains more than one surface (a mipmap, a cubic
environment map...)"), DDSCAPS2_CUBEMAP and the six DDSCAPS2_CUBEMAP_POSITIVEX.. bits ("required
when these surfaces are stored in a cube map"), DDS_RESOURCE_MISC_TEXTURECUBE (0x4) in miscFlag,
arraySize "the number of cubes"; the faces stored +X, -X, +Y, -Y, +Z, -Z, each a whole mip chain,
cube after cube.
Volumes: resourceDimension 4 (DDS_DIMENSION_TEXTURE3D), arraySize 1 ("For a 3D texture, you must
set this number to 1"), DDSD_DEPTH ("Required in a depth texture") with dwDepth ("Depth of a
volume texture"), DDSCAPS2_VOLUME ("Required for a volume texture"), DDSCAPS_COMPLEX for a
mipmapped volume; "all depth slices for a given mipmap level are written together, with each
level containing half as many slices as the previous level with a minimum of 1".
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

MAGIC = 0x20534444
FLAG = {"CAPS": 0x1, "HEIGHT": 0x2, "WIDTH": 0x4, "PITCH": 0x8, "PIXELFORMAT": 0x1000,
        "MIPMAPCOUNT": 0x20000, "LINEARSIZE": 0x80000, "DEPTH": 0x800000}
DDPF_FOURCC = 0x4
CAPS_COMPLEX, CAPS_TEXTURE, CAPS_MIPMAP = 0x8, 0x1000, 0x400000
CAPS2_CUBEMAP, CAPS2_VOLUME = 0x200, 0x200000
CAPS2_FACES = {"POSITIVEX": 0x400, "NEGATIVEX": 0x800, "POSITIVEY": 0x1000,
               "NEGATIVEY": 0x2000, "POSITIVEZ": 0x4000, "NEGATIVEZ": 0x8000}
MISC_TEXTURECUBE = 0x4

#: dxgiFormat -> (name, bits per pixel, numpy type of a channel)
DXGI = {28: ("DXGI_FORMAT_R8G8B8A8_UNORM", 32, "u1"),
        29: ("DXGI_FORMAT_R8G8B8A8_UNORM_SRGB", 32, "u1"),
        10: ("DXGI_FORMAT_R16G16B16A16_FLOAT", 64, "<f2"),
        2: ("DXGI_FORMAT_R32G32B32A32_FLOAT", 128, "<f4"),
        61: ("DXGI_FORMAT_R8_UNORM", 8, "u1"),
        49: ("DXGI_FORMAT_R8G8_UNORM", 16, "u1"),
        54: ("DXGI_FORMAT_R16_FLOAT", 16, "<f2"),
        34: ("DXGI_FORMAT_R16G16_FLOAT", 32, "<f2"),
        41: ("DXGI_FORMAT_R32_FLOAT", 32, "<f4"),
        16: ("DXGI_FORMAT_R32G32_FLOAT", 64, "<f4"),
        11: ("DXGI_FORMAT_R16G16B16A16_UNORM", 64, "<u2"),
        56: ("DXGI_FORMAT_R16_UNORM", 16, "<u2"),
        24: ("DXGI_FORMAT_R10G10B10A2_UNORM", 32, "<u4"),
        26: ("DXGI_FORMAT_R11G11B10_FLOAT", 32, "<u4")}


@dataclass
class Dds:
    header: dict[str, object]
    dx10: dict[str, int]
    #: images[p] is level p, (layers, h, w, channels); a cube's layers are its faces, a
    #: volume's are its slices (d_p, h, w, channels)
    images: list[np.ndarray] = field(default_factory=list)
    #: offsets[layer][p]: where that subresource starts in the file (a volume: offsets[0][p],
    #: where level p's first slice starts)
    offsets: list[list[int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def parse(data: bytes) -> Dds:
    problems: list[str] = []

    def rule(ok: bool, text: str) -> None:
        if not ok:
            problems.append(text)

    (magic, size, flags, height, width, pitch, depth, mips) = struct.unpack_from("<8I", data, 0)
    reserved1 = struct.unpack_from("<11I", data, 32)
    pf = struct.unpack_from("<8I", data, 76)
    caps = struct.unpack_from("<5I", data, 108)
    header = {"magic": magic, "dwSize": size, "dwFlags": flags, "dwHeight": height,
              "dwWidth": width, "dwPitchOrLinearSize": pitch, "dwDepth": depth,
              "dwMipMapCount": mips, "dwReserved1": reserved1,
              "ddspf": pf, "dwCaps": caps[0], "dwCaps2": caps[1], "dwCaps3": caps[2],
              "dwCaps4": caps[3], "dwReserved2": caps[4]}
    rule(magic == MAGIC, "magic is not 'DDS '")
    rule(size == 124, f"dwSize {size} != 124")
    for name in ("CAPS", "HEIGHT", "WIDTH", "PIXELFORMAT"):
        rule(flags & FLAG[name] != 0, f"DDSD_{name} is required in every .dds file")
    dxgi, dimension, misc, array_size, misc2 = struct.unpack_from("<5I", data, 128)
    volume = dimension == 4
    if volume:
        rule(flags & FLAG["DEPTH"] != 0, "DDSD_DEPTH is required in a depth (volume) texture")
        rule(depth >= 1, "dwDepth: a volume texture has at least one slice")
        rule(caps[1] == CAPS2_VOLUME, "DDSCAPS2_VOLUME (and nothing else in dwCaps2) is required "
                                      "for a volume texture")
        rule(array_size == 1, "arraySize must be 1 for a 3D texture")
        rule(misc & MISC_TEXTURECUBE == 0, "a 3D texture is no cube map")
    else:
        rule(not flags & FLAG["DEPTH"] and depth == 0, "not a depth (volume) texture")
    rule(not flags & FLAG["LINEARSIZE"], "DDSD_LINEARSIZE is for compressed textures")
    rule(reserved1 == (0,) * 11, "dwReserved1 is not zero")
    rule(pf[0] == 32, "ddspf.dwSize != 32")
    rule(pf[1] == DDPF_FOURCC and pf[2] == int.from_bytes(b"DX10", "little"),
         "ddspf must say FOURCC 'DX10' for the DX10 header")
    rule(pf[3:] == (0, 0, 0, 0, 0), "ddspf bit count and masks are for DDPF_RGB formats")
    rule(caps[0] & CAPS_TEXTURE != 0, "DDSCAPS_TEXTURE is required")
    rule(caps[2:] == (0, 0, 0), "dwCaps3, dwCaps4 and dwReserved2 must be 0")
    cube = misc & MISC_TEXTURECUBE != 0
    if cube:
        rule(width == height, "a cube map's faces are square: dwWidth != dwHeight")
        rule(caps[0] & CAPS_COMPLEX != 0, "DDSCAPS_COMPLEX is required for a cubic environment "
                                          "map")
        rule(caps[1] & CAPS2_CUBEMAP != 0, "DDSCAPS2_CUBEMAP is required for a cube map")
        for name, bit in CAPS2_FACES.items():
            rule(caps[1] & bit != 0, f"DDSCAPS2_CUBEMAP_{name} is required: the face is stored")
        rule(caps[1] & ~(CAPS2_CUBEMAP | sum(CAPS2_FACES.values())) == 0,
             "dwCaps2 holds more than the cube map bits")
    elif not volume:
        rule(caps[1] == 0, "dwCaps2 must be 0 (no cube map, volume)")
    levels = max(1, mips)
    if levels > 1:
        rule(flags & FLAG["MIPMAPCOUNT"] != 0, "DDSD_MIPMAPCOUNT is required in a mipmapped "
                                               "texture")
        rule(caps[0] & CAPS_COMPLEX and caps[0] & CAPS_MIPMAP,
             "DDSCAPS_COMPLEX | DDSCAPS_MIPMAP are required for a mipmap")
    most = max(width, height, depth if volume else 0).bit_length()
    rule(levels <= most, f"dwMipMapCount {levels} > {most}")

    dx10 = {"dxgiFormat": dxgi, "resourceDimension": dimension, "miscFlag": misc,
            "arraySize": array_size, "miscFlags2": misc2}
    rule(dimension in (3, 4), f"resourceDimension {dimension} is neither "
                              f"DDS_DIMENSION_TEXTURE2D (3) nor DDS_DIMENSION_TEXTURE3D (4)")
    rule(misc & ~MISC_TEXTURECUBE == 0, "miscFlag says more than TEXTURECUBE")
    rule(array_size >= 1, "arraySize must be at least 1")
    rule(misc2 & ~0x7 == 0 and misc2 & 0x7 <= 4, "miscFlags2 alpha mode is 0..4")
    fmt = DXGI.get(dxgi)
    rule(fmt is not None, f"dxgiFormat {dxgi} is not one mipview writes")
    if fmt is None:
        return Dds(header, dx10, problems=problems)
    _, bpp, dtype = fmt
    rule(flags & FLAG["PITCH"] != 0, "DDSD_PITCH: the pitch of an uncompressed texture")
    rule(pitch == (width * bpp + 7) // 8, f"pitch {pitch} != (width * bpp + 7) / 8")

    at = 148
    if volume:  # level by level, each level all its slices
        images, offsets = [], [[]]
        for p in range(levels):
            offsets[0].append(at)
            w, h, d = max(1, width >> p), max(1, height >> p), max(1, depth >> p)
            n = d * w * h * bpp // 8
            images.append(np.frombuffer(data, dtype, n // np.dtype(dtype).itemsize, at).reshape(
                d, h, w, bpp // 8 // np.dtype(dtype).itemsize))
            at += n
        rule(at == len(data), f"the data ends at {at}, the file at {len(data)}")
        return Dds(header, dx10, images, offsets, problems)
    per_layer, offsets = [], []
    subresources = array_size * (6 if cube else 1)  # arraySize counts cubes
    for _ in range(subresources):
        chain = []
        offsets.append([])
        for p in range(levels):
            offsets[-1].append(at)
            w, h = max(1, width >> p), max(1, height >> p)
            n = w * h * bpp // 8
            chain.append(np.frombuffer(data, dtype, n // np.dtype(dtype).itemsize,
                                       at).reshape(h, w, bpp // 8 // np.dtype(dtype).itemsize))
            at += n
        per_layer.append(chain)
    rule(at == len(data), f"the data ends at {at}, the file at {len(data)}")
    images = [np.stack([per_layer[i][p] for i in range(subresources)]) for p in range(levels)]
    return Dds(header, dx10, images, offsets, problems)
