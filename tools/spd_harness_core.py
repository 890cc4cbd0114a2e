"""The machinery of the independent SPD timing harness (tools/spd_harness.py).

Its Vulkan context, SPD's chain of one size, the timing loop, the float64 reference and the
check, and the report lines: everything both modes of the harness share. The SPD mode
(tools/spd_harness.py) and the chain mode (tools/spd_harness_chain.py) import it; it imports
neither, and nothing of the ``mipview`` package.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import vulkan as vk

ffi = vk.ffi

SHADER = Path(__file__).with_name("spd_harness_cs.comp")
SPD_INCLUDE = Path(__file__).resolve().parents[1] / "third_party" / "ffx_spd"
SPD_MAX_MIPS = 12
# SPD's last group reduces one 64x64 tile of level 6: bigger sources would lose texels there.
SPD_MAX_SIDE = 64 << 6
FORMAT_NAME = "rgba8"
EVICT_MIB = 256  # bigger than any L2 we know of (H100/H200: 50 MB)
# A lavapipe pipeline is compiled by LLVM at its first dispatch, over a minute on a busy machine.
FENCE_TIMEOUT_S = 600.0
API_VERSION = (1 << 22) | (3 << 12)  # VK_MAKE_API_VERSION(0, 1, 3, 0)
VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation"
# 1 LSB: a stored level is its exact mean rounded (<= 0.5), and levels 7.. are made from level 6
# as stored (each <= 0.5 off, so their mean too) and rounded again.
TOLERANCE_LSB = 1.0 + 1e-3


def _flag(name: str) -> int:
    # about 490 VK_* names of the binding are None, and a None keyword is silently dropped
    value = getattr(vk, name)
    if value is None:
        raise RuntimeError(f"the vulkan binding has no value for {name}")
    return value


def _cstr(value: Any) -> str:
    if isinstance(value, str):
        return value
    return ffi.string(value).decode(errors="replace")


# --- SpdSetup ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class SpdSetup:
    """ffx_spd.h's SpdSetup outputs for one rectangle of the source."""

    dispatch: tuple[int, int]           # dispatchThreadGroupCountXY
    work_group_offset: tuple[int, int]  # workGroupOffset
    num_work_groups: int                # numWorkGroupsAndMips[0]
    mips: int                           # numWorkGroupsAndMips[1]: levels below level 0


