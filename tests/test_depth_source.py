"""A depth buffer as level 0 (``d32``, ``d16``): strategies read it through a sampled
D32_SFLOAT (D16_UNORM) view and write levels 1.. into R32F (R16), bit-exact (min/max) or within
their promise (mean) against the same reference as r32f (r16); the chain image's own level 0 is
never written, so a strategy that read it instead of the depth view would fail on the
sentinel."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check.reference import reference_pyramid
from mipview.check.verdict import judge_result
from mipview.cli.main import main
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu.session import run_once
from mipview.io.containers import dds, ktx2

FMT = Format.D32
DEPTHS = pytest.mark.parametrize("fmt", [Format.D32, Format.D16], ids=lambda f: f.label)
SPECS = ("per-level:reduction=min", "single-pass:reduction=max", "per-level", "npot-exact",
         "subgroup", "register-chain", "single-pass")
#: d16 with fewer: each strategy compiles anew for D16_UNORM on lavapipe; per-level and
#: single-pass cover both ways a strategy reads level 0 (every level alike, or level 0 apart)
D16_SPECS = ("per-level:reduction=min", "single-pass:reduction=max", "per-level", "single-pass")


def _depth(w: int, h: int, seed: int, fmt: Format = FMT) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if fmt.is_float:
        return fmt.unpack(rng.random((h, w, 1), dtype=np.float32))
    return fmt.unpack(rng.integers(0, 65536, (h, w, 1)).astype(fmt.dtype))  # D16 codes


@pytest.mark.parametrize(("fmt", "size"), [(Format.D32, (37, 19)), (Format.D32, (4097, 3)),
                                           (Format.D16, (37, 19)), (Format.D16, (64, 40))],
                         ids=["d32-37x19", "d32-4097x3", "d16-37x19", "d16-64x40"])
def test_depth_level0_through_the_sampled_depth_view(gpu, fmt, size):
    w, h = size
    level0 = _depth(w, h, w, fmt)
    specs = SPECS if fmt is Format.D32 else D16_SPECS
    mip = run_once(gpu, level0, fmt, [StrategySpec.parse(s) for s in specs])
    assert not mip.skipped and not mip.validation_messages
    for res in mip.results:
        assert np.array_equal(res.levels[0], level0), res.spec  # read back from the depth image
        if res.reduction != "mean":
            ref = reference_pyramid(level0, fmt, res.reduction)
            for k, (got, want) in enumerate(zip(res.levels, ref, strict=True)):
                assert np.array_equal(got, want.astype(fmt.dtype)), (str(res.spec), k)
        assert judge_result(res, level0, fmt).within_tolerance, res.spec


@DEPTHS
def test_what_cannot_read_a_depth_image_says_why(gpu, fmt):
    from mipview.gpu.strategies.blit import Blit
    from mipview.gpu.strategies.per_level import PerLevel

    why = Blit.unsupported_reason(gpu.caps, fmt, 64, 64)
    assert why is not None and "cannot blit a depth image" in why
    if fmt is Format.D16:  # bilinear loads sample level 0 through its depth view
        why = PerLevel.unsupported_reason(gpu.caps, fmt, 64, 64, 1, {"load": "bilinear"})
        linear = gpu.caps.supports_source(fmt, 0x1000)  # SAMPLED_IMAGE_FILTER_LINEAR
        assert (why is None) == linear, why
        assert linear or why == "d16 depth cannot be filtered linearly on this device"


def test_depth_outside_0_1_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "far.npy"
    np.save(path, np.linspace(0.0, 2.0, 24 * 16, dtype=np.float32).reshape(16, 24))
    assert main(["run", str(path), "--format", "d32", "--strategies", "per-level",
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds depth in [0, 1]" in err[0] and "to 2" in err[0]
    assert not (tmp_path / "o").exists()


#: format -> (DXGI format of its levels, of its depth; vkFormat of its levels, of its depth)
FILE_IDS = {Format.D32: (41, 40, 100, 126), Format.D16: (56, 55, 70, 124)}


@DEPTHS
@pytest.mark.parametrize("container", ["dds", "ktx2"])
def test_depth_files_open_as_a_depth_source(tmp_path, capsys, container, fmt):
    """DXGI_FORMAT_D32_FLOAT (40), D16_UNORM (55) and VK_FORMAT_D32_SFLOAT (126), D16_UNORM
    (124) files are d32 and d16 depth sources; their chains are written back as R32F and R16
    (their levels' formats), bit for bit."""
    level0 = _depth(13, 9, 5, fmt)
    chain = [lv.astype(fmt.dtype) for lv in reference_pyramid(level0, fmt, "min")]
    data = bytearray((dds if container == "dds" else ktx2).encode(chain[:1], fmt))
    dxgi_levels, dxgi_depth, vk_levels, vk_depth = FILE_IDS[fmt]
    if container == "dds":  # the DX10 header's dxgiFormat: the levels' -> the depth's
        at, was, now = 4 + 124, dxgi_levels, dxgi_depth
    else:  # the header's vkFormat: the levels' -> the depth's
        at, was, now = 12, vk_levels, vk_depth
    assert int.from_bytes(data[at:at + 4], "little") == was
    data[at:at + 4] = now.to_bytes(4, "little")
    path = tmp_path / f"depth.{container}"
    path.write_bytes(bytes(data))
    out = tmp_path / "out"
    assert main(["run", str(path), "--strategies", "per-level:reduction=min", "--out", str(out),
                 "--export", container]) == 0
    report = (out / "report.json").read_text()
    assert f'"format": "{fmt.label}"' in report
    from mipview.io import imageio

    back = imageio.load(str(next(out.rglob(f"*.{container}"))))
    assert back.texture.fmt is fmt.chain
    for got, want in zip(back.texture.levels, chain, strict=True):
        assert np.array_equal(got, want)


def test_one_channel_opened_in_two_holds_its_value_in_both(tmp_path):
    """A min+max pyramid starts with the depth in R and G; in its own format G reads 0."""
    from mipview.io import imageio

    depth = np.random.default_rng(3).random((5, 7), dtype=np.float32)
    np.save(tmp_path / "d.npy", depth)
    src = imageio.load(str(tmp_path / "d.npy"))
    both = src.storage(Format.RG32F)
    assert np.array_equal(both[..., 0], depth) and np.array_equal(both[..., 1], depth)
    own = src.storage(Format.R32F)
    assert np.array_equal(own[..., 0], depth) and not own[..., 1].any()


#: the multi-level strategies and per-level, the two ways of reading level 0 (all levels alike,
#: level 0 apart) and the subgroup and register paths
MINMAX_SPECS = ("per-level:reduction=minmax", "single-pass:reduction=minmax",
                "npot-exact:reduction=minmax", "subgroup:reduction=minmax",
                "register-chain:reduction=minmax")


@pytest.mark.parametrize("size", [(37, 19), (4097, 3), (64, 40)],
                         ids=["37x19", "4097x3", "64x40"])
def test_minmax_from_a_d32_depth_buffer_into_rg32f(gpu, size):
    """d32-rg32f: a D32 level 0, levels 1.. in RG32F with the min in R and the max in G, each
    bit-exact; level 0's depth view reads the depth in both channels (its G=R swizzle). Without
    that swizzle G would read 0, and the max would be 0 where the reference has the depth."""
    fmt = Format.D32_RG32F
    w, h = size
    level0 = fmt.unpack_source(np.random.default_rng(w).random((h, w, 1), dtype=np.float32))
    assert np.array_equal(level0[..., 0], level0[..., 1])
    mip = run_once(gpu, level0, fmt, [StrategySpec.parse(s) for s in MINMAX_SPECS])
    assert not mip.skipped and not mip.validation_messages
    ref = reference_pyramid(level0, fmt, "minmax")
    assert (ref[1][..., 1] > ref[1][..., 0]).any() and not (ref[1][..., 1] == 0).any()
    for res in mip.results:
        assert np.array_equal(res.levels[0], level0), res.spec  # read back from the depth image
        for k, (got, want) in enumerate(zip(res.levels, ref, strict=True)):
            assert np.array_equal(got, want.astype(fmt.dtype)), (str(res.spec), k)
        assert judge_result(res, level0, fmt).within_tolerance, res.spec


def test_a_depth_file_opens_as_d32_rg32f_and_writes_rg32f_levels(tmp_path):
    from mipview.io import imageio

    depth = np.random.default_rng(4).random((9, 13), dtype=np.float32)
    np.save(tmp_path / "d.npy", depth)
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "d.npy"), "--format", "d32-rg32f", "--strategies",
                 "per-level:reduction=minmax", "--out", str(out), "--export", "ktx2"]) == 0
    back = imageio.load(str(next(out.rglob("*.ktx2"))))
    assert back.texture.fmt is Format.RG32F
    level0 = Format.D32_RG32F.unpack_source(depth[..., None])
    for got, want in zip(back.texture.levels, reference_pyramid(level0, Format.D32_RG32F,
                                                                 "minmax"), strict=True):
        assert np.array_equal(got, want.astype(np.float32))


def test_minmax_of_a_one_channel_depth_points_to_d32_rg32f():
    from mipview.core import reductions

    why = reductions.format_reason("minmax", Format.D32)
    assert why is not None and "d32-rg32f" in why and "not d32" in why
    assert reductions.format_reason("minmax", Format.D32_RG32F) is None
