// spd_reduce.glsl: the single-pass downsampler (FidelityFX SPD class), shared by
// single_pass.comp (fp32) and single_pass_f16.comp (SP_FP16: packed half in registers, quad
// operations' inputs and shared memory). Host side: mipview/gpu/strategies/single_pass.py, which
// owns the plan (passes, offsets) and the push-constant layout below (SpPush <-> _PUSH there).
//
// One dispatch = one *pass* from a source level b:
//   tile phase  each 256-invocation workgroup reduces one or more 64x64 tiles of level b
//               (tile_schedule.glsl) to levels b+1 .. b+tileLevels (<= 6): step 1 from the
//               sampler (or the fp32 hand-off buffer of the previous pass) with the exact NPOT
//               weights of mip_common.glsl, each invocation one texel of level b+1 in each
//               quadrant of the tile; step 2 by quad swaps; steps 3..6 through shared memory
//               and quads with two barriers. The host only plans box steps 2..6 where the level
//               below has even sides, so every level is exact.
//   hand-off    level b+tileLevels also goes to the storage buffer spData as vec4 fp32 (exact, and
//               readable without a storage-image format qualifier, which cannot be a spec constant)
//   tail        if tailLevels > 0, every group bumps its layer's counter; the last group to arrive
//               computes b+tileLevels+1 .. with the exact weights from spData (ping-pong scratch
//               regions, a workgroup barrier between levels) and resets the counter.
//   strips      (SP_TAIL 3, npot-exact at render-target sizes) where the hand-off level h is odd
//               in y but stays even in x for SP_STRIP_LEVELS levels: every group (one tile each)
//               arrives at the counter of its column strip, 2^SP_STRIP_LEVELS texels of h wide
//               and the whole height; the last to arrive makes the strip's next SP_STRIP_LEVELS
//               levels in shared memory (x stays even, so no texel of a neighbouring strip is
//               read), writes its column of the last one to spData and arrives at the layer's
//               counter; the last strip makes the tailLevels levels left. One dispatch instead of
//               two (1920x1080: levels 4-10), yet slower on an H100 (docs/bench/speed-vs-spd).
// Cross-workgroup ordering uses the Vulkan memory model: every invocation releases its spData
// writes at queue-family scope in a control barrier, invocation 0 does an acquire-release
// atomicAdd at queue-family scope, and the last group's control barrier acquires them again.
#ifndef SPD_REDUCE_GLSL
#define SPD_REDUCE_GLSL

#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_quad : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
#include "mip_common.glsl"
#include "tile_schedule.glsl"

#ifdef SP_FP16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define SP_T f16vec4
#else
#define SP_T vec4
#endif

#define SP_GROUP 256
#define SP_OUTPUTS 14

layout(local_size_x = SP_GROUP, local_size_y = 1, local_size_z = 1) in;

// 0 mean, 1 min, 2 max
layout(constant_id = 0) const int SP_REDUCTION = 0;
// step 1 of the first pass takes one bilinear sample per 2x2 (mean, even sides only)
layout(constant_id = 1) const bool SP_BILINEAR = false;
// a workgroup with several tiles fetches the next tile's step-1 values before reducing this one
layout(constant_id = 2) const bool SP_PREFETCH = false;
// What the pass is, fixed per pipeline so that the compiler drops every path the pass does not
// take: registers are allocated for the worst path of the whole shader, and fewer registers mean
// more resident workgroups, which is what a latency-bound reduction needs (single_pass.py).
layout(constant_id = 3) const bool SP_SRC_BUFFER = false;  // step 1 reads spData, not spSrc
layout(constant_id = 4) const bool SP_SRC_EVEN = true;     // level b has even sides: 2x2 boxes
layout(constant_id = 5) const int SP_TAIL = 0;             // 0 none, 1 tiled (SPD), 2 per level
layout(constant_id = 6) const bool SP_TAIL_EVEN = true;    // a tiled tail's source has even sides
// step 1 from the image, even sides: textureGather per channel, not four texel loads (gather_mode
// in mipview/gpu/shaders/shipped.py: 0 texel loads, 1 red, 2 red and green, 3 red as both)
layout(constant_id = 7) const int SP_GATHER = 0;
// SP_TAIL 3: levels a column strip makes, and the vec4s of its two shared regions (odd and even
// levels of a strip or of the last strip's tail; single_pass.py strip_regions). 10-14 are
// mip_common.glsl's.
layout(constant_id = 8) const int SP_STRIP_LEVELS = 1;
layout(constant_id = 9) const int SP_STRIP_A = 1;
layout(constant_id = 15) const int SP_STRIP_B = 1;

