#version 460
// A whole-chain custom strategy (docs/custom-strategies.md): one dispatch makes every level, as
// SPD-class single-pass downsamplers do. Each work group makes its texels of level 1 (exact
// weights from level 0, mip_common.glsl) and hands them over through the scratch buffer; the last
// group of each layer to arrive at the counter (mipChainLastGroup) makes levels 2.. from the
// scratch buffer, level by level, a work-group barrier between levels. Exact at every size; the
// tail is one work group, so it suits small and medium images more than 8192^2 ones. On lavapipe,
// which ends an invocation after 65535 loop iterations in all, the tail's loops fit 4096^2 with
// GROUP=16 (the default) and 2048^2 with 8; past that the verdict shows what they left undone.
//   mipview bench --size 1920x1080 --strategies shader:resources/shaders/chain_last_group.comp:GROUP=all,single-pass
#pragma mipview kind whole-chain
#pragma mipview option GROUP 8 16
#extension GL_GOOGLE_include_directive : require
#define MIP_CHAIN_SCRATCH
#include "mip_chain.glsl"

// GROUP x GROUP invocations; the default tile (2 x the work-group size in level-0 texels) gives
// each invocation one texel of level 1
layout(constant_id = 0) const uint GROUP = 16;
layout(local_size_x_id = 0, local_size_y_id = 0, local_size_z = 1) in;

void main() {
    int layer = int(gl_WorkGroupID.z);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (pc.levels > 1 && all(lessThan(p, mipChainSize(1)))) {
#define LOAD_LEVEL0(q) mipDecode(texelFetch(mipSrc, ivec3(q, layer), 0))
        vec4 v;
        MIP_REDUCE_EXACT(v, p, pc.srcSize, LOAD_LEVEL0)
        mipChainStore(1, ivec3(p, layer), v);
        mipScratch[mipChainScratchIndex(1, layer, p)] = v;
    }
    if (!mipChainLastGroup(0u)) {
        return;
    }
    int count = int(gl_WorkGroupSize.x * gl_WorkGroupSize.y);
    for (int level = 2; level < pc.levels; ++level) {
        ivec2 src = mipChainSize(level - 1);
        ivec2 dst = mipChainSize(level);
        int srcBase = mipChainScratchIndex(level - 1, layer, ivec2(0));
        int dstBase = mipChainScratchIndex(level, layer, ivec2(0));
        for (int t = int(gl_LocalInvocationIndex); t < dst.x * dst.y; t += count) {
            ivec2 q = ivec2(t % dst.x, t / dst.x);
#define LOAD_SCRATCH(r) mipScratch[srcBase + (r).y * src.x + (r).x]
            vec4 v;
            MIP_REDUCE_EXACT(v, q, src, LOAD_SCRATCH)
            mipChainStore(level, ivec3(q, layer), v);
            mipScratch[dstBase + t] = v;
        }
        mipChainBarrier();
    }
}
