#version 460
// cache_evict.comp: reads a buffer larger than any L2 before a cold-cache timed run
// (mipview/gpu/measure/evict.py), so that the cache ends full of *clean* lines that hold none of the
// timed run's data. A fill would leave it full of dirty lines, and the timed run would pay for
// writing them back: someone else's traffic, up to 50 MB on an H100/H200.
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer EvictSrc { uvec4 evictSrc[]; };
layout(set = 0, binding = 1) writeonly buffer EvictSink { uvec4 evictSink[]; };

layout(push_constant) uniform EvictPush {
    uint count;  // uvec4 elements
    uint never;  // a value the buffer's xor never reaches (it holds zeros): keeps the loads live
} pc;

void main() {
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uvec4 acc = uvec4(0);
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        acc ^= evictSrc[i];
    }
    if (acc.x == pc.never) {
        evictSink[0] = acc;
    }
}
