"""How a strategy declares a user-visible option (its own module: the ``auto`` table builds
options too, and the strategy base class resolves them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OptionSpec:
    """One user-visible option: the CLI spec key, the GUI combo box, the bench sweep."""

    name: str
    choices: tuple[str, ...]
    default: str
    help: str = ""