def spd_setup(rect: tuple[int, int, int, int], mips: int = -1) -> SpdSetup:
    """Port of ``SpdSetup(dispatchThreadGroupCountXY, workGroupOffset, numWorkGroupsAndMips,
    rectInfo, mips)``; ``rect`` is (left, top, width, height), ``mips`` < 0 derives it."""
    left, top, width, height = rect
    offset = (left // 64, top // 64)
    end_x = (left + width - 1) // 64
    end_y = (top + height - 1) // 64
    dispatch = (end_x + 1 - offset[0], end_y + 1 - offset[1])
    if mips < 0:
        # min(floor(log2(max side)), 12); bit_length is the exact floor(log2) of an integer
        mips = min(max(width, height).bit_length() - 1, SPD_MAX_MIPS)
    return SpdSetup(dispatch, offset, dispatch[0] * dispatch[1], mips)


def level_size(width: int, height: int, level: int) -> tuple[int, int]:
    return max(1, width >> level), max(1, height >> level)


def box_exact(width: int, height: int, mips: int) -> bool:
    """Whether every level SPD makes is a 2x2 box of in-range texels of the level above.

    True for square powers of two; also for sizes like 1920x1080 whose sides only turn odd (SPD
    then drops the last row or column, as a truncating box does). False where a level lies below
    a 1-texel side (40x24, 64x32): SPD still pairs that texel with one past the edge.
    """
    return all(min(level_size(width, height, i - 1)) >= 2 for i in range(1, mips + 1))


# --- the numpy reference and the check -------------------------------------------------------

def reference_levels(level0: np.ndarray, mips: int) -> list[np.ndarray]:
    """Levels 1..mips in float64 8-bit units: each the 2x2 box of the one above (odd sides
    truncated, a 1-texel side repeated), i.e. the exact mean of level 0 over its footprint."""
    out: list[np.ndarray] = []
    cur: np.ndarray = level0
    for _ in range(mips):
        h, w = cur.shape[:2]
        oh, ow = max(1, h // 2), max(1, w // 2)
        y0 = np.minimum(2 * np.arange(oh), h - 1)
        y1 = np.minimum(2 * np.arange(oh) + 1, h - 1)
        x0 = np.minimum(2 * np.arange(ow), w - 1)
        x1 = np.minimum(2 * np.arange(ow) + 1, w - 1)
        # level 0 summed in integers: exact, and no float64 copy of a 4096^2 image
        work = cur.astype(np.uint16) if cur.dtype == np.uint8 else cur
        rows = work[y0] + work[y1]
        cur = (rows[:, x0] + rows[:, x1]) / 4.0
        out.append(cur)
    return out


@dataclass
class LevelCheck:
    """Result of :func:`check_levels`; errors in 8-bit LSB."""

    max_error: float
    per_level: list[float]
    worst: tuple[int, int, int, int]  # level, x, y, channel of max_error
    tolerance: float
    passed: bool


def check_levels(levels: list[np.ndarray], reference: list[np.ndarray],
                 tolerance: float = TOLERANCE_LSB) -> LevelCheck:
    """Compare read-back levels 1..N (uint8, h x w x 4) with :func:`reference_levels`."""
    if len(levels) != len(reference):
        raise ValueError(f"{len(levels)} levels against {len(reference)} reference levels")
    per_level: list[float] = []
    worst = (0, 0, 0, 0)
    max_error = -1.0
    for i, (got, ref) in enumerate(zip(levels, reference, strict=True), start=1):
        if got.shape != ref.shape:
            raise ValueError(f"level {i}: shape {got.shape} against {ref.shape}")
        err = np.abs(got.astype(np.float64) - ref)
        flat = int(np.argmax(err))
        level_max = float(err.flat[flat])
        per_level.append(level_max)
        if level_max > max_error:
            max_error = level_max
            y, x, c = np.unravel_index(flat, err.shape)
            worst = (i, int(x), int(y), int(c))
    max_error = max(max_error, 0.0)
    return LevelCheck(max_error, per_level, worst, tolerance, max_error <= tolerance)


def make_level0(width: int, height: int, seed: int = 0) -> np.ndarray:
    """The deterministic test image: uniform random RGBA8, h x w x 4."""
    return np.random.default_rng(seed).integers(0, 256, size=(height, width, 4), dtype=np.uint8)


# --- validation messages -------------------------------------------------------------------------
# The binding routes every messenger created through its struct constructors to the callable of
# the last one made. This harness passes its own C callback instead, so it neither takes over
# nor loses another instance's messages (mipview's tests share the process); the messenger's
# user data picks the sink.
_sinks: dict[int, list[str]] = {}
_sink_keys = itertools.count(1)


@ffi.callback("PFN_vkDebugUtilsMessengerCallbackEXT")
def _on_validation_message(severity: Any, types: Any, data: Any, user: Any) -> int:
    try:
        vuid = _cstr(data.pMessageIdName) if data.pMessageIdName != ffi.NULL else ""
        text = _cstr(data.pMessage)
        sink = _sinks.get(int(ffi.cast("uintptr_t", user)))
        if sink is not None:
            sink.append(f"[{vuid}] {text}" if vuid else text)
    except Exception:  # a raising cffi callback only prints; never let it abort the Vulkan call
        pass
    return 0  # 1 would abort the call


# --- Vulkan context ---------------------------------------------------------------------------

_DEVICE_RANK = {2: 0, 1: 1, 3: 2, 4: 3}  # discrete, integrated, virtual, cpu; other last


class SpdContext:
    """Instance, device, queue and the SPD pipeline, shared by the sizes of one harness run."""

    def __init__(self, device: str | int | None = None, validate: bool = False,
                 robust: bool = False, lds_vec4: bool = False, wave_ops: bool = True) -> None:
        self._init_state()
        try:
            self._create_instance(validate)
            self._pick_device(device)
            self._create_device(robust, wave_ops)
            self._create_pipeline(lds_vec4, wave_ops)
        except BaseException:
            self.close()
            raise

    def _init_state(self) -> None:
        # every handle None first: close() after a failed step destroys only what exists
        self.messages: list[str] = []
        self._keep: list[Any] = []
        self._sink_key = next(_sink_keys)
        self.instance = self.device = self.messenger = None
        self.pool = self.fence = None
        self.set_layout = self.pipeline_layout = self.pipeline = None
        self._evict: tuple[Any, Any] | None = None
        self._evict_bytes = 0

    # creation ---------------------------------------------------------------------------
    def _create_instance(self, validate: bool) -> None:
        layers: list[str] = []
        extensions: list[str] = []
        pnext = None
        if validate:
            names = {_cstr(p.layerName) for p in vk.vkEnumerateInstanceLayerProperties()}
            if VALIDATION_LAYER not in names:
                raise RuntimeError(f"--validate: {VALIDATION_LAYER} is not installed")
            layers, extensions = [VALIDATION_LAYER], ["VK_EXT_debug_utils"]
            _sinks[self._sink_key] = self.messages
            messenger = ffi.new("VkDebugUtilsMessengerCreateInfoEXT*", {
                "sType": _flag("VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT"),
                "messageSeverity": _flag("VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT")
                | _flag("VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT"),
                "messageType": _flag("VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT")
                | _flag("VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT")
                | _flag("VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT"),
                "pfnUserCallback": _on_validation_message,
                "pUserData": ffi.cast("void*", self._sink_key),
            })
            enables = ffi.new("VkValidationFeatureEnableEXT[1]", [
                _flag("VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")])
            features = ffi.new("VkValidationFeaturesEXT*", {
                "sType": _flag("VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT"),
                "pNext": messenger,
                "enabledValidationFeatureCount": 1,
                "pEnabledValidationFeatures": enables,
            })
            # the chained messenger also reports vkCreateInstance and vkDestroyInstance
            self._keep += [messenger, enables, features]
            pnext = features
        app = vk.VkApplicationInfo(pApplicationName="spd_harness", applicationVersion=1,
                                   pEngineName="spd_harness", engineVersion=1,
                                   apiVersion=API_VERSION)
        info = vk.VkInstanceCreateInfo(
            pApplicationInfo=app, enabledLayerCount=len(layers), ppEnabledLayerNames=layers,
            enabledExtensionCount=len(extensions), ppEnabledExtensionNames=extensions,
            pNext=pnext)
        self.instance = vk.vkCreateInstance(info, None)
        if validate:
            create = vk.vkGetInstanceProcAddr(self.instance, "vkCreateDebugUtilsMessengerEXT")
            self.messenger = create(self.instance, self._keep[0], None)

    def _pick_device(self, device: str | int | None) -> None:
        devices = list(vk.vkEnumeratePhysicalDevices(self.instance))
        if not devices:
            raise RuntimeError("no Vulkan device")
        props = [vk.vkGetPhysicalDeviceProperties(pd) for pd in devices]
        names = [_cstr(p.deviceName) for p in props]
        if device is None or device == "":
            index = min(range(len(devices)),
                        key=lambda i: (_DEVICE_RANK.get(int(props[i].deviceType), 9), i))
        elif isinstance(device, int) or str(device).isdigit():
            index = int(device)
            if not 0 <= index < len(devices):
                raise RuntimeError(f"--device {index}: there are {len(devices)} devices "
                                   f"({', '.join(names)})")
        else:
            matches = [i for i, n in enumerate(names) if str(device).lower() in n.lower()]
            if not matches:
                raise RuntimeError(f"--device {device!r} matches none of: {', '.join(names)}")
            index = matches[0]
        self.physical = devices[index]
        p = props[index]
        self.device_name = names[index]
        self.timestamp_period = float(p.limits.timestampPeriod)
        self.api_version = int(p.apiVersion)
        self.device_type = int(p.deviceType)
        self.max_image_side = int(p.limits.maxImageDimension2D)
        driver = ffi.new("VkPhysicalDeviceDriverProperties*", {
            "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES")})
        subgroup = ffi.new("VkPhysicalDeviceSubgroupProperties*", {
            "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES"),
            "pNext": driver})
        p2 = ffi.new("VkPhysicalDeviceProperties2*", {
            "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2"), "pNext": subgroup})
        vk.vkGetPhysicalDeviceProperties2(self.physical, p2)
        info = _cstr(driver.driverInfo)
        self.driver = f"{_cstr(driver.driverName)} {info}".strip()
        self.subgroup_size = int(subgroup.subgroupSize)
        self.subgroup_ops = int(subgroup.supportedOperations)
        self.subgroup_stages = int(subgroup.supportedStages)
        self.quad_in_compute = bool(
            subgroup.supportedOperations & _flag("VK_SUBGROUP_FEATURE_QUAD_BIT")
            and subgroup.supportedStages & _flag("VK_SHADER_STAGE_COMPUTE_BIT"))
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(self.physical)
        compute = _flag("VK_QUEUE_COMPUTE_BIT")
        usable = [i for i, f in enumerate(families)
                  if f.queueFlags & compute and f.timestampValidBits > 0]
        if not usable:
            raise RuntimeError(f"{self.device_name}: no compute queue with timestamps")
        # the first such family: graphics+compute on NVIDIA, where AMD's sample dispatches too
        self.family = usable[0]
        bits = int(families[self.family].timestampValidBits)
        self.timestamp_mask = (1 << bits) - 1

    def _create_device(self, robust: bool, wave_ops: bool) -> None:
        if wave_ops and (not self.quad_in_compute or self.subgroup_size < 4):
            raise RuntimeError(f"{self.device_name}: no subgroup quad operations in compute "
                               "shaders (try --no-wave-ops: SPD_NO_WAVE_OPERATIONS)")
        f13 = ffi.new("VkPhysicalDeviceVulkan13Features*", {
            "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES")})
        f2 = ffi.new("VkPhysicalDeviceFeatures2*", {
            "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2"), "pNext": f13})
        vk.vkGetPhysicalDeviceFeatures2(self.physical, f2)
        # AMD's SpdStore indexes imgDst with the (uniform) level; without the feature the shader
        # takes a switch of constant indices instead (SPD_HARNESS_CONSTANT_INDEX)
        self.dynamic_indexing = bool(f2.features.shaderStorageImageArrayDynamicIndexing)
        enable13 = None
        if robust:
            if not (f2.features.robustBufferAccess and f13.robustImageAccess):
                raise RuntimeError(f"--robust: {self.device_name} lacks robustBufferAccess or "
                                   "robustImageAccess")
            enable13 = ffi.new("VkPhysicalDeviceVulkan13Features*", {
                "sType": _flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES"),
                "robustImageAccess": 1})
            self._keep.append(enable13)
        features = vk.VkPhysicalDeviceFeatures(
            shaderStorageImageArrayDynamicIndexing=int(self.dynamic_indexing),
            robustBufferAccess=int(robust))
        priorities = ffi.new("float[1]", [1.0])
        queue_info = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.family, queueCount=1,
                                                pQueuePriorities=priorities)
        info = vk.VkDeviceCreateInfo(queueCreateInfoCount=1, pQueueCreateInfos=[queue_info],
                                     pEnabledFeatures=features, pNext=enable13)
        self.device = vk.vkCreateDevice(self.physical, info, None)
        self._device_objects()

    def _device_objects(self) -> None:
        """Queue, command pool, fence, memory types; the RGBA8 storage check."""
        self.queue = vk.vkGetDeviceQueue(self.device, self.family, 0)
        self.pool = vk.vkCreateCommandPool(self.device, vk.VkCommandPoolCreateInfo(
            flags=_flag("VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT"),
            queueFamilyIndex=self.family), None)
        self.fence = vk.vkCreateFence(self.device, vk.VkFenceCreateInfo(), None)
        self.memory_types = vk.vkGetPhysicalDeviceMemoryProperties(self.physical)
        fmt = vk.vkGetPhysicalDeviceFormatProperties(self.physical,
                                                     _flag("VK_FORMAT_R8G8B8A8_UNORM"))
        if not fmt.optimalTilingFeatures & _flag("VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT"):
            raise RuntimeError(f"{self.device_name}: R8G8B8A8_UNORM is no storage image")

    def _create_pipeline(self, lds_vec4: bool, wave_ops: bool) -> None:
        defines = []
        if not self.dynamic_indexing:
            defines.append("SPD_HARNESS_CONSTANT_INDEX")
        if lds_vec4:
            defines.append("SPD_HARNESS_LDS_VEC4")
        if not wave_ops:
            defines.append("SPD_NO_WAVE_OPERATIONS")
        self.defines = defines
        spirv = compile_shader(defines)
        storage_image = _flag("VK_DESCRIPTOR_TYPE_STORAGE_IMAGE")
        compute = _flag("VK_SHADER_STAGE_COMPUTE_BIT")
        bindings = [
            vk.VkDescriptorSetLayoutBinding(binding=0, descriptorType=storage_image,
                                            descriptorCount=1, stageFlags=compute),
            vk.VkDescriptorSetLayoutBinding(binding=1, descriptorType=storage_image,
                                            descriptorCount=SPD_MAX_MIPS, stageFlags=compute),
            vk.VkDescriptorSetLayoutBinding(binding=2, descriptorType=storage_image,
                                            descriptorCount=1, stageFlags=compute),
            vk.VkDescriptorSetLayoutBinding(
                binding=3, descriptorType=_flag("VK_DESCRIPTOR_TYPE_STORAGE_BUFFER"),
                descriptorCount=1, stageFlags=compute),
        ]
        layout_info = vk.VkDescriptorSetLayoutCreateInfo(bindingCount=len(bindings),
                                                         pBindings=bindings)
        self.set_layout = vk.vkCreateDescriptorSetLayout(self.device, layout_info, None)
        push = vk.VkPushConstantRange(stageFlags=compute, offset=0, size=16)
        self.pipeline_layout = vk.vkCreatePipelineLayout(self.device, vk.VkPipelineLayoutCreateInfo(
            setLayoutCount=1, pSetLayouts=[self.set_layout], pushConstantRangeCount=1,
            pPushConstantRanges=[push]), None)
        module = vk.vkCreateShaderModule(self.device, vk.VkShaderModuleCreateInfo(
            codeSize=len(spirv), pCode=spirv), None)
        try:
            # bound to names: nested by-value structs built inline lose their pointers
            stage = vk.VkPipelineShaderStageCreateInfo(stage=compute, module=module, pName="main")
            info = vk.VkComputePipelineCreateInfo(stage=stage, layout=self.pipeline_layout)
            self.pipeline = vk.vkCreateComputePipelines(self.device, None, 1, [info], None)[0]
        finally:
            vk.vkDestroyShaderModule(self.device, module, None)

    # helpers ---------------------------------------------------------------------------------
    def memory_type(self, bits: int, wanted: int) -> int:
        for i in range(self.memory_types.memoryTypeCount):
            flags = self.memory_types.memoryTypes[i].propertyFlags
            if bits & (1 << i) and flags & wanted == wanted:
                return i
        raise RuntimeError(f"no memory type with flags {wanted:#x}")

    def descriptor_set(self, sizes: list[Any]) -> tuple[Any, Any]:
        """(pool, set): one set of ``set_layout`` from a pool of these VkDescriptorPoolSizes."""
        pool = vk.vkCreateDescriptorPool(self.device, vk.VkDescriptorPoolCreateInfo(
            maxSets=1, poolSizeCount=len(sizes), pPoolSizes=sizes), None)
        return pool, vk.vkAllocateDescriptorSets(self.device, vk.VkDescriptorSetAllocateInfo(
            descriptorPool=pool, descriptorSetCount=1, pSetLayouts=[self.set_layout]))[0]

    def buffer(self, size: int, usage: int, host: bool = False) -> tuple[Any, Any]:
        buf = vk.vkCreateBuffer(self.device, vk.VkBufferCreateInfo(
            size=size, usage=usage, sharingMode=_flag("VK_SHARING_MODE_EXCLUSIVE")), None)
        req = vk.vkGetBufferMemoryRequirements(self.device, buf)
        wanted = (_flag("VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT")
                  | _flag("VK_MEMORY_PROPERTY_HOST_COHERENT_BIT")) if host \
            else _flag("VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT")
        mem = vk.vkAllocateMemory(self.device, vk.VkMemoryAllocateInfo(
            allocationSize=req.size,
            memoryTypeIndex=self.memory_type(req.memoryTypeBits, wanted)), None)
        vk.vkBindBufferMemory(self.device, buf, mem, 0)
        return buf, mem

    def free_buffer(self, pair: tuple[Any, Any] | None) -> None:
        if pair is not None:
            vk.vkDestroyBuffer(self.device, pair[0], None)
            vk.vkFreeMemory(self.device, pair[1], None)

    def evict_buffer(self, size: int) -> Any:
        """The cache-evicting fill target, made once per context and size."""
        if self._evict is None or self._evict_bytes != size:
            if self._evict is not None:
                vk.vkDeviceWaitIdle(self.device)
                self.free_buffer(self._evict)
            self._evict = self.buffer(size, _flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"))
            self._evict_bytes = size
        return self._evict[0]

    def new_command_buffer(self) -> Any:
        return vk.vkAllocateCommandBuffers(self.device, vk.VkCommandBufferAllocateInfo(
            commandPool=self.pool, level=_flag("VK_COMMAND_BUFFER_LEVEL_PRIMARY"),
            commandBufferCount=1))[0]

    def submit_and_wait(self, cmd: Any, timeout_s: float = FENCE_TIMEOUT_S) -> None:
        vk.vkResetFences(self.device, 1, [self.fence])
        submit = vk.VkSubmitInfo(commandBufferCount=1, pCommandBuffers=[cmd])
        vk.vkQueueSubmit(self.queue, 1, [submit], self.fence)
        deadline = time.perf_counter() + timeout_s
        while True:
            try:
                vk.vkWaitForFences(self.device, 1, [self.fence], vk.VK_TRUE, 1_000_000_000)
                return
            except vk.VkTimeout:
                if time.perf_counter() > deadline:
                    raise TimeoutError(f"GPU work did not finish within {timeout_s:.0f} s") \
                        from None

    def close(self) -> None:
        if self.device is not None:
            vk.vkDeviceWaitIdle(self.device)
            self.free_buffer(self._evict)
            self._evict = None
            if self.pipeline is not None:
                vk.vkDestroyPipeline(self.device, self.pipeline, None)
            if self.pipeline_layout is not None:
                vk.vkDestroyPipelineLayout(self.device, self.pipeline_layout, None)
            if self.set_layout is not None:
                vk.vkDestroyDescriptorSetLayout(self.device, self.set_layout, None)
            if self.fence is not None:
                vk.vkDestroyFence(self.device, self.fence, None)
            if self.pool is not None:
                vk.vkDestroyCommandPool(self.device, self.pool, None)
            vk.vkDestroyDevice(self.device, None)
            self.device = None
        if self.instance is not None:
            if self.messenger is not None:
                destroy = vk.vkGetInstanceProcAddr(self.instance,
                                                   "vkDestroyDebugUtilsMessengerEXT")
                destroy(self.instance, self.messenger, None)
                self.messenger = None
            vk.vkDestroyInstance(self.instance, None)
            self.instance = None
        _sinks.pop(self._sink_key, None)

    def __enter__(self) -> SpdContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def compile_shader(defines: list[str]) -> bytes:
    """SPIR-V of tools/spd_harness_cs.comp (glslc, or $GLSLC)."""
    glslc = os.environ.get("GLSLC", "glslc")
    cmd = [glslc, "-fshader-stage=compute", "--target-env=vulkan1.1", "-O",
           f"-I{SPD_INCLUDE}", *(f"-D{d}" for d in defines), str(SHADER), "-o", "-"]
    try:
        done = subprocess.run(cmd, capture_output=True, check=False)
    except FileNotFoundError:
        raise RuntimeError(f"{glslc} not found (install glslc or set GLSLC)") from None
    if done.returncode != 0:
        raise RuntimeError(f"glslc failed:\n{done.stderr.decode(errors='replace')}")
    return done.stdout


# --- barriers ----------------------------------------------------------------------------------

def _memory_barrier(cmd: Any, src_stage: int, src_access: int, dst_stage: int,
                    dst_access: int) -> None:
    barrier = vk.VkMemoryBarrier(srcAccessMask=src_access, dstAccessMask=dst_access)
    vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, [barrier], 0, None, 0, None)


