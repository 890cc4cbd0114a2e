"""Strategy specs: a strategy's name and options as the command line, the window and a script
write them (``name[:key=value,...]``, ``shader:PATH`` for a custom shader)."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the name of a custom strategy is this prefix and the path of its shader (``shader:x.comp``)
CUSTOM_PREFIX = "shader:"
# the path runs to the first ".comp" or ".spv" after which only ":options" (no ':') or nothing
# follows, so a path may hold ':' (never ','), and option values never hold ':'
_CUSTOM = re.compile(r"^(shader:.*?\.(?:comp|spv))(?::([^:]*))?$")


@dataclass(frozen=True)
class StrategySpec:
    """A strategy name plus its options, written ``name[:key=value,...]`` on the command line;
    a custom strategy's name is ``shader:PATH`` (``shader:PATH[:key=value,...]``)."""

    name: str
    options: tuple[tuple[str, str], ...] = ()

    @property
    def option_dict(self) -> dict[str, str]:
        return dict(self.options)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.options)

    @property
    def slug(self) -> str:
        """The spec as one file or folder name (no path separators)."""
        text = str(self).replace(":", "_").replace(",", "_").replace("=", "-")
        return text.replace("/", "_").replace("\\", "_")

    @classmethod
    def parse(cls, text: str) -> StrategySpec:
        custom = _CUSTOM.match(text.strip())
        if custom:
            name, rest = custom.group(1), custom.group(2) or ""
        elif text.strip().startswith(CUSTOM_PREFIX):
            raise ValueError(f"{text.strip()!r}: a custom strategy is {CUSTOM_PREFIX}PATH.comp "
                             f"or {CUSTOM_PREFIX}PATH.spv, then :KEY=VALUE,... if any")
        else:
            name, _, rest = text.strip().partition(":")
        opts: list[tuple[str, str]] = []
        for part in filter(None, (p.strip() for p in rest.split(","))):
            key, eq, value = part.partition("=")
            if not eq or not key or not value:
                raise ValueError(f"bad option {part!r} in strategy spec {text!r} (want key=value)")
            opts.append((key.strip(), value.strip()))
        if not name:
            raise ValueError(f"empty strategy name in {text!r}")
        return cls(name, tuple(sorted(opts)))


def parse_spec_list(text: str) -> list[StrategySpec]:
    """Split ``"blit,subgroup:layout=morton,per-level"``: commas separate specs, except inside a
    spec's option list, where a part containing ``=`` continues the previous spec."""
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return [StrategySpec.parse(s) for s in specs]
