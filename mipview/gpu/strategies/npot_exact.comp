#version 460
// npot_exact.comp: up to NPOT_MAX_LEVELS exact levels per dispatch (nvpro vk_compute_mipmaps
// class). Host side: mipview/gpu/strategies/npot_exact.py plans which levels each dispatch makes
// and the tile size; this kernel is its "general" path (odd sides: 2 levels with overlapping
// tiles, or one group finishing the chain); its "fast" path is single-pass's tile phase.
//
// Schedule of one work group, input level S (push srcSize), levels S+1 .. S+k (k = NPOT_LEVELS):
// * The group owns a tile of pc.tile x pc.tile texels of the LAST level S+k. Walking down, it
//   needs region [lo, hi) of each level S+j: twice the region above, plus one texel when that
//   level's side is odd (its 3-tap footprint). Regions of neighbouring groups overlap by that
//   texel: each group recomputes the shared border samples instead of synchronising with its
//   neighbour (nvpro's general pipeline); with even sides they do not overlap at all.
// * Level S+1 is reduced from texelFetch on the sampled view of S (hardware sRGB decode); level
//   S+j (j > 1) from the float region of S+j-1 in shared memory, so intermediates are never
//   quantised inside a dispatch. Regions ping-pong between npotA_ (odd j) and npotB_ (even j).
// * Every texel of every level is stored by exactly one group: the one whose tile, scaled down
//   the chain, covers it (the last group of a row/column also owns the remainder).
// * With NPOT_TAIL > 0, every group also writes its own texels of level S+k, as floats, to the
//   hand-off buffer npotHand, and arrives at its layer's counter (handoff.glsl); the last group
//   to arrive makes levels S+k+1 .. S+k+NPOT_TAIL alone, from npotHand, the same way (one tile
//   covering the whole last level): the dispatch that finished the chain is saved.
// The reduction itself is mip_common.glsl's MIP_REDUCE_EXACT, shared with per_level.comp; with
// NPOT_REDUCTION min or max (Hi-Z) it is MIP_EXTREME_EXACT over the same footprints (2 or 3
// texels per axis), on stored values as they are: sRGB codes through the UNORM view, undecoded,
// and every store (image, shared memory, hand-off) the value picked, unrounded: bit-exact.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
#include "mip_common.glsl"

// Threads per group (1D), and the sides of the two shared regions. The host checks every plan
// step against these (npot_exact.py: region_sides), so no bounds check is needed here.
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 1) const int NPOT_A_SIDE = 33;
layout(constant_id = 2) const int NPOT_B_SIDE = 16;
// sRGB only: srcLevel is a UNORM view and the shader decodes. Some samplers' built-in sRGB decode
// is an approximation (lavapipe's is off by up to ~0.3 LSB after re-encoding), and the exact
// pyramid should not inherit it.
layout(constant_id = 3) const bool NPOT_DECODE_SRGB = false;
// f16 only: round to the nearest half before the store; lavapipe's float -> half store
// conversion truncates (1 ulp error), which a chain of several dispatches accumulates.
layout(constant_id = 4) const bool NPOT_ROUND_HALF = false;
// k, the levels every group makes (1 .. 6), and the levels the last group makes after them
// (0: none): constants, so the level loops unroll and the per-level region arrays live in
// registers, not in local memory
layout(constant_id = 5) const int NPOT_LEVELS = 2;
layout(constant_id = 6) const int NPOT_TAIL = 0;
// 0: the mean; 1 min, 2 max (mip_common.glsl mipExtreme): no decode, no encode, no rounding
layout(constant_id = 7) const int NPOT_REDUCTION = 0;
const int NPOT_MAX_LEVELS = 12;  // = number of dst bindings; npot_exact.py OUTPUTS
// 8-bit formats: mipEncode stores the correctly rounded code, and the next level of this
// dispatch reads the float itself, up to 0.5 LSB from that code (as subgroup and single-pass
// carry theirs): the step promise of a carried level (mipview/check/bounds.py: one store rounding of
// the input plus its own, 1 LSB + the arithmetic's epsilon) allows exactly that, and pulling
// the float toward its code would only move the chain off the exact value.

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;
// One binding per output level: lavapipe cannot index storage-image arrays dynamically.
// Bindings past the dispatch's levels are bound to a level it writes anyway, and never touched.
layout(set = 0, binding = 1) writeonly uniform image2DArray dst1;
layout(set = 0, binding = 2) writeonly uniform image2DArray dst2;
layout(set = 0, binding = 3) writeonly uniform image2DArray dst3;
layout(set = 0, binding = 4) writeonly uniform image2DArray dst4;
layout(set = 0, binding = 5) writeonly uniform image2DArray dst5;
layout(set = 0, binding = 6) writeonly uniform image2DArray dst6;
layout(set = 0, binding = 7) writeonly uniform image2DArray dst7;
layout(set = 0, binding = 8) writeonly uniform image2DArray dst8;
layout(set = 0, binding = 9) writeonly uniform image2DArray dst9;
layout(set = 0, binding = 10) writeonly uniform image2DArray dst10;
layout(set = 0, binding = 11) writeonly uniform image2DArray dst11;
layout(set = 0, binding = 12) writeonly uniform image2DArray dst12;
layout(set = 0, binding = 13, std430) coherent buffer NpotCounters { uint npotCounter[]; };
layout(set = 0, binding = 14, std430) coherent buffer NpotHand { vec4 npotHand[]; };
#define HANDOFF_COUNTERS npotCounter
#include "handoff.glsl"