def _full_barrier(cmd: Any) -> None:
    # everything before (the previous run's dispatch, the eviction fill) ends and is visible
    # before anything after starts
    rw = _flag("VK_ACCESS_MEMORY_READ_BIT") | _flag("VK_ACCESS_MEMORY_WRITE_BIT")
    every = _flag("VK_PIPELINE_STAGE_ALL_COMMANDS_BIT")
    _memory_barrier(cmd, every, rw, every, rw)


def _image_barrier(cmd: Any, image: Any, levels: int, old: int, new: int, src_stage: int,
                   src_access: int, dst_stage: int, dst_access: int) -> None:
    rng = vk.VkImageSubresourceRange(aspectMask=_flag("VK_IMAGE_ASPECT_COLOR_BIT"),
                                     baseMipLevel=0, levelCount=levels, baseArrayLayer=0,
                                     layerCount=1)
    barrier = vk.VkImageMemoryBarrier(
        srcAccessMask=src_access, dstAccessMask=dst_access, oldLayout=old, newLayout=new,
        srcQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED,
        dstQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED, image=image, subresourceRange=rng)
    vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, None, 0, None, 1, [barrier])


# --- one size ------------------------------------------------------------------------------

@dataclass
class SizeResult:
    size: str
    format: str
    cold: bool
    median_us: float | None
    min_us: float | None
    p90_us: float | None
    repeat: int
    device: str
    driver: str
    mips: int
    workgroups: int
    counter_after: int  # SPD's global atomic counter after the runs: 0 if it reset itself
    check_max_lsb: float | None
    check_box_exact: bool
    check_passed: bool | None
    samples_us: list[float] = field(default_factory=list)
    # not serialised: level 0 and the read-back levels 1..mips (uint8, h x w x 4)
    level0: np.ndarray | None = field(default=None, repr=False)
    levels: list[np.ndarray] = field(default_factory=list, repr=False)
    check: LevelCheck | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("level0", "levels", "check"):
            out.pop(key)
        return out


