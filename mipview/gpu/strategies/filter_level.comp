#version 460
// filter_level.comp: one level of any separable filter (docs/filters.md), in two dispatches.
// FL_PASS 0 (x) reads the source level with texelFetch (sRGB through the UNORM view, decoded
// here: exact, as per_level.comp) and writes, per source row and destination column, the
// x-filtered value to a float32 buffer; FL_PASS 1 (y) filters that buffer's columns into the
// destination level. The host builds both axes' tap tables (mipview/core/filters/resample.py: folded
// source index, float32 weight) into one storage buffer: destination texel i of an axis with T
// taps per texel takes entries [offset + i * T, offset + (i + 1) * T). So one small shader serves
// every kernel, edge mode and source level; the kinds are specialization constants.
// FL_CUBE (edge=cube: a cube map, 6 n square layers, docs/cube-maps.md): the seamless chain, as
// the float64 reference pads each face with its neighbours' texels. The x pass makes pc.pad rows
// past the face's top and bottom edges too, and a tap past an edge reads the neighbouring face
// through the adjacency table the host put at the start of the tap buffer (built from
// mipview/core/cube.py); a tap past two edges (a corner block) reads the mean of the three texels
// at that cube corner. The x table holds face coordinates in [-pad, n + pad), the y table
// indices into the padded rows.
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"
#include "cube_fold.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;

layout(constant_id = 2) const int FL_PASS = 0;               // 0: x into rows, 1: y into the level
layout(constant_id = 3) const bool FL_PREMULTIPLIED = false;  // filter colour times alpha
layout(constant_id = 4) const bool FL_NORMAL = false;         // decode 2v-1, renormalise, encode
// alpha=coverage: the y pass leaves the level in `texels`; filter_coverage.comp scales and stores
layout(constant_id = 5) const bool FL_COVERAGE = false;
layout(constant_id = 6) const bool FL_CUBE = false;  // edge=cube: faces read across their edges

layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;
layout(set = 0, binding = 1) writeonly uniform image2DArray dstLevel;

struct FilterTap {
    int index;
    float weight;
};
layout(std430, set = 0, binding = 2) readonly buffer FilterTaps { FilterTap taps[]; };
// FL_CUBE: entries 0 .. 23 are the adjacency, (face, edge) face-major, edges left, right, top,
// bottom; index = neighbour face | its edge << 3 | reversed << 5 (filter_level.adjacency_table)
// x-filtered rows: (layer, source row (FL_CUBE: padded row), destination column), row-major
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
    int pad;      // FL_CUBE: rows the x pass makes past the top and the bottom edge; else 0
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
    return (layer * (pc.srcSize.y + 2 * pc.pad) + row) * pc.dstSize.x + column;
}

// FL_CUBE: texel q of face `layer` past one edge (cube_fold.glsl), through the adjacency table
ivec3 cubeAcross(ivec2 q, int layer) {
    int n = pc.srcSize.x;
    return cubeFold(q, n, layer, taps[cubeFace(layer) * 4 + cubeEdge(q, n)].index);
}

// FL_CUBE: the padded face's texel q (each index in [-n, 2n)): its own, its neighbour's past
// one edge, or past two (a corner block) the mean of the three texels at the cube corner, as
// mipview/core/cube.py's pad_faces makes the reference's
vec4 cubeLoad(ivec2 q, int layer) {
    int n = pc.srcSize.x;
    bvec2 outside = bvec2(q.x < 0 || q.x >= n, q.y < 0 || q.y >= n);
    if (!any(outside)) {
        return filterLoad(q, layer);
    }
    if (!all(outside)) {
        ivec3 f = cubeAcross(q, layer);
        return filterLoad(f.xy, f.z);
    }
    ivec2 c = cubeCornerTexel(q, n);
    ivec2 step = cubeCornerStep(q);
    ivec3 bx = cubeAcross(ivec2(c.x + step.x, c.y), layer);
    ivec3 by = cubeAcross(ivec2(c.x, c.y + step.y), layer);
    return cubeCorner(filterLoad(c, layer), filterLoad(bx.xy, bx.z), filterLoad(by.xy, by.z));
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    int layer = int(gl_GlobalInvocationID.z);
    if (FL_PASS == 0) {
        // p = (destination column, source row; FL_CUBE: padded row, pc.pad above the face's)
        if (p.x >= pc.dstSize.x || p.y >= pc.srcSize.y + 2 * pc.pad) {
            return;
        }
        vec4 sum = vec4(0.0);
        int base = pc.offsetX + p.x * pc.tapsX;
        int row = p.y - pc.pad;
        // a cube's taps are consecutive: inside the face when the row, the first and the last are
        bool across = FL_CUBE && (row < 0 || row >= pc.srcSize.y || taps[base].index < 0
                                  || taps[base + pc.tapsX - 1].index >= pc.srcSize.x);
        if (across) {
            for (int t = 0; t < pc.tapsX; ++t) {
                FilterTap tap = taps[base + t];
                sum += tap.weight * cubeLoad(ivec2(tap.index, row), layer);
            }
        } else {
            for (int t = 0; t < pc.tapsX; ++t) {
                FilterTap tap = taps[base + t];
                sum += tap.weight * filterLoad(ivec2(tap.index, row), layer);
            }
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