layout(set = 0, binding = 0) uniform sampler2DArray spSrc;
// One binding per output level b+1 .. b+14: lavapipe cannot index storage-image arrays.
layout(set = 0, binding = 1) writeonly uniform image2DArray spOut1;
layout(set = 0, binding = 2) writeonly uniform image2DArray spOut2;
layout(set = 0, binding = 3) writeonly uniform image2DArray spOut3;
layout(set = 0, binding = 4) writeonly uniform image2DArray spOut4;
layout(set = 0, binding = 5) writeonly uniform image2DArray spOut5;
layout(set = 0, binding = 6) writeonly uniform image2DArray spOut6;
layout(set = 0, binding = 7) writeonly uniform image2DArray spOut7;
layout(set = 0, binding = 8) writeonly uniform image2DArray spOut8;
layout(set = 0, binding = 9) writeonly uniform image2DArray spOut9;
layout(set = 0, binding = 10) writeonly uniform image2DArray spOut10;
layout(set = 0, binding = 11) writeonly uniform image2DArray spOut11;
layout(set = 0, binding = 12) writeonly uniform image2DArray spOut12;
layout(set = 0, binding = 13) writeonly uniform image2DArray spOut13;
layout(set = 0, binding = 14) writeonly uniform image2DArray spOut14;
layout(set = 0, binding = 15, std430) coherent buffer SpCounters { uint spCounter[]; };
layout(set = 0, binding = 16, std430) coherent buffer SpData { vec4 spData[]; };
#define HANDOFF_COUNTERS spCounter
#include "handoff.glsl"

// Declared for the host as SINGLE_PASS in mipview/gpu/strategies/single_pass.py (tests/test_shader_interface.py).
layout(push_constant) uniform SpPush {
    ivec2 srcSize;       // level b
    ivec2 tileOffset;    // tile of workgroup (0, 0): sub-rectangle updates dispatch fewer tiles
    int tileLevels;      // levels made in tiles, 1..6
    int tailLevels;      // levels the last group makes after them, 0..
    int groupsPerLayer;  // arrivals that complete one layer
    int srcOffset;       // vec4 index of level b, layer 0, in spData
    int handoffOffset;   // vec4 index of level b+tileLevels, layer 0; < 0: not kept
    int scratchOffset;   // two tail regions of scratchSize vec4 each
    int scratchSize;
    int regionX;         // tiles per row of the dispatched region (tile_schedule.glsl)
    int regionTiles;     // tiles of the region, per layer
} pc;

shared SP_T spLds[256];   // level 2 of a tile (16x16)
shared SP_T spLds4[16];   // level 4 of a tile (4x4)
// SP_TAIL 3: a strip's odd levels (fp32, as the tail's) from 0, its even ones from SP_STRIP_A
shared vec4 spStrip[SP_STRIP_A + SP_STRIP_B];

ivec2 spLevelSize(int rel) {
    return max(pc.srcSize >> rel, ivec2(1));
}

// Where one tile phase reads and writes: the pass's source level (image or buffer), or, for a
// tiled tail, the hand-off level in spData with outputs numbered from pc.tileLevels + 1.
struct SpSource {
    ivec2 size;      // source level
    bool fromBuffer; // read spData[offset..] instead of spSrc
    bool even;       // even sides: step 1 is a plain 2x2 box
    int offset;      // vec4 index of the source level, layer 0
    int relBase;     // output level k of this phase is pass level relBase + k
    int levels;      // levels made by this phase
    bool keep;       // its last level is the hand-off (spKeep)
};

