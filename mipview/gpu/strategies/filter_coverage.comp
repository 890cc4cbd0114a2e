#version 460
// filter_coverage.comp: alpha=coverage of filter_level.comp (docs/filters.md, "On the GPU"),
// small passes that keep every level's fraction of texels with alpha >= cutoff at level 0's
// without a host round trip. filter_level.comp's y pass (FL_COVERAGE) leaves the level unscaled
// in a float32 buffer (`texels`, one plane per channel); then per level two dispatches:
//   FC_PASS 1 (histogram): every texel's clamped alpha into COVERAGE_BINS bins of width 1/BINS
//     (shared-memory counts per workgroup, added to the global histogram once per workgroup);
//     then the workgroup that finishes last chooses the scale (no dispatch of its own): the
//     threshold t midway in the widest run of empty bins whose count of texels above lies
//     within COVERAGE_SLACK of the target count (ties: the count nearest the target, then the
//     larger t), as check.filter_reference.coverage_scale does on the exact values, here to the
//     bins' resolution; scale = cutoff / t (1 when t = 0). It zeroes the histogram and the
//     count of finished workgroups for the next level;
//   FC_PASS 2 (store): alpha * scale clamped to [0, 1], the texel encoded and stored.
// A small level (pc.store, the host's FUSED_TEXELS) is one dispatch: the workgroup that chooses
// the scale stores the level too, every layer.
// Once, before level 1, FC_PASS 0 (count) counts level 0's texels that pass the alpha test;
// level 1's scale turns that count into the target fraction and zeroes it.
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;

layout(constant_id = 2) const int FC_PASS = 0;
layout(constant_id = 3) const float FC_CUTOFF = 0.5;      // the alpha test: alpha >= cutoff
// level 0's alpha test on decoded values, exact: UNORM formats compare alpha * 255 (65535 for
// 16 bits) with the least passing code - 0.5; floats compare with the least float32 >= cutoff (set by the host)
layout(constant_id = 4) const float FC_ALPHA_TEST = 0.5;
// fcBins' length: COVERAGE_BINS for the histogram (and scale), 1 for count and store, so
// those get the occupancy of a small group on a compiler that keeps unused shared arrays
layout(constant_id = 5) const int FC_SHARED_BINS = 1;

const int COVERAGE_BINS = 4096;
const float COVERAGE_SLACK = 0.005;  // check.tolerances.COVERAGE_SLACK
// Every invocation issues all its loads first (constant trip counts, unrolled; out-of-range
// ones read a clamped index and are not counted), then uses them: a rolled loop with a guard
// waits for each load before the next (the passes were latency-bound on an H200).
// count and store: 16x16 invocations, each STEPS texels 16 rows apart (a 16 x 16 STEPS tile;
// a subgroup covers 16x2 texels, whole sectors of a tiled image)
const int COUNT_STEPS = 16;
const int STORE_STEPS = 4;
// histogram: 256 invocations (HIST_GROUP, the host's COVERAGE_GROUP) take chunks of
// HIST_GROUP * HIST_STEPS consecutive texels, chunk c by workgroup c mod the workgroups (the host
// dispatches few: each then zeroes and merges its 4096 bins once for many texels)
const int HIST_GROUP = 256;
const int HIST_STEPS = 16;
const int HIST_CHUNK = HIST_GROUP * HIST_STEPS;

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;
layout(set = 0, binding = 1) writeonly uniform image2DArray dstLevel;
// the level as filter_level.comp's y pass left it, planar: per layer, four planes (r, g, b, a)
// of rows x columns floats, so the histogram reads alpha alone
layout(std430, set = 0, binding = 4) readonly buffer FilterTexels { float texels[]; };
// coherent: the histogram's last workgroup reads what the others added
layout(std430, set = 0, binding = 5) coherent buffer FilterCoverage {
    uint covHist[COVERAGE_BINS];
    uint covPassing;   // level 0's passing texels (FC_PASS 0), zeroed by level 1's scale
    float covTarget;   // level 0's coverage, a fraction
    float covScale;    // this level's alpha scale
    uint covDone;      // histogram workgroups finished, zeroed by the last
} cov;

