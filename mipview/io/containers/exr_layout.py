"""The structure of an OpenEXR file, checked before the OpenEXR library decodes a byte of it:
headers, offset tables and every chunk's place in the file (so a truncated file is one clear
line, not a library warning), and the pixel bytes the headers claim (so a tiny file cannot make
the library allocate gigabytes).

Written from the OpenEXR file layout document: magic 76 2f 31 01, a version word whose bits 9-12
flag tiled, long-name, deep and multi-part files, attribute headers (name, type, size, value;
a multi-part file ends its list of headers with an empty one), one offset table per part, then
the chunks (multi-part chunks start with the part number).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from mipview.io.containers.texture import ContainerError, check_magic

MAGIC = b"\x76\x2f\x31\x01"
_TILED, _DEEP, _MULTIPART = 0x200, 0x800, 0x1000
#: scanlines per chunk of each compression (NONE, RLE, ZIPS, ZIP, PIZ, PXR24, B44, B44A, DWAA,
#: DWAB); a single-part scanline file with another one is left to the library to check
_LINES = {0: 1, 1: 1, 2: 1, 3: 16, 4: 32, 5: 16, 6: 32, 7: 32, 8: 32, 9: 256}
_SAMPLE_BYTES = {0: 4, 1: 2, 2: 4}  # UINT, HALF, FLOAT
#: zlib cannot compress better than ~1032:1; more pixel bytes than this many times the file's
#: size (and more than _SMALL_BYTES, which any file may claim) means a corrupt header
_MAX_RATIO = 1100
_SMALL_BYTES = 64 << 20


@dataclass(frozen=True)
class Part:
    width: int
    height: int
    #: name -> pixel type (0 UINT, 1 HALF, 2 FLOAT)
    channels: dict[str, int]
    tiled: bool
    deep: bool
    #: mip levels of a tiled MIPMAP_LEVELS part (1 otherwise)
    tile_levels: int
    chunk_count: int | None
    #: the part's ``name`` attribute ("" for a single-part file without one)
    name: str = ""
    #: levels along x and y of a tiled RIPMAP_LEVELS part ((1, 1) otherwise)
    rip_levels: tuple[int, int] = (1, 1)

    @property
    def pixel_bytes(self) -> int:
        return self.width * self.height * sum(_SAMPLE_BYTES.get(t, 4)
                                              for t in self.channels.values())


def _cstring(data: bytes, pos: int, what: str) -> tuple[str, int]:
    end = data.find(b"\0", pos, pos + 256)
    if end < 0:
        raise ContainerError(f"truncated or corrupt EXR header (no end to {what} at byte {pos})")
    return data[pos:end].decode("latin-1"), end + 1


def _channels(value: bytes) -> dict[str, int]:
    out, pos = {}, 0
    while pos < len(value) and value[pos] != 0:
        name, pos = _cstring(value, pos, "a channel name")
        if pos + 16 > len(value):
            raise ContainerError("corrupt EXR header (a channel list is cut short)")
        (out[name],) = struct.unpack_from("<i", value, pos)
        pos += 16  # pixel type, pLinear + 3 reserved, x and y sampling
    return out


def _header(data: bytes, pos: int) -> tuple[dict[str, bytes], int]:
    """The attributes of one header (name -> raw value) and the position after it."""
    attrs: dict[str, bytes] = {}
    while True:
        if pos >= len(data):
            raise ContainerError("truncated EXR file (the header ends past the end)")
        if data[pos] == 0:
            return attrs, pos + 1
        name, pos = _cstring(data, pos, "an attribute name")
        _, pos = _cstring(data, pos, f"the type of attribute {name!r}")
        if pos + 4 > len(data):
            raise ContainerError("truncated EXR file (the header ends past the end)")
        (size,) = struct.unpack_from("<i", data, pos)
        pos += 4
        if size < 0 or pos + size > len(data):
            raise ContainerError(f"truncated or corrupt EXR header (attribute {name!r} of "
                                 f"{size} bytes ends past the end of the file)")
        attrs[name] = data[pos:pos + size]
        pos += size


def _levels(size: int, rounding: int) -> int:
    return (math.ceil(math.log2(size)) if rounding else size.bit_length() - 1) + 1


def _level_side(size: int, level: int, rounding: int) -> int:
    return max(1, -(-size // (1 << level)) if rounding else size >> level)


def _tile_count(width: int, height: int,
                tiles: bytes) -> tuple[int, int, tuple[int, int]]:
    """(chunks, mip levels, rip levels along x and y) of a tiled part, from its ``tiles``
    attribute."""
    tx, ty, mode = struct.unpack_from("<IIB", tiles)
    level_mode, rounding = mode & 0xF, mode >> 4
    if tx == 0 or ty == 0:
        raise ContainerError("corrupt EXR header (tiles of size 0)")

    def count(w: int, h: int) -> int:
        return -(-w // tx) * -(-h // ty)

    if level_mode == 0:
        return count(width, height), 1, (1, 1)
    nx, ny = _levels(width, rounding), _levels(height, rounding)
    if level_mode == 1:
        n = _levels(max(width, height), rounding)
        return sum(count(_level_side(width, k, rounding), _level_side(height, k, rounding))
                   for k in range(n)), n, (1, 1)
    return sum(count(_level_side(width, i, rounding), _level_side(height, j, rounding))
               for i in range(nx) for j in range(ny)), 1, (nx, ny)


def _part(attrs: dict[str, bytes], version_tiled: bool) -> Part:
    for needed in ("channels", "dataWindow", "compression"):
        if needed not in attrs:
            raise ContainerError(f"corrupt EXR header (no {needed!r} attribute)")
    x0, y0, x1, y1 = struct.unpack_from("<4i", attrs["dataWindow"])
    width, height = x1 - x0 + 1, y1 - y0 + 1
    if width < 1 or height < 1:
        raise ContainerError(f"corrupt EXR header (data window {width}x{height})")
    kind = attrs.get("type", b"").rstrip(b"\0").decode("latin-1")
    tiled = kind in ("tiledimage", "deeptile") or (not kind and version_tiled)
    chunk_count = None
    if "chunkCount" in attrs:
        (chunk_count,) = struct.unpack_from("<i", attrs["chunkCount"])
    levels, rip = 1, (1, 1)
    if tiled:
        if "tiles" not in attrs:
            raise ContainerError("corrupt EXR header (a tiled part without 'tiles')")
        counted, levels, rip = _tile_count(width, height, attrs["tiles"])
        chunk_count = chunk_count if chunk_count is not None else counted
    elif chunk_count is None and attrs["compression"][0] in _LINES:
        chunk_count = -(-height // _LINES[attrs["compression"][0]])
    name = attrs.get("name", b"").split(b"\0")[0].decode("utf-8", "replace")
    return Part(width, height, _channels(attrs["channels"]), tiled, kind.startswith("deep"),
                levels, chunk_count, name, rip)


def check(data: bytes) -> list[Part]:
    """The parts of an EXR file, once its structure is checked against its size.

    Raises ContainerError naming what is wrong (wrong magic, truncated, claims more pixels than
    the file could hold)."""
    try:
        return _check(data)
    except struct.error:  # an attribute value shorter than its type
        raise ContainerError("corrupt EXR header (an attribute too short for its type)") from None


def _check(data: bytes) -> list[Part]:
    check_magic(data, MAGIC, "OpenEXR")
    if len(data) < 8:
        raise ContainerError("truncated EXR file (no version field)")
    (version,) = struct.unpack_from("<I", data, 4)
    if version & _DEEP:
        raise ContainerError("a deep EXR image: mipview reads flat images")
    multipart = bool(version & _MULTIPART)
    pos, headers = 8, []
    while True:
        attrs, pos = _header(data, pos)
        headers.append(attrs)
        if not multipart:
            break
        if pos >= len(data):
            raise ContainerError("truncated EXR file (the header list ends past the end)")
        if data[pos] == 0:
            pos += 1
            break
    parts = [_part(a, bool(version & _TILED)) for a in headers]
    if any(p.deep for p in parts):
        raise ContainerError("a deep EXR image: mipview reads flat images")
    claimed = sum(p.pixel_bytes for p in parts)
    if claimed > max(_SMALL_BYTES, _MAX_RATIO * len(data)):
        w, h = parts[0].width, parts[0].height
        raise ContainerError(f"the header claims {w}x{h} texels ({claimed:,} bytes of pixels), "
                             f"more than a {len(data):,}-byte file can hold even compressed "
                             f"(corrupt header?)")
    for index, part in enumerate(parts):
        if part.chunk_count is None:
            continue  # a compression this check does not know: the library checks its chunks
        if part.chunk_count < 0 or pos + 8 * part.chunk_count > len(data):
            raise ContainerError("truncated EXR file (the chunk offset table ends past the end)")
        offsets = struct.unpack_from(f"<{part.chunk_count}Q", data, pos)
        pos += 8 * part.chunk_count
        leader = (4 if multipart else 0) + (16 if part.tiled else 4)
        for k, offset in enumerate(offsets):
            if offset + leader + 4 > len(data):
                raise ContainerError(f"truncated EXR file (chunk {k} of part {index} starts past "
                                     f"the end)")
            (size,) = struct.unpack_from("<i", data, offset + leader)
            if size < 0 or offset + leader + 4 + size > len(data):
                raise ContainerError(f"truncated EXR file (chunk {k} of part {index} ends past "
                                     f"the end)")
    return parts
