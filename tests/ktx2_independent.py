"""A KTX2 file read by a reader mipview did not write, pyktx2 (PyPI), and held field by field
to what mipview meant to write: the header, the level index, the Data Format Descriptor, the
key/value data, and every texel of every level.

pyktx2's header, level index, DFD block and key/value parsing, and its split of a level into
images, are its own; the expectations here come from the Vulkan format's name (its components,
numeric type and packing), the KTX 2.0 specification and the Khronos Data Format 1.3
specification, not from mipview's writer. Each level is decoded through the DFD samples pyktx2
read, so a sample at the wrong bits shows up as wrong texels too.

pyktx2 0.3.1 reads only the Basis Universal files it was written for. On a file that follows
the spec it fails in four places, repaired here while it parses (:func:`_repaired`) and
nowhere else:

- its ColorModel enum lacks KHR_DF_MODEL_RGBSDA (1), the model of every uncompressed format:
  every such file is refused with "1 is not a valid ColorModel";
- its ``get_stride`` knows the texel size of R16G16B16A16_SFLOAT alone (NotImplementedError
  for any other format);
- it sizes level i as ``pixelWidth // pow(2, i)``, which is 0 on the short side of a
  non-square chain's last levels, where the spec says max(1, ...): the level's images then
  fail its own size assertion;
- it pads a key/value entry by ``pos % 8``, not to the spec's multiple of 4, which reads a
  negative count where an entry ends 5 to 7 bytes past a multiple of 8.

It also reads the DFD from just after the level index without looking at dfdByteOffset, and
holds no check of alignment or level order: those are checked here. (The wheel also installs a
top-level ``tests/test_ktx2.py`` into site-packages; no test module here is named so.)
"""

from __future__ import annotations

import contextlib
import math
import re
import struct
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from unittest import mock

import numpy as np
from pyktx2 import parser

HEADER_BYTES, INDEX_ENTRY_BYTES = 80, 24
#: KHR_DF_CHANNEL_RGBSDA_* of R, G, B, A, and the index of each in mipview's RGBA texels
CHANNEL_IDS = {"R": 0, "G": 1, "B": 2, "A": 15}
RGBA_INDEX = {0: 0, 1: 1, 2: 2, 15: 3}
#: KHR_DF_SAMPLE_DATATYPE_* qualifiers (the high nibble of a sample's channelType)
LINEAR, SIGNED, FLOAT = 0x10, 0x40, 0x80
_ONE, _MINUS_ONE = (struct.unpack("<I", struct.pack("<f", v))[0] for v in (1.0, -1.0))


# --- what a Vulkan format's name says --------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    """One sample of a DFD basic block: the bits of a texel one channel occupies."""

    bit_offset: int
    bit_length: int
    channel: int  # KHR_DF_CHANNEL_RGBSDA_*
    qualifiers: int  # LINEAR | EXPONENT | SIGNED | FLOAT
    lower: int
    upper: int


def _parts(name: str) -> tuple[list[tuple[str, int]], str, int]:
    """("R16G16_SFLOAT" ->) the components in the name's order with their bits, the numeric
    type, and the packed word's bits (0: not packed)."""
    body, numeric, *pack = name.removeprefix("VK_FORMAT_").split("_")
    components = [(c, int(bits)) for c, bits in re.findall(r"([RGBA])(\d+)", body)]
    return components, numeric, int(pack[0].removeprefix("PACK")) if pack else 0


def texel_bytes(name: str) -> int:
    components, _, packed = _parts(name)
    return (packed or sum(bits for _, bits in components)) // 8


def type_size(name: str) -> int:
    """The KTX2 header's typeSize: the packed word's size, or one component's."""
    components, _, packed = _parts(name)
    return (packed or components[0][1]) // 8


def expected_samples(name: str) -> list[Sample]:
    """The samples a Vulkan format's DFD has (Khronos Data Format 1.3, section 5.6; KTX 2.0
    section 3.10.2): one per component, from bit 0 up. A packed format names its components
    from the word's most significant bits down, any other in the order of its bytes."""
    components, numeric, packed = _parts(name)
    if packed:
        components = components[::-1]
    samples, offset = [], 0
    for component, bits in components:
        channel = CHANNEL_IDS[component]
        qualifiers, lower, upper = 0, 0, (1 << bits) - 1
        if numeric == "SFLOAT":
            qualifiers, lower, upper = FLOAT | SIGNED, _MINUS_ONE, _ONE
        elif numeric == "UFLOAT":
            qualifiers, lower, upper = FLOAT, 0, _ONE
        elif numeric == "SRGB" and component == "A":
            qualifiers = LINEAR  # alpha is never sRGB-encoded
        samples.append(Sample(offset, bits, channel, qualifiers, lower, upper))
        offset += bits
    return samples


def samples_of(ktx: parser.Ktx2) -> list[Sample]:
    """The samples of the DFD basic block pyktx2 read (it hands each over as 16 raw bytes)."""
    out = []
    for raw in ktx.dfd[1]:
        offset, length, channel_type, *_position, lower, upper = struct.unpack("<HBB4BII", raw)
        out.append(Sample(offset, length + 1, channel_type & 0xF, channel_type & 0xF0, lower,
                          upper))
    return out


