"""Every kind of texture file mipview reads, opened the two ways a user opens a file (File > Open
and a drop on the window) and run with the Run button: no dialog, the pyramid shows the file's
levels, and what its reader says of it reaches the status bar. A kind mipview refuses (PVRTC)
is one dialog naming its format, each way.

One small file of each kind: the shipped ones (tests/data/shipped/, tests/data/exr/), and,
where the corpus has none small enough, one built here as the reader's own tests build it
(depth-stencil, Zstandard, ETC2 KTX2; EXRs with depth and parts). Their formats are few (srgb,
unorm, f16, d32), so lavapipe compiles per-level's pipeline for each once."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import zstandard

from mipview.core.formats import mip_count
from mipview.core.specs import StrategySpec
from mipview.io import imageio
from mipview.io.containers import ktx1
from tests.test_block_formats import _INDIVIDUAL
from tests.test_block_formats import _ktx2 as _block_ktx2
from tests.test_shipped_files import _ktx2
from tests.ui.conftest import WAIT_MS
from tests.ui.test_error_paths import open_by_drop, open_by_menu
from tests.ui.test_real_files import click_run
from tests.ui.test_shipped_window import _recorded_status

exr = pytest.importorskip("OpenEXR")

DATA = Path(__file__).parents[1] / "data"
SHIPPED, EXRS = DATA / "shipped", DATA / "exr"
_HEADER = {"compression": exr.ZIP_COMPRESSION, "type": exr.scanlineimage}


def _depth_stencil(folder: Path) -> Path:
    """D32_SFLOAT_S8_UINT (Vulkan 130): the depth, then a word with the stencil."""
    depth = np.linspace(0, 1, 48, dtype=np.float32).reshape(6, 8)
    stencil = np.arange(48, dtype=np.uint32).reshape(6, 8)
    path = folder / "depth_stencil.ktx2"
    texels = np.stack([depth.view(np.uint32), stencil], axis=-1).astype("<u4")
    path.write_bytes(_ktx2(130, 8, 6, [texels.tobytes()]))
    return path


def _zstd(folder: Path) -> Path:
    """R8G8B8A8_UNORM, Zstandard (scheme 2), a chain of four levels."""
    rng = np.random.default_rng(11)
    chain = [rng.integers(0, 256, (max(1, 6 >> p), max(1, 8 >> p), 4), dtype=np.uint8)
             for p in range(4)]
    pack = zstandard.ZstdCompressor().compress
    path = folder / "zstd.ktx2"
    path.write_bytes(_ktx2(37, 8, 6, [pack(a.tobytes()) for a in chain], 2,
                           [a.nbytes for a in chain]))
    return path


def _etc2(folder: Path) -> Path:
    """ETC2_R8G8B8_UNORM (Vulkan 147), 8x8: four individual-mode blocks."""
    path = folder / "etc2.ktx2"
    path.write_bytes(_block_ktx2(147, 8, 8, _INDIVIDUAL * 4))
    return path


def _halves(seed: int, names: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {c: rng.random((10, 12)).astype(np.float16) for c in names}


def _exr_depth(folder: Path) -> Path:
    """A render's R G B A beside its Z, one part, half."""
    path = folder / "render_z.exr"
    exr.File(dict(_HEADER), _halves(5, "RGBAZ")).write(str(path))
    return path


def _exr_parts(folder: Path) -> Path:
    """Two parts: ``beauty`` (R G B A) and ``depth`` (Z), half."""
    planes = _halves(6, "RGBAZ")
    path = folder / "parts.exr"
    exr.File([exr.Part(dict(_HEADER), {c: planes[c] for c in "RGBA"}, "beauty"),
              exr.Part(dict(_HEADER), {"Z": planes["Z"]}, "depth")]).write(str(path))
    return path


def _pvrtc(folder: Path) -> Path:
    """A KTX 1.1 of GL_COMPRESSED_RGB_PVRTC_4BPPV1_IMG blocks, 4x4."""
    path = folder / "pvrtc.ktx"
    path.write_bytes(ktx1.IDENTIFIER + struct.pack("<13I", 0x04030201, 0, 1, 0, 0x8C00, 0, 4,
                                                   4, 0, 0, 1, 1, 0)
                     + struct.pack("<I", 8) + bytes(8))
    return path


def _file(folder: Path, name: str) -> Callable[[Path], Path]:
    return lambda _: folder / name


