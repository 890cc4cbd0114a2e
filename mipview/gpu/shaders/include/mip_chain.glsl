// mip_chain.glsl: the whole-chain interface of a custom strategy (docs/custom-strategies.md),
// for SPD-class downsamplers that make many levels per dispatch.
//
// mipview dispatches the shader `#pragma mipview dispatches N` times (default once), with a
// barrier between dispatches: ceil(srcSize / tile) work groups per layer in x and y (tile:
// `#pragma mipview tile W H`, default twice the work-group size, i.e. one level-1 texel per
// invocation), one array layer per z (the work-group size's z must be 1). Before every run it
// zeroes the counters. The host declares this push block as MIP_CHAIN in mipview/gpu/shaders/shipped.py
// and checks every custom whole-chain shader against it (mipview/gpu/strategies/custom_shader.py).
//
// Cross-work-group hand-offs follow the Vulkan memory model (mipChainLastGroup), so a shader
// that includes this file needs the device's vulkanMemoryModel feature.
#ifndef MIP_CHAIN_GLSL
#define MIP_CHAIN_GLSL

#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
#include "mip_common.glsl"

// Elements of the level array: element i is level i; those past the chain are a 1x1 dummy
// image. An image with more levels than this is skipped (16: sides up to 32768).
#ifndef MIP_CHAIN_LEVELS
#define MIP_CHAIN_LEVELS 16
#endif
// Counters per layer (mipview/gpu/strategies/custom.py COUNTERS)
#define MIP_CHAIN_COUNTERS 16

// Level 0, sampled. Nearest (the default): sRGB images through their UNORM view, undecoded
// (decode with mipDecode: exact, where a device sampler's decode may be a third of an LSB off);
// `#pragma mipview sampler linear`: the sRGB view, decoded and filtered by the sampler.
layout(set = 0, binding = 0) uniform sampler2DArray mipSrc;
// Every level as a storage image (sRGB: a UNORM view, store mipEncode(v)). Index it with
// constants only, as mipChainStore does: lavapipe has no dynamic indexing of image arrays.
layout(set = 0, binding = 1) writeonly uniform image2DArray mipLevels[MIP_CHAIN_LEVELS];
// MIP_CHAIN_COUNTERS per layer, zeroed by mipview before every run, untimed (or, with
// `#pragma mipview counters self-reset`, once, and left zero by the shader at every run's end).
layout(set = 0, binding = 2, std430) coherent buffer MipCounters { uint mipCounter[]; };
#ifdef MIP_CHAIN_SCRATCH
// One vec4 per texel of levels 1 .. levels-1 of every layer (mipChainScratchIndex): values handed
// between work groups at full precision, readable without a format qualifier. mipview allocates
// it only for shaders that declare binding 3 (define MIP_CHAIN_SCRATCH before the include).
layout(set = 0, binding = 3, std430) coherent buffer MipScratch { vec4 mipScratch[]; };
#endif

layout(push_constant) uniform MipChainPush {
    ivec2 srcSize;  // level 0
    int levels;     // of the chain, level 0 included
    int layers;
    int dispatch;   // 0 .. dispatches-1
    int groups;     // work groups per layer (x * y) of every dispatch
} pc;

ivec2 mipChainSize(int level) {
    return max(pc.srcSize >> level, ivec2(1));
}

// Store v (linear light) as texel p (x, y, layer) of `level` (1 .. levels-1). The index of each
// case is a constant (clamped so that a smaller MIP_CHAIN_LEVELS still compiles).
#define MIP_CHAIN_CASE_(k) case k: imageStore(mipLevels[min(k, MIP_CHAIN_LEVELS - 1)], p, e); break;
void mipChainStore(int level, ivec3 p, vec4 v) {
    vec4 e = mipEncode(v);
    switch (level) {
    MIP_CHAIN_CASE_(1) MIP_CHAIN_CASE_(2) MIP_CHAIN_CASE_(3) MIP_CHAIN_CASE_(4)
    MIP_CHAIN_CASE_(5) MIP_CHAIN_CASE_(6) MIP_CHAIN_CASE_(7) MIP_CHAIN_CASE_(8)
    MIP_CHAIN_CASE_(9) MIP_CHAIN_CASE_(10) MIP_CHAIN_CASE_(11) MIP_CHAIN_CASE_(12)
    MIP_CHAIN_CASE_(13) MIP_CHAIN_CASE_(14) MIP_CHAIN_CASE_(15)
    }
}
#undef MIP_CHAIN_CASE_

#ifdef MIP_CHAIN_SCRATCH
// Index in mipScratch of texel p of `level` (>= 1) in `layer`: level after level, each one
// layer after layer, row after row.
int mipChainScratchIndex(int level, int layer, ivec2 p) {
    int base = 0;
    for (int k = 1; k < level; ++k) {
        ivec2 s = mipChainSize(k);
        base += s.x * s.y * pc.layers;
    }
    ivec2 s = mipChainSize(level);
    return base + (layer * s.y + p.y) * s.x + p.x;
}
#endif

// A work-group barrier that also makes buffer and shared-memory writes visible to the group.
void mipChainBarrier() {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                   gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
}

shared bool mipChainLast_;

// Every invocation of the group calls this, in uniform control flow, after its buffer writes:
// true in the last group of its layer to arrive at `counter` (< MIP_CHAIN_COUNTERS), which then
// sees every other group's buffer writes. Each invocation releases its writes at queue-family
// scope, invocation 0 does an acquire-release atomicAdd there, the group acquires again.
bool mipChainLastGroup(uint counter) {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeQueueFamily,
                   gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
    if (gl_LocalInvocationIndex == 0) {
        uint slot = gl_WorkGroupID.z * MIP_CHAIN_COUNTERS + counter;
        uint arrived = atomicAdd(mipCounter[slot], 1u, gl_ScopeQueueFamily,
                                 gl_StorageSemanticsBuffer,
                                 gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable
                                 | gl_SemanticsMakeVisible);
        mipChainLast_ = arrived == uint(pc.groups - 1);
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeQueueFamily,
                   gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
    return mipChainLast_;
}

#endif
