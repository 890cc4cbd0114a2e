"""``auto`` option values resolved from one table of measurements: per device kind, format and
size class, the fastest value whose results keep the verdict's promise for that format.

A strategy declares such an option with :func:`auto_option`; ``auto`` is its default only where
the table holds a measured entry for it (elsewhere the option keeps today's default, and
``auto`` resolves to that). :func:`resolve` turns the asked options into the ones used (what
the runner prepares, what report.json's ``options_used`` and the notes show), trying the table's
value first and today's default next, and taking the first that the strategy can run here
(:meth:`Strategy.unsupported_reason`) and whose results the verdict bounds in this format
(:func:`promise_reason`). So a table entry the promise does not cover is never picked, and
:func:`table_problems` lists such entries (tests keep the table free of them).

Options that resolve per dispatch inside the strategy (``tiles``, ``prefetch``,
``subgroup_size``, npot-exact's ``path``) keep their own ``auto``: the plan's details show what
each dispatch got; they are not in this table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from mipview.core.formats import Format
from mipview.gpu.strategies.options import OptionSpec
from mipview.gpu.vulkan.context import DeviceCaps


class StrategyClass(Protocol):
    """What :func:`resolve` uses of a Strategy subclass (base.py imports this module)."""

    name: str

    def check_options(self, options: dict[str, str]) -> dict[str, str]: ...

    def unsupported_reason(self, caps: DeviceCaps, fmt: Format, width: int, height: int,
                           layers: int = 1, options: dict[str, str] | None = None) -> str | None: ...

AUTO = "auto"
NVIDIA_VENDOR = 0x10DE

#: (name, largest texel count of level 0 per layer): the first class an image fits in
SIZE_CLASSES: tuple[tuple[str, float], ...] = (
    ("below 4096²", 4096 * 4096 - 1),
    ("4096² to 8192²", 8192 * 8192),
    ("above 8192²", float("inf")),
)

#: (strategy, option) -> the value ``auto`` falls back to: today's default, as the strategy
#: declares it with :func:`auto_option` (complete once mipview.gpu.strategies has loaded every
#: strategy module, which importing this module does first)
FALLBACK: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Entry:
    """One row of the table: on ``device`` kind, for ``formats`` in size class ``size``,
    ``auto`` picks ``value`` for ``strategy``'s ``option``."""

    device: str          # device_kind(): "nvidia" | "cpu" | "other"
    strategy: str
    option: str
    value: str
    formats: tuple[Format, ...]
    size: str            # a name of SIZE_CLASSES
    #: where the figure comes from; ``measured`` False: a placeholder until a measurement
    source: str
    measured: bool = True


_RGBA8 = (Format.UNORM,)
_ALL = tuple(Format)