void spStore(int rel, ivec2 p, int layer, vec4 v) {
    ivec3 q = ivec3(p, layer);
    vec4 e = mipEncode(v);
    switch (rel) {
    case 1: imageStore(spOut1, q, e); break;
    case 2: imageStore(spOut2, q, e); break;
    case 3: imageStore(spOut3, q, e); break;
    case 4: imageStore(spOut4, q, e); break;
    case 5: imageStore(spOut5, q, e); break;
    case 6: imageStore(spOut6, q, e); break;
    case 7: imageStore(spOut7, q, e); break;
    case 8: imageStore(spOut8, q, e); break;
    case 9: imageStore(spOut9, q, e); break;
    case 10: imageStore(spOut10, q, e); break;
    case 11: imageStore(spOut11, q, e); break;
    case 12: imageStore(spOut12, q, e); break;
    case 13: imageStore(spOut13, q, e); break;
    case 14: imageStore(spOut14, q, e); break;
    }
}

// mip_common.glsl's mipExtreme in the registers' type (fp16 too)
SP_T spExtreme(SP_T a, SP_T b) {
    if (SP_REDUCTION == 1) {
        return min(a, b);
    }
    if (SP_REDUCTION == 2) {
        return max(a, b);
    }
    return SP_T(min(a.x, b.x), max(a.yzw, b.yzw));
}

SP_T spReduce4(SP_T a, SP_T b, SP_T c, SP_T d) {
    if (SP_REDUCTION != 0) {
        return spExtreme(spExtreme(a, b), spExtreme(c, d));
    }
    return ((a + b) + (c + d)) * SP_T(0.25);
}

// SP_REDUCE_TAPS(result, p, srcSize, LOAD): the exact reduction of output texel p (mean: the area
// weights of MIP_REDUCE_EXACT; min/max: every tap of the footprint, nothing outside it).
#define SP_REDUCE_TAPS(result, p, srcSize, LOAD)                                             \
    if (SP_REDUCTION == 0) {                                                                 \
        MIP_REDUCE_EXACT(result, p, srcSize, LOAD)                                           \
    } else {                                                                                 \
        MipTaps sx_ = mipAxisTaps((p).x, (srcSize).x);                                       \
        MipTaps sy_ = mipAxisTaps((p).y, (srcSize).y);                                       \
        vec4 m_ = LOAD(ivec2(sx_.first, sy_.first));                                         \
        for (int sj_ = 0; sj_ < sy_.count; ++sj_) {                                          \
            for (int si_ = 0; si_ < sx_.count; ++si_) {                                      \
                m_ = mipExtreme(SP_REDUCTION, m_,                                            \
                                LOAD(ivec2(sx_.first + si_, sy_.first + sj_)));              \
            }                                                                                \
        }                                                                                    \
        result = m_;                                                                         \
    }

void spKeep(int rel, ivec2 p, int layer, vec4 v) {
    // the hand-off level also goes to spData (exact fp32) for the tail or the next pass
    if (rel == pc.tileLevels && pc.handoffOffset >= 0) {
        ivec2 s = spLevelSize(rel);
        spData[pc.handoffOffset + (layer * s.y + p.y) * s.x + p.x] = v;
    }
}

// Output k of a tile phase (level relBase + k of the pass).
void spEmitPhase(SpSource src, int k, ivec2 p, int layer, vec4 v) {
    if (all(lessThan(p, max(src.size >> k, ivec2(1))))) {
        spStore(src.relBase + k, p, layer, v);
        if (src.keep) {
            spKeep(k, p, layer, v);
        }
    }
}

