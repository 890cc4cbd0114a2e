"""What the user reads when a GPU job ran past the context's timeout
(:class:`~mipview.gpu.vulkan.context.GpuTimeout`) or lost its device: which shader, how long, and
that the device was reset. The GPU worker gives the hung context up and opens a new one before it
says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import vulkan as vk

from mipview.core.specs import CUSTOM_PREFIX
from mipview.gpu.vulkan.context import GpuTimeout
from mipview.ui.messages import WorkerError

TITLE = "GPU timeout"
LOST_TITLE = "GPU device lost"


def resets_device(exc: BaseException) -> bool:
    """Whether the context is of no use after ``exc``: a wait past the timeout or a device lost
    (:class:`GpuTimeout`), or a device lost at a submit, which the context does not wrap."""
    return isinstance(exc, (GpuTimeout, vk.VkErrorDeviceLost))


def _lost(exc: BaseException) -> bool:
    # GpuTimeout stands for a loss seen while waiting too; the binding's error is its context
    return isinstance(exc, vk.VkErrorDeviceLost) or isinstance(exc.__context__,
                                                               vk.VkErrorDeviceLost)


def timeout_error(req: Any, timeout_s: float, exc: Exception) -> WorkerError:
    """The dialog of a timeout or a lost device in the job ``req``: a custom shader of its specs
    is the likely culprit (a built-in strategy never loops for long), so it is named."""
    shaders = list(dict.fromkeys(Path(s.name[len(CUSTOM_PREFIX):]).name
                                 for s in getattr(req, "specs", ())
                                 if s.name.startswith(CUSTOM_PREFIX)))
    if len(shaders) == 1:
        what = shaders[0]
    elif shaders:
        what = f"One of {', '.join(shaders)}"
    else:
        what = "The GPU work"
    if _lost(exc):
        during = f" of {', '.join(shaders)}" if shaders else ""
        return WorkerError(req.job, LOST_TITLE, f"The device was lost during the run{during}; "
                                                f"it was opened again: Run again (the image and "
                                                f"its results shown stay).",
                           str(exc) or type(exc).__name__)
    return WorkerError(req.job, TITLE, f"{what} did not finish within {timeout_s:g} s; the "
                                       f"device was reset.", str(exc))
