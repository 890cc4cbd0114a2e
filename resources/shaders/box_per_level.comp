#version 460
// A naive per-level box filter as a mipview custom strategy (docs/custom-strategies.md): one
// invocation per texel of the level written, with mipview's exact reduction (mip_common.glsl:
// 2 taps per even side, 3 area-weighted taps per odd side), so it is exact at every size.
//   mipview run IMAGE --strategies shader:resources/shaders/box_per_level.comp,per-level
#pragma mipview kind per-level
#pragma mipview option GROUP 8 16
#extension GL_GOOGLE_include_directive : require
#include "mip_level.glsl"

// the work group is GROUP x GROUP invocations (an option: shader:...:GROUP=16, or GROUP=all)
layout(constant_id = 0) const uint GROUP = 8;
layout(local_size_x_id = 0, local_size_y_id = 0, local_size_z = 1) in;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    vec4 v;
    MIP_REDUCE_EXACT(v, p, pc.srcSize, mipLevelLoad)
    mipLevelStore(p, v);
}
