"""Vulkan side of mipview: context, resources, pipelines, timing and the strategies.

Nothing in this package imports Qt, so the CLI and benchmarks run on machines without PySide6.
"""
