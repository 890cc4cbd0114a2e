"""Cube maps in and out of files (mipview.core.cube: 6 n layers, +X -X +Y -Y +Z -Z): KTX2, DDS
and EXR written and read back bit for bit and checked by the spec readers of tests/, legacy DDS
cubes, malformed cubes refused in one line, six face images, and the synthetic cube's seams."""

from __future__ import annotations

import struct

import dds_spec_reader
import ktx2_spec_reader
import numpy as np
import pytest
from PIL import Image

from mipview.core.cube import face_directions
from mipview.core.errors import MipviewError
from mipview.core.formats import Format, level_size, mip_count, to_storage
from mipview.io import containers, cube_faces, imageio, synthetic
from mipview.io.containers import dds_header
from mipview.io.containers.texture import ContainerError, TextureFile
from mipview.io.imageio import SourceImage
from tests.bits import same_bits
from tests.legacy_dds import legacy_header
from tests.refusals import refused

SIDE = 12
FORMATS = [Format.UNORM, Format.SRGB, Format.F16, Format.F32, Format.R32F, Format.RG8,
           Format.RGB10A2]
FORMAT_IDS = [f.label for f in FORMATS]


def _cube_chain(fmt: Format, cubes: int, side: int = SIDE, seed: int = 0) -> list[np.ndarray]:
    """Every level of a cube (array) of ``fmt``'s storage values, (6 cubes, h, w, 4), from
    input past [0, 1] with NaN and infinities where the format holds them."""
    rng = np.random.default_rng(seed)
    out = []
    for p in range(mip_count(side, side)):
        w, h = level_size(side, side, p)
        pixels = rng.uniform(-0.5, 1.5, (6 * cubes, h, w, 4))
        if fmt.is_float:
            pixels *= 1000.0
        pixels[5, 0, 0, :3] = (np.nan, np.inf, -np.inf)
        out.append(np.ascontiguousarray(to_storage(pixels, fmt)))
    return out



# --- round trips ---------------------------------------------------------------------------------
@pytest.mark.parametrize("cubes", [1, 2], ids=["cube", "cube-array"])
@pytest.mark.parametrize("kind", ["ktx2", "dds", "exr"])
@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
def test_cubes_round_trip_bit_exactly(tmp_path, fmt, kind, cubes):
    if kind == "exr":
        pytest.importorskip("OpenEXR")
    levels = _cube_chain(fmt, cubes)
    files = containers.export(tmp_path, "sky", levels, fmt, [kind], faces=6)
    source = imageio.load(files[0])
    texture = source.texture
    assert texture is not None and texture.fmt is fmt
    assert texture.faces == source.faces == 6 and source.is_cube
    assert source.layers == 6 * cubes and source.width == source.height == SIDE
    assert len(texture.levels) == len(levels)
    for mine, written in zip(texture.levels, levels, strict=True):
        assert same_bits(mine, written)
    assert same_bits(source.storage(fmt), levels[0])
    what = "cube map" if cubes == 1 else "cube array of 2"
    assert f", {what}, {len(levels)} levels" in texture.description()
    assert texture.mismatch(fmt, source.storage(fmt)) == ""


@pytest.mark.parametrize("cubes", [1, 3], ids=["cube", "cube-array"])
@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
def test_ktx2_cubes_meet_the_spec(fmt, cubes):
    levels = _cube_chain(fmt, cubes)
    parsed = ktx2_spec_reader.parse(containers.ktx2.encode(levels, fmt, faces=6))
    assert parsed.problems == []
    assert parsed.fields["faceCount"] == 6
    assert parsed.fields["layerCount"] == (0 if cubes == 1 else cubes)  # one cube: no array
    for p, level in enumerate(levels):  # face fastest within a layer: mipview's own order
        own = fmt.pack(level)
        assert same_bits(parsed.images[p].view(np.uint8), own.reshape(parsed.images[p].shape)
                     .view(np.uint8))


