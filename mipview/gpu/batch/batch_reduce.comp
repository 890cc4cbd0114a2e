#version 460
// batch_reduce.comp: makes one level of many images; one work group = one tile of BATCH_TILE^2
// destination texels, one invocation = one texel, reduced with mip_common.glsl's exact weights
// (MIP_REDUCE_EXACT), so the result of a texel does not depend on which schedule made it.
//
// BATCH_SCHEDULE picks how a work group finds its (image, tile):
//   0 loop:        a plain dispatch per image and level; image from push constants, tile = group id
//   1 prefix-sum:  binary search over the level's slots (image, first tile) written by batch_scan
//   2 po2-buckets: walk the <= 32 bucket sizes of the level (uniform, no per-image search), then a
//                  shift and one load give the image (batch_buckets)
// For 1 and 2 the dispatch is indirect, (row, ceil(total / row), 1); groups past the total return.
// Host: mipview/gpu/batch/runner.py; tile counts and layouts: batch_common.glsl.
#extension GL_GOOGLE_include_directive : require
#include "batch_common.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;
layout(constant_id = 2) const uint BATCH_WORDS = 1;  // uint words per texel: 1 rgba8, 2 f16, 4 f32
layout(constant_id = 3) const uint BATCH_SCHEDULE = 0;
layout(constant_id = 4) const int BATCH_DEBUG_LEVEL = 0;  // 0: no debug map

// One binding per page: a switch on the (work-group uniform) page with constant indices needs no
// descriptor-array dynamic indexing, which lavapipe lacks.
layout(std430, set = 0, binding = 0) buffer BatchPage0 { uint words[]; } page0_;
layout(std430, set = 0, binding = 1) buffer BatchPage1 { uint words[]; } page1_;
layout(std430, set = 0, binding = 2) buffer BatchPage2 { uint words[]; } page2_;
layout(std430, set = 0, binding = 3) buffer BatchPage3 { uint words[]; } page3_;
layout(std430, set = 0, binding = 6) readonly buffer ReduceCounters { uint counters_[]; };
layout(std430, set = 0, binding = 7) readonly buffer ReduceEntries { uint entries_[]; };
layout(std430, set = 0, binding = 8) writeonly buffer ReduceDebug { uint debugMap_[]; };

layout(push_constant) uniform ReducePush {
    int level;        // destination level (>= 1)
    uint image;       // loop schedule only
    uint imageCount;
    uint bucketBits;  // po2-buckets only
} pc;

uint readWord_(uint page, uint i) {
    switch (page) {
        case 0u: return page0_.words[i];
        case 1u: return page1_.words[i];
        case 2u: return page2_.words[i];
        default: return page3_.words[i];
    }
}

void writeWord_(uint page, uint i, uint v) {
    switch (page) {
        case 0u: page0_.words[i] = v; break;
        case 1u: page1_.words[i] = v; break;
        case 2u: page2_.words[i] = v; break;
        default: page3_.words[i] = v; break;
    }
}

// Decoded (linear) value of texel t of a page.
vec4 batchLoad(uint page, uint t) {
    if (BATCH_WORDS == 1u) {
        return mipDecode(unpackUnorm4x8(readWord_(page, t)));
    }
    if (BATCH_WORDS == 2u) {
        return vec4(unpackHalf2x16(readWord_(page, 2u * t)),
                    unpackHalf2x16(readWord_(page, 2u * t + 1u)));
    }
    return uintBitsToFloat(uvec4(readWord_(page, 4u * t), readWord_(page, 4u * t + 1u),
                                 readWord_(page, 4u * t + 2u), readWord_(page, 4u * t + 3u)));
}

