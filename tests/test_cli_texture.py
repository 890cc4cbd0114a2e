"""``mipview run`` with texture files: ``--export`` writes every strategy's chain inside the run's
atomic output and lists it in report.json (read back bit for bit against the PNG/.npy levels);
``mipview run FILE.ktx2|.dds`` fits the file's own chain with the one verdict and reports it (exit 1
only when it misses the filter ``--expect`` names, at the level that broke); bad export choices
and damaged files are one line and exit 2 before any GPU work."""

from __future__ import annotations

import ktx2_spec_reader
import numpy as np
import pytest
from PIL import Image

from mipview.check.reference import reference_pyramid, stored_chain
from mipview.cli.limits import peek_dims
from mipview.cli.main import main
from mipview.core.formats import Format
from mipview.io import containers, imageio, synthetic
from mipview.io.layers import make_layers
from tests.bits import same_bits
from tests.run_report import read_report
from tests.stderr import one_line_error

SIZE = "37x23"




def _entry(report: dict, name: str) -> dict:
    return next(s for s in report["strategies"] if s["name"] == name)




# --- --export -----------------------------------------------------------------------------------
def test_export_all_of_a_float_run_writes_every_kind_per_strategy(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--size", SIZE, "--format", "f16", "--strategies", "per-level,subgroup",
                 "--export", "all", "--out", str(out)]) == 0
    report = read_report(out)
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    listed = [f for s in report["strategies"] for f in s["files"]]
    assert sorted(listed) == sorted(written - {"report.json"})  # every file, once
    for entry in report["strategies"]:
        slug = entry["strategy"]
        files = entry["files"]
        assert all(f.startswith(f"{slug}/") for f in files)
        exact = [np.load(out / slug / f"level_{i:02d}.npy") for i in range(6)]
        assert [f"{slug}/level_{i:02d}.{e}" for i in range(6) for e in ("png", "npy")] \
            == files[:12]
        assert files[12:] == [f"{slug}/{slug}.ktx2", f"{slug}/{slug}.dds"] + [
            f"{slug}/{slug}.level{i:02d}.exr" for i in range(6)]
        for kind_file in (files[12], files[13], files[14]):
            chain = imageio.read_chain(out / kind_file)
            assert chain.fmt is Format.F16 and len(chain.levels) == 6
            for mine, theirs in zip(chain.levels, exact, strict=True):
                assert same_bits(mine, theirs), kind_file
    assert "wrote" in capsys.readouterr().out


def test_export_of_an_8bit_run_reads_back_as_its_png_levels(tmp_path):
    out = tmp_path / "out"
    assert main(["run", "--size", SIZE, "--format", "srgb", "--strategies", "per-level",
                 "--export", "exr,dds,ktx2", "--out", str(out)]) == 0
    files = _entry(read_report(out), "per-level")["files"]
    assert files[6:] == ["per-level/per-level.ktx2", "per-level/per-level.dds"] + [
        f"per-level/per-level.level{i:02d}.exr" for i in range(6)]
    pngs = [np.asarray(Image.open(out / f)) for f in files[:6]]
    for name in files[6:9]:
        chain = imageio.read_chain(out / name)
        assert len(chain.levels) == 6
        for mine, png in zip(chain.levels, pngs, strict=True):
            assert same_bits(mine, png), name
        # the DX10 header and the EXR's mipviewFormat say sRGB (EXR: colour in linear light)
        assert chain.fmt is Format.SRGB, name


def test_an_unknown_export_kind_is_refused_before_any_work(tmp_path, capsys, no_gpu_work):
    out = tmp_path / "out"
    assert main(["run", "--size", SIZE, "--export", "ktx2,png", "--out", str(out)]) == 2
    one_line_error(capsys, "--export", "unknown export kind png")
    assert list(tmp_path.iterdir()) == []  # no output folder, no temporary one


# --- mipview run FILE ---------------------------------------------------------------------------
def _chain(level0: np.ndarray, fmt: Format, how: str) -> list[np.ndarray]:
    """Level 0 and a correct chain of it, made as a tool would: each level correctly rounded
    from the stored level below ("stored") or straight from level 0 ("direct")."""
    if how == "stored":
        made = list(stored_chain(level0, fmt))[1:]
    else:
        made = reference_pyramid(level0, fmt)[1:]
    if fmt.is_float:
        return [level0] + [m.astype(fmt.dtype) for m in made]
    return [level0] + [np.clip(np.rint(m), 0, 255).astype(np.uint8) for m in made]


