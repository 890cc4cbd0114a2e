#version 460
// filter_coverage.comp: alpha=coverage of filter_level.comp (docs/filters.md, "On the GPU"),
// four small passes that keep every level's fraction of texels with alpha >= cutoff at level 0's
// without a host round trip. filter_level.comp's y pass (FL_COVERAGE) leaves the level unscaled
// in a float32 buffer (`texels`); then per level:
//   FC_PASS 1 (histogram): every texel's clamped alpha into COVERAGE_BINS bins of width 1/BINS
//     (shared-memory counts per workgroup, added to the global histogram);
//   FC_PASS 2 (scale, one workgroup): the threshold t midway in the widest run of empty bins
//     whose count of texels above lies within COVERAGE_SLACK of the target count (ties: the
//     count nearest the target, then the larger t), as filters.reference.coverage_scale does on
//     the exact values, here to the bins' resolution; scale = cutoff / t (1 when t = 0). It
//     zeroes the histogram for the next level;
//   FC_PASS 3 (store): alpha * scale clamped to [0, 1], the texel encoded and stored.
// Once, before level 1, FC_PASS 0 (count) counts level 0's texels that pass the alpha test;
// level 1's scale pass turns that count into the target fraction and zeroes it.
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;

layout(constant_id = 2) const int FC_PASS = 0;
layout(constant_id = 3) const float FC_CUTOFF = 0.5;      // the alpha test: alpha >= cutoff
// level 0's alpha test on decoded values, exact: 8-bit formats compare alpha * 255 with the
// least passing code - 0.5; floats compare with the least float32 >= cutoff (set by the host)
layout(constant_id = 4) const float FC_ALPHA_TEST = 0.5;

const int COVERAGE_BINS = 4096;
const int PER_THREAD = 16;           // texels per invocation of the counting passes
const float COVERAGE_SLACK = 0.005;  // filters.reference.COVERAGE_SLACK

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;
layout(set = 0, binding = 1) writeonly uniform image2DArray dstLevel;
// the level as filter_level.comp's y pass left it: (layer, row, column), row-major
layout(std430, set = 0, binding = 4) readonly buffer FilterTexels { vec4 texels[]; };
layout(std430, set = 0, binding = 5) buffer FilterCoverage {
    uint covHist[COVERAGE_BINS];
    uint covPassing;   // level 0's passing texels (FC_PASS 0), zeroed by level 1's scale pass
    float covTarget;   // level 0's coverage, a fraction
    float covScale;    // this level's alpha scale
} cov;

layout(push_constant) uniform FilterCoveragePush {
    ivec2 srcSize;  // level 0's size for FC_PASS 0 (and level 1's scale pass)
    ivec2 dstSize;
    int level;
    int layers;
} pc;

shared uint fcBins[COVERAGE_BINS];
shared uint fcCount;

// the texel index i (within a layer) handled by this invocation's j-th step: coalesced
int fcIndex(int j) {
    return (int(gl_WorkGroupID.x) * PER_THREAD + j) * int(gl_WorkGroupSize.x)
        + int(gl_LocalInvocationID.x);
}

