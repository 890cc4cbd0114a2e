#version 460
// filter_level.comp: one level of any separable filter (docs/filters.md), in two dispatches.
// FL_PASS 0 (x) reads the source level with texelFetch (sRGB through the UNORM view, decoded
// here: exact, as per_level.comp) and writes, per source row and destination column, the
// x-filtered value to a float32 buffer; FL_PASS 1 (y) filters that buffer's columns into the
// destination level. The host builds both axes' tap tables (mipview/core/filters/resample.py: folded
// source index, float32 weight) into one storage buffer: destination texel i of an axis with T
// taps per texel takes entries [offset + i * T, offset + (i + 1) * T). So one small shader serves
// every kernel, edge mode and source level; the kinds are specialization constants.
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;

layout(constant_id = 2) const int FL_PASS = 0;               // 0: x into rows, 1: y into the level
layout(constant_id = 3) const bool FL_PREMULTIPLIED = false;  // filter colour times alpha
layout(constant_id = 4) const bool FL_NORMAL = false;         // decode 2v-1, renormalise, encode
// alpha=coverage: the y pass leaves the level in `texels`; filter_coverage.comp scales and stores
layout(constant_id = 5) const bool FL_COVERAGE = false;

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;
layout(set = 0, binding = 1) writeonly uniform image2DArray dstLevel;

struct FilterTap {
    int index;
    float weight;
};
layout(std430, set = 0, binding = 2) readonly buffer FilterTaps { FilterTap taps[]; };
// x-filtered rows: (layer, source row, destination column), row-major
layout(std430, set = 0, binding = 3) buffer FilterRows { vec4 rows[]; };
// FL_COVERAGE: the unscaled level, planar (filter_coverage.comp's histogram reads alpha alone):
// per layer four planes (r, g, b, a), each rows x columns, row-major
layout(std430, set = 0, binding = 4) writeonly buffer FilterTexels { float texels[]; };

layout(push_constant) uniform FilterLevelPush {
    ivec2 srcSize;
    ivec2 dstSize;
    int tapsX;    // taps per destination column
    int offsetX;  // first entry of the x table
    int tapsY;
    int offsetY;
} pc;

vec4 filterLoad(ivec2 q, int layer) {
    vec4 v = mipDecode(texelFetch(srcLevel, ivec3(q, layer), 0));
    if (FL_NORMAL) {
        v.xyz = v.xyz * 2.0 - 1.0;
    }
    if (FL_PREMULTIPLIED) {
        v.xyz *= v.w;
    }
    return v;
}

int rowIndex(int layer, int row, int column) {
    return (layer * pc.srcSize.y + row) * pc.dstSize.x + column;
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    int layer = int(gl_GlobalInvocationID.z);
    if (FL_PASS == 0) {
        // p = (destination column, source row)
        if (p.x >= pc.dstSize.x || p.y >= pc.srcSize.y) {
            return;
        }
        vec4 sum = vec4(0.0);
        int base = pc.offsetX + p.x * pc.tapsX;
        for (int t = 0; t < pc.tapsX; ++t) {
            FilterTap tap = taps[base + t];
            sum += tap.weight * filterLoad(ivec2(tap.index, p.y), layer);
        }
        rows[rowIndex(layer, p.y, p.x)] = sum;
        return;
    }
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    vec4 v = vec4(0.0);
    int base = pc.offsetY + p.y * pc.tapsY;
    for (int t = 0; t < pc.tapsY; ++t) {
        FilterTap tap = taps[base + t];
        v += tap.weight * rows[rowIndex(layer, tap.index, p.x)];
    }
    if (FL_PREMULTIPLIED) {
        v.xyz = v.w > 0.0 ? v.xyz / v.w : vec3(0.0);
    }
    if (FL_NORMAL) {
        float len = length(v.xyz);
        v.xyz = (len > 0.0 ? v.xyz / len : vec3(0.0, 0.0, 1.0)) * 0.5 + 0.5;
    }
    if (mipUnorm()) {
        v = clamp(v, 0.0, 1.0);  // negative lobes overshoot; only UNORM formats need the clamp
    }
    if (FL_COVERAGE) {
        int n = pc.dstSize.x * pc.dstSize.y;
        [[unroll]] for (int c = 0; c < 4; ++c) {
            texels[(layer * 4 + c) * n + p.y * pc.dstSize.x + p.x] = v[c];
        }
        return;
    }
    imageStore(dstLevel, ivec3(p, layer), mipEncode(v));
}
