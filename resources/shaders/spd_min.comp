#version 460
// spd_min.comp: AMD FidelityFX SPD 2.0 (third_party/ffx_spd, MIT licence) as a whole-chain
// custom strategy for Hi-Z depth pyramids: R32F, SpdReduce4 = min (docs/custom-strategies.md,
// "Wrapping an SPD-style downsampler"). The callbacks are spd_mean.comp's but for the reduction
// and the format. SPD itself, unchanged: 64x64 level-0 texels per
// 256-invocation group, subgroup quad operations, the last group to arrive at the counter makes
// levels 7.. from level 6, and resets the counter. At most 12 levels below level 0 (4096^2):
// the level array has 13 elements, so mipview skips bigger images with that reason.
//
// SPD's 2x2 min is the exact (conservative) min only while every level has even sides: at an odd
// side it drops the last column (row) of the level below, so on NPOT images a texel can be
// larger than the minimum it covers, and the verdict fails there (an occlusion test using it
// would cull what is visible).
#pragma mipview kind whole-chain
#pragma mipview tile 64 64
#pragma mipview formats r32f
#pragma mipview reduction min
#pragma mipview counters self-reset
#pragma mipview robust off         // loads clamp, stores past an edge are dropped
#pragma mipview option HANDOFF 0 1 // 0: acquire/release, 1: AMD's sample (see the hand-off)
#extension GL_GOOGLE_include_directive : require

#define MIP_CHAIN_SCRATCH       // level 6 goes from every group to the last one at full precision
#define MIP_CHAIN_LEVELS 13     // SPD: at most 12 levels below level 0
#include "mip_chain.glsl"

#define A_GPU 1
#define A_GLSL 1
#include "../../third_party/ffx_spd/ffx_a.h"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

shared AU1 spdCounter;
shared AF4 spdIntermediate[16][16];

// Level 0, clamped to the edge (SPD reads whole 64x64 tiles).
AF4 SpdLoadSourceImage(ASU2 p, AU1 slice) {
    return mipDecode(texelFetch(mipSrc, ivec3(min(p, pc.srcSize - 1), slice), 0));
}

// SPD's mip 5 (mipview's level 6), written by every group, read by the last one.
AF4 SpdLoad(ASU2 p, AU1 slice) {
    return mipScratch[mipChainScratchIndex(6, int(slice), min(p, mipChainSize(6) - 1))];
}

// SPD's mip m is mipview's level m + 1; SPD writes whole tiles, mipview keeps what is inside.
void SpdStore(ASU2 p, AF4 value, AU1 mip, AU1 slice) {
    int level = int(mip) + 1;
    if (any(greaterThanEqual(p, mipChainSize(level)))) {
        return;
    }
    mipChainStore(level, ivec3(p, slice), value);
    if (level == 6) {
        mipScratch[mipChainScratchIndex(6, int(slice), p)] = value;
    }
}

// Invocation 0 of each group; the one that stored the group's level-6 texel, so the release
// of this atomicAdd (queue-family scope) hands that texel to the last group.
// HANDOFF=1 is AMD's sample: a relaxed atomicAdd and no acquire below. The Vulkan memory model
// does not promise that the last group then sees the others' level-6 texels (NVIDIA and AMD
// hardware show them), and the release costs every group: 5 us of 57 at 4096^2 on an H100
// (docs/bench/spd). 0 (the default) keeps the model's promise.
layout(constant_id = 0) const int HANDOFF = 0;

void SpdIncreaseAtomicCounter(AU1 slice) {
    if (HANDOFF == 1) {
        spdCounter = atomicAdd(mipCounter[slice * MIP_CHAIN_COUNTERS], 1u, gl_ScopeQueueFamily,
                               0, 0);
    } else {
        spdCounter = atomicAdd(mipCounter[slice * MIP_CHAIN_COUNTERS], 1u, gl_ScopeQueueFamily,
                               gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease
                               | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
    }
}

AU1 SpdGetAtomicCounter() {
    return spdCounter;
}

// Every invocation of the last group, before it reads level 6: SPD's barrier() is a
// work-group one, so this acquire at queue-family scope gives every invocation (not only
// invocation 0, whose atomicAdd acquired) the other groups' level-6 texels. Then the reset that
// makes the shader `counters self-reset`: the counter is zero again for the next run.
void SpdResetAtomicCounter(AU1 slice) {
    if (HANDOFF == 0) {
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer,
                       gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable
                       | gl_SemanticsMakeVisible);
    }
    if (gl_LocalInvocationIndex == 0) {
        atomicStore(mipCounter[slice * MIP_CHAIN_COUNTERS], 0u, gl_ScopeQueueFamily, 0, 0);
    }
}

AF4 SpdLoadIntermediate(AU1 x, AU1 y) {
    return spdIntermediate[x][y];
}

void SpdStoreIntermediate(AU1 x, AU1 y, AF4 value) {
    spdIntermediate[x][y] = value;
}

// Hi-Z: the nearest depth (reversed-Z pyramids would take max). Only .r is stored.
AF4 SpdReduce4(AF4 v0, AF4 v1, AF4 v2, AF4 v3) {
    return min(min(v0, v1), min(v2, v3));
}

#include "../../third_party/ffx_spd/ffx_spd.h"

void main() {
    SpdDownsample(AU2(gl_WorkGroupID.xy), AU1(gl_LocalInvocationIndex), AU1(pc.levels - 1),
                  AU1(pc.groups), AU1(gl_WorkGroupID.z));
}
