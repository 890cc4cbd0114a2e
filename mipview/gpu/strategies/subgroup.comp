#version 460
// subgroup.comp: several mip levels per dispatch, 2x2 steps by subgroupShuffleXor while the
// 2x2 group of cells lies in one subgroup, then through shared memory. Host side and the
// dispatch plan: ../mipview/gpu/strategies/subgroup.py.
//
// One workgroup = 256 invocations = a 16x16 grid of cells (placed by the LAYOUT constant, see
// include/subgroup_layout.glsl). Three modes (specialization constant MODE, one pipeline each):
//
//  TILE (0)      the workgroup reduces a 2^T x 2^T tile of the source (T = TILE_LEVELS, 5 or 6)
//                by up to T levels. Each invocation fetches 2^(T-4) x 2^(T-4) source texels and
//                makes its cell's first T-4 levels in registers; the four levels of the 16x16 grid
//                follow, in subgroup while mipSubgroupSteps() allows, else in shared memory (one
//                barrier per level). Exact only while every source side is even (2x2 box) or 1
//                (the missing neighbour gets weight 0): the host plans it only there.
//  PER_LEVEL (1) one output texel per invocation, the reference's exact 2- or 3-tap weights
//                (MIP_REDUCE_EXACT): for levels whose source has an odd side > 1.
//  TAIL (2)      one workgroup per layer takes the whole remaining chain of a source of <= 1024
//                texels (max side 64, <= 6 levels) through shared memory with exact weights:
//                the odd-sided small levels cost one dispatch, not one each.
//
// Intermediates stay in float inside a dispatch (better chain error than re-reading 8 bits), and
// across dispatches too: the last level of a dispatch also goes, unquantised, to a float scratch
// buffer that the next dispatch reads instead of the stored image (SRC_SCRATCH, pc.dstScratch >= 0;
// the host leaves a boundary level quantised only where it would take too much memory).
// REDUCTION min/max (Hi-Z): every mode with mipExtreme in place of the average: 2x2 quads where
// the plan has a box (mipExtremeSides), each texel's whole footprint where it has exact weights
// (MIP_EXTREME_EXACT: 2 or 3 texels per axis). They pick stored values, so loads are storage
// values as they are (sRGB codes through the UNORM view, undecoded) and every store (image and
// scratch) the value picked, unrounded: bit-exact, conservative at every size. BILINEAR averages
// in the sampler: the host never sets it with them.
// Output level j (1..6 below the source) is binding j: lavapipe has no dynamic indexing of
// storage-image arrays, so the store switches on the level instead of indexing an array.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "mip_common.glsl"
#include "subgroup_layout.glsl"
#include "tile_schedule.glsl"

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = 0) const int LAYOUT = MIP_LAYOUT_MORTON;
layout(constant_id = 1) const int TILE_LEVELS = 5;  // 5: 32x32 tile, 6: 64x64 tile
// Debug: TILE mode writes (lane, subgroup id, subgroup size, 1) / 255 into the first output
// level instead of colour, so a test can read back where each invocation sits.
layout(constant_id = 2) const bool DEBUG_LANES = false;
// TILE reads an image source with one bilinear sample per 2x2 block (load=bilinear)
layout(constant_id = 3) const bool BILINEAR = false;
// a workgroup with several tiles fetches the next one before reducing this one (prefetch=on)
layout(constant_id = 4) const bool PREFETCH = false;
// The dispatch's mode and source, fixed per pipeline: the compiler then drops the other modes'
// paths, and registers (allocated for the worst path) decide how many workgroups stay resident.
layout(constant_id = 5) const int MODE = 0;               // MODE_* below
layout(constant_id = 6) const bool SRC_SCRATCH = false;   // read scratch[srcScratch..], not srcLevel
// 0: the mean; 1 min, 2 max (mip_common.glsl mipExtreme): no decode, no encode, no rounding
layout(constant_id = 7) const int REDUCTION = 0;

