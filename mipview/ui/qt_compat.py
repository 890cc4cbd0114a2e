"""Guard against a refcount bug of shiboken6/PySide6 6.12 on Python < 3.12.

Found while testing the app: with PySide6 6.12.0 on Python 3.11, every call of a Qt method that
returns ``void`` decrements the refcount of ``None`` once without the matching increment (and
Python overrides of virtuals do the same to ``True`` / ``False``). Python 3.12 made these
singletons immortal, which hides it there; on 3.11 a few thousand calls later the interpreter
aborts with "Fatal Python error: none_dealloc" (the live chart reaches that within seconds).

The fix is the pin ``PySide6-Essentials<6.12`` in pyproject.toml (6.11.3 is checked clean with
:func:`leaks_none`). This module is only a guard for environments that end up with a leaking
release anyway (a pip upgrade past the pin, a distro package): :func:`pin_singletons` probes for
the leak and, only when it is detected, gives ``None``, ``True`` and ``False`` a refcount too
large to ever reach zero, which is exactly what 3.12's immortality does. With a clean PySide6 it
does nothing.
"""

from __future__ import annotations

import ctypes
import sys

_PINNED = False
_PIN = 1 << 60  # leaves 2^62 of headroom below Py_ssize_t's maximum


def leaks_none() -> bool:
    """Whether a void Qt call decrements ``None``'s refcount (the PySide6 6.12 bug)."""
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(64):
        probe.setObjectName("probe")
    return before - sys.getrefcount(None) >= 32


def pin_singletons() -> bool:
    """Apply the workaround if needed (idempotent); returns whether it is in force."""
    global _PINNED
    if _PINNED or sys.version_info >= (3, 12):
        return _PINNED
    if leaks_none():
        for obj in (None, True, False):
            ctypes.c_ssize_t.from_address(id(obj)).value += _PIN
        _PINNED = True
    return _PINNED