class _SpdChain:
    """The image, views, descriptors and counter of one source size. tools/spd_harness_chain.py
    subclasses it (its own descriptors and runs; upload, read-back and clean-up shared)."""

    # level 0 is a storage image here; the chain mode adds SAMPLED_BIT for its sampler2DArray
    image_usage = ("VK_IMAGE_USAGE_STORAGE_BIT", "VK_IMAGE_USAGE_TRANSFER_SRC_BIT",
                   "VK_IMAGE_USAGE_TRANSFER_DST_BIT")
    counter_bytes = 4  # SPD's one global atomic counter

    def __init__(self, ctx: SpdContext, width: int, height: int) -> None:
        if max(width, height) > SPD_MAX_SIDE or max(width, height) < 2 or min(width, height) < 1:
            raise ValueError(f"{width}x{height}: SPD makes 1..{SPD_MAX_MIPS} levels from "
                             f"sources of 2..{SPD_MAX_SIDE} per side")
        self.ctx = ctx
        self.width, self.height = width, height
        self.setup = spd_setup((0, 0, width, height))
        self.levels = self.setup.mips + 1
        self._build()

    def _build(self) -> None:
        """Every resource None, then made; what was made is destroyed if one fails."""
        self.image = self.memory = self.dummy = self.dummy_memory = None
        self.views: list[Any] = []
        self.dummy_view = None
        self.counter: tuple[Any, Any] | None = None
        self.desc_pool = None
        try:
            self._create()
        except BaseException:
            self.destroy()
            raise

    def _image(self, width: int, height: int, levels: int) -> tuple[Any, Any]:
        dev = self.ctx.device
        usage = 0
        for name in self.image_usage:
            usage |= _flag(name)
        image = vk.vkCreateImage(dev, vk.VkImageCreateInfo(
            imageType=_flag("VK_IMAGE_TYPE_2D"), format=_flag("VK_FORMAT_R8G8B8A8_UNORM"),
            extent=vk.VkExtent3D(width=width, height=height, depth=1), mipLevels=levels,
            arrayLayers=1, samples=_flag("VK_SAMPLE_COUNT_1_BIT"),
            tiling=_flag("VK_IMAGE_TILING_OPTIMAL"), usage=usage,
            sharingMode=_flag("VK_SHARING_MODE_EXCLUSIVE"),
            initialLayout=_flag("VK_IMAGE_LAYOUT_UNDEFINED")), None)
        req = vk.vkGetImageMemoryRequirements(dev, image)
        memory = vk.vkAllocateMemory(dev, vk.VkMemoryAllocateInfo(
            allocationSize=req.size, memoryTypeIndex=self.ctx.memory_type(
                req.memoryTypeBits, _flag("VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT"))), None)
        vk.vkBindImageMemory(dev, image, memory, 0)
        return image, memory

    def _view(self, image: Any, level: int) -> Any:
        rng = vk.VkImageSubresourceRange(aspectMask=_flag("VK_IMAGE_ASPECT_COLOR_BIT"),
                                         baseMipLevel=level, levelCount=1, baseArrayLayer=0,
                                         layerCount=1)
        return vk.vkCreateImageView(self.ctx.device, vk.VkImageViewCreateInfo(
            image=image, viewType=_flag("VK_IMAGE_VIEW_TYPE_2D_ARRAY"),
            format=_flag("VK_FORMAT_R8G8B8A8_UNORM"), subresourceRange=rng), None)

    def _create(self) -> None:
        ctx, dev = self.ctx, self.ctx.device
        self.image, self.memory = self._image(self.width, self.height, self.levels)
        self.views = [self._view(self.image, i) for i in range(self.levels)]
        if self.setup.mips < SPD_MAX_MIPS:
            # imgDst elements past the chain: valid but never touched (AMD: PARTIALLY_BOUND)
            self.dummy, self.dummy_memory = self._image(1, 1, 1)
            self.dummy_view = self._view(self.dummy, 0)
        self.counter = ctx.buffer(self.counter_bytes, _flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
                                  | _flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT")
                                  | _flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT"))
        storage_image = _flag("VK_DESCRIPTOR_TYPE_STORAGE_IMAGE")
        sizes = [vk.VkDescriptorPoolSize(type=storage_image, descriptorCount=SPD_MAX_MIPS + 2),
                 vk.VkDescriptorPoolSize(type=_flag("VK_DESCRIPTOR_TYPE_STORAGE_BUFFER"),
                                         descriptorCount=1)]
        self.desc_pool, self.desc_set = ctx.descriptor_set(sizes)
        general = _flag("VK_IMAGE_LAYOUT_GENERAL")

        def info(view: Any) -> Any:
            return vk.VkDescriptorImageInfo(imageView=view, imageLayout=general)

        dst = [info(self.views[i] if i < self.levels else self.dummy_view)
               for i in range(1, SPD_MAX_MIPS + 1)]
        src_info = [info(self.views[0])]
        # level 6 through the coherent binding: the same view as imgDst[5]
        mid_info = [info(self.views[6] if self.levels > 6 else self.dummy_view)]
        buf_info = [vk.VkDescriptorBufferInfo(buffer=self.counter[0], offset=0, range=4)]
        w0 = vk.VkWriteDescriptorSet(dstSet=self.desc_set, dstBinding=0, descriptorCount=1,
                                     descriptorType=storage_image, pImageInfo=src_info)
        w1 = vk.VkWriteDescriptorSet(dstSet=self.desc_set, dstBinding=1,
                                     descriptorCount=SPD_MAX_MIPS, descriptorType=storage_image,
                                     pImageInfo=dst)
        w2 = vk.VkWriteDescriptorSet(dstSet=self.desc_set, dstBinding=2, descriptorCount=1,
                                     descriptorType=storage_image, pImageInfo=mid_info)
        w3 = vk.VkWriteDescriptorSet(dstSet=self.desc_set, dstBinding=3, descriptorCount=1,
                                     descriptorType=_flag("VK_DESCRIPTOR_TYPE_STORAGE_BUFFER"),
                                     pBufferInfo=buf_info)
        vk.vkUpdateDescriptorSets(dev, 4, [w0, w1, w2, w3], 0, None)

    def upload(self, level0: np.ndarray) -> None:
        """Level 0 from ``level0``, a sentinel colour in levels 1.. (so a level SPD never wrote
        stands out), the counter zeroed (the only time: SPD resets it), everything GENERAL."""
        ctx, dev = self.ctx, self.ctx.device
        data = np.ascontiguousarray(level0, dtype=np.uint8)
        staging = ctx.buffer(data.nbytes, _flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT"), host=True)
        cmd = ctx.new_command_buffer()
        try:
            mapped = vk.vkMapMemory(dev, staging[1], 0, data.nbytes, 0)
            np.frombuffer(mapped, np.uint8, count=data.nbytes)[:] = data.reshape(-1)
            del mapped  # a view used after unmap segfaults
            vk.vkUnmapMemory(dev, staging[1])
            vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(
                flags=_flag("VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT")))
            top = _flag("VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT")
            transfer = _flag("VK_PIPELINE_STAGE_TRANSFER_BIT")
            compute = _flag("VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT")
            write = _flag("VK_ACCESS_TRANSFER_WRITE_BIT")
            shader_rw = _flag("VK_ACCESS_SHADER_READ_BIT") | _flag("VK_ACCESS_SHADER_WRITE_BIT")
            undefined = _flag("VK_IMAGE_LAYOUT_UNDEFINED")
            dst_opt = _flag("VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL")
            general = _flag("VK_IMAGE_LAYOUT_GENERAL")
            _image_barrier(cmd, self.image, self.levels, undefined, dst_opt, top, 0, transfer,
                           write)
            sub = vk.VkImageSubresourceLayers(aspectMask=_flag("VK_IMAGE_ASPECT_COLOR_BIT"),
                                              mipLevel=0, baseArrayLayer=0, layerCount=1)
            region = vk.VkBufferImageCopy(
                bufferOffset=0, bufferRowLength=0, bufferImageHeight=0, imageSubresource=sub,
                imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
                imageExtent=vk.VkExtent3D(width=self.width, height=self.height, depth=1))
            vk.vkCmdCopyBufferToImage(cmd, staging[0], self.image, dst_opt, 1, [region])
            if self.levels > 1:
                colour = vk.VkClearColorValue(float32=[1.0, 0.0, 1.0, 1.0])
                rng = vk.VkImageSubresourceRange(
                    aspectMask=_flag("VK_IMAGE_ASPECT_COLOR_BIT"), baseMipLevel=1,
                    levelCount=self.levels - 1, baseArrayLayer=0, layerCount=1)
                vk.vkCmdClearColorImage(cmd, self.image, dst_opt, colour, 1, [rng])
            vk.vkCmdFillBuffer(cmd, self.counter[0], 0, self.counter_bytes, 0)
            _image_barrier(cmd, self.image, self.levels, dst_opt, general, transfer, write,
                           compute, shader_rw)
            if self.dummy is not None:
                _image_barrier(cmd, self.dummy, 1, undefined, general, top, 0, compute,
                               shader_rw)
            _memory_barrier(cmd, transfer, write, compute, shader_rw)  # the counter
            vk.vkEndCommandBuffer(cmd)
            ctx.submit_and_wait(cmd)
        finally:
            vk.vkDeviceWaitIdle(dev)
            vk.vkFreeCommandBuffers(dev, ctx.pool, 1, [cmd])
            ctx.free_buffer(staging)

    def record_runs(self, cmd: Any, queries: Any, repeat: int, evict: Any,
                    evict_bytes: int) -> None:
        """``repeat`` runs, each [eviction] + stamp + SPD dispatch + stamp (queries 2r, 2r+1)."""
        ctx = self.ctx
        vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo())
        # reset inside the command buffer, so that it can be resubmitted unchanged
        vk.vkCmdResetQueryPool(cmd, queries, 0, 2 * repeat)
        vk.vkCmdBindPipeline(cmd, _flag("VK_PIPELINE_BIND_POINT_COMPUTE"), ctx.pipeline)
        vk.vkCmdBindDescriptorSets(cmd, _flag("VK_PIPELINE_BIND_POINT_COMPUTE"),
                                   ctx.pipeline_layout, 0, 1, [self.desc_set], 0, None)
        s = self.setup
        push = ffi.new("uint32_t[4]", [s.mips, s.num_work_groups, *s.work_group_offset])
        vk.vkCmdPushConstants(cmd, ctx.pipeline_layout, _flag("VK_SHADER_STAGE_COMPUTE_BIT"),
                              0, 16, push)
        bottom = _flag("VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT")
        for r in range(repeat):
            # orders this run after the previous one (same images, same counter)
            _full_barrier(cmd)
            if evict is not None:
                vk.vkCmdFillBuffer(cmd, evict, 0, evict_bytes, r & 0xFF)
                _full_barrier(cmd)
            # BOTTOM_OF_PIPE after the barrier: the stamp waits for everything before it (the
            # fill), while a TOP_OF_PIPE stamp may fire before the fill is done
            vk.vkCmdWriteTimestamp(cmd, bottom, queries, 2 * r)
            vk.vkCmdDispatch(cmd, s.dispatch[0], s.dispatch[1], 1)
            vk.vkCmdWriteTimestamp(cmd, bottom, queries, 2 * r + 1)
        vk.vkEndCommandBuffer(cmd)

    def read_back(self) -> tuple[list[np.ndarray], int]:
        """Every level, 0..mips, as uint8 h x w x 4, and the counter (0 if SPD reset it); the
        last use of the chain."""
        levels, counters = self.read_back_counters()
        return levels, int(counters[0])

    def read_back_counters(self) -> tuple[list[np.ndarray], np.ndarray]:
        """Every level, 0..levels-1, as uint8 h x w x 4, and the counter buffer as uint32."""
        ctx, dev = self.ctx, self.ctx.device
        sizes = [level_size(self.width, self.height, i) for i in range(self.levels)]
        offsets = list(itertools.accumulate((w * h * 4 for w, h in sizes), initial=0))
        total = offsets[-1] + self.counter_bytes  # the counters after the levels
        host = ctx.buffer(total, _flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"), host=True)
        cmd = ctx.new_command_buffer()
        try:
            vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(
                flags=_flag("VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT")))
            # the chain is destroyed after this: no way back to GENERAL needed
            src_opt = _flag("VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL")
            _image_barrier(cmd, self.image, self.levels, _flag("VK_IMAGE_LAYOUT_GENERAL"),
                           src_opt, _flag("VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT"),
                           _flag("VK_ACCESS_SHADER_WRITE_BIT"),
                           _flag("VK_PIPELINE_STAGE_TRANSFER_BIT"),
                           _flag("VK_ACCESS_TRANSFER_READ_BIT"))
            # the counters: written by the shader's atomics (self-reset) or by a fill
            _memory_barrier(cmd, _flag("VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT")
                            | _flag("VK_PIPELINE_STAGE_TRANSFER_BIT"),
                            _flag("VK_ACCESS_SHADER_WRITE_BIT")
                            | _flag("VK_ACCESS_TRANSFER_WRITE_BIT"),
                            _flag("VK_PIPELINE_STAGE_TRANSFER_BIT"),
                            _flag("VK_ACCESS_TRANSFER_READ_BIT"))
            regions = []
            for i, (w, h) in enumerate(sizes):
                sub = vk.VkImageSubresourceLayers(aspectMask=_flag("VK_IMAGE_ASPECT_COLOR_BIT"),
                                                  mipLevel=i, baseArrayLayer=0, layerCount=1)
                regions.append(vk.VkBufferImageCopy(
                    bufferOffset=offsets[i], bufferRowLength=0, bufferImageHeight=0,
                    imageSubresource=sub, imageOffset=vk.VkOffset3D(x=0, y=0, z=0),
                    imageExtent=vk.VkExtent3D(width=w, height=h, depth=1)))
            vk.vkCmdCopyImageToBuffer(cmd, self.image, src_opt, host[0], len(regions), regions)
            counter = vk.VkBufferCopy(srcOffset=0, dstOffset=offsets[-1],
                                      size=self.counter_bytes)
            vk.vkCmdCopyBuffer(cmd, self.counter[0], host[0], 1, [counter])
            _memory_barrier(cmd, _flag("VK_PIPELINE_STAGE_TRANSFER_BIT"),
                            _flag("VK_ACCESS_TRANSFER_WRITE_BIT"),
                            _flag("VK_PIPELINE_STAGE_HOST_BIT"), _flag("VK_ACCESS_HOST_READ_BIT"))
            vk.vkEndCommandBuffer(cmd)
            ctx.submit_and_wait(cmd)
            mapped = vk.vkMapMemory(dev, host[1], 0, total, 0)
            raw = np.frombuffer(mapped, np.uint8, count=total).copy()
            del mapped
            vk.vkUnmapMemory(dev, host[1])
        finally:
            vk.vkDeviceWaitIdle(dev)
            vk.vkFreeCommandBuffers(dev, ctx.pool, 1, [cmd])
            ctx.free_buffer(host)
        levels = [raw[offsets[i]:offsets[i + 1]].reshape(h, w, 4)
                  for i, (w, h) in enumerate(sizes)]
        return levels, raw[offsets[-1]:].view(np.uint32).copy()

    def destroy(self) -> None:
        dev = self.ctx.device
        vk.vkDeviceWaitIdle(dev)
        if self.desc_pool is not None:
            vk.vkDestroyDescriptorPool(dev, self.desc_pool, None)
        for view in [*self.views, self.dummy_view]:
            if view is not None:
                vk.vkDestroyImageView(dev, view, None)
        self.views, self.dummy_view, self.desc_pool = [], None, None
        for image, memory in ((self.image, self.memory), (self.dummy, self.dummy_memory)):
            if image is not None:
                vk.vkDestroyImage(dev, image, None)
                vk.vkFreeMemory(dev, memory, None)
        self.image = self.dummy = None
        self.ctx.free_buffer(self.counter)
        self.counter = None


