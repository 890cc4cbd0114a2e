"""KTX2, DDS and EXR chains written from real mipview output (per-level on lavapipe, a 37x23
image with 2 layers) and read back: bit for bit, every field checked by readers written from
the specs (tests/ktx2_spec_reader.py, tests/dds_spec_reader.py), every KTX2 file read again by a
reader mipview did not write (pyktx2: tests/ktx2_independent.py), and a chain altered at level 3
in the file judged out of tolerance at level 3 and nowhere else."""

from __future__ import annotations

import io
import shutil
import struct
import subprocess

import dds_spec_reader
import ktx2_independent
import ktx2_spec_reader
import numpy as np
import pytest
from PIL import Image

from mipview import __version__
from mipview.check.reference import stored_chain
from mipview.check.verdict import judge
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu.session import Session
from mipview.io import containers, imageio, synthetic
from mipview.io.layers import make_layers
from tests.bits import same_bits
from tests.gpu_formats import GPU_FORMATS

WIDTH, HEIGHT, LAYERS = 37, 23, 2


@pytest.fixture(scope="module")
def chains(gpu_session) -> dict[Format, tuple[np.ndarray, ...]]:
    """Format -> the levels per-level made on the GPU, each (2, H, W, 4); for the formats GPU
    sweeps leave out (tests/gpu_formats.py) the correctly rounded stored chain the reference
    makes, which per-level keeps exactly (test_promises.py)."""
    gpu_session.take_messages()
    source = synthetic.image(WIDTH, HEIGHT)
    out = {}
    for fmt in Format:
        level0 = make_layers(source.storage(fmt), LAYERS)
        if fmt not in GPU_FORMATS:
            out[fmt] = tuple(np.ascontiguousarray(lv.astype(fmt.dtype))
                             for lv in stored_chain(level0, fmt))
            continue
        with Session(gpu_session, level0, fmt, [StrategySpec("per-level")]) as session:
            session.generate()
            out[fmt] = session.result().results[0].levels
    messages = gpu_session.take_messages()
    assert not messages, "\n".join(messages)
    return out


def _levels(chains, fmt: Format, layered: bool) -> tuple[np.ndarray, ...]:
    return chains[fmt] if layered else tuple(a[0] for a in chains[fmt])



def _first_file(files, kind: str):
    return next(f for f in files if f.name.endswith(".level00.exr" if kind == "exr" else kind))


LAYERED = pytest.mark.parametrize("layered", [False, True], ids=["2d", "array"])
#: a depth source's chain is written in its levels' format (d32: r32f, d16: r16), which is
#: here; reading depth files is tests/test_depth_source.py's
FILE_FORMATS = [f for f in Format if not f.depth_source]
EVERY_FORMAT = pytest.mark.parametrize("fmt", FILE_FORMATS, ids=[f.label for f in FILE_FORMATS])
CASES = [(fmt, kind) for fmt in FILE_FORMATS for kind in ("ktx2", "dds", "exr")]


@LAYERED
@pytest.mark.parametrize(("fmt", "kind"), CASES, ids=[f"{f.label}-{k}" for f, k in CASES])
def test_round_trip_is_bit_exact(chains, tmp_path, fmt, kind, layered):
    levels = _levels(chains, fmt, layered)
    files = containers.export(tmp_path, "chain", levels, fmt, [kind])
    source = imageio.load(_first_file(files, kind))
    texture = source.texture
    assert texture is not None and texture.fmt is fmt
    assert len(texture.levels) == len(levels) == 6
    for mine, theirs in zip(texture.levels, levels, strict=True):
        assert same_bits(mine, np.asarray(theirs))
    assert source.suggested_format() is fmt
    assert same_bits(source.storage(fmt), np.asarray(levels[0]))
    assert source.layers == (LAYERS if layered else 1)
    # the run of a mipview pyramid of this very level 0 can check the file's chain
    assert texture.mismatch(fmt, source.storage(fmt)) == ""
    assert judge(texture.as_result().levels, source.storage(fmt), fmt).within_tolerance


