"""The one loop that records a strategy's dispatch plan (nvpro's pyramid dispatcher is the model).

A compute strategy builds its :class:`DispatchStep` list once, in ``prepare``; the same objects are
recorded here and reported with the result, so the plan a user reads is the plan that ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mipview.core.results import DispatchStep
from mipview.gpu.vulkan.pipelines import ComputePipeline
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.timing import Marks
from mipview.gpu.vulkan.vkapi import vk


def record_steps(cmd: Any, steps: Sequence[DispatchStep], pipelines: Sequence[ComputePipeline],
                 sets: Sequence[Any], marks: Marks) -> None:
    """Bind, push and dispatch each step, then stamp its label. Each step reads what the one
    before it wrote, so a compute write -> read/write barrier separates consecutive steps (but
    a ``joined`` step, which runs beside the one before it, under one stamp); the caller orders
    the first step after earlier work and later work after the last."""
    for i, step in enumerate(steps):
        if i and not step.joined:
            memory_barrier(cmd, "COMPUTE_SHADER", "SHADER_WRITE", "COMPUTE_SHADER",
                           "SHADER_READ|SHADER_WRITE")
        pipeline = pipelines[step.pipeline]
        pipeline.bind(cmd, sets[step.descriptor_set])
        if step.push:
            pipeline.push(cmd, step.push)
        vk.vkCmdDispatch(cmd, *step.groups)
        if i + 1 == len(steps) or not steps[i + 1].joined:
            marks.mark(cmd, step.label)


__all__ = ["DispatchStep", "record_steps"]
