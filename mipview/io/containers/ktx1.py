"""KTX 1.1 (Khronos, OpenGL's texture file): read, never written (mipview writes KTX 2.0).

The file follows the KTX 1.1 specification: a 64-byte header of 32-bit words in the writer's byte
order (``endianness`` 0x04030201 as read tells which), key/value data, then per mip level its
``imageSize`` and its images: array element by element, face by face, slice by slice, each row
of an uncompressed format padded to 4 bytes (GL_UNPACK_ALIGNMENT), each level to 4 bytes.
``imageSize`` is one face's bytes for a cube map that is no array, else the whole level's.

Read: the sized internal formats of mipview's formats (RGBA8, SRGB8_ALPHA8, RGBA16, RGBA16F,
RGBA32F, R8, RG8, R16, R16F, RG16F, R32F, RG32F, RGB10_A2, R11F_G11F_B10F, DEPTH_COMPONENT16
and 32F), the three-channel RGB8, SRGB8, RGB16, RGB16F, RGB32F (as RGBA with alpha 1, noted),
the unsized RGBA, RGB, LUMINANCE and LUMINANCE_ALPHA of unsigned bytes, and the S3TC, RGTC,
BPTC, ETC1, ETC2, EAC and ASTC blocks (decoded, :mod:`.blocks`). 2D textures, arrays, cube
maps and cube arrays, and 3D textures; a pixelDepth of 1 is a 2D texture (some writers put 1
where the specification says 0). Rows are read top first as stored; ``KTXorientation`` "T=u"
or "S=l" flips them, noted.
"""

from __future__ import annotations

import struct

import numpy as np

from mipview.core.cube import FACES
from mipview.core.formats import Format, level_size
from mipview.core.volume import volume_level_size
from mipview.io.containers import bcn, block_layouts
from mipview.io.containers.pixels import (
    Blocks,
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
)

IDENTIFIER = b"\xabKTX 11\xbb\r\n\x1a\n"
#: endianness, glType, glTypeSize, glFormat, glInternalFormat, glBaseInternalFormat,
#: pixelWidth, pixelHeight, pixelDepth, numberOfArrayElements, numberOfFaces,
#: numberOfMipmapLevels, bytesOfKeyValueData
_FIELDS = 13
_HEADER_SIZE = 12 + 4 * _FIELDS
_GL_UNSIGNED_BYTE = 0x1401
_GREY, _GREY_ALPHA = (0, 0, 0, None), (0, 0, 0, 1)

