"""Vulkan instance, device choice, queue, and the capabilities strategies ask about.

One :class:`GpuContext` owns one logical device. Every call on it must come from the thread that
created it (the CLI's main thread, or the UI's worker thread).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.results import DeviceSummary
from mipview.gpu.vulkan import pipeline_stats
from mipview.gpu.vulkan.compile_ahead import CompileAhead
from mipview.gpu.vulkan.pipeline_cache import DeviceIdentity, PipelineCache
from mipview.gpu.vulkan.vkapi import VulkanUnavailable, cstr, ffi, flag, require_vulkan, vk

VALIDATION_LAYER = "VK_LAYER_KHRONOS_validation"
_API_VERSION = (1 << 22) | (3 << 12)  # VK_MAKE_API_VERSION(0, 1, 3, 0)

_DEVICE_TYPES = {0: "other", 1: "integrated", 2: "discrete", 3: "virtual", 4: "cpu"}
# discrete > integrated > virtual > cpu (lavapipe) > other
_TYPE_RANK = {"discrete": 0, "integrated": 1, "virtual": 2, "cpu": 3, "other": 4}

_SUBGROUP_OPS = [
    ("basic", 0x1), ("vote", 0x2), ("arithmetic", 0x4), ("ballot", 0x8), ("shuffle", 0x10),
    ("shuffle_relative", 0x20), ("clustered", 0x40), ("quad", 0x80),
]


def _version(v: int) -> str:
    return f"{v >> 22 & 0x7F}.{v >> 12 & 0x3FF}.{v & 0xFFF}"


def _driver_version(vendor_id: int, v: int) -> str:
    if vendor_id == 0x10DE:  # NVIDIA packs 10.8.8.6 bits
        return f"{v >> 22 & 0x3FF}.{v >> 14 & 0xFF}.{v >> 6 & 0xFF}.{v & 0x3F}"
    return _version(v)


@dataclass(frozen=True)
class DeviceCaps:
    """Everything mipview wants to know about one physical device."""

    index: int
    name: str
    device_type: str
    vendor_id: int
    api_version: str
    driver_name: str
    driver_info: str
    driver_version: str
    subgroup_size: int
    subgroup_ops: tuple[str, ...]
    subgroup_in_compute: bool
    #: VK_EXT_subgroup_size_control / Vulkan 1.3: (min, max), or None when not supported
    subgroup_size_range: tuple[int, int] | None
    timestamp_period_ns: float
    timestamp_bits: int
    has_graphics: bool
    queue_family: int
    max_image_dimension_2d: int
    max_image_array_layers: int
    max_shared_memory: int
    max_workgroup_invocations: int
    max_push_constants: int
    shader_float16: bool
    shader_int64: bool
    int64_buffer_atomics: bool
    storage_write_without_format: bool
    host_query_reset: bool
    vulkan_memory_model: bool
    #: Format -> optimal-tiling feature bits
    format_features: dict[Format, int] = field(default_factory=dict, compare=False)
    #: optimal-tiling features of the level-0 image of a depth-source format (``d32``)
    source_features: dict[Format, int] = field(default_factory=dict, compare=False)
    #: how custom strategies get robust buffer and image access (docs/custom-strategies.md):
    #: "pipeline" (VK_EXT_pipeline_robustness, their pipelines only), "device" (enabled for the
    #: whole device: CPU devices without the extension), or "none"
    robustness: str = "none"
    device_id: int = 0
    #: VkPhysicalDeviceIDProperties.deviceUUID and the pipelineCacheUUID, hex: what a saved
    #: pipeline cache is kept and checked by (mipview.gpu.vulkan.pipeline_cache)
    device_uuid: str = ""
    pipeline_cache_uuid: str = ""
    #: Vulkan 1.2 samplerFilterMinmax: samplers that return the min or max of their footprint
    sampler_minmax: bool = False
    #: the largest side of a 3D image (volumes); Vulkan requires at least 256
    max_image_dimension_3d: int = 256

    @property
    def driver(self) -> str:
        info = f" ({self.driver_info})" if self.driver_info else ""
        return f"{self.driver_name} {self.driver_version}{info}".strip()

    @property
    def identity(self) -> DeviceIdentity:
        return DeviceIdentity(self.vendor_id, self.device_id, self.device_uuid,
                              self.pipeline_cache_uuid, self.driver_version)

    def has_subgroup_op(self, op: str) -> bool:
        return self.subgroup_in_compute and op in self.subgroup_ops

    def supports(self, fmt: Format, feature_bits: int) -> bool:
        return self.format_features.get(fmt, 0) & feature_bits == feature_bits

    def supports_source(self, fmt: Format, feature_bits: int) -> bool:
        """:meth:`supports` of level 0's own image (the depth image of ``d32``)."""
        if not fmt.depth_source:
            return self.supports(fmt, feature_bits)
        return self.source_features.get(fmt, 0) & feature_bits == feature_bits

    def summary(self) -> DeviceSummary:
        return DeviceSummary(self.name, self.device_type, self.driver, self.api_version,
                             self.subgroup_size, self.driver_name, self.driver_version,
                             self.driver_info)

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index, "name": self.name, "type": self.device_type,
            "api_version": self.api_version, "driver": self.driver,
            "subgroup_size": self.subgroup_size, "subgroup_ops": list(self.subgroup_ops),
            "subgroup_size_range": self.subgroup_size_range,
            "timestamp_period_ns": self.timestamp_period_ns,
            "timestamp_bits": self.timestamp_bits, "graphics_queue": self.has_graphics,
            "max_image_dimension_2d": self.max_image_dimension_2d,
            "max_shared_memory": self.max_shared_memory,
            "max_workgroup_invocations": self.max_workgroup_invocations,
            "shader_float16": self.shader_float16, "int64_buffer_atomics": self.int64_buffer_atomics,
            "robustness": self.robustness,
        }