// Level 1 texel p of a phase (clamped into the level, so no load leaves the source).
vec4 spStep1(SpSource src, ivec2 p, int layer) {
    ivec2 s = src.size;
    p = min(p, max(s >> 1, ivec2(1)) - 1);
    bool even = src.even;
    vec4 v;
    if (src.fromBuffer) {
#define SP_LOAD_BUF(q) spData[src.offset + (layer * s.y + (q).y) * s.x + (q).x]
        if (even) {
            // even sides: a plain 2x2 box, no tap loop (the exact weights are all 1/4)
            ivec2 q = 2 * p;
            v = vec4(spReduce4(SP_T(SP_LOAD_BUF(q)), SP_T(SP_LOAD_BUF(q + ivec2(1, 0))),
                               SP_T(SP_LOAD_BUF(q + ivec2(0, 1))),
                               SP_T(SP_LOAD_BUF(q + ivec2(1, 1)))));
        } else {
            SP_REDUCE_TAPS(v, p, s, SP_LOAD_BUF)
        }
    } else if (SP_BILINEAR) {
        // the centre of the 2x2 block: weights exactly 1/4 each
        v = textureLod(spSrc, vec3(vec2(2 * p + 1) / vec2(s), float(layer)), 0.0);
    } else if (even) {
        // sRGB texel loads come from the UNORM view and are decoded here (exact; a sampler's
        // decode is the device's approximation, lavapipe's a third of an LSB off); the bilinear
        // sample above reads the sRGB view, which filters in linear light
#define SP_LOAD_TEX(q) mipDecode(texelFetch(spSrc, ivec3(q, layer), 0))
        ivec2 q = 2 * p;
        if (SP_GATHER != 0) {
            // the block's shared corner: gather returns texels (0, 1), (1, 1), (1, 0), (0, 0) of
            // it, a channel at a time; the same values as the loads below, reduced in their order
            vec3 c = vec3(vec2(q + 1) / vec2(s), float(layer));
            vec4 r = textureGather(spSrc, c, 0);
            vec4 g = SP_GATHER == 2 ? textureGather(spSrc, c, 1) : SP_GATHER == 3 ? r : vec4(0.0);
            v = vec4(spReduce4(SP_T(mipDecode(vec4(r.w, g.w, 0.0, 1.0))),
                               SP_T(mipDecode(vec4(r.z, g.z, 0.0, 1.0))),
                               SP_T(mipDecode(vec4(r.x, g.x, 0.0, 1.0))),
                               SP_T(mipDecode(vec4(r.y, g.y, 0.0, 1.0)))));
        } else {
            v = vec4(spReduce4(SP_T(SP_LOAD_TEX(q)), SP_T(SP_LOAD_TEX(q + ivec2(1, 0))),
                               SP_T(SP_LOAD_TEX(q + ivec2(0, 1))),
                               SP_T(SP_LOAD_TEX(q + ivec2(1, 1)))));
        }
    } else {
        SP_REDUCE_TAPS(v, p, s, SP_LOAD_TEX)
    }
    return v;
}

void spBarrierWorkgroup() {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                   gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
}

// The tail: levels b+tileLevels+1 .. b+tileLevels+tailLevels from spData, exact weights.
void spTail(int tid, int layer) {
    ivec2 s = spLevelSize(pc.tileLevels);
    int inOff = pc.handoffOffset + layer * s.x * s.y;
    // Each layer owns a fixed slice of every scratch region (the size of the first tail level):
    // slices sized by the current level would let a layer's later level overwrite another
    // layer's earlier one, and the layers' last groups run concurrently.
    ivec2 first = spLevelSize(pc.tileLevels + 1);
    int slice = layer * first.x * first.y;
    for (int j = 1; j <= pc.tailLevels; ++j) {
        int rel = pc.tileLevels + j;
        ivec2 d = max(s >> 1, ivec2(1));
        int outOff = pc.scratchOffset + (j & 1) * pc.scratchSize + slice;
        bool keep = j < pc.tailLevels;
        for (int i = tid; i < d.x * d.y; i += SP_GROUP) {
            ivec2 p = mipUnflatten(i, d.x);
            vec4 v;
#define SP_LOAD_TAIL(q) spData[inOff + (q).y * s.x + (q).x]
            SP_REDUCE_TAPS(v, p, s, SP_LOAD_TAIL)
            spStore(rel, p, layer, v);
            if (keep) {
                spData[outOff + i] = v;
            }
        }
        spBarrierWorkgroup();
        s = d;
        inOff = outOff;
    }
}

