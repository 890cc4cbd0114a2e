"""Pipelines made ready before the work that is timed: the GPU timeout measures execution only.

A driver may compile a pipeline when it is first dispatched rather than when it is created.
lavapipe, the device of every machine without a GPU, runs LLVM there, once per pipeline and per
kind of bound image (format, power-of-two sides), and caches the result on disk; with an empty
cache on a busy 2-core machine one sRGB per-level pipeline took over a minute inside the first
submit, which the fence's deadline then read as a hung shader.

So every (pipeline, descriptor set) pair a command buffer binds is noted at record time
(:meth:`ComputePipeline.bind <mipview.gpu.vulkan.pipelines.ComputePipeline.bind>`), and before that
command buffer is submitted, the pairs not yet ready are dispatched with zero workgroups in
submits of their own, one per pipeline: the driver compiles exactly what the real dispatch will
need, nothing executes (a shader that never ends cannot hang there), and the wait has a limit of
its own (:data:`COMPILE_LIMIT_S`). On a driver that compiled at creation this costs one empty
submit per pipeline, once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.vkapi import ffi, flag, vk

#: compiling is not executing: a shader that never ends is caught by the GPU timeout of the real
#: submit, so this limit only ends a compiler that is itself stuck
COMPILE_LIMIT_S = 1800.0
#: compiles shorter than this pass silently; longer ones are reported once a second
REPORT_AFTER_S = 1.0


@dataclass(frozen=True)
class CompileProgress:
    """Pipelines a submit waits for: ``done`` of ``total`` compiled, ``elapsed_s`` so far;
    ``finished`` on the last report. Crosses to the UI thread."""

    done: int
    total: int
    elapsed_s: float
    device: str
    finished: bool = False

    @property
    def left_s(self) -> float | None:
        """The time still to go at the pace so far (None before the first pipeline is done)."""
        if self.done == 0:
            return None
        return self.elapsed_s / self.done * (self.total - self.done)

    def message(self) -> str:
        """One line for a status bar or stderr."""
        if self.finished:
            return (f"compiled {self.total} shader pipeline(s) for {self.device} in "
                    f"{self.elapsed_s:.0f} s (first run; later runs reuse them)")
        left = self.left_s
        eta = f"about {left:.0f} s left" if left is not None else f"{self.elapsed_s:.0f} s so far"
        return (f"compiling shaders (first run on {self.device}, {self.done} of {self.total} "
                f"pipelines, {eta})")


def _key(handle: Any) -> int:
    return int(ffi.cast("uintptr_t", handle))


# What this module uses of a pipeline and of the context, which import it (so it imports
# neither): mipview.gpu.vulkan.pipelines.ComputePipeline and mipview.gpu.vulkan.context.GpuContext.
class Pipeline(Protocol):
    pipeline: Any
    push_size: int

    def record_bind(self, cmd: Any, descriptor_set: Any) -> None: ...

    def push(self, cmd: Any, data: bytes) -> None: ...


class Submitter(Protocol):
    hung: Exception | None

    def allocate_command_buffer(self) -> Any: ...

    def free_command_buffer(self, cmd: Any) -> None: ...

    def submit_and_wait(self, cmd: Any, limit_s: float | None = None,
                        waiting: Callable[[float], None] | None = None,
                        compiling: bool = False) -> None: ...


class CompileAhead:
    """The pairs each command buffer binds, and those the driver has compiled (one per
    context, on ``device``). ``report`` receives :class:`CompileProgress` while a compile lasts
    longer than :data:`REPORT_AFTER_S`."""

    def __init__(self, ctx: Submitter, device: str) -> None:
        self.ctx = ctx
        self.device = device
        self.report: Callable[[CompileProgress], None] | None = None
        #: command buffer -> {(pipeline, set) key: (pipeline, set handle)} bound in it
        self._bound: dict[int, dict[tuple[int, int], tuple[Pipeline, Any]]] = {}
        self._ready: set[tuple[int, int]] = set()
        #: seconds spent waiting for compiles, and the submits that compiled (tests read
        #: them; a user reads the reports)
        self.seconds = 0.0
        self.submits = 0

    def note(self, cmd: Any, pipeline: Pipeline, descriptor_set: Any) -> None:
        """``cmd`` binds ``pipeline`` with ``descriptor_set`` (recorded, not yet submitted)."""
        key = (_key(pipeline.pipeline), _key(descriptor_set))
        if key not in self._ready:
            self._bound.setdefault(_key(cmd), {})[key] = (pipeline, descriptor_set)

    def pending(self) -> int:
        """Pairs bound in recorded command buffers and not compiled yet."""
        return sum(len(bound) for bound in self._bound.values())

    def forget_command_buffer(self, cmd: Any) -> None:
        self._bound.pop(_key(cmd), None)

    def forget(self, handles: list[Any]) -> None:
        """Pipelines or sets destroyed or rewritten: their handles may come back as others."""
        gone = {_key(h) for h in handles}
        self._ready = {k for k in self._ready if k[0] not in gone and k[1] not in gone}

    def before_submit(self, cmd: Any) -> None:
        """Compile what ``cmd`` binds and is not ready yet, each pipeline in a submit of its
        own, waited for without the GPU timeout."""
        bound = self._bound.pop(_key(cmd), None)
        if not bound:
            return
        by_pipeline: dict[int, list[tuple[tuple[int, int], Pipeline, Any]]] = {}
        for key, (pipeline, descriptor_set) in bound.items():
            if key not in self._ready:
                by_pipeline.setdefault(key[0], []).append((key, pipeline, descriptor_set))
        start = time.perf_counter()
        next_report = REPORT_AFTER_S  # seconds into the compile; then once a second
        reported = False

        def waiting(done: int) -> None:
            nonlocal next_report, reported
            elapsed = time.perf_counter() - start
            if elapsed >= next_report and self.report is not None:
                reported, next_report = True, elapsed + 1.0
                self.report(CompileProgress(done, len(by_pipeline), elapsed, self.device))

        for done, pairs in enumerate(by_pipeline.values()):
            self._compile(pairs, lambda _, done=done: waiting(done))
            self._ready.update(key for key, _, _ in pairs)
        elapsed = time.perf_counter() - start
        self.seconds += elapsed
        if reported and self.report is not None:
            self.report(CompileProgress(len(by_pipeline), len(by_pipeline), elapsed,
                                        self.device, finished=True))

    def _compile(self, pairs: list[tuple[tuple[int, int], Pipeline, Any]],
                 waiting: Callable[[float], None]) -> None:
        ctx = self.ctx
        warm = ctx.allocate_command_buffer()
        try:
            vk.vkBeginCommandBuffer(warm, vk.VkCommandBufferBeginInfo(
                flags=flag("VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT")))
            for _, pipeline, descriptor_set in pairs:
                # a zero-workgroup dispatch still counts as an access of what the set binds
                memory_barrier(warm, "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE",
                               "COMPUTE_SHADER", "SHADER_READ|SHADER_WRITE")
                pipeline.record_bind(warm, descriptor_set)
                if pipeline.push_size:
                    pipeline.push(warm, bytes(pipeline.push_size))
                vk.vkCmdDispatch(warm, 0, 0, 0)
            memory_barrier(warm, "COMPUTE_SHADER", "SHADER_READ|SHADER_WRITE", "ALL_COMMANDS",
                           "MEMORY_READ|MEMORY_WRITE")
            vk.vkEndCommandBuffer(warm)
            self.submits += 1
            ctx.submit_and_wait(warm, limit_s=COMPILE_LIMIT_S, waiting=waiting, compiling=True)
        finally:
            if ctx.hung is None:
                ctx.free_command_buffer(warm)