TABLE: tuple[Entry, ...] = (
    # H200, 2026-11-22, cold, median of 50, RGBA8: one bilinear sample per 2x2 beats
    # four texel loads at 4096^2 (37.3 vs 44.2 us) and 8192^2 (102 vs 138 us). Not measured
    # below 4096^2 nor in other formats: texel there.
    Entry("nvidia", "single-pass", "load", "bilinear", _RGBA8, "4096² to 8192²",
          "H200 2026-11-22: 4096² 37.3 vs 44.2 us, 8192² 102 vs 138 us"),
    # tail, H200 2026-11-22 (docs/bench/speed, runs 2026-11-22 and
    # 2026-11-22-shared-tail, cold, median of 50, RGBA8): below 4096^2 a
    # 2048-texel tail (one more dispatch, a shorter serial tail) wins at the render-target sizes
    # (1920x1080 31.8 vs 33.2 us, 3840x2160 44.1 vs 45.5, 1921x1079 52.0 vs 53.7; 2560x1440
    # within noise; 4095^2 is 1.5% slower, 203.4 vs 200.3); at 4096^2 and 8192^2 every value
    # gives the same plan. Other formats: not measured, today's 8192 as a placeholder.
    Entry("nvidia", "single-pass", "tail", "2048", _RGBA8, "below 4096²",
          "H200 2026-11-22: 1920x1080 31.8 vs 33.2 us, 3840x2160 44.1 vs 45.5"),
    Entry("nvidia", "single-pass", "tail", "8192", _RGBA8, "4096² to 8192²",
          "H200 2026-11-22: the same plan whatever the value (4096² 45.7 us)"),
    *(Entry("nvidia", "single-pass", "tail", "8192", fmts, size,
            "today's default: not measured", measured=False)
      for fmts, size in (((Format.SRGB, Format.F16, Format.F32), "below 4096²"),
                         ((Format.SRGB, Format.F16, Format.F32), "4096² to 8192²"),
                         (_ALL, "above 8192²"))),
    # npot-exact load (its fast dispatch from level 0 is single-pass's tile phase), H200
    # 2026-11-22, docs/bench/npot, run 2026-11-22, cold, median of 50, RGBA8, two rounds
    # (the final call, docs/bench/speed, run 2026-11-22-final: 1920x1080 20.7 vs 19.8 us,
    # 2560x1440 20.3 vs 21.7, 3840x2160 31.5 vs 32.8, 4096² 40.4 vs 46.6, 8192² 104.8 vs 141.5:
    # below 4096² within a microsecond either way)
    Entry("nvidia", "npot-exact", "load", "bilinear", _RGBA8, "below 4096²",
          "H200 2026-11-22: 3840x2160 36.7 vs 38.5 us, 31.5 vs 32.8; 1920x1080 even"),
    Entry("nvidia", "npot-exact", "load", "bilinear", _RGBA8, "4096² to 8192²",
          "H200 2026-11-22: 4096² 40.4 vs 46.6 us, 8192² 104.8 vs 141.5"),
    # RGBA16F, H200 2026-11-22 (docs/bench/speed, run 2026-11-22-final, cold, median of
    # 50; 4096^2 only: 8192^2 RGBA16F not timed)
    Entry("nvidia", "single-pass", "load", "bilinear", (Format.F16,), "4096² to 8192²",
          "H200 2026-11-22: 4096² RGBA16F 52.8 vs 57.2 us (54.1 vs 57.6 in an earlier call)"),
    Entry("nvidia", "npot-exact", "load", "bilinear", (Format.F16,), "4096² to 8192²",
          "H200 2026-11-22: 4096² RGBA16F 54.1 vs 57.2 us"),
    # subgroup load: H200 bilinear 4096^2 56.2 vs 46.1 us (subgroup.py), but texel at 8192^2
    # was never timed against it: no entry until it is
    # lavapipe (docs/bench/lavapipe) drifted by +-100% on the shared
    # 2-core machine: no ranking, so "cpu" keeps today's defaults (no entries)
)

#: (option, value) -> formats whose verdict bounds results made with it (mipview.check.bounds); an
#: (option, value) not listed is bounded in every format
PROMISED: dict[tuple[str, str], tuple[tuple[Format, ...], str]] = {
    # bounds.py models a bilinear sample as two roundings to the format (the filter's two 1-D
    # stages). In sRGB the sampler also decodes, by its own approximation (lavapipe's is ~0.3
    # LSB off) and, Vulkan only says, "should" before filtering: that is outside the model, so
    # the bound holds there by measurement only. fp32 filtering precision is the device's.
    ("load", "bilinear"): ((Format.UNORM, Format.F16),
                           "the verdict's bilinear bound covers the filter's roundings, not a "
                           "sampler's own sRGB decode, nor fp32 filtering"),
}


@dataclass(frozen=True)
class Pick:
    """What ``auto`` became for one option, and why."""

    option: str
    value: str
    why: str

    def note(self) -> str:
        return f"auto {self.option}={self.value}: {self.why}"


def device_kind(caps: DeviceCaps) -> str:
    """The table's device key: a discrete NVIDIA GPU, a CPU device (lavapipe), or other."""
    if caps.device_type == "cpu":
        return "cpu"
    if caps.device_type == "discrete" and caps.vendor_id == NVIDIA_VENDOR:
        return "nvidia"
    return "other"


def size_class(width: int, height: int) -> str:
    texels = width * height
    return next(name for name, most in SIZE_CLASSES if texels <= most)