# --- pyktx2, repaired where it breaks on files that follow the spec --------------------------------
def _stride(vk_format: Enum) -> int:
    if not re.fullmatch(r"VK_FORMAT_([RGBA]\d+)+_(UNORM|SRGB|SFLOAT|UFLOAT)(_PACK\d+)?",
                        vk_format.name):
        raise NotImplementedError(vk_format.name)
    return texel_bytes(vk_format.name)


class _Halvings:
    """``n // _Halvings(i)`` is the spec's max(1, n >> i), where pyktx2 divides a size by
    ``pow(2, i)``."""

    def __init__(self, times: int) -> None:
        self.times = times

    def __rfloordiv__(self, size: int) -> int:
        return max(1, size >> self.times)


def _halvings(base: int, times: int) -> _Halvings:
    assert base == 2, "pyktx2 calls pow() only for a level's size"
    return _Halvings(times)


class _Reader(parser.BytesReader):
    def get_padding_size(self, alignment: int) -> int:
        return -self.pos % alignment


_COLOR_MODEL = Enum("ColorModel", {**{m.name: m.value for m in parser.ColorModel},
                                   "KHR_DF_MODEL_RGBSDA": 1})


@contextlib.contextmanager
def _repaired() -> Iterator[None]:
    with mock.patch.multiple(parser, ColorModel=_COLOR_MODEL, get_stride=_stride,
                             BytesReader=_Reader), \
            mock.patch.object(parser, "pow", _halvings, create=True):
        yield


def read(data: bytes) -> parser.Ktx2:
    with _repaired():
        return parser.parse_bytes(data)


# --- what mipview meant, and how the file differs ------------------------------------------------
@dataclass(frozen=True)
class Meant:
    """What a KTX2 file was written to hold: ``levels`` are mipview's texels, each
    (images, H, W, 4) in the format's storage type; ``layers`` is the header's layerCount (0:
    not an array)."""

    vk_name: str
    width: int
    height: int
    layers: int
    levels: tuple[np.ndarray, ...]
    key_values: tuple[tuple[str, bytes], ...]


def problems(data: bytes, meant: Meant) -> list[str]:
    """Every way the file differs from ``meant`` as pyktx2 reads it; [] when none."""
    try:
        ktx = read(data)
    except Exception as error:  # any refusal is the finding
        where = traceback.extract_tb(error.__traceback__)[-1]
        said = f": {error}" if str(error) else ""
        line = (where.line or "").rstrip(" \\")  # the first line of a statement that goes on
        return [f"pyktx2 refuses the file: {type(error).__name__}{said} in {where.name}, at "
                f"`{line}`"]
    out = _header_problems(ktx, meant) + _dfd_problems(ktx, meant)
    kv = list(ktx.kv.items())
    if kv != list(meant.key_values):
        out.append(f"key/value data {kv}, meant {list(meant.key_values)}")
    return out + _level_problems(data, ktx, meant)


def _header_problems(ktx: parser.Ktx2, meant: Meant) -> list[str]:
    fields = {
        "vkFormat": (ktx.vkFormat.name, meant.vk_name),
        "typeSize": (ktx.typeSize, type_size(meant.vk_name)),
        "pixelWidth": (ktx.pixelWidth, meant.width),
        "pixelHeight": (ktx.pixelHeight, meant.height),
        "pixelDepth": (ktx.pixelDepth, 0),
        "layerCount": (ktx.layerCount, meant.layers),
        "faceCount": (ktx.faceCount, 1),
        "levelCount": (ktx.levelCount, len(meant.levels)),
        "supercompressionScheme": (ktx.supercompressionScheme.name, "NONE"),
        # the DFD follows the level index, where pyktx2 reads it whatever the header says
        "dfdByteOffset": (ktx.dfdByteOffset, HEADER_BYTES + INDEX_ENTRY_BYTES * ktx.levelCount),
        "sgdByteLength": (ktx.sgdByteLength, 0),
    }
    return [f"{name} {got}, meant {want}" for name, (got, want) in fields.items() if got != want]


def _dfd_problems(ktx: parser.Ktx2, meant: Meant) -> list[str]:
    block, raw_samples = ktx.dfd
    transfer = "SRGB" if meant.vk_name.endswith("_SRGB") else "LINEAR"
    fields = {
        "colorModel": (block.colorModel.name, "KHR_DF_MODEL_RGBSDA"),
        "colorPrimaries": (block.colorPrimaries.name, "KHR_DF_PRIMARIES_BT709"),
        "transferFunction": (block.transferFunction.name, f"KHR_DF_TRANSFER_{transfer}"),
        "flags": (block.flags, 0),  # KHR_DF_FLAG_ALPHA_STRAIGHT
        "texelBlockDimension": (block[4:8], (0, 0, 0, 0)),  # 1x1x1x1
        "bytesPlane": (block[8:], (texel_bytes(meant.vk_name), 0, 0, 0, 0, 0, 0, 0)),
    }
    out = [f"DFD {name} {got}, meant {want} for {meant.vk_name}"
           for name, (got, want) in fields.items() if got != want]
    samples = samples_of(ktx)
    if samples != expected_samples(meant.vk_name):
        out.append(f"DFD samples {samples}, meant {expected_samples(meant.vk_name)}")
    return out


