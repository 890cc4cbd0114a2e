#version 450
// spd_harness_cs.comp: AMD FidelityFX SPD 2.0 (third_party/ffx_spd, MIT licence) integrated the way
// AMD's own Vulkan sample does it (FidelityFX-SPD sample/src/VK/SPDIntegration.glsl, non-packed,
// load path without a linear sampler), for tools/spd_harness.py. Independent of mipview's port
// (resources/shaders/spd_mean.comp) on purpose: it is the yardstick that port is timed against.
//
// Differences from the sample, each forced by something other than taste:
// - level 0 has its own binding (imgSrc) instead of imgDst[0], so imgDst[m] is level m + 1 and
//   imgDst6 is the same view as imgDst[5];
// - rgba8 instead of rgba16f: the harness times RGBA8 UNORM chains;
// - SPD_HARNESS_CONSTANT_INDEX (devices without shaderStorageImageArrayDynamicIndexing, e.g.
//   lavapipe) selects the level with a switch of constant indices instead of imgDst[mip];
// - unused imgDst elements are bound to a 1x1 dummy image instead of PARTIALLY_BOUND, which
//   lavapipe lacks (SPD never touches them either way).
// Options (host: -D): SPD_NO_WAVE_OPERATIONS (SPD's LDS-only path), SPD_HARNESS_LDS_VEC4 (one
// vec4 LDS array, as ffx_spd.h's docs and mipview's port, instead of the sample's R/G/B/A arrays).
#extension GL_GOOGLE_include_directive : require
#ifndef SPD_NO_WAVE_OPERATIONS
// ffx_spd.h requests it too, but only after declarations; say it up front
#extension GL_KHR_shader_subgroup_quad : require
#endif

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(push_constant) uniform SpdConstants {
    uint mips;           // levels below level 0 to make, <= 12 (SpdSetup)
    uint numWorkGroups;  // groups of one slice: the last one to arrive makes levels 7..
    ivec2 workGroupOffset;
} spdConstants;

layout(set = 0, binding = 0, rgba8) uniform image2DArray imgSrc;
layout(set = 0, binding = 1, rgba8) uniform image2DArray imgDst[12];  // levels 1..12
layout(set = 0, binding = 2, rgba8) coherent uniform image2DArray imgDst6;  // = imgDst[5]

// One counter per slice; the last group of a slice writes 0 back (SpdResetAtomicCounter).
layout(set = 0, binding = 3, std430) coherent buffer SpdGlobalAtomicBuffer {
    uint counter[1];
} spdGlobalAtomic;

#define A_GPU 1
#define A_GLSL 1
#include "ffx_a.h"

shared AU1 spdCounter;

#ifdef SPD_HARNESS_LDS_VEC4
shared AF4 spdIntermediate[16][16];
AF4 SpdLoadIntermediate(AU1 x, AU1 y) {
    return spdIntermediate[x][y];
}
void SpdStoreIntermediate(AU1 x, AU1 y, AF4 value) {
    spdIntermediate[x][y] = value;
}
#else
shared AF1 spdIntermediateR[16][16];
shared AF1 spdIntermediateG[16][16];
shared AF1 spdIntermediateB[16][16];
shared AF1 spdIntermediateA[16][16];
AF4 SpdLoadIntermediate(AU1 x, AU1 y) {
    return AF4(spdIntermediateR[x][y], spdIntermediateG[x][y], spdIntermediateB[x][y],
               spdIntermediateA[x][y]);
}
void SpdStoreIntermediate(AU1 x, AU1 y, AF4 value) {
    spdIntermediateR[x][y] = value.x;
    spdIntermediateG[x][y] = value.y;
    spdIntermediateB[x][y] = value.z;
    spdIntermediateA[x][y] = value.w;
}
#endif

AF4 SpdLoadSourceImage(ASU2 p, AU1 slice) {
    return imageLoad(imgSrc, ivec3(p, slice));
}

// Level 6, written by every group and read back by the last one: through the coherent binding.
AF4 SpdLoad(ASU2 p, AU1 slice) {
    return imageLoad(imgDst6, ivec3(p, slice));
}

void SpdStore(ASU2 p, AF4 value, AU1 mip, AU1 slice) {
    ivec3 q = ivec3(p, slice);
    if (mip == 5) {
        imageStore(imgDst6, q, value);
        return;
    }
#ifdef SPD_HARNESS_CONSTANT_INDEX
    switch (mip) {
    case 0: imageStore(imgDst[0], q, value); break;
    case 1: imageStore(imgDst[1], q, value); break;
    case 2: imageStore(imgDst[2], q, value); break;
    case 3: imageStore(imgDst[3], q, value); break;
    case 4: imageStore(imgDst[4], q, value); break;
    case 6: imageStore(imgDst[6], q, value); break;
    case 7: imageStore(imgDst[7], q, value); break;
    case 8: imageStore(imgDst[8], q, value); break;
    case 9: imageStore(imgDst[9], q, value); break;
    case 10: imageStore(imgDst[10], q, value); break;
    case 11: imageStore(imgDst[11], q, value); break;
    }
#else
    imageStore(imgDst[mip], q, value);
#endif
}

void SpdIncreaseAtomicCounter(AU1 slice) {
    spdCounter = atomicAdd(spdGlobalAtomic.counter[slice], 1);
}

AU1 SpdGetAtomicCounter() {
    return spdCounter;
}

void SpdResetAtomicCounter(AU1 slice) {
    spdGlobalAtomic.counter[slice] = 0;
}

AF4 SpdReduce4(AF4 v0, AF4 v1, AF4 v2, AF4 v3) {
    return (v0 + v1 + v2 + v3) * 0.25;
}

#include "ffx_spd.h"

void main() {
    SpdDownsample(AU2(gl_WorkGroupID.xy), AU1(gl_LocalInvocationIndex), AU1(spdConstants.mips),
                  AU1(spdConstants.numWorkGroups), AU1(gl_WorkGroupID.z),
                  AU2(spdConstants.workGroupOffset));
}
