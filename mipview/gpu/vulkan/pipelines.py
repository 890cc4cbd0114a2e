"""SPIR-V from package data, compute pipelines with specialization constants, descriptors.

Pipelines are cached per context, keyed by (shader, bindings, constants, subgroup size), so a
profiling session that re-runs a strategy does not rebuild them. What a shader takes (constants by
name, its push-constant block) is declared once, in mipview/gpu/shaders/shipped.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from mipview.gpu.shaders.interface import ShaderInterface, SpecValue
from mipview.gpu.vulkan import pipeline_stats
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.vkapi import ffi, flag, vk

REQUIRE_FULL_SUBGROUPS_BIT = 0x2  # VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT
_ROBUST_BUFFERS = "VK_PIPELINE_ROBUSTNESS_BUFFER_BEHAVIOR_ROBUST_BUFFER_ACCESS_EXT"

#: binding kind -> VkDescriptorType name
DESCRIPTOR_KINDS = {
    "sampled": "VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER",
    "storage_image": "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE",
    "storage_buffer": "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER",
    "uniform_buffer": "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER",
}


#: a binding of a pipeline: its kind, or (kind, array size)
BindingKind = str | tuple[str, int]


def binding_kind(entry: BindingKind) -> tuple[str, int]:
    """(kind, descriptor count) of a binding entry."""
    return (entry, 1) if isinstance(entry, str) else entry


def load_spirv(shader: ShaderInterface) -> bytes:
    """The module of ``shader``: its own (custom strategies), else the shipped SPIR-V of
    ``shaders/<name>.comp``."""
    if shader.spirv is not None:
        return shader.spirv
    path = resources.files("mipview") / "spirv" / f"{shader.name}.spv"
    return path.read_bytes()


@dataclass(frozen=True)
class PipelineKey:
    shader: ShaderInterface
    bindings: tuple[BindingKind, ...]
    #: (constant_id, value) sorted by id, from :meth:`ShaderInterface.spec_values`
    constants: tuple[tuple[int, SpecValue], ...]
    subgroup_size: int | None
    #: robust buffer and image access for this pipeline (custom strategies), where the device
    #: offers it per pipeline (DeviceCaps.robustness "pipeline")
    robust: bool = False

    @property
    def push_size(self) -> int:
        return self.shader.push_size


class ComputePipeline:
    """One compute pipeline with a single descriptor set layout (set 0) and push constants."""

    def __init__(self, ctx: GpuContext, key: PipelineKey) -> None:
        self.ctx = ctx
        self.key = key
        dev = ctx.device
        compute = flag("VK_SHADER_STAGE_COMPUTE_BIT")
        layout_bindings = [
            vk.VkDescriptorSetLayoutBinding(binding=i, descriptorType=flag(DESCRIPTOR_KINDS[k]),
                                            descriptorCount=n, stageFlags=compute)
            for i, (k, n) in enumerate(map(binding_kind, key.bindings))]
        self.set_layout = vk.vkCreateDescriptorSetLayout(dev, vk.VkDescriptorSetLayoutCreateInfo(
            bindingCount=len(layout_bindings), pBindings=layout_bindings), None)
        ranges = [vk.VkPushConstantRange(stageFlags=compute, offset=0, size=key.push_size)]
        self.layout = vk.vkCreatePipelineLayout(dev, vk.VkPipelineLayoutCreateInfo(
            setLayoutCount=1, pSetLayouts=[self.set_layout],
            pushConstantRangeCount=1 if key.push_size else 0,
            pPushConstantRanges=ranges if key.push_size else None), None)
        spv = load_spirv(key.shader)
        module = vk.vkCreateShaderModule(dev, vk.VkShaderModuleCreateInfo(
            codeSize=len(spv), pCode=spv), None)
        try:
            # Inner structs are bound to names that outlive the create call: nested by-value
            # structs built inline lose their pointers in the binding.
            entries = [vk.VkSpecializationMapEntry(constantID=cid, offset=4 * i, size=4)
                       for i, (cid, _) in enumerate(key.constants)]
            data = key.shader.spec_data(key.constants)
            data_c = ffi.new("uint8_t[]", data) if data else None
            spec = vk.VkSpecializationInfo(mapEntryCount=len(entries), pMapEntries=entries,
                                           dataSize=len(data), pData=data_c) if entries else None
            size_info = None
            stage_flags = 0
            if key.subgroup_size:
                size_info = vk.VkPipelineShaderStageRequiredSubgroupSizeCreateInfo(
                    requiredSubgroupSize=key.subgroup_size)
                stage_flags = REQUIRE_FULL_SUBGROUPS_BIT
            stage = vk.VkPipelineShaderStageCreateInfo(
                stage=compute, module=module, pName="main", pSpecializationInfo=spec,
                flags=stage_flags, pNext=size_info)
            robust = None
            if key.robust and ctx.caps.robustness == "pipeline":
                robust = vk.VkPipelineRobustnessCreateInfoEXT(
                    storageBuffers=flag(_ROBUST_BUFFERS), uniformBuffers=flag(_ROBUST_BUFFERS),
                    images=flag("VK_PIPELINE_ROBUSTNESS_IMAGE_BEHAVIOR_ROBUST_IMAGE_ACCESS_EXT"))
            info = vk.VkComputePipelineCreateInfo(
                stage=stage, layout=self.layout, pNext=robust,
                flags=pipeline_stats.CAPTURE_STATISTICS_BIT if ctx.pipeline_stats else 0)
            cache = ctx.pipeline_cache
            self.pipeline = vk.vkCreateComputePipelines(dev, cache.handle, 1, [info], None)[0]
            cache.used = True
            if ctx.pipeline_stats:
                pipeline_stats.report(dev, self.pipeline, f"{key.shader.name} {key.constants}")
        finally:
            vk.vkDestroyShaderModule(dev, module, None)

    @property
    def push_size(self) -> int:
        return self.key.push_size

    def bind(self, cmd: Any, descriptor_set: Any) -> None:
        """Bind this pipeline and ``descriptor_set`` in ``cmd``; the driver compiles what that
        needs before ``cmd`` is submitted (mipview.gpu.vulkan.compile_ahead)."""
        self.record_bind(cmd, descriptor_set)
        self.ctx.compile_ahead.note(cmd, self, descriptor_set)

    def record_bind(self, cmd: Any, descriptor_set: Any) -> None:
        point = flag("VK_PIPELINE_BIND_POINT_COMPUTE")
        vk.vkCmdBindPipeline(cmd, point, self.pipeline)
        vk.vkCmdBindDescriptorSets(cmd, point, self.layout, 0, 1, [descriptor_set], 0, None)

    def push(self, cmd: Any, data: bytes) -> None:
        """Push constants (std430 layout, values copied at record time)."""
        buf = ffi.new("uint8_t[]", data)
        vk.vkCmdPushConstants(cmd, self.layout, flag("VK_SHADER_STAGE_COMPUTE_BIT"), 0,
                              len(data), buf)

    def destroy(self) -> None:
        dev = self.ctx.device
        self.ctx.compile_ahead.forget([self.pipeline])
        vk.vkDestroyPipeline(dev, self.pipeline, None)
        vk.vkDestroyPipelineLayout(dev, self.layout, None)
        vk.vkDestroyDescriptorSetLayout(dev, self.set_layout, None)


def closing_cache(ctx: GpuContext, name: str, destroy: Callable[[Any], None]) -> dict[Any, Any]:
    """``ctx.caches[name]``, a dict made on first use whose values ``destroy`` frees when the
    context closes (before the device goes)."""
    if name not in ctx.caches:
        cache: dict[Any, Any] = {}
        ctx.caches[name] = cache

        def destroy_all() -> None:
            for value in cache.values():
                destroy(value)
            cache.clear()
        ctx.on_close(destroy_all)
    return ctx.caches[name]


def get_pipeline(ctx: GpuContext, shader: ShaderInterface, bindings: tuple[BindingKind, ...],
                 constants: Mapping[str, SpecValue] | None = None,
                 subgroup_size: int | None = None, robust: bool = False) -> ComputePipeline:
    """A cached pipeline of ``shader`` with ``constants`` by GLSL name (the push-constant range
    is the shader's declared block); destroyed when the context closes. ``robust``: robust
    buffer and image access where the device offers it per pipeline."""
    cache: dict[PipelineKey, ComputePipeline] = closing_cache(
        ctx, "pipelines", lambda pipeline: pipeline.destroy())
    key = PipelineKey(shader, tuple(bindings), shader.spec_values(constants or {}), subgroup_size,
                      robust)
    if key not in cache:
        cache[key] = ComputePipeline(ctx, key)
    return cache[key]


def get_sampler(ctx: GpuContext, linear: bool = False, reduction: str | None = None) -> Any:
    """Clamp-to-edge sampler (nearest for texelFetch paths, linear for bilinear loads);
    ``reduction`` "min" or "max": a linear sampler that returns the min or max of the texels it
    weighs instead of their weighted mean (samplerFilterMinmax)."""
    cache: dict[tuple[bool, str | None], Any] = closing_cache(
        ctx, "samplers", lambda sampler: vk.vkDestroySampler(ctx.device, sampler, None))
    key = (linear or reduction is not None, reduction)
    if key not in cache:
        filt = flag("VK_FILTER_LINEAR" if key[0] else "VK_FILTER_NEAREST")
        clamp = flag("VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE")
        chain = None
        if reduction is not None:
            mode = {"min": "VK_SAMPLER_REDUCTION_MODE_MIN", "max": "VK_SAMPLER_REDUCTION_MODE_MAX"}
            chain = vk.VkSamplerReductionModeCreateInfo(reductionMode=flag(mode[reduction]))
        cache[key] = vk.vkCreateSampler(ctx.device, vk.VkSamplerCreateInfo(
            pNext=chain, magFilter=filt, minFilter=filt,
            mipmapMode=flag("VK_SAMPLER_MIPMAP_MODE_NEAREST"), addressModeU=clamp,
            addressModeV=clamp, addressModeW=clamp, maxLod=0.0), None)
    return cache[key]


class DescriptorSets:
    """A pool holding ``count`` sets of one pipeline's layout; freed as a whole. The sets also
    bind with any pipeline of identically defined bindings (Vulkan calls the layouts
    compatible): a strategy with one pipeline per dispatch needs one pool, not one each."""

    def __init__(self, pipeline: ComputePipeline, count: int) -> None:
        self.ctx = pipeline.ctx
        self.pipeline = pipeline
        per_set: dict[str, int] = {}
        for kind, n in map(binding_kind, pipeline.key.bindings):
            per_set[kind] = per_set.get(kind, 0) + n
        sizes = [vk.VkDescriptorPoolSize(type=flag(DESCRIPTOR_KINDS[k]), descriptorCount=count * n)
                 for k, n in sorted(per_set.items())]
        self.pool = vk.vkCreateDescriptorPool(self.ctx.device, vk.VkDescriptorPoolCreateInfo(
            maxSets=count, poolSizeCount=len(sizes), pPoolSizes=sizes), None)
        layouts = [pipeline.set_layout] * count
        self.sets = list(vk.vkAllocateDescriptorSets(self.ctx.device, vk.VkDescriptorSetAllocateInfo(
            descriptorPool=self.pool, descriptorSetCount=count, pSetLayouts=layouts)))

    def write(self, index: int, resources_by_binding: list[Any]) -> None:
        """Fill set ``index``: one entry per binding, in binding order. An entry is an image
        view (storage image), ``(view, sampler)`` (combined sampler), or ``(buffer, offset,
        size)`` (storage/uniform buffer); an array of storage images takes a list of views."""
        general = flag("VK_IMAGE_LAYOUT_GENERAL")
        writes, keep = [], []
        for binding, (entry, res) in enumerate(zip(self.pipeline.key.bindings,
                                                   resources_by_binding, strict=True)):
            kind, n = binding_kind(entry)
            dtype = flag(DESCRIPTOR_KINDS[kind])
            if n > 1:
                if kind != "storage_image" or len(res) != n:
                    raise ValueError(f"binding {binding}: {n} storage images wanted, got {res!r}")
                infos = [vk.VkDescriptorImageInfo(imageView=v, imageLayout=general) for v in res]
                keep.append(infos)
                writes.append(vk.VkWriteDescriptorSet(
                    dstSet=self.sets[index], dstBinding=binding, descriptorCount=n,
                    descriptorType=dtype, pImageInfo=infos))
            elif kind == "sampled":
                view, sampler = res
                info = vk.VkDescriptorImageInfo(sampler=sampler, imageView=view,
                                                imageLayout=general)
                keep.append(info)
                writes.append(vk.VkWriteDescriptorSet(
                    dstSet=self.sets[index], dstBinding=binding, descriptorCount=1,
                    descriptorType=dtype, pImageInfo=[info]))
            elif kind == "storage_image":
                info = vk.VkDescriptorImageInfo(imageView=res, imageLayout=general)
                keep.append(info)
                writes.append(vk.VkWriteDescriptorSet(
                    dstSet=self.sets[index], dstBinding=binding, descriptorCount=1,
                    descriptorType=dtype, pImageInfo=[info]))
            else:
                buffer, offset, size = res
                info = vk.VkDescriptorBufferInfo(buffer=buffer, offset=offset, range=size)
                keep.append(info)
                writes.append(vk.VkWriteDescriptorSet(
                    dstSet=self.sets[index], dstBinding=binding, descriptorCount=1,
                    descriptorType=dtype, pBufferInfo=[info]))
        vk.vkUpdateDescriptorSets(self.ctx.device, len(writes), writes, 0, None)
        self.ctx.compile_ahead.forget([self.sets[index]])  # what it binds may compile otherwise

    def destroy(self) -> None:
        if self.pool is not None:
            self.ctx.compile_ahead.forget(self.sets)
            vk.vkDestroyDescriptorPool(self.ctx.device, self.pool, None)
            self.pool = None
