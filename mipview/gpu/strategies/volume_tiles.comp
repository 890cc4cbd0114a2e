#version 460
// volume_tiles.comp: several exact levels of a volume per dispatch through shared memory
// (npot_exact.comp's general path in 3D). Host side: mipview/gpu/strategies/volume_tiles.py,
// which plans the levels of each dispatch and the tile, and sizes the shared arrays and the
// texel loop to every region of the plan.
//
// A group owns a tile of pc.tile^3 texels of level S+k (k = VT_LEVELS). Walking down, it needs
// region [lo, hi) of each level S+j: twice the region above, plus one texel where that level's
// side is odd (its 3-tap footprint). Neighbouring groups' regions overlap by that texel: each
// recomputes it instead of waiting for the other. Level S+1 is reduced from texelFetch of level
// S, level S+j (j > 1) from the float region of S+j-1 in shared memory (vtA_ for odd j, vtB_ for
// even j), so nothing is rounded inside a dispatch. Every texel of every level is stored by the
// one group whose tile, scaled down the chain, covers it (the last tile of an axis owns the
// remainder).
// With VT_TAIL > 0, every group also writes its texels of level S+k, as floats, to vtHand and
// arrives at the counter (handoff.glsl); the last group to arrive makes levels S+k+1 ..
// S+k+VT_TAIL alone from vtHand, the same way (one tile covering the whole last level): the
// dispatch that would finish the chain is saved.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
#include "mip_common.glsl"
#include "mip_volume.glsl"

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
// k, the levels every group makes (1 .. 4): a constant, so the level loop unrolls
layout(constant_id = 1) const int VT_LEVELS = 2;
// 0 the mean; 1 min, 2 max, 3 minmax (mipExtreme on stored values: no decode, no rounding)
layout(constant_id = 2) const int VT_REDUCTION = 0;
// sides of the shared regions of odd levels (vtA_) and even levels (vtB_) of the dispatch: the
// host sizes them to its largest regions
layout(constant_id = 3) const int VT_A_SIDE = 11;
layout(constant_id = 4) const int VT_B_SIDE = 5;
// f16 only: round to the nearest half before the store (lavapipe's store truncates)
layout(constant_id = 5) const bool VT_ROUND_HALF = false;
// every level the groups read has even sides: 2 taps of 1/2 per axis (mipAxisTaps of a side of
// 2, a constant the compiler folds: no tap loop, no weights to compute, fewer registers)
layout(constant_id = 6) const bool VT_EVEN = false;
// texels per invocation and level, at most (the largest region, from the host): a constant trip
// count, so the loop unrolls and an invocation's loads are in flight together
layout(constant_id = 7) const int VT_ITERS = 1;
// levels the last group makes after the hand-off (0: none), and whether every level it reads
// has even sides (VT_EVEN for the tail)
layout(constant_id = 8) const int VT_TAIL = 0;
layout(constant_id = 9) const bool VT_TAIL_EVEN = false;
// level 1 of an even dispatch from one sample at the centre of each 2x2x2 block of level 0: the
// host binds vtSrc with a min or max reduction sampler (the block's extreme) or, for the mean
// (load=trilinear), a linear one (the block's mean, as the device filters it)
layout(constant_id = 15) const bool VT_SAMPLED = false;
const int VT_MAX_LEVELS = 8;  // = the dst bindings; volume_tiles.py MAX_LEVELS

layout(set = 0, binding = 0) uniform sampler3D vtSrc;
// one binding per level of the dispatch; bindings past its levels alias its last level, unused
layout(set = 0, binding = 1) writeonly uniform image3D vtDst1;
layout(set = 0, binding = 2) writeonly uniform image3D vtDst2;
layout(set = 0, binding = 3) writeonly uniform image3D vtDst3;
layout(set = 0, binding = 4) writeonly uniform image3D vtDst4;
layout(set = 0, binding = 5) writeonly uniform image3D vtDst5;
layout(set = 0, binding = 6) writeonly uniform image3D vtDst6;
layout(set = 0, binding = 7) writeonly uniform image3D vtDst7;
layout(set = 0, binding = 8) writeonly uniform image3D vtDst8;
layout(set = 0, binding = 9, std430) coherent buffer VtCounters { uint vtCounter[]; };
layout(set = 0, binding = 10, std430) coherent buffer VtHand { vec4 vtHand[]; };
#define HANDOFF_COUNTERS vtCounter
#include "handoff.glsl"

layout(push_constant) uniform VolumeTilesPush {
    ivec3 srcSize;  // level S
    int tile;       // side of a group's tile of level S+k
    int groups;     // groups of the dispatch (VT_TAIL > 0: arrivals the last one waits for)
} pc;

shared vec4 vtA_[VT_A_SIDE * VT_A_SIDE * VT_A_SIDE];
shared vec4 vtB_[VT_B_SIDE * VT_B_SIDE * VT_B_SIDE];

void vtStore_(int j, ivec3 p, vec4 v) {
    vec4 e = v;
    if (VT_REDUCTION == 0) {
        e = mipEncode(v);
        e = VT_ROUND_HALF ? mipRoundToHalf(e) : e;
    }
    switch (j) {
        case 1: imageStore(vtDst1, p, e); break;
        case 2: imageStore(vtDst2, p, e); break;
        case 3: imageStore(vtDst3, p, e); break;
        case 4: imageStore(vtDst4, p, e); break;
        case 5: imageStore(vtDst5, p, e); break;
        case 6: imageStore(vtDst6, p, e); break;
        case 7: imageStore(vtDst7, p, e); break;
        default: imageStore(vtDst8, p, e); break;
    }
}

