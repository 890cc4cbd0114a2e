#version 460
// buffer_copy.comp: the bandwidth floor that compute strategies are measured against. A plain
// 16-byte-per-invocation copy, grid-stride so any size fits the work-group count limit. On
// NVIDIA, vkCmdCopyBuffer may run on a copy engine far below what the SMs reach, so the bench
// takes the faster of the two copies as the floor (mipview/gpu/measure/bandwidth.py).
layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer CopySrc { uvec4 copySrc[]; };
layout(set = 0, binding = 1) writeonly buffer CopyDst { uvec4 copyDst[]; };

layout(push_constant) uniform CopyPush {
    uint count;  // uvec4 elements
} pc;

void main() {
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        copyDst[i] = copySrc[i];
    }
}
