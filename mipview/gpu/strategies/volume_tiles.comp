#version 460
// volume_tiles.comp: up to 3 exact levels of a volume per dispatch through shared memory
// (npot_exact.comp's general path in 3D). Host side: mipview/gpu/strategies/volume_tiles.py,
// which plans the levels of each dispatch and the tile, and checks every region against the
// shared arrays' sides.
//
// A group owns a tile of pc.tile^3 texels of the LAST level S+k (k = VT_LEVELS). Walking down, it
// needs region [lo, hi) of each level S+j: twice the region above, plus one texel where that
// level's side is odd (its 3-tap footprint). Neighbouring groups' regions overlap by that texel:
// each recomputes it instead of waiting for the other. Level S+1 is reduced from texelFetch of
// level S, level S+j (j > 1) from the float region of S+j-1 in shared memory (vtA_ for odd j,
// vtB_ for even j), so nothing is rounded inside a dispatch. Every texel of every level is stored
// by the one group whose tile, scaled down the chain, covers it (the last tile of an axis owns
// the remainder).
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"
#include "mip_volume.glsl"

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
// k, the levels of this dispatch (1 .. 3): a constant, so the level loop unrolls
layout(constant_id = 1) const int VT_LEVELS = 2;
// 0 the mean; 1 min, 2 max, 3 minmax (mipExtreme on stored values: no decode, no rounding)
layout(constant_id = 2) const int VT_REDUCTION = 0;
// sides of the shared regions of levels S+1 (vtA_) and S+2 (vtB_)
layout(constant_id = 3) const int VT_A_SIDE = 11;
layout(constant_id = 4) const int VT_B_SIDE = 5;
// f16 only: round to the nearest half before the store (lavapipe's store truncates)
layout(constant_id = 5) const bool VT_ROUND_HALF = false;

layout(set = 0, binding = 0) uniform sampler3D vtSrc;
// one binding per level of the dispatch; bindings past VT_LEVELS alias its last level, unused
layout(set = 0, binding = 1) writeonly uniform image3D vtDst1;
layout(set = 0, binding = 2) writeonly uniform image3D vtDst2;
layout(set = 0, binding = 3) writeonly uniform image3D vtDst3;

layout(push_constant) uniform VolumeTilesPush {
    ivec3 srcSize;  // level S
    int tile;       // side of a group's tile of level S+k
} pc;

// texels per invocation and level, at most: the largest region over the group
const int VT_ITERS_ = (VT_A_SIDE * VT_A_SIDE * VT_A_SIDE + int(gl_WorkGroupSize.x) - 1)
                      / int(gl_WorkGroupSize.x);

shared vec4 vtA_[VT_A_SIDE * VT_A_SIDE * VT_A_SIDE];
shared vec4 vtB_[VT_B_SIDE * VT_B_SIDE * VT_B_SIDE];

void vtStore_(int j, ivec3 p, vec4 v) {
    vec4 e = v;
    if (VT_REDUCTION == 0) {
        e = mipEncode(v);
        e = VT_ROUND_HALF ? mipRoundToHalf(e) : e;
    }
    if (j == 1) {
        imageStore(vtDst1, p, e);
    } else if (j == 2) {
        imageStore(vtDst2, p, e);
    } else {
        imageStore(vtDst3, p, e);
    }
}

void main() {
    const int threads = int(gl_WorkGroupSize.x);
    const int tid = int(gl_LocalInvocationIndex);
    const int k = VT_LEVELS;
    ivec3 size[4];
    size[0] = pc.srcSize;
    [[unroll]] for (int j = 1; j <= k; ++j) {
        size[j] = max(size[j - 1] >> 1, ivec3(1));
    }
    ivec3 origin = ivec3(gl_WorkGroupID) * pc.tile;
    ivec3 lo[4];
    ivec3 hi[4];
    ivec3 ownHi[4];
    lo[k] = origin;
    hi[k] = min(size[k], origin + pc.tile);
    ownHi[k] = hi[k];
    bvec3 lastTile = greaterThanEqual(origin + pc.tile, size[k]);
    [[unroll]] for (int j = k - 1; j >= 1; --j) {
        // a side of 1 stays 1: its group index is 0, so lo stays 0 and min() clamps hi to 1
        lo[j] = 2 * lo[j + 1];
        hi[j] = min(size[j], 2 * hi[j + 1] + (size[j] & 1));
        ownHi[j] = mix((origin + pc.tile) << (k - j), size[j], lastTile);
    }
    lo[0] = ivec3(0);
    [[unroll]] for (int j = 1; j <= k; ++j) {
        ivec3 ext = hi[j] - lo[j];
        ivec3 below = lo[j - 1];
        [[unroll]] for (int it = 0; it < VT_ITERS_; ++it) {
            int idx = tid + it * threads;
            if (idx >= ext.x * ext.y * ext.z) {
                break;
            }
            ivec3 p = lo[j] + mipUnflatten3(idx, ext);
            vec4 v;
#define VT_LOAD_SRC_(q) (VT_REDUCTION == 0 ? mipDecode(texelFetch(vtSrc, q, 0)) \
                                           : texelFetch(vtSrc, q, 0))
#define VT_AT_(q, side) ((((q).z - below.z) * side + (q).y - below.y) * side + (q).x - below.x)
#define VT_LOAD_A_(q) vtA_[VT_AT_(q, VT_A_SIDE)]
#define VT_LOAD_B_(q) vtB_[VT_AT_(q, VT_B_SIDE)]
            if (j == 1) {
                MIP_REDUCE_VOLUME(v, VT_REDUCTION, p, size[0], VT_LOAD_SRC_)
            } else if ((j & 1) == 0) {
                MIP_REDUCE_VOLUME(v, VT_REDUCTION, p, size[j - 1], VT_LOAD_A_)
            } else {
                MIP_REDUCE_VOLUME(v, VT_REDUCTION, p, size[j - 1], VT_LOAD_B_)
            }
            if (all(lessThan(p, ownHi[j]))) {
                vtStore_(j, p, v);
            }
            if (j < k) {
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
