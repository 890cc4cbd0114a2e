// batch_common.glsl: what the batch shaders (batch_scan, batch_buckets, batch_reduce) share.
//
// A *batch* is many images of different sizes, each with its own full chain, packed into storage
// buffers (mipview/gpu/batch/packing.py says how and why). Work is counted in *tiles*: one tile
// is BATCH_TILE x BATCH_TILE texels of a destination level, made by one work group.
//
// Descriptor set 0, the same for every batch pipeline (mipview/gpu/batch/runner.py BINDINGS):
//   0..3  texel pages (uint words; an image's chain never straddles two pages)
//   4     image table: BATCH_IMAGE_STRIDE uints per image (packing.py IMAGE_STRIDE)
//   5     indirect arguments: 4 uints per level (x, y, z, pad) (expansion.py ARGS_STRIDE)
//   6     counters: BATCH_COUNTER_STRIDE uints per level (expansion.py COUNTER_STRIDE)
//   7     entries: the expansion's per-level lists (prefix-sum slots or po2 buckets)
//   8     debug map: (image, local tile) per work group of level BATCH_DEBUG_LEVEL
// Per-level arrays are indexed by level - 1 (level 0 is never written).
//
// Specialization constant ids: 0, 1 work-group size of batch_reduce; 2 BATCH_WORDS; 3 schedule;
// 4 BATCH_DEBUG_LEVEL; 5 BATCH_TILE. mip_common.glsl owns 10..19.
#ifndef BATCH_COMMON_GLSL
#define BATCH_COMMON_GLSL

#include "mip_common.glsl"

// Destination tile side in texels (= batch_reduce's work-group side).
layout(constant_id = 5) const uint BATCH_TILE = 8;

// Keep in sync with mipview/gpu/batch/packing.py (IMAGE_STRIDE, MAX_LEVELS) and expansion.py.
#define BATCH_IMAGE_STRIDE 20u   // width, height, levels, page, offset of level 0..15 (texels)
#define BATCH_ARGS_STRIDE 4u     // VkDispatchIndirectCommand x, y, z + pad
#define BATCH_COUNTER_STRIDE 34u // prefix-sum: one uint64 (sum, count); po2: total + 32 counts

layout(std430, set = 0, binding = 4) readonly buffer BatchImages { uint batchImages[]; };

ivec2 batchSize(uint image) {
    uint b = image * BATCH_IMAGE_STRIDE;
    return ivec2(batchImages[b], batchImages[b + 1u]);
}

int batchLevels(uint image) {
    return int(batchImages[image * BATCH_IMAGE_STRIDE + 2u]);
}

uint batchPage(uint image) {
    return batchImages[image * BATCH_IMAGE_STRIDE + 3u];
}

// Texel index (within the image's page) of texel (0, 0) of `level`.
uint batchLevelOffset(uint image, int level) {
    return batchImages[image * BATCH_IMAGE_STRIDE + 4u + uint(level)];
}

ivec2 batchLevelSize(uint image, int level) {
    return max(batchSize(image) >> level, ivec2(1));
}

ivec2 batchTileGrid(ivec2 levelSize) {
    return (levelSize + int(BATCH_TILE) - 1) / int(BATCH_TILE);
}

// Tiles (work groups) that make `level` of `image`; 0 when the chain is shorter.
uint batchTileCount(uint image, int level) {
    if (level >= batchLevels(image)) {
        return 0u;
    }
    ivec2 g = batchTileGrid(batchLevelSize(image, level));
    return uint(g.x * g.y);
}

#ifdef BATCH_WRITES_ARGS
layout(std430, set = 0, binding = 5) buffer BatchArgs { uint batchArgs[]; };

// Grow level's indirect dispatch to cover work groups [0, end): the dispatch is
// (row, ceil(total / row), 1), so groupCountY stays under the 65535 every device allows. The one
// caller that starts at 0 writes x and z (the host zeroes them before the count pass).
void batchPublishGroups(int level, uint end, bool first, uint row) {
    uint a = uint(level - 1) * BATCH_ARGS_STRIDE;
    atomicMax(batchArgs[a + 1u], (end + row - 1u) / row);
    if (first) {
        batchArgs[a] = row;
        batchArgs[a + 2u] = 1u;
    }
}
#endif

#endif