# --- validation messages -------------------------------------------------------------------
# The binding routes every messenger to the callable of the most recent create-info, so one
# process-wide dispatcher forwards each message to the sink of the instance that reported it,
# found by the messenger's user data (a key from _sink_keys; the binding drops a 0).
_sinks: dict[int, list[str]] = {}
_sinks_lock = threading.Lock()
_sink_keys = itertools.count(1)


def _debug_callback(severity: int, types: int, data: Any, user: Any) -> int:
    try:
        vuid = cstr(data.pMessageIdName) if data.pMessageIdName != ffi.NULL else ""
        text = cstr(data.pMessage)
        message = f"[{vuid}] {text}" if vuid else text
        key = int(ffi.cast("uintptr_t", user)) if user is not None else 0
        with _sinks_lock:
            sink = _sinks.get(key)
            # no known key: better every listener than none
            for target in [sink] if sink is not None else _sinks.values():
                target.append(message)
    except Exception:  # a raising cffi callback only prints; never let it abort the Vulkan call
        pass
    return 0  # returning 1 would abort the call (and the binding raises KeyError)


def _messenger_info(key: int) -> Any:
    return vk.VkDebugUtilsMessengerCreateInfoEXT(
        messageSeverity=flag("VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT")
        | flag("VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT"),
        messageType=flag("VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT")
        | flag("VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT")
        | flag("VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT"),
        pfnUserCallback=_debug_callback,
        pUserData=key,
    )


def validation_available() -> bool:
    require_vulkan()
    return any(cstr(p.layerName) == VALIDATION_LAYER
               for p in vk.vkEnumerateInstanceLayerProperties())


def env_validate() -> bool:
    return os.environ.get("MIPVIEW_VALIDATE", "").lower() in ("1", "true", "yes", "on")


DEFAULT_TIMEOUT_S = 60.0
#: how often a wait that reports its progress wakes up
_POLL_S = 0.25


def env_timeout() -> float:
    """``MIPVIEW_GPU_TIMEOUT`` seconds, else :data:`DEFAULT_TIMEOUT_S`."""
    text = os.environ.get("MIPVIEW_GPU_TIMEOUT", "")
    try:
        return float(text) if text else DEFAULT_TIMEOUT_S
    except ValueError:
        raise VulkanUnavailable(f"MIPVIEW_GPU_TIMEOUT={text!r} is not a number of seconds") \
            from None


class GpuTimeout(MipviewError):
    """A submit that did not finish within the context's timeout, or a lost device: the context
    cannot be used any more (make a new one)."""


