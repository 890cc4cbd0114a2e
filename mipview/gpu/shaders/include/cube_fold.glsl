// cube_fold.glsl: edge=cube, a cube map's seamless edge (docs/cube-maps.md), as the shaders of the
// filters read it (filter_level.comp, filter_pairs.comp). A cube map is 6 n square layers in
// Vulkan's face order +X, -X, +Y, -Y, +Z, -Z (cube c's face f at layer 6 c + f). A texel past
// one edge of its face, at depth d < n beyond it (d = 0 the first ring), is the neighbour's texel
// at depth d inside the shared edge, at the same place along it, reversed where the edges run
// opposite ways (mipview/core/cube.py: fold_cube). How the faces meet is no table written here:
// the host derives it from Vulkan's face selection table (mipview.core.cube.ADJACENCY) and passes
// one code per (face, edge): neighbour face | its edge << 3 | reversed << 5, edges numbered
// left 0, right 1, top 2, bottom 3 (mipview.gpu.strategies.filter_level.adjacency_table).
// A texel past two edges (a corner block) is the mean of the three texels at that cube corner:
// cubeCornerTexel and one step off it across each edge, averaged by cubeCorner.
#ifndef CUBE_FOLD_GLSL
#define CUBE_FOLD_GLSL

// the face of layer `layer` (layers are never negative: unsigned %, as mip_common.glsl's folds)
int cubeFace(int layer) {
    return int(uint(layer) % 6u);
}

// which edge of a face of side n texel q is past: exactly one of its indices outside [0, n)
int cubeEdge(ivec2 q, int n) {
    return q.x < 0 ? 0 : q.x >= n ? 1 : q.y < 0 ? 2 : 3;
}

// texel q of the face at `layer`, past edge cubeEdge(q, n) (whose adjacency code is `code`) by a
// depth below n: (column, row, layer) of the same texel on the face across that edge
ivec3 cubeFold(ivec2 q, int n, int layer, int code) {
    int edge = cubeEdge(q, n);
    int depth = edge == 0 ? -1 - q.x : edge == 1 ? q.x - n : edge == 2 ? -1 - q.y : q.y - n;
    int along = edge < 2 ? q.y : q.x;  // down the left and right edges, rightwards the others
    if ((code & 32) != 0) {
        along = n - 1 - along;
    }
    int e2 = (code >> 3) & 3;
    int inside = (e2 & 1) == 0 ? depth : n - 1 - depth;  // from its left / top, right / bottom
    return ivec3(e2 < 2 ? ivec2(inside, along) : ivec2(along, inside),
                 layer - cubeFace(layer) + (code & 7));
}

// a corner block's texel q (both indices outside [0, n)): the face's corner texel; the other two
// at that cube corner are one step off it across each edge, (step.x, 0) and (0, step.y)
ivec2 cubeCornerTexel(ivec2 q, int n) {
    return clamp(q, 0, n - 1);
}

ivec2 cubeCornerStep(ivec2 q) {
    return ivec2(q.x < 0 ? -1 : 1, q.y < 0 ? -1 : 1);
}

// the mean of the three texels at a cube corner as the reference computes it (exact where the
// three are equal: a constant cube stays that constant bit for bit)
vec4 cubeCorner(vec4 a, vec4 b, vec4 c) {
    return a + ((b - a) + (c - a)) / 3.0;
}

#endif
