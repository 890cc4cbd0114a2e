"""Hi-Z custom shaders (lavapipe, validation on): resources/shaders/hiz_min.comp, a conservative
min over each texel's whole footprint, is bit-exact in the one- and two-channel formats; the
deliberately wrong hiz_min_two_taps.comp (2 texels per axis on odd sides too) fails the verdict at
exactly the texels whose dropped third texel was smaller than the taps it took, worked out here
in numpy without the reference's code; `#pragma mipview formats` and storage-image qualifiers of
the new formats are taken, and a format the shader does not declare is refused with the reason."""

from __future__ import annotations

import numpy as np
import pytest

from mipview.check import compare, reference
from mipview.check.verdict import judge_result
from mipview.core.formats import Format, mip_count
from mipview.gpu.session import run_once
from mipview.gpu.shaders.pragmas import DeclarationError, read_declaration
from mipview.gpu.strategies import strategy_class
from mipview.gpu.strategies.specs import expand_specs
from tests.shader_examples import EXAMPLES, example, needs_compilers

pytestmark = needs_compilers

HIZ = example("hiz_min.comp")
TWO_TAPS = example("hiz_min_two_taps.comp")

#: a per-level min that reads the level below through binding 2, a storage image with a format
#: qualifier (QUALIFIER), which ties it to that format
LOAD_STORAGE = """#version 460
#pragma mipview kind per-level
#pragma mipview reduction min
#extension GL_GOOGLE_include_directive : require
#include "mip_level.glsl"
layout(set = 0, binding = 2, QUALIFIER) readonly uniform image2DArray mipSrcImage;
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    int layer = int(gl_GlobalInvocationID.z);
    MipTaps tx = mipAxisTaps(p.x, pc.srcSize.x);
    MipTaps ty = mipAxisTaps(p.y, pc.srcSize.y);
    vec4 m = imageLoad(mipSrcImage, ivec3(tx.first, ty.first, layer));
    for (int j = 0; j < ty.count; ++j) {
        for (int i = 0; i < tx.count; ++i) {
            m = min(m, imageLoad(mipSrcImage, ivec3(tx.first + i, ty.first + j, layer)));
        }
    }
    imageStore(mipDst, ivec3(p, layer), m);
}
"""


def _level0(w: int, h: int, fmt: Format, seed: int, layers: int = 1,
            ties: bool = False) -> np.ndarray:
    """Depth-like values (negative too) for floats, any byte for 8-bit formats; ``ties``: 64
    whole numbers only, so footprints now and then hold the same value twice."""
    rng = np.random.default_rng(seed)
    shape = (layers, h, w, 4) if layers > 1 else (h, w, 4)
    if ties:
        values = rng.integers(-32, 32, shape).astype(fmt.dtype)
    elif fmt.is_float:
        values = (rng.random(shape) * 8.0 - 2.0).astype(fmt.dtype)
    else:
        values = rng.integers(0, 256, shape, dtype=np.uint8)
    return fmt.unpack(fmt.pack(values))