def _parsed_by_spec(reader, encode, chains, fmt: Format, layered: bool):
    """The file ``encode`` makes of a chain, parsed by a spec reader: it breaks no rule, and
    every level holds what was written."""
    levels = _levels(chains, fmt, layered)
    parsed = reader.parse(encode(levels, fmt))
    assert parsed.problems == []
    for p, level in enumerate(levels):  # the file holds the format's own channels
        own = fmt.pack(level)
        assert np.array_equal(parsed.images[p].view(np.uint8),
                              own.reshape(parsed.images[p].shape).view(np.uint8))
    return levels, parsed


@LAYERED
@EVERY_FORMAT
def test_ktx2_meets_the_spec_field_by_field(chains, fmt, layered):
    levels, parsed = _parsed_by_spec(ktx2_spec_reader, containers.ktx2.encode, chains, fmt,
                                     layered)
    assert parsed.fields["vkFormat"] == fmt.info.vk_format
    assert (parsed.fields["pixelWidth"], parsed.fields["pixelHeight"]) == (WIDTH, HEIGHT)
    assert parsed.fields["layerCount"] == (LAYERS if layered else 0)
    assert parsed.fields["levelCount"] == len(levels)
    assert parsed.key_values == [("KTXorientation", b"rd\0"), ("KTXwriter", b"mipview 0.1.0\0")]


def _corrupt(data: bytes, at: int, value: bytes) -> bytes:
    return data[:at] + value + data[at + len(value):]


def _written_ktx2(chains, tmp_path, fmt: Format, layered: bool):
    (path,) = containers.export(tmp_path, "chain", _levels(chains, fmt, layered), fmt, ["ktx2"])
    return path


