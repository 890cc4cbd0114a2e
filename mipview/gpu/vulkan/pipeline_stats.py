"""The driver's own statistics of each compiled pipeline (VK_KHR_pipeline_executable_properties):
registers, spills, shared memory, instruction counts, as the driver names them. A developer's
lens on why a shader is slow (is a loop unrolled, does it spill, how many groups fit a
multiprocessor), printed to stderr when ``MIPVIEW_PIPELINE_STATS=1`` and the device offers the
extension; otherwise nothing changes."""

from __future__ import annotations

import os
import sys
from typing import Any

from mipview.gpu.vulkan.vkapi import cstr, ffi, flag, vk

EXTENSION = "VK_KHR_pipeline_executable_properties"
CAPTURE_STATISTICS_BIT = 0x40  # VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR


def wanted(device_extensions: set[str]) -> bool:
    """Whether to enable the extension: asked for by the environment and offered."""
    return os.environ.get("MIPVIEW_PIPELINE_STATS", "") not in ("", "0") \
        and EXTENSION in device_extensions


def feature(pnext: Any) -> Any:
    """The feature struct that turns the queries on, chained before ``pnext``."""
    return ffi.new("VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR*", {
        "sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR"),
        "pipelineExecutableInfo": 1, "pNext": pnext})


def _value(stat: Any) -> str:
    kind = stat.format
    if kind == flag("VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR"):
        return str(bool(stat.value.b32))
    if kind == flag("VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR"):
        return str(stat.value.i64)
    if kind == flag("VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR"):
        return str(stat.value.u64)
    return f"{stat.value.f64:g}"


def statistics(device: Any, pipeline: Any) -> list[tuple[str, str]]:
    """``(name, value)`` of every statistic of every executable of ``pipeline`` (created with
    CAPTURE_STATISTICS_BIT on a device with the feature on)."""
    props = vk.vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR")
    stats = vk.vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR")
    out = []
    info = vk.VkPipelineInfoKHR(pipeline=pipeline)
    for i, _ in enumerate(list(props(device, info))):
        exe = vk.VkPipelineExecutableInfoKHR(pipeline=pipeline, executableIndex=i)
        out += [(cstr(s.name), _value(s)) for s in stats(device, exe)]
    return out


def report(device: Any, pipeline: Any, label: str) -> None:
    """One stderr line: the pipeline's label and its statistics."""
    pairs = ", ".join(f"{n}={v}" for n, v in statistics(device, pipeline))
    print(f"pipeline stats: {label}: {pairs}", file=sys.stderr)
