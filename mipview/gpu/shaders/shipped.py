"""Every shader's host interface, declared once (tests/test_shader_interface.py reads the GLSL in
shaders/ and checks each declaration against it). Shared includes are shared tuples here too."""

from __future__ import annotations

from mipview.core.formats import Format
from mipview.gpu.shaders.interface import ShaderInterface

# mipview/gpu/shaders/include/mip_common.glsl (ids 10..19)
MIP_COMMON = (("MIP_SRGB", 10, "bool"), ("MIP_UNORM8", 11, "bool"))


def mip_constants(fmt: Format) -> dict[str, bool]:
    """mip_common.glsl's constants for an image of ``fmt``: how mipEncode stores."""
    return {"MIP_SRGB": fmt.is_srgb, "MIP_UNORM8": not fmt.is_float}


# mipview/gpu/shaders/include/batch_common.glsl (includes mip_common.glsl)
BATCH_COMMON = (("BATCH_TILE", 5, "uint"), *MIP_COMMON)
_LOCAL_XY = (("local_size_x_id", 0, "uint"), ("local_size_y_id", 1, "uint"))

PER_LEVEL = ShaderInterface(
    "per_level",
    spec=(*_LOCAL_XY, ("EVEN", 2, "bool"), ("BILINEAR", 3, "bool"), *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("dstSize", "ivec2")))

REGISTER_CHAIN = ShaderInterface(
    "register_chain",
    spec=(*_LOCAL_XY, ("RC_DEPTH", 2, "int"), ("RC_EVEN", 3, "bool"), ("RC_ROUND_HALF", 4, "bool"),
          *MIP_COMMON),
    push=(("srcSize", "ivec2"),))

FILTER_LEVEL = ShaderInterface(
    "filter_level",
    spec=(*_LOCAL_XY, ("FL_PASS", 2, "int"), ("FL_PREMULTIPLIED", 3, "bool"),
          ("FL_NORMAL", 4, "bool"), ("FL_COVERAGE", 5, "bool"), *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("dstSize", "ivec2"), ("tapsX", "int"), ("offsetX", "int"),
          ("tapsY", "int"), ("offsetY", "int")))

FILTER_COVERAGE = ShaderInterface(
    "filter_coverage",
    spec=(*_LOCAL_XY, ("FC_PASS", 2, "int"), ("FC_CUTOFF", 3, "float"),
          ("FC_ALPHA_TEST", 4, "float"), ("FC_SHARED_BINS", 5, "int"), *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("dstSize", "ivec2"), ("level", "int"), ("layers", "int"),
          ("store", "int")))

FILTER_PAIRS = ShaderInterface(
    "filter_pairs",
    spec=(("FP_EDGE", 0, "int"), ("FP_SPAN", 1, "int"), ("FP_ROWS", 2, "int"),
          ("FP_BAND", 3, "int"), ("FP_TAPS", 4, "int"), *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("midSize", "ivec2"), ("dstSize", "ivec2"), ("tapsMid", "ivec2"),
          ("offsetMid", "ivec2"), ("tapsDst", "ivec2"), ("offsetDst", "ivec2"), ("pair", "int"),
          ("span", "int"), ("rows", "int"), ("bands", "int"), ("rowTable", "int")))

# mipview/gpu/shaders/include/spd_reduce.glsl, the body of both single-pass shaders
_SPD_SPEC = (("SP_REDUCTION", 0, "int"), ("SP_BILINEAR", 1, "bool"), ("SP_PREFETCH", 2, "bool"),
             ("SP_SRC_BUFFER", 3, "bool"), ("SP_SRC_EVEN", 4, "bool"), ("SP_TAIL", 5, "int"),
             ("SP_TAIL_EVEN", 6, "bool"), *MIP_COMMON)
_SPD_PUSH = (("srcSize", "ivec2"), ("tileOffset", "ivec2"), ("tileLevels", "int"),
             ("tailLevels", "int"), ("groupsPerLayer", "int"), ("srcOffset", "int"),
             ("handoffOffset", "int"), ("scratchOffset", "int"), ("scratchSize", "int"),
             ("regionX", "int"), ("regionTiles", "int"))
