"""Sub-rectangle ("dirty") updates: re-upload part of level 0, regenerate only what it touches,
and time that against a full regeneration (``mipview bench --dirty X,Y,W,H``).

Strategies that can do this have ``record_rect(cmd, image, rect, marks)`` (single-pass).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.gpu import strategies
from mipview.gpu.vulkan.context import GpuContext
from mipview.gpu.vulkan.resources import Buffer, MipImage
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.timing import Marks, TimedBatch, timing_from_runs
from mipview.gpu.vulkan.vkapi import flag, vk

Rect = tuple[int, int, int, int]


class DirtyRectError(MipviewError):
    pass


def parse_rect(text: str, width: int | None = None, height: int | None = None) -> Rect:
    """``"X,Y,W,H"`` -> (x, y, w, h), checked against the image size when given."""
    try:
        x, y, w, h = (int(v) for v in text.split(","))
    except ValueError:
        raise DirtyRectError(f"bad rectangle {text!r} (want X,Y,W,H, e.g. 64,64,128,32)") from None
    if w < 1 or h < 1 or x < 0 or y < 0:
        raise DirtyRectError(f"bad rectangle {text!r}: need x, y >= 0 and w, h >= 1")
    if width is not None and height is not None and (x + w > width or y + h > height):
        raise DirtyRectError(f"rectangle {text!r} is not inside the {width}x{height} image")
    return x, y, w, h


def supports_rect(spec: StrategySpec) -> bool:
    cls, _ = strategies.resolve(spec)
    return hasattr(cls, "record_rect")


def upload_rect(image: MipImage, level0: np.ndarray, rect: Rect) -> None:
    """Copy ``rect`` of ``level0`` ((H, W, 4) or (L, H, W, 4) storage values) into level 0 of
    ``image`` (every layer); the image stays in GENERAL layout."""
    x, y, w, h = rect
    data = np.asarray(level0, dtype=image.fmt.dtype)
    data = data.reshape((-1, *data.shape[-3:]))[:, y:y + h, x:x + w]
    data = image.fmt.pack(data)  # the image's own channels
    staging = Buffer(image.ctx, data.nbytes, flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT"), True)
    try:
        staging.write(data)
        with image.ctx.one_shot() as cmd:
            memory_barrier(cmd, "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE", "TRANSFER",
                           "TRANSFER_WRITE")
            sub = vk.VkImageSubresourceLayers(aspectMask=flag("VK_IMAGE_ASPECT_COLOR_BIT"),
                                              mipLevel=0, baseArrayLayer=0,
                                              layerCount=image.layers)
            region = vk.VkBufferImageCopy(
                bufferOffset=0, bufferRowLength=0, bufferImageHeight=0, imageSubresource=sub,
                imageOffset=vk.VkOffset3D(x=x, y=y, z=0),
                imageExtent=vk.VkExtent3D(width=w, height=h, depth=1))
            vk.vkCmdCopyBufferToImage(cmd, staging.handle, image.image,
                                      flag("VK_IMAGE_LAYOUT_GENERAL"), 1, [region])
            memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "ALL_COMMANDS",
                           "MEMORY_READ|MEMORY_WRITE")
    finally:
        staging.destroy()


def run_strategy(ctx: GpuContext, strategy: Any, image: MipImage, rect: Rect | None = None) -> None:
    """One untimed run: full, or only what ``rect`` touches."""
    with ctx.one_shot() as cmd:
        strategy.before_run(cmd, image)
        memory_barrier(cmd, "ALL_COMMANDS", "MEMORY_READ|MEMORY_WRITE", "ALL_COMMANDS",
                       "MEMORY_READ|MEMORY_WRITE")
        if rect is None:
            strategy.record(cmd, image, Marks(None))
        else:
            strategy.record_rect(cmd, image, rect, Marks(None))


def _time(ctx: GpuContext, strategy: Any, image: MipImage, rect: Rect | None, runs: int,
          batches: int) -> Any:
    def record(cmd: Any, marks: Marks) -> None:
        if rect is None:
            strategy.record(cmd, image, marks)
        else:
            strategy.record_rect(cmd, image, rect, marks)

    batch = TimedBatch(ctx, runs, record, lambda cmd, i: strategy.before_run(cmd, image),
                       stamps_per_run=8)
    try:
        batch.submit(timed=False)  # the first batch warms up
        samples: list[tuple[float, list[float]]] = []
        for _ in range(batches - 1):
            samples += batch.submit()
        return timing_from_runs(samples, batch.labels)
    finally:
        batch.destroy()


def bench_dirty(ctx: GpuContext, level0: np.ndarray, fmt: Format, specs: list[StrategySpec],
                rect: Rect, repeat: int = 20) -> list[dict[str, Any]]:
    """Median GPU time of a full run and of a ``rect`` update per strategy that supports it,
    and whether the update reproduced the full run bit for bit."""
    data = np.asarray(level0)
    data = data if data.ndim == 4 else data[None]
    layers, height, width = data.shape[:3]
    parse_rect(",".join(map(str, rect)), width, height)
    rows = []
    runs = max(1, min(10, repeat))
    batches = 1 + max(1, -(-repeat // runs))
    for spec in specs:
        if not supports_rect(spec):
            continue
        cls, options, _ = strategies.configure(spec, ctx.caps, fmt, width, height, layers)
        if cls.unsupported_reason(ctx.caps, fmt, width, height, layers, options):
            continue
        image = MipImage(ctx, fmt, width, height, layers)
        strategy = cls(ctx, options)
        try:
            image.upload(data)
            strategy.prepare(image)
            run_strategy(ctx, strategy, image)
            full_levels = image.read_levels()
            full = _time(ctx, strategy, image, None, runs, batches)
            part = _time(ctx, strategy, image, rect, runs, batches)
            identical = all(np.array_equal(a, b, equal_nan=fmt.is_float)
                            for a, b in zip(full_levels, image.read_levels(), strict=True))
        finally:
            ctx.wait_idle()
            strategy.release()
            image.destroy()
        rows.append({"strategy": str(spec), "rect": list(rect),
                     "full_median_us": full.total.median, "rect_median_us": part.total.median,
                     "speedup": full.total.median / max(part.total.median, 1e-9),
                     "rect_dispatches": [label for label, _ in part.marks],
                     "identical_to_full": identical,
                     "validation_messages": ctx.take_messages()})
    return rows


def format_rows(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "dirty: no selected strategy supports sub-rectangle updates"
    lines = [f"{'dirty update':<34} {'full us':>10} {'rect us':>10} {'speedup':>8}  identical"]
    for r in rows:
        if r["validation_messages"]:
            lines.append(f"{r['strategy']}: {len(r['validation_messages'])} validation message(s)")
        lines.append(f"{r['strategy']:<34} {r['full_median_us']:10.1f} {r['rect_median_us']:10.1f}"
                     f" {r['speedup']:8.2f}  {'yes' if r['identical_to_full'] else 'NO'}")
    return "\n".join(lines)
