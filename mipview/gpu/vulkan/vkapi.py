"""The one place that imports the `vulkan` binding.

Importing `vulkan` dlopens libvulkan.so.1 and raises OSError when no loader is installed; keeping
that here lets the rest of mipview import (and report a clear message) on such machines.
"""

from __future__ import annotations

from typing import Any

from mipview.core.errors import MipviewError

vk: Any
ffi: Any
#: the loader's C functions as cffi declares them: for the few the binding does not wrap
#: (vkGetPipelineCacheData)
vklib: Any
try:
    import vulkan as vk  # type: ignore[no-redef]

    ffi = vk.ffi
    vklib = vk.lib
    LOAD_ERROR: str | None = None
except (OSError, ImportError) as exc:  # no loader, or the binding is not installed
    vk = None
    ffi = None
    vklib = None
    LOAD_ERROR = f"Vulkan is not available: {exc}"


class VulkanUnavailable(MipviewError):
    """No Vulkan loader, no device, or a device that lacks what mipview needs."""


def require_vulkan() -> None:
    if vk is None:
        raise VulkanUnavailable(
            f"{LOAD_ERROR}. Install a Vulkan loader and driver "
            "(Debian: apt install libvulkan1 mesa-vulkan-drivers)."
        )


def cstr(value: Any) -> str:
    """Struct char arrays come back as str from some calls and as cdata from others."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return ffi.string(value).decode(errors="replace")


def flag(name: str) -> int:
    """A Vulkan constant that must exist: the binding maps ~490 names to None, and a None keyword
    argument is silently dropped, so every flag we rely on goes through here."""
    value = getattr(vk, name, None)
    if value is None:
        raise RuntimeError(f"vulkan binding lacks {name}")
    return int(value)