def timed_samples(ctx: SpdContext, chain: Any, repeat: int, warmup_ms: float, cold: bool,
                  evict_mib: int) -> list[float]:
    """``repeat`` runs of ``chain`` (its ``record_runs``) in one command buffer, resubmitted for
    ``warmup_ms`` of wall time first; each run's GPU time in microseconds."""
    dev = ctx.device
    queries = cmd = None
    try:
        evict_bytes = evict_mib << 20
        evict = ctx.evict_buffer(evict_bytes) if cold else None
        queries = vk.vkCreateQueryPool(dev, vk.VkQueryPoolCreateInfo(
            queryType=_flag("VK_QUERY_TYPE_TIMESTAMP"), queryCount=2 * repeat), None)
        cmd = ctx.new_command_buffer()
        chain.record_runs(cmd, queries, repeat, evict, evict_bytes)
        # warm-up by time: clocks ramp up only under sustained load
        start = time.perf_counter()
        while (time.perf_counter() - start) * 1e3 < warmup_ms:
            ctx.submit_and_wait(cmd)
        ctx.submit_and_wait(cmd)
        stamps = ffi.new(f"uint64_t[{2 * repeat}]")
        vk.vkGetQueryPoolResults(dev, queries, 0, 2 * repeat, 8 * 2 * repeat, stamps, 8,
                                 _flag("VK_QUERY_RESULT_64_BIT")
                                 | _flag("VK_QUERY_RESULT_WAIT_BIT"))
        return [((int(stamps[2 * r + 1]) - int(stamps[2 * r])) & ctx.timestamp_mask)
                * ctx.timestamp_period / 1000.0 for r in range(repeat)]
    finally:
        vk.vkDeviceWaitIdle(dev)
        if cmd is not None:
            vk.vkFreeCommandBuffers(dev, ctx.pool, 1, [cmd])
        if queries is not None:
            vk.vkDestroyQueryPool(dev, queries, None)