# --- the footprint, worked out here (not with mipview.check.reference) ---------------------------
def _axis(n: int) -> tuple[list[np.ndarray], np.ndarray | None]:
    """Along a side of ``n`` texels: the two texels a 2x2 chain takes for each output texel
    (clamped to the edge: a side of 1 has one), and the third texel of each footprint (2i + 2 on
    an odd side of 2m + 1), or None where the footprint has none."""
    i = np.arange(max(1, n // 2))
    taken = [np.minimum(2 * i, n - 1), np.minimum(2 * i + 1, n - 1)]
    return taken, (2 * i + 2 if n > 1 and n % 2 else None)


def _footprint(below: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the level made from ``below`` (H, W, 4): the min of the 2x2 taps a two-tap chain
    takes, and the min of the texels of the whole footprint (2 or 3 per axis) that those taps
    drop (+inf where there are none: both sides below even or 1)."""
    b = below.astype(np.float64)
    (ty, dy), (tx, dx) = _axis(b.shape[0]), _axis(b.shape[1])
    taken = np.minimum.reduce([b[np.ix_(y, x)] for y in ty for x in tx])
    ys, xs = ty + ([dy] if dy is not None else []), tx + ([dx] if dx is not None else [])
    dropped = [b[np.ix_(y, x)] for a, y in enumerate(ys) for c, x in enumerate(xs)
               if a == 2 or c == 2]
    return taken, np.minimum.reduce(dropped) if dropped else np.full_like(taken, np.inf)


def _lit(below: np.ndarray) -> np.ndarray:
    """Where a texel the two taps drop is strictly smaller than every texel they take."""
    taken, third = _footprint(below)
    return (third < taken).any(axis=-1)


def _pyramids(level0: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The two-tap chain and the whole-footprint (conservative) chain of ``level0``."""
    two, full = [level0.astype(np.float64)], [level0.astype(np.float64)]
    for _ in range(1, mip_count(level0.shape[1], level0.shape[0])):
        two.append(_footprint(two[-1])[0])
        full.append(np.minimum(*_footprint(full[-1])))
    return two, full


# --- hiz_min.comp ------------------------------------------------------------------------------
@pytest.mark.parametrize("size,fmt,layers,group", [
    ((37, 1), Format.R32F, 1, "8"), ((33, 17), Format.R32F, 1, "all"),
    ((1, 5), Format.R32F, 1, "8"), ((19, 9), Format.R16F, 2, "8"),
    ((9, 7), Format.RG8, 1, "8"), ((9, 7), Format.SRGB, 1, "8"),
], ids=lambda v: f"{v[0]}x{v[1]}" if isinstance(v, tuple) else getattr(v, "label", None))
def test_hiz_min_is_bit_exact(gpu, size, fmt, layers, group):
    level0 = _level0(*size, fmt, sum(size), layers)
    mip = run_once(gpu, level0, fmt, expand_specs(f"{HIZ}:GROUP={group}"))
    assert not mip.skipped and not mip.validation_messages
    ref = reference.reference_pyramid(level0, fmt, "min")
    if layers == 1:  # the footprint of this file agrees with the reference's
        assert all(np.array_equal(a, b) for a, b in zip(_pyramids(level0)[1], ref, strict=True))
    for res in mip.results:
        assert res.reduction == "min" and res.promise == "stored"
        assert len(res.levels) == mip_count(*size)
        for k, (got, want) in enumerate(zip(res.levels, ref, strict=True)):
            assert got.dtype == fmt.dtype and np.array_equal(got, want.astype(fmt.dtype)), \
                (str(res.spec), k)
        verdict = judge_result(res, level0, fmt)
        assert verdict.within_tolerance, verdict.summary()


# --- hiz_min_two_taps.comp ---------------------------------------------------------------------
def test_two_taps_fail_exactly_where_the_third_texel_was_smaller(gpu):
    fmt = Format.R32F
    # 37x19 -> 18x9 -> 9x4 -> 4x2 -> 2x1 -> 1x1: odd widths and heights below levels 1, 2, 3
    level0 = _level0(37, 19, fmt, 0, ties=True)
    mip = run_once(gpu, level0, fmt, expand_specs(f"{TWO_TAPS},{HIZ}"))
    assert not mip.skipped and not mip.validation_messages
    two, hiz = mip.results
    assert judge_result(hiz, level0, fmt).within_tolerance
    verdict = judge_result(two, level0, fmt, maps=True)
    got = [lv.astype(np.float64) for lv in two.levels]
    model, full = _pyramids(level0)
    ref = reference.reference_pyramid(level0, fmt, "min")

    # level 1, from level 0 as uploaded: the heatmap lights up exactly where a dropped third
    # texel was the footprint's min, and a third texel equal to the taps' min changes nothing
    taken, third = _footprint(level0)
    lit = _lit(level0)
    assert 0 < lit.sum() < lit.size and (third[..., 0] == taken[..., 0]).any()
    assert np.array_equal(verdict.exact.maps[1] > 0, lit)

    chain_lit, inherited = [], []
    for k in range(1, len(got)):
        # the shader is the two-tap chain bit for bit, each level from the stored level below
        taken, step_lit = _footprint(two.levels[k - 1])[0], _lit(two.levels[k - 1])
        assert np.array_equal(got[k], taken) and np.array_equal(got[k], model[k]), k
        # each level's step heatmap (against the exact min of the stored level below) lights up
        # exactly where a dropped texel of that level was smaller than every texel taken
        step = compare.error_map(two.levels[k], reference.step_level(two.levels[k - 1], fmt,
                                                                     "min"), fmt)
        assert np.array_equal(step > 0, step_lit), k
        # the chain heatmap: errors compound through the stored levels, so it lights up there
        # and wherever a texel below was already too large; never below the true min (one-signed:
        # too far, never too near, which is what makes it non-conservative)
        lit_k = (model[k] != full[k]).any(axis=-1)
        assert np.array_equal(verdict.exact.maps[k] > 0, lit_k), k
        assert not (step_lit & ~lit_k).any() and (got[k] >= ref[k]).all(), k
        chain_lit.append(lit_k.any())
        inherited.append((lit_k & ~step_lit).sum())
    assert not verdict.within_tolerance and verdict.summary().startswith("OUT OF TOLERANCE")
    assert verdict.failing_levels == tuple(k for k, bad in enumerate(chain_lit, 1) if bad)
    assert verdict.failing_levels[0] == 1 and sum(inherited) > 0  # this image shows both


# --- formats and qualifiers ----------------------------------------------------------------------
def test_formats_pragma_takes_the_new_formats():
    text = "#pragma mipview kind per-level\n#pragma mipview formats r32f rg16f r8 {}\n"
    decl = read_declaration(text.format("rg32f"), "x.comp")
    assert decl.formats == (Format.R32F, Format.RG16F, Format.R8, Format.RG32F)
    assert read_declaration((EXAMPLES / "hiz_min.comp").read_text(), "h").formats[:2] == \
        (Format.R32F, Format.R16F)
    with pytest.raises(DeclarationError, match=r"x\.comp:2: .*unknown format 'r9'.*r32f"):
        read_declaration(text.format("r9"), "x.comp")


def test_a_format_the_shader_does_not_declare_is_refused_with_the_reason(gpu, tmp_path):
    src = (EXAMPLES / "hiz_min.comp").read_text()
    path = tmp_path / "depth_only.comp"
    path.write_text("\n".join("#pragma mipview formats r32f" if line.startswith(
        "#pragma mipview formats") else line for line in src.splitlines()) + "\n")
    spec = f"shader:{path}"
    level0 = _level0(7, 5, Format.R32F, 3)
    mip = run_once(gpu, level0, Format.R32F, expand_specs(spec))
    assert not mip.skipped and not mip.validation_messages
    assert judge_result(mip.results[0], level0, Format.R32F).within_tolerance
    why = "the shader declares formats r32f"
    assert strategy_class(spec).unsupported_reason(gpu.caps, Format.R16F, 7, 5) == why
    mip = run_once(gpu, _level0(7, 5, Format.F32, 3), Format.F32, expand_specs(spec))
    assert not mip.results and [r for _, r in mip.skipped] == [why]


@pytest.mark.parametrize("qualifier,other", [("r32f", Format.R16F), ("rg16f", Format.RG32F)])
def test_storage_binding_with_a_new_qualifier(gpu, tmp_path, qualifier, other):
    """Binding 2 with the qualifier of a new format runs on that format (rg16f: a SPIR-V
    extended storage format) and says why not on another."""
    path = tmp_path / f"load_{qualifier}.comp"
    path.write_text(LOAD_STORAGE.replace("QUALIFIER", qualifier))
    fmt = Format.parse(qualifier)
    level0 = _level0(9, 5, fmt, 11)
    mip = run_once(gpu, level0, fmt, expand_specs(f"shader:{path}"))
    assert not mip.skipped and not mip.validation_messages
    ref = reference.reference_pyramid(level0, fmt, "min")
    assert all(np.array_equal(a, b.astype(fmt.dtype))
               for a, b in zip(mip.results[0].levels, ref, strict=True))
    why = strategy_class(f"shader:{path}").unsupported_reason(gpu.caps, other, 9, 5)
    assert why == (f"binding 2 (mipSrcImage) is declared {qualifier}; {other.label} images "
                   f"need {other.label}")
