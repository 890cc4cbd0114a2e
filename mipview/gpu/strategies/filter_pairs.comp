#version 460
// filter_pairs.comp: two levels of a short separable filter per dispatch (docs/filters.md).
// Workgroup (a, b) owns the 16x16 texels [16a, 16a+16) x [16b, 16b+16) of level k and the 8x8
// texels [8a, 8a+8) x [8b, 8b+8) of level k+1. Level k is made for a window of span x span
// texels from `base` (its own 16x16 and the halo its level-(k+1) texels tap, unfolded indices;
// halo texels are made by both neighbours: the price of one dispatch for two levels, so the
// plan keeps the span within FP_SPAN, short kernels only), its own 16x16 stored; after a
// barrier, level k+1 is made from the window in shared memory.
//
// Level k is separable through shared memory, in bands of FP_BAND window rows: (1) the x pass:
// the source rows the band's y taps reach, filtered to the window's columns into fpRows: `rows`
// rows from the row table's first, modulo the side (the host's row_windows, mipview/gpu/
// strategies/filter_pairs.py: the shortest such range holding them all); (2) the y pass.
// The arithmetic is the 2D tap sum's: per y tap, the x taps summed in order, then the rows
// summed in order, as per-level's two passes (filter_level.comp) sum them: the same bytes where
// a device rounds both shaders' float32 operations alike.
// Tap counts are bounded by FP_TAPS (a specialization constant): the loops unroll ([[unroll]],
// once specialised), a texel's table entries are loaded before its fetches, and its fetches are
// issued together; each lane keeps one window column, so its x taps are loaded and folded once.
// Tables hold UNFOLDED indices; the edge mode folds them here (clamp, wrap, mirror), with
// unsigned % only (mip_common.glsl: GLSL's int % is undefined on negative operands in Vulkan).
// FP_CUBE (edge=cube, a cube map: cube_fold.glsl, docs/cube-maps.md): the tables hold face
// coordinates, unfolded past the edges (clamped to the reference's pad); the tap buffer opens
// with the adjacency table. The x pass reads past the face's edges from its neighbours, and a
// corner block as the mean of the three texels at the cube corner (fpCubeLoad); its rows are one
// range from the row table's first, past the top and bottom edges too (no wrap). A window texel
// of level k past one face edge is made where it lies, on the neighbouring face, from level k-1
// tap by tap in per-level's order (fpAcrossTexel); one past two edges, after all bands, is the
// mean of the three level-k texels at that cube corner (as stored), as the reference pads level k.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require  // [[unroll]]: a hint to the driver
#include "mip_common.glsl"
#include "cube_fold.glsl"

#define FP_GROUP 256
layout(local_size_x = FP_GROUP, local_size_y = 1, local_size_z = 1) in;

layout(constant_id = 0) const int FP_EDGE = 0;   // 0 clamp, 1 wrap, 2 mirror
// defaults: the tent at 4096^2 (every dispatch sets them: filter_pairs.layout)
layout(constant_id = 1) const int FP_SPAN = 18;  // window side (level-k texels), <= 32
layout(constant_id = 2) const int FP_ROWS = 38;  // fpRows rows (source rows of a band), >= 8
layout(constant_id = 3) const int FP_BAND = 18;  // window rows per band
layout(constant_id = 4) const int FP_TAPS = 4;   // most taps per texel of any table
layout(constant_id = 5) const bool FP_CUBE = false;  // edge=cube: faces read across their edges
// FP_CUBE: the x pass issues all of a lane's fetches before its first sum, as without FP_CUBE;
// off, a row at a time. Batched, the pipeline holds 114 registers where a row at a time holds
// 66: it pays where a dispatch makes two levels, and not where it makes one (f16), whose
// occupancy it halves (docs/bench/cube, 2026-11-27-h100-batch)
layout(constant_id = 6) const bool FP_CUBE_BATCH = false;

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;   // level k-1
layout(set = 0, binding = 1) writeonly uniform image2DArray midLevel;  // level k
layout(set = 0, binding = 2) writeonly uniform image2DArray dstLevel;  // level k+1

