"""A KTX 2.0 reader written from the specification, not from mipview's writer: it checks every
field of a file against the rules the KTX File Format Specification 2.0 states for an
uncompressed 2D texture, 2D array, cubemap, cubemap array or 3D texture (the rules
KTX-Software's ``ktx validate`` enforces), and decodes its levels by the layout the spec gives.

Sources: KTX File Format Specification 2.0 (KhronosGroup/KTX-Specification ktxspec.adoc),
sections File Structure, Field Descriptions, Index, Level Index, Data Format Descriptor,
Key/Value Data, Mip Level Array, Texture Type, faceCount, KTXorientation, KTXwriter. For 3D
textures: pixelWidth, pixelHeight, pixelDepth ("If faceCount is equal to 6 ... pixelDepth must
be 0"), Texture Type (3D: pixelDepth > 0, layerCount 0, faceCount 1), levelImages ("for each
z_slice_of_blocks in num_blocks_z", num_blocks_z = max(1, floor(pixelDepth / 2^p))), levelCount
(M = floor(log2(max(pixelWidth, pixelHeight, pixelDepth)))), KTXorientation (/^[rl][du][oi]$/
for 3D). Khronos Data Format Specification 1.3 (basic descriptor block, sample layout,
sampleLower/Upper of float samples: "described in floating point", i.e. the IEEE bits of -1.0f
and 1.0f).
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field

import numpy as np

IDENTIFIER = bytes([0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A])

# Khronos Data Format constants (khr_df.h values, quoted in the KTX spec's example files)
RGBSDA, BT709, LINEAR, SRGB = 1, 1, 1, 2
RED, GREEN, BLUE, ALPHA = 0, 1, 2, 15
Q_LINEAR, Q_EXPONENT, Q_SIGNED, Q_FLOAT = 0x1, 0x2, 0x4, 0x8  # the upper nibble of channelType


@dataclass(frozen=True)
class Sample:
    bit_offset: int
    bit_length: int  # as stored: bits - 1
    channel: int
    qualifiers: int  # F S E L, as a nibble
    positions: tuple[int, int, int, int]
    lower: int
    upper: int


def _samples(bits: int, float_: bool, srgb: bool, channels: int = 4) -> tuple[Sample, ...]:
    """The sample list the Data Format spec gives an R, RG or RGBA format of ``bits`` per
    channel: one sample per channel, in R G B A order at consecutive bit offsets."""
    out = []
    for i, channel in enumerate((RED, GREEN, BLUE, ALPHA)[:channels]):
        if float_:
            q, lower, upper = Q_FLOAT | Q_SIGNED, 0xBF800000, 0x3F800000  # -1.0f, 1.0f
        else:
            q, lower, upper = 0, 0, (1 << bits) - 1
            if srgb and channel == ALPHA:
                q = Q_LINEAR  # "KHR_DF_SAMPLE_DATATYPE_LINEAR must be set ... of the alpha sample"
        out.append(Sample(i * bits, bits - 1, channel, q, (0, 0, 0, 0), lower, upper))
    return tuple(out)


@dataclass(frozen=True)
class FormatRule:
    name: str
    type_size: int
    texel_bytes: int
    transfer: int
    samples: tuple[Sample, ...]
    dtype: str


#: the formats mipview writes, as the Vulkan and Data Format specs define them
FORMATS = {
    37: FormatRule("VK_FORMAT_R8G8B8A8_UNORM", 1, 4, LINEAR, _samples(8, False, False), "u1"),
    43: FormatRule("VK_FORMAT_R8G8B8A8_SRGB", 1, 4, SRGB, _samples(8, False, True), "u1"),
    97: FormatRule("VK_FORMAT_R16G16B16A16_SFLOAT", 2, 8, LINEAR, _samples(16, True, False),
                   "<f2"),
    109: FormatRule("VK_FORMAT_R32G32B32A32_SFLOAT", 4, 16, LINEAR, _samples(32, True, False),
                    "<f4"),
    9: FormatRule("VK_FORMAT_R8_UNORM", 1, 1, LINEAR, _samples(8, False, False, 1), "u1"),
    16: FormatRule("VK_FORMAT_R8G8_UNORM", 1, 2, LINEAR, _samples(8, False, False, 2), "u1"),
    76: FormatRule("VK_FORMAT_R16_SFLOAT", 2, 2, LINEAR, _samples(16, True, False, 1), "<f2"),
    83: FormatRule("VK_FORMAT_R16G16_SFLOAT", 2, 4, LINEAR, _samples(16, True, False, 2), "<f2"),
    100: FormatRule("VK_FORMAT_R32_SFLOAT", 4, 4, LINEAR, _samples(32, True, False, 1), "<f4"),
    103: FormatRule("VK_FORMAT_R32G32_SFLOAT", 4, 8, LINEAR, _samples(32, True, False, 2), "<f4"),
    91: FormatRule("VK_FORMAT_R16G16B16A16_UNORM", 2, 8, LINEAR, _samples(16, False, False),
                   "<u2"),
    70: FormatRule("VK_FORMAT_R16_UNORM", 2, 2, LINEAR, _samples(16, False, False, 1), "<u2"),
    # packed: one sample per channel at its bits of the little-endian word, R lowest (the Data
    # Format spec's packed formats; UFLOAT: FLOAT without SIGNED, 0.0 to 1.0)
    64: FormatRule("VK_FORMAT_A2B10G10R10_UNORM_PACK32", 4, 4, LINEAR, (
        Sample(0, 9, RED, 0, (0, 0, 0, 0), 0, 1023), Sample(10, 9, GREEN, 0, (0, 0, 0, 0), 0, 1023),
        Sample(20, 9, BLUE, 0, (0, 0, 0, 0), 0, 1023), Sample(30, 1, ALPHA, 0, (0, 0, 0, 0), 0, 3)),
        "<u4"),
    122: FormatRule("VK_FORMAT_B10G11R11_UFLOAT_PACK32", 4, 4, LINEAR, (
        Sample(0, 10, RED, Q_FLOAT, (0, 0, 0, 0), 0, 0x3F800000),
        Sample(11, 10, GREEN, Q_FLOAT, (0, 0, 0, 0), 0, 0x3F800000),
        Sample(22, 9, BLUE, Q_FLOAT, (0, 0, 0, 0), 0, 0x3F800000)), "<u4"),
}


@dataclass
class Ktx2:
    fields: dict[str, int]
    levels: list[tuple[int, int, int]]
    dfd_block: dict[str, object]
    samples: list[Sample]
    key_values: list[tuple[str, bytes]]
    images: list[np.ndarray] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


_HEADER_FIELDS = ("vkFormat", "typeSize", "pixelWidth", "pixelHeight", "pixelDepth", "layerCount",
                  "faceCount", "levelCount", "supercompressionScheme", "dfdByteOffset",
                  "dfdByteLength", "kvdByteOffset", "kvdByteLength")


def _u32(data: bytes, at: int) -> int:
    return struct.unpack_from("<I", data, at)[0]


def parse(data: bytes) -> Ktx2:
    """Parse ``data`` field by field and list every rule it breaks in ``problems``."""
    problems: list[str] = []

    def rule(ok: bool, text: str) -> None:
        if not ok:
            problems.append(text)

    rule(data[:12] == IDENTIFIER, "identifier is not the KTX 2.0 identifier")
    f = {name: _u32(data, 12 + 4 * i) for i, name in enumerate(_HEADER_FIELDS)}
    f["sgdByteOffset"], f["sgdByteLength"] = struct.unpack_from("<QQ", data, 64)
    fmt = FORMATS.get(f["vkFormat"])
    rule(fmt is not None, f"vkFormat {f['vkFormat']} is not one mipview writes")
    if fmt is None:
        return Ktx2(f, [], {}, [], [], problems=problems)

    # --- header fields
    rule(f["typeSize"] == fmt.type_size, f"typeSize {f['typeSize']} != {fmt.type_size}")
    rule(f["pixelWidth"] > 0, "pixelWidth must not be 0")
    rule(f["pixelHeight"] > 0, "a 2D or 3D texture has pixelHeight > 0")
    # "For cubemaps and cubemap arrays this must be 6. For non cubemaps this must be 1."
    rule(f["faceCount"] in (1, 6), f"faceCount {f['faceCount']} is neither 1 nor 6 (cubemaps)")
    cube = f["faceCount"] == 6
    volume = f["pixelDepth"] > 0
    if cube:
        rule(f["pixelHeight"] == f["pixelWidth"],
             "faceCount 6: pixelHeight must be equal to pixelWidth")
        rule(not volume, "faceCount 6: pixelDepth must be 0")
    if volume:  # Texture Type: a 3D array is a valid KTX file, but no API has one
        rule(f["layerCount"] == 0, "mipview writes 3D textures, not 3D arrays: layerCount 0")
    rule(f["supercompressionScheme"] == 0, "mipview writes no supercompression")
    num_levels = max(1, f["levelCount"])
    most = math.floor(math.log2(max(f["pixelWidth"], f["pixelHeight"], f["pixelDepth"], 1))) + 1
    rule(num_levels <= most, f"levelCount {num_levels} > the maximum {most}")
    layers = max(1, f["layerCount"])
    images_per_level = layers * max(1, f["faceCount"])  # for each layer, for each face

    # --- index: DFD right after the level index, KVD right after the DFD, no SGD
    index_end = 80 + 24 * num_levels
    rule(f["dfdByteOffset"] == index_end + (-index_end % 4),
         f"dfdByteOffset {f['dfdByteOffset']} is not the 4-aligned end of the level index")
    rule(f["sgdByteOffset"] == 0 and f["sgdByteLength"] == 0,
         "sgdByteOffset/Length must be 0 without BasisLZ")
    levels = [struct.unpack_from("<QQQ", data, 80 + 24 * p) for p in range(num_levels)]

    # --- DFD
    dfd_at = f["dfdByteOffset"]
    total = _u32(data, dfd_at)
    rule(total == f["dfdByteLength"], "dfdByteLength != dfdTotalSize")
    if f["kvdByteLength"]:
        rule(total == f["kvdByteOffset"] - dfd_at,
             "dfdTotalSize != kvdByteOffset - dfdByteOffset (the file is invalid)")
    w0, w1, w2 = struct.unpack_from("<III", data, dfd_at + 4)
    block = {
        "vendorId": w0 & 0x1FFFF, "descriptorType": w0 >> 17,
        "versionNumber": w1 & 0xFFFF, "descriptorBlockSize": w1 >> 16,
        "colorModel": w2 & 0xFF, "colorPrimaries": (w2 >> 8) & 0xFF,
        "transferFunction": (w2 >> 16) & 0xFF, "flags": w2 >> 24,
        "texelBlockDimension": tuple(data[dfd_at + 16:dfd_at + 20]),
        "bytesPlane": tuple(data[dfd_at + 20:dfd_at + 28]),
    }
    size = int(block["descriptorBlockSize"])
    rule(size >= 24 and (size - 24) % 16 == 0, "descriptorBlockSize is not 24 + 16 * samples")
    rule(total == 4 + size, "dfdTotalSize != 4 + descriptorBlockSize (one block)")
    samples = []
    for s in range((size - 24) // 16):
        at = dfd_at + 4 + 24 + 16 * s
        word, = struct.unpack_from("<I", data, at)
        samples.append(Sample(word & 0xFFFF, (word >> 16) & 0xFF, (word >> 24) & 0xF,
                              word >> 28, tuple(data[at + 4:at + 8]),
                              *struct.unpack_from("<II", data, at + 8)))
    expected_block = {"vendorId": 0, "descriptorType": 0, "versionNumber": 2,
                      "colorModel": RGBSDA, "colorPrimaries": BT709,
                      "transferFunction": fmt.transfer, "flags": 0,
                      "texelBlockDimension": (0, 0, 0, 0),
                      "bytesPlane": (fmt.texel_bytes, 0, 0, 0, 0, 0, 0, 0)}
    for key, want in expected_block.items():
        rule(block[key] == want, f"DFD {key} {block[key]} != {want}")
    rule(tuple(samples) == fmt.samples, f"DFD samples {samples} != {list(fmt.samples)}")

    # --- key/value data
    kv: list[tuple[str, bytes]] = []
    if f["kvdByteLength"]:
        rule(f["kvdByteOffset"] == dfd_at + total + (-(dfd_at + total) % 4),
             "kvdByteOffset is not the 4-aligned end of the DFD")
        at, end, used = f["kvdByteOffset"], f["kvdByteOffset"] + f["kvdByteLength"], 0
        while at < end:
            n = _u32(data, at)
            rule(n >= 2, "keyAndValueByteLength < 2")
            entry = data[at + 4:at + 4 + n]
            key, nul, value = entry.partition(b"\0")
            rule(nul == b"\0", "a key without its NUL terminator")
            rule(not key.startswith(b"\xef\xbb\xbf"), "a key with a BOM")
            kv.append((key.decode("utf-8"), value))
            pad = data[at + 4 + n:at + 4 + n + (-n % 4)]
            rule(pad == b"\0" * len(pad), "valuePadding is not zero")
            used += 4 * math.ceil(n / 4) + 4
            at += 4 + n + (-n % 4)
        rule(used == f["kvdByteLength"], "sum of padded entries != kvdByteLength")
    else:
        rule(f["kvdByteOffset"] == 0, "kvdByteOffset must be 0 when kvdByteLength is 0")
    keys = [k for k, _ in kv]
    rule(keys == sorted(keys), f"key/value data not sorted by key: {keys}")
    rule(len(set(keys)) == len(keys), "a key appears more than once")
    for key in keys:
        rule(not key.lower().startswith("ktx") or key in ("KTXorientation", "KTXwriter"),
             f"reserved key {key!r} not defined by the spec (for mipview's files)")
    values = dict(kv)
    orientation = values.get("KTXorientation", b"rd\0")
    pattern = rb"[rl][du][oi]" if volume else rb"[rl][du]"
    rule(orientation.endswith(b"\0") and re.fullmatch(pattern, orientation[:-1]) is not None,
         f"KTXorientation {orientation!r} does not match /^{pattern.decode()}$/ with a NUL")
    if cube:
        rule(orientation == b"rd\0", "all cubemap faces must have the orientation 'rd'")
    writer = values.get("KTXwriter")
    rule(writer is not None and writer.endswith(b"\0"), "KTXwriter missing or not NUL-terminated")

    # --- level index and mip level array
    alignment = math.lcm(fmt.texel_bytes, 4)
    data_start = (f["kvdByteOffset"] + f["kvdByteLength"]) if f["kvdByteLength"] \
        else dfd_at + total
    position = data_start
    images = []
    for p in reversed(range(num_levels)):  # smallest level first in the file
        offset, length, uncompressed = levels[p]
        w = max(1, f["pixelWidth"] >> p)
        h = max(1, f["pixelHeight"] >> p)
        d = max(1, f["pixelDepth"] >> p)  # num_blocks_z: 1 for a 2D texture (pixelDepth 0)
        expect = images_per_level * d * w * h * fmt.texel_bytes
        rule(length == expect, f"levels[{p}].byteLength {length} != {expect}")
        rule(uncompressed == length, f"levels[{p}].uncompressedByteLength != byteLength")
        rule(uncompressed % images_per_level == 0,
             f"levels[{p}].uncompressedByteLength % (faceCount * layers) != 0")
        rule(offset % alignment == 0, f"levels[{p}].byteOffset {offset} not a multiple of "
                                      f"lcm(texel block size, 4) = {alignment}")
        want = position + (-position % alignment)
        rule(offset == want, f"levels[{p}].byteOffset {offset} != {want} (mipPadding)")
        padding = data[position:offset]
        rule(padding == b"\0" * len(padding), f"mipPadding before level {p} is not zero")
        rule(offset + length <= len(data), f"level {p} ends past the end of the file")
        if length == expect and offset + length <= len(data):
            images.append(np.frombuffer(data, fmt.dtype, expect // np.dtype(fmt.dtype).itemsize,
                                        offset).reshape(images_per_level * d, h, w,
                                                        fmt.texel_bytes
                                                        // np.dtype(fmt.dtype).itemsize))
        position = offset + length
    rule(position == len(data), f"the last level ends at {position}, the file at {len(data)}")
    return Ktx2(f, levels, block, samples, kv, images[::-1], problems)