@pytest.mark.parametrize("cubes", [1, 3], ids=["cube", "cube-array"])
@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
def test_dds_cubes_meet_the_documentation(fmt, cubes):
    levels = _cube_chain(fmt, cubes)
    parsed = dds_spec_reader.parse(containers.dds.encode(levels, fmt, faces=6))
    assert parsed.problems == []
    assert parsed.dx10["miscFlag"] == dds_spec_reader.MISC_TEXTURECUBE
    assert parsed.dx10["arraySize"] == cubes  # Direct3D counts cubes
    assert parsed.header["dwCaps2"] == 0xFE00  # DDSCAPS2_CUBEMAP and every face
    for p, level in enumerate(levels):
        own = fmt.pack(level)
        assert same_bits(parsed.images[p].view(np.uint8), own.reshape(parsed.images[p].shape)
                     .view(np.uint8))


def test_the_spec_readers_catch_broken_cubes():
    levels = _cube_chain(Format.UNORM, 1)
    ktx2 = containers.ktx2.encode(levels, Format.UNORM, faces=6)
    cases = {
        "all cubemap faces must have the orientation 'rd'":
            ktx2.replace(b"KTXorientation\0rd", b"KTXorientation\0ru"),
        "faceCount 3 is neither 1 nor 6": ktx2[:36] + struct.pack("<I", 3) + ktx2[40:],
    }
    for expected, data in cases.items():
        problems = ktx2_spec_reader.parse(data).problems
        assert any(expected in p for p in problems), (expected, problems)
    dds = containers.dds.encode(levels, Format.UNORM, faces=6)
    no_negz = dds[:112] + struct.pack("<I", 0xFE00 & ~0x8000) + dds[116:]
    problems = dds_spec_reader.parse(no_negz).problems
    assert any("DDSCAPS2_CUBEMAP_NEGATIVEZ is required" in p for p in problems), problems


def test_a_cube_read_from_ktx2_with_another_orientation_is_read_as_stored(tmp_path):
    levels = _cube_chain(Format.UNORM, 1)
    data = containers.ktx2.encode(levels, Format.UNORM, faces=6).replace(
        b"KTXorientation\0rd", b"KTXorientation\0ru")
    (tmp_path / "up.ktx2").write_bytes(data)
    texture = imageio.read_chain(tmp_path / "up.ktx2")
    assert same_bits(texture.levels[0], levels[0])  # flipping faces would tear the cube's edges
    assert "KTXorientation 'ru' on a cube map" in texture.notes[0]


def test_exporting_a_cube_names_its_exr_parts_after_the_faces(tmp_path):
    exr = pytest.importorskip("OpenEXR")
    files = containers.export(tmp_path, "sky", _cube_chain(Format.F16, 2), Format.F16, ["exr"],
                              faces=6)
    parts = exr.File(str(files[0])).parts
    assert [p.name() for p in parts][:7] == ["cube00.px", "cube00.nx", "cube00.py", "cube00.ny",
                                             "cube00.pz", "cube00.nz", "cube01.px"]
    assert all(p.header["mipviewCube"] == "+X -X +Y -Y +Z -Z" for p in parts)
    # without the attribute the same parts are an array of 12 layers
    plain = containers.export(tmp_path / "plain", "sky", _cube_chain(Format.F16, 2), Format.F16,
                              ["exr"])
    assert imageio.load(plain[0]).faces == 1


# --- legacy DDS ----------------------------------------------------------------------------------
def _legacy_cube(levels: list[np.ndarray], caps2: int, fourcc: bytes | None = None) -> bytes:
    """A legacy DDS (no DX10 header) of RGBA8 texels (or half floats with FourCC 113), its
    faces one after the other, each its whole chain (the documented layout)."""
    first = levels[0]
    header = legacy_header(first, len(levels), caps2, fourcc=fourcc)
    faces = first.shape[0]
    return header + b"".join(np.ascontiguousarray(level[f], level.dtype.newbyteorder("<"))
                             .tobytes() for f in range(faces) for level in levels)


@pytest.mark.parametrize(("fmt", "fourcc"), [(Format.UNORM, None), (Format.F16, (113).to_bytes(
    4, "little"))], ids=["rgba8-masks", "fourcc-113"])