const int MODE_TILE = 0;
const int MODE_PER_LEVEL = 1;
const int MODE_TAIL = 2;

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;
layout(set = 0, binding = 1) writeonly uniform image2DArray dstLevel1;
layout(set = 0, binding = 2) writeonly uniform image2DArray dstLevel2;
layout(set = 0, binding = 3) writeonly uniform image2DArray dstLevel3;
layout(set = 0, binding = 4) writeonly uniform image2DArray dstLevel4;
layout(set = 0, binding = 5) writeonly uniform image2DArray dstLevel5;
layout(set = 0, binding = 6) writeonly uniform image2DArray dstLevel6;
// Linear float texels of the level between two dispatches, (layer, y, x) row-major per level.
layout(set = 0, binding = 7, std430) buffer SubgroupScratch {
    vec4 scratch[];
};

// Declared for the host as SUBGROUP in subgroup.py beside it (tests/test_shader_interface.py).
layout(push_constant) uniform SubgroupPush {
    ivec2 srcSize;  // size of the source level
    int levels;     // how many levels this dispatch makes (1..6)
    int srcScratch; // SRC_SCRATCH: where the source starts in scratch[]
    int dstScratch; // >= 0: also write the last level (linear float) to scratch[dstScratch + ...]
    int regionX;    // TILE: tiles per row (tile_schedule.glsl)
    int regionTiles;// TILE: tiles per layer
} pc;

// TILE uses [0, 512) as two ping-pong halves; TAIL the whole array (one source of <= 1024).
shared vec4 sgShared[1024];

int layer;

ivec2 levelSize(int j) {
    return max(pc.srcSize >> j, ivec2(1));
}

// Source texel q (inside the level), decoded to linear. sRGB texel loads come from the UNORM view
// and are decoded here (exact; a sampler's decode is the device's approximation, lavapipe's a
// third of an LSB off); the BILINEAR sample (blockSrc) reads the sRGB view, which filters in
// linear light.
vec4 loadSrcInside(ivec2 q) {
    if (SRC_SCRATCH) {
        return scratch[pc.srcScratch + (layer * pc.srcSize.y + q.y) * pc.srcSize.x + q.x];
    }
    vec4 t = texelFetch(srcLevel, ivec3(q, layer), 0);
    return REDUCTION == 0 ? mipDecode(t) : t;
}

vec4 loadSrc(ivec2 q) {
    // Clamped: cells past the edge of a partial tile compute finite values nobody stores.
    return loadSrcInside(min(q, pc.srcSize - 1));
}

void storeLevel(int j, ivec2 p, vec4 v) {
    if (any(greaterThanEqual(p, levelSize(j)))) {
        return;
    }
    if (j == pc.levels && pc.dstScratch >= 0) {
        ivec2 size = levelSize(j);
        scratch[pc.dstScratch + (layer * size.y + p.y) * size.x + p.x] = v;
    }
    ivec3 q = ivec3(p, layer);
    vec4 e = REDUCTION == 0 ? mipEncode(v) : v;
    switch (j) {
        case 1: imageStore(dstLevel1, q, e); break;
        case 2: imageStore(dstLevel2, q, e); break;
        case 3: imageStore(dstLevel3, q, e); break;
        case 4: imageStore(dstLevel4, q, e); break;
        case 5: imageStore(dstLevel5, q, e); break;
        default: imageStore(dstLevel6, q, e); break;
    }
}

// A 2x2 step on a level of size n whose sides are even or 1: the box, or the extreme.
vec4 reduce4(vec4 a, vec4 b, vec4 c, vec4 d, ivec2 n) {
    if (REDUCTION != 0) {
        return mipExtremeSides(REDUCTION, a, b, c, d, n);
    }
    return mipBoxSides(a, b, c, d, n);
}

// The mean (exact weights) or the extreme of output texel p's footprint in a level of srcSize.
#define SG_REDUCE_EXACT(result, p, srcSize, LOAD)                                             \
    if (REDUCTION != 0) {                                                                     \
        MIP_EXTREME_EXACT(result, REDUCTION, p, srcSize, LOAD)                                \
    } else {                                                                                  \
        MIP_REDUCE_EXACT(result, p, srcSize, LOAD)                                            \
    }

