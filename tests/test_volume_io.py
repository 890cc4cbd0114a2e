"""Volumes (3D textures) in and out of files: (D, H, W, 4) levels, slice z = 0 first, level k
max(1, W >> k) x max(1, H >> k) x max(1, D >> k). KTX2 and DDS written and read back bit for
bit and checked by the spec readers of tests/, legacy DDS volumes, ``*.volume.npy``, malformed
volumes refused in one line, volumes kept out of everything that opens 2D images, and the
synthetic volume."""

from __future__ import annotations

import struct

import dds_spec_reader
import ktx2_spec_reader
import numpy as np
import pytest

from mipview.core.errors import MipviewError
from mipview.core.formats import Format, to_storage
from mipview.io import containers, imageio, synthetic
from mipview.io.containers import dds_header
from mipview.io.containers.texture import TextureFile
from mipview.io.imageio import ImageLoadError, SourceImage
from tests.bits import same_bits
from tests.legacy_dds import legacy_header
from tests.refusals import refused

FORMATS = [Format.UNORM, Format.SRGB, Format.F16, Format.F32, Format.R8, Format.R32F,
           Format.RGB10A2]
FORMAT_IDS = [f.label for f in FORMATS]
SIZES = [(5, 7, 9), (1, 1, 3), (4, 4, 1)]
SIZE_IDS = ["5x7x9", "1x1x3", "4x4x1"]


