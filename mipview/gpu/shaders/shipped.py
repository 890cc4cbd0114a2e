"""The host interfaces of the shaders that are not a strategy's (mean, batches, measurements),
the constants the shared includes declare, and the blocks of custom strategies. A strategy
declares its shader's interface in its own module, beside its .comp; tests/test_shader_interface.py
finds every declaration and checks it against the GLSL."""

from __future__ import annotations

from mipview.core.formats import Format
from mipview.gpu.shaders.interface import ShaderInterface

# mipview/gpu/shaders/include/mip_common.glsl (ids 10..19)
MIP_COMMON = (("MIP_SRGB", 10, "bool"), ("MIP_UNORM8", 11, "bool"), ("MIP_UNORM16", 12, "bool"),
              ("MIP_UNORM10", 13, "bool"), ("MIP_FLOAT11", 14, "bool"))


def mip_constants(fmt: Format) -> dict[str, bool]:
    """mip_common.glsl's constants for an image of ``fmt``: how mipEncode stores (the code of
    an 8-, 16- or 10/2-bit UNORM image correctly rounded, b10g11r11's grid value)."""
    unorm = not fmt.is_float and not fmt.packing
    return {"MIP_SRGB": fmt.is_srgb, "MIP_UNORM8": unorm and fmt.one == 255.0,
            "MIP_UNORM16": unorm and fmt.one == 65535.0,
            "MIP_UNORM10": fmt.packing == "unorm10", "MIP_FLOAT11": fmt.packing == "float11"}


def gather_mode(fmt: Format, level: int) -> int:
    """How a 2x2 block of ``level`` of an image of ``fmt`` is read in textureGather instructions
    (one per channel, four texels each) instead of four texel loads: 0 not (three or four
    channels: no fewer instructions), 1 red, 2 red and green, 3 red as both (a depth level 0
    under two-channel levels; its view's green is a swizzle, which gather need not honour).
    Where a texel load is a texture instruction, reading one channel four texels at a time
    matters: an H100 read an R32F 1080p level 0 in 12.5 us by texel loads and RGBA8 of the same
    bytes in 5.4 us by bilinear samples, a quarter of the instructions (docs/bench/hiz)."""
    if fmt.channels > 2 or fmt.packing:
        return 0
    if fmt.depth_source and level == 0:
        return 1 if fmt.channels == 1 else 3
    return fmt.channels


# mipview/gpu/shaders/include/batch_common.glsl (includes mip_common.glsl)
BATCH_COMMON = (("BATCH_TILE", 5, "uint"), *MIP_COMMON)
LOCAL_XY = (("local_size_x_id", 0, "uint"), ("local_size_y_id", 1, "uint"))

MEAN = ShaderInterface(
    "mean",
    spec=(*LOCAL_XY, ("MEAN_S", 0, "int"), ("MEAN_LOG", 2, "bool"),
          ("MEAN_DECODE_SRGB", 3, "bool"), ("MEAN_PADDED", 4, "bool"),
          ("MEAN_LOG_EPS", 5, "float"), *MIP_COMMON),
    push=(("gridSize", "ivec2"), ("imageSize", "ivec2"), ("span", "int"), ("firstPass", "int"),
          ("lastPass", "int"), ("scale", "float")))

BATCH_REDUCE = ShaderInterface(
    "batch_reduce",
    spec=(*LOCAL_XY, ("BATCH_WORDS", 2, "uint"), ("BATCH_SCHEDULE", 3, "uint"),
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
    "image_read", spec=(("LINEAR", 0, "bool"), ("GATHER", 1, "int")),
    push=(("size", "ivec2"), ("never", "float")))

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
