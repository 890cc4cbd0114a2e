"""mipview: visualise, check and profile GPU mipmap generation strategies.

For scripts and notebooks: ``mipview.open_image``, ``mipview.run``, ``mipview.bench`` and, for
volumes, ``mipview.run_volume`` (mipview.api; docs/api.md). They load on first use, so
``import mipview.core.formats`` and the command line's start stay light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mipview.core.errors import MipviewError

if TYPE_CHECKING:
    from mipview.api import bench, open_image, run, run_volume

__version__ = "0.1.0"

__all__ = ["MipviewError", "__version__", "bench", "open_image", "run", "run_volume"]

_API = ("bench", "open_image", "run", "run_volume")


def __getattr__(name: str) -> Any:
    if name in _API:
        from mipview import api

        return getattr(api, name)
    raise AttributeError(f"module 'mipview' has no attribute {name!r}")
