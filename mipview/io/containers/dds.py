"""DDS (DirectDraw Surface): a verified chain written with the DX10 header, and texture files
read back.

Written: DXGI_FORMAT_R8G8B8A8_UNORM / _UNORM_SRGB, R16G16B16A16_UNORM, R16G16B16A16_FLOAT,
R32G32B32A32_FLOAT, R10G10B10A2_UNORM, R11G11B10_FLOAT (R in the low bits of each 32-bit word,
as Vulkan's A2B10G10R10 and B10G11R11 hold it) and the one- and two-channel formats; the
mip count and array size in the headers; the data layer by layer, each layer's whole chain
(level 0 first), as Direct3D lays out a texture array's subresources. Cube maps and cube arrays
(mipview.core.cube: 6 n layers) are written with MISC_TEXTURECUBE and arraySize n, each face a
layer in that order. Volumes (3D textures, (D, H, W, 4) levels) are written with
resourceDimension TEXTURE3D, arraySize 1 and dwDepth D, and, as Direct3D lays a 3D texture
out, level by level, each level all its max(1, D >> k) slices (not a chain per slice).

Read: the formats above, D32_FLOAT and D16_UNORM (as ``d32``, ``d16``), the depth of the
depth-stencil formats (the stencil dropped, noted), R32G32B32_FLOAT (as RGBA with alpha 1,
noted), BGRA8/BGRX8, BC1-BC7 with signed BC4/BC5 (decoded, :mod:`.blocks`), in DX10 files
and in legacy ones (DXT1/3/5, ATI1/ATI2, BC4S/BC5S, float FourCCs, 8-bit RGB(A) masks, 24-bit
RGB (noted),
8-bit luminance with or without alpha, 16-bit luminance), cube maps too (DX10 MISC_TEXTURECUBE; legacy DDSCAPS2_CUBEMAP with all six
faces), volumes too (DX10 TEXTURE3D with arraySize 1; legacy DDSCAPS2_VOLUME or DDSD_DEPTH
with dwDepth). Sizes are checked against the file before any level is decoded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mipview.core.cube import FACES
from mipview.core.formats import Format, level_size
from mipview.core.volume import volume_level_size
from mipview.io.containers import bcn, block_layouts, dds_header, pixels, texture
from mipview.io.containers.dds_header import HEADER, Header
from mipview.io.containers.format_names import dxgi_name
from mipview.io.containers.pixels import BGRA, BGRX, Blocks, DepthStencil, Layout, Plain
from mipview.io.containers.texture import ContainerError, PixelCheck, TextureFile

_DXGI_SMALL = {Format.R8: (61, "R8_UNORM"), Format.RG8: (49, "R8G8_UNORM"),
               Format.R16: (56, "R16_UNORM"),
               Format.R16F: (54, "R16_FLOAT"), Format.RG16F: (34, "R16G16_FLOAT"),
               Format.R32F: (41, "R32_FLOAT"), Format.RG32F: (16, "R32G32_FLOAT")}


def _dxgi_table() -> dict[int, Layout]:
    table: dict[int, Layout] = {
        2: Plain("DXGI_FORMAT_R32G32B32A32_FLOAT", Format.F32),
        10: Plain("DXGI_FORMAT_R16G16B16A16_FLOAT", Format.F16),
        11: Plain("DXGI_FORMAT_R16G16B16A16_UNORM", Format.RGBA16),
        24: Plain("DXGI_FORMAT_R10G10B10A2_UNORM", Format.RGB10A2, 1),
        26: Plain("DXGI_FORMAT_R11G11B10_FLOAT", Format.B10G11R11, 1),
        27: Plain("DXGI_FORMAT_R8G8B8A8_TYPELESS", Format.UNORM),
        28: Plain("DXGI_FORMAT_R8G8B8A8_UNORM", Format.UNORM),
        29: Plain("DXGI_FORMAT_R8G8B8A8_UNORM_SRGB", Format.SRGB),
        87: Plain("DXGI_FORMAT_B8G8R8A8_UNORM", Format.UNORM, order=BGRA),
        88: Plain("DXGI_FORMAT_B8G8R8X8_UNORM", Format.UNORM, order=BGRX),
        90: Plain("DXGI_FORMAT_B8G8R8A8_TYPELESS", Format.UNORM, order=BGRA),
        91: Plain("DXGI_FORMAT_B8G8R8A8_UNORM_SRGB", Format.SRGB, order=BGRA),
        92: Plain("DXGI_FORMAT_B8G8R8X8_TYPELESS", Format.UNORM, order=BGRX),
        93: Plain("DXGI_FORMAT_B8G8R8X8_UNORM_SRGB", Format.SRGB, order=BGRX),
        # one- and two-channel formats: each read as itself
        **{n: Plain(f"DXGI_FORMAT_{name}", f, f.channels, ((0, None, None, None) if f.channels == 1
                                                       else (0, 1, None, None)))
           for f, (n, name) in _DXGI_SMALL.items()},
        40: Plain("DXGI_FORMAT_D32_FLOAT", Format.D32, 1, (0, None, None, None)),
        55: Plain("DXGI_FORMAT_D16_UNORM", Format.D16, 1, (0, None, None, None)),
        6: pixels.rgb("DXGI_FORMAT_R32G32B32_FLOAT", Format.F32),
    }
    # depth-stencil texels as Direct3D 11 lays them out, interleaved (DXGI_FORMAT's
    # documentation; Direct3D 12's "Planar Depth Stencil" spec keeps that layout for D3D11 and
    # for a buffer's copy of both planes): the R32G8X24 family is 8 bytes, a float depth then
    # the stencil byte and 24 unused bits; the R24G8 family one 32-bit word, the depth in its
    # 24 LSBs, the stencil above
    for n in (19, 20, 21):
        table[n] = DepthStencil(dxgi_name(n), Format.D32, 8)
    for n in (44, 45, 46):
        table[n] = DepthStencil(dxgi_name(n), Format.D32, 4, shift=0)
    # TYPELESS, UNORM, UNORM_SRGB of each BC family (BC4 and BC5 have SNORM in the third place)
    for first, codec, has_srgb in ((70, bcn.BC1, True), (73, bcn.BC2, True), (76, bcn.BC3, True),
                                   (79, bcn.BC4, False), (82, bcn.BC5, False), (97, bcn.BC7, True)):
        for offset, suffix in enumerate(("TYPELESS", "UNORM", "UNORM_SRGB")[:3 if has_srgb else 2]):
            name = f"DXGI_FORMAT_{codec.family}_{suffix}"
            table[first + offset] = Blocks(name, codec, srgb=suffix == "UNORM_SRGB")
    return table | block_layouts.dxgi()  # signed BC4/BC5, BC6H


_DXGI = _dxgi_table()
_DXGI_REFUSED = {
    **{n: f"{dxgi_name(n)}: the stencil alone, no depth or colour to filter" for n in (22, 47)},
}
_DXGI_READS = ("RGBA8, BGRA8, RGBA16 UNORM, RGBA16F, RGBA32F, RGB32F, R8, RG8, R16, R16F, RG16F, "
               "R32F, RG32F, D16, D32, the depth of D24S8 and D32S8X24, R10G10B10A2 UNORM, "
               "R11G11B10 FLOAT, BC1-BC7")
_FOURCC: dict[bytes | int, Layout] = {
    b"DXT1": Blocks("DXT1 (BC1)", bcn.BC1, False),
    b"DXT3": Blocks("DXT3 (BC2)", bcn.BC2, False),
    b"DXT5": Blocks("DXT5 (BC3)", bcn.BC3, False),
    b"ATI1": Blocks("ATI1 (BC4)", bcn.BC4, False),
    b"BC4U": Blocks("BC4U (BC4)", bcn.BC4, False),
    b"ATI2": Blocks("ATI2 (BC5)", bcn.BC5, False),
    b"BC5U": Blocks("BC5U (BC5)", bcn.BC5, False),
    **block_layouts.FOURCC,
    113: Plain("D3DFMT_A16B16G16R16F", Format.F16),
    116: Plain("D3DFMT_A32B32G32R32F", Format.F32),
}
_FOURCC_REFUSED = {
    b"DXT2": "DXT2 holds premultiplied alpha, which mipview does not undo",
    b"DXT4": "DXT4 holds premultiplied alpha, which mipview does not undo",
}
_WRITE = {Format.UNORM: 28, Format.SRGB: 29, Format.F16: 10, Format.F32: 2, Format.RGBA16: 11,
          Format.RGB10A2: 24, Format.B10G11R11: 26,
          **{f: n for f, (n, _) in _DXGI_SMALL.items()}}
#: the legacy header's face bits, as a message names them
_FACE_LABELS = ("+X", "-X", "+Y", "-Y", "+Z", "-Z")
_LEGACY_NOTE = ("a legacy DDS header does not say whether colour is sRGB-encoded: read as UNORM "
                "(the same bytes check as SRGB with --format srgb)")


# --- writing -------------------------------------------------------------------------------------
def encode(levels: list[np.ndarray] | tuple[np.ndarray, ...], fmt: Format,
           faces: int = 1, volume: bool = False) -> bytes:
    """A DX10 DDS file of ``levels`` (storage values of ``fmt``, level 0 first, each (H, W, 4)
    or (layers, H, W, 4): a texture array of arraySize layers). ``faces`` 6: the levels are
    (6 n, N, N, 4) cube faces, written with MISC_TEXTURECUBE and arraySize n (Direct3D counts
    cubes there). ``volume``: the levels are a 3D texture's, (D, H, W, 4), written as
    TEXTURE3D, every slice of level 0, then every slice of level 1... A depth source's chain
    is written in its levels' format (``d32``: R32_FLOAT, ``d16``: R16_UNORM)."""
    fmt = fmt.chain
    first = np.asarray(levels[0])
    if volume:
        return _encode_volume(levels, fmt, texture.written_volume(first, faces, len(levels)))
    layers = texture.written_layers(first, faces)
    height, width = int(first.shape[-3]), int(first.shape[-2])
    stack = []
    for p, level in enumerate(levels):
        data = texture.file_level(level, fmt, texture.level_shape(width, height, p, layers), p)
        stack.append(data if layers is not None else data[None])
    header = dds_header.pack_dx10(width, height, len(levels), _WRITE[fmt],
                                  (layers or 1) // faces, width * fmt.bytes_per_texel,
                                  cube=faces == FACES)
    # Direct3D's subresource order: every level of layer 0, then every level of layer 1... (a
    # cube's faces are its layers: face 0 of cube 0, face 1 of cube 0, ...)
    return header + b"".join(level[i].tobytes() for i in range(layers or 1) for level in stack)


