"""Cube maps through the command line and the API (docs/cube-maps.md "Running a cube
map"): a cube KTX2, six face images and ``--synthetic cube`` run every strategy with the faces as
array layers (checked texel by texel by the one verdict: exit 0), each chain and each exact
reference with its seam figures per level in the text and the JSON, a cube result exported as a
cube and read back bit for bit, and every bad cube input one line and exit 2 before GPU work.

Tiny cubes (1, 4, 5 texels a side) and one or two strategies a run: lavapipe compiles slowly."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from PIL import Image

import mipview
from mipview.check.filter_reference import named_reference
from mipview.check.reference import stored_chain
from mipview.check.seams import pyramid_seams
from mipview.cli.main import main
from mipview.core.cube import FACE_NAMES
from mipview.core.formats import Format, level_size, mip_count
from mipview.io import containers, imageio, synthetic
from mipview.runs.cube import figures_dict
from tests.bits import same_bits
from tests.run_report import read_report
from tests.stderr import one_line_error

HEADLINE = "faces filtered independently"




def _entry(report: dict, name: str) -> dict:
    return next(s for s in report["strategies"] if s["strategy"] == name)


def _png_levels(out, slug: str, side: int) -> list[np.ndarray]:
    """A unorm result's levels as ``run`` wrote them: one PNG per level and face."""
    return [np.stack([np.asarray(Image.open(out / slug / f"level_{k:02d}_layer{f:02d}.png"))
                      for f in range(6)]) for k in range(mip_count(side, side))]




def _write_faces(folder, cube: np.ndarray, stem: str = "sky") -> list[str]:
    names = []
    for face, name in enumerate(FACE_NAMES):
        path = folder / f"{stem}_{name}.png"
        Image.fromarray(cube[face]).save(path)
        names.append(str(path))
    return names


