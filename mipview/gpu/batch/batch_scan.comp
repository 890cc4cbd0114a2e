#version 460
// batch_scan.comp: pass 1 of the prefix-sum expansion, every level at once.
// Invocation (x, y) = (image, level y + 1). Images with N > 0 tiles at that level append
// themselves to the level's slot list through ONE 64-bit compare-exchange on a counter that packs
// (count << 32 | running sum): the swap hands out, consistently, slot indices (count) and the
// exclusive prefix sum of the tiles before them (sum). The work group aggregates first: invocation
// 0 scans the group's 64 counts in shared memory and swaps once for the group, so a level sees
// ceil(images / 64) contending swaps instead of one per image (a CAS loop under heavy contention
// costs a round trip per retry). Slots are ordered by their start: image order inside a group,
// arrival order between groups. Images with no tile at a level take no slot, which keeps pass 2's
// binary search short. (A 64-bit atomicAdd of (count << 32 | sum) would compute the same; the
// compare-exchange loop is the form that ports to APIs with only a 64-bit CAS.)
// Host: mipview/gpu/batch/expansion.py (PrefixSum), which zeroes counters and arguments first.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#define BATCH_WRITES_ARGS
#include "batch_common.glsl"

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

// uint64 view of the counters: level l's counter is word pair (l - 1) * BATCH_COUNTER_STRIDE.
layout(std430, set = 0, binding = 6) buffer ScanCounters { uint64_t scanCounters[]; };
// Slot k of level l: (image, first tile) at uvec2 index (l - 1) * imageCount + k.
layout(std430, set = 0, binding = 7) writeonly buffer ScanSlots { uvec2 scanSlots[]; };

layout(push_constant) uniform ScanPush {
    uint imageCount;
    uint row;         // groupCountX of the indirect dispatch
} pc;

shared uint groupTiles_[64];  // N of each invocation, then its exclusive prefix sum
shared uint groupSlots_[64];  // exclusive prefix of (N > 0)
shared uint64_t groupBase_;   // the counter before this group's swap

void main() {
    uint lane = gl_LocalInvocationIndex;
    uint image = gl_GlobalInvocationID.x;
    int level = int(gl_WorkGroupID.y) + 1;
    uint n = image < pc.imageCount ? batchTileCount(image, level) : 0u;
    groupTiles_[lane] = n;
    barrier();
    if (lane == 0u) {
        uint sum = 0u;
        uint count = 0u;
        for (uint k = 0u; k < gl_WorkGroupSize.x; ++k) {
            uint t = groupTiles_[k];
            groupTiles_[k] = sum;
            groupSlots_[k] = count;
            sum += t;
            count += t != 0u ? 1u : 0u;
        }
        if (count != 0u) {
            uint c = uint(level - 1) * (BATCH_COUNTER_STRIDE / 2u);
            uint64_t add = (uint64_t(count) << 32) | uint64_t(sum);
            uint64_t seen = 0ul;  // first guess; a failed swap returns the real value
            uint64_t old;
            do {
                old = seen;
                seen = atomicCompSwap(scanCounters[c], old, old + add);
            } while (seen != old);
            groupBase_ = old;
            uint start = uint(old & 0xFFFFFFFFul);
            batchPublishGroups(level, start + sum, start == 0u, pc.row);
        }
    }
    barrier();
    if (n == 0u) {
        return;
    }
    uint slot = uint(groupBase_ >> 32) + groupSlots_[lane];
    uint start = uint(groupBase_ & 0xFFFFFFFFul) + groupTiles_[lane];
    scanSlots[uint(level - 1) * pc.imageCount + slot] = uvec2(image, start);
}
