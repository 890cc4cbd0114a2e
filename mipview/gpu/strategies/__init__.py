"""The strategy registry: the UI and the CLI read names, options and reasons from here.

A new strategy is one module with one :class:`Strategy` subclass, added to ``_MODULES``.
"""

from __future__ import annotations

import importlib

from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.specs import CUSTOM_PREFIX, StrategySpec
from mipview.gpu.strategies import auto
from mipview.gpu.strategies.auto import Pick
from mipview.gpu.strategies.base import OptionSpec, Strategy
from mipview.gpu.vulkan.context import DeviceCaps

# Registry order is display order.
_MODULES = [
    "blit",
    "per_level",
    "register_chain",
    "npot_exact",
    "subgroup",
    "single_pass",
    "filter_pairs",
    "sampler_minmax",
]

REGISTRY: dict[str, type[Strategy]] = {}


def _load() -> None:
    for mod_name in _MODULES:
        module = importlib.import_module(f"mipview.gpu.strategies.{mod_name}")
        for obj in vars(module).values():
            if (isinstance(obj, type) and issubclass(obj, Strategy) and obj is not Strategy
                    and obj.__module__ == module.__name__ and hasattr(obj, "name")):
                REGISTRY[obj.name] = obj


class UnknownStrategy(MipviewError):
    pass


def strategy_class(name: str) -> type[Strategy]:
    """A built-in strategy by name, or the custom strategy of ``shader:PATH`` (the file is
    compiled and checked: CompileError, InterfaceError or MipviewError, one line each)."""
    if name.startswith(CUSTOM_PREFIX):
        from mipview.gpu.strategies.custom import custom_strategy

        return custom_strategy(name)
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(REGISTRY)
        raise UnknownStrategy(f"unknown strategy {name!r} (known: {known}, or "
                              f"{CUSTOM_PREFIX}PATH.comp|.spv)") from None


def resolve(spec: StrategySpec) -> tuple[type[Strategy], dict[str, str]]:
    """The class and its full option dict; raises UnknownStrategy with a one-line message."""
    cls = strategy_class(spec.name)
    try:
        options = cls.check_options(spec.option_dict)
    except ValueError as exc:
        raise UnknownStrategy(str(exc)) from None
    reason = cls.option_reason(options)
    if reason:
        raise UnknownStrategy(f"{spec.name}: {reason}")
    return cls, options


def configure(spec: StrategySpec, caps: DeviceCaps, fmt: Format, width: int, height: int,
              layers: int = 1) -> tuple[type[Strategy], dict[str, str], tuple[Pick, ...]]:
    """:func:`resolve`, then every table ``auto`` resolved for this device, format and size
    (:func:`mipview.gpu.strategies.auto.resolve`): the class, the options to run it with, and
    what each ``auto`` became and why."""
    cls, options = resolve(spec)
    used, picks = auto.resolve(cls, caps, fmt, width, height, layers, options)
    return cls, used, picks


def default_specs() -> list[StrategySpec]:
    """``all``: every registered strategy that makes the box pyramid by default."""
    return [StrategySpec(name) for name, cls in REGISTRY.items() if cls.in_all]


_load()

__all__ = ["REGISTRY", "OptionSpec", "Strategy", "UnknownStrategy", "configure", "default_specs",
           "resolve", "strategy_class"]