struct FilterTap {
    int index;
    float weight;
};
layout(std430, set = 0, binding = 3) readonly buffer FilterTaps { FilterTap taps[]; };

layout(push_constant) uniform FilterPairsPush {
    ivec2 srcSize;   // level k-1
    ivec2 midSize;   // level k
    ivec2 dstSize;   // level k+1 (unused when pair == 0)
    ivec2 tapsMid;   // taps per texel of level k, x and y
    ivec2 offsetMid; // first entry of level k's x and y tables
    ivec2 tapsDst;
    ivec2 offsetDst;
    int pair;        // 1: make level k+1 too; 0: level k only (the last, lone level)
    int span;        // this dispatch's window side (<= FP_SPAN)
    int rows;        // source rows per band (<= FP_ROWS)
    int bands;       // bands of FP_BAND window rows
    int rowTable;    // first entry of the row table: (tile row, band) -> first source row
    ivec2 tileOrigin;  // the tile of workgroup (0, 0)
    int tileTable;   // >= 0: workgroup x's tile is entry tileTable + x, packed x | y << 16
} pc;

// Window columns per lane pass: lane l keeps column l % FP_SPAN, rows l / FP_SPAN + k * FP_STEP.
const int FP_STEP = FP_GROUP / FP_SPAN;
const int FP_XSTEPS = (FP_ROWS + FP_STEP - 1) / FP_STEP;  // x-pass rows per lane, at most

shared vec4 fpRows[FP_ROWS * FP_SPAN];  // x-filtered source rows (slot, window column)
shared vec4 fpMid[FP_SPAN * FP_SPAN];   // level k as stored, decoded
shared int fpYSlot[FP_BAND * FP_TAPS];  // a band row's y taps: fpRows slot and weight
shared float fpYWeight[FP_BAND * FP_TAPS];

int fpFold(int j, int n) {
    if (FP_EDGE == 1) {
        return mipWrapIndex(j, n);
    }
    if (FP_EDGE == 2) {
        return mipMirrorIndex(j, n);
    }
    return clamp(j, 0, n - 1);
}

// FP_CUBE: texel q of a face of side n at `layer`, past one edge: the same texel across it
ivec3 fpAcross(ivec2 q, int n, int layer) {
    return cubeFold(q, n, layer, taps[cubeFace(layer) * 4 + cubeEdge(q, n)].index);
}

// FP_CUBE: where level k-1's texel q of face `layer` (each index in [-n, 2n)) is fetched: its
// own place, its neighbour's past one edge, or past two edges the corner texel of its own face
// (fpCubeValue adds the other two)
ivec3 fpCubeAddress(ivec2 q, int layer) {
    int n = pc.srcSize.x;
    bvec2 outside = bvec2(q.x < 0 || q.x >= n, q.y < 0 || q.y >= n);
    if (!any(outside)) {
        return ivec3(q, layer);
    }
    if (!all(outside)) {
        return fpAcross(q, n, layer);
    }
    return ivec3(cubeCornerTexel(q, n), layer);
}

// FP_CUBE: level k-1's texel q, decoded, from `own`, the decoded texel at fpCubeAddress(q):
// that texel, or past two edges the mean of the three at the cube corner
vec4 fpCubeValue(ivec2 q, int layer, vec4 own) {
    int n = pc.srcSize.x;
    if (!(q.x < 0 || q.x >= n) || !(q.y < 0 || q.y >= n)) {
        return own;
    }
    ivec2 c = cubeCornerTexel(q, n);
    ivec2 step = cubeCornerStep(q);
    ivec3 bx = fpAcross(ivec2(c.x + step.x, c.y), n, layer);
    ivec3 by = fpAcross(ivec2(c.x, c.y + step.y), n, layer);
    return cubeCorner(own, mipDecode(texelFetch(srcLevel, bx, 0)),
                      mipDecode(texelFetch(srcLevel, by, 0)));
}

