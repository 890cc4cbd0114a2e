#version 460
// A deliberately NOT conservative Hi-Z min, to see what mipview shows for it: hiz_min.comp with
// 2 texels per axis on every side, as a chain of 2x2 min samples (a previous-power-of-two
// sampler chain, niagara's) takes them. On an odd side of 2m+1 it drops the third texel 2i+2
// of each footprint, so a level-L texel can be LARGER than a level-0 texel it covers: an
// occlusion test against it may cull what is visible. The min is taken of stored values and
// stored as picked, so a level's step error is exactly where a dropped texel of the stored
// level below is smaller than every texel taken (an equal one changes nothing): the verdict
// fails (min is held to bit-exactness), level 1's heatmap lights up exactly those texels, and
// later levels' also where the level below was already too large.
//   mipview run --size 37x19 --format r32f --strategies shader:resources/shaders/hiz_min_two_taps.comp,shader:resources/shaders/hiz_min.comp
#pragma mipview kind per-level
#pragma mipview reduction min
#pragma mipview formats r32f r16f rg32f rg16f r8 rg8 f32 f16 unorm srgb
#extension GL_GOOGLE_include_directive : require
#include "mip_level.glsl"

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

// texel q of level L-1 in this invocation's layer, as stored (undecoded), clamped to the edge
#define HIZ_LOAD(q) \
    texelFetch(mipSrc, ivec3(min(q, pc.srcSize - 1), int(gl_GlobalInvocationID.z)), 0)

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    ivec2 q = 2 * p;
    // the bug: "2x2 is the footprint", true only where both sides below are even (or 1)
    vec4 m = min(min(HIZ_LOAD(q), HIZ_LOAD(q + ivec2(1, 0))),
                 min(HIZ_LOAD(q + ivec2(0, 1)), HIZ_LOAD(q + ivec2(1, 1))));
    imageStore(mipDst, ivec3(p, int(gl_GlobalInvocationID.z)), m);
}
