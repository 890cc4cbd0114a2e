"""Strategy specs as a person writes them (``--strategies``, the GUI's ``--run``), expanded into
the :class:`StrategySpec` list the runner takes, checked against the registry."""

from __future__ import annotations

from mipview.core import reductions
from mipview.core.errors import MipviewError
from mipview.core.specs import StrategySpec, parse_spec_list
from mipview.gpu import strategies
from mipview.gpu.strategies.auto import is_table_auto


class BadSpec(MipviewError):
    """A spec list that cannot be read or names an unknown option (one line for the user)."""


def expand_specs(text: str, reversed_z: bool = False) -> list[StrategySpec]:
    """``all`` is every registered strategy with default options; an option value ``all``
    expands to every choice of that option that the strategy can do with the others given
    (Strategy.option_reason: ``per-level:filter=tent,load=all`` leaves out bilinear, which
    serves the box only), but a table ``auto`` (mipview.gpu.strategies.auto). The depth names
    ``reduction=nearest|farthest`` become min or max as ``reversed_z`` says
    (mipview.core.reductions). An expanded spec leaves out the options that change nothing
    beside the others, once each. Raises BadSpec or UnknownStrategy."""
    if text.strip() == "all":
        return strategies.default_specs()
    try:
        specs = parse_spec_list(text)
    except ValueError as exc:
        raise BadSpec(str(exc)) from None
    out: list[StrategySpec] = []
    for spec in specs:
        cls = strategies.strategy_class(spec.name)
        variants: list[dict[str, str]] = [{}]
        expanded = False
        for key, value in spec.options:
            choices = [reductions.by_depth(value, reversed_z) if key == "reduction" else value]
            if value == "all":
                opt = next((o for o in cls.options if o.name == key), None)
                if opt is None:
                    raise BadSpec(f"strategy {spec.name!r} has no option {key!r}")
                # a table ``auto`` runs one of the other choices: a sweep would time it twice
                choices = [c for c in opt.choices if not is_table_auto(spec.name, key, c)]
                expanded = True
            variants = [{**v, key: c} for v in variants for c in choices]
        if expanded:
            variants = [v for v in variants if _can(cls, v)] or variants  # none: say why
            variants = _distinct(cls, variants)
        for v in variants:
            s = StrategySpec(spec.name, tuple(sorted(v.items())))
            strategies.resolve(s)  # validates names and values with a one-line message
            out.append(s)
    return out


def _distinct(cls: type[strategies.Strategy],
              variants: list[dict[str, str]]) -> list[dict[str, str]]:
    """One variant per distinct run: options that change nothing beside the others
    (Strategy.idle_options: the box's edge, Kaiser's width with another filter) are left out,
    and the variants that then repeat are dropped (``filter=all,edge=all`` times the box once,
    not once per edge)."""
    out: list[dict[str, str]] = []
    for v in variants:
        try:
            idle = cls.idle_options(cls.check_options(v))
        except ValueError:
            idle = {}  # a bad value: resolve says which, in one line
        kept = {key: value for key, value in v.items() if key not in idle}
        if kept not in out:
            out.append(kept)
    return out


def idle_notes(spec: StrategySpec) -> list[str]:
    """A line for each option given in ``spec`` (a valid one) that changes nothing beside the
    others: the CLI warns with them, as the Setup panel greys such options out."""
    cls = strategies.strategy_class(spec.name)
    options = spec.option_dict
    idle = cls.idle_options(cls.check_options(options))
    return [f"{spec}: {key}={value} changes nothing here (it counts only with {idle[key]})"
            for key, value in options.items() if key in idle]


def _can(cls: type[strategies.Strategy], options: dict[str, str]) -> bool:
    try:
        return cls.option_reason(cls.check_options(options)) is None
    except ValueError:
        return True  # a bad value: resolve says which, in one line