def _encode_volume(levels: list[np.ndarray] | tuple[np.ndarray, ...], fmt: Format,
                   size: tuple[int, int, int]) -> bytes:
    width, height, depth = size
    body = [texture.file_level(level, fmt, texture.volume_level_shape(width, height, depth, p),
                               p).tobytes()  # its slices, z = 0 first
            for p, level in enumerate(levels)]
    header = dds_header.pack_dx10(width, height, len(levels), _WRITE[fmt], 1,
                                  width * fmt.bytes_per_texel, depth=depth)
    return header + b"".join(body)


# --- reading -------------------------------------------------------------------------------------
#: a legacy header's bit count and R, G, B, A masks -> the Direct3D 9 format they make
_D3DFMT = {
    (32, 0xFF0000, 0xFF00, 0xFF, 0xFF000000): "D3DFMT_A8R8G8B8",
    (32, 0xFF0000, 0xFF00, 0xFF, 0): "D3DFMT_X8R8G8B8",
    (32, 0xFF, 0xFF00, 0xFF0000, 0xFF000000): "D3DFMT_A8B8G8R8",
    (32, 0xFF, 0xFF00, 0xFF0000, 0): "D3DFMT_X8B8G8R8",
    (24, 0xFF0000, 0xFF00, 0xFF, 0): "D3DFMT_R8G8B8",
    (16, 0xF800, 0x7E0, 0x1F, 0): "D3DFMT_R5G6B5",
    (16, 0x7C00, 0x3E0, 0x1F, 0): "D3DFMT_X1R5G5B5",
    (16, 0x7C00, 0x3E0, 0x1F, 0x8000): "D3DFMT_A1R5G5B5",
    (16, 0xF00, 0xF0, 0xF, 0xF000): "D3DFMT_A4R4G4B4",
    (16, 0xF00, 0xF0, 0xF, 0): "D3DFMT_X4R4G4B4",
    (8, 0xE0, 0x1C, 0x3, 0): "D3DFMT_R3G3B2",
    (32, 0x3FF, 0xFFC00, 0x3FF00000, 0xC0000000): "D3DFMT_A2B10G10R10",
    (32, 0x3FF00000, 0xFFC00, 0x3FF, 0xC0000000): "D3DFMT_A2R10G10B10",
    (32, 0xFFFF, 0xFFFF0000, 0, 0): "D3DFMT_G16R16",
}
_PALETTE = 0x20  # DDPF_PALETTEINDEXED8


