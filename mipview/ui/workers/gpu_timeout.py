"""What the user reads when a GPU job ran past the context's timeout
(:class:`~mipview.gpu.vulkan.context.GpuTimeout`): which shader, how long, and that the device was
reset. The GPU worker gives the hung context up and opens a new one before it says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mipview.core.specs import CUSTOM_PREFIX
from mipview.gpu.vulkan.context import GpuTimeout
from mipview.ui.messages import WorkerError

TITLE = "GPU timeout"


def timeout_error(req: Any, timeout_s: float, exc: GpuTimeout) -> WorkerError:
    """The dialog of a timeout in the job ``req``: a custom shader of its specs is the likely
    culprit (a built-in strategy never loops for long), so it is named."""
    shaders = list(dict.fromkeys(Path(s.name[len(CUSTOM_PREFIX):]).name
                                 for s in getattr(req, "specs", ())
                                 if s.name.startswith(CUSTOM_PREFIX)))
    if len(shaders) == 1:
        what = shaders[0]
    elif shaders:
        what = f"One of {', '.join(shaders)}"
    else:
        what = "The GPU work"
    return WorkerError(req.job, TITLE, f"{what} did not finish within {timeout_s:g} s; the "
                                       f"device was reset.", str(exc))
