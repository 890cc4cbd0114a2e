"""A VkPipelineCache kept on disk between runs, one file per device and driver version.

Drivers that compile at pipeline creation (GPUs) take their compiled pipelines back from it, so
the first Run after starting the app does not compile again. lavapipe keeps nothing in a
VkPipelineCache (its data is the 32-byte header); its compiled shaders persist in Mesa's own
disk cache (``MESA_SHADER_CACHE_DIR``, by default ``~/.cache/mesa_shader_cache``).

The file lives in the user's cache directory (``platformdirs``: XDG on Linux, ``~/Library/Caches``
on macOS, ``%LOCALAPPDATA%`` on Windows; ``MIPVIEW_CACHE_DIR`` overrides it), is named by the
device's UUID and driver version, and holds a checksum before the driver's data. A file that is
truncated, corrupt, or written for another device or driver is ignored (a driver must never be
handed bytes it did not write), and replaced when the context closes, written whole
(mipview.io.atomic), so a crash or a second process never leaves half a file.
"""

from __future__ import annotations

import hashlib
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mipview.gpu.vulkan.vkapi import ffi, vk, vklib
from mipview.io import atomic

_MAGIC = b"mipview pipeline cache 1\n"
_DIGEST = 32  # sha256
#: VkPipelineCacheHeaderVersionOne: header size, version, vendor, device (uint32), cache UUID
_HEADER = struct.Struct("<IIII16s")


@dataclass(frozen=True)
class DeviceIdentity:
    """What a saved cache is kept by (file name) and checked against (the driver's header):
    :attr:`mipview.gpu.vulkan.context.DeviceCaps.identity`."""

    vendor_id: int
    device_id: int
    #: VkPhysicalDeviceIDProperties.deviceUUID and VkPhysicalDeviceProperties.pipelineCacheUUID
    device_uuid: str
    pipeline_cache_uuid: str
    driver_version: str


def cache_dir() -> Path:
    """Where mipview keeps what it may lose: ``MIPVIEW_CACHE_DIR``, else the platform's user
    cache directory."""
    override = os.environ.get("MIPVIEW_CACHE_DIR")
    if override:
        return Path(override)
    try:
        import platformdirs
    except ImportError:  # a source tree run without its dependencies (the GPU machine's recipe)
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mipview"
    return Path(platformdirs.user_cache_dir("mipview", appauthor=False))


def cache_path(device: DeviceIdentity) -> Path:
    driver = "".join(c if c.isalnum() or c in ".-" else "_" for c in device.driver_version)
    return cache_dir() / "pipelines" / f"{device.device_uuid}-{driver}.bin"


def read_cache(path: Path, device: DeviceIdentity) -> tuple[bytes, str | None]:
    """(the driver's data, None), or (b"", why it is not used)."""
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        return b"", "none saved yet"
    except OSError as exc:
        return b"", f"unreadable ({exc.strerror})"
    head = len(_MAGIC) + _DIGEST
    data = blob[head:]
    if not blob.startswith(_MAGIC) or hashlib.sha256(data).digest() != blob[len(_MAGIC):head]:
        return b"", "corrupt"
    if len(data) < _HEADER.size:
        return b"", "corrupt"
    size, version, vendor, device_id, uuid = _HEADER.unpack_from(data)
    if (size < _HEADER.size or version != 1 or vendor != device.vendor_id
            or device_id != device.device_id or uuid.hex() != device.pipeline_cache_uuid):
        return b"", "written for another device or driver"
    return data, None


def write_cache(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` and its checksum, as one rename (never half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_atomic(path, _MAGIC + hashlib.sha256(data).digest() + data)


class PipelineCache:
    """The device's VkPipelineCache, filled from the saved file and saved back on
    :meth:`close` when pipelines were made meanwhile."""

    def __init__(self, device: Any, identity: DeviceIdentity) -> None:
        self.device = device
        self.path = cache_path(identity)
        data, self.ignored = read_cache(self.path, identity)
        #: bytes handed to the driver from the saved file
        self.loaded = len(data)
        keep = ffi.new("uint8_t[]", data) if data else None
        self.handle = vk.vkCreatePipelineCache(device, vk.VkPipelineCacheCreateInfo(
            initialDataSize=len(data), pInitialData=keep), None)
        self.used = False

    def data(self) -> bytes | None:
        """What the driver holds now (None if it would not say: the binding has no wrapper of
        vkGetPipelineCacheData, so its two calls are made here)."""
        size = ffi.new("size_t*")
        if vklib.vkGetPipelineCacheData(self.device, self.handle, size, ffi.NULL) != 0:
            return None
        buf = ffi.new(f"uint8_t[{size[0]}]")
        if vklib.vkGetPipelineCacheData(self.device, self.handle, size, buf) != 0:
            return None  # VK_INCOMPLETE included: half the data is no cache
        return bytes(ffi.buffer(buf, size[0]))

    def close(self) -> None:
        """Save what the driver holds now (if pipelines were made), then destroy the cache.
        A cache directory that cannot be written costs the next run its compiles, no more."""
        if self.handle is None:
            return
        try:
            data = self.data() if self.used else None
            if data:
                write_cache(self.path, data)
        except OSError:
            pass
        finally:
            vk.vkDestroyPipelineCache(self.device, self.handle, None)
            self.handle = None