layout(push_constant) uniform FilterCoveragePush {
    ivec2 srcSize;  // level 0's size for FC_PASS 0 (and level 1's scale pass)
    ivec2 dstSize;
    int level;
    int layers;
    int store;      // FC_PASS 1: the last workgroup stores the level too (a small level)
} pc;

shared uint fcBins[FC_SHARED_BINS];
shared uint fcCount;
shared float fcScale;
shared bool fcLast;  // this histogram workgroup finished last: it chooses the scale

// where channel c of a layer (n texels) starts in `texels`: texel i's value is at fcPlane + i
int fcPlane(int layer, int c, int n) {
    return (layer * 4 + c) * n;
}

void countLevel0() {
    int layer = int(gl_WorkGroupID.z);
    ivec2 size = pc.srcSize;
    ivec2 p = ivec2(gl_WorkGroupID.xy * gl_WorkGroupSize.xy * uvec2(1, COUNT_STEPS)
                    + gl_LocalInvocationID.xy);
    int rows = int(gl_WorkGroupSize.y);
    if (gl_LocalInvocationIndex == 0) {
        fcCount = 0;
    }
    barrier();
    float a[COUNT_STEPS];
    [[unroll]] for (int j = 0; j < COUNT_STEPS; ++j) {
        ivec2 q = min(p + ivec2(0, j * rows), size - 1);
        a[j] = texelFetch(srcLevel, ivec3(q, layer), 0).w;
    }
    uint mine = 0;
    [[unroll]] for (int j = 0; j < COUNT_STEPS; ++j) {
        bool inside = p.x < size.x && p.y + j * rows < size.y;
        mine += uint(inside && (mipUnorm() ? a[j] * mipUnormOne() : a[j]) >= FC_ALPHA_TEST);
    }
    atomicAdd(fcCount, mine);
    barrier();
    if (gl_LocalInvocationIndex == 0 && fcCount != 0) {
        atomicAdd(cov.covPassing, fcCount);
    }
}

void histogram() {
    int layer = int(gl_WorkGroupID.z);
    int n = pc.dstSize.x * pc.dstSize.y;
    int alpha = fcPlane(layer, 3, n);
    int me = int(gl_LocalInvocationIndex);
    [[unroll]] for (int k = 0; k < COVERAGE_BINS / HIST_GROUP; ++k) {
        fcBins[k * HIST_GROUP + me] = 0;
    }
    barrier();
    // a cutout is mostly alpha 0 and 1: count runs of one bin before the (shared) atomic
    int run = -1;
    uint count = 0;
    int chunks = (n + HIST_CHUNK - 1) / HIST_CHUNK;
    for (int c = int(gl_WorkGroupID.x); c < chunks; c += int(gl_NumWorkGroups.x)) {
        int first = c * HIST_CHUNK + me;  // coalesced: step j reads HIST_GROUP texels in a row
        float a[HIST_STEPS];
        [[unroll]] for (int j = 0; j < HIST_STEPS; ++j) {
            a[j] = texels[alpha + min(first + j * HIST_GROUP, n - 1)];
        }
        [[unroll]] for (int j = 0; j < HIST_STEPS; ++j) {
            if (first + j * HIST_GROUP < n) {
                // clamped again as an int: a NaN alpha (float formats) converts to any int
                int bin = clamp(int(clamp(a[j], 0.0, 1.0) * float(COVERAGE_BINS)), 0,
                                COVERAGE_BINS - 1);
                if (bin != run && count != 0) {
                    atomicAdd(fcBins[run], count);
                    count = 0;
                }
                run = bin;
                ++count;
            }
        }
    }
    if (count != 0) {
        atomicAdd(fcBins[run], count);
    }
    barrier();
    [[unroll]] for (int k = 0; k < COVERAGE_BINS / HIST_GROUP; ++k) {
        int b = k * HIST_GROUP + me;
        uint c = fcBins[b];
        if (c != 0) {
            atomicAdd(cov.covHist[b], c);
        }
    }
    // this workgroup's additions visible before it counts itself finished (threadfence
    // reduction): the last to count reads every workgroup's
    memoryBarrierBuffer();
    barrier();
    if (me == 0) {
        uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_NumWorkGroups.z;
        fcLast = atomicAdd(cov.covDone, 1u) == groups - 1u;
    }
    barrier();
}