void batchStore(uint page, uint t, vec4 v) {
    if (BATCH_WORDS == 1u) {
        writeWord_(page, t, packUnorm4x8(mipEncode(v)));
    } else if (BATCH_WORDS == 2u) {
        writeWord_(page, 2u * t, packHalf2x16(v.xy));
        writeWord_(page, 2u * t + 1u, packHalf2x16(v.zw));
    } else {
        uvec4 u = floatBitsToUint(v);
        for (uint k = 0u; k < 4u; ++k) {
            writeWord_(page, 4u * t + k, u[k]);
        }
    }
}

// prefix-sum: the last slot whose first tile is <= g.
bool findByScan_(uint g, out uint image, out uint local) {
    uint c = uint(pc.level - 1) * BATCH_COUNTER_STRIDE;
    uint total = counters_[c];        // low word of the packed uint64: running sum
    uint count = counters_[c + 1u];   // high word: slots taken
    if (g >= total) {
        return false;
    }
    uint base = uint(pc.level - 1) * pc.imageCount * 2u;
    uint lo = 0u;
    uint hi = count - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) >> 1;
        if (entries_[base + 2u * mid + 1u] <= g) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    image = entries_[base + 2u * lo];
    local = g - entries_[base + 2u * lo + 1u];
    return true;
}

// po2-buckets: bucket i spans count_i << i groups; inside it, group g' is chunk g' >> i.
bool findByBuckets_(uint g, out uint image, out uint local) {
    uint c = uint(pc.level - 1) * BATCH_COUNTER_STRIDE;
    if (g >= counters_[c]) {
        return false;
    }
    uint start = 0u;
    for (uint i = 0u; i < pc.bucketBits; ++i) {
        uint span = counters_[c + 1u + i] << i;
        uint r = g - start;
        if (r < span) {
            image = entries_[(uint(pc.level - 1) * pc.bucketBits + i) * pc.imageCount + (r >> i)];
            uint n = batchTileCount(image, pc.level);
            local = (n & ~((2u << i) - 1u)) + (r & ((1u << i) - 1u));
            return true;
        }
        start += span;
    }
    return false;  // unreachable when the counters are consistent
}

// The work group's (image, local tile), found once by invocation 0 and shared: lavapipe runs a
// group as several subgroups that would each repeat the search.
shared uint foundImage_;
shared uint foundLocal_;
shared bool found_;

void main() {
    uint image;
    ivec2 tile;
    if (BATCH_SCHEDULE == 0u) {
        image = pc.image;
        tile = ivec2(gl_WorkGroupID.xy);
    } else {
        if (gl_LocalInvocationIndex == 0u) {
            uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
            uint img;
            uint loc;
            bool found = BATCH_SCHEDULE == 1u ? findByScan_(g, img, loc)
                                              : findByBuckets_(g, img, loc);
            if (found && BATCH_DEBUG_LEVEL == pc.level) {
                debugMap_[2u * g] = img;
                debugMap_[2u * g + 1u] = loc;
            }
            found_ = found;
            foundImage_ = img;
            foundLocal_ = loc;
        }
        barrier();  // uniform: BATCH_SCHEDULE is a specialization constant
        if (!found_) {
            return;
        }
        image = foundImage_;
        uint local = foundLocal_;
        int cols = batchTileGrid(batchLevelSize(image, pc.level)).x;
        tile = mipUnflatten(int(local), cols);
    }
    ivec2 dst = batchLevelSize(image, pc.level);
    ivec2 p = tile * int(BATCH_TILE) + ivec2(gl_LocalInvocationID.xy);
    if (any(greaterThanEqual(p, dst))) {
        return;
    }
    ivec2 src = batchLevelSize(image, pc.level - 1);
    uint page = batchPage(image);
    uint srcBase = batchLevelOffset(image, pc.level - 1);
#define BATCH_LOAD_(q) batchLoad(page, srcBase + uint((q).y * src.x + (q).x))
    vec4 v;
    MIP_REDUCE_EXACT(v, p, src, BATCH_LOAD_)
    batchStore(page, batchLevelOffset(image, pc.level) + uint(p.y * dst.x + p.x), v);
}