def _legacy_luminance(h: Header) -> Plain:
    """A legacy luminance layout: 8-bit L (Pillow's writer puts odd masks there: its one byte
    is the luminance whatever they say), 8-bit L with 8-bit alpha, 16-bit L; grey in R, G, B."""
    alpha = bool(h.pf_flags & dds_header.DDPF_ALPHAPIXELS)
    if h.rgb_bits == 8 and not alpha:
        return Plain("D3DFMT_L8", Format.UNORM, 1, (0, 0, 0, None))
    if h.rgb_bits == 16 and alpha and h.masks[0] in (0xFF, 0xFF00) \
            and h.masks[3] == 0xFFFF ^ h.masks[0]:
        lum = 0 if h.masks[0] == 0xFF else 1
        return Plain("D3DFMT_A8L8", Format.UNORM, 2, (lum, lum, lum, 1 - lum))
    if h.rgb_bits == 16 and not alpha and h.masks[0] == 0xFFFF:
        return Plain("D3DFMT_L16", Format.RGBA16, 1, (0, 0, 0, None))
    raise ContainerError(f"luminance of {h.rgb_bits} bits, masks L {h.masks[0]:#x} A "
                         f"{h.masks[3]:#x}: mipview reads D3DFMT_L8, A8L8 and L16")