// The scale: the histogram's last workgroup, SCAN_THREADS invocations, each owning BINS / SCAN_THREADS
// consecutive bins and the edges at their lower ends (edge e lies between bins e-1 and e; the
// last invocation also owns edge BINS). Texels above edge e: C(e) = sum of bins >= e.
const int SCAN_THREADS = 256;
const int OWN = COVERAGE_BINS / SCAN_THREADS;
shared uint fcAbove[SCAN_THREADS];      // texels in bins owned by invocations >= i
shared int fcNextFull[SCAN_THREADS];    // least non-empty bin owned by invocations >= i
shared uint fcBestKey;
shared uint fcBestNear;
shared float fcThreshold;
shared int fcTarget;

void chooseScale() {
    int me = int(gl_LocalInvocationIndex);
    int first = me * OWN;
    memoryBarrierBuffer();  // after fcLast: the other workgroups' additions are read below
    // the histogram into shared memory, coalesced (all loads issued, then used), and zeroed for
    // the next level (the barrier before that level's histogram orders it)
    uint loaded[OWN];
    [[unroll]] for (int j = 0; j < OWN; ++j) {
        loaded[j] = cov.covHist[j * SCAN_THREADS + me];
    }
    [[unroll]] for (int j = 0; j < OWN; ++j) {
        cov.covHist[j * SCAN_THREADS + me] = 0;
        fcBins[j * SCAN_THREADS + me] = loaded[j];
    }
    uint n = uint(pc.dstSize.x * pc.dstSize.y * pc.layers);
    if (me == 0) {
        cov.covDone = 0;
        if (pc.level == 1) {
            cov.covTarget = float(cov.covPassing) / float(pc.srcSize.x * pc.srcSize.y * pc.layers);
            cov.covPassing = 0;
        }
        fcTarget = int(roundEven(cov.covTarget * float(n)));
        fcBestKey = 0;
        fcBestNear = 0xFFFFFFFFu;
        fcThreshold = 0.0;
    }
    barrier();
    uint total = 0;
    int full = COVERAGE_BINS;
    [[unroll]] for (int j = OWN - 1; j >= 0; --j) {
        uint c = fcBins[first + j];
        total += c;
        full = c != 0 ? first + j : full;
    }
    fcAbove[me] = total;
    fcNextFull[me] = full;
    // suffix sums and minima over invocations (Hillis-Steele), unrolled: constant steps
    [[unroll]] for (int step = 1; step < SCAN_THREADS; step *= 2) {
        barrier();
        uint above = me + step < SCAN_THREADS ? fcAbove[me + step] : 0;
        int next = me + step < SCAN_THREADS ? fcNextFull[me + step] : COVERAGE_BINS;
        barrier();
        fcAbove[me] += above;
        fcNextFull[me] = min(fcNextFull[me], next);
    }
    barrier();
    int k = fcTarget;
    int slack = int(COVERAGE_SLACK * float(n));
    int lo = max(0, k - slack);
    int hi = min(int(n), k + slack);
    // runs: maximal sets of edges with one C (the empty bins between two non-empty ones); each
    // is judged once, at its lowest edge, by (in the window, width), then nearness to k. The
    // loops run OWN + 1 edges, the last one the last invocation's alone (edge BINS), unrolled so
    // that the arrays stay in registers.
    uint above = me + 1 < SCAN_THREADS ? fcAbove[me + 1] : 0;
    int next = me + 1 < SCAN_THREADS ? fcNextFull[me + 1] : COVERAGE_BINS;
    uint keys[OWN + 1];
    uint nears[OWN + 1];
    float ts[OWN + 1];
    int last = me == SCAN_THREADS - 1 ? OWN : OWN - 1;
    [[unroll]] for (int j = OWN; j >= 0; --j) {
        int e = first + j;
        keys[j] = 0;
        nears[j] = 0xFFFFFFFFu;
        ts[j] = 0.0;
        if (j > last) {
            continue;
        }
        if (e < COVERAGE_BINS) {
            above += fcBins[e];
            next = fcBins[e] != 0 ? e : next;
        }
        if (e == 0 || fcBins[e - 1] != 0) {
            // the top run reaches max(2 t, 1) above the largest alpha, as the reference pads
            int end = next < COVERAGE_BINS ? next : max(2 * e, COVERAGE_BINS);
            int c = int(above);
            keys[j] = c >= lo && c <= hi ? (1u << 15) | uint(end - e) : 0u;
            nears[j] = 2u * uint(abs(c - k)) + (c > k ? 1u : 0u);
            ts[j] = float(e + end) * (0.5 / float(COVERAGE_BINS));
        }
    }
    [[unroll]] for (int j = 0; j <= OWN; ++j) {
        if (j <= last) {
            atomicMax(fcBestKey, keys[j]);
        }
    }
    barrier();
    [[unroll]] for (int j = 0; j <= OWN; ++j) {
        if (j <= last && keys[j] == fcBestKey) {
            atomicMin(fcBestNear, nears[j]);
        }
    }
    barrier();
    // one run has both (distinct runs have distinct counts above)
    [[unroll]] for (int j = 0; j <= OWN; ++j) {
        if (j <= last && keys[j] == fcBestKey && nears[j] == fcBestNear) {
            fcThreshold = ts[j];
        }
    }
    barrier();
    if (me == 0) {
        fcScale = fcThreshold > 0.0 ? FC_CUTOFF / fcThreshold : 1.0;
        cov.covScale = fcScale;
    }
}

