#version 460
// A conservative Hi-Z min pyramid as a mipview custom strategy (docs/custom-strategies.md): each
// texel of level L is the min of its WHOLE footprint in level L-1, 2 texels per even side and 3
// per odd side (texels 2i, 2i+1 and 2i+2 of a side of 2m+1: mipAxisTaps, mip_common.glsl), so it
// covers every level-0 texel under it at every size. min picks a stored value: the loads are the
// stored values as they are (no mipDecode; sRGB comes through its UNORM view, and the curve is
// monotonic) and the store is the value picked (no mipEncode), so it is bit-exact against the
// reference (`#pragma mipview reduction min`). Depth, luminance and render-target formats alike.
//   mipview run depth.npy --strategies shader:resources/shaders/hiz_min.comp,per-level:reduction=min
//   mipview run --size 37x19 --format r32f --strategies shader:resources/shaders/hiz_min.comp
#pragma mipview kind per-level
#pragma mipview reduction min
#pragma mipview formats r32f r16f rg32f rg16f r8 rg8 f32 f16 unorm srgb
#pragma mipview option GROUP 8 16
#extension GL_GOOGLE_include_directive : require
#include "mip_level.glsl"

// the work group is GROUP x GROUP invocations (an option: shader:...:GROUP=16, or GROUP=all)
layout(constant_id = 0) const uint GROUP = 8;
layout(local_size_x_id = 0, local_size_y_id = 0, local_size_z = 1) in;

// texel q of level L-1 in this invocation's layer, as stored (undecoded)
#define HIZ_LOAD(q) texelFetch(mipSrc, ivec3(q, int(gl_GlobalInvocationID.z)), 0)

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    MipTaps tx = mipAxisTaps(p.x, pc.srcSize.x);  // count 1 (a side of 1), 2 (even) or 3 (odd)
    MipTaps ty = mipAxisTaps(p.y, pc.srcSize.y);
    vec4 m = HIZ_LOAD(ivec2(tx.first, ty.first));
    for (int j = 0; j < ty.count; ++j) {
        for (int i = 0; i < tx.count; ++i) {
            m = min(m, HIZ_LOAD(ivec2(tx.first + i, ty.first + j)));
        }
    }
    imageStore(mipDst, ivec3(p, int(gl_GlobalInvocationID.z)), m);
}
