#version 460
// single_pass.comp: the single-pass downsampler, fp32 registers and shared memory.
// The algorithm lives in include/spd_reduce.glsl (shared with single_pass_f16.comp).
#extension GL_GOOGLE_include_directive : require
#include "spd_reduce.glsl"