#: glInternalFormat -> how mipview reads it (the OpenGL name is the layout's)
_LAYOUTS: dict[int, Layout] = {
    0x8058: Plain("GL_RGBA8", Format.UNORM),
    0x8C43: Plain("GL_SRGB8_ALPHA8", Format.SRGB),
    0x805B: Plain("GL_RGBA16", Format.RGBA16),
    0x881A: Plain("GL_RGBA16F", Format.F16),
    0x8814: Plain("GL_RGBA32F", Format.F32),
    0x8229: Plain("GL_R8", Format.R8, 1, (0, None, None, None)),
    0x822B: Plain("GL_RG8", Format.RG8, 2, (0, 1, None, None)),
    0x822A: Plain("GL_R16", Format.R16, 1, (0, None, None, None)),
    0x822D: Plain("GL_R16F", Format.R16F, 1, (0, None, None, None)),
    0x822F: Plain("GL_RG16F", Format.RG16F, 2, (0, 1, None, None)),
    0x822E: Plain("GL_R32F", Format.R32F, 1, (0, None, None, None)),
    0x8230: Plain("GL_RG32F", Format.RG32F, 2, (0, 1, None, None)),
    0x8059: Plain("GL_RGB10_A2", Format.RGB10A2, 1),
    0x8C3A: Plain("GL_R11F_G11F_B10F", Format.B10G11R11, 1),
    0x81A5: Plain("GL_DEPTH_COMPONENT16", Format.D16, 1, (0, None, None, None)),
    0x8CAC: Plain("GL_DEPTH_COMPONENT32F", Format.D32, 1, (0, None, None, None)),
    0x8051: rgb("GL_RGB8", Format.UNORM),
    0x8C41: rgb("GL_SRGB8", Format.SRGB),
    0x8054: rgb("GL_RGB16", Format.RGBA16),
    0x881B: rgb("GL_RGB16F", Format.F16),
    0x8815: rgb("GL_RGB32F", Format.F32),
    0x8040: Plain("GL_LUMINANCE8", Format.UNORM, 1, _GREY),
    0x8045: Plain("GL_LUMINANCE8_ALPHA8", Format.UNORM, 2, _GREY_ALPHA),
    0x83F0: Blocks("GL_COMPRESSED_RGB_S3TC_DXT1_EXT", bcn.BC1, False, opaque=True),
    0x83F1: Blocks("GL_COMPRESSED_RGBA_S3TC_DXT1_EXT", bcn.BC1, False),
    0x83F2: Blocks("GL_COMPRESSED_RGBA_S3TC_DXT3_EXT", bcn.BC2, False),
    0x83F3: Blocks("GL_COMPRESSED_RGBA_S3TC_DXT5_EXT", bcn.BC3, False),
    0x8C4C: Blocks("GL_COMPRESSED_SRGB_S3TC_DXT1_EXT", bcn.BC1, True, opaque=True),
    0x8C4D: Blocks("GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT1_EXT", bcn.BC1, True),
    0x8C4E: Blocks("GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT3_EXT", bcn.BC2, True),
    0x8C4F: Blocks("GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT5_EXT", bcn.BC3, True),
    0x8DBB: Blocks("GL_COMPRESSED_RED_RGTC1", bcn.BC4, False),
    0x8DBD: Blocks("GL_COMPRESSED_RG_RGTC2", bcn.BC5, False),
    0x8E8C: Blocks("GL_COMPRESSED_RGBA_BPTC_UNORM", bcn.BC7, False),
    0x8E8D: Blocks("GL_COMPRESSED_SRGB_ALPHA_BPTC_UNORM", bcn.BC7, True),
    **block_layouts.gl(),  # signed RGTC, BPTC float, ETC1, ETC2, EAC, ASTC
}
#: unsized internal formats of unsigned bytes (what older writers put there)
_UNSIZED: dict[int, Layout] = {
    0x1908: Plain("GL_RGBA", Format.UNORM),
    0x1907: rgb("GL_RGB", Format.UNORM),
    0x1909: Plain("GL_LUMINANCE", Format.UNORM, 1, _GREY),
    0x190A: Plain("GL_LUMINANCE_ALPHA", Format.UNORM, 2, _GREY_ALPHA),
}
_FAMILIES = ((0x8C00, 0x8C03, "PVRTC blocks (GL_COMPRESSED_*_PVRTC_*)"),)
_CONVERT = ("convert it to KTX2 or DDS with BC1-BC7, ETC2, ASTC or uncompressed texels (e.g. "
            "`ktx create`)")


def _refusal(internal: int, gl_type: int) -> str:
    for lo, hi, family in _FAMILIES:
        if lo <= internal <= hi:
            return (f"KTX 1.1 glInternalFormat {internal:#06x}, {family}: no decoder for them "
                    f"among mipview's dependencies; {_CONVERT}")
    return (f"KTX 1.1 glInternalFormat {internal:#06x} (glType {gl_type:#06x}) is not one "
            f"mipview reads (RGBA8, SRGB8_ALPHA8, RGB8, SRGB8, RGBA16, RGB16, RGBA16F, RGB16F, "
            f"RGBA32F, RGB32F, R8, RG8, R16, R16F, RG16F, R32F, RG32F, RGB10_A2, "
            f"R11F_G11F_B10F, DEPTH_COMPONENT16/32F, LUMINANCE(_ALPHA), S3TC, RGTC, BPTC, ETC1, "
            f"ETC2, EAC, ASTC); {_CONVERT}")


def _layout(internal: int, gl_type: int) -> Layout:
    kind = _LAYOUTS.get(internal)
    if kind is None and gl_type == _GL_UNSIGNED_BYTE:
        kind = _UNSIZED.get(internal)
    if kind is None:
        raise ContainerError(_refusal(internal, gl_type))
    return kind


def _header(data: bytes) -> tuple[str, tuple[int, ...]]:
    """The byte order ("<" or ">") and the 13 header words."""
    check_magic(data, IDENTIFIER, "KTX 1.1")
    if len(data) < _HEADER_SIZE:
        raise ContainerError(f"truncated KTX 1.1 file: {len(data)} bytes, the header alone is "
                             f"{_HEADER_SIZE}")
    for order in "<>":
        fields = struct.unpack_from(f"{order}{_FIELDS}I", data, 12)
        if fields[0] == 0x04030201:
            return order, fields
    raise ContainerError(f"a KTX 1 file whose endianness word is "
                         f"{struct.unpack_from('<I', data, 12)[0]:#010x}, neither 0x04030201 "
                         f"nor 0x01020304 (corrupt file?)")


def header_depth(data: bytes) -> int:
    """pixelDepth of a KTX 1.1 file's header when it is a volume (more than 1), else 0."""
    depth = _header(data)[1][8]
    return depth if depth > 1 else 0