def _legacy_uncompressed(h: Header) -> Plain:
    """A legacy header's 8-bit RGB(A) or luminance layout, from its bit masks."""
    bits, masks = h.rgb_bits, h.masks
    if h.pf_flags & _PALETTE:
        raise ContainerError("D3DFMT_P8 (8-bit palette indices, DDPF_PALETTEINDEXED8): no "
                             "texture API samples a palette; Pillow reads it: convert it to PNG")
    if h.pf_flags & dds_header.DDPF_LUMINANCE:
        return _legacy_luminance(h)
    alpha_mask = masks[3] if h.pf_flags & dds_header.DDPF_ALPHAPIXELS else 0
    what = f"uncompressed {bits}-bit masks R {masks[0]:#x} G {masks[1]:#x} B {masks[2]:#x} " \
           f"A {masks[3]:#x}"
    name = _D3DFMT.get((bits, *masks[:3], alpha_mask))
    byte_of = {0xFF << (8 * k): k for k in range(4)}
    components = bits // 8
    if h.pf_flags & dds_header.DDPF_RGB and bits in (24, 32):
        order = [byte_of.get(m) for m in masks[:3]]
        alpha = byte_of.get(masks[3]) if alpha_mask else None
        if None not in order and all(k < components for k in order):
            r, g, b = order
            label = f"{name} ({what})" if name else what
            if components == 3:
                return pixels.rgb(label, Format.UNORM, (r, g, b))
            return Plain(label, Format.UNORM, components, (r, g, b, alpha))
    named = f"{name}, {what}" if name else what
    raise ContainerError(f"{named}: mipview reads 8-bit channels in whole bytes only (texconv "
                         f"-f R8G8B8A8_UNORM converts it)")


@dataclass(frozen=True)
class _Layout:
    """What the headers say: the texel layout, where the level data starts, the images each
    level holds (None: one, returned as (H, W, 4)), faces (6: a cube map), notes, and a
    volume's depth (0: no volume)."""

    kind: Layout
    offset: int
    layers: int | None
    faces: int
    notes: tuple[str, ...]
    depth: int = 0


def _legacy_cube(h: Header) -> int | None:
    """6 for a legacy cube map with all six faces; None for no cube map; refuses one that lacks
    faces (Direct3D 10 and later have no partial cubes), naming which."""
    if not h.caps2 & dds_header.DDSCAPS2_CUBEMAP:
        return None
    missing = [name for name, bit in zip(_FACE_LABELS, dds_header.DDSCAPS2_CUBEMAP_FACES,
                                         strict=True) if not h.caps2 & bit]
    if missing:
        raise ContainerError(f"a legacy cube map without its {', '.join(missing)} "
                             f"face{'s' if len(missing) > 1 else ''}: mipview reads whole cubes")
    texture.check_cube(h.width, h.height)
    return FACES