// FP_CUBE: level k-1's texel q of face `layer`, decoded (fpCubeAddress, fpCubeValue)
vec4 fpCubeLoad(ivec2 q, int layer) {
    return fpCubeValue(q, layer, mipDecode(texelFetch(srcLevel, fpCubeAddress(q, layer), 0)));
}

// the source row of the x pass's slot i in a band starting at row `first`: FP_CUBE, row
// first + i itself, past the edges too (read from the neighbours; rows past what the band needs
// are clamped into the pad and never read), else first + i modulo the side
int fpSlotRow(int first, int i) {
    int n = pc.srcSize.y;
    return FP_CUBE ? clamp(first + i, -n, 2 * n - 1) : int(uint(first + i) % uint(n));
}

// FP_CUBE: level k's texel j of face `layer` (inside it) before its store, from level k-1: each
// row's x taps summed in order, then the rows, as per-level's two passes (filter_level.comp)
vec4 fpAcrossTexel(ivec2 j, int layer) {
    int bx = pc.offsetMid.x + j.x * pc.tapsMid.x;
    int by = pc.offsetMid.y + j.y * pc.tapsMid.y;
    vec4 v = vec4(0.0);
    for (int ty = 0; ty < pc.tapsMid.y; ++ty) {
        FilterTap row = taps[by + ty];
        vec4 sum = vec4(0.0);
        for (int tx = 0; tx < pc.tapsMid.x; ++tx) {
            FilterTap col = taps[bx + tx];
            sum += col.weight * fpCubeLoad(ivec2(col.index, row.index), layer);
        }
        v += row.weight * sum;
    }
    return v;
}

vec4 fpStore(vec4 v) {
    return mipEncode(mipUnorm() ? clamp(v, 0.0, 1.0) : v);
}

// FP_CUBE's workgroups can be split between two dispatches of one level: the face's inner
// tiles, whose windows and taps stay on their face, run without FP_CUBE (a block of tiles from
// tileOrigin), and the tiles around them with it (a table), beside each other
ivec2 fpTile() {
    if (pc.tileTable < 0) {
        return ivec2(gl_WorkGroupID.xy) + pc.tileOrigin;
    }
    int packed = taps[pc.tileTable + int(gl_WorkGroupID.x)].index;
    return ivec2(packed & 0xffff, packed >> 16);
}

