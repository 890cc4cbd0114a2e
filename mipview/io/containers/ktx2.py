"""KTX 2.0 (Khronos): a verified chain written uncompressed, and texture files read back.

Writing follows the KTX 2.0 specification: the level index in level order (level 0 first), the
level data smallest level first, each level at a multiple of lcm(texel block size, 4) with zeroed
mipPadding, a basic Data Format Descriptor matching the Vulkan format, sorted key/value data
(``KTXorientation`` "rd", ``KTXwriter``), no supercompression.

Cube maps and cube arrays (faceCount 6; mipview.core.cube) are written and read as 6 n layers, in
the order KTX2 stores them (layer by layer, face by face).

Volumes (3D textures: pixelDepth D > 0, layerCount 0, faceCount 1) are written and read as
(D, H, W, 4) levels, level k holding max(1, D >> k) slices one after the other (the spec's
"for each z_slice"), z = 0 first, with ``KTXorientation`` "rdi". Arrays of volumes (which the
spec allows and no graphics API has), cube volumes, and 3D depth formats are refused.

Reading takes uncompressed RGBA8 (UNORM, SRGB, BGRA order too), RGBA16 UNORM, RGBA16F, RGBA32F,
every one- and two-channel format of the table, the three-channel 8-bit (sRGB too), 16-bit and
32-bit float formats (as RGBA with alpha 1, noted), D32_SFLOAT and D16_UNORM (as ``d32``,
``d16``), the depth of the combined depth-stencil formats (the stencil dropped, noted), and
the block formats BC1-BC7 (signed BC4/BC5 too), ETC2, EAC and ASTC LDR and HDR (decoded,
:mod:`mipview.io.containers.blocks`). Level data supercompressed with
Zstandard (scheme 2) or ZLIB (scheme 3) is inflated level by level (:mod:`.supercompression`);
Basis Universal's codecs, ETC1S (BasisLZ, scheme 1) and UASTC, are transcoded by its own
transcoder (:mod:`.basis`). Every
offset and size in the header is checked against the file before a byte of level data is touched
or an array allocated, and a level inflates to no more than the bytes its size needs.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence

import numpy as np

from mipview import __version__
from mipview.core.cube import FACES
from mipview.core.formats import Format, level_size
from mipview.core.volume import volume_level_size
from mipview.io.containers import basis, bcn, block_layouts, supercompression
from mipview.io.containers.format_names import vk_name
from mipview.io.containers.pixels import (
    BGR,
    BGRA,
    Blocks,
    DepthStencil,
    Layout,
    Plain,
    decode_level,
    image_bytes,
    rgb,
    texture_file,
)
from mipview.io.containers.texture import (
    ContainerError,
    PixelCheck,
    TextureFile,
    check_cube,
    check_level_count,
    check_magic,
    check_volume_level_count,
    file_level,
    level_shape,
    volume_level_shape,
    written_layers,
    written_volume,
)

IDENTIFIER = b"\xabKTX 20\xbb\r\n\x1a\n"
#: identifier, vkFormat, typeSize, pixelWidth, pixelHeight, pixelDepth, layerCount, faceCount,
#: levelCount, supercompressionScheme, dfdByteOffset, dfdByteLength, kvdByteOffset,
#: kvdByteLength, sgdByteOffset, sgdByteLength
_HEADER = struct.Struct("<12s13I2Q")
#: byteOffset, byteLength, uncompressedByteLength
_LEVEL = struct.Struct("<3Q")

_VK_NAMES = {Format.R8: "R8_UNORM", Format.RG8: "R8G8_UNORM", Format.R16: "R16_UNORM",
             Format.R16F: "R16_SFLOAT",
             Format.RG16F: "R16G16_SFLOAT", Format.R32F: "R32_SFLOAT", Format.RG32F: "R32G32_SFLOAT"}
#: channel i (R, G, B, A) from component order[i] of a texel of that many components
_ORDER = {1: (0, None, None, None), 2: (0, 1, None, None)}
#: a packed format's samples from bit 0 of its word: (channel id, bits)
_PACKED_SAMPLES = {"unorm10": [(0, 10), (1, 10), (2, 10), (15, 2)],
                   "float11": [(0, 11), (1, 11), (2, 10)]}

#: the vkFormats mipview reads
_LAYOUTS: dict[int, Layout] = {
    37: Plain("VK_FORMAT_R8G8B8A8_UNORM", Format.UNORM),
    43: Plain("VK_FORMAT_R8G8B8A8_SRGB", Format.SRGB),
    44: Plain("VK_FORMAT_B8G8R8A8_UNORM", Format.UNORM, order=BGRA),
    50: Plain("VK_FORMAT_B8G8R8A8_SRGB", Format.SRGB, order=BGRA),
    91: Plain("VK_FORMAT_R16G16B16A16_UNORM", Format.RGBA16),
    64: Plain("VK_FORMAT_A2B10G10R10_UNORM_PACK32", Format.RGB10A2, 1),
    122: Plain("VK_FORMAT_B10G11R11_UFLOAT_PACK32", Format.B10G11R11, 1),
    97: Plain("VK_FORMAT_R16G16B16A16_SFLOAT", Format.F16),
    109: Plain("VK_FORMAT_R32G32B32A32_SFLOAT", Format.F32),
    # one- and two-channel formats: each read as itself
    **{f.info.vk_format: Plain(f"VK_FORMAT_{_VK_NAMES[f]}", f, f.channels, _ORDER[f.channels])
       for f in Format if f.channels < 4 and not f.depth_source},
    124: Plain("VK_FORMAT_D16_UNORM", Format.D16, 1, _ORDER[1]),
    126: Plain("VK_FORMAT_D32_SFLOAT", Format.D32, 1, _ORDER[1]),
    # three channels: RGBA with alpha 1
    23: rgb("VK_FORMAT_R8G8B8_UNORM", Format.UNORM),
    29: rgb("VK_FORMAT_R8G8B8_SRGB", Format.SRGB),
    30: rgb("VK_FORMAT_B8G8R8_UNORM", Format.UNORM, BGR),
    36: rgb("VK_FORMAT_B8G8R8_SRGB", Format.SRGB, BGR),
    84: rgb("VK_FORMAT_R16G16B16_UNORM", Format.RGBA16),
    90: rgb("VK_FORMAT_R16G16B16_SFLOAT", Format.F16),
    106: rgb("VK_FORMAT_R32G32B32_SFLOAT", Format.F32),
    # combined depth-stencil texels as the KTX 2.0 specification defines them (section 3.1,
    # "vkFormat", "Depth and Stencil Formats"): interleaved, the depth first (D16: 16-bit word,
    # then the stencil's; D32: float word, then the stencil's), except D24_UNORM_S8_UINT, one
    # 32-bit word with the stencil in its 8 LSBs and the depth above, and X8_D24_UNORM_PACK32,
    # the depth in the 24 LSBs
    125: DepthStencil("VK_FORMAT_X8_D24_UNORM_PACK32", Format.D32, 4, shift=0),
    128: DepthStencil("VK_FORMAT_D16_UNORM_S8_UINT", Format.D16, 4),
    129: DepthStencil("VK_FORMAT_D24_UNORM_S8_UINT", Format.D32, 4, shift=8),
    130: DepthStencil("VK_FORMAT_D32_SFLOAT_S8_UINT", Format.D32, 8),
    131: Blocks("VK_FORMAT_BC1_RGB_UNORM_BLOCK", bcn.BC1, False, opaque=True),
    132: Blocks("VK_FORMAT_BC1_RGB_SRGB_BLOCK", bcn.BC1, True, opaque=True),
    133: Blocks("VK_FORMAT_BC1_RGBA_UNORM_BLOCK", bcn.BC1, False),
    134: Blocks("VK_FORMAT_BC1_RGBA_SRGB_BLOCK", bcn.BC1, True),
    135: Blocks("VK_FORMAT_BC2_UNORM_BLOCK", bcn.BC2, False),
    136: Blocks("VK_FORMAT_BC2_SRGB_BLOCK", bcn.BC2, True),
    137: Blocks("VK_FORMAT_BC3_UNORM_BLOCK", bcn.BC3, False),
    138: Blocks("VK_FORMAT_BC3_SRGB_BLOCK", bcn.BC3, True),
    139: Blocks("VK_FORMAT_BC4_UNORM_BLOCK", bcn.BC4, False),
    141: Blocks("VK_FORMAT_BC5_UNORM_BLOCK", bcn.BC5, False),
    145: Blocks("VK_FORMAT_BC7_UNORM_BLOCK", bcn.BC7, False),
    146: Blocks("VK_FORMAT_BC7_SRGB_BLOCK", bcn.BC7, True),
    **block_layouts.vulkan(),  # signed BC4/BC5, BC6H, ETC2, EAC, ASTC
}

_UNDEFINED = ("VK_FORMAT_UNDEFINED (a format described only by its DFD): mipview reads Vulkan "
              "formats, and Basis Universal's ETC1S and UASTC")
_NO_DECODER = ("no decoder for it among mipview's dependencies; decode it to PNG or EXR first "
               "(PVRTexToolCLI -d)")
_READS = ("RGBA8 UNORM/SRGB, BGRA8, RGB8 UNORM/SRGB, BGR8, RGBA16 UNORM, RGB16 UNORM, RGBA16F, "
          "RGB16F, RGBA32F, RGB32F, R8, RG8, R16, R16F, RG16F, R32F, RG32F, D16, D32, the depth "
          "of D16S8, D24S8, D32S8, A2B10G10R10 UNORM, B10G11R11 UFLOAT, BC1-BC7, ETC2, EAC, "
          "ASTC")


def _refusal(vk_format: int) -> str:
    """Why a vkFormat mipview does not read cannot be read, naming it (and its number, which
    tools print too)."""
    name = f"{vk_name(vk_format)} (vkFormat {vk_format})"
    if 1000054000 <= vk_format <= 1000054007:
        return f"{name}, PVRTC blocks: {_NO_DECODER}"
    return f"{vk_name(vk_format)}: vkFormat {vk_format} is not one mipview reads ({_READS})"


# --- writing -------------------------------------------------------------------------------------
def _dfd(fmt: Format) -> bytes:
    """dfdTotalSize and the basic descriptor block of ``fmt`` (Khronos Data Format 1.3):
    RGBSDA, BT.709 primaries, sRGB or linear transfer, one sample per channel (a packed
    format's at its bits in the little-endian word, R lowest: KTX-Software's createDFDPacked)."""
    bits = 8 * fmt.dtype.itemsize
    layout = _PACKED_SAMPLES.get(fmt.packing) or [
        (channel, bits) for channel in (0, 1, 2, 15)[:fmt.channels]]  # R, G, B, A
    samples = []
    offset = 0
    for channel, bits in layout:
        qualifiers = 0
        if fmt.is_float and fmt.packing:
            qualifiers = 0x80  # FLOAT, unsigned (UFLOAT: 0.0 .. 1.0)
            lower, upper = struct.unpack("<2I", struct.pack("<2f", 0.0, 1.0))
        elif fmt.is_float:
            qualifiers = 0x80 | 0x40  # FLOAT | SIGNED
            lower, upper = struct.unpack("<2I", struct.pack("<2f", -1.0, 1.0))
        else:
            lower, upper = 0, (1 << bits) - 1
            if fmt.is_srgb and channel == 15:
                qualifiers = 0x10  # LINEAR: alpha is not sRGB-encoded
        samples.append((offset, bits, channel | qualifiers, lower, upper))
        offset += bits
    return dfd(1, fmt.is_srgb, (1, 1), fmt.bytes_per_texel, samples)  # RGBSDA


def dfd(model: int, srgb: bool, block: tuple[int, int], block_bytes: int,
        samples: Sequence[tuple[int, int, int, int, int]]) -> bytes:
    """dfdTotalSize and one Khronos basic descriptor block (Data Format 1.3): colour
    ``model``, BT.709 primaries, sRGB or linear transfer, a texel block of ``block`` texels and
    ``block_bytes`` bytes, and its ``samples`` as (bit offset, bit length, channel id with its
    qualifiers, lower, upper)."""
    body = b"".join(struct.pack("<I4B2I", offset | ((length - 1) << 16) | (channel << 24),
                                0, 0, 0, 0, lower, upper)
                    for offset, length, channel, lower, upper in samples)
    transfer = 2 if srgb else 1  # KHR_DF_TRANSFER_SRGB / _LINEAR
    head = struct.pack("<3I4B8B", 0, 2 | ((24 + len(body)) << 16),  # Khronos basic block, v1.3
                       model | (1 << 8) | (transfer << 16),  # model, BT709, transfer, flags 0
                       block[0] - 1, block[1] - 1, 0, 0, block_bytes, 0, 0, 0, 0, 0, 0, 0)
    return struct.pack("<I", 4 + len(head) + len(body)) + head + body


def _kvd(pairs: list[tuple[str, bytes]]) -> bytes:
    out = b""
    for key, value in sorted(pairs):  # the spec wants them sorted by key
        entry = key.encode() + b"\0" + value
        out += struct.pack("<I", len(entry)) + entry + b"\0" * (-len(entry) % 4)
    return out


def _align(offset: int, alignment: int) -> int:
    return offset + (-offset % alignment)


def encode(levels: list[np.ndarray] | tuple[np.ndarray, ...], fmt: Format,
           faces: int = 1, volume: bool = False) -> bytes:
    """A KTX2 file of ``levels`` (storage values of ``fmt``, level 0 first, each (H, W, 4) or
    (layers, H, W, 4): an array texture, layerCount = layers). ``faces`` 6: the levels are
    (6 n, N, N, 4) cube faces, written with faceCount 6 and layerCount n (0 for one cube);
    KTX2 stores a level's images layer by layer, face by face within a layer, which is the
    order mipview holds them in. ``volume``: the levels are a 3D texture's, (D, H, W, 4) with
    level k (max(1, D >> k), ...), written with pixelDepth D, its slices in order. A depth
    source's chain is written in its levels' format (``d32``: R32_SFLOAT, ``d16``:
    R16_UNORM)."""
    fmt = fmt.chain
    first = np.asarray(levels[0])
    n = len(levels)
    if volume:
        width, height, depth = written_volume(first, faces, n)
        layers, layer_count = None, 0
    else:
        layers = written_layers(first, faces)
        layer_count = (layers or 0) // faces
        if faces == FACES and layer_count == 1:
            layer_count = 0  # one cube is no array: the spec's cubemap, not a cubemap array of 1
        height, width, depth = int(first.shape[-3]), int(first.shape[-2]), 0
    datas = [file_level(levels[p], fmt, volume_level_shape(width, height, depth, p) if volume
                        else level_shape(width, height, p, layers), p).tobytes()
             for p in range(n)]
    orientation = b"rdi\0" if volume else b"rd\0"  # z increasing away from the viewer
    return assemble(datas, _dfd(fmt), orientation, fmt.info.vk_format, fmt.texel_dtype.itemsize,
                    (width, height, depth, layer_count, faces),
                    math.lcm(fmt.bytes_per_texel, 4))


def assemble(levels: Sequence[bytes], dfd: bytes, orientation: bytes, vk_format: int,
             type_size: int, extent: tuple[int, int, int, int, int], alignment: int,
             scheme: int = 0, compress: Callable[[bytes], bytes] | None = None) -> bytes:
    """A KTX2 file of ``levels`` (each level's bytes, level 0 first) with its header, level
    index, ``dfd`` and key/value data (``KTXorientation``, ``KTXwriter``): the one writer of
    the file's layout, for texel and block levels alike. ``extent``: pixelWidth, pixelHeight,
    pixelDepth, layerCount, faceCount; ``compress`` makes each level's supercompressed bytes
    (``scheme``), stored unaligned as the specification asks."""
    n = len(levels)
    kvd = _kvd([("KTXorientation", orientation),
                ("KTXwriter", f"mipview {__version__}\0".encode())])
    dfd_offset = _HEADER.size + n * _LEVEL.size
    kvd_offset = dfd_offset + len(dfd)
    alignment = 1 if compress is not None else alignment
    body = bytearray()
    index = [b""] * n
    offset = kvd_offset + len(kvd)
    for p in reversed(range(n)):  # smallest level first in the file
        raw = levels[p]
        data = compress(raw) if compress is not None else raw
        start = _align(offset, alignment)
        body += b"\0" * (start - offset) + data
        index[p] = _LEVEL.pack(start, len(data), len(raw))
        offset = start + len(data)
    width, height, depth, layer_count, faces = extent
    header = _HEADER.pack(IDENTIFIER, vk_format, type_size, width, height, depth, layer_count,
                          faces, n, scheme, dfd_offset, len(dfd), kvd_offset, len(kvd), 0, 0)
    return header + b"".join(index) + dfd + kvd + bytes(body)


# --- reading -------------------------------------------------------------------------------------
def _key_values(data: bytes, offset: int, length: int) -> dict[str, bytes]:
    """The key/value pairs of the KVD section (already checked to lie inside ``data``); stops at
    the first malformed entry rather than guess past it."""
    out: dict[str, bytes] = {}
    pos, end = offset, offset + length
    while pos + 4 <= end:
        (size,) = struct.unpack_from("<I", data, pos)
        if size < 2 or pos + 4 + size > end:
            break
        key, _, value = data[pos + 4:pos + 4 + size].partition(b"\0")
        out[key.decode("utf-8", "replace")] = value
        pos = _align(pos + 4 + size, 4)
    return out


def _orientation(data: bytes, kvd_offset: int,
                 kvd_length: int) -> tuple[bool, bool, bool, str]:
    """(flip rows, flip columns, flip slices, note) so that row 0 is the top, column 0 the left
    and (a volume's) slice 0 the nearest ("rdi")."""
    value = _key_values(data, kvd_offset, kvd_length).get("KTXorientation", b"rd\0")
    text = value.rstrip(b"\0").decode("ascii", "replace")
    flip_x = text[:1] == "l"
    flip_y = text[1:2] == "u"
    flip_z = text[2:3] == "o"
    nearest = ", slice 0 the nearest" if flip_z else ""
    note = f"KTXorientation '{text}': shown with row 0 at the top, column 0 at the left" \
           f"{nearest}" if flip_x or flip_y or flip_z else ""
    return flip_y, flip_x, flip_z, note


def _check_header(fields: tuple[int | bytes, ...]) -> None:
    (_, vk_format, _, width, height, depth, layer_count, faces, _, scheme, *_) = fields
    supercompression.check_scheme(int(scheme))
    if faces not in (1, FACES):
        raise ContainerError(f"faceCount {faces} is invalid (1, or 6 for a cube map)")
    if depth:
        if faces == FACES:
            raise ContainerError(f"faceCount 6 with pixelDepth {depth}: a cube map has no "
                                 f"depth (the spec's pixelDepth 0), and a 3D texture no faces")
        if layer_count:
            raise ContainerError(f"an array of {layer_count} 3D textures (pixelDepth {depth}, "
                                 f"layerCount {layer_count}): mipview reads single 3D "
                                 f"textures (layerCount 0); no graphics API has arrays of them")
        if vk_format in (124, 125, 126, 128, 129, 130):
            raise ContainerError(f"a 3D texture (pixelDepth {depth}) of a depth format: the "
                                 f"spec's depth formats have pixelDepth 0")
    if width == 0 or height == 0:
        raise ContainerError(f"a {width}x{height} texture: mipview checks 2D textures with "
                             f"both sides at least 1")
    if faces == FACES:
        check_cube(int(width), int(height))


def _extent(width: int, height: int, layer_count: int, faces: int, depth: int = 0) -> str:
    """How big the header says the texture is, for the MAX_PIXELS check's message."""
    if depth:
        return f"a {width}x{height}x{depth} volume"
    if faces == FACES:
        cubes = f" x {layer_count} cubes" if layer_count else ""
        return f"{width}x{height} x 6 faces{cubes}"
    return f"{width}x{height}" + (f" x {layer_count} layers" if layer_count else "")


def header_depth(data: bytes) -> int:
    """pixelDepth of a KTX2 file's header (0: not a volume), from its first 80 bytes alone;
    ContainerError where there is no KTX2 header."""
    check_magic(data, IDENTIFIER, "KTX2")
    if len(data) < _HEADER.size:
        raise ContainerError("truncated KTX2 header")
    return int(_HEADER.unpack_from(data)[5])


def read(path: str, data: bytes, check_pixels: PixelCheck) -> TextureFile:
    """Decode a KTX2 file's levels. Raises ContainerError (or what ``check_pixels`` raises)."""
    check_magic(data, IDENTIFIER, "KTX2")
    if len(data) < _HEADER.size:
        raise ContainerError(f"truncated KTX2 file: {len(data)} bytes, the header alone is "
                             f"{_HEADER.size}")
    fields = _HEADER.unpack_from(data)
    (_, vk_format, _, width, height, depth, layer_count, faces, level_count, scheme,
     dfd_offset, dfd_length, kvd_offset, kvd_length, _, _) = fields
    _check_header(fields)
    kind = _LAYOUTS.get(vk_format)
    codec = basis.codec(vk_format, scheme, data, dfd_offset, dfd_length)
    if kind is None and codec is None:
        raise ContainerError(_UNDEFINED if vk_format == 0 else _refusal(vk_format))
    layers = max(1, layer_count) * faces  # images a level holds, face fastest within a layer
    check_pixels(width * height * layers * max(1, depth),
                 _extent(width, height, layer_count, faces, depth))
    n = max(1, level_count)
    if depth:
        check_volume_level_count(n, width, height, depth)
    else:
        check_level_count(n, width, height)
    if _HEADER.size + n * _LEVEL.size > len(data):
        raise ContainerError(f"truncated KTX2 file: the level index of {n} levels ends past the "
                             f"end of the file ({len(data)} bytes)")
    if kvd_length and kvd_offset + kvd_length > len(data):
        raise ContainerError("truncated KTX2 file: the key/value data ends past the end of the "
                             "file")
    if depth and codec is None:
        return _read_volume(path, data, kind, (width, height, depth), n, kvd_offset, kvd_length,
                            scheme)
    if depth:
        raise ContainerError(f"a Basis Universal 3D texture (pixelDepth {depth}): Basis "
                             f"Universal's codecs hold 2D images, arrays and cube maps")
    if codec is None:
        offsets = [_level_data(data, p, kind, width, height, layers, scheme=scheme)
                   for p in range(n)]
    flip_y, flip_x, _, note = _orientation(data, kvd_offset, kvd_length)
    if faces == FACES and note:
        # the spec fixes a cube's faces at rd: flipping them would break the edges they share
        flip_y = flip_x = False
        note = note.split(":")[0] + " on a cube map, whose faces the KTX2 spec fixes at 'rd': " \
                                    "read as stored"
    if codec is not None:
        decoded, srgb, notes = basis.transcode(data, codec, layers, faces,
                                               (dfd_offset, dfd_length))
    else:
        decoded = (decode_level(kind, blob, offset, *level_size(width, height, p), layers)
                   for p, (blob, offset) in enumerate(offsets))
    levels = []
    for level in decoded:
        if flip_y:
            level = level[:, ::-1]
        if flip_x:
            level = level[:, :, ::-1]
        levels.append(np.ascontiguousarray(level if layer_count or faces > 1 else level[0]))
    if codec is not None:
        return basis.texture_file(path, codec, scheme, srgb, levels,
                                  [*notes, note] if note else notes, faces)
    return texture_file(path, "KTX2", kind, levels, [note] if note else [], faces)


def _read_volume(path: str, data: bytes, kind: Layout, size: tuple[int, int, int], n: int,
                 kvd_offset: int, kvd_length: int, scheme: int) -> TextureFile:
    """The levels of a 3D texture: level p holds its slices one after the other."""
    width, height, depth = size
    offsets = []
    for p in range(n):
        w, h, d = volume_level_size(width, height, depth, p)
        offsets.append(_level_data(data, p, kind, w, h, d, f"{d} slice{'s' if d > 1 else ''}",
                                   scheme))
    flip_y, flip_x, flip_z, note = _orientation(data, kvd_offset, kvd_length)
    levels = []
    for p, (blob, offset) in enumerate(offsets):
        w, h, d = volume_level_size(width, height, depth, p)
        level = decode_level(kind, blob, offset, w, h, d)
        if flip_z:
            level = level[::-1]
        if flip_y:
            level = level[:, ::-1]
        if flip_x:
            level = level[:, :, ::-1]
        levels.append(np.ascontiguousarray(level))
    return texture_file(path, "KTX2", kind, levels, [note] if note else [], volume=True)


def _level_data(data: bytes, p: int, kind: Layout, width: int, height: int,
                layers: int, images: str = "", scheme: int = 0) -> tuple[bytes, int]:
    """The bytes level ``p`` lies in and where it starts there, once its index entry is checked
    against the format and the file's size: the file itself, or (``scheme`` 2, 3) the level
    inflated. ``width`` x ``height`` is level 0's size, or with ``images`` (a volume's "3
    slices") level ``p``'s own, ``layers`` images of it."""
    offset, length, unpacked = _LEVEL.unpack_from(data, _HEADER.size + p * _LEVEL.size)
    w, h = (width, height) if images else level_size(width, height, p)
    need = layers * image_bytes(kind, w, h)
    stored = unpacked if scheme else length
    if stored != need:
        raise ContainerError(f"level {p} holds {stored} bytes"
                             f"{' once inflated' if scheme else ''}, but {images or layers} x "
                             f"{w}x{h} of {kind.name} is {need}")
    if offset + length > len(data):
        raise ContainerError(f"level {p} lies past the end of the file (bytes {offset} to "
                             f"{offset + length} of {len(data)}): truncated?")
    if scheme:
        return supercompression.inflate(scheme, data[offset:offset + length], need, p), 0
    return data, offset
