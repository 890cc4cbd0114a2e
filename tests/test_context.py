"""Device listing and choice, validation plumbing, resources round trip."""

import numpy as np
import pytest

from mipview.core.formats import Format, to_storage
from mipview.gpu.vulkan.context import DeviceCaps, GpuContext, choose_device, list_devices
from mipview.gpu.vulkan.resources import MipImage
from mipview.gpu.vulkan.vkapi import VulkanUnavailable


def _caps(index, name, kind):
    return DeviceCaps(index=index, name=name, device_type=kind, vendor_id=0, api_version="1.3",
                      driver_name="d", driver_info="", driver_version="1", subgroup_size=32,
                      subgroup_ops=("basic",), subgroup_in_compute=True, subgroup_size_range=None,
                      timestamp_period_ns=1.0, timestamp_bits=64, has_graphics=True,
                      queue_family=0, max_image_dimension_2d=16384, max_image_array_layers=2048,
                      max_shared_memory=32768, max_workgroup_invocations=1024,
                      max_push_constants=128, shader_float16=True, shader_int64=True,
                      int64_buffer_atomics=True, storage_write_without_format=True,
                      host_query_reset=True, vulkan_memory_model=True)


def test_default_choice_prefers_discrete_then_integrated_then_cpu(monkeypatch):
    monkeypatch.delenv("MIPVIEW_DEVICE", raising=False)
    devs = [_caps(0, "llvmpipe", "cpu"), _caps(1, "iGPU", "integrated"), _caps(2, "dGPU", "discrete")]
    assert choose_device(devs, None).name == "dGPU"
    assert choose_device(devs[:2], None).name == "iGPU"
    assert choose_device(devs[:1], None).name == "llvmpipe"


def test_choice_by_index_name_and_env(monkeypatch):
    devs = [_caps(0, "llvmpipe (LLVM 15)", "cpu"), _caps(1, "NVIDIA H100", "discrete")]
    assert choose_device(devs, "0").index == 0
    assert choose_device(devs, "h100").index == 1
    monkeypatch.setenv("MIPVIEW_DEVICE", "llvm")
    assert choose_device(devs, None).index == 0
    with pytest.raises(VulkanUnavailable, match="no Vulkan device matches"):
        choose_device(devs, "radeon")
    with pytest.raises(VulkanUnavailable, match="index 5"):
        choose_device(devs, 5)
    with pytest.raises(VulkanUnavailable, match="no Vulkan device found"):
        choose_device([], None)


def test_lavapipe_is_listed_with_capabilities():
    devs = list_devices()
    lvp = [d for d in devs if "llvmpipe" in d.name]
    assert lvp, [d.name for d in devs]
    d = lvp[0]
    assert d.device_type == "cpu" and d.subgroup_size >= 4 and "shuffle" in d.subgroup_ops
    assert d.timestamp_bits > 0 and d.timestamp_period_ns > 0
    assert d.max_image_dimension_2d >= 4096


