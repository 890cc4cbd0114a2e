"""How a strategy declares a user-visible option (its own module: the ``auto`` table builds
options too, and the strategy base class resolves them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class OptionSpec:
    """One user-visible option: the CLI spec key, the GUI combo box, the bench sweep."""

    name: str
    #: the values offered (GUI combo box, ``all``); with ``check``, any value it accepts
    choices: tuple[str, ...]
    default: str
    help: str = ""
    #: a value's problem (e.g. "must be in [1, 8]"), or None: for numeric options
    check: Callable[[str], str | None] | None = None

    def problem(self, value: str) -> str | None:
        if self.check is not None:
            return self.check(value)
        if value not in self.choices:
            return f"must be one of {', '.join(self.choices)} (got {value!r})"
        return None
