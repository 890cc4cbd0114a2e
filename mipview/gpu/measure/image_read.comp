#version 460
// image_read.comp: how fast the texture unit reads level 0 of an image at all: the ceiling of
// every strategy that samples it (the copy floor is a buffer's, and buffer loads take another
// path). Each invocation reads a 4x4 block of texels the way the tile strategies' first step
// does: 4 bilinear samples at the centres of its 2x2 blocks (LINEAR), a gather per channel of each
// block (GATHER: one- and two-channel formats, gather_mode in mipview/gpu/shaders/shipped.py) or 16
// texel loads. Nothing
// is written but a sentinel no sum reaches. Host side: mipview/gpu/measure/image_read.py.
layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(constant_id = 0) const bool LINEAR = true;
layout(constant_id = 1) const int GATHER = 0;

layout(set = 0, binding = 0) uniform sampler2DArray readSrc;
layout(set = 0, binding = 1) writeonly buffer ReadSink { vec4 readSink[]; };

layout(push_constant) uniform ReadPush {
    ivec2 size;
    float never;  // keeps the loads live: no sum of texels equals it
} pc;

void main() {
    ivec2 q = 4 * ivec2(gl_GlobalInvocationID.xy);
    int layer = int(gl_GlobalInvocationID.z);
    if (any(greaterThanEqual(q, pc.size))) {
        return;
    }
    vec4 acc = vec4(0.0);
    for (int k = 0; k < 4; ++k) {
        ivec2 b = q + 2 * ivec2(k & 1, k >> 1);
        vec3 c = vec3(vec2(b + 1) / vec2(pc.size), float(layer));
        if (LINEAR) {
            acc += textureLod(readSrc, c, 0.0);
        } else if (GATHER != 0) {
            acc += textureGather(readSrc, c, 0);
            if (GATHER == 2) {
                acc += textureGather(readSrc, c, 1);
            }
        } else {
            for (int t = 0; t < 4; ++t) {
                ivec2 o = min(b + ivec2(t & 1, t >> 1), pc.size - 1);
                acc += texelFetch(readSrc, ivec3(o, layer), 0);
            }
        }
    }
    if (acc.x == pc.never) {
        readSink[0] = acc;
    }
}