def auto_option(strategy: str, name: str, choices: Sequence[str], help: str, fallback: str,
                table: Sequence[Entry] = TABLE) -> OptionSpec:
    """An option with an ``auto`` choice resolved from the table: ``auto`` is the default where
    the table holds a measured entry for it, else ``fallback``, today's default (one of
    ``choices``; kept in :data:`FALLBACK`)."""
    if fallback not in choices:
        raise ValueError(f"{strategy}:{name}: fallback {fallback!r} is not one of {choices}")
    if FALLBACK.setdefault((strategy, name), fallback) != fallback:
        raise ValueError(f"{strategy}:{name}: declared with two fallbacks "
                         f"({FALLBACK[(strategy, name)]!r}, {fallback!r})")
    measured = any(e.measured and (e.strategy, e.option) == (strategy, name) for e in table)
    default = AUTO if measured else FALLBACK[(strategy, name)]
    return OptionSpec(name, (*choices, AUTO), default,
                      f"{help} (auto: the fastest measured choice for the device, format and "
                      "size that the verdict bounds)")


def is_table_auto(strategy: str, option: str, value: str) -> bool:
    return value == AUTO and (strategy, option) in FALLBACK


def concrete(strategy: str, options: Mapping[str, str]) -> dict[str, str]:
    """``options`` with every table ``auto`` replaced by its fallback (no device, no image)."""
    return {k: FALLBACK[(strategy, k)] if is_table_auto(strategy, k, v) else v
            for k, v in options.items()}


def promise_reason(fmt: Format, option: str, value: str) -> str | None:
    """Why the verdict does not bound results made with ``option=value`` in ``fmt``, or None."""
    promised = PROMISED.get((option, value))
    if promised is None or fmt in promised[0]:
        return None
    return f"{option}={value} in {fmt.label}: {promised[1]}"


def table_problems(table: Sequence[Entry] | None = None) -> list[str]:
    """Entries ``auto`` could never pick (a value the verdict does not bound in a format, an
    unknown size class or device kind, an option without a fallback): empty for a sound table
    (default: :data:`TABLE`)."""
    table = TABLE if table is None else table
    sizes = {name for name, _ in SIZE_CLASSES}
    out = []
    for e in table:
        where = f"{e.device} {e.strategy}:{e.option}={e.value} ({e.size})"
        if (e.strategy, e.option) not in FALLBACK:
            out.append(f"{where}: not an auto option")
        if e.size not in sizes or e.device not in ("nvidia", "cpu", "other"):
            out.append(f"{where}: unknown size class or device kind")
        out += [f"{where}: {r}" for fmt in e.formats
                if (r := promise_reason(fmt, e.option, e.value))]
    return out


def resolve(cls: StrategyClass, caps: DeviceCaps, fmt: Format, width: int, height: int,
            layers: int, options: Mapping[str, str],
            table: Sequence[Entry] | None = None) -> tuple[dict[str, str], tuple[Pick, ...]]:
    """The options used for the asked ``options`` (defaults filled), and a :class:`Pick` per
    table ``auto``: the table's value for (device kind, format, size class) if the strategy
    runs with it here and the verdict bounds it in ``fmt``, else the fallback."""
    table = TABLE if table is None else table
    asked = cls.check_options(dict(options))
    autos = [k for k, v in asked.items() if is_table_auto(cls.name, k, v)]
    used = concrete(cls.name, asked)
    kind, size = device_kind(caps), size_class(width, height)
    picks = []
    for key in autos:
        fallback = FALLBACK[(cls.name, key)]
        rows = [e for e in table if (e.device, e.strategy, e.option, e.size)
                == (kind, cls.name, key, size) and fmt in e.formats]
        why = f"no measured entry for {kind}, {fmt.label}, {size}: today's default"
        for e in rows:
            reason = (promise_reason(fmt, key, e.value) or
                      cls.unsupported_reason(caps, fmt, width, height, layers,
                                             {**used, key: e.value}))
            if reason is None:
                used[key] = e.value
                why = f"{kind}, {fmt.label}, {size}: {e.source}"
                break
            why = f"table's {e.value} not eligible ({reason}): today's default {fallback}"
        picks.append(Pick(key, used[key], why))
    return used, tuple(picks)