// SP_TAIL 3: levels rel+1 .. rel+n of the columns [x0, x0 + w) of pass level rel, whole height,
// with the exact weights: level rel from spData at inOff (the whole level, row-major), each level
// after it into spStrip (odd k from 0, even k from SP_STRIP_A) as a region of its columns, the
// last one to spData at outOff as a whole level instead (outOff < 0: not kept). The host plans
// strips whose x0 and w stay even down to the last level, so no footprint leaves the strip.
// The extremes' taps are unrolled too (MIP_REDUCE_KIND_EXACT, not SP_REDUCE_TAPS): a run-time
// trip count over shared memory is what lavapipe mishandles here (below).
void spStripLevels(int tid, int layer, int rel, int x0, int w, int n, int inOff, int outOff) {
    ivec2 s = spLevelSize(rel);
    int rx = x0;  // the source region's first column
    int rw = w;   // and its width
    for (int k = 1; k <= n; ++k) {
        ivec2 d = max(s >> 1, ivec2(1));
        int dx = rx >> 1;
        int dw = max(rw >> 1, 1);
        // odd levels' regions start at 0, even ones' at SP_STRIP_A
        int from = (k & 1) == 1 ? SP_STRIP_A : 0;
        int to = SP_STRIP_A - from;
        // a constant trip count, as npot_exact.comp's level loop has (no level of a strip pass
        // has more than 3 * SP_GROUP texels: single_pass.py strip_pass). With a loop of
        // i += SP_GROUP up to the level's texels reading shared memory, lavapipe let all but
        // invocation 0's subgroup through the next hand-off's barriers early, on the first
        // hand-off's answer: every strip's group ran the tail
        [[unroll]] for (int it = 0; it < 3; ++it) {
            int i = tid + it * SP_GROUP;
            if (i >= dw * d.y) {
                break;
            }
            ivec2 p = ivec2(dx, 0) + mipUnflatten(i, dw);
            vec4 v;
            if (k == 1) {
#define SP_LOAD_STRIP_IN(q) spData[inOff + (q).y * s.x + (q).x]
                MIP_REDUCE_KIND_EXACT(v, SP_REDUCTION, p, s, SP_LOAD_STRIP_IN)
            } else {
#define SP_LOAD_STRIP(q) spStrip[from + (q).y * rw + (q).x - rx]
                MIP_REDUCE_KIND_EXACT(v, SP_REDUCTION, p, s, SP_LOAD_STRIP)
            }
            spStore(rel + k, p, layer, v);
            if (k < n) {  // the region's texel i, row-major
                spStrip[to + i] = v;
            } else if (outOff >= 0) {
                spData[outOff + p.y * d.x + p.x] = v;
            }
        }
        spBarrierWorkgroup();  // level k is complete before k + 1 reads it
        s = d;
        rx = dx;
        rw = dw;
    }
}

// SP_TAIL 3 after the tile phase: the group's strip, then, in the last strip, the rest.
void spStrips(int tid, int layer) {
    int t = mipGroupIndex();
    if (t >= pc.regionTiles) {
        return;  // an idle group (one tile per group): it counts in no strip
    }
    int block = 64 >> pc.tileLevels;      // a tile's texels per side at the hand-off level h
    int stripW = 1 << SP_STRIP_LEVELS;    // a strip's texels per row at h
    int stripTilesX = stripW / block;
    int strips = pc.regionX / stripTilesX;
    int rows = pc.regionTiles / pc.regionX;
    int strip = mipTileAt(t, pc.regionX).x / stripTilesX;
    int counter = layer * (strips + 1);
    if (!handoffArrive(counter + strip, stripTilesX * rows)) {
        return;
    }
    ivec2 h = spLevelSize(pc.tileLevels);
    ivec2 e = spLevelSize(pc.tileLevels + SP_STRIP_LEVELS);
    int edge = pc.scratchOffset + layer * e.x * e.y;  // level h + SP_STRIP_LEVELS, whole
    spStripLevels(tid, layer, pc.tileLevels, strip * stripW, stripW, SP_STRIP_LEVELS,
                  pc.handoffOffset + layer * h.x * h.y, pc.tailLevels > 0 ? edge : -1);
    if (pc.tailLevels == 0 || !handoffArrive(counter + strips, strips)) {
        return;
    }
    spStripLevels(tid, layer, pc.tileLevels + SP_STRIP_LEVELS, 0, e.x, pc.tailLevels, edge, -1);
}

