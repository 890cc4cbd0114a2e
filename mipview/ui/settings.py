"""The window's settings file, and the one way to read a list from it."""

from __future__ import annotations

from PySide6.QtCore import QSettings


def make_settings() -> QSettings:
    """INI settings in the user scope; tests redirect them with ``QSettings.setPath``."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "mipview", "mipview")


def string_list(settings: QSettings, key: str) -> list[str]:
    """The list of strings at ``key`` (empty when missing). An INI file gives a list of one back
    as a plain string."""
    value = settings.value(key, []) or []
    return [value] if isinstance(value, str) else list(value)