// texel v of the level at q (x, y, layer), its alpha scaled
void fcStore(ivec3 q, vec4 v, float scale) {
    v.w = clamp(v.w * scale, 0.0, 1.0);
    imageStore(dstLevel, q, mipEncode(v));
}

void storeLevel() {
    if (gl_LocalInvocationIndex == 0) {
        fcScale = cov.covScale;  // one load per workgroup, not per invocation
    }
    barrier();
    float scale = fcScale;
    int layer = int(gl_WorkGroupID.z);
    ivec2 size = pc.dstSize;
    int n = size.x * size.y;
    ivec2 p = ivec2(gl_WorkGroupID.xy * gl_WorkGroupSize.xy * uvec2(1, STORE_STEPS)
                    + gl_LocalInvocationID.xy);
    int rows = int(gl_WorkGroupSize.y);
    vec4 v[STORE_STEPS];
    [[unroll]] for (int j = 0; j < STORE_STEPS; ++j) {
        ivec2 q = min(p + ivec2(0, j * rows), size - 1);
        int i = q.y * size.x + q.x;
        [[unroll]] for (int c = 0; c < 4; ++c) {
            v[j][c] = texels[fcPlane(layer, c, n) + i];
        }
    }
    [[unroll]] for (int j = 0; j < STORE_STEPS; ++j) {
        ivec2 q = p + ivec2(0, j * rows);
        if (all(lessThan(q, size))) {
            fcStore(ivec3(q, layer), v[j], scale);
        }
    }
}

// a small level: the workgroup that chose the scale (HIST_GROUP invocations) stores every
// texel of every layer, STORE_STEPS loads of each invocation in flight together
void storeSmallLevel() {
    float scale = fcScale;
    ivec2 size = pc.dstSize;
    int n = size.x * size.y;
    int total = n * pc.layers;
    for (int round = 0; round < total; round += HIST_GROUP * STORE_STEPS) {
        int first = round + int(gl_LocalInvocationIndex);
        vec4 v[STORE_STEPS];
        [[unroll]] for (int j = 0; j < STORE_STEPS; ++j) {
            ivec2 il = mipUnflatten(min(first + j * HIST_GROUP, total - 1), n);  // (i, layer)
            [[unroll]] for (int c = 0; c < 4; ++c) {
                v[j][c] = texels[fcPlane(il.y, c, n) + il.x];
            }
        }
        [[unroll]] for (int j = 0; j < STORE_STEPS; ++j) {
            int t = first + j * HIST_GROUP;
            if (t < total) {
                ivec2 il = mipUnflatten(t, n);
                fcStore(ivec3(mipUnflatten(il.x, size.x), il.y), v[j], scale);
            }
        }
    }
}

void main() {
    if (FC_PASS == 0) {
        countLevel0();
    } else if (FC_PASS == 1) {
        histogram();
        if (fcLast) {  // uniform in the workgroup: barriers inside are fine
            chooseScale();
            if (pc.store != 0) {
                barrier();
                storeSmallLevel();
            }
        }
    } else {
        storeLevel();
    }
}
