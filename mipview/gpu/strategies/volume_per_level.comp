#version 460
// volume_per_level.comp: one texel of a volume's level per invocation, one dispatch per level
// (per_level.comp in 3D). Reads the stored level below through a sampled 3D view (texelFetch;
// sRGB through the UNORM view, decoded here exactly), writes a format-less 3D storage image.
// Host side: mipview/gpu/strategies/volume_per_level.py.
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"
#include "mip_volume.glsl"

layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

// 0 the mean; 1 min, 2 max, 3 minmax (mipExtreme): stored values picked, no decode or rounding
layout(constant_id = 0) const int REDUCTION = 0;

layout(set = 0, binding = 0) uniform sampler3D srcLevel;
layout(set = 0, binding = 1) writeonly uniform image3D dstLevel;

layout(push_constant) uniform VolumeLevelPush {
    ivec3 srcSize;
    ivec3 dstSize;
} pc;

void main() {
    ivec3 p = ivec3(gl_GlobalInvocationID);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
#define VOLUME_LOAD(q) (REDUCTION == 0 ? mipDecode(texelFetch(srcLevel, q, 0)) \
                                       : texelFetch(srcLevel, q, 0))
    vec4 v;
    MIP_REDUCE_VOLUME(v, REDUCTION, p, pc.srcSize, VOLUME_LOAD)
    imageStore(dstLevel, p, REDUCTION == 0 ? mipEncode(v) : v);
}
