#version 460
// batch_buckets.comp: pass 1 of the po2-bucket expansion, every level at once.
// Invocation (x, y) = (image, level y + 1). An image with N tiles at that level puts itself into
// bucket i for every set bit i of N: bucket i holds chunks of exactly 2^i tiles, so pass 2 finds a
// work group's image by a shift and one load, with no per-image search. The chunk of bit i covers
// the image's local tiles [N & ~(2^(i+1) - 1), +2^i): higher bits' chunks come first.
// The level's total (one atomicAdd) sizes the indirect dispatch.
// Host: mipview/gpu/batch/expansion.py (Po2Buckets), which zeroes counters and arguments first.
#extension GL_GOOGLE_include_directive : require
#define BATCH_WRITES_ARGS
#include "batch_common.glsl"

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

// Level l: word (l - 1) * BATCH_COUNTER_STRIDE is the total, the next 32 the bucket sizes.
layout(std430, set = 0, binding = 6) buffer BucketCounters { uint bucketCounters[]; };
// Bucket i of level l: image indices at ((l - 1) * bucketBits + i) * imageCount + k.
layout(std430, set = 0, binding = 7) writeonly buffer BucketEntries { uint bucketEntries[]; };

layout(push_constant) uniform BucketPush {
    uint imageCount;
    uint row;         // groupCountX of the indirect dispatch
    uint bucketBits;  // buckets per level: bit length of the largest tile count
} pc;

void main() {
    uint image = gl_GlobalInvocationID.x;
    int level = int(gl_WorkGroupID.y) + 1;
    if (image >= pc.imageCount) {
        return;
    }
    uint n = batchTileCount(image, level);
    if (n == 0u) {
        return;
    }
    uint c = uint(level - 1) * BATCH_COUNTER_STRIDE;
    uint before = atomicAdd(bucketCounters[c], n);
    batchPublishGroups(level, before + n, before == 0u, pc.row);
    uint bits = n;
    while (bits != 0u) {
        int i = findLSB(bits);
        bits &= bits - 1u;
        uint k = atomicAdd(bucketCounters[c + 1u + uint(i)], 1u);
        bucketEntries[(uint(level - 1) * pc.bucketBits + uint(i)) * pc.imageCount + k] = image;
    }
}