// One 64x64 tile of src.size reduced by src.levels (<= 6) levels inside the workgroup. Every
// invocation calls it (barriers inside); steps 2.. are boxes, so the host only plans them where
// the level below has even sides.
// Step 1 of a tile: the invocation's four level-1 texels, one in each 16x16 quadrant of the
// tile's 32x32 block of level 1 (SPD's layout). Across a subgroup each fetch and each store then
// covers one dense block (8x4 texels for 32 lanes, 16x8 source texels: one 512-byte GOB of an
// NVIDIA block-linear RGBA8 image) instead of every other texel of twice the area; the level-1
// stores are as many as the fetches, and scattered they cost far more than the fetches (H200).
// Apart from the tile phase so that a workgroup can fetch its next tile early (SP_PREFETCH).
struct SpBlock {
    vec4 a, b, c, d;  // quadrants (0, 0), (1, 0), (0, 1), (1, 1)
};

ivec2 spQuadrant(int k) {
    return 16 * ivec2(k & 1, k >> 1);
}

SpBlock spFetchBlock(SpSource src, ivec2 tile, ivec2 xy, int layer) {
    ivec2 p1 = tile * 32 + xy;
    return SpBlock(spStep1(src, p1, layer), spStep1(src, p1 + spQuadrant(1), layer),
                   spStep1(src, p1 + spQuadrant(2), layer), spStep1(src, p1 + spQuadrant(3), layer));
}

// The 2x2 reduction of a quad's four values (lanes 4k..4k+3 are a 2x2 block of xy). Every lane
// pairs the same texels ((own, horizontal) and (vertical, diagonal) are the quad's two rows
// whichever lane computes; + is commutative), so all four lanes get the same bits.
SP_T spQuadReduce(vec4 v) {
    // fp32 values: quad operations on halves need subgroup extended types
    return spReduce4(SP_T(v), SP_T(subgroupQuadSwapHorizontal(v)),
                     SP_T(subgroupQuadSwapVertical(v)), SP_T(subgroupQuadSwapDiagonal(v)));
}

void spTilePhase(SpSource src, int tid, int layer, ivec2 tile, ivec2 xy, SpBlock blk) {
    ivec2 p1 = tile * 32 + xy;
    spEmitPhase(src, 1, p1, layer, blk.a);
    spEmitPhase(src, 1, p1 + spQuadrant(1), layer, blk.b);
    spEmitPhase(src, 1, p1 + spQuadrant(2), layer, blk.c);
    spEmitPhase(src, 1, p1 + spQuadrant(3), layer, blk.d);

    if (src.levels >= 2) {
        // step 2: one quad reduction per quadrant; lane k of each quad keeps quadrant k's value,
        // so one store instruction writes level 2 and every lane has a texel to store
        int mine = tid & 3;
        SP_T r0 = spQuadReduce(blk.a);
        SP_T r1 = spQuadReduce(blk.b);
        SP_T r2 = spQuadReduce(blk.c);
        SP_T r3 = spQuadReduce(blk.d);
        SP_T v2 = mine == 0 ? r0 : mine == 1 ? r1 : mine == 2 ? r2 : r3;
        ivec2 p2 = (xy >> 1) + spQuadrant(mine) / 2;  // in the tile's 16x16 block of level 2
        spEmitPhase(src, 2, tile * 16 + p2, layer, vec4(v2));
        spLds[p2.y * 16 + p2.x] = v2;
    }
    if (src.levels < 3) {
        return;
    }
    // Steps 3..6 with two workgroup barriers (uniform: src.levels is). A chain of one barrier
    // per level, each level's stores inside it, was the costliest part of a tile on the H200
    // (8192^2 RGBA8: 38 of 138 us): the few working warps queue their stores behind the level-1
    // traffic while the whole group waits. Here quads do what they can without a barrier (SPD):
    // invocations 0..63 each make one texel of level 3 (Z order, so a quad is a 2x2 block) and
    // reduce their quad to level 4; after the second barrier one quad makes level 5 from spLds4
    // and reduces it to level 6. The other warps go on to their next tile at once. Every level is
    // the same 2x2 reduction in the same order as before, so the bits do not change.
    barrier();  // level 2 in spLds
    int q = tid & 63;
    ivec2 p3 = ivec2((q & 1) | ((q >> 1) & 2) | ((q >> 2) & 4),
                     ((q >> 1) & 1) | ((q >> 2) & 2) | ((q >> 3) & 4));
    if (tid < 64) {
        int i = 2 * p3.y * 16 + 2 * p3.x;
        SP_T v3 = spReduce4(spLds[i], spLds[i + 1], spLds[i + 16], spLds[i + 17]);
        spEmitPhase(src, 3, tile * 8 + p3, layer, vec4(v3));
        if (src.levels >= 4) {
            SP_T v4 = spQuadReduce(vec4(v3));
            ivec2 p4 = p3 >> 1;
            if ((tid & 3) == 0) {
                spLds4[p4.y * 4 + p4.x] = v4;
                spEmitPhase(src, 4, tile * 4 + p4, layer, vec4(v4));
            }
        }
    }
    // the next tile rewrites spLds and spLds4 only after this barrier (and its own first one)
    barrier();
    if (src.levels >= 5 && tid < 4) {
        ivec2 p5 = ivec2(tid & 1, tid >> 1);
        int i = 2 * p5.y * 4 + 2 * p5.x;
        SP_T v5 = spReduce4(spLds4[i], spLds4[i + 1], spLds4[i + 4], spLds4[i + 5]);
        spEmitPhase(src, 5, tile * 2 + p5, layer, vec4(v5));
        if (src.levels >= 6) {
            SP_T v6 = spQuadReduce(vec4(v5));
            if (tid == 0) {
                spEmitPhase(src, 6, tile, layer, vec4(v6));
            }
        }
    }
}

