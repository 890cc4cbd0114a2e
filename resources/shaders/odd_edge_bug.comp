#version 460
// A deliberately WRONG per-level shader, to see what mipview shows for a bug: box_per_level.comp
// with an off-by-one bounds check that skips the last column (row) of a level whenever the level
// below has an odd width (height). Those texels keep mipview's sentinel (magenta, NaN for float
// formats); every other texel is exact, so the heatmaps light up exactly the skipped texels.
#pragma mipview kind per-level
#extension GL_GOOGLE_include_directive : require
#include "mip_level.glsl"

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    // the bug: "odd sides have one texel fewer", subtracted once too often
    if (any(greaterThanEqual(p, pc.dstSize - (pc.srcSize & 1)))) {
        return;
    }
    vec4 v;
    MIP_REDUCE_EXACT(v, p, pc.srcSize, mipLevelLoad)
    mipLevelStore(p, v);
}