def test_a_legacy_dds_cube_map_is_read(tmp_path, fmt, fourcc):
    levels = _cube_chain(fmt, 1)
    caps2 = dds_header.DDSCAPS2_CUBEMAP | dds_header.DDSCAPS2_CUBEMAP_ALLFACES
    (tmp_path / "old.dds").write_bytes(_legacy_cube(levels, caps2, fourcc))
    source = imageio.load(tmp_path / "old.dds")
    texture = source.texture
    assert texture is not None and texture.faces == source.faces == 6
    assert texture.fmt is fmt and len(texture.levels) == len(levels)
    for mine, written in zip(texture.levels, levels, strict=True):
        assert same_bits(mine, written)
    assert ", cube map, " in texture.description()




def test_a_legacy_dds_cube_without_some_faces_is_refused_naming_them(tmp_path):
    levels = _cube_chain(Format.UNORM, 1)
    caps2 = dds_header.DDSCAPS2_CUBEMAP | dds_header.DDSCAPS2_CUBEMAP_ALLFACES & ~0x2000 & ~0x4000
    refused("part.dds", _legacy_cube(levels, caps2), "a legacy cube map without its -Y, +Z "
             "faces", "whole cubes", tmp_path=tmp_path)
    one = dds_header.DDSCAPS2_CUBEMAP | dds_header.DDSCAPS2_CUBEMAP_ALLFACES & ~0x400
    refused("one.dds", _legacy_cube(levels, one), "without its +X face:", tmp_path=tmp_path)


# --- malformed cubes -----------------------------------------------------------------------------
def test_a_ktx2_face_count_of_3_is_refused(tmp_path):
    data = containers.ktx2.encode(_cube_chain(Format.F16, 1), Format.F16, faces=6)
    refused("three.ktx2", data[:36] + struct.pack("<I", 3) + data[40:],
             "faceCount 3 is invalid (1, or 6 for a cube map)", tmp_path=tmp_path)


def test_cubes_with_faces_that_are_not_square_are_refused(tmp_path):
    flat = [np.zeros((6, *level_size(16, 8, p)[::-1], 4), np.uint8) for p in range(3)]
    square = "a cube map with 16x8 faces: a cube's faces are square"
    # written as an array, then told to be a cube
    ktx2 = containers.ktx2.encode(flat, Format.UNORM)
    refused("flat.ktx2", ktx2[:32] + struct.pack("<2I", 0, 6) + ktx2[40:], square,
             tmp_path=tmp_path)
    dds = containers.dds.encode(flat, Format.UNORM)
    refused("flat.dds", dds[:136] + struct.pack("<2I", 4, 1) + dds[144:], square,
             tmp_path=tmp_path)
    legacy = _legacy_cube(flat, dds_header.DDSCAPS2_CUBEMAP | dds_header.DDSCAPS2_CUBEMAP_ALLFACES)
    refused("old.dds", legacy, square, tmp_path=tmp_path)
    # and never written
    for kind in ("ktx2", "dds"):
        with pytest.raises(ContainerError, match=square):
            containers.export(tmp_path, "flat", flat, Format.UNORM, [kind], faces=6)
    with pytest.raises(ValueError, match=r"\(6 n, N, N, 4\)"):
        containers.ktx2.encode([np.zeros((5, 4, 4, 4), np.uint8)], Format.UNORM, faces=6)


def test_an_exr_marked_as_a_cube_needs_whole_cubes(tmp_path):
    exr = pytest.importorskip("OpenEXR")
    header = {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage,
              "mipviewCube": "+X -X +Y -Y +Z -Z"}
    parts = [exr.Part(dict(header), {"RGBA": np.zeros((4, 4, 4), np.float32)}, f"f{i}")
             for i in range(5)]
    path = tmp_path / "five.exr"
    exr.File(parts).write(str(path))
    refused("five.exr", path.read_bytes(), "mipviewCube attribute marks a cube map, but its "
             "5 parts", tmp_path=tmp_path)