def check_text(r: SizeResult, counter: str,
               below_one: str = "where SPD averages texels past the edge") -> str:
    """The ``check:`` line of a result; ``counter``: what to add about the counters ("" if
    nothing is wrong); ``below_one``: why a level below a 1-texel side is not judged."""
    c = r.check
    if c is None:
        return "check: skipped"
    level, x, y, ch = c.worst
    where = f"worst level {level} ({x},{y}) channel {ch}"
    per = " ".join(f"{e:.2f}" for e in c.per_level)
    if r.check_box_exact:
        # 1 + 1e-3 reads "1"; the chain mode's 0.5625 keeps its digits
        limit = f"{c.tolerance:.0f}" if abs(c.tolerance - round(c.tolerance)) < 0.01 \
            else f"{c.tolerance:.4g}"
        verdict = (f"limit {limit} LSB vs the float64 2x2-box chain: "
                   f"{'ok' if c.passed else 'FAIL'}")
    else:
        verdict = f"a level lies below a 1-texel side, {below_one}: reported only"
    return (f"check: max |error| over levels = {c.max_error:.2f} (in 8-bit LSB; {verdict}; "
            f"{where}; per level {per}){counter}")




def report_size(label: str, r: SizeResult, check_line: str) -> bool:
    """Print one size's timing and check lines; True when it failed (its check, or a counter
    left non-zero)."""
    if r.median_us is not None:
        state = "cold" if r.cold else "warm"
        print(f"{label} {r.size} {r.format} {state}: median {r.median_us:.1f} us "
              f"(min {r.min_us:.1f}, p90 {r.p90_us:.1f}), {r.repeat} runs, device {r.device}",
              flush=True)
    print(f"  {check_line}", flush=True)
    return r.check_passed is False or r.counter_after != 0


def finish(results: list, messages: list[str], json_path: Path | None, failed: bool) -> int:
    """The validation messages on stderr, the JSON if asked; the exit code (1: anything
    failed, a validation message included)."""
    if messages:
        failed = True
        print(f"validation: {len(messages)} message(s)", file=sys.stderr)
        for m in messages[:20]:
            print(f"  {m}", file=sys.stderr)
    if json_path is not None:
        json_path.write_text(json.dumps([r.to_json() for r in results], indent=1) + "\n")
    return 1 if failed else 0
