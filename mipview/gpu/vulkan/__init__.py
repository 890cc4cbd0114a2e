"""Vulkan plumbing: the binding, the device context, images and buffers, barriers, pipelines
(compiled ahead, cached on disk), the dispatch loop and GPU timestamps."""