void main() {
    int layer = int(gl_GlobalInvocationID.z);
    ivec2 tile = fpTile();
    ivec2 own = 16 * tile;  // first level-k texel of this workgroup
    // the window starts at the lower of its own first texel and the first tap of its first
    // level-(k+1) texel (unfolded: may be negative)
    ivec2 base = own;
    if (pc.pair != 0) {
        ivec2 d0 = min(8 * tile, pc.dstSize - 1);
        base = min(own, ivec2(taps[pc.offsetDst.x + d0.x * pc.tapsDst.x].index,
                              taps[pc.offsetDst.y + d0.y * pc.tapsDst.y].index));
    }
    int lane = int(gl_LocalInvocationIndex);
    ivec2 cr = mipUnflatten(lane, FP_SPAN);  // (window column, first row) of this lane
    int c = cr.x;
    bool laneOn = c < pc.span && cr.y < FP_STEP;

    // this lane's x taps: level-k column base.x + c from source columns sx, weights wx
    int sx[FP_TAPS];
    float wx[FP_TAPS];
    int bx = pc.offsetMid.x + fpFold(base.x + c, pc.midSize.x) * pc.tapsMid.x;
    [[unroll]] for (int t = 0; t < FP_TAPS; ++t) {
        if (laneOn && t < pc.tapsMid.x) {
            FilterTap tap = taps[bx + t];
            sx[t] = FP_CUBE ? tap.index : fpFold(tap.index, pc.srcSize.x);
            wx[t] = tap.weight;
        }
    }

    for (int band = 0; band < pc.bands; ++band) {
        int first = taps[pc.rowTable + tile.y * pc.bands + band].index;
        int w0 = band * FP_BAND;  // first window row of the band
        // the band's y taps: fpRows slot of each source row, relative to `first` modulo the side
        for (int e = lane; e < FP_BAND * FP_TAPS; e += FP_GROUP) {
            ivec2 tw = mipUnflatten(e, FP_TAPS);  // (tap, band row)
            if (tw.x < pc.tapsMid.y && w0 + tw.y < pc.span) {
                int qy = fpFold(base.y + w0 + tw.y, pc.midSize.y);
                FilterTap tap = taps[pc.offsetMid.y + qy * pc.tapsMid.y + tw.x];
                if (FP_CUBE) {  // one range of rows, past the edges too (no wrap)
                    fpYSlot[e] = tap.index - first;
                } else {
                    int sy = fpFold(tap.index, pc.srcSize.y);
                    fpYSlot[e] = int(uint(sy - first + pc.srcSize.y) % uint(pc.srcSize.y));
                }
                fpYWeight[e] = tap.weight;
            }
        }
        // x pass: slot i is source row fpSlotRow(first, i); a lane's rows are a constant
        // count of steps, so all their fetches are issued before the first sum needs one.
        // FP_CUBE: a tap past two edges adds the corner's other two texels at its sum
        // (fpCubeValue)
        if (FP_CUBE && !FP_CUBE_BATCH && laneOn) {
            for (int i = cr.y; i < pc.rows; i += FP_STEP) {
                int sy = fpSlotRow(first, i);
                vec4 sum = vec4(0.0);
                [[unroll]] for (int t = 0; t < FP_TAPS; ++t) {
                    if (t < pc.tapsMid.x) {
                        sum += wx[t] * fpCubeLoad(ivec2(sx[t], sy), layer);
                    }
                }
                fpRows[i * FP_SPAN + c] = sum;
            }
        } else if (laneOn) {
            vec4 x[FP_XSTEPS * FP_TAPS];
            [[unroll]] for (int k = 0; k < FP_XSTEPS; ++k) {
                int i = cr.y + k * FP_STEP;
                int sy = fpSlotRow(first, i);
                [[unroll]] for (int t = 0; t < FP_TAPS; ++t) {
                    if (i < pc.rows && t < pc.tapsMid.x) {
                        ivec3 at = FP_CUBE ? fpCubeAddress(ivec2(sx[t], sy), layer)
                                           : ivec3(sx[t], sy, layer);
                        x[k * FP_TAPS + t] = texelFetch(srcLevel, at, 0);
                    }
                }
            }
            [[unroll]] for (int k = 0; k < FP_XSTEPS; ++k) {
                int i = cr.y + k * FP_STEP;
                if (i < pc.rows) {
                    int sy = fpSlotRow(first, i);  // FP_CUBE only: the corners' taps
                    vec4 sum = vec4(0.0);
                    [[unroll]] for (int t = 0; t < FP_TAPS; ++t) {
                        if (t < pc.tapsMid.x) {
                            vec4 v = mipDecode(x[k * FP_TAPS + t]);
                            if (FP_CUBE) {
                                v = fpCubeValue(ivec2(sx[t], sy), layer, v);
                            }
                            sum += wx[t] * v;
                        }
                    }
                    fpRows[i * FP_SPAN + c] = sum;
                }
            }
        }
        barrier();
        // y pass: the band's level-k texels, stored where they are this workgroup's own
        if (laneOn) {
            int wEnd = min(w0 + FP_BAND, pc.span);
            for (int w = w0 + cr.y; w < wEnd; w += FP_STEP) {
                ivec2 j = base + ivec2(c, w);  // unfolded level-k index
                bool mine = all(greaterThanEqual(j, own))
                    && all(lessThan(j, min(own + 16, pc.midSize)));
                if (pc.pair == 0 && !mine) {
                    continue;
                }
                bvec2 outside = bvec2(j.x < 0 || j.x >= pc.midSize.x,
                                      j.y < 0 || j.y >= pc.midSize.y);
                if (FP_CUBE && all(outside)) {
                    continue;  // a corner block: made from three texels after all bands
                }
                vec4 v = vec4(0.0);
                if (FP_CUBE && any(outside)) {
                    ivec3 f = fpAcross(j, pc.midSize.x, layer);  // made on the face it lies on
                    v = fpAcrossTexel(f.xy, f.z);
                } else {
                    int e0 = (w - w0) * FP_TAPS;
                    [[unroll]] for (int t = 0; t < FP_TAPS; ++t) {
                        if (t < pc.tapsMid.y) {
                            v += fpYWeight[e0 + t] * fpRows[fpYSlot[e0 + t] * FP_SPAN + c];
                        }
                    }
                }
                vec4 stored = fpStore(v);
                if (mine) {
                    imageStore(midLevel, ivec3(j, layer), stored);
                }
                // level k+1 filters level k as stored (the stored promise): its decoded store
                fpMid[w * FP_SPAN + c] = MIP_SRGB ? vec4(mipSrgbToLinear(stored.rgb), stored.a)
                                                  : stored;
            }
        }
        barrier();  // fpRows and the y taps are the next band's
    }
    if (pc.pair == 0) {
        return;
    }
    if (FP_CUBE) {
        // the window's corner blocks: the mean of the three level-k texels at the cube corner,
        // the face's corner texel and one step off it across each edge (all in the window)
        int n = pc.midSize.x;
        for (int e = lane; e < pc.span * pc.span; e += FP_GROUP) {
            ivec2 cw = mipUnflatten(e, pc.span);  // (window column, window row)
            ivec2 j = base + cw;
            if ((j.x < 0 || j.x >= n) && (j.y < 0 || j.y >= n)) {
                ivec2 k = cubeCornerTexel(j, n) - base;
                ivec2 step = cubeCornerStep(j);
                fpMid[cw.y * FP_SPAN + cw.x] = cubeCorner(
                    fpMid[k.y * FP_SPAN + k.x], fpMid[k.y * FP_SPAN + k.x + step.x],
                    fpMid[(k.y + step.y) * FP_SPAN + k.x]);
            }
        }
        barrier();
    }
    // level k+1, x pass: each window row filtered to the 8 columns, into fpRows (row, column)
    for (int e = lane; e < pc.span * 8; e += FP_GROUP) {
        ivec2 dw = mipUnflatten(e, 8);  // (level-(k+1) column, window row)
        int px = 8 * tile.x + dw.x;
        if (px < pc.dstSize.x) {
            int b = pc.offsetDst.x + px * pc.tapsDst.x;
            vec4 sum = vec4(0.0);
            [[unroll]] for (int t = 0; t < FP_TAPS; ++t) {
                if (t < pc.tapsDst.x) {
                    FilterTap col = taps[b + t];
                    sum += col.weight * fpMid[dw.y * FP_SPAN + (col.index - base.x)];
                }
            }
            fpRows[e] = sum;
        }
    }
    barrier();
    if (lane >= 64) {
        return;
    }
    ivec2 d = mipUnflatten(lane, 8);
    ivec2 p = 8 * tile + d;
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    int b = pc.offsetDst.y + p.y * pc.tapsDst.y;
    vec4 v = vec4(0.0);
    [[unroll]] for (int t = 0; t < FP_TAPS; ++t) {
        if (t < pc.tapsDst.y) {
            FilterTap row = taps[b + t];
            v += row.weight * fpRows[(row.index - base.y) * 8 + d.x];
        }
    }
    imageStore(dstLevel, ivec3(p, layer), fpStore(v));
}