vec4 reduceSrc2x2(ivec2 q) {
    return reduce4(loadSrc(q), loadSrc(q + ivec2(1, 0)), loadSrc(q + ivec2(0, 1)),
                   loadSrc(q + ivec2(1, 1)), pc.srcSize);
}

// The level-1 values of the source block at q (2x2 texels, even sides or 1): a box of 4 texel
// loads, or (BILINEAR, reading the image) one linear sample at the block's centre, whose
// weights are exactly 1/4 each (a side of 1: the clamped edge repeats, weights 1/2).
vec4 blockSrc(ivec2 q) {
    if (BILINEAR && !SRC_SCRATCH) {
        return textureLod(srcLevel, vec3(vec2(q + 1) / vec2(pc.srcSize), float(layer)), 0.0);
    }
    return reduceSrc2x2(q);
}

// A tile's fetches: each invocation's level-1 values (tile=32: l1[0] of its cell; tile=64: the
// 2x2 level-1 texels of its fetch cell). Apart from the reduction so that a workgroup can fetch
// its next tile before it reduces this one (PREFETCH).
struct TileFetch {
    vec4 l1[4];
};

TileFetch fetchTile(ivec2 tile, ivec2 fetchCell) {
    ivec2 origin = tile << TILE_LEVELS;  // in source texels
    TileFetch f;
    if (TILE_LEVELS == 5) {
        f.l1[0] = blockSrc(origin + 2 * fetchCell);
    } else {
        for (int k = 0; k < 4; ++k) {
            f.l1[k] = blockSrc(origin + 4 * fetchCell + 2 * ivec2(k & 1, k >> 1));
        }
    }
    return f;
}

void reduceTile(ivec2 tile, ivec2 cell, ivec2 fetchCell, bool remap, int sgBits, TileFetch f) {
    vec4 debug = vec4(gl_SubgroupInvocationID, gl_SubgroupID, gl_SubgroupSize, 255) / 255.0;
    vec4 v;
    if (TILE_LEVELS == 5) {
        v = f.l1[0];
        storeLevel(1, (tile << 4) + cell, DEBUG_LANES ? debug : v);
    } else {
        // 4x4 source texels -> 2x2 texels of level 1 -> 1 texel of level 2. The fetches run in
        // Z order whatever the layout (a quad of lanes on a 2x2 block of cells: texture fetches
        // are served per quad, and the 4x1 quads of row-major/square cost ~1.5x), then one
        // shared-memory exchange hands each level-2 value to its cell in the layout.
        for (int k = 0; k < 4; ++k) {
            ivec2 o = ivec2(k & 1, k >> 1);
            storeLevel(1, (tile << 5) + 2 * fetchCell + o, DEBUG_LANES ? debug : f.l1[k]);
        }
        if (pc.levels < 2) {
            return;  // uniform, and before any barrier
        }
        v = reduce4(f.l1[0], f.l1[1], f.l1[2], f.l1[3], levelSize(1));
        storeLevel(2, (tile << 4) + fetchCell, v);
        if (remap) {
            // [512, 768): outside the grid steps' ping-pong halves
            sgShared[512 + fetchCell.y * 16 + fetchCell.x] = v;
            barrier();
            v = sgShared[512 + cell.y * 16 + cell.x];
        }
    }

    const int pre = TILE_LEVELS - 4;  // levels made in registers before the grid
    int inSubgroup = mipSubgroupSteps(LAYOUT, sgBits);
    for (int j = 0; j < 4; ++j) {
        int level = pre + j + 1;
        if (level > pc.levels) {
            break;  // uniform
        }
        int d = 1 << j;
        vec4 b, c, e;
        if (j < inSubgroup) {
            // Partners differ from this lane in exactly one index bit (or two, diagonally).
            uint mx = 1u << uint(mipLayoutBit(LAYOUT, 0, j, sgBits));
            uint my = 1u << uint(mipLayoutBit(LAYOUT, 1, j, sgBits));
            b = subgroupShuffleXor(v, mx);
            c = subgroupShuffleXor(v, my);
            e = subgroupShuffleXor(v, mx | my);
        } else {
            // Ping-pong halves: the next write goes to the other half, so one barrier per level.
            int base = (j & 1) * 256;
            sgShared[base + cell.y * 16 + cell.x] = v;
            barrier();
            b = sgShared[base + cell.y * 16 + (cell.x ^ d)];
            c = sgShared[base + (cell.y ^ d) * 16 + cell.x];
            e = sgShared[base + (cell.y ^ d) * 16 + (cell.x ^ d)];
        }
        // Every invocation reduces (uniform control flow for the shuffles); only the corner cell
        // of each 2d x 2d block holds a meaningful value and stores it.
        v = reduce4(v, b, c, e, levelSize(level - 1));
        if (((cell.x | cell.y) & (2 * d - 1)) == 0) {
            storeLevel(level, (tile << (3 - j)) + (cell >> (j + 1)), v);
        }
    }
}

