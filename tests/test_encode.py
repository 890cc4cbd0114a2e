"""Compressed chains (mipview.runs.encode, run --encode): every codec round-trips through the
files it writes, read back by mipview's readers and by an independent decoder
(texture2ddecoder, on blocks found by parsing the files here); the three errors keep the
triangle inequality texel by texel; a codec's error shows in the block that holds it; sRGB is
encoded and judged as sRGB; bad input is one line and exit 2."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
import texture2ddecoder as t2d
import zstandard
from PIL import Image

from mipview.check.codec_error import normal_from_xy, texel_maps
from mipview.check.filter_reference import named_reference
from mipview.check.reference import stored_chain
from mipview.cli.main import main
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import StrategyResult
from mipview.core.specs import StrategySpec
from mipview.io import imageio
from mipview.io.containers import encoders
from mipview.runs import encode

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "resources"


# --- images and chains, made on the CPU ----------------------------------------------------------
def _rounded(levels, fmt: Format) -> tuple[np.ndarray, ...]:
    if fmt.is_float:
        return tuple(np.asarray(lv, np.float64).astype(fmt.dtype) for lv in levels)
    return tuple(np.clip(np.rint(lv), 0, 255).astype(np.uint8) for lv in levels)


def _result(level0: np.ndarray, fmt: Format, reduction: str = "mean") -> StrategyResult:
    """A chain as a stored strategy makes it: rounded per level (the box), or the filter's
    exact pyramid rounded (kind=normal, alpha=coverage)."""
    levels = stored_chain(level0, fmt) if reduction == "mean" else \
        named_reference(reduction, level0, fmt)
    spec = StrategySpec("per-level") if reduction == "mean" else StrategySpec(
        "per-level", (("filter", reduction.split(",")[0]),))
    return StrategyResult(spec, _rounded(levels, fmt), reduction=reduction)


def _photo(w: int = 64, h: int = 48) -> np.ndarray:
    with Image.open(RESOURCES / "photo_npot_1000x750.png") as im:
        rgba = np.asarray(im.convert("RGBA"))
    return np.ascontiguousarray(rgba[300:300 + h, 400:400 + w])


def _linear_r8(w: int = 40, h: int = 32) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w]
    r = (127.5 + 120 * np.sin(x / 5.0) * np.cos(y / 7.0)).astype(np.uint8)
    out = np.zeros((h, w, 4), np.uint8)
    out[..., 0] = r
    out[..., 3] = 255
    return out


def _normal_map(w: int = 48, h: int = 40) -> np.ndarray:
    with Image.open(RESOURCES / "normal_256.png") as im:
        rgba = np.asarray(im.convert("RGBA"))
    return np.ascontiguousarray(rgba[:h, :w])


def _cutout(w: int = 37, h: int = 23) -> np.ndarray:
    with Image.open(RESOURCES / "alpha_300x200.png") as im:
        rgba = np.asarray(im.convert("RGBA"))
    return np.ascontiguousarray(rgba[80:80 + h, 120:120 + w])


#: image -> (level 0, format, reduction)
IMAGES = {
    "photo-srgb": lambda: (_photo(), Format.SRGB, "mean"),
    "r8-linear": lambda: (_linear_r8(), Format.R8, "mean"),
    "normal-rg": lambda: (_normal_map(), Format.UNORM, "box,kind=normal"),
    "cutout-npot": lambda: (_cutout(), Format.UNORM, "box,alpha=coverage"),
}
#: the codecs each image is encoded in (a codec that cannot take it is a refusal, tested below)
CASES = [
    ("photo-srgb", "bc1"), ("photo-srgb", "bc3"), ("photo-srgb", "bc7"),
    ("photo-srgb", "etc2-rgb"), ("photo-srgb", "astc-4x4:quality=fast"),
    ("photo-srgb", "astc-8x8:quality=fast"),
    ("r8-linear", "bc4"), ("r8-linear", "eac-r11"), ("r8-linear", "bc7:quality=1"),
    ("normal-rg", "bc5"), ("normal-rg", "eac-rg11"), ("normal-rg", "astc-6x6:quality=fast"),
    ("cutout-npot", "bc3"), ("cutout-npot", "bc7"), ("cutout-npot", "etc2-rgba"),
    ("cutout-npot", "astc-6x6:quality=fast"),
]


# --- an independent reading of the files: the specification's fields, texture2ddecoder -----------
def _t2d(name: str, blocks: bytes, w: int, h: int, block: tuple[int, int]) -> np.ndarray:
    """texture2ddecoder's decode of one image, (h, w, 4) uint8 RGBA."""
    bw, bh = block
    pw, ph = -(-w // bw) * bw, -(-h // bh) * bh
    if name.startswith("astc"):
        raw = t2d.decode_astc(blocks, pw, ph, bw, bh)
    else:
        fn = {"bc1": "decode_bc1", "bc3": "decode_bc3", "bc4": "decode_bc4", "bc5": "decode_bc5",
              "bc7": "decode_bc7", "etc2-rgb": "decode_etc2", "etc2-rgba": "decode_etc2a8",
              "eac-r11": "decode_eacr", "eac-rg11": "decode_eacrg"}[name]
        raw = getattr(t2d, fn)(blocks, pw, ph)
    bgra = np.frombuffer(raw, np.uint8).reshape(ph, pw, 4)
    return bgra[:h, :w, [2, 1, 0, 3]]


def _ktx2_levels(path: Path) -> tuple[int, int, list[bytes]]:
    """vkFormat, supercompressionScheme and every level's (inflated) bytes, from the KTX 2.0
    header and level index as the specification lays them out."""
    data = path.read_bytes()
    assert data[:12] == b"\xabKTX 20\xbb\r\n\x1a\n"
    vk, _, _, _, _, _, _, n, scheme = struct.unpack_from("<9I", data, 12)
    levels = []
    for p in range(n):
        offset, length, raw = struct.unpack_from("<3Q", data, 80 + 24 * p)
        blob = data[offset:offset + length]
        levels.append(zstandard.ZstdDecompressor().decompress(blob, max_output_size=raw)
                      if scheme == 2 else blob)
        assert len(levels[-1]) == raw
    return vk, scheme, levels


def _dds_levels(path: Path, sizes: list[int]) -> tuple[int, list[bytes]]:
    """DXGI format and each level's bytes (one layer) of a DX10 DDS."""
    data = path.read_bytes()
    assert data[:4] == b"DDS " and data[84:88] == b"DX10"
    dxgi = struct.unpack_from("<I", data, 128)[0]
    offset, levels = 148, []
    for size in sizes:
        levels.append(data[offset:offset + size])
        offset += size
    assert offset == len(data)
    return dxgi, levels


#: what an independent 8-bit decode may differ by, in LSB: ASTC LDR and EAC decode to more than
#: 8 bits (mipview keeps them; texture2ddecoder takes the top 8); the others are 8-bit formats
_TOLERANCE = {"astc": 1.0, "eac": 1.0}


def _tolerance(name: str) -> float:
    return next((t for k, t in _TOLERANCE.items() if name.startswith(k)), 0.0)


@pytest.mark.parametrize(("image", "codec"), CASES, ids=[f"{i}-{c}" for i, c in CASES])
def test_round_trip_through_files(image, codec, tmp_path):
    level0, fmt, reduction = IMAGES[image]()
    (choice,) = encode.parse_codecs(codec)
    chain = encode.encode_result(_result(level0, fmt, reduction), level0, fmt, choice)
    files = encode.export(tmp_path, "chain", chain, ("ktx2", "dds"), zstd=None)
    files += encode.export(tmp_path / "z", "chain", chain, ("ktx2",), zstd=5)
    name, block = choice.codec.name, choice.codec.block
    held = chain.judged
    tol = _tolerance(name) + (1e-9 if chain.normal else 0.0)  # z is computed in float64
    sizes = [len(b[0]) for b in chain.blocks]
    for path in files:
        if path.suffix == ".ktx2":
            vk, scheme, raw = _ktx2_levels(path)
            assert vk == (choice.codec.vk[1] if fmt.is_srgb else choice.codec.vk[0])
            assert scheme == (2 if path.parent.name == "z" else 0)
        else:
            dxgi, raw = _dds_levels(path, sizes)
            assert dxgi == (choice.codec.dxgi[1] if fmt.is_srgb else choice.codec.dxgi[0])
        ours = imageio.load(path).texture.levels  # mipview's own reader
        assert len(raw) == len(ours) == len(chain.decoded)
        for p, (blocks, decoded) in enumerate(zip(raw, chain.decoded, strict=True)):
            h, w = decoded.shape[:2]
            other = _t2d(name, blocks, w, h, block).astype(np.float64)
            if chain.normal and choice.codec.channels == 2:
                other = normal_from_xy(other)
            diff = np.abs(other[..., :held] - decoded[..., :held]).max()
            assert diff <= tol, f"{path.name} level {p}: texture2ddecoder differs by {diff}"
            read = np.asarray(ours[p], np.float64)
            if ours[p].dtype != np.uint8:
                read = read * 255.0
            if chain.normal and choice.codec.channels == 2:
                read = normal_from_xy(read)
            assert np.array_equal(read[..., :held], decoded[..., :held]), (path.name, p)
    # the KTX2 file carries the format's transfer: sRGB codes stay codes
    assert chain.figures[0].filter.max_error == 0.0  # level 0 is the image itself


def test_every_codec_is_in_the_round_trips():
    assert {encoders.CODECS[c.split(":")[0]].name for _, c in CASES} == set(encoders.CODECS)


def _triangle(filt: np.ndarray, codec: np.ndarray, total: np.ndarray) -> bool:
    # float64 differences of values under 256 round by ~1e-13 at most
    return bool(np.all(total <= filt + codec + 1e-9))


@pytest.mark.parametrize(("image", "codec"), [("photo-srgb", "bc1"), ("cutout-npot", "bc7"),
                                              ("r8-linear", "eac-r11"),
                                              ("normal-rg", "bc5")])
def test_total_within_filter_plus_codec_at_every_texel(image, codec):
    level0, fmt, reduction = IMAGES[image]()
    (choice,) = encode.parse_codecs(codec)
    res = _result(level0, fmt, reduction)
    chain = encode.encode_result(res, level0, fmt, choice)
    reference = named_reference(reduction, level0, fmt)
    failed_without_codec = 0
    for p, (stored, decoded) in enumerate(zip(res.levels, chain.decoded, strict=True)):
        filt, cod, total = texel_maps(stored, decoded, reference[p], fmt, chain.judged)
        assert _triangle(filt, cod, total), f"level {p}"
        # the figures are these maps' maxima
        figures = chain.figures[p]
        assert figures.filter.max_error == pytest.approx(filt.max())
        assert figures.codec.max_error == pytest.approx(cod.max())
        assert figures.total.max_error == pytest.approx(total.max())
        # the check fails where the codec's share is left out
        failed_without_codec += not _triangle(filt, np.zeros_like(cod), total)
    assert failed_without_codec


def test_codec_error_sits_in_the_block_that_holds_it():
    """A flat image whose last, partial column of blocks (x 36, of 37) holds two colours on
    either side of a diagonal: BC1 cannot hold both exactly together with the flat colour
    around them, and its error shows in that block, nowhere else."""
    level0 = np.zeros((23, 37, 4), np.uint8)
    level0[..., 3] = 255  # black and opaque: every codec holds it exactly
    edge = level0[16:20, 36]
    edge[:2, :3] = (255, 40, 0)
    edge[2:, :3] = (0, 90, 255)
    (choice,) = encode.parse_codecs("bc1")
    res = StrategyResult(StrategySpec("per-level"), (level0,))
    chain = encode.encode_result(res, level0, Format.UNORM, choice)
    figures = chain.figures[0]
    assert figures.codec.max_error > 0
    assert figures.worst_codec_block == (0, 4, 9)
    _, cod, _ = texel_maps(level0, chain.decoded[0], level0, Format.UNORM, 3)
    outside = cod.max(axis=-1).copy()
    outside[16:20, 36:] = 0.0
    assert outside.max() == 0.0
    # the same colours inside the image, not at its edge, move the block with them
    moved = np.zeros_like(level0)
    moved[..., 3] = 255
    moved[4:8, 8] = edge
    chain = encode.encode_result(StrategyResult(StrategySpec("per-level"), (moved,)), moved,
                                 Format.UNORM, choice)
    assert chain.figures[0].worst_codec_block == (0, 1, 2)


def test_srgb_is_encoded_and_judged_as_srgb(tmp_path):
    """A black and white checker: its level 1 is code 188 as sRGB (the mean of light) and 128
    as UNORM; the encoded chains follow each, and the file says which."""
    level0 = np.zeros((16, 16, 4), np.uint8)
    level0[::2, ::2, :3] = level0[1::2, 1::2, :3] = 255
    level0[..., 3] = 255
    chains = {}
    for fmt in (Format.SRGB, Format.UNORM):
        (choice,) = encode.parse_codecs("astc-4x4:quality=thorough")
        chains[fmt] = encode.encode_result(_result(level0, fmt), level0, fmt, choice)
    srgb, unorm = chains[Format.SRGB], chains[Format.UNORM]
    assert abs(srgb.decoded[1][..., :3].mean() - 188) <= 1
    assert abs(unorm.decoded[1][..., :3].mean() - 128) <= 1
    for chain, fmt in ((srgb, Format.SRGB), (unorm, Format.UNORM)):
        (path,) = encode.export(tmp_path, fmt.label, chain, ("ktx2",))
        assert _ktx2_levels(path)[0] == chain.choice.codec.vk[fmt.is_srgb]
    # a wrong transfer would show: the UNORM decode judged against the sRGB reference
    srgb_ref = named_reference("mean", level0, Format.SRGB)[1]
    _, _, total = texel_maps(unorm.decoded[1], unorm.decoded[1], srgb_ref, Format.SRGB, 3)
    assert total.max() > 50
    assert srgb.figures[1].total.max_error < 5


def test_normal_map_gets_its_z_rebuilt():
    level0, fmt, reduction = IMAGES["normal-rg"]()
    (choice,) = encode.parse_codecs("bc5")
    chain = encode.encode_result(_result(level0, fmt, reduction), level0, fmt, choice)
    assert chain.judged == 3 and chain.normal
    for p, level in enumerate(chain.decoded):
        v = level[..., :3] / 127.5 - 1.0
        assert np.allclose(np.linalg.norm(v, axis=-1), 1.0, atol=1e-9), p
    # without z the blue channel would be off by the whole vector's z
    assert max(f.total.max_error for f in chain.figures) < 40
    assert np.abs(level0[..., 2].astype(float) - 0).max() > 100


def test_alpha_coverage_after_encoding():
    level0, fmt, reduction = IMAGES["cutout-npot"]()
    (choice,) = encode.parse_codecs("bc3")
    chain = encode.encode_result(_result(level0, fmt, reduction), level0, fmt, choice)
    covers = [f.coverage for f in chain.figures]
    assert all(c is not None for c in covers)
    a = level0[..., 3] / 255.0
    assert covers[0] == pytest.approx(float(np.mean(a >= 0.5)), abs=0.05)
    plain = encode.encode_result(_result(level0, fmt), level0, fmt, choice)
    assert all(f.coverage is None for f in plain.figures)  # not a coverage chain: not asked


def test_hdr_astc_on_floats():
    y, x = np.mgrid[0:20, 0:24]
    level0 = np.ones((20, 24, 4), np.float16)  # a smooth HDR gradient, up to 6
    level0[..., 0] = 3 + x / 8
    level0[..., 1] = 2 + 2 * np.sin(y / 3)
    level0[..., 2] = 0.25 + (x + y) / 8
    (choice,) = encode.parse_codecs("astc-6x6")
    chain = encode.encode_result(_result(level0, Format.F16), level0, Format.F16, choice)
    assert chain.hdr
    # values above 1 survive (an LDR profile clamps them), within a few percent on average
    assert chain.decoded[0][..., 0].max() > 5
    assert 0 < chain.figures[0].codec.mean_error < 0.05  # relative error
    with pytest.raises(MipviewError, match="astc"):
        encode.encode_result(_result(level0, Format.F16), level0, Format.F16,
                             encode.parse_codecs("bc7")[0])


@pytest.mark.parametrize(("text", "fmt", "needle"), [
    ("bc9", Format.UNORM, "unknown codec 'bc9'"),
    ("bc7:quality=slow", Format.UNORM, "quality 'slow' is not one of 0, 1"),
    ("bc7:speed=1", Format.UNORM, "unknown setting"),
    ("bc6h", Format.F16, "BC6H"),
    ("bc4", Format.SRGB, "no sRGB variant"),
    ("bc7", Format.F32, "8-bit codes"),
    ("bc1", Format.RGBA16, "8-bit images"),
    ("bc5", Format.UNORM, "red and green only"),
    ("eac-r11", Format.RG8, "red only"),
])
def test_refusals_name_the_reason(text, fmt, needle):
    with pytest.raises(MipviewError, match=needle):
        choices = encode.parse_codecs(text)
        why = encode.refusal(choices, fmt, (_result(_photo(8, 8), Format.UNORM),))
        if why:
            raise MipviewError(why)
    ok = encode.refusal(encode.parse_codecs("bc7"), Format.UNORM,
                        (_result(_photo(8, 8), Format.UNORM),))
    assert ok is None


def test_a_missing_encoder_names_the_extra(monkeypatch):
    real = encoders.importlib.import_module

    def missing(name, *a):
        if name == "etcpak":
            raise ImportError(name)
        return real(name, *a)
    monkeypatch.setattr(encoders.importlib, "import_module", missing)
    with pytest.raises(MipviewError, match=r"pip install mipview\[encode\]"):
        encoders.check_installed(encode.parse_codecs("bc7"))
    encoders.check_installed(encode.parse_codecs("astc-6x6"))  # another encoder: still there


# --- the command line, through the GPU --------------------------------------------------------------
@pytest.fixture
def photo_png(tmp_path):
    path = tmp_path / "photo.png"
    Image.fromarray(_photo(37, 23)).save(path)
    return path


def test_run_encode_prints_writes_and_reports(photo_png, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(photo_png), "--strategies", "per-level", "--encode",
                 "bc7,astc-6x6:quality=fast", "--export", "ktx2,dds", "--zstd", "3",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "per-level as bc7" in printed and "per-level as astc-6x6:quality=fast" in printed
    import json
    entry = json.loads((out / "report.json").read_text())["strategies"][0]
    assert [e["codec"] for e in entry["encoded"]] == ["bc7", "astc-6x6:quality=fast"]
    levels = entry["encoded"][0]["levels"]
    assert len(levels) == 6 and {"filter", "codec", "total", "worst_block"} <= set(levels[0])
    assert {"per-level/per-level.bc7.ktx2", "per-level/per-level.bc7.dds",
            "per-level/per-level.astc-6x6-qfast.ktx2"} <= set(entry["files"])
    vk, scheme, _ = _ktx2_levels(out / "per-level" / "per-level.bc7.ktx2")
    assert (vk, scheme) == (145, 2)  # an 8-bit PNG opens as unorm


@pytest.mark.parametrize(("extra", "needle"), [
    (["--encode", "bc9"], "unknown codec"),
    (["--encode", "bc5"], "red and green only"),
    (["--encode", "bc4", "--format", "srgb"], "no sRGB variant"),
    (["--zstd", "3"], "give --encode too"),
    (["--encode", "bc7", "--zstd", "30"], "1 to 22"),
])
def test_run_encode_bad_input_is_one_line_and_exit_2(photo_png, tmp_path, capsys, extra,
                                                     needle):
    out = tmp_path / "out"
    assert main(["run", str(photo_png), "--strategies", "per-level", "--out", str(out),
                 *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
    assert not out.exists()


def test_api_encode_judges_each_strategy_in_each_codec():
    from mipview import api

    image = _photo(24, 20)
    done = api.run(image, strategies="per-level,blit", format="srgb")
    chains = api.encode(done, "bc7,etc2-rgb")
    assert set(chains) == {"per-level", "blit"}
    assert set(chains["per-level"]) == {"bc7", "etc2-rgb"}
    chain = chains["per-level"]["bc7"]
    assert len(chain.figures) == len(done.strategies["per-level"].levels)
    assert chain.figures[0].filter.max_error == 0.0 and chain.figures[0].codec.max_error > 0
    with pytest.raises(MipviewError, match="no sRGB variant"):
        api.encode(done, "bc4")


def test_an_encoder_refusing_a_level_is_one_clear_error(monkeypatch):
    import etcpak

    def refuse(data, w, h):
        raise ValueError("dimensions not supported")
    monkeypatch.setattr(etcpak, "compress_bc1", refuse)
    level0 = _cutout()
    with pytest.raises(MipviewError, match=r"bc1 could not encode a 37x23 level: dimensions"):
        encode.encode_result(_result(level0, Format.UNORM), level0, Format.UNORM,
                             encode.parse_codecs("bc1")[0])


def test_run_without_the_encoder_says_which_extra(photo_png, tmp_path, capsys, monkeypatch):
    real = encoders.importlib.import_module

    def missing(name, *a):
        if name == "etcpak":
            raise ImportError(name)
        return real(name, *a)
    monkeypatch.setattr(encoders.importlib, "import_module", missing)
    out = tmp_path / "out"
    assert main(["run", str(photo_png), "--strategies", "per-level", "--encode", "bc7",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install mipview[encode]" in err[0]
    assert not out.exists()



ETCPAK_CODECS = ("bc1", "bc1:quality=dither", "bc3", "bc4", "bc5", "bc7", "etc2-rgb", "etc2-rgba",
                 "eac-r11", "eac-rg11")


@pytest.mark.parametrize("text", ETCPAK_CODECS)
def test_a_level_encoded_in_strips_is_the_level_encoded_whole(text, monkeypatch):
    # etcpak holds the interpreter lock for a whole call, so a level goes to it in strips of
    # block rows (the window's stalls); joined, they must be the blocks of one whole call, also
    # where the last strip is short and the sides are not whole blocks
    level = np.random.default_rng(5).integers(0, 256, (157, 90, 4), dtype=np.uint8)
    choice, = encoders.parse_codecs(text)
    monkeypatch.setattr(encoders, "BLOCKS_PER_CALL", 10 ** 9)
    whole = encoders.encode_level(choice, level, Format.UNORM)
    monkeypatch.setattr(encoders, "BLOCKS_PER_CALL", 45)  # two block rows of 23 blocks a call
    strips = encoders.encode_level(choice, level, Format.UNORM)
    assert strips == whole
    # a different level gives other blocks: the comparison is not blind
    monkeypatch.setattr(encoders, "BLOCKS_PER_CALL", 10 ** 9)
    flipped = encoders.encode_level(choice, level[::-1], Format.UNORM)
    assert flipped != whole