# --- runs ----------------------------------------------------------------------------------------
def test_a_synthetic_cube_runs_each_strategy_on_its_faces_with_seams(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--synthetic", "cube", "--size", "5", "--strategies",
                 "per-level,npot-exact", "--export", "ktx2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    report = read_report(out)
    assert report["image"] == {**report["image"], "width": 5, "height": 5, "layers": 6}
    assert report["cube"]["cubes"] == 1 and report["cube"]["side"] == 5
    assert HEADLINE in report["cube"]["note"] and "docs/cube-maps.md" in report["cube"]["note"]
    assert f"{HEADLINE} (docs/cube-maps.md)" in printed
    fmt = Format.UNORM
    level0 = synthetic.image(5, 5, kind="cube").storage(fmt)
    reference = named_reference("mean", level0, fmt)
    assert report["cube"]["reference_seams"] == {"mean": figures_dict(pyramid_seams(reference,
                                                                                     fmt))}
    assert "reference mean" in printed
    for slug in ("per-level", "npot-exact"):
        entry = _entry(report, slug)
        # checked texel by texel against the array reference, layer by layer
        assert entry["within_tolerance"] is True and entry["cube"] == "independent faces"
        assert len(entry["errors"]["chain"]) == 3
        levels = _png_levels(out, slug, 5)
        assert [lv.shape for lv in levels] == [(6, 5, 5, 4), (6, 2, 2, 4), (6, 1, 1, 4)]
        seams = pyramid_seams(levels, fmt)
        assert entry["seams"] == figures_dict(seams)
        assert entry["seams"]["mean_ratio"][-1] is None  # 1x1 faces: steps only
        assert entry["seams"]["mean_step"][-1] == seams[-1].mean_step
        # exported as a cube map, read back bit for bit
        chain = imageio.read_chain(out / slug / f"{slug}.ktx2")
        assert chain.faces == 6 and chain.fmt is fmt
        assert all(same_bits(a, b) for a, b in zip(chain.levels, levels, strict=True))
    lines = printed.splitlines()
    seam_lines = [line for line in lines if "seams: mean ratio per level" in line]
    assert len(seam_lines) == 3 and "[independent faces]" in seam_lines[0]


def _cube_chain(fmt: Format, side: int) -> list[np.ndarray]:
    """A correct chain of a synthetic cube, as a tool would make it (each level the correctly
    rounded box of the stored level below, faces apart)."""
    level0 = synthetic.image(side, side, kind="cube", seed=3).storage(fmt)
    made = list(stored_chain(level0, fmt))[1:]
    if fmt.is_float:
        return [level0] + [m.astype(fmt.dtype) for m in made]
    return [level0] + [np.clip(np.rint(m), 0, 255).astype(np.uint8) for m in made]


def test_a_cube_ktx2_runs_its_chain_and_exports_cubes_read_back_bit_exactly(tmp_path, capsys):
    fmt = Format.F16
    levels = _cube_chain(fmt, 5)
    (path,) = containers.export(tmp_path, "sky", levels, fmt, ["ktx2"], faces=6)
    out = tmp_path / "out"
    assert main(["run", str(path), "--strategies", "per-level,per-level:filter=tent,edge=cube",
                 "--export", "ktx2,dds", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    report = read_report(out)
    assert report["image"]["layers"] == 6 and report["cube"]["cubes"] == 1
    assert "edge=cube" in report["cube"]["note"]
    file_entry = _entry(report, "file:name=sky.ktx2")
    assert file_entry["within_tolerance"] is True  # the file's own chain, by the one verdict
    seamless = _entry(report, "per-level:edge=cube,filter=tent")
    assert seamless["cube"] == "seamless" and seamless["within_tolerance"] is True
    assert set(report["cube"]["reference_seams"]) == {"mean", "tent,edge=cube"}
    for entry in report["strategies"]:
        slug = entry["files"][0].split("/")[0]
        exact = [np.stack([np.load(out / slug / f"level_{k:02d}_layer{f:02d}.npy")
                           for f in range(6)]) for k in range(3)]
        assert entry["seams"] == figures_dict(pyramid_seams(exact, fmt))
        assert f"{slug}/{slug}.ktx2" in entry["files"] and f"{slug}/{slug}.dds" in entry["files"]
        for kind in ("ktx2", "dds"):
            back = imageio.load(out / slug / f"{slug}.{kind}")
            assert back.is_cube and back.texture is not None and back.texture.faces == 6
            assert all(same_bits(a, b) for a, b in zip(back.texture.levels, exact, strict=True))
    # the file in, run, exported, read back: the chain it came with, bit for bit
    again = imageio.read_chain(out / next(f for f in file_entry["files"] if f.endswith(".ktx2")))
    assert all(same_bits(a, b) for a, b in zip(again.levels, levels, strict=True))
    assert "[seamless]" in printed and "reference tent,edge=cube" in printed


def test_six_png_faces_run_as_one_cube_and_a_1x1_cube_too(tmp_path, capsys):
    faces = np.rint(synthetic.cube_image(4, seed=1).pixels * 255).astype(np.uint8)
    names = _write_faces(tmp_path, faces)
    out = tmp_path / "out"
    assert main(["run", names[5], "--strategies", "per-level", "--out", str(out)]) == 0
    report = read_report(out)
    assert report["cube"]["face_files"] == names  # found from -Z, in layer order
    assert report["image"]["layers"] == 6
    per_level = _entry(report, "per-level")
    levels = _png_levels(out, "per-level", 4)
    assert same_bits(levels[0], faces) and per_level["within_tolerance"] is True
    assert per_level["seams"] == figures_dict(pyramid_seams(levels, Format.UNORM))

    assert main(["run", "--synthetic", "cube", "--size", "1", "--strategies", "per-level",
                 "--out", str(out)]) == 0
    seams = _entry(read_report(out), "per-level")["seams"]
    assert seams["size"] == [1] and seams["max_ratio"] == [None] and seams["max_step"][0] > 0
    assert "(1x1: step" in capsys.readouterr().out


def test_bench_times_a_cube_and_reports_its_seams(tmp_path, capsys):
    target = tmp_path / "b.json"
    assert main(["bench", "--synthetic", "cube", "--size", "4", "--strategies", "per-level",
                 "--repeat", "2", "--json", str(target)]) == 0
    data = json.loads(target.read_text())
    assert data["image"]["layers"] == 6 and HEADLINE in data["cube"]["note"]
    entry = data["strategies"][0]
    assert entry["cube"] == "independent faces" and entry["within_tolerance"] is True
    assert entry["seams"]["size"] == [4, 2, 1] and "timing" in entry
    assert "seams: mean ratio per level" in capsys.readouterr().out


def test_the_api_runs_a_cube_as_the_command_line(tmp_path):
    source = synthetic.cube_image(4, seed=1)
    done = mipview.run(source, strategies="per-level")
    assert done.ok and done.cube is not None and done.cube.cubes == 1
    outcome = done.strategies["per-level"]
    assert outcome.levels[0].shape == (6, 4, 4, 4)
    assert outcome.seams == tuple(pyramid_seams(outcome.levels, done.result.fmt))
    assert set(done.cube.references) == {"mean"}
    faces = np.rint(source.pixels * 255).astype(np.uint8)
    names = _write_faces(tmp_path, faces)
    opened = mipview.open_image(names[2])
    assert opened.is_cube and same_bits(opened.storage(Format.UNORM), faces)
    with pytest.raises(mipview.MipviewError, match="edge=cube needs a cube map"):
        mipview.run(synthetic.image(6, 6), strategies="per-level:filter=tent,edge=cube")


# --- bad input: one line, exit 2, before any GPU work --------------------------------------------
def _bad_cases(tmp_path) -> list[tuple[list[str], tuple[str, ...]]]:
    faces = np.rint(synthetic.cube_image(4).pixels * 255).astype(np.uint8)
    wide = tmp_path / "wide"
    wide.mkdir()
    names = _write_faces(wide, faces)
    Image.fromarray(np.zeros((4, 5, 4), np.uint8)).save(names[2])
    sizes = tmp_path / "sizes"
    sizes.mkdir()
    names_b = _write_faces(sizes, faces)
    Image.fromarray(np.zeros((5, 5, 4), np.uint8)).save(names_b[4])
    # a cube KTX2 of 16x8 faces (written as an array, then marked a cube)
    flat = [np.zeros((6, *level_size(16, 8, p)[::-1], 4), np.uint8) for p in range(3)]
    ktx2 = containers.ktx2.encode(flat, Format.UNORM)
    (tmp_path / "flat.ktx2").write_bytes(ktx2[:32] + struct.pack("<2I", 0, 6) + ktx2[40:])
    good = containers.ktx2.encode(_cube_chain(Format.UNORM, 4), Format.UNORM, faces=6)
    (tmp_path / "three.ktx2").write_bytes(good[:36] + struct.pack("<I", 3) + good[40:])
    (tmp_path / "sky.ktx2").write_bytes(good)
    sky = str(tmp_path / "sky.ktx2")
    out = ["--out", str(tmp_path / "o")]
    return [
        (["run", names[0], *out], ("the +Y face is 5x4: cube faces are square",)),
        (["run", str(tmp_path / "flat.ktx2"), *out], ("16x8 faces: a cube's faces are square",)),
        (["run", "--synthetic", "cube", "--size", "4x6", *out], ("square faces", "4x6")),
        (["run", names_b[0], *out], ("+Z face is 5x5", "a cube's faces are one size")),
        (["run", str(tmp_path / "three.ktx2"), *out], ("faceCount 3 is invalid",)),
        (["run", sky, "--layers", "2", *out], ("--layers 2", "cube map", "leave it out")),
        (["run", names_b[1], "--layers", "3", *out], ("--layers 3", "cube map")),
        (["bench", "--synthetic", "cube", "--size", "4", "--layers", "6"], ("--layers 6",)),
        (["mean", sky], ("is a cube map", "`mipview mean` takes a 2D image")),
        (["run", "--size", "6", "--layers", "6", "--strategies",
          "per-level:filter=tent,edge=cube", *out], ("edge=cube needs a cube map",)),
        (["bench", "--size", "6", "--strategies", "filter-pairs:filter=tent,edge=cube"],
         ("edge=cube needs a cube map",)),
    ]


def test_bad_cube_input_is_one_line_and_exit_2_before_gpu_work(tmp_path, capsys, no_gpu_work):
    for argv, fragments in _bad_cases(tmp_path):
        assert main(argv) == 2, argv
        one_line_error(capsys, *fragments)
    assert not (tmp_path / "o").exists()