def _legacy_volume(h: Header) -> int:
    """A legacy volume's depth (DDSCAPS2_VOLUME, or DDSD_DEPTH with dwDepth > 1: DirectXTex
    reads DDSD_DEPTH so), else 0; refuses depth 0 and volumes that say they are cubes."""
    if not (h.caps2 & dds_header.DDSCAPS2_VOLUME or h.flags & dds_header.DDSD_DEPTH
            and h.depth > 1):
        return 0
    if h.depth == 0:
        raise ContainerError("a volume texture of depth 0 (DDSCAPS2_VOLUME with dwDepth 0): a "
                             "volume has at least one slice")
    if h.caps2 & dds_header.DDSCAPS2_CUBEMAP:
        raise ContainerError(f"a volume texture (depth {h.depth}) that says it is a cube map "
                             f"too (DDSCAPS2_CUBEMAP): it cannot be both")
    return h.depth


def _layout(data: bytes, h: Header) -> _Layout:
    """The layout of the level data, from the headers."""
    if not (h.pf_flags & dds_header.DDPF_FOURCC and h.fourcc == dds_header.FOURCC_DX10):
        fourcc = h.fourcc.to_bytes(4, "little")
        depth = _legacy_volume(h)
        cube = None if depth else _legacy_cube(h)
        if h.pf_flags & dds_header.DDPF_FOURCC:
            if fourcc in _FOURCC_REFUSED:
                raise ContainerError(_FOURCC_REFUSED[fourcc])
            kind = _FOURCC.get(fourcc) or _FOURCC.get(h.fourcc)
            if kind is None:
                raise ContainerError(f"FourCC {h.fourcc_text} is not one mipview reads (DXT1, "
                                     f"DXT3, DXT5, ATI1, ATI2, BC4S, BC5S, DX10, 113, 116)")
        else:
            kind = _legacy_uncompressed(h)
        notes = (_LEGACY_NOTE,) if not pixels.storage_format(kind).is_float else ()
        return _Layout(kind, HEADER.size, cube, cube or 1, notes, depth)
    if len(data) < HEADER.size + dds_header.DX10.size:
        raise ContainerError(f"truncated DDS file: {len(data)} bytes, the headers alone are "
                             f"{HEADER.size + dds_header.DX10.size}")
    dxgi, dimension, misc, array_size, _ = dds_header.DX10.unpack_from(data, HEADER.size)
    volume = dimension == dds_header.DIMENSION_TEXTURE3D
    # resourceDimension 0 (unknown) is what some writers leave there for a plain 2D texture;
    # Pillow reads such files as 2D too
    if dimension not in (0, dds_header.DIMENSION_TEXTURE2D) and not volume:
        kind_of = "a 1D texture" if dimension == 2 else "an unknown resource"
        raise ContainerError(f"resource dimension {dimension} ({kind_of}): mipview reads 2D "
                             f"textures, arrays, cube maps and 3D textures")
    if volume:
        _check_volume(h, misc, array_size)
    if dxgi in _DXGI_REFUSED:
        raise ContainerError(_DXGI_REFUSED[dxgi])
    kind = _DXGI.get(dxgi)
    if kind is None:
        raise ContainerError(f"{dxgi_name(dxgi)}: DXGI format {dxgi} is not one mipview reads "
                             f"({_DXGI_READS})")
    offset = HEADER.size + dds_header.DX10.size
    if volume:
        return _Layout(kind, offset, None, 1, (), h.depth)
    # with the DX10 header its miscFlag says what a cube is (DirectXTex ignores dwCaps2 then),
    # and arraySize counts cubes
    if misc & dds_header.MISC_TEXTURECUBE:
        texture.check_cube(h.width, h.height)
        return _Layout(kind, offset, FACES * max(1, array_size), FACES, ())
    # arraySize 0 is no array (Pillow writes it so): one layer
    return _Layout(kind, offset, array_size if array_size > 1 else None, 1, ())


def header_depth(data: bytes) -> int:
    """The depth of the volume a DDS file's headers describe (0: not a volume), from its first
    bytes alone (HEADER and DX10: 148); ContainerError where they say nothing sound."""
    if len(data) < HEADER.size:
        raise ContainerError("truncated DDS header")
    h = dds_header.unpack(data)
    if not (h.pf_flags & dds_header.DDPF_FOURCC and h.fourcc == dds_header.FOURCC_DX10):
        return _legacy_volume(h)
    if len(data) < HEADER.size + dds_header.DX10.size:
        raise ContainerError("truncated DDS DX10 header")
    dimension = dds_header.DX10.unpack_from(data, HEADER.size)[1]
    return h.depth if dimension == dds_header.DIMENSION_TEXTURE3D else 0