void main() {
    // Logical invocation id from the subgroup ids: quad swaps then pair lanes 4k..4k+3, which
    // this mapping places on a 2x2 block. Full Z order (bits: x0 y0 x1 y1 x2 y2 x3 y3) keeps a
    // subgroup's fetches square (32 lanes: 16x8 texels of the source per fetch, one GOB).
    int tid = int(gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID);
    int layer = int(gl_WorkGroupID.z);
    ivec2 xy = ivec2((tid & 1) | ((tid >> 1) & 2) | ((tid >> 2) & 4) | ((tid >> 3) & 8),
                     ((tid >> 1) & 1) | ((tid >> 2) & 2) | ((tid >> 3) & 4) | ((tid >> 4) & 8));

    SpSource src = SpSource(pc.srcSize, SP_SRC_BUFFER, SP_SRC_EVEN, pc.srcOffset, 0,
                            pc.tileLevels, true);
    int stride = mipGroupCount();
    int t = mipGroupIndex();
    // the trip count is the same for every invocation: the barriers inside stay uniform
    if (t < pc.regionTiles) {
        SpBlock next = spFetchBlock(src, mipTileAt(t, pc.regionX) + pc.tileOffset, xy, layer);
        for (; t < pc.regionTiles; t += stride) {
            SpBlock blk = next;
            bool more = t + stride < pc.regionTiles;
            ivec2 nextTile = mipTileAt(t + stride, pc.regionX) + pc.tileOffset;
            if (SP_PREFETCH && more) {
                next = spFetchBlock(src, nextTile, xy, layer);
            }
            spTilePhase(src, tid, layer, mipTileAt(t, pc.regionX) + pc.tileOffset, xy, blk);
            if (more) {
                if (!SP_PREFETCH) {
                    next = spFetchBlock(src, nextTile, xy, layer);
                }
            }
        }
    }
    if (SP_TAIL == 0) {
        return;
    }
    if (SP_TAIL == 3) {
        spStrips(tid, layer);
        return;
    }
    if (!handoffArrive(layer, pc.groupsPerLayer)) {
        return;
    }
    if (SP_TAIL == 1) {
        // SPD's tail: the hand-off (<= 64x64, even down to 1x1) as one more tile, in parallel
        // through registers, quad swaps and shared memory instead of level by level in memory
        ivec2 s = spLevelSize(pc.tileLevels);
        SpSource hand = SpSource(s, true, SP_TAIL_EVEN, pc.handoffOffset, pc.tileLevels,
                                 pc.tailLevels, false);
        spTilePhase(hand, tid, layer, ivec2(0), xy, spFetchBlock(hand, ivec2(0), xy, layer));
    } else {
        spTail(tid, layer);
    }
}

#endif