@LAYERED
@EVERY_FORMAT
def test_ktx_validate_finds_nothing_to_say(chains, tmp_path, fmt, layered):
    """KTX-Software's own validator, where it is installed (no Debian package has it); the
    test below reads the same files with pyktx2 everywhere."""
    ktx = shutil.which("ktx")
    if ktx is None:
        pytest.skip("KTX-Software's `ktx` tool is not installed")
    path = _written_ktx2(chains, tmp_path, fmt, layered)
    done = subprocess.run([ktx, "validate", "--warnings-as-errors", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


#: the Vulkan format each format's file is meant to be, by name: what the DFD, typeSize and the
#: texels' layout are derived from (tests/ktx2_independent.py)
VK_NAMES = {Format.UNORM: "R8G8B8A8_UNORM", Format.SRGB: "R8G8B8A8_SRGB",
            Format.F16: "R16G16B16A16_SFLOAT", Format.F32: "R32G32B32A32_SFLOAT",
            Format.R8: "R8_UNORM", Format.RG8: "R8G8_UNORM", Format.R16F: "R16_SFLOAT",
            Format.RG16F: "R16G16_SFLOAT", Format.R32F: "R32_SFLOAT",
            Format.RG32F: "R32G32_SFLOAT", Format.RGBA16: "R16G16B16A16_UNORM",
            Format.R16: "R16_UNORM", Format.RGB10A2: "A2B10G10R10_UNORM_PACK32",
            Format.B10G11R11: "B10G11R11_UFLOAT_PACK32"}


def _meant(chains, fmt: Format, layered: bool) -> ktx2_independent.Meant:
    levels = _levels(chains, fmt, layered)
    return ktx2_independent.Meant(
        f"VK_FORMAT_{VK_NAMES[fmt]}", WIDTH, HEIGHT, LAYERS if layered else 0,
        tuple(np.asarray(lv) if layered else np.asarray(lv)[None] for lv in levels),
        (("KTXorientation", b"rd\0"), ("KTXwriter", f"mipview {__version__}\0".encode())))


@LAYERED
@EVERY_FORMAT
def test_an_independent_reader_finds_what_mipview_meant(chains, tmp_path, fmt, layered):
    data = _written_ktx2(chains, tmp_path, fmt, layered).read_bytes()
    assert ktx2_independent.problems(data, _meant(chains, fmt, layered)) == []


def _shifted(data: bytes, by: int) -> bytes:
    """The file with ``by`` zero bytes more before its level data, the level index moved with
    it: every level still where its index says, each ``by`` bytes further on."""
    ktx = ktx2_independent.read(data)
    first = min(entry.byteOffset for entry in ktx.levelIndices)
    index = b"".join(struct.pack("<3Q", entry.byteOffset + by, *entry[1:])
                     for entry in ktx.levelIndices)
    at = ktx2_independent.HEADER_BYTES
    return data[:at] + index + data[at + len(index):first] + bytes(by) + data[first:]


def test_the_independent_check_catches_what_mipview_did_not_mean(chains):
    f32 = containers.ktx2.encode(chains[Format.F32], Format.F32)  # levels aligned to 16 bytes
    unorm = containers.ktx2.encode(chains[Format.UNORM], Format.UNORM)
    ktx = ktx2_independent.read(f32)
    dfd, level3 = ktx.dfdByteOffset, ktx.levelIndices[3].byteOffset
    image = (WIDTH >> 3) * (HEIGHT >> 3) * 16  # the bytes of one layer of level 3
    texel = level3 + image + 16 * ((WIDTH >> 3) + 2)  # layer 1's texel (x=2, y=1) there
    end_of_kvd = ktx.kvdByteOffset + ktx.kvdByteLength
    cases = [
        (Format.F32, f32, "DFD transferFunction KHR_DF_TRANSFER_SRGB, meant "
                          "KHR_DF_TRANSFER_LINEAR", _corrupt(f32, dfd + 4 + 8 + 2, b"\x02")),
        (Format.F32, f32, "DFD samples", _corrupt(f32, dfd + 4 + 24 + 16, b"\0\0")),  # G at bit 0
        (Format.UNORM, unorm, "vkFormat VK_FORMAT_R8G8B8A8_SRGB, meant VK_FORMAT_R8G8B8A8_UNORM",
         _corrupt(unorm, 12, struct.pack("<I", 43))),
        (Format.F32, f32, "key/value data", f32.replace(b"mipview ", b"mipviev ")),
        # one bit of its G (channel 1), found there and nowhere else
        (Format.F32, f32, "level 3: 1 texels differ in channel 1, the first in image 1 at "
                          "(x=2, y=1)", _corrupt(f32, texel + 4, bytes([f32[texel + 4] ^ 1]))),
        (Format.F32, f32, "not a multiple of 16", _shifted(f32, 4)),
        (Format.F32, f32, f"not at the first multiple of 16 after byte {end_of_kvd}",
         _shifted(f32, 16)),
        # level 0's index entry points at the end of the file
        (Format.F32, f32, "pyktx2 refuses the file: AssertionError",
         _corrupt(f32, 80, struct.pack("<Q", len(f32)))),
    ]
    for fmt, good, expected, data in cases:
        meant = _meant(chains, fmt, True)
        assert ktx2_independent.problems(good, meant) == []
        found = ktx2_independent.problems(data, meant)
        assert any(expected in p for p in found), (expected, found)


def test_the_ktx2_spec_reader_catches_what_breaks_the_spec(chains):
    levels = chains[Format.F32]
    good = containers.ktx2.encode(levels, Format.F32)
    parsed = ktx2_spec_reader.parse(good)
    assert parsed.problems == []
    dfd = parsed.fields["dfdByteOffset"]
    first = parsed.levels[-1][0]  # the smallest level comes first in the file
    # 16 more bytes of "mipPadding" before the level data, one of them not zero
    index = b"".join((o + 16).to_bytes(8, "little") + length.to_bytes(8, "little") * 2
                     for o, length, _ in parsed.levels)
    padded = good[:80] + index + good[80 + len(index):first] + b"\x01" + bytes(15) + good[first:]
    cases = {
        "transferFunction": _corrupt(good, dfd + 4 + 8 + 2, b"\x02"),  # sRGB on an SFLOAT format
        "DFD samples": _corrupt(good, dfd + 4 + 24 + 12, b"\0\0\0\0"),  # sampleUpper of red
        "typeSize": _corrupt(good, 16, b"\x01\0\0\0"),
        "not a multiple of": _corrupt(good, 80, (parsed.levels[0][0] + 4).to_bytes(8, "little")),
        "mipPadding before level 5 is not zero": padded,
        f"!= {first} (mipPadding)": padded,
        "not sorted": good.replace(b"KTXorientation", b"zTXorientation"),
        "KTXorientation": good.replace(b"KTXorientation\0rd", b"KTXorientation\0xd"),
    }
    for expected, data in cases.items():
        problems = ktx2_spec_reader.parse(data).problems
        assert any(expected in p for p in problems), (expected, problems)


@LAYERED
@EVERY_FORMAT
def test_dds_meets_the_documentation_field_by_field(chains, fmt, layered):
    levels, parsed = _parsed_by_spec(dds_spec_reader, containers.dds.encode, chains, fmt, layered)
    assert parsed.dx10["dxgiFormat"] == {Format.UNORM: 28, Format.SRGB: 29, Format.F16: 10,
                                         Format.F32: 2, Format.R8: 61, Format.RG8: 49,
                                         Format.R16F: 54, Format.RG16F: 34, Format.R32F: 41,
                                         Format.RG32F: 16, Format.RGBA16: 11,
                                         Format.R16: 56, Format.RGB10A2: 24,
                                         Format.B10G11R11: 26}[fmt]
    assert parsed.dx10["arraySize"] == (LAYERS if layered else 1)
    assert parsed.header["dwMipMapCount"] == len(levels)


def test_the_dds_spec_reader_catches_what_breaks_the_documentation(chains):
    good = containers.dds.encode(chains[Format.UNORM], Format.UNORM)
    assert dds_spec_reader.parse(good).problems == []
    cases = {
        "dwSize": _corrupt(good, 4, b"\x7c\x01\0\0"),
        "DDSD_MIPMAPCOUNT": _corrupt(good, 8, (0x1 | 0x2 | 0x4 | 0x8 | 0x1000).to_bytes(4,
                                                                                     "little")),
        "pitch": _corrupt(good, 20, (WIDTH * 3).to_bytes(4, "little")),
        "resourceDimension": _corrupt(good, 132, b"\x02\0\0\0"),  # a 1D texture
        # a 2D file that says it is 3D: no depth, no DDSCAPS2_VOLUME (volumes: test_volume_io)
        "DDSD_DEPTH is required": _corrupt(good, 132, b"\x04\0\0\0"),
        "the data ends": good + b"\0",
    }
    for expected, data in cases.items():
        problems = dds_spec_reader.parse(data).problems
        assert any(expected in p for p in problems), (expected, problems)


@pytest.mark.parametrize("fmt", [Format.UNORM, Format.SRGB], ids=["unorm", "srgb"])
def test_pillow_opens_the_top_level_of_an_8bit_dds(chains, tmp_path, fmt):
    (path,) = containers.export(tmp_path, "chain", chains[fmt], fmt, ["dds"])
    with Image.open(path) as im:
        assert (im.format, im.mode, im.size) == ("DDS", "RGBA", (WIDTH, HEIGHT))
        assert np.array_equal(np.asarray(im), chains[fmt][0][0])


@pytest.mark.parametrize("fmt", [Format.F16, Format.F32], ids=["f16", "f32"])
def test_pillow_reads_the_dxgi_format_of_a_float_dds_and_declines_it(chains, fmt):
    # Pillow's DDS plugin decodes no float DXGI format; what it can do is read our DX10 header
    data = containers.dds.encode(chains[fmt], fmt)
    with pytest.raises(NotImplementedError, match=f"DXGI format {10 if fmt is Format.F16 else 2}"):
        Image.open(io.BytesIO(data))


# --- a chain altered in the file ------------------------------------------------------------------
def _swap_texels(data: bytearray, at: int, texel_bytes: int, eight_bit: bool) -> None:
    """Swap texels (0, 0) and (0, 1) of the image at ``at``: a 2x2 box over them keeps its sum,
    so the level above stays the exact reduction of the altered level. Two equal 8-bit texels
    (a flat r8 level) are moved 3 LSB apart instead, which keeps the sum too."""
    a, b = at, at + texel_bytes
    if data[a:b] == data[b:b + texel_bytes] and eight_bit:
        step = 3 if data[a] <= 252 else -3
        data[a], data[b] = data[a] + step, data[b] - step
        return
    data[a:b], data[b:b + texel_bytes] = data[b:b + texel_bytes], data[a:b]


def _swap_floats(values: np.ndarray, fmt: Format) -> None:
    """:func:`_swap_texels` of an EXR channel's floats: two equal ones of an 8-bit UNORM
    format (its decoded codes) are moved 3 codes apart, onto the format's grid."""
    if fmt.dtype != np.uint8 or not np.array_equal(values[0, 0], values[0, 1]):
        values[0, [0, 1]] = values[0, [1, 0]]
        return
    code = int(np.rint(values[0, 0] * fmt.one))  # a flat r8 level: one channel, linear
    step = 3 if code <= 252 else -3
    values[0, 0], values[0, 1] = ((code + step) / fmt.one, (code - step) / fmt.one)


def _alter_level3(path, kind: str, fmt: Format) -> None:
    if kind == "exr":
        import OpenEXR

        level3 = path.with_name(path.name.replace("level00", "level03"))
        file = OpenEXR.File(str(level3))
        parts = []
        for i, part in enumerate(file.parts):
            channels = {}
            for name, channel in part.channels.items():  # RGBA, or the format's own R [G]
                values = np.array(channel.pixels)
                if i == 0:
                    _swap_floats(values, fmt)
                channels[name] = values
            parts.append(OpenEXR.Part({"compression": OpenEXR.ZIP_COMPRESSION,
                                       "type": OpenEXR.scanlineimage}, channels,
                                      f"layer{i:02d}"))
        OpenEXR.File(parts).write(str(level3))
        return
    data = bytearray(path.read_bytes())
    if kind == "ktx2":
        at = ktx2_spec_reader.parse(bytes(data)).levels[3][0]
    else:
        at = dds_spec_reader.parse(bytes(data)).offsets[0][3]
    _swap_texels(data, at, fmt.bytes_per_texel, fmt.dtype == np.uint8)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(("fmt", "kind"), CASES, ids=[f"{f.label}-{k}" for f, k in CASES])
def test_a_chain_altered_at_level_3_is_out_of_tolerance_exactly_at_level_3(chains, tmp_path,
                                                                           fmt, kind):
    files = containers.export(tmp_path, "chain", chains[fmt], fmt, [kind])
    path = _first_file(files, kind)
    before = imageio.read_chain(path)
    assert judge(before.levels, before.levels[0], fmt).within_tolerance
    _alter_level3(path, kind, fmt)
    after = imageio.read_chain(path)
    assert not same_bits(after.levels[3], before.levels[3])
    verdict = judge(after.as_result().levels, after.levels[0], fmt)
    assert not verdict.within_tolerance
    assert verdict.failing_levels == (3,)


# --- the file's chain as a result ---------------------------------------------------------------
def test_the_file_chain_is_a_result_named_after_the_file(chains, tmp_path):
    (path,) = containers.export(tmp_path, "photo", chains[Format.SRGB], Format.SRGB, ["ktx2"])
    texture = imageio.read_chain(path)
    result = texture.as_result()
    assert str(result.spec) == "file:name=photo.ktx2"
    assert result.promise == "file" and result.reduction == "mean"
    assert texture.description() == "KTX2 VK_FORMAT_R8G8B8A8_SRGB, 2 layers, 6 levels"
    level0 = texture.levels[0]
    # 8-bit bytes check as UNORM too (a legacy DDS does not say which), noted in the result
    assert texture.mismatch(Format.UNORM, level0) == ""
    assert "checked as unorm" in texture.as_result(Format.UNORM).notes[-1]
    assert "f16" in texture.mismatch(Format.F16, level0.astype(np.float16))
    assert "level 0" in texture.mismatch(Format.SRGB, make_layers(level0[0], 3))
    one = imageio.read_chain(containers.export(tmp_path, "one", chains[Format.SRGB][:1],
                                                  Format.SRGB, ["ktx2"])[0])
    assert one.mismatch(Format.SRGB, one.levels[0]) == "the file holds one level, no chain"


def test_export_writes_every_kind_atomically_for_every_format(chains, tmp_path):
    files = containers.export(tmp_path, "p", chains[Format.F16], Format.F16,
                              containers.parse_kinds("all"))
    assert [f.name for f in files] == ["p.ktx2", "p.dds"] + [f"p.level{i:02d}.exr"
                                                             for i in range(6)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f.name for f in files)


def test_parse_kinds():
    assert containers.parse_kinds("dds, KTX2") == ("ktx2", "dds")
    assert containers.parse_kinds("all") == ("ktx2", "dds", "exr")
    for bad in ("png", "ktx2,webp", ""):
        with pytest.raises(ValueError, match="choose from ktx2, dds, exr"):
            containers.parse_kinds(bad)
