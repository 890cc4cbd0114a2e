#version 460
// single_pass_f16.comp: the single-pass downsampler with packed half registers and shared
// memory (SP_FP16). The algorithm lives in include/spd_reduce.glsl.
#extension GL_GOOGLE_include_directive : require
#define SP_FP16 1
#include "spd_reduce.glsl"