def test_texture_files_and_source_images_hold_cubes_only_whole():
    faces = np.zeros((6, 4, 4, 4), np.uint8)
    texture = TextureFile("a.ktx2", "KTX2", "VK_FORMAT_R8G8B8A8_UNORM", Format.UNORM, (faces,),
                          faces=6)
    assert SourceImage(faces, texture=texture).faces == 6  # taken from the texture
    assert SourceImage(faces, faces=6).is_cube and not SourceImage(faces).is_cube
    with pytest.raises(ContainerError, match="4x2 faces"):
        TextureFile("a", "KTX2", "x", Format.UNORM, (np.zeros((6, 2, 4, 4), np.uint8),), faces=6)
    with pytest.raises(ValueError):
        SourceImage(np.zeros((5, 4, 4, 4), np.uint8), faces=6)
    with pytest.raises(ValueError):
        SourceImage(faces, faces=3)


# --- six face images -----------------------------------------------------------------------------
def _write_faces(folder, pattern: str, cube: np.ndarray) -> list[str]:
    names = []
    for face, spelled in enumerate(("px", "nx", "py", "ny", "pz", "nz")):
        path = folder / pattern.format(spelled)
        Image.fromarray(cube[face]).save(path)
        names.append(str(path))
    return names


@pytest.fixture
def sky8() -> np.ndarray:
    return np.rint(synthetic.cube_image(16, seed=2).pixels * 255).astype(np.uint8)


def test_find_faces_finds_the_five_siblings_of_a_face(tmp_path, sky8):
    names = _write_faces(tmp_path, "sky_{}.png", sky8)
    assert cube_faces.find_faces(tmp_path / "sky_ny.png") == names
    assert cube_faces.find_faces(names[0]) == names
    (tmp_path / "lone_px.png").write_bytes(b"")
    assert cube_faces.find_faces(tmp_path / "lone_px.png") is None  # no siblings
    assert cube_faces.find_faces(tmp_path / "skypx.png") is None  # no separator: not a face name
    other = tmp_path / "other"
    other.mkdir()
    spelled = []
    for face, name in enumerate(("POSX", "NEGX", "POSY", "NEGY", "POSZ", "NEGZ")):
        Image.fromarray(sky8[face]).save(other / f"env-{name}.png")
        spelled.append(str(other / f"env-{name}.png"))
    assert cube_faces.find_faces(other / "env-NEGZ.png") == spelled


def test_load_faces_makes_a_cube_of_six_pngs(tmp_path, sky8):
    names = _write_faces(tmp_path, "sky_{}.png", sky8)
    cube = cube_faces.load_faces(names)
    assert cube.faces == 6 and cube.pixels.shape == (6, 16, 16, 4)
    assert cube.rgba8 is not None and np.array_equal(cube.rgba8, sky8)  # 8-bit stays 8-bit
    assert cube.suggested_format() is Format.UNORM and "cube map" in cube.description


def test_load_faces_names_the_face_that_does_not_fit(tmp_path, sky8):
    names = _write_faces(tmp_path, "sky_{}.png", sky8)
    Image.fromarray(sky8[3, :8, :8]).save(names[3])
    with pytest.raises(MipviewError) as info:
        cube_faces.load_faces(names)
    message = str(info.value)
    assert "\n" not in message and "sky_ny.png" in message
    assert "the -Y face is 8x8" in message and "16x16" in message
    Image.fromarray(sky8[3, :, :8]).save(names[3])
    with pytest.raises(MipviewError, match="sky_ny.png.*8x16: cube faces are square"):
        cube_faces.load_faces(names)
    grey16 = (sky8[3, ..., 0].astype(np.uint16) * 257)
    Image.fromarray(grey16).save(names[3])
    with pytest.raises(MipviewError, match="sky_ny.png.*one format"):
        cube_faces.load_faces(names)
    with pytest.raises(MipviewError, match="six face images"):
        cube_faces.load_faces(names[:5])


def test_load_faces_of_texture_files_keeps_their_chains(tmp_path):
    levels = _cube_chain(Format.F16, 1)
    names = []
    for face in range(6):
        (path,) = containers.export(tmp_path, f"sky_{'pnpnpn'[face]}{'xxyyzz'[face]}",
                                    [a[face] for a in levels], Format.F16, ["ktx2"])
        names.append(str(path))
    assert cube_faces.find_faces(names[2]) == names
    cube = cube_faces.load_faces(names)
    assert cube.texture is not None and cube.texture.faces == 6
    assert cube.suggested_format() is Format.F16
    for mine, written in zip(cube.texture.levels, levels, strict=True):
        assert same_bits(mine, written)


