#version 460
// mean.comp: the exact mean (or log-mean) of level 0, any size, by block reduction.
// Host side and the scheme in full: mipview/gpu/mean.py.
//
// One pass reduces a grid of elements (texels of level 0 in the first pass, block means of the
// previous pass after that) by blocks of 4S x 4S elements per S x S group (S = MEAN_S): each
// invocation folds 16 elements, the group folds its S*S invocations in shared memory, and one
// element per group is written. Passes repeat until one element per layer is left.
//
// Elements outside the grid are never loaded (no stray texel, no uninitialised memory). Two
// ways to account for them (MEAN_PADDED):
// * false: every element carries the count of level-0 texels it covers, and means are merged
//   by weight (m = ma + (mb - ma) * nb / (na + nb)): the correction factor applied at every
//   merge. A constant image gives exactly that constant (mb - ma = 0 at every step).
// * true, the seed's scheme: outside elements count as zeros of full weight, so every merge is a
//   plain average of a power-of-two block, and the last pass multiplies by
//   npo(w) * npo(h) / (w * h) (pc.scale), npo = (4S)^passes.
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;
layout(constant_id = 0) const int MEAN_S = 8;       // = local size x and y, 8 or 16
layout(constant_id = 2) const bool MEAN_LOG = false;  // log-mean of Rec.709 luminance
layout(constant_id = 3) const bool MEAN_DECODE_SRGB = false;  // src is a UNORM view of sRGB
layout(constant_id = 4) const bool MEAN_PADDED = false;
// log(luminance + eps): keeps black texels finite. 1e-4 is a quarter of the smallest non-zero
// linear value an 8-bit sRGB image holds (1 / (255 * 12.92) ~ 3e-4). mean.py LOG_EPS mirrors it.
layout(constant_id = 5) const float MEAN_LOG_EPS = 1e-4;

layout(set = 0, binding = 0) uniform sampler2DArray level0;
layout(set = 0, binding = 1) readonly buffer MeanSrc { vec4 srcElems[]; };
layout(set = 0, binding = 2) writeonly buffer MeanDst { vec4 dstElems[]; };

// Declared for the host as MEAN in mipview/gpu/shaders/shipped.py (tests/test_shader_interface.py).
layout(push_constant) uniform MeanPush {
    ivec2 gridSize;    // elements of this pass's input grid (level 0 size in the first pass)
    ivec2 imageSize;   // level 0
    int span;          // level-0 texels per input element along each axis (1 in the first pass)
    int firstPass;     // 1: read level0, else srcElems
    int lastPass;      // 1: apply scale (and exp for the log-mean)
    float scale;       // npo(w) * npo(h) / (w * h) when MEAN_PADDED, else 1
} pc;

shared vec4 meanM_[MEAN_S * MEAN_S];
shared float meanN_[MEAN_S * MEAN_S];

vec4 meanLoad_(ivec2 q, int layer) {
    if (pc.firstPass == 0) {
        return srcElems[(layer * pc.gridSize.y + q.y) * pc.gridSize.x + q.x];
    }
    vec4 v = texelFetch(level0, ivec3(q, layer), 0);
    if (MEAN_DECODE_SRGB) {
        v.rgb = mipSrgbToLinear(v.rgb);
    }
    if (MEAN_LOG) {
        float lum = dot(v.rgb, vec3(0.2126, 0.7152, 0.0722));
        v = vec4(log(max(lum, 0.0) + MEAN_LOG_EPS));
    }
    return v;
}

// Level-0 texels under input element q (its block clipped to the image).
float meanCount_(ivec2 q) {
    ivec2 lo = q * pc.span;
    ivec2 n = min(lo + pc.span, pc.imageSize) - lo;
    return float(n.x) * float(n.y);
}

// Weighted merge of two means; exact when they are equal.
void meanMerge_(inout vec4 m, inout float n, vec4 mb, float nb) {
    if (nb > 0.0) {
        float total = n + nb;
        m += (mb - m) * (nb / total);
        n = total;
    }
}

void main() {
    const int layer = int(gl_WorkGroupID.z);
    const int tid = int(gl_LocalInvocationIndex);
    const ivec2 base = ivec2(gl_WorkGroupID.xy) * (4 * MEAN_S) + ivec2(gl_LocalInvocationID.xy);
    const float fullCount = float(pc.span) * float(pc.span);

    vec4 m = vec4(0.0);
    float n = 0.0;
    for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 4; ++i) {
            // strided by S: neighbouring invocations load neighbouring elements
            ivec2 q = base + ivec2(i, j) * MEAN_S;
            if (all(lessThan(q, pc.gridSize))) {
                meanMerge_(m, n, meanLoad_(q, layer), MEAN_PADDED ? fullCount : meanCount_(q));
            } else if (MEAN_PADDED) {
                meanMerge_(m, n, vec4(0.0), fullCount);
            }
        }
    }
    meanM_[tid] = m;
    meanN_[tid] = n;
    barrier();
    for (int stride = MEAN_S * MEAN_S / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            meanMerge_(m, n, meanM_[tid + stride], meanN_[tid + stride]);
            meanM_[tid] = m;
            meanN_[tid] = n;
        }
        barrier();
    }
    if (tid == 0) {
        if (pc.lastPass != 0) {
            m *= pc.scale;
            if (MEAN_LOG) {
                m = exp(m);
            }
        }
        ivec2 groups = ivec2(gl_NumWorkGroups.xy);
        dstElems[(layer * groups.y + int(gl_WorkGroupID.y)) * groups.x + int(gl_WorkGroupID.x)] = m;
    }
}