class _Instance:
    """A VkInstance, optionally with the validation layer and a messenger feeding ``sink``.

    ``sink`` keeps receiving until :meth:`destroy` returns: the messenger is destroyed after
    everything else on the instance, and the messenger chained into the instance's create-info
    covers vkDestroyInstance itself, so what the layer reports at teardown (leaked objects)
    lands in ``sink`` too.
    """

    def __init__(self, validate: bool, sink: list[str]) -> None:
        require_vulkan()
        self.handle = None
        self.messenger = None
        self._keep: list[Any] = []
        self._sink_key = next(_sink_keys)
        layers: list[str] = []
        extensions: list[str] = []
        pnext = None
        if validate:
            if not validation_available():
                raise VulkanUnavailable(
                    "validation requested but VK_LAYER_KHRONOS_validation is not installed "
                    "(Debian: apt install vulkan-validationlayers)")
            layers = [VALIDATION_LAYER]
            extensions = ["VK_EXT_debug_utils"]
            messenger_info = _messenger_info(self._sink_key)
            sync = ffi.new("VkValidationFeatureEnableEXT[1]",
                           [flag("VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")])
            features = vk.VkValidationFeaturesEXT(
                enabledValidationFeatureCount=1, pEnabledValidationFeatures=sync,
                pNext=messenger_info)
            self._keep += [messenger_info, sync, features]
            pnext = features
        app = vk.VkApplicationInfo(pApplicationName="mipview", applicationVersion=1,
                                   pEngineName="mipview", engineVersion=1,
                                   apiVersion=_API_VERSION)
        info = vk.VkInstanceCreateInfo(
            pApplicationInfo=app, enabledLayerCount=len(layers), ppEnabledLayerNames=layers,
            enabledExtensionCount=len(extensions), ppEnabledExtensionNames=extensions,
            pNext=pnext)
        with _sinks_lock:
            _sinks[self._sink_key] = sink
        try:
            self.handle = vk.vkCreateInstance(info, None)
        except vk.VkError as exc:
            self._unregister()
            raise VulkanUnavailable(f"cannot create a Vulkan instance: {exc!r}") from exc
        if validate:
            create = vk.vkGetInstanceProcAddr(self.handle, "vkCreateDebugUtilsMessengerEXT")
            self.messenger = create(self.handle, self._keep[0], None)

    def _unregister(self) -> None:
        with _sinks_lock:
            _sinks.pop(self._sink_key, None)

    def physical_devices(self) -> list[Any]:
        try:
            return list(vk.vkEnumeratePhysicalDevices(self.handle))
        except vk.VkError:
            return []

    def destroy(self) -> None:
        if self.messenger is not None:
            destroy = vk.vkGetInstanceProcAddr(self.handle, "vkDestroyDebugUtilsMessengerEXT")
            destroy(self.handle, self.messenger, None)
            self.messenger = None
        if self.handle is not None:
            vk.vkDestroyInstance(self.handle, None)
            self.handle = None
        self._unregister()


def _pick_queue_family(pd: Any) -> tuple[int, bool, int]:
    """(family, has_graphics, timestamp bits): prefer graphics+compute (blit needs graphics)."""
    best: tuple[int, bool, int] | None = None
    for i, q in enumerate(vk.vkGetPhysicalDeviceQueueFamilyProperties(pd)):
        compute = bool(q.queueFlags & flag("VK_QUEUE_COMPUTE_BIT"))
        graphics = bool(q.queueFlags & flag("VK_QUEUE_GRAPHICS_BIT"))
        if not compute:
            continue
        cand = (i, graphics, int(q.timestampValidBits))
        if best is None or (graphics and not best[1]) or (cand[2] and not best[2]):
            best = cand
    if best is None:
        raise VulkanUnavailable("device has no compute queue")
    return best


