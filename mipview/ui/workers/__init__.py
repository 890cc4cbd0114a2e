"""Work off the UI thread: the GPU worker (owns the Vulkan context), the CPU worker (comparisons,
exports, baselines, previews), the shader compiler, and the one way each runs a job."""
