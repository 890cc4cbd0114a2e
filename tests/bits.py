"""Bit-for-bit comparison of arrays, NaN payloads included (round trips, GPU against file)."""

from __future__ import annotations

import numpy as np


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shape, type and bits."""
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(
        np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))