def _check_volume(h: Header, misc: int, array_size: int) -> None:
    """A DX10 3D texture: one (arraySize 1: Direct3D has no arrays of them), no cube, a depth."""
    if array_size > 1:
        raise ContainerError(f"a 3D texture with arraySize {array_size}: Direct3D's 3D textures "
                             f"have arraySize 1 (there are no arrays of volumes)")
    if misc & dds_header.MISC_TEXTURECUBE:
        raise ContainerError("a 3D texture flagged as a cube map (MISC_TEXTURECUBE): it cannot "
                             "be both")
    if h.depth == 0:
        raise ContainerError("a 3D texture of depth 0 (dwDepth 0): a volume has at least one "
                             "slice")


def _images(shape: _Layout) -> str:
    """" x 2 layers", " x 6 faces", " x 6 faces x 3 cubes" or "": the images of a level, for
    messages."""
    if shape.faces == FACES:
        cubes = (shape.layers or FACES) // FACES
        return " x 6 faces" + (f" x {cubes} cubes" if cubes > 1 else "")
    return f" x {shape.layers} layers" if shape.layers else ""


def read(path: str, data: bytes, check_pixels: PixelCheck) -> TextureFile:
    """Decode a DDS file's levels. Raises ContainerError (or what ``check_pixels`` raises)."""
    texture.check_magic(data, dds_header.MAGIC, "DDS")
    if len(data) < HEADER.size:
        raise ContainerError(f"truncated DDS file: {len(data)} bytes, the header alone is "
                             f"{HEADER.size}")
    h = dds_header.unpack(data)
    if h.size != 124:
        raise ContainerError(f"header size {h.size}: a DDS header is 124 bytes (corrupt file?)")
    if h.width == 0 or h.height == 0:
        raise ContainerError(f"a {h.width}x{h.height} texture: mipview checks 2D textures with "
                             f"both sides at least 1")
    shape = _layout(data, h)
    if shape.depth:
        return _read_volume(path, data, h, shape, check_pixels)
    kind, offset, layers = shape.kind, shape.offset, shape.layers or 1
    check_pixels(h.width * h.height * layers, f"{h.width}x{h.height}{_images(shape)}")
    n = max(1, h.mip_count)
    texture.check_level_count(n, h.width, h.height)
    sizes = [pixels.image_bytes(kind, *level_size(h.width, h.height, p)) for p in range(n)]
    need = offset + layers * sum(sizes)
    if need > len(data):
        raise ContainerError(f"truncated DDS file: {n} level{'s' if n > 1 else ''} of "
                             f"{h.width}x{h.height} {kind.name}{_images(shape)} need {need} "
                             f"bytes, "
                             f"the file holds {len(data)}")
    chain = sum(sizes)
    levels = []
    for p in range(n):
        w, hh = level_size(h.width, h.height, p)
        start = offset + sum(sizes[:p])
        # the layers (a cube's faces) of one level lie a whole chain apart
        level = np.concatenate([pixels.decode_level(kind, data, start + i * chain, w, hh, 1)
                                for i in range(layers)])
        levels.append(level if shape.layers else level[0])
    return pixels.texture_file(path, "DDS", kind, levels, shape.notes, shape.faces)


def _read_volume(path: str, data: bytes, h: Header, shape: _Layout,
                 check_pixels: PixelCheck) -> TextureFile:
    """A 3D texture's levels: level p is its max(1, D >> p) slices, one after the other, right
    after level p - 1's (the documented volume layout)."""
    kind, depth = shape.kind, shape.depth
    what = f"a {h.width}x{h.height}x{depth} volume"
    check_pixels(h.width * h.height * depth, what)
    n = max(1, h.mip_count)
    texture.check_volume_level_count(n, h.width, h.height, depth)
    sizes = [volume_level_size(h.width, h.height, depth, p) for p in range(n)]
    nbytes = [d * pixels.image_bytes(kind, w, hh) for w, hh, d in sizes]
    need = shape.offset + sum(nbytes)
    if need > len(data):
        raise ContainerError(f"truncated DDS file: {n} level{'s' if n > 1 else ''} of {what} "
                             f"of {kind.name} need {need} bytes, the file holds {len(data)}")
    levels = []
    start = shape.offset
    for (w, hh, d), size in zip(sizes, nbytes, strict=True):
        levels.append(pixels.decode_level(kind, data, start, w, hh, d))
        start += size
    return pixels.texture_file(path, "DDS", kind, levels, shape.notes, volume=True)
