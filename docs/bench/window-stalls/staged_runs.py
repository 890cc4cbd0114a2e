"""A Run of the five at 4096^2 as the window makes it, without the window, N times on one
context (later Runs find their pipelines and references ready): when each step was reported.
``python3 docs/bench/window-stalls/staged_runs.py IMAGE [N]`` (readback.sh runs it)."""

import sys
import time
from concurrent.futures import ThreadPoolExecutor

from mipview.core.blas import one_blas_thread

one_blas_thread()  # as `python -m mipview` does, before numpy loads

from mipview.check.verdict import ReferenceCache  # noqa: E402
from mipview.core.results import TimingSettings  # noqa: E402
from mipview.gpu.strategies.specs import expand_specs  # noqa: E402
from mipview.gpu.vulkan.context import GpuContext  # noqa: E402
from mipview.io import imageio  # noqa: E402
from mipview.runs import analysis, staged  # noqa: E402


class Steps(staged.RunListener):
    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.log: list[tuple[float, str]] = []

    def mark(self, what: str) -> None:
        self.log.append((time.perf_counter() - self.t0, what))

    def progress(self, text: str) -> None:
        self.mark("progress " + text)

    def levels(self, mip, notes=()) -> None:
        self.mark("levels")

    def warming_up(self, settings) -> None:
        self.mark("warming_up")

    def timings(self, mip) -> None:
        self.mark("timings")

    def reference(self, levels) -> None:
        self.mark("reference")


def main() -> None:
    src = imageio.load(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    fmt = src.suggested_format()
    level0 = src.storage(fmt)
    level0.setflags(write=False)
    specs = expand_specs("blit,per-level,npot-exact,subgroup,single-pass")
    refs = ReferenceCache()
    with GpuContext() as ctx, ThreadPoolExecutor(analysis.pool_size()) as pool:
        settings = TimingSettings.for_device(ctx.caps.device_type, repeat=20)
        for i in range(runs):
            steps = Steps()
            staged.run(ctx, level0, fmt, specs, staged.RunOptions(settings), refs, steps,
                       pool=pool)
            print(f"run {i}: " + ", ".join(f"{t:.3f} {w}" for t, w in steps.log), flush=True)
            time.sleep(0.5)


if __name__ == "__main__":
    main()
