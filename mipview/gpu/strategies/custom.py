"""Custom strategies: ``shader:PATH[:KEY=VALUE,...]``, a user's GLSL or SPIR-V shader run as a
strategy (docs/custom-strategies.md). Each version of each file becomes its own
:class:`CustomStrategy` subclass (:func:`custom_strategy`), so a custom strategy goes through the
same Session, record loop, timing and verdict as a built-in one.

- **per-level**: one dispatch per level with the level below bound (sampled and, if declared,
  storage) and the level written; one pipeline, one descriptor set per level.
- **whole-chain**: ``dispatches`` dispatches with every level bound as an array, the counters
  and, if declared, the scratch buffer. The counters are zeroed once when the image is prepared
  (outside any timed run). A shader that declares ``#pragma mipview counters self-reset`` leaves
  them zero at the end of every run (FidelityFX SPD does): mipview never zeroes them again, and
  checks after the runs that they read back zero (a note on the result if not). For the others
  mipview zeroes them before every run: in :meth:`CustomStrategy.before_run`, which every runner
  records ahead of a run's opening timestamp.

Pipelines get robust buffer and image access where the device offers it
(``DeviceCaps.robustness``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mipview.core.formats import Format, mip_count
from mipview.core.results import DispatchStep, LevelSource
from mipview.core.specs import CUSTOM_PREFIX
from mipview.gpu.strategies.base import MAX_GROUPS_X, Strategy, compute_reason, group_count
from mipview.gpu.strategies.custom_shader import CustomShader, load_custom_shader
from mipview.gpu.vulkan.context import DeviceCaps
from mipview.gpu.vulkan.pipelines import DescriptorSets, get_pipeline, get_sampler
from mipview.gpu.vulkan.resources import Buffer, MipImage
from mipview.gpu.vulkan.sync import memory_barrier
from mipview.gpu.vulkan.vkapi import flag, vk

#: counters per layer (mipview/gpu/shaders/include/mip_chain.glsl MIP_CHAIN_COUNTERS)
COUNTERS = 16

#: SPIR-V capability -> (device feature, its DeviceCaps field)
_FEATURES = {"Float16": ("shaderFloat16", "shader_float16"),
             "Int64": ("shaderInt64", "shader_int64"),
             "Int64Atomics": ("shaderBufferInt64Atomics", "int64_buffer_atomics"),
             "VulkanMemoryModel": ("vulkanMemoryModel", "vulkan_memory_model")}
#: SPIR-V capability -> subgroup operations (DeviceCaps.subgroup_ops)
_SUBGROUP_OPS = {"GroupNonUniform": "basic", "GroupNonUniformVote": "vote",
                 "GroupNonUniformArithmetic": "arithmetic", "GroupNonUniformBallot": "ballot",
                 "GroupNonUniformShuffle": "shuffle",
                 "GroupNonUniformShuffleRelative": "shuffle_relative",
                 "GroupNonUniformClustered": "clustered", "GroupNonUniformQuad": "quad"}


def missing_capability(caps: DeviceCaps, capability: str) -> str | None:
    """What the device lacks for a SPIR-V capability the shader declares, or None."""
    if capability in _FEATURES:
        feature, field = _FEATURES[capability]
        return None if getattr(caps, field) else feature
    if capability in _SUBGROUP_OPS:
        op = _SUBGROUP_OPS[capability]
        return None if caps.has_subgroup_op(op) else f"subgroup {op} operations in compute"
    if capability == "StorageImageReadWithoutFormat":
        return "storage-image reads without a format qualifier (mipview does not enable them)"
    return None


class CustomStrategy(Strategy):
    """The strategy of one custom shader version: :func:`custom_strategy` makes the subclass."""

    shader: CustomShader
    owned = ("counters", "scratch", "dummy")

    # --- class-level queries ----------------------------------------------------------------
    @classmethod
    def unsupported_reason(cls, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None:
        shader = cls.shader
        decl = shader.declaration
        opts = cls.check_options(options or {})
        if fmt not in decl.formats:
            return f"the shader declares formats {' '.join(f.label for f in decl.formats)}"
        reason = compute_reason(caps, fmt)
        if reason:
            return reason
        if fmt.is_srgb and not shader.has_constant("MIP_SRGB"):
            return ("sRGB needs the MIP_SRGB constant (include mip_common.glsl and store "
                    "mipEncode(v))")
        for b in shader.reflection.bindings:
            if b.format is not None and b.format != fmt.info.glsl_qualifier:
                return (f"binding {b.binding} ({b.name}) is declared {b.format}; "
                        f"{fmt.label} images need {fmt.info.glsl_qualifier}")
        if decl.sampler == "linear" and not caps.supports(
                fmt, flag("VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT")):
            return f"{fmt.label} cannot be filtered linearly on this device"
        for capability in sorted(shader.reflection.capabilities):
            missing = missing_capability(caps, capability)
            if missing:
                return f"the shader needs {missing}; the device lacks it"
        x, y, _ = shader.local_size(shader.constants(opts, None))
        if x * y > caps.max_workgroup_invocations:
            return (f"work group of {x}x{y} invocations; the device allows "
                    f"{caps.max_workgroup_invocations}")
        if shader.kind == "whole-chain":
            levels = mip_count(width, height)
            bound = shader.declares(1)
            if levels > bound.count:
                return f"the shader binds {bound.count} levels; a {width}x{height} image has {levels}"
            tile = cls._tile(shader, opts)
            if group_count(width, tile[0]) > MAX_GROUPS_X:
                return f"more than {MAX_GROUPS_X} work groups in x"
        return None

    @classmethod
    def reduction(cls, options: dict[str, str]) -> str:
        return cls.shader.declaration.reduction

    @staticmethod
    def _tile(shader: CustomShader, options: dict[str, str]) -> tuple[int, int]:
        if shader.declaration.tile is not None:
            return shader.declaration.tile
        x, y, _ = shader.local_size(shader.constants(options, None))
        return 2 * x, 2 * y

    def _source_views(self, image: MipImage) -> list[Any]:
        """Nearest sampling reads sRGB levels undecoded (the shader decodes them exactly with
        mipDecode); a linear sampler needs the sRGB view, which filters in linear light."""
        return image.source_views(self.shader.declaration.sampler == "linear")

    def level_sources(self, width: int, height: int, layers: int = 1) -> list[LevelSource]:
        """per-level: each level from the stored one below (the base rule); whole-chain: the
        contract of docs/custom-strategies.md (an SPD-class shader reads level 0 and carries
        every later level in registers, shared memory or the float scratch buffer)."""
        out = super().level_sources(width, height, layers)
        if self.shader.kind == "whole-chain":
            out = out[:1] + [LevelSource(reread=False)] * (len(out) - 1)
        return out

    def notes(self) -> list[str]:
        out = []
        if self.ctx.caps.robustness == "none":
            out.append("no robust buffer/image access on this device: out-of-bounds accesses "
                       "are undefined")
        stale = self._stale_counters()
        if stale:
            out.append(stale)
        return out

    @property
    def self_reset(self) -> bool:
        """The shader zeroes its counters itself at the end of every run."""
        return self.shader.declaration.counters == "self-reset"

    def _stale_counters(self) -> str | None:
        """For a ``counters self-reset`` shader: what is wrong if its counters do not read back
        zero now (after the runs), else None. One 64-byte copy per layer and one submit, when the
        result is made: nothing is added to the runs themselves. A shader that forgets the reset
        leaves them at least at the work-group count after every run that used them."""
        counters = getattr(self, "counters", None)
        if not self.self_reset or counters is None:
            return None
        staging = Buffer(self.ctx, counters.size, flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT"),
                         host_visible=True)
        try:
            with self.ctx.one_shot() as cmd:
                memory_barrier(cmd, "ALL_COMMANDS", "MEMORY_WRITE", "TRANSFER", "TRANSFER_READ")
                vk.vkCmdCopyBuffer(cmd, counters.handle, staging.handle, 1,
                                   [vk.VkBufferCopy(srcOffset=0, dstOffset=0, size=counters.size)])
                memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "HOST", "HOST_READ")
            values = staging.read().view(np.uint32).reshape(-1, COUNTERS)
        finally:
            staging.destroy()
        if not values.any():
            return None
        layer, counter = (int(i) for i in np.argwhere(values)[0])
        return (f"COUNTERS NOT RESET: the shader declares '#pragma mipview counters self-reset', "
                f"but after the runs counter {counter} of layer {layer} reads "
                f"{int(values[layer, counter])} ({int(np.count_nonzero(values))} nonzero): "
                f"every run after the first began with stale counters, so its levels and "
                f"timings are not those of the shader's work")

    # --- per image --------------------------------------------------------------------------
    def prepare(self, image: MipImage) -> None:
        shader = self.shader
        constants = shader.constants(self.opts, image.fmt)
        self.local = shader.local_size(constants)
        self.sampler = get_sampler(self.ctx, linear=shader.declaration.sampler == "linear")
        bindings = tuple((s.kind, shader.declares(s.binding).count) if s.array else s.kind
                         for s in shader.slots)
        self.pipelines = [get_pipeline(self.ctx, shader.interface, bindings, constants,
                                       robust=shader.declaration.robust == "on")]
        if image.levels < 2:
            return
        if shader.kind == "per-level":
            self._prepare_levels(image)
        else:
            self._prepare_chain(image)

    def _prepare_levels(self, image: MipImage) -> None:
        steps = []
        for level in range(1, image.levels):
            (sw, sh), (dw, dh) = image.level_size(level - 1), image.level_size(level)
            steps.append(DispatchStep(
                f"level {level}", (level,), f"{sw}x{sh} -> {dw}x{dh}", descriptor_set=level - 1,
                push=self.shader.push.pack(srcSize=(sw, sh), dstSize=(dw, dh), level=level,
                                           levels=image.levels),
                groups=(group_count(dw, self.local[0]), group_count(dh, self.local[1]),
                        image.layers)))
        self.steps = tuple(steps)
        self.sets = DescriptorSets(self.pipelines[0], image.levels - 1)
        for level in range(1, image.levels):
            self.sets.write(level - 1, [(self._source_views(image)[level - 1], self.sampler),
                                        image.storage_views[level],
                                        image.storage_views[level - 1]])

    def _prepare_chain(self, image: MipImage) -> None:
        ctx, shader = self.ctx, self.shader
        tile = self._tile(shader, self.opts)
        gx, gy = group_count(image.width, tile[0]), group_count(image.height, tile[1])
        n = shader.declaration.dispatches
        levels = tuple(range(1, image.levels))
        self.steps = tuple(DispatchStep(
            f"dispatch {d + 1}" if n > 1 else "chain", levels,
            f"{gx}x{gy} work groups of {tile[0]}x{tile[1]} level-0 texels"
            + (f", dispatch {d + 1} of {n}" if n > 1 else ""),
            push=shader.push.pack(srcSize=(image.width, image.height), levels=image.levels,
                                  layers=image.layers, dispatch=d, groups=gx * gy),
            groups=(gx, gy, image.layers)) for d in range(n))
        usage = flag("VK_BUFFER_USAGE_STORAGE_BUFFER_BIT")
        self.counters = Buffer(ctx, 4 * COUNTERS * image.layers,
                               usage | flag("VK_BUFFER_USAGE_TRANSFER_DST_BIT")
                               | flag("VK_BUFFER_USAGE_TRANSFER_SRC_BIT"))
        with ctx.one_shot() as cmd:  # once, outside any timed run
            self._zero_counters(cmd)
        texels = sum(w * h for w, h in (image.level_size(i) for i in levels)) * image.layers
        self.scratch = Buffer(ctx, 16 * texels if shader.declares(3) else 16, usage)
        count = shader.declares(1).count
        self.dummy = None
        if count > image.levels:
            self.dummy = MipImage(ctx, image.fmt, 1, 1, layers=1, levels=1)
            self.dummy.upload(np.zeros((1, 1, 4), image.fmt.dtype))
        views = [image.storage_views[i] if i < image.levels else self.dummy.storage_views[0]
                 for i in range(count)]
        self.sets = DescriptorSets(self.pipelines[0], 1)
        self.sets.write(0, [(self._source_views(image)[0], self.sampler), views,
                            (self.counters.handle, 0, self.counters.size),
                            (self.scratch.handle, 0, self.scratch.size)])

    def _zero_counters(self, cmd: Any) -> None:
        vk.vkCmdFillBuffer(cmd, self.counters.handle, 0, self.counters.size, 0)
        memory_barrier(cmd, "TRANSFER", "TRANSFER_WRITE", "COMPUTE_SHADER",
                       "SHADER_READ|SHADER_WRITE")

    @property
    def zeroes_per_run(self) -> bool:
        """mipview zeroes the counters before every run (a whole-chain shader that is not
        ``counters self-reset``)."""
        return self.shader.kind == "whole-chain" and bool(self.steps) and not self.self_reset

    def before_run(self, cmd: Any, image: MipImage) -> None:
        """Untimed set-up of one run, recorded ahead of its opening timestamp (and the barrier
        that opens it): the counters' zeroing, after the previous run's dispatches read them."""
        if self.zeroes_per_run:
            memory_barrier(cmd, "COMPUTE_SHADER", "SHADER_READ|SHADER_WRITE", "TRANSFER",
                           "TRANSFER_WRITE")
            self._zero_counters(cmd)



_classes: dict[tuple[str, str], type[CustomStrategy]] = {}
#: name -> the version :func:`custom_strategy` returns without looking at the file (see pin)
_pinned: dict[str, type[CustomStrategy]] = {}


def custom_version(name: str) -> type[CustomStrategy]:
    """The strategy class of ``shader:PATH`` for the file as it is now (compiled and checked by
    :func:`~mipview.gpu.strategies.custom_shader.load_custom_shader`; one class per version)."""
    shader = load_custom_shader(name[len(CUSTOM_PREFIX):])
    key = (name, shader.digest)
    if key not in _classes:
        _classes.setdefault(key, type(f"Custom_{shader.path.stem}", (CustomStrategy,), {
            "name": name, "title": shader.path.name,
            "description": f"custom {shader.kind} shader {shader.path}",
            "options": shader.options, "shader": shader, "__module__": __name__,
            # per-level: mipview stores and re-reads every level, so each must be the correctly
            # rounded reduction of the stored level below; whole-chain: the SPD model, level 1
            # from level 0 and every later level from unquantised values (level_sources)
            "promise": "stored" if shader.kind == "per-level" else "carried"}))
    return _classes[key]


def custom_strategy(name: str) -> type[Strategy]:
    """The pinned version of ``shader:PATH`` if there is one, else :func:`custom_version`."""
    pinned = _pinned.get(name)  # one dict read: safe against a pin from another thread
    return pinned if pinned is not None else custom_version(name)


def pin(cls: type[CustomStrategy]) -> None:
    """Make ``cls`` (a :func:`custom_version`) the version runs of its name use, whatever the
    file holds, until the next pin or :func:`unpin`: a UI that watches the file pins each good
    compile, so an edit that does not compile leaves the last good version in use."""
    _pinned[cls.name] = cls


def unpin(name: str) -> None:
    _pinned.pop(name, None)
