#version 460
// sampler_minmax.comp: a Hi-Z level from one min/max-reduction sampler fetch per 2x2 quad
// (VK_EXT_sampler_filter_minmax, core in Vulkan 1.2: the sampler returns the min or max of the
// texels it weighs, niagara's depth pyramid), plus the texels a 2x2 fetch misses on an odd side:
// footprint texels 2i, 2i+1 and 2i+2 of a side of 2m+1. Those come by texelFetch, exactly, so
// every level covers its whole footprint at every size (conservative) and picks a stored value.
// Storage values are read and stored as they are: no decode, no rounding. minmax (min in R, max
// in G) takes two fetches per quad, one through a min sampler and one through a max sampler.
#extension GL_GOOGLE_include_directive : require
#include "mip_common.glsl"

// per-level's groups: the host plans the dispatches as per-level does
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;
// 1: min, 2: max (the sampler's mode too), 3: minmax (mip_common.glsl's mipExtreme)
layout(constant_id = 2) const int REDUCTION = 1;
// niagara's step as it is: the quad's fetch only, no third texels on odd sides (not
// conservative there; a timing anchor, which the verdict shows failing on NPOT levels)
layout(constant_id = 3) const bool QUAD_ONLY = false;

// level i-1 through a linear sampler with the reduction mode of REDUCTION (minmax: min)
layout(set = 0, binding = 0) uniform sampler2DArray srcLevel;
layout(set = 0, binding = 1) writeonly uniform image2DArray dstLevel;
// the same level through a max sampler (minmax; otherwise srcLevel's sampler, unread)
layout(set = 0, binding = 2) uniform sampler2DArray srcLevelMax;

layout(push_constant) uniform SamplerMinmaxPush {
    ivec2 srcSize;
    ivec2 dstSize;
} pc;

vec4 pick(vec4 a, vec4 b) {
    return mipExtreme(REDUCTION, a, b);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    int layer = int(gl_GlobalInvocationID.z);
    if (any(greaterThanEqual(p, pc.dstSize))) {
        return;
    }
    ivec2 q = 2 * p;
    // the centre of the quad q .. q+1 weighs its 4 texels 1/4 each (all non-zero: all reduced);
    // a side of 1 has texel 0 alone, at its centre
    vec2 centre = vec2(q + 1);
    if (pc.srcSize.x == 1) {
        centre.x = 0.5;
    }
    if (pc.srcSize.y == 1) {
        centre.y = 0.5;
    }
    vec3 uv = vec3(centre / vec2(pc.srcSize), float(layer));
    vec4 r = textureLod(srcLevel, uv, 0.0);
    if (REDUCTION == 3) {
        r.yzw = textureLod(srcLevelMax, uv, 0.0).yzw;
    }
    bool oddX = !QUAD_ONLY && pc.srcSize.x > 1 && (pc.srcSize.x & 1) == 1;
    bool oddY = !QUAD_ONLY && pc.srcSize.y > 1 && (pc.srcSize.y & 1) == 1;
#define SM_LOAD(x, y) texelFetch(srcLevel, ivec3(x, y, layer), 0)
    if (oddX) {  // column 2i+2 of the footprint
        r = pick(r, SM_LOAD(q.x + 2, q.y));
        if (pc.srcSize.y > 1) {
            r = pick(r, SM_LOAD(q.x + 2, q.y + 1));
        }
    }
    if (oddY) {  // row 2j+2
        r = pick(r, SM_LOAD(q.x, q.y + 2));
        if (pc.srcSize.x > 1) {
            r = pick(r, SM_LOAD(q.x + 1, q.y + 2));
        }
    }
    if (oddX && oddY) {
        r = pick(r, SM_LOAD(q.x + 2, q.y + 2));
    }
    imageStore(dstLevel, ivec3(p, layer), r);
}
