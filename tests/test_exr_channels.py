"""EXR files as renderers write them: colour beside depth (Z), layers, parts, luminance/chroma,
lone channels of any name, tiled mip levels (mipview.io.containers.exr_channels, exr_choice,
exr_yca; docs/formats.md, EXR)."""

from pathlib import Path

import numpy as np
import pytest

from mipview.cli.main import main
from mipview.io import imageio
from mipview.io.containers import exr_yca
from mipview.io.imageio import ImageLoadError

exr = pytest.importorskip("OpenEXR")

DATA = Path(__file__).parent / "data" / "exr"

H, W = 19, 37  # odd: the levels' 3-texel footprints count


def _planes(seed: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {c: rng.random((H, W), np.float32) for c in "RGBA"}


@pytest.fixture
def beauty_and_depth(tmp_path):
    """A render's beauty pass and its depth: R G B A and Z, one part; Z far from R, in [0, 1]
    with every mantissa bit in use, so a level 0 made of anything but Z is caught."""
    planes = _planes()
    depth = (np.random.default_rng(9).random((H, W), np.float32) * 0.5 + 0.25).astype(np.float32)
    path = tmp_path / "render.exr"
    write_exr(path, {**planes, "Z": depth})
    return path, planes, depth


def write_exr(path: Path, channels: dict[str, np.ndarray]) -> None:
    """One part of these channels, as a renderer writes them (one plane each)."""
    header = {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage}
    exr.File(header, dict(channels)).write(str(path))  # (the binding fills in the dict)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


# --- depth beside colour -------------------------------------------------------------------------
def test_a_depth_run_reads_the_z_of_a_render_bit_for_bit(beauty_and_depth, tmp_path, capsys):
    path, planes, depth = beauty_and_depth
    out = tmp_path / "out"
    code = main(["run", str(path), "--format", "d32", "--strategies", "per-level:reduction=min",
                 "--out", str(out)])
    said = capsys.readouterr().out
    assert code == 0, said
    level0 = np.load(out / "per-level_reduction-min" / "level_00.npy")
    assert np.array_equal(_bits(level0[..., 0]), _bits(depth))  # Z, every bit
    assert not np.array_equal(level0[..., 0], planes["R"])  # (the mistake this catches)
    assert "d32 reads the file's depth, channel Z" in said
    # the window's and the API's way in: runs.prepare, the one set-up of every Run
    from mipview.runs.prepare import prepare

    run = prepare(str(path), "r32f", "per-level:reduction=max")
    assert np.array_equal(_bits(run.level0[..., 0]), _bits(depth))
    assert run.source.texture.notes[0].startswith("r32f reads the file's depth, channel Z")


def test_the_api_runs_a_renders_depth(beauty_and_depth):
    import mipview

    path, _, depth = beauty_and_depth
    done = mipview.run(str(path), "per-level:reduction=min", format="d32")
    (result,) = done.strategies.values()
    assert np.array_equal(_bits(result.levels[0][..., 0]), _bits(depth))
    assert result.ok and done.ok
    # the next level is the min of Z's 2x2 (3 on an odd side) footprints, not of R's
    assert result.levels[1][0, 0, 0] == depth[:3, :3].min()


def test_a_chosen_channel_is_what_a_depth_run_reads(beauty_and_depth, tmp_path, capsys):
    path, planes, _ = beauty_and_depth
    out = tmp_path / "out"
    assert main(["run", str(path), "--channel", "R", "--format", "d32", "--strategies",
                 "per-level:reduction=min", "--out", str(out)]) == 0
    level0 = np.load(out / "per-level_reduction-min" / "level_00.npy")
    assert np.array_equal(_bits(level0[..., 0]), _bits(planes["R"]))
    assert "channel Z" not in capsys.readouterr().out


def test_a_depth_run_of_a_file_without_z_says_which_channel_it_took(tmp_path):
    from mipview.runs.prepare import prepare

    planes = _planes()
    write_exr(tmp_path / "colour.exr", planes)
    run = prepare(str(tmp_path / "colour.exr"), "d32", "per-level:reduction=min")
    assert np.array_equal(run.level0[..., 0], planes["R"])
    assert "d32 takes the depth from R: the file has no Z channel" in run.source.texture.notes[0]
    # a colour run of the same file says nothing of depth
    plain = prepare(str(tmp_path / "colour.exr"), "f32", "per-level")
    assert not any("depth" in n for n in plain.source.texture.notes)


def test_a_depth_chain_mipview_wrote_is_read_as_it_says(tmp_path):
    """Its own d32 / d32-rg32f EXR (mipviewFormat) is depth already: read as written, no note."""
    from mipview.core.formats import Format
    from mipview.io.containers import exr as exr_container
    from mipview.runs.prepare import prepare

    depth = _planes()["R"]
    for fmt in (Format.parse("d32"), Format.parse("d32-rg32f")):
        level0 = fmt.unpack(np.dstack([depth] * fmt.channels))
        (data,) = exr_container.encode([level0], fmt)
        (tmp_path / f"{fmt.label}.exr").write_bytes(data)
        run = prepare(str(tmp_path / f"{fmt.label}.exr"), fmt, "per-level:reduction=min")
        assert np.array_equal(_bits(run.level0[..., 0]), _bits(depth)), fmt.label
        assert not any("depth" in n for n in run.source.texture.notes), fmt.label


# --- choosing a channel, a layer, a part ---------------------------------------------------------
def test_a_channel_or_a_layer_is_chosen_after_a_hash(tmp_path):
    planes = _planes()
    u, v = planes["R"] * 3 - 1, planes["G"] * -2
    write_exr(tmp_path / "aovs.exr", {**planes, "Z": planes["B"] / 2, "forward.u": u,
                                      "forward.v": v, "diffuse.R": u, "diffuse.G": v,
                                      "diffuse.B": u})
    path = str(tmp_path / "aovs.exr")
    z = imageio.load(path + "#Z")
    assert z.texture.fmt.label == "r32f" and np.array_equal(z.texture.levels[0][..., 0],
                                                             planes["B"] / 2)
    one = imageio.load(path + "#forward.u")
    assert one.texture.fmt.label == "r32f" and np.array_equal(one.texture.levels[0][..., 0], u)
    both = imageio.load(path + "#forward")  # a layer of u and v: R and G
    assert both.texture.fmt.label == "rg32f"
    assert np.array_equal(both.texture.levels[0][..., :2], np.dstack([u, v]))
    diffuse = imageio.load(path + "#diffuse")  # a layer's R, G, B: alpha 1
    assert np.array_equal(diffuse.pixels, np.dstack([u, v, u, np.ones_like(u)]))
    # read without a choice: its R G B A, and a note of what else it holds
    first = imageio.load(path)
    assert np.array_equal(first.pixels, np.dstack([planes[c] for c in "RGBA"]))
    (note,) = first.texture.notes
    assert note.startswith("read R, G, B, A; the file also holds")
    assert "Z (#Z)" in note and "diffuse (R, G, B) (#diffuse)" in note
    with pytest.raises(ImageLoadError, match=r"no channel or layer 'nope' \(it has A, B, G, R, "
                                             r"Z, diffuse.B"):
        imageio.load(path + "#nope")


def test_a_hash_on_a_file_that_is_no_exr_is_one_line(tmp_path):
    from PIL import Image

    Image.new("RGB", (4, 4)).save(tmp_path / "a.png")
    with pytest.raises(ImageLoadError, match="chooses a part, layer or channel of an EXR file; "
                                             "this is no EXR"):
        imageio.load(str(tmp_path / "a.png") + "#Z")
    with pytest.raises(ImageLoadError, match="no such file"):
        imageio.load(str(tmp_path / "none.exr") + "#Z")


def _parts(tmp_path, parts: list[tuple[str, dict[str, np.ndarray]]]) -> str:
    header = {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage}
    path = tmp_path / "parts.exr"
    exr.File([exr.Part(dict(header), dict(channels), name)
              for name, channels in parts]).write(str(path))
    return str(path)


def test_each_part_is_judged_on_its_own_channels(tmp_path):
    planes = _planes()
    depth = planes["A"] / 3
    path = _parts(tmp_path, [("position", {"P.x": planes["R"], "P.y": planes["G"]}),
                             ("beauty", {c: planes[c] for c in "RGB"}),
                             ("depth", {"Z": depth})])
    # the first part holds no colour: passed over for the first that does, and said so
    first = imageio.load(path)
    assert np.array_equal(first.pixels[..., :3], np.dstack([planes[c] for c in "RGB"]))
    assert first.texture.notes[0].startswith("read part 1: R, G, B; the file also holds "
                                             "part 0: P.x (#part=0,P.x)")
    for choice in ("part=2", "depth", "part=depth,Z", "part=2,Z", "Z"):
        chosen = imageio.load(f"{path}#{choice}")
        assert np.array_equal(chosen.texture.levels[0][..., 0], depth), choice
    g = imageio.load(f"{path}#part=beauty,G")
    assert np.array_equal(g.texture.levels[0][..., 0], planes["G"])
    # a refusal names the part it judged, with that part's channels (not another's)
    with pytest.raises(ImageLoadError) as info:
        imageio.load(f"{path}#position")
    assert "part 0 'position' has P.x, P.y" in str(info.value)
    assert "beauty" not in str(info.value) and "part 1" not in str(info.value)
    with pytest.raises(ImageLoadError, match=r"no channel or layer 'R' \(part 2 'depth' has Z\)"):
        imageio.load(f"{path}#part=depth,R")
    with pytest.raises(ImageLoadError, match=r"part=3: the file has 3 parts \(0 to 2\)"):
        imageio.load(f"{path}#part=3")
    with pytest.raises(ImageLoadError, match="part=albedo: no part of that name"):
        imageio.load(f"{path}#part=albedo")


def test_a_file_whose_parts_hold_no_colour_lists_each_parts_own(tmp_path):
    grey = _planes()["R"]
    path = _parts(tmp_path, [("position", {"P.x": grey, "P.y": grey}),
                             ("normal", {"N.x": grey, "N.y": grey, "N.z": grey})])
    with pytest.raises(ImageLoadError) as info:
        imageio.load(path)
    said = str(info.value)
    assert "part 0 'position': P.x, P.y; part 1 'normal': N.x, N.y, N.z" in said
    assert "FILE#part=N,NAME" in said


def test_parts_of_one_layout_are_still_an_array(tmp_path):
    planes = _planes()
    path = _parts(tmp_path, [("layer00", planes), ("layer01", {c: p * 2 for c, p in
                                                              planes.items()})])
    both = imageio.load(path)
    assert both.layers == 2 and not both.texture.notes
    assert np.array_equal(both.pixels[1], np.dstack([planes[c] * 2 for c in "RGBA"]))


def test_only_the_channels_read_are_held_to_what_mipview_reads(tmp_path):
    """An object-id channel (32-bit integers) beside the colour does not stop the colour; asked
    for, it is refused naming it."""
    planes = _planes()
    ids = np.arange(H * W, dtype=np.uint32).reshape(H, W)
    write_exr(tmp_path / "ids.exr", {**planes, "id": ids})
    colour = imageio.load(tmp_path / "ids.exr")
    assert np.array_equal(colour.pixels, np.dstack([planes[c] for c in "RGBA"]))
    with pytest.raises(ImageLoadError, match="channel id holds 32-bit unsigned integers"):
        imageio.load(str(tmp_path / "ids.exr") + "#id")


def test_a_choice_holds_for_every_level_file_of_a_chain(tmp_path):
    """``name.level00.exr#Z``: the Z of each level file, as one chain."""
    planes = _planes()
    depth = [planes["R"], planes["R"][::2, ::2][:9, :18]]
    for k, z in enumerate(depth):
        h, w = z.shape
        write_exr(tmp_path / f"c.level{k:02d}.exr", {**{c: p[:h, :w] for c, p in planes.items()},
                                                      "Z": np.ascontiguousarray(z)})
    chain = imageio.load(str(tmp_path / "c.level00.exr") + "#Z").texture
    assert chain.name == "c.level00.exr#Z" and len(chain.levels) == 2
    for level, z in zip(chain.levels, depth, strict=True):
        assert np.array_equal(level[..., 0], z)


def test_a_lone_channel_of_any_name_is_one_channel(tmp_path):
    for name in ("G", "B", "A", "depth", "mask.r"):
        plane = _planes()["G"]
        write_exr(tmp_path / f"{name}.exr", {name: plane})
        source = imageio.load(tmp_path / f"{name}.exr")
        assert source.texture.fmt.label == "r32f", name
        assert np.array_equal(source.texture.levels[0][..., 0], plane), name
        assert source.texture.pixel_format == f"float {name}"


# --- luminance / chroma --------------------------------------------------------------------------
def _openexr_rgba(name: str) -> np.ndarray:
    channels = exr.File(str(DATA / name), separate_channels=True).parts[0].channels
    return np.dstack([channels[c].pixels for c in "RGBA"])


def _lsb(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in half steps (ULPs) between two half arrays of one sign each."""
    return np.abs(a.view(np.int16).astype(np.int32) - b.view(np.int16).astype(np.int32))


@pytest.mark.parametrize("stem", ["xyz_yc_96x64", "rec709_yc_96x64"])
def test_luminance_chroma_reads_as_openexrs_own_rgba(stem):
    """Against OpenEXR's RgbaInputFile (tests/data/exr/MANIFEST.md): XYZ_YC carries
    chromaticities whose R, G, B are CIE X, Y, Z, Rec709_YC none (Rec. 709)."""
    source = imageio.load(DATA / f"{stem}.exr")
    theirs = _openexr_rgba(f"{stem}.openexr_rgba.exr")
    ours = source.texture.levels[0]
    assert source.texture.fmt.label == "f16" and ours.shape == theirs.shape == (64, 96, 4)
    assert "luminance/chroma" in source.description
    assert _lsb(ours, theirs).max() <= 2  # a few LSB at most (here: none)
    assert np.array_equal(ours, theirs)
    # grey, as the file read before, is far off
    grey = np.repeat(ours[..., 1:2], 3, axis=-1)
    assert _lsb(grey, theirs[..., :3]).max() > 100


def test_the_primaries_of_the_file_are_the_ones_used():
    """The same planes with Rec. 709's weights in place of the file's X Y Z primaries miss
    OpenEXR's rendition: the chromaticities attribute is read, not assumed."""
    planes = exr.File(str(DATA / "xyz_yc_96x64.exr"), separate_channels=True).parts[0]
    c = {k: v.pixels for k, v in planes.channels.items()}
    assert planes.header["chromaticities"][:2] == (1.0, 0.0)
    wrong = exr_yca.to_rgba(c["Y"], c["RY"], c["BY"], None, None)
    assert _lsb(wrong, _openexr_rgba("xyz_yc_96x64.openexr_rgba.exr")).max() > 100
    assert exr_yca.luminance_weights() == pytest.approx((0.2126, 0.7152, 0.0722), abs=1e-4)
    with pytest.raises(ValueError, match="make no RGB-to-XYZ matrix"):
        exr_yca.luminance_weights((0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3127, 0.329))


def test_luminance_alone_is_grey_and_with_chroma_of_a_written_file(tmp_path):
    grey = _planes()["R"].astype(np.float16)
    write_exr(tmp_path / "y.exr", {"Y": grey})
    y = imageio.load(tmp_path / "y.exr")
    assert y.texture.fmt.label == "r16f"
    assert all(np.array_equal(y.pixels[..., c], grey.astype(np.float32)) for c in range(3))


# --- tiled levels --------------------------------------------------------------------------------
def test_a_mip_mapped_tiled_exr_says_its_levels_are_not_read():
    source = imageio.load(DATA / "ColorCodedLevels.exr")
    assert source.width == 512 and not source.texture.has_chain
    assert any("10 mip levels: the OpenEXR Python binding reads level 0 only" in n
               for n in source.texture.notes)


def test_a_rip_mapped_tiled_exr_says_its_levels_are_not_read():
    source = imageio.load(DATA / "ripmap_12x6.exr")
    assert (source.width, source.height) == (12, 6) and not source.texture.has_chain
    assert np.array_equal(source.pixels[0, 0], [0, 0, 0.5, 1])  # level (0, 0)
    assert any("rip-mapped tiled EXR (4x3 levels): the OpenEXR Python binding reads level 0 "
               "only" in n for n in source.texture.notes)


# --- the command line and the window -------------------------------------------------------------
def test_channel_needs_an_image(capsys):
    assert main(["run", "--size", "8", "--channel", "Z"]) == 2
    assert "--channel Z chooses what to read of an IMAGE" in capsys.readouterr().err


def test_the_window_opens_the_channel_asked(beauty_and_depth, tmp_path):
    """``mipview gui FILE --channel NAME``: the window opens FILE#NAME, and a name the file
    has not is the open's error, one line, exit 2."""
    import os
    import subprocess
    import sys

    path, _, _ = beauty_and_depth
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "cfg"), QT_QPA_PLATFORM="offscreen")

    def gui(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "mipview", "gui", str(path), *args,
                               "--run", "per-level:reduction=min", "--quit"], env=env,
                              capture_output=True, text=True, timeout=120)

    good = gui("--channel", "Z")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = gui("--channel", "nope")
    assert bad.returncode == 2
    assert "render.exr#nope': no channel or layer 'nope' (it has A, B, G, R, Z)" \
        in bad.stderr