def _level_problems(data: bytes, ktx: parser.Ktx2, meant: Meant) -> list[str]:
    texel = texel_bytes(meant.vk_name)
    alignment = math.lcm(texel, 4)
    images = max(1, ktx.layerCount) * ktx.faceCount
    out = []
    end = ktx.kvdByteOffset + ktx.kvdByteLength  # where the last section before the levels ends
    for p in reversed(range(ktx.levelCount)):  # in the file's order, the smallest level first
        entry = ktx.levelIndices[p]
        if entry.byteOffset % alignment:
            out.append(f"level {p} starts at byte {entry.byteOffset}, not a multiple of "
                       f"{alignment}")
        elif entry.byteOffset != end + -end % alignment:
            out.append(f"level {p} starts at byte {entry.byteOffset}, not at the first multiple "
                       f"of {alignment} after byte {end} (mipPadding)")
        elif any(data[end:entry.byteOffset]):
            out.append(f"the mipPadding before level {p} is not zero")
        if entry.uncompressedByteLength != entry.byteLength:
            out.append(f"level {p}: uncompressedByteLength {entry.uncompressedByteLength} != "
                       f"byteLength {entry.byteLength} with no supercompression")
        end = entry.byteOffset + entry.byteLength
        if p < len(meant.levels):
            own = ktx.levelImages[p * images:(p + 1) * images]
            out += _texel_problems(p, own, meant.levels[p], texel, samples_of(ktx))
    if end != len(data):
        out.append(f"the file goes on for {len(data) - end} bytes after its last level")
    return out


def _texel_problems(p: int, images: list[parser.Image], level: np.ndarray, texel: int,
                    samples: list[Sample]) -> list[str]:
    """Level ``p``'s images, decoded through the file's own DFD samples as a reader that trusts
    them would, against mipview's texels."""
    height, width = level.shape[1:3]
    if [(i.width, i.height) for i in images] != [(width, height)] * len(level):
        return [f"level {p}: images {[(i.width, i.height) for i in images]}, meant "
                f"{len(level)} of {width}x{height}"]
    stored = np.frombuffer(b"".join(i.data for i in images), np.uint8).reshape(
        len(level), height, width, texel)
    out = []
    for sample in samples:
        if sample.bit_offset + sample.bit_length > 8 * texel or sample.bit_length > 32 \
                or sample.channel not in RGBA_INDEX:
            out.append(f"level {p}: no texels decoded through {sample}")
            continue
        got = _decoded(stored, sample)
        want = _meant(level[..., RGBA_INDEX[sample.channel]], sample)
        wrong = np.argwhere(~((got == want) | (np.isnan(got) & np.isnan(want)))
                            if got.dtype.kind == "f" else got != want)
        if len(wrong):
            i, y, x = wrong[0]
            out.append(f"level {p}: {len(wrong)} texels differ in channel {sample.channel}, the "
                       f"first in image {i} at (x={x}, y={y}): the file holds {got[i, y, x]}, "
                       f"mipview's level {want[i, y, x]}")
    return out


def _decoded(texels: np.ndarray, sample: Sample) -> np.ndarray:
    """A sample's values in every texel: its raw bits, or an unsigned 10- or 11-bit float's
    value (5 exponent bits, the rest mantissa: Vulkan's "Unsigned 11-Bit Floating-Point
    Numbers")."""
    first, last = sample.bit_offset // 8, (sample.bit_offset + sample.bit_length - 1) // 8
    span = np.zeros((*texels.shape[:-1], 8), np.uint8)
    span[..., :last + 1 - first] = texels[..., first:last + 1]
    bits = (span.view("<u8")[..., 0] >> np.uint64(sample.bit_offset % 8)) \
        & np.uint64((1 << sample.bit_length) - 1)
    if not sample.qualifiers & FLOAT or sample.bit_length in (16, 32):
        return bits
    mantissa_bits = sample.bit_length - 5
    exponent = (bits >> np.uint64(mantissa_bits)).astype(np.int64)
    fraction = (bits & np.uint64((1 << mantissa_bits) - 1)) / float(1 << mantissa_bits)
    with np.errstate(over="ignore"):
        value = np.where(exponent == 0, fraction * 2.0 ** -14,
                         (1 + fraction) * np.exp2(exponent - 15.0))
    return np.where(exponent == 31, np.where(fraction == 0, np.inf, np.nan), value)


def _meant(channel: np.ndarray, sample: Sample) -> np.ndarray:
    """mipview's values of a channel in :func:`_decoded`'s terms: codes, a float's bits, or
    an unsigned small float's value."""
    if not sample.qualifiers & FLOAT:
        return channel.astype(np.uint64)
    if sample.bit_length in (16, 32):
        return channel.view(f"<u{sample.bit_length // 8}").astype(np.uint64)
    return channel.astype(np.float64)