void tileMode() {
    int sgBits = findLSB(gl_SubgroupSize);
    uint index = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    ivec2 cell = mipLayoutPosition(LAYOUT, index, sgBits);
    bool remap = TILE_LEVELS == 6 && LAYOUT != MIP_LAYOUT_MORTON && !DEBUG_LANES;
    ivec2 fetchCell = remap ? mipLayoutPosition(MIP_LAYOUT_MORTON, index, sgBits) : cell;

    int stride = mipGroupCount();
    int t = mipGroupIndex();
    if (t >= pc.regionTiles) {
        return;  // uniform: the whole workgroup
    }
    TileFetch next = fetchTile(mipTileAt(t, pc.regionX), fetchCell);
    for (; t < pc.regionTiles; t += stride) {
        TileFetch f = next;
        bool more = t + stride < pc.regionTiles;
        ivec2 nextTile = mipTileAt(t + stride, pc.regionX);
        if (PREFETCH && more) {
            next = fetchTile(nextTile, fetchCell);
        }
        reduceTile(mipTileAt(t, pc.regionX), cell, fetchCell, remap, sgBits, f);
        if (more) {
            if (!PREFETCH) {
                next = fetchTile(nextTile, fetchCell);
            }
            barrier();  // the next tile rewrites shared memory
        }
    }
}

void perLevelMode() {
    uint t = gl_LocalInvocationIndex;
    ivec2 p = ivec2(gl_WorkGroupID.xy) * 16 + ivec2(t & 15u, t >> 4u);
    if (any(greaterThanEqual(p, levelSize(1)))) {
        return;
    }
    vec4 v;
    SG_REDUCE_EXACT(v, p, pc.srcSize, loadSrcInside)
    storeLevel(1, p, v);
}

void tailMode() {
    int t = int(gl_LocalInvocationIndex);
    ivec2 size = pc.srcSize;
    for (int i = t; i < size.x * size.y; i += 256) {
        sgShared[i] = loadSrcInside(mipUnflatten(i, size.x));
    }
    barrier();
    // Levels are packed row-major at their own width; an output level has <= 256 texels
    // (a source of <= 1024 texels, max side 64), one per invocation.
#define SUBGROUP_LOAD_SHARED(q) sgShared[(q).y * size.x + (q).x]
    for (int j = 1; j <= pc.levels; ++j) {
        ivec2 dst = levelSize(j);
        bool mine = t < dst.x * dst.y;
        ivec2 p = mipUnflatten(t, dst.x);
        vec4 v = vec4(0.0);
        if (mine) {
            SG_REDUCE_EXACT(v, p, size, SUBGROUP_LOAD_SHARED)
            storeLevel(j, p, v);
        }
        barrier();  // everyone has read the source level
        if (mine) {
            sgShared[t] = v;
        }
        barrier();  // the new level is complete
        size = dst;
    }
}

void main() {
    layer = int(gl_WorkGroupID.z);
    if (MODE == MODE_TILE) {
        tileMode();
    } else if (MODE == MODE_PER_LEVEL) {
        perLevelMode();
    } else {
        tailMode();
    }
}