SINGLE_PASS = ShaderInterface("single_pass", _SPD_SPEC, _SPD_PUSH)
SINGLE_PASS_F16 = ShaderInterface("single_pass_f16", _SPD_SPEC, _SPD_PUSH)

SUBGROUP = ShaderInterface(
    "subgroup",
    spec=(("LAYOUT", 0, "int"), ("TILE_LEVELS", 1, "int"), ("DEBUG_LANES", 2, "bool"),
          ("BILINEAR", 3, "bool"), ("PREFETCH", 4, "bool"), ("MODE", 5, "int"),
          ("SRC_SCRATCH", 6, "bool"), *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("levels", "int"), ("srcScratch", "int"), ("dstScratch", "int"),
          ("regionX", "int"), ("regionTiles", "int")))

NPOT_EXACT = ShaderInterface(
    "npot_exact",
    spec=(("local_size_x_id", 0, "uint"), ("NPOT_A_SIDE", 1, "int"), ("NPOT_B_SIDE", 2, "int"),
          ("NPOT_DECODE_SRGB", 3, "bool"), ("NPOT_ROUND_HALF", 4, "bool"),
          ("NPOT_LEVELS", 5, "int"), ("NPOT_TAIL", 6, "int"), *MIP_COMMON),
    push=(("srcSize", "ivec2"), ("tile", "int"), ("groupsPerLayer", "int")))

MEAN = ShaderInterface(
    "mean",
    spec=(*_LOCAL_XY, ("MEAN_S", 0, "int"), ("MEAN_LOG", 2, "bool"),
          ("MEAN_DECODE_SRGB", 3, "bool"), ("MEAN_PADDED", 4, "bool"),
          ("MEAN_LOG_EPS", 5, "float"), *MIP_COMMON),
    push=(("gridSize", "ivec2"), ("imageSize", "ivec2"), ("span", "int"), ("firstPass", "int"),
          ("lastPass", "int"), ("scale", "float")))

BATCH_REDUCE = ShaderInterface(
    "batch_reduce",
    spec=(*_LOCAL_XY, ("BATCH_WORDS", 2, "uint"), ("BATCH_SCHEDULE", 3, "uint"),
          ("BATCH_DEBUG_LEVEL", 4, "int"), *BATCH_COMMON),
    push=(("level", "int"), ("image", "uint"), ("imageCount", "uint"), ("bucketBits", "uint")))
BATCH_SCAN = ShaderInterface(
    "batch_scan", spec=BATCH_COMMON, push=(("imageCount", "uint"), ("row", "uint")))
BATCH_BUCKETS = ShaderInterface(
    "batch_buckets", spec=BATCH_COMMON,
    push=(("imageCount", "uint"), ("row", "uint"), ("bucketBits", "uint")))

BUFFER_COPY = ShaderInterface("buffer_copy", push=(("count", "uint"),))
CACHE_EVICT = ShaderInterface("cache_evict", push=(("count", "uint"), ("never", "uint")))
IMAGE_READ = ShaderInterface(
    "image_read", spec=(("LINEAR", 0, "bool"),), push=(("size", "ivec2"), ("never", "float")))

# The push blocks of custom strategies (docs/custom-strategies.md): mipview/gpu/shaders/include/mip_level.glsl
# and mip_chain.glsl. Not shipped shaders: every custom shader is checked against these when it
# is loaded (mipview/gpu/strategies/custom_shader.py); its block may stop after any member.
MIP_LEVEL = ShaderInterface(
    "mip_level", spec=MIP_COMMON,
    push=(("srcSize", "ivec2"), ("dstSize", "ivec2"), ("level", "int"), ("levels", "int")))
MIP_CHAIN = ShaderInterface(
    "mip_chain", spec=MIP_COMMON,
    push=(("srcSize", "ivec2"), ("levels", "int"), ("layers", "int"), ("dispatch", "int"),
          ("groups", "int")))

ALL: tuple[ShaderInterface, ...] = (
    PER_LEVEL, REGISTER_CHAIN, FILTER_LEVEL, FILTER_COVERAGE, FILTER_PAIRS, SINGLE_PASS, SINGLE_PASS_F16, SUBGROUP, NPOT_EXACT, MEAN, BATCH_REDUCE, BATCH_SCAN,
    BATCH_BUCKETS, BUFFER_COPY, CACHE_EVICT, IMAGE_READ)