def _sizes(width: int, height: int, depth: int) -> list[tuple[int, int, int]]:
    """(w, h, d) of every level of a whole chain, written out here from the rule (each side
    halved, rounded down, at least 1, until all three are 1), not from mipview's helpers."""
    out = [(width, height, depth)]
    while out[-1] != (1, 1, 1):
        out.append(tuple(max(1, n // 2) for n in out[-1]))
    return out


def _volume_chain(fmt: Format, size: tuple[int, int, int], levels: int | None = None,
                  seed: int = 0) -> list[np.ndarray]:
    """Every level of a volume of ``fmt``'s storage values, (d, h, w, 4), from input past
    [0, 1], with NaN and infinities where the format holds them."""
    rng = np.random.default_rng(seed)
    out = []
    for w, h, d in _sizes(*size)[:levels]:
        pixels = rng.uniform(-0.5, 1.5, (d, h, w, 4))
        if fmt.is_float:
            pixels *= 1000.0
        pixels[-1, 0, 0, :3] = (np.nan, np.inf, -np.inf)
        out.append(np.ascontiguousarray(to_storage(pixels, fmt)))
    return out


def _own(level: np.ndarray, fmt: Format, shape: tuple[int, ...]) -> np.ndarray:
    """A level as the file stores it (the format's own channels), bytes of ``shape``."""
    return fmt.pack(level).reshape(shape).view(np.uint8)


# --- round trips ---------------------------------------------------------------------------------
def test_chain_sizes_follow_the_rule():
    assert _sizes(5, 7, 9) == [(5, 7, 9), (2, 3, 4), (1, 1, 2), (1, 1, 1)]
    assert _sizes(1, 1, 3) == [(1, 1, 3), (1, 1, 1)]
    assert _sizes(4, 4, 1) == [(4, 4, 1), (2, 2, 1), (1, 1, 1)]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("kind", ["ktx2", "dds"])
@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
def test_volumes_round_trip_bit_exactly(tmp_path, fmt, kind, size):
    levels = _volume_chain(fmt, size)
    files = containers.export(tmp_path, "fog", levels, fmt, [kind], volume=True)
    source = imageio.load(files[0], volumes=True)
    texture = source.texture
    assert texture is not None and texture.fmt is fmt
    assert texture.volume and source.volume and texture.faces == source.faces == 1
    width, height, depth = size
    assert (source.width, source.height, source.depth, source.layers) == (width, height, depth, 1)
    assert (texture.width, texture.height, texture.depth, texture.layers) == (width, height,
                                                                              depth, 1)
    assert len(texture.levels) == len(levels) == len(_sizes(*size))
    for mine, written in zip(texture.levels, levels, strict=True):
        assert same_bits(mine, written)
    assert same_bits(source.storage(fmt), levels[0])
    assert f", volume {width}x{height}x{depth}, {len(levels)} levels" in texture.description()
    assert texture.mismatch(fmt, source.storage(fmt)) == ""


@pytest.mark.parametrize("kind", ["ktx2", "dds"])
def test_a_partial_volume_chain_round_trips(tmp_path, kind):
    levels = _volume_chain(Format.F16, (5, 7, 9), levels=2)
    (path,) = containers.export(tmp_path, "two", levels, Format.F16, [kind], volume=True)
    texture = imageio.read_chain(path, volumes=True)
    assert texture.volume and len(texture.levels) == 2
    for mine, written in zip(texture.levels, levels, strict=True):
        assert same_bits(mine, written)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
def test_ktx2_volumes_meet_the_spec(fmt, size):
    levels = _volume_chain(fmt, size)
    data = containers.ktx2.encode(levels, fmt, volume=True)
    parsed = ktx2_spec_reader.parse(data)
    assert parsed.problems == []
    f = parsed.fields
    assert (f["pixelWidth"], f["pixelHeight"], f["pixelDepth"]) == size
    assert (f["layerCount"], f["faceCount"], f["levelCount"]) == (0, 1, len(levels))
    assert dict(parsed.key_values)["KTXorientation"] == b"rdi\0"
    for p, level in enumerate(levels):  # slice z = 0 first: the spec's z_slice order
        assert parsed.images[p].shape[0] == _sizes(*size)[p][2]
        assert same_bits(parsed.images[p].view(np.uint8), _own(level, fmt, parsed.images[p].shape))


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
def test_dds_volumes_meet_the_documentation(fmt, size):
    levels = _volume_chain(fmt, size)
    parsed = dds_spec_reader.parse(containers.dds.encode(levels, fmt, volume=True))
    assert parsed.problems == []
    assert parsed.dx10["resourceDimension"] == 4 and parsed.dx10["arraySize"] == 1
    assert parsed.header["dwDepth"] == size[2]
    assert parsed.header["dwCaps2"] == dds_spec_reader.CAPS2_VOLUME
    for p, level in enumerate(levels):  # each level all its slices, then the next level
        assert parsed.images[p].shape[0] == _sizes(*size)[p][2]
        assert same_bits(parsed.images[p].view(np.uint8), _own(level, fmt, parsed.images[p].shape))


def test_the_spec_readers_catch_broken_volumes():
    levels = _volume_chain(Format.UNORM, (5, 7, 9))
    ktx2 = containers.ktx2.encode(levels, Format.UNORM, volume=True)
    cases = {
        "does not match /^[rl][du][oi]$/": ktx2.replace(b"KTXorientation\0rdi\0",
                                                        b"KTXorientation\0rd\0\0"),
        "layerCount 0": ktx2[:32] + struct.pack("<I", 2) + ktx2[36:],
        "faceCount 6: pixelDepth must be 0": ktx2[:36] + struct.pack("<I", 6) + ktx2[40:],
        "levels[0].byteLength": ktx2[:28] + struct.pack("<I", 8) + ktx2[32:],  # depth 8
    }
    for expected, data in cases.items():
        problems = ktx2_spec_reader.parse(data).problems
        assert any(expected in p for p in problems), (expected, problems)
    dds = containers.dds.encode(levels, Format.UNORM, volume=True)
    for expected, data in {
        "arraySize must be 1 for a 3D texture": dds[:140] + struct.pack("<I", 2) + dds[144:],
        "DDSCAPS2_VOLUME": dds[:112] + struct.pack("<I", 0) + dds[116:],
        "the data ends at": dds[:24] + struct.pack("<I", 8) + dds[28:],  # dwDepth 8
    }.items():
        problems = dds_spec_reader.parse(data).problems
        assert any(expected in p for p in problems), (expected, problems)


def test_a_ktx2_volume_stored_upside_down_and_outwards_is_read_top_down_and_inwards(tmp_path):
    levels = _volume_chain(Format.UNORM, (5, 7, 9))
    data = containers.ktx2.encode(levels, Format.UNORM, volume=True).replace(
        b"KTXorientation\0rdi", b"KTXorientation\0ruo")
    (tmp_path / "up.ktx2").write_bytes(data)
    texture = imageio.read_chain(tmp_path / "up.ktx2", volumes=True)
    for mine, written in zip(texture.levels, levels, strict=True):
        assert same_bits(mine, np.ascontiguousarray(written[::-1, ::-1]))
    assert "KTXorientation 'ruo'" in texture.notes[0] and "slice 0 the nearest" in texture.notes[0]


# --- legacy DDS ----------------------------------------------------------------------------------
def _legacy_volume(levels: list[np.ndarray], flags: int, caps2: int,
                   fourcc: bytes | None = None) -> bytes:
    """A legacy DDS (no DX10 header) volume of RGBA8 texels (or half floats with FourCC 113),
    the documented layout: every slice of level 0, then every slice of level 1..."""
    first = levels[0]
    header = legacy_header(first, len(levels), caps2, depth=first.shape[0], flags=flags,
                           fourcc=fourcc)
    return header + b"".join(np.ascontiguousarray(level, level.dtype.newbyteorder("<")).tobytes()
                             for level in levels)


@pytest.mark.parametrize(("fmt", "fourcc"), [(Format.UNORM, None), (Format.F16, (113).to_bytes(
    4, "little"))], ids=["rgba8-masks", "fourcc-113"])
@pytest.mark.parametrize(("flags", "caps2"), [
    (dds_header.DDSD_DEPTH, dds_header.DDSCAPS2_VOLUME),  # as the documentation asks
    (0, dds_header.DDSCAPS2_VOLUME),  # the caps bit alone
    (dds_header.DDSD_DEPTH, 0),  # the flag alone, as DirectXTex reads it
], ids=["depth-and-volume", "volume-caps", "depth-flag"])
def test_a_legacy_dds_volume_is_read(tmp_path, fmt, fourcc, flags, caps2):
    levels = _volume_chain(fmt, (5, 7, 9))
    (tmp_path / "old.dds").write_bytes(_legacy_volume(levels, flags, caps2, fourcc))
    source = imageio.load(tmp_path / "old.dds", volumes=True)
    texture = source.texture
    assert texture is not None and texture.volume and source.volume
    assert texture.fmt is fmt and len(texture.levels) == len(levels)
    for mine, written in zip(texture.levels, levels, strict=True):
        assert same_bits(mine, written)
    assert ", volume 5x7x9, 4 levels" in texture.description()


def test_a_dds_volume_of_blocks_is_read_slice_by_slice(tmp_path):
    """BC1 in a 3D texture: each slice its own blocks (BC blocks are 4x4x1)."""
    blocks = bytes(np.random.default_rng(3).integers(0, 256, 16, dtype=np.uint8))
    (tmp_path / "bc.dds").write_bytes(
        dds_header.pack_dx10(4, 4, 1, 71, 1, 8, linear_size=True, depth=2) + blocks)
    texture = imageio.read_chain(tmp_path / "bc.dds", volumes=True)
    assert texture.volume and texture.levels[0].shape == (2, 4, 4, 4)
    assert texture.decoded_from == "BC1"
    for z in range(2):
        (tmp_path / f"slice{z}.dds").write_bytes(
            dds_header.pack_dx10(4, 4, 1, 71, 1, 8, linear_size=True) + blocks[8 * z:8 * z + 8])
        flat = imageio.read_chain(tmp_path / f"slice{z}.dds")
        assert same_bits(texture.levels[0][z], flat.levels[0])


# --- .volume.npy ---------------------------------------------------------------------------------
def test_volume_npy_files_are_read_as_volumes(tmp_path):
    rng = np.random.default_rng(5)
    density = rng.random((9, 7, 5)).astype(np.float32) * 100.0
    cases = {"fog.volume.npy": (density, Format.R32F),
             "Wind.Volume.NPY": (density[..., None].repeat(2, -1).astype(np.float16),
                                 Format.RG16F),
             "mask.volume.npy": ((density * 2).astype(np.uint8)[..., None], Format.R8),
             "rgba.volume.npy": (np.stack([density] * 4, -1), Format.F32)}
    for name, (array, fmt) in cases.items():
        np.save(tmp_path / "x.npy", array)
        (tmp_path / name).write_bytes((tmp_path / "x.npy").read_bytes())
        source = imageio.load(tmp_path / name, volumes=True)
        assert source.volume and source.texture.volume and source.texture.container == "NPY"
        assert (source.width, source.height, source.depth, source.layers) == (5, 7, 9, 1), name
        assert source.suggested_format() is fmt
        own = array if array.ndim == 4 else array[..., None]
        assert np.array_equal(fmt.pack(source.storage(fmt)), own.astype(fmt.dtype)), name
        assert "volume 5x7x9" in source.texture.description()
    # a plain .npy keeps its 2D reading: (9, 7, 5) is 5 channels of a 9x7 image
    np.save(tmp_path / "plain.npy", density)
    with pytest.raises(ImageLoadError, match="5 channel"):
        imageio.load(tmp_path / "plain.npy", volumes=True)
    np.save(tmp_path / "four.npy", np.stack([density] * 4, -1))
    with pytest.raises(ImageLoadError, match=r"\(9, 7, 5, 4\).*named \*\.volume\.npy"):
        imageio.load(tmp_path / "four.npy", volumes=True)
    np.save(tmp_path / "flat.npy", density[0])
    (tmp_path / "flat.volume.npy").write_bytes((tmp_path / "flat.npy").read_bytes())
    with pytest.raises(ImageLoadError, match=r"\(7, 5\) named \.volume\.npy: a volume is"):
        imageio.load(tmp_path / "flat.volume.npy", volumes=True)


# --- malformed volumes ---------------------------------------------------------------------------


def test_a_ktx2_array_of_volumes_is_refused(tmp_path):
    data = containers.ktx2.encode(_volume_chain(Format.UNORM, (5, 7, 9)), Format.UNORM,
                                  volume=True)
    refused("arr.ktx2", data[:32] + struct.pack("<I", 2) + data[36:],
             "an array of 2 3D textures (pixelDepth 9, layerCount 2)", "layerCount 0",
             tmp_path=tmp_path, volumes=True)


def test_a_ktx2_cube_with_depth_and_a_3d_depth_format_are_refused(tmp_path):
    data = containers.ktx2.encode(_volume_chain(Format.UNORM, (8, 8, 8)), Format.UNORM,
                                  volume=True)
    refused("cube.ktx2", data[:36] + struct.pack("<I", 6) + data[40:],
             "faceCount 6 with pixelDepth 8", tmp_path=tmp_path, volumes=True)
    r32 = containers.ktx2.encode(_volume_chain(Format.R32F, (8, 8, 8)), Format.R32F, volume=True)
    refused("d32.ktx2", r32[:12] + struct.pack("<I", 126) + r32[16:],
             "pixelDepth 8) of a depth format", tmp_path=tmp_path, volumes=True)


def test_a_ktx2_level_whose_size_does_not_match_its_depth_is_refused(tmp_path):
    levels = _volume_chain(Format.UNORM, (5, 7, 9))
    data = containers.ktx2.encode(levels, Format.UNORM, volume=True)
    # a header that says depth 8: level 1 would hold 4 slices of 2x3, but holds 4 (of 9 >> 1)
    # and level 0 holds 9 slices where 8 are claimed
    deeper = data[:28] + struct.pack("<I", 8) + data[32:]
    refused("deep.ktx2", deeper, "level 0 holds 1260 bytes, but 8 slices x 5x7 of "
             "VK_FORMAT_R8G8B8A8_UNORM is 1120", tmp_path=tmp_path, volumes=True)
    # a level index entry of one slice where level 1 has four
    at = 80 + 24 * 1 + 8  # levels[1].byteLength
    short = data[:at] + struct.pack("<Q", 2 * 3 * 4) + data[at + 8:]
    refused("short.ktx2", short, "level 1 holds 24 bytes, but 4 slices x 2x3", tmp_path=tmp_path, volumes=True)
    many = data[:40] + struct.pack("<I", 5) + data[44:]
    refused("many.ktx2", many, "claims 5 mip levels, but a 5x7x9 volume has at most 4",
             tmp_path=tmp_path, volumes=True)


def test_dds_volumes_that_cannot_be_are_refused(tmp_path):
    levels = _volume_chain(Format.F16, (5, 7, 9))
    data = containers.dds.encode(levels, Format.F16, volume=True)
    refused("arr.dds", data[:140] + struct.pack("<I", 2) + data[144:],
             "a 3D texture with arraySize 2", "arraySize 1", tmp_path=tmp_path, volumes=True)
    refused("cube.dds", data[:136] + struct.pack("<I", dds_header.MISC_TEXTURECUBE) + data[140:],
             "flagged as a cube map", tmp_path=tmp_path, volumes=True)
    refused("flat.dds", data[:24] + struct.pack("<I", 0) + data[28:], "depth 0",
             tmp_path=tmp_path, volumes=True)
    refused("deep.dds", data[:24] + struct.pack("<I", 12) + data[28:], "truncated DDS file",
             "a 5x7x12 volume", tmp_path=tmp_path, volumes=True)
    refused("cut.dds", data[:-1], "truncated DDS file", tmp_path=tmp_path, volumes=True)
    legacy = _legacy_volume(_volume_chain(Format.UNORM, (5, 7, 9)), dds_header.DDSD_DEPTH,
                            dds_header.DDSCAPS2_VOLUME | dds_header.DDSCAPS2_CUBEMAP
                            | dds_header.DDSCAPS2_CUBEMAP_ALLFACES)
    refused("both.dds", legacy, "a cube map too", tmp_path=tmp_path, volumes=True)


# --- kept out of what opens 2D images ------------------------------------------------------------
@pytest.mark.parametrize("kind", ["ktx2", "dds"])
def test_a_volume_is_refused_in_one_line_unless_asked_for(tmp_path, kind):
    levels = _volume_chain(Format.R8, (5, 7, 9))
    (path,) = containers.export(tmp_path, "fog", levels, Format.R8, [kind], volume=True)
    for opener in (imageio.load, imageio.read_chain):
        with pytest.raises(ImageLoadError) as info:
            opener(path)
        message = str(info.value)
        assert "\n" not in message and message.startswith(f"cannot open '{path}': ")
        assert "volume 5x7x9, 4 levels" in message and "volumes (3D textures) run with" in message
    np.save(tmp_path / "fog.volume.npy", np.zeros((3, 4, 4), np.float32))
    with pytest.raises(ImageLoadError, match="volume 4x4x3"):
        imageio.load(tmp_path / "fog.volume.npy")
    assert imageio.volume_refusal(imageio.load(path, volumes=True)).startswith(
        f"{kind.upper()} ")
    assert imageio.volume_refusal(synthetic.volume_image(3, 2, 4)).startswith("volume 3x2x4: ")
    assert imageio.volume_refusal(synthetic.image(4, 4)) == ""


def test_exporting_a_volume_as_exr_is_refused_before_anything_is_written(tmp_path):
    levels = _volume_chain(Format.F16, (5, 7, 9))
    with pytest.raises(ValueError, match="EXR holds no volumes: export KTX2 or DDS"):
        containers.export(tmp_path / "out", "fog", levels, Format.F16, ["ktx2", "exr"],
                          volume=True)
    assert not (tmp_path / "out").exists()


def test_writers_refuse_what_is_no_volume():
    with pytest.raises(ValueError, match=r"\(D, H, W, 4\)"):
        containers.ktx2.encode([np.zeros((4, 4, 4), np.uint8)], Format.UNORM, volume=True)
    with pytest.raises(ValueError, match="no cube faces"):
        containers.dds.encode([np.zeros((6, 4, 4, 4), np.uint8)], Format.UNORM, faces=6,
                              volume=True)
    levels = _volume_chain(Format.UNORM, (5, 7, 9))
    with pytest.raises(ValueError, match=r"level 2 is \(4, 3, 2, 4\), expected \(2, 1, 1, 4\)"):
        containers.dds.encode([levels[0], levels[1], levels[1]], Format.UNORM, volume=True)
    with pytest.raises(ValueError, match="at most 4"):
        containers.ktx2.encode(levels + [levels[-1]], Format.UNORM, volume=True)


def test_texture_files_and_source_images_hold_volumes_only_whole():
    slices = np.zeros((3, 4, 5, 4), np.uint8)
    texture = TextureFile("v.ktx2", "KTX2", "VK_FORMAT_R8G8B8A8_UNORM", Format.UNORM,
                          (slices, np.zeros((1, 2, 2, 4), np.uint8)), volume=True)
    source = SourceImage(slices, texture=texture)  # taken from the texture
    assert source.volume and (source.layers, source.depth) == (1, 3)
    assert (texture.layers, texture.depth, texture.width, texture.height) == (1, 3, 5, 4)
    assert not SourceImage(slices).volume and SourceImage(slices).layers == 3  # an array
    with pytest.raises(ValueError, match="level 1 of a volume"):
        TextureFile("v", "KTX2", "x", Format.UNORM, (slices, np.zeros((2, 2, 2, 4), np.uint8)),
                    volume=True)
    with pytest.raises(ValueError):
        TextureFile("v", "KTX2", "x", Format.UNORM, (np.zeros((6, 4, 4, 4), np.uint8),),
                    faces=6, volume=True)
    with pytest.raises(ValueError):
        SourceImage(np.zeros((4, 5, 4), np.uint8), volume=True)
    with pytest.raises(ValueError):
        SourceImage(np.zeros((6, 4, 4, 4), np.uint8), faces=6, volume=True)


# --- the synthetic volume ------------------------------------------------------------------------
def test_the_synthetic_volume_has_structure_along_every_axis():
    volume = synthetic.volume_image(24, 20, 16, seed=3)
    p = volume.pixels
    assert volume.volume and p.shape == (16, 20, 24, 4) and p.dtype == np.float32
    assert (volume.width, volume.height, volume.depth, volume.layers) == (24, 20, 16, 1)
    assert 0.0 <= p.min() and p.max() <= 1.0 and (p[..., 3] == 1).all()
    assert volume.suggested_format() is Format.UNORM
    steps = [float(np.abs(np.diff(p[..., :3], axis=axis)).mean()) for axis in (0, 1, 2)]
    assert min(steps) > 0.01 and max(steps) < 3 * min(steps), steps  # alike along z, y, x
    assert float(p[..., :3].std()) > 0.1  # not a flat cloud
    assert np.array_equal(synthetic.volume_image(24, 20, 16, seed=3).pixels, p)
    assert not np.array_equal(synthetic.volume_image(24, 20, 16, seed=4).pixels, p)
    for size in SIZES:
        tiny = synthetic.volume_image(*size)
        assert tiny.pixels.shape == (size[2], size[1], size[0], 4) and tiny.volume
        assert 0.0 <= tiny.pixels.min() and tiny.pixels.max() <= 1.0
    with pytest.raises(MipviewError, match="at least 1x1x1"):
        synthetic.volume_image(4, 4, 0)
