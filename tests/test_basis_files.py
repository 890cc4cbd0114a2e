"""Basis Universal KTX2 files as glTF assets ship them (tests/data/shipped/, MANIFEST.md): ETC1S
in BasisLZ and UASTC, raw and Zstandard, with and without a mip chain. Each opens (``mipview
run FILE`` writes its run), every level equals an independent decode of the same encoded data,
and where the transcoder is not installed, or refuses the bytes, the refusal is one line naming
what would read it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import opengl_basisu
import pytest

from mipview.cli.main import main
from mipview.core.formats import Format
from mipview.io import imageio
from mipview.io.containers import blocks
from mipview.io.containers.blocks import astc, etc
from mipview.io.imageio import ImageLoadError
from tests.stderr import one_line_error

SHIPPED = Path(__file__).parent / "data" / "shipped"

#: file -> (codec, levels, sRGB)
BASIS = {
    "alpha_simple_basis.ktx2": ("ETC1S", 1, True),  # ETC1S with an alpha slice
    "rg_reference_basis.ktx2": ("ETC1S", 1, False),  # two channels: RRR and GGG slices
    "rgba-mipmap-reference-basis.ktx2": ("ETC1S", 7, True),
    "rg_reference_uastc.ktx2": ("UASTC", 1, False),
    "ktx_document_uastc_rdo4_zstd5.ktx2": ("UASTC", 11, True),  # Zstandard, alpha, 11 levels
}
#: what the transcoder's RGBA8 of a two-channel file holds: R in R, G and B, G in alpha
_TWO_CHANNELS = {"rg_reference_basis.ktx2"}


def _independent(name: str) -> list[np.ndarray]:
    """Every level as another decoder reads the same encoded data: the blocks Basis Universal
    transcodes its codecs to without re-encoding (UASTC: ASTC 4x4; ETC1S: ETC1, with EAC alpha
    where the file has alpha), decoded by Arm's astc-encoder and texture2ddecoder."""
    texture = opengl_basisu.open((SHIPPED / name).read_bytes())
    if texture.codec is opengl_basisu.Codec.ETC1S:
        target, codec = ("etc2", etc.ETC2_RGBA) if texture.has_alpha else ("etc1", etc.ETC1)
    else:
        target, codec = "astc_4x4", astc.codec((4, 4), False)
    out = []
    for p in range(texture.levels):
        image = texture.transcode(target, p)
        level = blocks.decode(codec, image.data.tobytes(), image.width, image.height,
                              texture.srgb)
        if level.dtype != np.uint8:  # UNORM ASTC decodes to half floats in [0, 1]
            level = np.rint(level.astype(np.float64) * 255).astype(np.uint8)
        if name in _TWO_CHANNELS:
            level = np.dstack([level[..., 0], level[..., 3], np.zeros_like(level[..., 0]),
                               np.full_like(level[..., 0], 255)])
        out.append(level)
    return out


def _worst(a: np.ndarray, b: np.ndarray) -> int:
    assert a.shape == b.shape, (a.shape, b.shape)
    return int(np.abs(a.astype(np.int16) - b.astype(np.int16)).max())


@pytest.mark.parametrize("name", sorted(BASIS))
def test_every_level_of_a_basis_file_equals_an_independent_decode(name):
    codec, count, srgb = BASIS[name]
    texture = imageio.load(SHIPPED / name).texture
    assert texture.decoded_from == codec and len(texture.levels) == count
    assert texture.fmt is (Format.SRGB if srgb else Format.UNORM)
    assert any("Basis Universal's transcoder" in note for note in texture.notes), texture.notes
    theirs = _independent(name)
    worst = max(_worst(np.asarray(a), b) for a, b in zip(texture.levels, theirs, strict=True))
    # the same encoded data through two decoders: equal but for rounding in the last bit
    assert worst <= 1, worst


def test_the_comparison_sees_a_level_read_wrongly():
    # the check above, shown failing: rows flipped, or the two channels left as stored, are
    # many LSB away from the independent decode
    texture = imageio.load(SHIPPED / "ktx_document_uastc_rdo4_zstd5.ktx2").texture
    theirs = _independent("ktx_document_uastc_rdo4_zstd5.ktx2")
    assert _worst(np.asarray(texture.levels[0])[::-1], theirs[0]) > 100
    rg = imageio.load(SHIPPED / "rg_reference_basis.ktx2").texture
    stored = opengl_basisu.open((SHIPPED / "rg_reference_basis.ktx2").read_bytes()
                                ).transcode("rgba8").data
    assert _worst(stored, np.asarray(rg.levels[0])) > 100
    assert any("shown as R and G" in note for note in rg.notes), rg.notes


@pytest.mark.parametrize("name", sorted(BASIS))
def test_mipview_run_opens_each_basis_file(tmp_path, capsys, name):
    out = tmp_path / "out"
    code = main(["run", str(SHIPPED / name), "--strategies", "per-level", "--out", str(out)])
    assert code == 0, code
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed
    # which transcoder read it reaches the user
    assert "transcoded to RGBA8 by Basis Universal's transcoder (opengl-basisu" in printed


@pytest.mark.parametrize("name", ["alpha_simple_basis.ktx2", "rg_reference_uastc.ktx2"])
def test_without_the_transcoder_a_basis_file_is_one_line_naming_the_extra(tmp_path, capsys,
                                                                       monkeypatch, name):
    monkeypatch.setitem(sys.modules, "opengl_basisu", None)  # import fails: not installed
    out = tmp_path / "out"
    assert main(["run", str(SHIPPED / name), "--strategies", "per-level", "--out",
                 str(out)]) == 2
    one_line_error(capsys, name, BASIS[name][0], "Basis Universal's transcoder",
                   "opengl-basisu", "pip install mipview[basis]")
    assert not out.exists()  # nothing half-written


def test_basis_bytes_the_transcoder_refuses_are_one_line(tmp_path):
    data = bytearray((SHIPPED / "rgba-mipmap-reference-basis.ktx2").read_bytes())
    truncated = tmp_path / "short.ktx2"
    truncated.write_bytes(bytes(data[:len(data) - 100]))
    with pytest.raises(ImageLoadError, match="Basis Universal's transcoder refused it"):
        imageio.load(truncated)
    # BasisLZ is ETC1S, whose vkFormat the specification fixes at VK_FORMAT_UNDEFINED
    data[12:16] = (37).to_bytes(4, "little")
    wrong = tmp_path / "rgba.ktx2"
    wrong.write_bytes(bytes(data))
    with pytest.raises(ImageLoadError, match="scheme 1, BasisLZ.*vkFormat 37"):
        imageio.load(wrong)