#: kind -> how its file is had (shipped, or built into a test's folder)
KINDS: dict[str, Callable[[Path], Path]] = {
    "ktx2-rgb": _file(SHIPPED, "g03n2c08.ktx2"),
    "ktx2-depth-stencil": _depth_stencil,
    "ktx2-zstandard": _zstd,
    "ktx2-basislz": _file(SHIPPED, "rgba-mipmap-reference-basis.ktx2"),
    "ktx2-uastc": _file(SHIPPED, "rg_reference_uastc.ktx2"),
    "ktx2-astc": _file(SHIPPED, "astc_ldr_6x6_arraytex_7.ktx2"),
    "ktx2-etc2": _etc2,
    "dds-bc6h": _file(SHIPPED, "bc6h.dds"),
    "dds-bc7": _file(SHIPPED, "DXGI_FORMAT_BC7_UNORM_SRGB.dds"),
    "dds-luminance": _file(SHIPPED, "uncompressed_l.dds"),
    "ktx-1.1": _file(SHIPPED, "ldr.ktx"),
    "exr-z": _exr_depth,
    "exr-luminance-chroma": _file(EXRS, "rec709_yc_96x64.exr"),
    "exr-parts": _exr_parts,
}


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(np.asarray(a).view(np.uint8),
                                                 np.asarray(b).view(np.uint8))


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_opens_by_menu_and_by_drop_and_runs(qtbot, make_window, monkeypatch, dialogs,
                                                      tmp_path, kind):
    path = str(KINDS[kind](tmp_path))
    texture = imageio.load(path).texture
    shown = _recorded_status(monkeypatch)
    w = make_window()
    for open_by in (open_by_menu, open_by_drop):
        with qtbot.waitSignal(w.sigImageOpened, timeout=WAIT_MS) as opened:
            open_by(qtbot, w, monkeypatch, path)
        assert opened.args[0].path == path and not dialogs, (open_by.__name__, dialogs)
        qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
        assert w.opened.source.texture.pixel_format == texture.pixel_format
        assert _same(w.pyramid.panel_levels("source")[0], w.opened.level0)
    click_run(qtbot, w, [StrategySpec("per-level")])
    assert not dialogs and w.output is not None
    ran = w.pyramid.panel_levels("per-level")
    assert _same(ran[0], w.opened.level0)
    assert len(ran) == mip_count(texture.width, texture.height)
    if texture.has_chain:  # the file's own chain beside the strategy's, every level of it
        own = w.pyramid.panel_levels(f"file:name={texture.name}")
        assert len(own) == len(texture.levels)
        assert all(_same(a, b) for a, b in zip(own, texture.levels, strict=True))
    for note in texture.notes:
        assert any(f"{texture.name}: {note}" in line for line in shown), (note, shown)


def test_the_kinds_cover_each_reader_and_their_notes(tmp_path):
    """What the parametrised test above stands on: each kind is what its name says."""
    got = {kind: imageio.load(make(tmp_path)).texture for kind, make in KINDS.items()}
    assert got["ktx2-depth-stencil"].fmt.label == "d32"
    assert any("stencil was dropped" in n for n in got["ktx2-depth-stencil"].notes)
    assert got["ktx2-zstandard"].has_chain
    assert got["ktx2-basislz"].decoded_from == "ETC1S" and got["ktx2-basislz"].has_chain
    assert got["ktx2-uastc"].decoded_from == "UASTC"
    assert got["ktx2-astc"].decoded_from.startswith("ASTC") and got["ktx2-astc"].layers == 7
    assert got["ktx2-etc2"].decoded_from.startswith("ETC")
    assert got["dds-bc6h"].decoded_from.startswith("BC6H")
    assert got["dds-bc7"].decoded_from == "BC7" and got["dds-bc7"].container == "DDS"
    assert got["ktx-1.1"].container == "KTX 1.1"
    assert "luminance/chroma" in got["exr-luminance-chroma"].pixel_format
    for kind, also in (("exr-z", "Z (#Z)"), ("exr-parts", "part 1: Z (#part=1,Z)")):
        assert any(f"the file also holds {also}" in n for n in got[kind].notes), got[kind].notes


@pytest.mark.parametrize("open_by", [open_by_menu, open_by_drop])
def test_a_pvrtc_file_is_one_dialog_naming_its_format(qtbot, make_window, monkeypatch, dialogs,
                                                      tmp_path, open_by):
    path = str(_pvrtc(tmp_path))
    w = make_window()
    open_by(qtbot, w, monkeypatch, path)
    qtbot.waitUntil(lambda: bool(dialogs), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    (title, text), = dialogs
    assert title == "Cannot open image" and "pvrtc.ktx" in text and "PVRTC" in text, text
    assert w.opened is None and w.isEnabled()