def test_validation_reports_a_real_error():
    """The collector is live: an invalid call (mapping memory twice) must be reported."""
    from mipview.gpu.vulkan.resources import Buffer
    from mipview.gpu.vulkan.vkapi import flag, vk

    ctx = GpuContext(device="llvmpipe", validate=True)
    try:
        buf = Buffer(ctx, 256, flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT"), host_visible=True)
        vk.vkMapMemory(ctx.device, buf.memory, 0, 256, 0)
        try:
            vk.vkMapMemory(ctx.device, buf.memory, 0, 256, 0)
        except vk.VkError:
            pass
        vk.vkUnmapMemory(ctx.device, buf.memory)
        buf.destroy()
        messages = ctx.take_messages()
        assert any("vkMapMemory" in m for m in messages), messages
    finally:
        ctx.close()


def test_leaked_object_is_reported_after_close_and_only_by_its_context():
    """What the layer reports while the device is destroyed (here: a sampler never destroyed)
    is in ``messages`` after close(), of the leaking context alone; a clean context beside it
    reports nothing, before or after its own close."""
    from mipview.gpu.vulkan.vkapi import flag, vk

    clean = GpuContext(device="llvmpipe", validate=True)
    leaky = GpuContext(device="llvmpipe", validate=True)
    try:
        vk.vkCreateSampler(leaky.device, vk.VkSamplerCreateInfo(
            magFilter=flag("VK_FILTER_NEAREST"), minFilter=flag("VK_FILTER_NEAREST")), None)
        assert not leaky.messages  # nothing is wrong until the device goes
    finally:
        leaky.close()
    try:
        leaks = [m for m in leaky.messages if "vkDestroyDevice" in m and "SAMPLER" in m]
        assert len(leaks) == 1, leaky.messages
        assert not clean.messages  # (before: every context heard every message)
    finally:
        clean.close()
    assert not clean.messages and clean.take_messages() == []
    # take_messages works after close too, and forgets
    assert leaky.take_messages() and not leaky.messages


@pytest.mark.parametrize("fmt", list(Format))
def test_image_round_trip_with_layers_and_sentinel(gpu, fmt, rng):
    img = MipImage(gpu, fmt, 13, 6, layers=3)
    try:
        data = to_storage(rng.random((3, 6, 13, 4)), fmt)  # codes or values of the format
        img.upload(data)
        levels = img.read_levels()
    finally:
        img.destroy()
    assert len(levels) == 4 and levels[0].shape == (3, 6, 13, 4)
    # the image keeps its own channels; the others read as a shader reads them (0, 0, 1); a
    # depth source's level 0 its depth alone, read in each channel of the levels
    np.testing.assert_array_equal(levels[0], fmt.unpack_source(fmt.pack_source(data)))
    own = levels[1][..., :3 if fmt.packing == "float11" else fmt.channels]  # b10g11r11: RGB
    if fmt.is_float:
        assert np.isnan(own).all()
    else:
        assert (own == np.array([1, 0, 1, 1][:fmt.channels]) * fmt.scale).all()  # magenta


def test_image_larger_than_device_limit_is_refused(gpu):
    from mipview.core.errors import MipviewError

    limit = gpu.caps.max_image_dimension_2d
    with pytest.raises(MipviewError, match="device limit"):
        MipImage(gpu, Format.UNORM, limit + 1, 4)


def test_out_of_gpu_memory_names_what_and_frees_what_was_made(gpu, monkeypatch):
    from mipview.core.errors import MipviewError
    from mipview.gpu.vulkan import resources
    from mipview.gpu.vulkan.vkapi import flag, vk

    # the memory types picked: host-visible coherent for a host buffer, else device-local
    types = []
    real_type = gpu.memory_type
    monkeypatch.setattr(gpu, "memory_type", lambda bits, required, preferred=0: types.append(
        (required, preferred)) or real_type(bits, required, preferred))
    host = resources.Buffer(gpu, 256, flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"), host_visible=True)
    host.destroy()
    visible = flag("VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT") | \
        flag("VK_MEMORY_PROPERTY_HOST_COHERENT_BIT")
    local = flag("VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT")
    assert types == [(visible, flag("VK_MEMORY_PROPERTY_HOST_CACHED_BIT"))]

    def oom(*args, **kwargs):
        raise vk.VkErrorOutOfDeviceMemory()

    destroyed = []
    for call in ("vkDestroyBuffer", "vkDestroyImage"):
        real = getattr(vk, call)
        monkeypatch.setattr(vk, call, lambda dev, h, a, real=real, call=call: (
            destroyed.append(call), real(dev, h, a)))
    monkeypatch.setattr(vk, "vkAllocateMemory", oom)
    with pytest.raises(MipviewError, match=r"^out of GPU memory allocating 4096 bytes$"):
        resources.Buffer(gpu, 4096, flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT"))
    with pytest.raises(MipviewError, match=r"^out of GPU memory for a 64x32 f16 image \(0 MiB\)$"):
        MipImage(gpu, Format.F16, 64, 32)
    assert destroyed == ["vkDestroyBuffer", "vkDestroyImage"]  # nothing left behind
    assert types[1:] == [(0, local), (0, local)]


def test_robust_access_is_per_pipeline_where_offered_else_device_wide_on_a_cpu():
    from mipview.gpu.vulkan.context import _robustness

    assert _robustness("discrete", True, True, True) == "pipeline"
    assert _robustness("cpu", True, True, True) == "pipeline"
    assert _robustness("cpu", False, True, True) == "device"
    assert _robustness("discrete", False, True, True) == "none"  # keeps built-in timings
    assert _robustness("cpu", False, True, False) == "none"


def test_lavapipe_gets_robust_access_for_the_whole_device(gpu):
    # Mesa 22.3's lavapipe has no VK_EXT_pipeline_robustness; newer ones may
    assert gpu.caps.robustness in ("device", "pipeline")
    assert gpu.caps.as_dict()["robustness"] == gpu.caps.robustness