// Declared for the host as NPOT_EXACT in npot_exact.py beside it (tests/test_shader_interface.py).
layout(push_constant) uniform NpotPush {
    ivec2 srcSize;       // size of the input level S
    int tile;            // side of the group's tile at level S+k
    int groupsPerLayer;  // arrivals that complete one layer (NPOT_TAIL > 0)
} pc;

// texels per invocation and level, at most: ceil(NPOT_A_SIDE^2 / threads)
const int NPOT_ITERS_ = (NPOT_A_SIDE * NPOT_A_SIDE + int(gl_WorkGroupSize.x) - 1)
                        / int(gl_WorkGroupSize.x);

shared vec4 npotA_[NPOT_A_SIDE * NPOT_A_SIDE];
shared vec4 npotB_[NPOT_B_SIDE * NPOT_B_SIDE];

vec4 npotFetch_(ivec3 q) {
    vec4 v = texelFetch(srcLevel, q, 0);
    return NPOT_DECODE_SRGB && NPOT_REDUCTION == 0 ? vec4(mipSrgbToLinear(v.rgb), v.a) : v;
}

void npotStore_(int j, ivec3 p, vec4 e) {
    switch (j) {
        case 1: imageStore(dst1, p, e); break;
        case 2: imageStore(dst2, p, e); break;
        case 3: imageStore(dst3, p, e); break;
        case 4: imageStore(dst4, p, e); break;
        case 5: imageStore(dst5, p, e); break;
        case 6: imageStore(dst6, p, e); break;
        case 7: imageStore(dst7, p, e); break;
        case 8: imageStore(dst8, p, e); break;
        case 9: imageStore(dst9, p, e); break;
        case 10: imageStore(dst10, p, e); break;
        case 11: imageStore(dst11, p, e); break;
        default: imageStore(dst12, p, e); break;
    }
}

// Stores linear value v of level S+j at p when this group owns p (min/max: the stored value
// picked, as it is).
void npotEmit_(int j, ivec3 p, bool owned, vec4 v) {
    if (owned && NPOT_REDUCTION != 0) {
        npotStore_(j, p, v);
    } else if (owned) {
        vec4 e = mipEncode(v);
        npotStore_(j, p, NPOT_ROUND_HALF ? mipRoundToHalf(e) : e);
    }
}

