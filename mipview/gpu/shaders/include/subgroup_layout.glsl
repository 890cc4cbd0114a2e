// subgroup_layout.glsl: where each invocation of a 256-invocation workgroup sits in its 16x16
// grid of cells, for the subgroup strategy (../subgroup.comp). Mirrored in Python by
// mipview/gpu/strategies/subgroup.py (layout_bit, layout_position, subgroup_levels); a test
// compares the two through the shader's debug mode.
//
// Every layout is a permutation of the 8 bits of the linear invocation index
// i = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID: bit b of the cell's x (or y)
// is bit mipLayoutBit(kind, axis, b, sgBits) of i, where sgBits = log2(gl_SubgroupSize).
// Two consequences the schedule relies on:
//   * the partner of a cell at distance 2^j along an axis is the invocation whose index differs
//     in exactly that bit, so a 2x2 reduction inside a subgroup is subgroupShuffleXor;
//   * whether the 2x2 step j stays inside one subgroup is "both bits j are lane bits (< sgBits)",
//     the same for every invocation, so the switch to shared memory is workgroup-uniform.
//
//   ROW_MAJOR (0): x = i % 16, y = i / 16. A subgroup is a 16 x (S/16) strip (1 x S for S < 16),
//                  so it holds a 2x2 step only from S = 32 on.
//   SQUARE    (1): a subgroup is a w x h block (w = 2^ceil(s/2), h = 2^floor(s/2): 8x4 for 32
//                  lanes, 4x2 for 8), lanes row-major inside it, blocks row-major in the grid.
//   MORTON    (2): Z order as in FidelityFX SPD: lanes 0..3 are a 2x2 quad, 0..15 a 4x4, ...
#ifndef SUBGROUP_LAYOUT_GLSL
#define SUBGROUP_LAYOUT_GLSL

#define MIP_LAYOUT_ROW_MAJOR 0
#define MIP_LAYOUT_SQUARE 1
#define MIP_LAYOUT_MORTON 2

// Index bit that holds bit b (0..3) of the cell coordinate on axis (0 = x, 1 = y).
int mipLayoutBit(int kind, int axis, int b, int sgBits) {
    if (kind == MIP_LAYOUT_ROW_MAJOR) {
        return axis == 0 ? b : 4 + b;
    }
    if (kind == MIP_LAYOUT_MORTON) {
        return 2 * b + axis;
    }
    // SQUARE: lane bits [0, wb) are x, [wb, sgBits) are y; then block column, then block row.
    int wb = (sgBits + 1) >> 1;
    int hb = sgBits >> 1;
    if (axis == 0) {
        return b < wb ? b : sgBits + (b - wb);
    }
    return b < hb ? wb + b : sgBits + (4 - wb) + (b - hb);
}

// Cell (0..15, 0..15) of linear invocation index i.
ivec2 mipLayoutPosition(int kind, uint i, int sgBits) {
    ivec2 p = ivec2(0);
    for (int b = 0; b < 4; ++b) {
        p.x |= int((i >> uint(mipLayoutBit(kind, 0, b, sgBits))) & 1u) << b;
        p.y |= int((i >> uint(mipLayoutBit(kind, 1, b, sgBits))) & 1u) << b;
    }
    return p;
}

// How many of the four 2x2 steps of the 16x16 grid stay inside one subgroup (from the first).
int mipSubgroupSteps(int kind, int sgBits) {
    int j = 0;
    while (j < 4 && mipLayoutBit(kind, 0, j, sgBits) < sgBits
           && mipLayoutBit(kind, 1, j, sgBits) < sgBits) {
        ++j;
    }
    return j;
}

#endif