def _query_caps(index: int, pd: Any) -> DeviceCaps:
    sg = ffi.new("VkPhysicalDeviceSubgroupProperties*",
                 {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES")})
    drv = ffi.new("VkPhysicalDeviceDriverProperties*",
                  {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES")})
    ssc = ffi.new("VkPhysicalDeviceSubgroupSizeControlProperties*",
                  {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES")})
    ids = ffi.new("VkPhysicalDeviceIDProperties*",
                  {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES")})
    sg.pNext = drv
    drv.pNext = ssc
    ssc.pNext = ids
    props2 = ffi.new("VkPhysicalDeviceProperties2*",
                     {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2"),
                      "pNext": sg})
    vk.vkGetPhysicalDeviceProperties2(pd, props2)
    p = props2.properties
    api = int(p.apiVersion)

    f12 = ffi.new("VkPhysicalDeviceVulkan12Features*",
                  {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES")})
    f13 = ffi.new("VkPhysicalDeviceVulkan13Features*",
                  {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES")})
    if api >= _API_VERSION:
        f12.pNext = f13
    feats2 = ffi.new("VkPhysicalDeviceFeatures2*",
                     {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2"), "pNext": f12})
    robust_pipeline = None
    if _PIPELINE_ROBUSTNESS in _device_extensions(pd):
        robust_pipeline = ffi.new("VkPhysicalDevicePipelineRobustnessFeaturesEXT*", {
            "sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT"),
            "pNext": f12.pNext})
        f12.pNext = robust_pipeline
    vk.vkGetPhysicalDeviceFeatures2(pd, feats2)
    core = feats2.features

    family, graphics, ts_bits = _pick_queue_family(pd)
    compute_stage = flag("VK_SHADER_STAGE_COMPUTE_BIT")
    ops = tuple(n for n, bit in _SUBGROUP_OPS if sg.supportedOperations & bit)
    size_range = None
    if api >= _API_VERSION and f13.subgroupSizeControl and (
            ssc.requiredSubgroupSizeStages & compute_stage):
        size_range = (int(ssc.minSubgroupSize), int(ssc.maxSubgroupSize))
    fmt_features, source_features = {}, {}
    for fmt in Format:
        fp = vk.vkGetPhysicalDeviceFormatProperties(pd, fmt.info.vk_format)
        fmt_features[fmt] = int(fp.optimalTilingFeatures)
        if fmt.depth_source:
            fp = vk.vkGetPhysicalDeviceFormatProperties(pd, fmt.info.vk_source_format)
            source_features[fmt] = int(fp.optimalTilingFeatures)
    limits = p.limits
    return DeviceCaps(
        index=index, name=cstr(p.deviceName),
        device_type=_DEVICE_TYPES.get(int(p.deviceType), "other"),
        vendor_id=int(p.vendorID), api_version=_version(api),
        driver_name=cstr(drv.driverName), driver_info=cstr(drv.driverInfo),
        driver_version=_driver_version(int(p.vendorID), int(p.driverVersion)),
        subgroup_size=int(sg.subgroupSize), subgroup_ops=ops,
        subgroup_in_compute=bool(sg.supportedStages & compute_stage),
        subgroup_size_range=size_range,
        timestamp_period_ns=float(limits.timestampPeriod), timestamp_bits=ts_bits,
        has_graphics=graphics, queue_family=family,
        max_image_dimension_2d=int(limits.maxImageDimension2D),
        max_image_dimension_3d=int(limits.maxImageDimension3D),
        max_image_array_layers=int(limits.maxImageArrayLayers),
        max_shared_memory=int(limits.maxComputeSharedMemorySize),
        max_workgroup_invocations=int(limits.maxComputeWorkGroupInvocations),
        max_push_constants=int(limits.maxPushConstantsSize),
        shader_float16=bool(f12.shaderFloat16), shader_int64=bool(core.shaderInt64),
        int64_buffer_atomics=bool(f12.shaderBufferInt64Atomics),
        storage_write_without_format=bool(core.shaderStorageImageWriteWithoutFormat),
        host_query_reset=bool(f12.hostQueryReset),
        vulkan_memory_model=bool(f12.vulkanMemoryModel and f12.vulkanMemoryModelDeviceScope),
        format_features=fmt_features, source_features=source_features,
        robustness=_robustness(
            _DEVICE_TYPES.get(int(p.deviceType), "other"),
            bool(robust_pipeline is not None and robust_pipeline.pipelineRobustness),
            bool(core.robustBufferAccess),
            bool(api >= _API_VERSION and f13.robustImageAccess)),
        device_id=int(p.deviceID),
        device_uuid=bytes(ids.deviceUUID).hex(),
        pipeline_cache_uuid=bytes(p.pipelineCacheUUID).hex(),
        sampler_minmax=bool(f12.samplerFilterMinmax),
    )


_PIPELINE_ROBUSTNESS = "VK_EXT_pipeline_robustness"


def _device_extensions(pd: Any) -> set[str]:
    return {cstr(e.extensionName) for e in vk.vkEnumerateDeviceExtensionProperties(pd, None)}


def _robustness(device_type: str, pipeline: bool, buffer: bool, image: bool) -> str:
    """Per pipeline where the device offers it, so built-in strategies keep their speed; for the
    whole device on a CPU device without it (lavapipe: built-in timings did not move,
    docs/custom-strategies.md); else none."""
    if not (buffer and image):
        return "none"
    if pipeline:
        return "pipeline"
    return "device" if device_type == "cpu" else "none"


def list_devices() -> list[DeviceCaps]:
    """Every Vulkan physical device, in enumeration order (indices are what ``--device`` takes)."""
    sink: list[str] = []
    inst = _Instance(False, sink)
    try:
        return [_query_caps(i, pd) for i, pd in enumerate(inst.physical_devices())]
    finally:
        inst.destroy()


def choose_device(devices: list[DeviceCaps], wanted: str | int | None) -> DeviceCaps:
    """By index or case-insensitive name substring; default: discrete > integrated > CPU."""
    if not devices:
        raise VulkanUnavailable(
            "no Vulkan device found (install a GPU driver, or lavapipe: "
            "apt install mesa-vulkan-drivers)")
    if wanted is None or wanted == "":
        wanted = os.environ.get("MIPVIEW_DEVICE") or None
    if wanted is None:
        return min(devices, key=lambda d: (_TYPE_RANK[d.device_type], d.index))
    text = str(wanted).strip()
    if text.isdigit():
        idx = int(text)
        if idx < len(devices):
            return devices[idx]
        raise VulkanUnavailable(f"no Vulkan device with index {idx} "
                                f"({len(devices)} device(s): 0..{len(devices) - 1})")
    matches = [d for d in devices if text.lower() in d.name.lower()]
    if not matches:
        names = "; ".join(f"{d.index}: {d.name}" for d in devices)
        raise VulkanUnavailable(f"no Vulkan device matches {text!r} (devices: {names})")
    return matches[0]


class GpuContext:
    """Instance + one logical device + one queue + a command pool and a fence for submits."""

    def __init__(self, device: str | int | None = None, validate: bool | None = None,
                 timeout_s: float | None = None) -> None:
        """``timeout_s``: the longest wait for one submit (default :func:`env_timeout`)."""
        require_vulkan()
        self.validate = env_validate() if validate is None else validate
        self.timeout_s = env_timeout() if timeout_s is None else timeout_s
        #: set when a submit ran past the timeout (or the device was lost); see wait_idle
        self.hung: GpuTimeout | None = None
        self._messages: list[str] = []
        self._instance = _Instance(self.validate, self._messages)
        self.device = None
        self.command_pool = None
        self.fence = None
        self.pipeline_cache: PipelineCache | None = None
        try:
            pds = self._instance.physical_devices()
            caps = [_query_caps(i, pd) for i, pd in enumerate(pds)]
            self.caps = choose_device(caps, device)
            self.physical_device = pds[self.caps.index]
            self._create_device()
        except Exception:
            self.close()
            raise
        self.memory_properties = vk.vkGetPhysicalDeviceMemoryProperties(self.physical_device)
        #: pipelines compiled before the submits that use them (outside the timeout)
        self.compile_ahead = CompileAhead(self, self.caps.name)
        #: caches keyed by the modules that own them (pipelines, samplers); destroyed on close
        self.caches: dict[str, Any] = {}
        self._on_close: list[Any] = []

    def on_close(self, callback: Any) -> None:
        """Run ``callback()`` before the device is destroyed (after a wait-idle)."""
        self._on_close.append(callback)

    def _create_device(self) -> None:
        caps = self.caps
        keep: list[Any] = []
        core = vk.VkPhysicalDeviceFeatures(
            shaderStorageImageWriteWithoutFormat=caps.storage_write_without_format,
            shaderInt64=caps.shader_int64, robustBufferAccess=caps.robustness == "device")
        f12 = ffi.new("VkPhysicalDeviceVulkan12Features*",
                      {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES")})
        f12.shaderFloat16 = caps.shader_float16
        f12.hostQueryReset = caps.host_query_reset
        f12.shaderBufferInt64Atomics = caps.int64_buffer_atomics
        f12.vulkanMemoryModel = caps.vulkan_memory_model
        f12.vulkanMemoryModelDeviceScope = caps.vulkan_memory_model
        f12.samplerFilterMinmax = caps.sampler_minmax
        keep.append(f12)
        if caps.subgroup_size_range is not None or caps.robustness == "device":
            f13 = ffi.new("VkPhysicalDeviceVulkan13Features*",
                          {"sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES")})
            f13.subgroupSizeControl = caps.subgroup_size_range is not None
            f13.computeFullSubgroups = caps.subgroup_size_range is not None
            f13.robustImageAccess = caps.robustness == "device"
            f12.pNext = f13
            keep.append(f13)
        extensions = []
        if caps.robustness == "pipeline":
            robust = ffi.new("VkPhysicalDevicePipelineRobustnessFeaturesEXT*", {
                "sType": flag("VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_ROBUSTNESS_FEATURES_EXT"),
                "pipelineRobustness": 1, "pNext": f12.pNext})
            f12.pNext = robust
            keep.append(robust)
            extensions.append(_PIPELINE_ROBUSTNESS)
        self.pipeline_stats = pipeline_stats.wanted(_device_extensions(self.physical_device))
        if self.pipeline_stats:
            keep.append(pipeline_stats.feature(f12.pNext))
            f12.pNext = keep[-1]
            extensions.append(pipeline_stats.EXTENSION)
        priorities = ffi.new("float[1]", [1.0])
        queue_info = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=caps.queue_family,
                                                queueCount=1, pQueuePriorities=priorities)
        info = vk.VkDeviceCreateInfo(queueCreateInfoCount=1, pQueueCreateInfos=[queue_info],
                                     pEnabledFeatures=core, pNext=f12,
                                     enabledExtensionCount=len(extensions),
                                     ppEnabledExtensionNames=extensions)
        self.device = vk.vkCreateDevice(self.physical_device, info, None)
        self.queue = vk.vkGetDeviceQueue(self.device, caps.queue_family, 0)
        self.command_pool = vk.vkCreateCommandPool(self.device, vk.VkCommandPoolCreateInfo(
            queueFamilyIndex=caps.queue_family,
            flags=flag("VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT")), None)
        self.fence = vk.vkCreateFence(self.device, vk.VkFenceCreateInfo(), None)
        self.pipeline_cache = PipelineCache(self.device, caps.identity)

    # --- helpers ---------------------------------------------------------------------------
    @property
    def messages(self) -> tuple[str, ...]:
        """Validation messages not yet taken. Still readable after :meth:`close`, and that is
        when it holds what the layer reports while the device and instance are destroyed
        (leaked objects): read it after close to see them."""
        with _sinks_lock:
            return tuple(self._messages)

    def take_messages(self) -> list[str]:
        """Validation messages since the last call (and forget them); also after close."""
        with _sinks_lock:
            out = list(self._messages)
            self._messages.clear()
        return out

    def memory_type(self, type_bits: int, required: int, preferred: int = 0) -> int:
        props = self.memory_properties
        candidates = [i for i in range(props.memoryTypeCount)
                      if type_bits & (1 << i)
                      and props.memoryTypes[i].propertyFlags & required == required]
        if not candidates:
            raise VulkanUnavailable("no suitable Vulkan memory type")
        for i in candidates:
            if props.memoryTypes[i].propertyFlags & preferred == preferred:
                return i
        return candidates[0]

    def allocate_command_buffer(self) -> Any:
        return vk.vkAllocateCommandBuffers(self.device, vk.VkCommandBufferAllocateInfo(
            commandPool=self.command_pool, level=flag("VK_COMMAND_BUFFER_LEVEL_PRIMARY"),
            commandBufferCount=1))[0]

    def free_command_buffer(self, cmd: Any) -> None:
        self.compile_ahead.forget_command_buffer(cmd)
        vk.vkFreeCommandBuffers(self.device, self.command_pool, 1, [cmd])

    def submit_and_wait(self, cmd: Any, limit_s: float | None = None,
                        waiting: Callable[[float], None] | None = None,
                        compiling: bool = False) -> None:
        """Submit and wait, at most ``timeout_s``: the one place mipview waits for the GPU. The
        pipelines ``cmd`` binds are compiled first, outside that limit
        (mipview.gpu.vulkan.compile_ahead, whose own submits pass ``compiling`` and their ``limit_s``).
        ``waiting(seconds)`` is called a few times a second while the wait lasts."""
        self._check_hung()
        self.compile_ahead.before_submit(cmd)
        vk.vkResetFences(self.device, 1, [self.fence])
        vk.vkQueueSubmit(self.queue, 1, [vk.VkSubmitInfo(commandBufferCount=1,
                                                          pCommandBuffers=[cmd])], self.fence)
        self._wait_fence(self.timeout_s if limit_s is None else limit_s, waiting, compiling)

    def _wait_fence(self, limit_s: float, waiting: Callable[[float], None] | None = None,
                    compiling: bool = False) -> None:
        start = time.perf_counter()
        step = limit_s if waiting is None else min(limit_s, _POLL_S)
        try:
            while True:
                try:
                    vk.vkWaitForFences(self.device, 1, [self.fence], vk.VK_TRUE, int(step * 1e9))
                    return
                except vk.VkTimeout:
                    elapsed = time.perf_counter() - start
                    if elapsed >= limit_s:
                        raise
                    if waiting is not None:
                        waiting(elapsed)
                    step = min(_POLL_S, limit_s - elapsed)
        except (vk.VkTimeout, vk.VkErrorDeviceLost) as exc:
            if compiling:
                text = (f"the driver did not finish compiling shaders within {limit_s:g} s "
                        f"(nothing ran yet)")
            else:
                what = ("the device was lost" if isinstance(exc, vk.VkErrorDeviceLost) else
                        f"the GPU did not finish within {limit_s:g} s")
                text = (f"{what}: a shader that never ends or takes far too long? "
                        f"(MIPVIEW_GPU_TIMEOUT=SECONDS sets the limit)")
            self.hung = GpuTimeout(text)
            raise self.hung from None

    def _check_hung(self) -> None:
        """After a timeout: wait once more for the late submit; raise while it still runs (or
        for good, once the device is given up)."""
        if self.hung is not None:
            if self.device is None:
                raise GpuTimeout(str(self.hung))
            self._wait_fence(self.timeout_s)
            self.hung = None

    @contextlib.contextmanager
    def one_shot(self) -> Iterator[Any]:
        """Record a command buffer in the ``with`` body, then submit it and wait."""
        cmd = self.allocate_command_buffer()
        try:
            vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(
                flags=flag("VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT")))
            yield cmd
            vk.vkEndCommandBuffer(cmd)
            self.submit_and_wait(cmd)
        finally:
            if self.hung is None:  # a command buffer still running must not be freed
                self.free_command_buffer(cmd)

    def wait_idle(self) -> None:
        """Wait until the device is idle; after a timeout, raises GpuTimeout while the late submit
        still runs, so that nothing it uses is destroyed."""
        self._check_hung()
        if self.device is not None:
            vk.vkDeviceWaitIdle(self.device)

    def _abandon(self) -> None:
        """Leave a device whose submit never ended to the process: destroying it (or its
        instance) would wait for that submit or pull memory from under it."""
        self.device = None
        if self._instance is not None:
            self._instance._unregister()
            self._instance = None

    def close(self) -> None:
        if self.device is not None:
            if self.hung is not None:
                # Not waited back (wait_idle raised): the owners of what the late submit uses
                # skipped their releases, so destroying the device would find them alive, even
                # once that submit has ended.
                self._abandon()
                return
            vk.vkDeviceWaitIdle(self.device)
            for callback in reversed(getattr(self, "_on_close", [])):
                callback()
            self._on_close = []
            if self.pipeline_cache is not None:
                self.pipeline_cache.close()
            if self.fence is not None:
                vk.vkDestroyFence(self.device, self.fence, None)
            if self.command_pool is not None:
                vk.vkDestroyCommandPool(self.device, self.command_pool, None)
            vk.vkDestroyDevice(self.device, None)
            self.device = None
        if self._instance is not None:
            self._instance.destroy()
            self._instance = None

    def __enter__(self) -> GpuContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