// Levels S+first .. S+last, this group's tile of tile x tile texels of level S+last at origin
// (and the regions below it); level S+first-1 is read from srcLevel (first == 1) or from
// npotHand (the tail). size[j]: the size of level S+j.
void npotLevels_(ivec2 size[NPOT_MAX_LEVELS + 1], int first, int last, ivec2 origin, int tile,
                 int layer) {
    const int threads = int(gl_WorkGroupSize.x);
    const int tid = int(gl_LocalInvocationIndex);
    // Regions [lo, hi) this group computes, and the part [lo, ownHi) it stores.
    ivec2 lo[NPOT_MAX_LEVELS + 1];
    ivec2 hi[NPOT_MAX_LEVELS + 1];
    ivec2 ownHi[NPOT_MAX_LEVELS + 1];
    lo[first - 1] = ivec2(0);  // the source is addressed by level coordinates, not a region
    lo[last] = origin;
    hi[last] = min(size[last], origin + tile);
    ownHi[last] = hi[last];
    bvec2 lastTile = greaterThanEqual(origin + tile, size[last]);
    [[unroll]] for (int j = last - 1; j >= first; --j) {
        // A side of 1 stays 1: its group index is 0, so lo stays 0 and min() clamps hi to 1.
        lo[j] = 2 * lo[j + 1];
        hi[j] = min(size[j], 2 * hi[j + 1] + (size[j] & 1));
        ownHi[j] = mix((origin + tile) << (last - j), size[j], lastTile);
    }
    int handW = size[NPOT_LEVELS].x;
    int handBase = layer * size[NPOT_LEVELS].y;
    [[unroll]] for (int j = first; j <= last; ++j) {
        ivec2 ext = hi[j] - lo[j];
        ivec2 below = lo[j - 1];  // origin of the region of level S+j-1 in shared memory
        // a constant trip count (enough for the largest region, NPOT_A_SIDE^2; npot_exact.py
        // checks every region against it), so the loop unrolls and the loads of every texel an
        // invocation makes are in flight together, not one texel's round trip after another's
        [[unroll]] for (int it = 0; it < NPOT_ITERS_; ++it) {
            int idx = tid + it * threads;
            if (idx >= ext.x * ext.y) {
                break;
            }
            ivec2 p = lo[j] + mipUnflatten(idx, ext.x);
            vec4 v;
#define NPOT_LOAD_SRC_(q) npotFetch_(ivec3(q, layer))
#define NPOT_LOAD_HAND_(q) npotHand[(handBase + (q).y) * handW + (q).x]
#define NPOT_LOAD_A_(q) npotA_[((q).y - below.y) * NPOT_A_SIDE + (q).x - below.x]
#define NPOT_LOAD_B_(q) npotB_[((q).y - below.y) * NPOT_B_SIDE + (q).x - below.x]
            if (j == 1) {
                MIP_REDUCE_KIND_EXACT(v, NPOT_REDUCTION, p, size[0], NPOT_LOAD_SRC_)
            } else if (j == first) {
                MIP_REDUCE_KIND_EXACT(v, NPOT_REDUCTION, p, size[j - 1], NPOT_LOAD_HAND_)
            } else if ((j & 1) == 0) {
                MIP_REDUCE_KIND_EXACT(v, NPOT_REDUCTION, p, size[j - 1], NPOT_LOAD_A_)
            } else {
                MIP_REDUCE_KIND_EXACT(v, NPOT_REDUCTION, p, size[j - 1], NPOT_LOAD_B_)
            }
#undef NPOT_LOAD_SRC_
#undef NPOT_LOAD_HAND_
#undef NPOT_LOAD_A_
#undef NPOT_LOAD_B_
            bool owned = all(lessThan(p, ownHi[j]));
            npotEmit_(j, ivec3(p, layer), owned, v);
            if (NPOT_TAIL > 0 && j == NPOT_LEVELS && owned) {
                npotHand[(handBase + p.y) * handW + p.x] = v;  // the tail's source, unquantised
            }
            if (j < last) {
                ivec2 r = p - lo[j];
                if ((j & 1) == 1) {
                    npotA_[r.y * NPOT_A_SIDE + r.x] = v;
                } else {
                    npotB_[r.y * NPOT_B_SIDE + r.x] = v;
                }
            }
        }
        barrier();  // level S+j's region is complete before S+j+1 reads it
    }
}

void main() {
    const int layer = int(gl_WorkGroupID.z);
    ivec2 size[NPOT_MAX_LEVELS + 1];
    size[0] = pc.srcSize;
    [[unroll]] for (int j = 1; j <= NPOT_LEVELS + NPOT_TAIL; ++j) {
        size[j] = max(size[j - 1] >> 1, ivec2(1));
    }
    npotLevels_(size, 1, NPOT_LEVELS, ivec2(gl_WorkGroupID.xy) * pc.tile, pc.tile, layer);
    if (NPOT_TAIL == 0 || !handoffArrive(layer, pc.groupsPerLayer)) {
        return;
    }
    ivec2 top = size[NPOT_LEVELS + NPOT_TAIL];
    npotLevels_(size, NPOT_LEVELS + 1, NPOT_LEVELS + NPOT_TAIL, ivec2(0), max(top.x, top.y),
                layer);
}
