#version 460
// register_chain.comp: RC_DEPTH exact levels per dispatch with no shared memory and no barrier
// (host side: mipview/gpu/strategies/register_chain.py, which plans the depth of each dispatch).
//
// Made for CPU devices: lavapipe runs a workgroup's invocations as SIMD lanes of one thread, and
// every barrier switches all of them (coroutines), so each invocation works alone: it owns one
// texel p of the dispatch's last level S+D and makes, depth first, every texel under it: the
// block of 2^(D-1) x 2^(D-1) texels of level S+1 (each from its footprint in level S, read with
// texelFetch: 2 taps per even side, 3 area-weighted taps per odd side), reduced 2x2 by 2x2 in
// registers down to p. Levels S+1 .. S+D-1 have sides that are even or 1 (the planner ends a
// dispatch where one is odd), so blocks never share a texel and never need a neighbour's values.
//
// Promise "stored", as per-level: every level is reduced from the level below AS STORED: each
// value is encoded (mipEncode; f16 rounded to the nearest half first, since lavapipe's store
// conversion truncates), stored, and decoded back (mipDecode) before the next level uses it.
//
// Texels past a level's edge (a side of 1 below a wider block) are computed from clamped loads
// and never stored; a side of 1 weighs its one texel fully (mipBoxSides), so they never reach a
// stored texel either.
//
// RC_REDUCTION min/max (Hi-Z): the same blocks with mipExtreme in place of the average: level
// S+1 over each texel's whole footprint (MIP_EXTREME_EXACT: 2 or 3 texels per axis), the levels
// below over 2x2 quads (mipExtremeSides). They pick stored values, so the loads are the stored
// values as they are (sRGB: codes through the UNORM view, undecoded) and each store is the value
// picked (no mipEncode, no rounding): every level bit-exact, conservative at every size.
//
// The levels are nested functions, unrolled: lavapipe keeps the whole block in registers
// (1024^2, levels 1-3: 794 us, against 962 for per-level's level 1 alone). Rolled loops over the
// block were tried and dropped: 1745 us with the 2x2 boxes in indexed arrays, 925 with the
// outer 2x2 rolled. lavapipe inlines every depth's function before specialization drops the
// unused ones, and LLVM compiles each copy of the sRGB encode and decode: a depth-3 sRGB
// pipeline takes ~40 s to compile there, and runs slower than depth 2 (register_chain.py).
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;

layout(constant_id = 2) const int RC_DEPTH = 1;        // levels this dispatch makes, 1..3
layout(constant_id = 3) const bool RC_EVEN = false;    // level S's sides even: a plain 2x2 box
layout(constant_id = 4) const bool RC_ROUND_HALF = false;  // f16: round to the nearest half
// 0: the mean; 1 min, 2 max (mip_common.glsl mipExtreme), stored values as they are
layout(constant_id = 5) const int RC_REDUCTION = 0;

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;  // level S (sRGB: its UNORM view)
// One binding per output level (lavapipe cannot index storage-image arrays dynamically); those
// past the dispatch's depth alias its last level and are never touched.
layout(set = 0, binding = 1) writeonly uniform image2DArray dst1;
layout(set = 0, binding = 2) writeonly uniform image2DArray dst2;
layout(set = 0, binding = 3) writeonly uniform image2DArray dst3;

// Declared for the host as REGISTER_CHAIN in mipview/gpu/shaders/shipped.py.
layout(push_constant) uniform RegisterChainPush {
    ivec2 srcSize;  // level S
} pc;

int layer;

ivec2 rcSize(int j) {
    return max(pc.srcSize >> j, ivec2(1));
}

// Stores v as texel p of level S+j where p is inside it; returns the value as stored, decoded
// (min/max: v is a stored value already, stored and returned as it is).
vec4 rcKeep(int j, ivec2 p, vec4 v) {
    vec4 e = v;
    if (RC_REDUCTION == 0) {
        e = mipEncode(v);
        if (RC_ROUND_HALF) {
            e = mipRoundToHalf(e);
        }
    }
    if (all(lessThan(p, rcSize(j)))) {
        ivec3 q = ivec3(p, layer);
        switch (j) {
            case 1: imageStore(dst1, q, e); break;
            case 2: imageStore(dst2, q, e); break;
            default: imageStore(dst3, q, e); break;
        }
    }
    return RC_REDUCTION == 0 ? mipDecode(e) : e;
}

#define RC_FETCH(q) texelFetch(srcLevel, ivec3(q, layer), 0)
#define RC_LOAD(q) mipDecode(RC_FETCH(q))

// The 2x2 step of the levels below S+1 (sides even or 1).
vec4 rcReduce4(vec4 a, vec4 b, vec4 c, vec4 d, ivec2 n) {
    if (RC_REDUCTION != 0) {
        return mipExtremeSides(RC_REDUCTION, a, b, c, d, n);
    }
    return mipBoxSides(a, b, c, d, n);
}

// Texel p of level S+1 (not yet stored); the fetches are clamped to level S+1 (see the header).
vec4 rcLevel1(ivec2 p) {
    ivec2 c = min(p, rcSize(1) - 1);
    vec4 v;
    if (RC_REDUCTION != 0) {
        if (RC_EVEN) {
            ivec2 q = 2 * c;
            v = mipExtremeSides(RC_REDUCTION, RC_FETCH(q), RC_FETCH(q + ivec2(1, 0)),
                                RC_FETCH(q + ivec2(0, 1)), RC_FETCH(q + ivec2(1, 1)), pc.srcSize);
        } else {
            MIP_EXTREME_EXACT(v, RC_REDUCTION, c, pc.srcSize, RC_FETCH)
        }
    } else if (RC_EVEN) {
        ivec2 q = 2 * c;
        v = mipBox(RC_LOAD(q), RC_LOAD(q + ivec2(1, 0)), RC_LOAD(q + ivec2(0, 1)),
                   RC_LOAD(q + ivec2(1, 1)));
    } else {
        MIP_REDUCE_EXACT(v, c, pc.srcSize, RC_LOAD)
    }
    return v;
}

vec4 rcKeep1(ivec2 p) {
    return rcKeep(1, p, rcLevel1(p));
}

// Texel p of level S+2 (S+3), stored, from the four texels under it, each made (and stored) first.
vec4 rcKeep2(ivec2 p) {
    ivec2 q = 2 * p;
    return rcKeep(2, p, rcReduce4(rcKeep1(q), rcKeep1(q + ivec2(1, 0)),
                                  rcKeep1(q + ivec2(0, 1)), rcKeep1(q + ivec2(1, 1)), rcSize(1)));
}

vec4 rcKeep3(ivec2 p) {
    ivec2 q = 2 * p;
    return rcKeep(3, p, rcReduce4(rcKeep2(q), rcKeep2(q + ivec2(1, 0)),
                                  rcKeep2(q + ivec2(0, 1)), rcKeep2(q + ivec2(1, 1)), rcSize(2)));
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    layer = int(gl_GlobalInvocationID.z);
    if (any(greaterThanEqual(p, rcSize(RC_DEPTH)))) {
        return;
    }
    if (RC_DEPTH == 1) {
        rcKeep1(p);
    } else if (RC_DEPTH == 2) {
        rcKeep2(p);
    } else {
        rcKeep3(p);
    }
}