def _swap_level3_texels(path) -> None:
    """Swap texels (0, 0) and (1, 0) of level 3 in the KTX2 file: a 2x2 box over them keeps its
    sum, so level 4 stays the exact reduction of the altered level 3."""
    data = bytearray(path.read_bytes())
    at = ktx2_spec_reader.parse(bytes(data)).levels[3][0]
    data[at:at + 4], data[at + 4:at + 8] = data[at + 4:at + 8], data[at:at + 4]
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["stored", "direct"])
def test_run_of_a_ktx2_chain_fits_it_and_judges_it_only_when_told_what_to_expect(tmp_path, capsys,
                                                                               how):
    fmt = Format.SRGB
    level0 = synthetic.image(37, 23).storage(fmt)
    (path,) = containers.export(tmp_path, "chain", _chain(level0, fmt, how), fmt, ["ktx2"])
    out = tmp_path / "out"
    assert main(["run", str(path), "--strategies", "per-level", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "file:name=chain.ktx2" in printed and "OUT OF TOLERANCE" not in printed
    assert "levels 1-5 match box, in linear light" in printed
    entry = _entry(read_report(out), "file")
    assert entry["strategy"] == "file:name=chain.ktx2" and entry["promise"] == "file"
    assert entry["within_tolerance"] is True and "timing" not in entry
    assert entry["fit"]["filter"] == "mean" and entry["fit"]["misfits"] == []
    assert len(entry["files"]) == 6  # written like a strategy's levels
    png = np.asarray(Image.open(out / entry["files"][3]))
    assert same_bits(png, imageio.read_chain(path).levels[3])

    _swap_level3_texels(path)
    assert not same_bits(imageio.read_chain(path).levels[3], png)
    # reported, not failed: no filter was expected
    assert main(["run", str(path), "--strategies", "per-level", "--out", str(out)]) == 0
    entry = _entry(read_report(out), "file")
    assert entry["within_tolerance"] is True and entry["fit"]["misfits"] == [3]
    assert "level 3 does not" in capsys.readouterr().out
    assert main(["run", str(path), "--strategies", "per-level", "--expect", "box",
                 "--out", str(out)]) == 1
    report = read_report(out)
    entry = _entry(report, "file")
    assert entry["within_tolerance"] is False
    assert {b["level"] for b in entry["breaches"]} == {3}
    assert _entry(report, "per-level")["within_tolerance"] is True  # level 0 is as it was
    assert "file:name=chain.ktx2" in capsys.readouterr().out


def test_run_of_a_file_whose_level0_the_run_does_not_use_says_why_in_one_line(tmp_path, capsys):
    fmt = Format.UNORM
    level0 = synthetic.image(20, 12).storage(fmt)
    (path,) = containers.export(tmp_path, "c", _chain(level0, fmt, "stored"), fmt, ["dds"])
    out = tmp_path / "out"
    assert main(["run", str(path), "--layers", "2", "--strategies", "per-level",
                 "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "c.dds: its own chain is not checked: level 0 of the run is not the file's level 0 " \
           "(e.g. --layers made others)" in lines
    assert [s["name"] for s in read_report(out)["strategies"]] == ["per-level"]


# the file's own chain is fitted too: its NaN and Inf texels are no warning of numpy's
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_nonfinite_texels_of_a_texture_file_are_told_once(tmp_path, capsys):
    fmt = Format.F16
    level0 = synthetic.image(20, 12).storage(fmt).copy()
    level0[1, 2, 0] = np.nan
    level0[3, 4, 1] = np.inf
    (path,) = containers.export(tmp_path, "h", [level0, *_chain(level0, fmt, "stored")[1:]],
                                fmt, ["ktx2"])
    main(["run", str(path), "--strategies", "per-level", "--out", str(tmp_path / "o")])
    printed = capsys.readouterr().out
    line = "h.ktx2: level 0 has 2 non-finite texels (1 NaN, 1 +Inf)"
    # once at load (the file's own note is that line), then each result's propagation
    assert printed.count("level 0 has") == 1
    assert printed.splitlines()[0].startswith(line)


@pytest.mark.parametrize(("name", "damage", "fragment"), [
    ("cut.ktx2", lambda d: d[:100], "truncated"),
    ("magic.dds", lambda d: b"XXXX" + d[4:], "wrong magic"),
], ids=["truncated-ktx2", "dds-magic"])
def test_a_damaged_texture_file_is_one_line_and_exit_2(tmp_path, capsys, no_gpu_work, name,
                                                        damage, fragment):
    level0 = synthetic.image(20, 12).storage(Format.UNORM)
    kind = name.rsplit(".", 1)[1]
    (good,) = containers.export(tmp_path, "good", _chain(level0, Format.UNORM, "stored"),
                                Format.UNORM, [kind])
    bad = tmp_path / name
    bad.write_bytes(damage(good.read_bytes()))
    assert main(["run", str(bad), "--out", str(tmp_path / "o")]) == 2
    one_line_error(capsys, f"cannot open '{bad}'", fragment)
    assert not (tmp_path / "o").exists()


def test_the_size_check_reads_a_dds_array_as_the_file_says(tmp_path):
    """Pillow opens a DDS as one RGBA image: the layers and sRGB would be lost on the way to
    the memory check."""
    level0 = make_layers(synthetic.image(20, 12).storage(Format.SRGB), 3)
    (path,) = containers.export(tmp_path, "a", [level0], Format.SRGB, ["dds"])
    dims = peek_dims(str(path), 1)
    assert (dims.width, dims.height, dims.layers, dims.suggested) == (20, 12, 3, Format.SRGB)
