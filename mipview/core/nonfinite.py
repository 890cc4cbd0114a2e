"""Counting non-finite texels (NaN, +Inf, -Inf): in a source image, and level by level in a
pyramid, so a report can say once how many there are and how each strategy propagated them.

A texel is non-finite when any of its four channels is. It counts once in ``texels`` and once
in each kind it holds, so the kinds can add up to more than ``texels``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class NonFinite:
    texels: int = 0
    nan: int = 0
    pos_inf: int = 0
    neg_inf: int = 0

    def __bool__(self) -> bool:
        return self.texels > 0

    def describe(self) -> str:
        """E.g. "3 non-finite texels (2 NaN, 1 +Inf)"; "" when there are none."""
        if not self:
            return ""
        plural = "" if self.texels == 1 else "s"
        return f"{self.texels} non-finite texel{plural} ({self.kinds()})"

    def kinds(self) -> str:
        """E.g. "2 NaN, 1 +Inf" (kinds with none left out); "" when there are none."""
        return ", ".join(f"{n} {name}" for n, name in ((self.nan, "NaN"), (self.pos_inf, "+Inf"),
                                                       (self.neg_inf, "-Inf")) if n)

    def as_dict(self) -> dict[str, int]:
        return {"texels": self.texels, "nan": self.nan, "pos_inf": self.pos_inf,
                "neg_inf": self.neg_inf}


def count_nonfinite(values: np.ndarray) -> NonFinite:
    """Non-finite texels of ``(..., 4)`` values (any leading axes: layers). Integer values are
    all finite and cost nothing; float values cost one pass when all are finite."""
    a = np.asarray(values)
    if a.ndim == 0 or a.shape[-1] != 4:
        raise ValueError(f"expected (..., 4) texels, got shape {a.shape}")
    if not np.issubdtype(a.dtype, np.floating) or np.isfinite(a).all():
        return NonFinite()
    texels = int(np.count_nonzero(~np.isfinite(a).all(axis=-1)))
    return NonFinite(texels=texels,
                     nan=int(np.count_nonzero(np.isnan(a).any(axis=-1))),
                     pos_inf=int(np.count_nonzero((a == np.inf).any(axis=-1))),
                     neg_inf=int(np.count_nonzero((a == -np.inf).any(axis=-1))))


def nonfinite_per_level(levels: Sequence[np.ndarray]) -> list[NonFinite]:
    """:func:`count_nonfinite` of every level of a pyramid (e.g. a strategy's read-back levels,
    or a reference), level 0 first."""
    return [count_nonfinite(level) for level in levels]


@dataclass(frozen=True)
class Propagation:
    """How a result carried the non-finite texels of its level 0 down its pyramid: its counts
    per level beside those of the exact reference (NaN where a block holds NaN or both
    infinities, the infinity where it holds one and finite values)."""

    levels: tuple[NonFinite, ...]
    reference: tuple[NonFinite, ...]

    @property
    def as_reference(self) -> bool:
        """Every level holds as many non-finite texels of each kind as the exact reference."""
        return self.levels == self.reference

    def describe(self) -> str:
        """E.g. "non-finite texels per level 4 2 1 1, as the exact reduction", or where the
        first level that differs differs."""
        counts = " ".join(str(n.texels) for n in self.levels)
        if self.as_reference:
            return f"non-finite texels per level {counts}, as the exact reduction"
        level, got, want = next((i, a, b) for i, (a, b) in
                                enumerate(zip(self.levels, self.reference, strict=True)) if a != b)
        return (f"non-finite texels per level {counts}; level {level} has "
                f"{got.describe() or 'none'} where the exact reduction has "
                f"{want.describe() or 'none'}")

    def as_dict(self) -> dict[str, object]:
        return {"as_reference": self.as_reference,
                "levels": [n.as_dict() for n in self.levels],
                "reference": [n.as_dict() for n in self.reference]}


def propagation(levels: Sequence[np.ndarray],
                reference: Sequence[NonFinite]) -> Propagation | None:
    """The :class:`Propagation` of ``levels`` against the reference's counts per level
    (:func:`nonfinite_per_level` of the exact pyramid); None when the reference's level 0 has
    none (nothing to propagate, and no pass over the levels)."""
    if not reference or not reference[0]:
        return None
    return Propagation(tuple(nonfinite_per_level(levels)), tuple(reference))


def load_note(name: str, found: NonFinite, to_float: bool, top: int = 255) -> str:
    """What to say once about an image's non-finite texels ("" when it has none): where a
    float run keeps them, each result reports how it propagated them; UNORM storage turns
    them into codes (a float -> UNORM conversion: NaN and -Inf 0, +Inf the ``top`` code)."""
    if not found:
        return ""
    what = f"{name}: level 0 has {found.describe()}"
    if to_float:
        return f"{what}; each result reports how it propagated them"
    return f"{what}, stored as {top.bit_length()}-bit codes (NaN and -Inf become 0, +Inf {top})"
