// handoff.glsl: SPD's atomic hand-off. Every workgroup of a layer arrives at a counter once its
// outputs are written; the last to arrive sees every other group's buffer writes and carries on
// with what needs all of them (the tail), and resets the counter for the next run.
//
// Under the Vulkan memory model (the includer declares `#pragma use_vulkan_memory_model` and
// GL_KHR_memory_scope_semantics): each invocation's buffer writes are released at queue-family
// scope by a control barrier, invocation 0 does an acquire-release atomicAdd at queue-family
// scope, and a second control barrier acquires for the whole group. The includer defines
// HANDOFF_COUNTERS, a coherent storage buffer's uint array with one zeroed counter per layer
// (mipview/gpu/strategies/handoff.py makes and zeroes it). Used by spd_reduce.glsl and npot_exact.comp.
#ifndef HANDOFF_GLSL
#define HANDOFF_GLSL

shared bool handoffLast_;

void handoffBarrier() {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeQueueFamily,
                   gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
}

// Called by every invocation of the group, after its writes; true in the last group of the
// layer (of ``groups`` groups per layer), which then sees every group's buffer writes.
bool handoffArrive(int layer, int groups) {
    handoffBarrier();
    if (gl_LocalInvocationIndex == 0) {
        uint arrived = atomicAdd(HANDOFF_COUNTERS[layer], 1u, gl_ScopeQueueFamily,
                                 gl_StorageSemanticsBuffer,
                                 gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable
                                 | gl_SemanticsMakeVisible);
        handoffLast_ = arrived == uint(groups - 1);
        if (handoffLast_) {
            // ready for the next run
            atomicStore(HANDOFF_COUNTERS[layer], 0u, gl_ScopeQueueFamily,
                        gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        }
    }
    handoffBarrier();
    return handoffLast_;
}

#endif