// Levels S+first .. S+last: this group's tile of tile^3 texels of level S+last at origin (and
// the regions below it); level S+first-1 is read from vtSrc (first == 1) or from vtHand (the
// tail). size[j]: the size of level S+j. even: the levels read have even sides.
void vtLevels_(ivec3 size[VT_MAX_LEVELS + 1], int first, int last, ivec3 origin, int tile,
               bool even) {
    const int threads = int(gl_WorkGroupSize.x);
    const int tid = int(gl_LocalInvocationIndex);
    ivec3 lo[VT_MAX_LEVELS + 1];
    ivec3 hi[VT_MAX_LEVELS + 1];
    ivec3 ownHi[VT_MAX_LEVELS + 1];
    lo[first - 1] = ivec3(0);  // the source is addressed by level coordinates, not a region
    lo[last] = origin;
    hi[last] = min(size[last], origin + tile);
    ownHi[last] = hi[last];
    bvec3 lastTile = greaterThanEqual(origin + tile, size[last]);
    [[unroll]] for (int j = last - 1; j >= first; --j) {
        // a side of 1 stays 1: its group index is 0, so lo stays 0 and min() clamps hi to 1
        lo[j] = 2 * lo[j + 1];
        hi[j] = min(size[j], 2 * hi[j + 1] + (size[j] & 1));
        ownHi[j] = mix((origin + tile) << (last - j), size[j], lastTile);
    }
    ivec3 hand = size[VT_LEVELS];
    [[unroll]] for (int j = first; j <= last; ++j) {
        ivec3 ext = hi[j] - lo[j];
        ivec3 below = lo[j - 1];
        ivec3 taps = even ? ivec3(2) : size[j - 1];  // the side the taps come from
        [[unroll]] for (int it = 0; it < VT_ITERS; ++it) {
            int idx = tid + it * threads;
            if (idx >= ext.x * ext.y * ext.z) {
                break;
            }
            ivec3 p = lo[j] + mipUnflatten3(idx, ext);
            vec4 v;
#define VT_LOAD_SRC_(q) (VT_REDUCTION == 0 ? mipDecode(texelFetch(vtSrc, q, 0)) \
                                           : texelFetch(vtSrc, q, 0))
#define VT_LOAD_HAND_(q) vtHand[((q).z * hand.y + (q).y) * hand.x + (q).x]
#define VT_AT_(q, side) ((((q).z - below.z) * side + (q).y - below.y) * side + (q).x - below.x)
#define VT_LOAD_A_(q) vtA_[VT_AT_(q, VT_A_SIDE)]
#define VT_LOAD_B_(q) vtB_[VT_AT_(q, VT_B_SIDE)]
            if (j == 1 && VT_SAMPLED && even) {
                v = textureLod(vtSrc, vec3(2 * p + 1) / vec3(size[0]), 0.0);
                v = VT_REDUCTION == 0 ? mipDecode(v) : v;
            } else if (j == 1) {
                MIP_REDUCE_VOLUME(v, VT_REDUCTION, p, taps, VT_LOAD_SRC_)
            } else if (j == first) {
                MIP_REDUCE_VOLUME(v, VT_REDUCTION, p, taps, VT_LOAD_HAND_)
            } else if ((j & 1) == 0) {
                MIP_REDUCE_VOLUME(v, VT_REDUCTION, p, taps, VT_LOAD_A_)
            } else {
                MIP_REDUCE_VOLUME(v, VT_REDUCTION, p, taps, VT_LOAD_B_)
            }
            bool owned = all(lessThan(p, ownHi[j]));
            if (owned) {
                vtStore_(j, p, v);
            }
            if (VT_TAIL > 0 && j == VT_LEVELS && owned) {
                vtHand[(p.z * hand.y + p.y) * hand.x + p.x] = v;  // the tail's source, unrounded
            }
            if (j < last) {
                ivec3 r = p - lo[j];
                if ((j & 1) == 1) {
                    vtA_[(r.z * VT_A_SIDE + r.y) * VT_A_SIDE + r.x] = v;
                } else {
                    vtB_[(r.z * VT_B_SIDE + r.y) * VT_B_SIDE + r.x] = v;
                }
            }
        }
        barrier();  // level S+j's region is complete before S+j+1 reads it
    }
}

void main() {
    ivec3 size[VT_MAX_LEVELS + 1];
    size[0] = pc.srcSize;
    [[unroll]] for (int j = 1; j <= VT_LEVELS + VT_TAIL; ++j) {
        size[j] = max(size[j - 1] >> 1, ivec3(1));
    }
    vtLevels_(size, 1, VT_LEVELS, ivec3(gl_WorkGroupID) * pc.tile, pc.tile, VT_EVEN);
    if (VT_TAIL == 0 || !handoffArrive(0, pc.groups)) {
        return;
    }
    ivec3 top = size[VT_LEVELS + VT_TAIL];
    vtLevels_(size, VT_LEVELS + 1, VT_LEVELS + VT_TAIL, ivec3(0), max(top.x, max(top.y, top.z)),
              VT_TAIL_EVEN);
}