def _orientation(data: bytes, order: str, start: int, length: int) -> tuple[bool, bool, str]:
    """(flip rows, flip columns, note) from ``KTXorientation`` ("S=r,T=d": as stored)."""
    pos, end = start, start + length
    while pos + 4 <= end:
        (size,) = struct.unpack_from(f"{order}I", data, pos)
        if size < 2 or pos + 4 + size > end:
            break
        key, _, value = data[pos + 4:pos + 4 + size].partition(b"\0")
        if key == b"KTXorientation":
            text = value.rstrip(b"\0").decode("ascii", "replace")
            flip_y, flip_x = "T=u" in text, "S=l" in text
            note = f"KTXorientation '{text}': shown with row 0 at the top, column 0 at the " \
                   f"left" if flip_x or flip_y else ""
            return flip_y, flip_x, note
        pos += 4 + size + (-size % 4)
    return False, False, ""


def _rows(kind: Layout, blob: bytes, width: int, height: int, images: int) -> bytes:
    """The images of one level without the 4-byte padding of each row (uncompressed only)."""
    if isinstance(kind, Blocks):
        return blob
    row = image_bytes(kind, width, 1)
    pitch = row + (-row % 4)
    if pitch == row:
        return blob
    rows = np.frombuffer(blob, np.uint8, images * height * pitch).reshape(-1, pitch)
    return rows[:, :row].tobytes()


def read(path: str, data: bytes, check_pixels: PixelCheck) -> TextureFile:
    """Decode a KTX 1.1 file's levels. Raises ContainerError (or what ``check_pixels`` raises)."""
    order, fields = _header(data)
    (_, gl_type, type_size, _, internal, _, width, height, depth, elements, faces, count,
     kvd_length) = fields
    kind = _layout(internal, gl_type)
    if faces not in (1, FACES):
        raise ContainerError(f"numberOfFaces {faces} is invalid (1, or 6 for a cube map)")
    if width == 0 or height == 0:
        raise ContainerError(f"a {width}x{height} texture: mipview checks 2D textures with "
                             f"both sides at least 1")
    volume = depth > 1
    if volume and (faces > 1 or elements):
        raise ContainerError(f"a 3D texture (pixelDepth {depth}) that is a cube map or an "
                             f"array: mipview reads single 3D textures")
    if faces == FACES:
        check_cube(width, height)
    layers = max(1, elements) * faces
    check_pixels(width * height * layers * max(1, depth),
                 f"{width}x{height}" + (f"x{depth}" if volume else "")
                 + (f" x {layers} images" if layers > 1 else ""))
    n = max(1, count)
    if volume:
        check_volume_level_count(n, width, height, depth)
    else:
        check_level_count(n, width, height)
    pos = _HEADER_SIZE + kvd_length
    if pos > len(data):
        raise ContainerError("truncated KTX 1.1 file: the key/value data ends past the end of "
                             "the file")
    flip_y, flip_x, note = _orientation(data, order, _HEADER_SIZE, kvd_length)
    levels = []
    for p in range(n):
        w, h, d = volume_level_size(width, height, depth, p) if volume \
            else (*level_size(width, height, p), 1)
        images = layers * d
        row = image_bytes(kind, w, 1)
        one = image_bytes(kind, w, h) if isinstance(kind, Blocks) else h * (row + (-row % 4))
        # a cube map that is no array gives one face's size; its faces follow each other
        per_size = faces if faces == FACES and not elements else 1
        if pos + 4 > len(data):
            raise ContainerError(f"truncated KTX 1.1 file: level {p}'s imageSize lies past the "
                                 f"end of the file ({len(data)} bytes)")
        (size,) = struct.unpack_from(f"{order}I", data, pos)
        if size * per_size != one * images:
            raise ContainerError(f"level {p}: imageSize {size}, but {images} x {w}x{h} of "
                                 f"{kind.name} is {one * images // per_size}")
        start, end = pos + 4, pos + 4 + one * images
        if end > len(data):
            raise ContainerError(f"truncated KTX 1.1 file: level {p} ends at byte {end}, the "
                                 f"file holds {len(data)}")
        blob = _rows(kind, data[start:end], w, h, images)
        if order == ">" and type_size in (2, 4):  # the writer's byte order to little-endian
            blob = np.frombuffer(blob, f">u{type_size}").astype(f"<u{type_size}").tobytes()
        level = decode_level(kind, blob, 0, w, h, images)
        if flip_y:
            level = level[:, ::-1]
        if flip_x:
            level = level[:, :, ::-1]
        # an array of one layer stays an array, as KTX2's layerCount 1 does
        levels.append(np.ascontiguousarray(level if volume or elements or faces > 1
                                           else level[0]))
        pos = end + (-end % 4)
    return texture_file(path, "KTX 1.1", kind, levels, [note] if note else [], faces, volume)
