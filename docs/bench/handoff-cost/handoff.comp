#version 460
// What a hand-off between work groups costs. 510 groups at
// 1920x1080 (64x64 tiles of level 0) each make their 32x32 texels of level 1 (4 texel loads and
// one store each: the bulk image stores of a tile phase), and then, by ARRIVE:
//   0: nothing more (the baseline);
//   1: write one value to the scratch buffer and arrive at the counter after the stores (the
//      queue-family release then orders every store before it);
//   2: write the value and arrive before the stores, which follow.
// The last group to arrive writes its value into level 2's first texel (it reads the others').
// Only the times mean anything: levels 2.. are not made, so the verdict is out of tolerance.
//   mipview bench --size 1920x1080 --cold --strategies shader:docs/bench/handoff-cost/handoff.comp:ARRIVE=all
#pragma mipview kind whole-chain
#pragma mipview tile 64 64
#pragma mipview formats unorm
#pragma mipview robust off
#pragma mipview option ARRIVE 0 1 2
#extension GL_GOOGLE_include_directive : require
#define MIP_CHAIN_SCRATCH
#include "mip_chain.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const int ARRIVE = 1;

void storeTile(int layer) {
    ivec2 base = ivec2(gl_WorkGroupID.xy) * 32;
    ivec2 size = mipChainSize(1);
    for (int i = 0; i < 4; ++i) {
        int t = int(gl_LocalInvocationIndex) + 256 * i;
        ivec2 p = base + ivec2(t % 32, t / 32);
        if (all(lessThan(p, size))) {
            ivec2 q = 2 * p;
            vec4 v = 0.25 * (mipDecode(texelFetch(mipSrc, ivec3(q, layer), 0))
                             + mipDecode(texelFetch(mipSrc, ivec3(q + ivec2(1, 0), layer), 0))
                             + mipDecode(texelFetch(mipSrc, ivec3(q + ivec2(0, 1), layer), 0))
                             + mipDecode(texelFetch(mipSrc, ivec3(q + ivec2(1, 1), layer), 0)));
            mipChainStore(1, ivec3(p, layer), v);
        }
    }
}

void arrive(int layer) {
    int group = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    if (gl_LocalInvocationIndex == 0) {
        mipScratch[group] = vec4(float(group));
    }
    if (mipChainLastGroup(0u) && gl_LocalInvocationIndex == 0) {
        vec4 sum = vec4(0.0);
        for (int g = 0; g < pc.groups; g += 64) {
            sum += mipScratch[g];
        }
        mipChainStore(2, ivec3(0, 0, layer), fract(sum * 1e-6));
    }
}

void main() {
    int layer = int(gl_WorkGroupID.z);
    if (ARRIVE == 2) {
        arrive(layer);
    }
    storeTile(layer);
    if (ARRIVE == 1) {
        arrive(layer);
    }
}