void countLevel0() {
    int layer = int(gl_WorkGroupID.z);
    if (gl_LocalInvocationIndex == 0) {
        fcCount = 0;
    }
    barrier();
    uint mine = 0;
    for (int j = 0; j < PER_THREAD; ++j) {
        int i = fcIndex(j);
        if (i < pc.srcSize.x * pc.srcSize.y) {
            float a = texelFetch(srcLevel, ivec3(mipUnflatten(i, pc.srcSize.x), layer), 0).w;
            mine += uint((MIP_UNORM8 ? a * 255.0 : a) >= FC_ALPHA_TEST);
        }
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
    for (int b = int(gl_LocalInvocationIndex); b < COVERAGE_BINS; b += int(gl_WorkGroupSize.x)) {
        fcBins[b] = 0;
    }
    barrier();
    // a cutout is mostly alpha 0 and 1: count runs of one bin before the (shared) atomic
    int run = -1;
    uint count = 0;
    for (int j = 0; j < PER_THREAD; ++j) {
        int i = fcIndex(j);
        if (i < n) {
            float a = clamp(texels[layer * n + i].w, 0.0, 1.0);
            // clamped again as an int: a NaN alpha (float formats) converts to any int
            int bin = clamp(int(a * float(COVERAGE_BINS)), 0, COVERAGE_BINS - 1);
            if (bin != run && count != 0) {
                atomicAdd(fcBins[run], count);
                count = 0;
            }
            run = bin;
            ++count;
        }
    }
    if (count != 0) {
        atomicAdd(fcBins[run], count);
    }
    barrier();
    for (int b = int(gl_LocalInvocationIndex); b < COVERAGE_BINS; b += int(gl_WorkGroupSize.x)) {
        if (fcBins[b] != 0) {
            atomicAdd(cov.covHist[b], fcBins[b]);
        }
    }
}

// FC_PASS 2 runs as one workgroup of SCAN_THREADS invocations, each owning BINS / SCAN_THREADS
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
    uint total = 0;
    int full = COVERAGE_BINS;
    for (int j = OWN - 1; j >= 0; --j) {
        uint c = cov.covHist[first + j];
        cov.covHist[first + j] = 0;  // ready for the next level (the barrier before it orders it)
        fcBins[first + j] = c;
        total += c;
        full = c != 0 ? first + j : full;
    }
    fcAbove[me] = total;
    fcNextFull[me] = full;
    uint n = uint(pc.dstSize.x * pc.dstSize.y * pc.layers);
    if (me == 0) {
        if (pc.level == 1) {
            cov.covTarget = float(cov.covPassing) / float(pc.srcSize.x * pc.srcSize.y * pc.layers);
            cov.covPassing = 0;
        }
        fcTarget = int(roundEven(cov.covTarget * float(n)));
        fcBestKey = 0;
        fcBestNear = 0xFFFFFFFFu;
        fcThreshold = 0.0;
    }
    // suffix sums and minima over invocations (Hillis-Steele)
    for (int step = 1; step < SCAN_THREADS; step *= 2) {
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
    // is judged once, at its lowest edge, by (in the window, width), then nearness to k
    uint above = me + 1 < SCAN_THREADS ? fcAbove[me + 1] : 0;
    int next = me + 1 < SCAN_THREADS ? fcNextFull[me + 1] : COVERAGE_BINS;
    uint keys[OWN + 1];
    uint nears[OWN + 1];
    float ts[OWN + 1];
    int last = me == SCAN_THREADS - 1 ? OWN : OWN - 1;
    for (int j = last; j >= 0; --j) {
        int e = first + j;
        if (e < COVERAGE_BINS) {
            above += fcBins[e];
            next = fcBins[e] != 0 ? e : next;
        }
        keys[j] = 0;
        nears[j] = 0xFFFFFFFFu;
        ts[j] = 0.0;
        if (e == 0 || fcBins[e - 1] != 0) {
            // the top run reaches max(2 t, 1) above the largest alpha, as the reference pads
            int end = next < COVERAGE_BINS ? next : max(2 * e, COVERAGE_BINS);
            int c = int(above);
            keys[j] = c >= lo && c <= hi ? (1u << 15) | uint(end - e) : 0u;
            nears[j] = 2u * uint(abs(c - k)) + (c > k ? 1u : 0u);
            ts[j] = float(e + end) * (0.5 / float(COVERAGE_BINS));
        }
    }
    for (int j = 0; j <= last; ++j) {
        atomicMax(fcBestKey, keys[j]);
    }
    barrier();
    for (int j = 0; j <= last; ++j) {
        if (keys[j] == fcBestKey) {
            atomicMin(fcBestNear, nears[j]);
        }
    }
    barrier();
    // one run has both (distinct runs have distinct counts above)
    for (int j = 0; j <= last; ++j) {
        if (keys[j] == fcBestKey && nears[j] == fcBestNear) {
            fcThreshold = ts[j];
        }
    }
    barrier();
    if (me == 0) {
        cov.covScale = fcThreshold > 0.0 ? FC_CUTOFF / fcThreshold : 1.0;
    }
}

void storeLevel() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    int layer = int(gl_GlobalInvocationID.z);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    vec4 v = texels[(layer * pc.dstSize.y + p.y) * pc.dstSize.x + p.x];
    v.w = clamp(v.w * cov.covScale, 0.0, 1.0);
    imageStore(dstLevel, ivec3(p, layer), mipEncode(v));
}

void main() {
    if (FC_PASS == 0) {
        countLevel0();
    } else if (FC_PASS == 1) {
        histogram();
    } else if (FC_PASS == 2) {
        chooseScale();
    } else {
        storeLevel();
    }
}
