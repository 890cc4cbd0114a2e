#version 460
// filter_pairs.comp: two levels of a short separable filter per dispatch (docs/filters.md).
// Workgroup (a, b) owns the 16x16 texels [16a, 16a+16) x [16b, 16b+16) of level k and the 8x8
// texels [8a, 8a+8) x [8b, 8b+8) of level k+1. It computes, into shared memory, every level-k
// texel that its level-(k+1) texels tap (a halo around its own 16x16, the taps' unfolded
// indices), each from level k-1 by the 2D tap sum of level k's tables, storing its own 16x16 to
// level k; then, after one barrier, its level-(k+1) texels from shared memory. Halo texels are
// computed by both neighbours (the price of one dispatch for two levels), so the plan only uses
// this for kernels whose halo keeps the span within FP_SPAN (tent, small Kaiser, the cubics).
// Tables hold UNFOLDED indices; the edge mode folds them here (clamp, wrap, mirror), with
// unsigned % only (mip_common.glsl: GLSL's int % is undefined on negative operands in Vulkan).
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

layout(constant_id = 0) const int FP_EDGE = 0;   // 0 clamp, 1 wrap, 2 mirror
layout(constant_id = 1) const int FP_SPAN = 32;  // shared side: level-k texels per axis

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;   // level k-1
layout(set = 0, binding = 1) writeonly uniform image2DArray midLevel;  // level k
layout(set = 0, binding = 2) writeonly uniform image2DArray dstLevel;  // level k+1

struct FilterTap {
    int index;
    float weight;
};
layout(std430, set = 0, binding = 3) readonly buffer FilterTaps { FilterTap taps[]; };

layout(push_constant) uniform FilterPairsPush {
    ivec2 srcSize;   // level k-1
    ivec2 midSize;   // level k
    ivec2 dstSize;   // level k+1 (unused when pair == 0)
    ivec2 tapsMid;   // taps per texel of level k, x and y
    ivec2 offsetMid; // first entry of level k's x and y tables
    ivec2 tapsDst;
    ivec2 offsetDst;
    int pair;        // 1: make level k+1 too; 0: level k only (the last, lone level)
} pc;

shared vec4 fpMid[FP_SPAN * FP_SPAN];

int fpFold(int j, int n) {
    if (FP_EDGE == 1) {
        return mipWrapIndex(j, n);
    }
    if (FP_EDGE == 2) {
        return mipMirrorIndex(j, n);
    }
    return clamp(j, 0, n - 1);
}

// level-k texel q (in range) from level k-1, x taps summed per row, then the rows by y taps
vec4 fpMidTexel(ivec2 q, int layer) {
    vec4 v = vec4(0.0);
    int by = pc.offsetMid.y + q.y * pc.tapsMid.y;
    int bx = pc.offsetMid.x + q.x * pc.tapsMid.x;
    for (int ty = 0; ty < pc.tapsMid.y; ++ty) {
        FilterTap row = taps[by + ty];
        int sy = fpFold(row.index, pc.srcSize.y);
        vec4 sum = vec4(0.0);
        for (int tx = 0; tx < pc.tapsMid.x; ++tx) {
            FilterTap col = taps[bx + tx];
            sum += col.weight * mipDecode(
                texelFetch(srcLevel, ivec3(fpFold(col.index, pc.srcSize.x), sy, layer), 0));
        }
        v += row.weight * sum;
    }
    return v;
}

vec4 fpStore(vec4 v) {
    return mipEncode(MIP_UNORM8 ? clamp(v, 0.0, 1.0) : v);
}

void main() {
    int layer = int(gl_GlobalInvocationID.z);
    ivec2 tile = ivec2(gl_WorkGroupID.xy);
    ivec2 own = 16 * tile;  // first level-k texel of this workgroup
    // the shared window starts at the lower of its own first texel and the first tap of its
    // first level-(k+1) texel (unfolded: may be negative)
    ivec2 base = own;
    if (pc.pair != 0) {
        ivec2 d0 = min(8 * tile, pc.dstSize - 1);
        base = min(own, ivec2(taps[pc.offsetDst.x + d0.x * pc.tapsDst.x].index,
                              taps[pc.offsetDst.y + d0.y * pc.tapsDst.y].index));
    }
    int lane = int(gl_LocalInvocationIndex);
    for (int slot = lane; slot < FP_SPAN * FP_SPAN; slot += 64) {
        ivec2 j = base + mipUnflatten(slot, FP_SPAN);  // unfolded level-k index
        bool mine = all(greaterThanEqual(j, own)) && all(lessThan(j, min(own + 16, pc.midSize)));
        if (pc.pair == 0 && !mine) {
            continue;
        }
        ivec2 q = ivec2(fpFold(j.x, pc.midSize.x), fpFold(j.y, pc.midSize.y));
        vec4 v = fpMidTexel(q, layer);
        vec4 stored = fpStore(v);
        if (mine) {
            imageStore(midLevel, ivec3(j, layer), stored);
        }
        // level k+1 filters level k as stored (the stored promise): its decoded store
        fpMid[slot] = MIP_SRGB ? vec4(mipSrgbToLinear(stored.rgb), stored.a) : stored;
    }
    if (pc.pair == 0) {
        return;
    }
    barrier();
    ivec2 p = 8 * tile + ivec2(gl_LocalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    vec4 v = vec4(0.0);
    for (int ty = 0; ty < pc.tapsDst.y; ++ty) {
        FilterTap row = taps[pc.offsetDst.y + p.y * pc.tapsDst.y + ty];
        vec4 sum = vec4(0.0);
        for (int tx = 0; tx < pc.tapsDst.x; ++tx) {
            FilterTap col = taps[pc.offsetDst.x + p.x * pc.tapsDst.x + tx];
            sum += col.weight * fpMid[(row.index - base.y) * FP_SPAN + (col.index - base.x)];
        }
        v += row.weight * sum;
    }
    imageStore(dstLevel, ivec3(p, layer), fpStore(v));
}