# --- the synthetic cube --------------------------------------------------------------------------
def _texel_of(d: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(face, column, row) a direction samples: Vulkan's cube map face selection, written from
    its table (major axis +X: sc = -rz, tc = -ry ...), not from mipview's inverse of it."""
    x, y, z = d[..., 0], d[..., 1], d[..., 2]
    major = np.argmax(np.abs(d), axis=-1)
    face = 2 * major + (np.take_along_axis(d, major[..., None], -1)[..., 0] < 0)
    table = [(-z, -y, x), (z, -y, x), (x, z, y), (x, -z, y), (x, -y, z), (-x, -y, z)]
    sc, tc, ma = (np.select([face == f for f in range(6)], [t[k] for t in table])
                  for k in range(3))
    s, t = 0.5 * (sc / np.abs(ma) + 1), 0.5 * (tc / np.abs(ma) + 1)
    return (face, np.clip(np.floor(s * size), 0, size - 1).astype(int),
            np.clip(np.floor(t * size), 0, size - 1).astype(int))


def _seam_error(cube: np.ndarray) -> float:
    """Mean |RGB difference| of the texels facing each other across the cube's edges: each
    border texel against the one its centre, moved a texel further out, samples."""
    size = cube.shape[1]
    diffs = []
    for f in range(6):
        d = face_directions(f, size)
        on_face = d / np.abs(d).max(axis=-1, keepdims=True)  # on the cube's surface
        every = np.arange(size)
        for border, inner, rows, cols in (
                ((0, slice(None)), (1, slice(None)), np.zeros(size, int), every),
                ((-1, slice(None)), (-2, slice(None)), np.full(size, size - 1), every),
                ((slice(None), 0), (slice(None), 1), every, np.zeros(size, int)),
                ((slice(None), -1), (slice(None), -2), every, np.full(size, size - 1))):
            face, col, row = _texel_of(2 * on_face[border] - on_face[inner], size)
            assert (face != f).all()
            diffs.append(np.abs(cube[f, rows, cols, :3] - cube[face, row, col, :3]))
    return float(np.mean(diffs))


def test_the_synthetic_cube_is_a_cube_of_the_sky():
    cube = synthetic.cube_image(24, seed=5)
    assert cube.faces == 6 and cube.pixels.shape == (6, 24, 24, 4)
    assert cube.pixels.dtype == np.float32 and (cube.pixels[..., 3] == 1).all()
    assert 0.0 <= cube.pixels.min() and cube.pixels.max() <= 1.0
    assert cube.pixels[2, ..., 2].mean() > cube.pixels[3, ..., 2].mean() + 0.2  # blue sky above
    array = synthetic.cube_image(24, seed=5, layers=2)
    assert array.pixels.shape == (12, 24, 24, 4) and array.faces == 6
    assert np.array_equal(array.pixels[:6], cube.pixels)  # each cube its own sun
    assert not np.array_equal(array.pixels[6:], cube.pixels)
    assert synthetic.image(24, 24, seed=5, kind="cube").faces == 6
    assert "cube" not in synthetic.KINDS
    with pytest.raises(MipviewError, match="square"):
        synthetic.image(24, 12, kind="cube")


def test_the_synthetic_cube_maps_texels_to_directions_as_vulkan_samples_them():
    for f in range(6):
        face, col, row = _texel_of(face_directions(f, 9), 9)
        assert (face == f).all()
        assert (col == np.arange(9)[None, :]).all() and (row == np.arange(9)[:, None]).all()


def test_the_synthetic_cubes_faces_meet_along_their_edges():
    pixels = synthetic.cube_image(64, seed=4).pixels
    seam = _seam_error(pixels)
    within = float(np.mean(np.abs(np.diff(pixels[..., :3], axis=2))))  # texel to texel in a row
    assert seam <= within  # an edge is no step at all
    shuffled = pixels[[2, 4, 0, 5, 3, 1]]  # every face elsewhere
    assert _seam_error(shuffled) > 3 * seam
    assert _seam_error(pixels[:, ::-1]) > 3 * seam  # every face upside down
