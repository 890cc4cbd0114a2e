// mip_level.glsl: the per-level interface of a custom strategy (docs/custom-strategies.md).
//
// mipview dispatches the shader once per level L = 1 .. levels-1, with a barrier between levels:
// work groups ceil(dstSize / work-group size) in x and y (one invocation per texel of level L
// when the shader works that way), one array layer per z (the work-group size's z must be 1).
// The host declares this push block as MIP_LEVEL in mipview/gpu/shaders/shipped.py and checks every
// custom per-level shader's bindings and push block against it (mipview/gpu/strategies/custom_shader.py).
#ifndef MIP_LEVEL_GLSL
#define MIP_LEVEL_GLSL

#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"

// Level L-1, sampled, clamped to the edge. Nearest filtering (the default): sRGB images come
// through their UNORM view, the stored bytes undecoded: decode with mipDecode (mipLevelLoad does),
// exactly, because a device sampler's sRGB decode may be a third of an LSB off (lavapipe's is),
// which breaks the correctly rounded promise. `#pragma mipview sampler linear`: the sRGB view,
// decoded and filtered in linear light by the sampler.
layout(set = 0, binding = 0) uniform sampler2DArray mipSrc;
// Level L. sRGB images are written through a UNORM view: store mipEncode(v).
layout(set = 0, binding = 1) writeonly uniform image2DArray mipDst;
// Binding 2, if a shader declares it: level L-1 as a storage image, for imageLoad. It needs the
// image's format qualifier (rgba8, rgba16f, rgba32f, r32f, rg16f...: docs/formats.md), which
// ties the shader to that format.

layout(push_constant) uniform MipLevelPush {
    ivec2 srcSize;  // level L-1
    ivec2 dstSize;  // level L
    int level;      // L
    int levels;     // of the chain, level 0 included
} pc;

// Texel q of level L-1 in this invocation's layer, decoded (linear light).
vec4 mipLevelLoad(ivec2 q) {
    return mipDecode(texelFetch(mipSrc, ivec3(q, int(gl_GlobalInvocationID.z)), 0));
}

// Store v (linear light) as texel p of level L in this invocation's layer.
void mipLevelStore(ivec2 p, vec4 v) {
    imageStore(mipDst, ivec3(p, int(gl_GlobalInvocationID.z)), mipEncode(v));
}

#endif
