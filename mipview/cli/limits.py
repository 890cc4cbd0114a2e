"""What a command will need, checked before anything big exists: the image's size and layers
against the device's limits, and the memory of a run (host and device bytes) against what is
available. CLI only (tests/test_import_contracts.py).

A refused run ends with one line that says what it would need, instead of a device error or
a MemoryError after seconds of work and gigabytes of arrays.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mipview.core.errors import MipviewError
from mipview.core.formats import Format, level_size, mip_count

if TYPE_CHECKING:
    from mipview.gpu.vulkan.context import GpuContext

GIB = 2.0**30
#: float64 RGBA: a texel of a reference pyramid, or of an error map being computed
F64_TEXEL = 32
#: the float64 arrays alive at once beside the reference pyramid while a level is compared
#: (the difference, the reference as float64, the level as float64) or while the envelope of
#: stored chains walks down (compare.texel_errors, bounds.stored_chain_bounds)
CHECK_TEMPORARIES = 3
#: float32 RGBA of a synthetic image, or of a decoded float file
F32_TEXEL = 16
#: strategies' own buffers (subgroup's scratch, single-pass's hand-off): at most a float32
#: vec4 copy of level 1 each, and subgroup caps its scratch at 2 x 64 MiB
SCRATCH_CAP = 128 * 2**20


class LimitError(MipviewError):
    pass


@dataclass(frozen=True)
class ImageDims:
    """What a run's level 0 will be, known before it exists."""

    width: int
    height: int
    layers: int
    #: the format the source suggests (mipview.io.imageio.SourceImage.suggested_format)
    suggested: Format
    #: bytes per texel of the decoded source (uint8 RGBA or float32 RGBA)
    source_texel: int
    #: 6 for a cube map or cube array (its faces are its layers: mipview.core.cube), else 1
    faces: int = 1


def pyramid_bytes(width: int, height: int, layers: int, texel: int) -> int:
    return sum(w * h for w, h in (level_size(width, height, k)
                                  for k in range(mip_count(width, height)))) * layers * texel


@dataclass(frozen=True)
class Need:
    host: int
    device: int
    #: (what, bytes), for the message
    parts: tuple[tuple[str, int], ...]


def estimate(dims: ImageDims, fmt: Format, strategies: int, check: bool) -> Need:
    """Bytes a run of ``strategies`` strategies on ``dims`` needs at its peak: while the
    verdicts are computed the results and, when ``check``, the references are all alive (the
    decoded source is gone by then, so it only counts if loading needs more)."""
    w, h, layers = dims.width, dims.height, dims.layers
    texels = w * h * layers
    level0 = texels * fmt.bytes_per_texel
    pyramid = pyramid_bytes(w, h, layers, fmt.bytes_per_texel)
    parts = [("level 0", level0), (f"{strategies} pyramid(s) read back", (strategies + 1) * pyramid)]
    if check:
        parts.append(("float64 reference", pyramid_bytes(w, h, layers, F64_TEXEL)
                      + CHECK_TEMPORARIES * texels * F64_TEXEL))
    scratch = min(SCRATCH_CAP, texels // 4 * F32_TEXEL)
    device = level0 + strategies * (pyramid + scratch) + pyramid  # + staging and read-back
    host = max(sum(b for _, b in parts), w * h * dims.source_texel + level0)
    return Need(host, device, tuple(parts))


def _gib(n: float) -> str:
    return f"{n / GIB:.1f} GiB"


def host_available() -> int | None:
    """Bytes this process may still allocate: the least of the memory available to the system,
    the cgroup's headroom and the address-space limit's (``ulimit -v``); None if unknown."""
    found: list[int] = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except OSError:
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            used = int(Path("/sys/fs/cgroup/memory.current").read_text())
            found.append(max(0, int(limit) - used))
    except (OSError, ValueError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        try:
            vm = next(int(line.split()[1]) * 1024
                      for line in Path("/proc/self/status").read_text().splitlines()
                      if line.startswith("VmSize:"))
        except (OSError, StopIteration, ValueError):
            vm = 0
        found.append(max(0, soft - vm))
    return min(found) if found else None


def device_heap(ctx: GpuContext) -> int:
    """Bytes of the device-local heaps."""
    from mipview.gpu.vulkan.vkapi import flag, vk

    props = vk.vkGetPhysicalDeviceMemoryProperties(ctx.physical_device)
    local = flag("VK_MEMORY_HEAP_DEVICE_LOCAL_BIT")
    return sum(int(props.memoryHeaps[i].size) for i in range(props.memoryHeapCount)
               if props.memoryHeaps[i].flags & local)


def check_run(ctx: GpuContext, dims: ImageDims, fmt: Format, strategies: int,
              check: bool) -> None:
    """Refuse, with one line, a run the device cannot hold or the memory cannot take."""
    from mipview.gpu.vulkan.resources import check_image_limits

    check_image_limits(ctx.caps, dims.width, dims.height, dims.layers)
    need = estimate(dims, fmt, strategies, check)
    what = f"{dims.width}x{dims.height}x{dims.layers} {fmt.label}"
    detail = ", ".join(f"{name} {_gib(b)}" for name, b in need.parts)
    host = need.host
    if ctx.caps.device_type == "cpu":
        host += need.device  # a CPU device's memory is the host's
        detail += f", device {_gib(need.device)}"
    else:
        heap = device_heap(ctx)
        if need.device > heap:
            raise LimitError(f"{what} needs about {_gib(need.device)} of device memory for "
                             f"{strategies} strategies, the device has {_gib(heap)}")
    available = host_available()
    if available is not None and host > available:
        raise LimitError(f"{what} needs about {_gib(host)} of memory ({detail}), "
                         f"{_gib(available)} available")


def peek_dims(path: str, layers: int) -> ImageDims:
    """Size of an image file from its header, without decoding it; a texture file (whose layers
    and format Pillow does not tell: it opens a DDS as one RGBA image), or a file Pillow cannot
    open, is left to mipview.io.imageio.load, which says why in one line."""
    from PIL import Image

    from mipview.io import imageio
    from mipview.io.containers.decode import claims

    try:
        with open(path, "rb") as f:
            decode = claims(path, f.read(16))
        if not decode:
            with Image.open(path) as img:
                width, height = img.size
                frames = int(getattr(img, "n_frames", 1) or 1) if img.format == "TIFF" else 1
                mode = img.mode
    except Exception:
        decode = True
    if decode:
        src = imageio.load(path)  # raises ImageLoadError with the reason
        return ImageDims(src.width, src.height, layers if layers > 1 else src.layers,
                         src.suggested_format(), 4 if src.rgba8 is not None else F32_TEXEL,
                         src.faces)
    is_float = mode in ("F", "I")
    deep = mode.startswith("I;16") or is_float
    # as imageio.SourceImage.suggested_format: a 16-bit grey file suggests r16
    fmt = Format.F32 if is_float else Format.R16 if deep else Format.UNORM
    return ImageDims(width, height, layers if layers > 1 else frames, fmt,
                     F32_TEXEL if deep else 4)
