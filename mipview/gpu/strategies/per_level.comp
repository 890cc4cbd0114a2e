#version 460
// per_level.comp: one output texel per invocation, one dispatch per level.
// The source level is read through a sampled view (texelFetch): that needs no storage-image
// format; the destination is a format-less write-only image, so one SPIR-V serves every format
// (sRGB encoding is a specialization constant in mip_common.glsl). sRGB texel loads come from the
// UNORM view and are decoded here (the sampler's decode is the device's approximation, and this
// strategy promises each level within 0.5 LSB of the exact reduction of the level below); the
// BILINEAR sample needs the sRGB view, whose filter averages in linear light.
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;

// Fixed per pipeline (one per kind of level): the general 2/3-tap loop costs registers that the
// common even case does not need, and registers decide how many invocations stay resident.
layout(constant_id = 2) const bool EVEN = false;      // source sides even: a plain 2x2 box
layout(constant_id = 3) const bool BILINEAR = false;  // EVEN, and one linear sample instead
// 0: the mean; 1: min, 2: max, 3: minmax (mipExtreme) over the whole footprint (2 or 3 texels
// per axis: a Hi-Z level is conservative at every size). They pick a stored value, so they read
// and store storage values as they are (the sRGB curve is monotonic): no decode, no rounding.
layout(constant_id = 4) const int REDUCTION = 0;

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;
layout(set = 0, binding = 1) writeonly uniform image2DArray dstLevel;

layout(push_constant) uniform PerLevelPush {
    ivec2 srcSize;
    ivec2 dstSize;
} pc;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    int layer = int(gl_GlobalInvocationID.z);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
#define PER_LEVEL_STORED(q) texelFetch(srcLevel, ivec3(q, layer), 0)
    if (REDUCTION != 0) {
        vec4 r;
        MIP_EXTREME_EXACT(r, REDUCTION, p, pc.srcSize, PER_LEVEL_STORED)
        imageStore(dstLevel, ivec3(p, layer), r);
        return;
    }
#define PER_LEVEL_LOAD(q) mipDecode(texelFetch(srcLevel, ivec3(q, layer), 0))
    vec4 v;
    if (BILINEAR) {
        // the centre of the 2x2 block: weights exactly 1/4 each
        v = textureLod(srcLevel, vec3(vec2(2 * p + 1) / vec2(pc.srcSize), float(layer)), 0.0);
    } else if (EVEN) {
        ivec2 q = 2 * p;
        v = mipBox(PER_LEVEL_LOAD(q), PER_LEVEL_LOAD(q + ivec2(1, 0)),
                   PER_LEVEL_LOAD(q + ivec2(0, 1)), PER_LEVEL_LOAD(q + ivec2(1, 1)));
    } else {
        MIP_REDUCE_EXACT(v, p, pc.srcSize, PER_LEVEL_LOAD)
    }
    imageStore(dstLevel, ivec3(p, layer), mipEncode(v));
}
