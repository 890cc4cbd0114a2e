"""Which filter made a stored mip chain: a texture file's own levels (KTX2, DDS, EXR, KTX 1.1)
fitted against every reference filter mipview has (docs/filters.md), and how far each level is
from the best fit.

A tool that writes a chain rarely says how it made it, and a chain made with any filter but the
box, or block-compressed, is no less what its author wanted. So the chain is described, not
failed: the verdict's ``file`` rule reports the fit, and holds the chain to a bound only when the
user says which filter to expect (``mipview run FILE --expect kaiser``).

The fit, step by step as tools make chains: each level against the reference filter of the
stored level above it (mipview.check.filter_reference.step_of), never against a chain from
level 0. Candidates: the box, tent, Lanczos 2/3/4, Mitchell, Catmull-Rom and a coarse grid of
Kaiser widths and alphas, each with every edge mode (a box reads no edge), in linear light and,
for sRGB, also on the stored codes as if they were linear. Cheap first: every candidate makes
a few windows of level 1 (the corners, the edges and the middle, :func:`_windows`) from level 0;
the :data:`KEEP` with the least mean error are then confirmed on every level, whole, and the
least mean error over the chain wins. Stoppable at each candidate and level
(mipview.core.cancel).

A level *matches* its fit within :func:`match_bounds`: the fit's own rounding and arithmetic,
plus the level above's rounding carried through the filter (a tool that keeps higher precision
between levels, or makes each from level 0, is as correct as one that re-reads its stores). A
block-compressed chain's levels are decoded values: each is reported against the fit of the
decoded level above, its figure the codec's error and the filter's together (no encoder is run
here to tell them apart), with no match claimed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mipview.check import bounds
from mipview.check.compare import format_error, magnitude_below, texel_errors
from mipview.check.filter_reference import step_of
from mipview.check.tolerances import REFERENCE_SLACK
from mipview.core.cancel import checkpoint
from mipview.core.filters.resample import EDGES, Taps, apply_axis, axis_taps
from mipview.core.filters.spec import FilterSpec
from mipview.core.formats import Format, decode, encode

#: the filters of fixed shape; a box reads no edge (FilterSpec keeps it at clamp)
FIXED = ("tent", "lanczos2", "lanczos3", "lanczos4", "mitchell", "catmull-rom")
#: the coarse grid of Kaiser windows (NVTT's default is width 3, alpha 4)
KAISER_WIDTHS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
KAISER_ALPHAS = (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
#: candidates confirmed on every level after the screen of level 1
KEEP = 3
#: destination texels per window of the screen, along each axis
PROBE = 32
#: an error counted in a mean at most this large (a non-finite texel's is inf)
_CAP = 1e6


@dataclass(frozen=True)
class Candidate:
    """One way a tool may have made the chain: a filter spec, in linear light or on the stored
    sRGB codes as if they were linear (``codes``)."""

    spec: FilterSpec
    codes: bool = False

    @property
    def name(self) -> str:
        """The reference name of the filter (``mean`` for the box)."""
        return self.spec.name

    def fmt(self, fmt: Format) -> Format:
        """The format the filter decodes the levels as: the stored one, or UNORM for codes."""
        return Format.UNORM if self.codes else fmt

    def words(self, fmt: Format) -> str:
        """``kaiser w=3 a=4, clamp, in linear light``; ``box`` has no edge."""
        s = self.spec
        head = f"kaiser w={s.kaiser_width:g} a={s.kaiser_alpha:g}" if s.filter == "kaiser" \
            else s.filter
        parts = [head] if s.filter == "box" else [head, s.edge]
        if fmt.is_srgb:
            parts.append("on the sRGB codes" if self.codes else "in linear light")
        return ", ".join(parts)


@dataclass(frozen=True)
class LevelFit:
    """One level against the fit's step from the stored level above."""

    level: int
    max_error: float
    mean_error: float
    #: within this it matches (:func:`match_bounds`); inf for a block-compressed chain
    bound: float

    @property
    def matches(self) -> bool:
        return self.max_error <= self.bound + REFERENCE_SLACK

    def as_dict(self) -> dict[str, object]:
        return {"level": self.level, "max_error": _json(self.max_error),
                "mean_error": _json(self.mean_error), "bound": _json(self.bound),
                "matches": self.matches}


@dataclass(frozen=True)
class ChainFit:
    """The filter that best explains a stored chain, and each level's error against it."""

    candidate: Candidate
    #: levels 1 .. n-1
    levels: tuple[LevelFit, ...]
    fmt: Format
    #: the block compression the levels were decoded from ("BC7"), else None
    codec: str | None = None
    #: the other candidates confirmed on every level: (their words, mean error over the chain)
    others: tuple[tuple[str, float], ...] = ()

    @property
    def filter(self) -> str:
        """The reference name of the fitted filter (``kaiser,kaiser-width=4,kaiser-alpha=6``)."""
        return self.candidate.name

    @property
    def misfits(self) -> tuple[int, ...]:
        """The levels that do not match the fit (none for a block-compressed chain)."""
        if self.codec:
            return ()
        return tuple(lv.level for lv in self.levels if not lv.matches)

    def _worst(self, levels: Sequence[LevelFit]) -> str:
        worst = max(levels, key=lambda lv: lv.max_error)
        return (f"within {format_error(worst.max_error, self.fmt.error_unit)} "
                f"(worst level {worst.level})")

    def line(self) -> str:
        """The fit in one line, e.g. ``levels 1-9 match kaiser w=3 a=4, clamp, in linear light,
        within 0.8 LSB (worst level 3), each fitted from the stored level above``."""
        words = self.candidate.words(self.fmt)
        if self.codec:
            return (f"decoded from {self.codec}: levels {_ranges([lv.level for lv in self.levels])} "
                    f"against {words}, each from the decoded level above: "
                    f"{self._worst(self.levels)}; this includes the {self.codec} codec's error "
                    "(codec and filter not told apart)")
        good = [lv for lv in self.levels if lv.matches]
        bad = [lv for lv in self.levels if not lv.matches]
        if not good:
            worst = max(bad, key=lambda lv: lv.max_error)
            return (f"no level matches a reference filter; nearest {words}: up to "
                    f"{format_error(worst.max_error, self.fmt.error_unit)} (level "
                    f"{worst.level}), each fitted from the stored level above")
        text = (f"{_plural(good)} {_ranges([lv.level for lv in good])} "
                f"{'match' if len(good) > 1 else 'matches'} {words}, {self._worst(good)}")
        if bad:
            worst = max(bad, key=lambda lv: lv.max_error)
            at = f" at level {worst.level}" if len(bad) > 1 else ""
            text += (f"; {_plural(bad)} {_ranges([lv.level for lv in bad])} "
                     f"{'do' if len(bad) > 1 else 'does'} not (up to "
                     f"{format_error(worst.max_error, self.fmt.error_unit)}{at})")
        return text + ", each fitted from the stored level above"

    def as_dict(self) -> dict[str, object]:
        return {"filter": self.filter, "edge": self.candidate.spec.edge,
                "light": "codes" if self.candidate.codes else "linear",
                "codec": self.codec, "unit": self.fmt.error_unit,
                "fitted_from": "the stored level above", "text": self.line(),
                "misfits": list(self.misfits), "levels": [lv.as_dict() for lv in self.levels],
                "others": [{"filter": w, "mean_error": _json(e)} for w, e in self.others]}


def _json(v: float) -> float | str:
    return float(v) if np.isfinite(v) else str(float(v))


def _plural(levels: Sequence[LevelFit]) -> str:
    return "levels" if len(levels) > 1 else "level"


def _ranges(levels: Sequence[int]) -> str:
    """``1-3, 5, 7-9``."""
    out: list[str] = []
    for k in sorted(levels):
        if out and k == int(out[-1].split("-")[-1]) + 1:
            out[-1] = f"{out[-1].split('-')[0]}-{k}"
        else:
            out.append(str(k))
    return ", ".join(out)


def candidates(fmt: Format) -> list[Candidate]:
    """Every filter, edge and light the fit considers, the box first."""
    specs = [FilterSpec()]
    specs += [FilterSpec(name, edge) for name in FIXED for edge in EDGES]
    specs += [FilterSpec("kaiser", edge, kaiser_width=w, kaiser_alpha=a)
              for w in KAISER_WIDTHS for a in KAISER_ALPHAS for edge in EDGES]
    lights = (False, True) if fmt.is_srgb else (False,)
    return [Candidate(spec, codes) for codes in lights for spec in specs]


def match_bounds(name: str, fmt: Format, levels: int, size: tuple[int, int],
                 peak: float = 1.0) -> list[float]:
    """Per level 0 .. levels-1: how far a level may be from filter ``name``'s step of the stored
    level above and still be that filter's: its own store and arithmetic
    (:func:`bounds.step_bounds`), plus, from level 2 on, one store of the level above moved by
    the filter (its largest sum of |w|, :func:`bounds.lobe_gains`; 1 without negative lobes):
    the chain may have been made from values kept at higher precision, or from level 0.
    ``size``: level 0's (width, height); ``peak``: its largest magnitude (floats)."""
    own = bounds.step_bounds((), fmt, levels, name, size, peak)
    gains = bounds.lobe_gains(name, size, levels) or (1.0,) * (levels - 1)
    store = bounds.STORE[fmt].bound(fmt)
    return [0.0] + [own[k] + (gains[k - 1] * store if k > 1 else 0.0)
                    for k in range(1, levels)]


def _windows(n: int) -> np.ndarray:
    """The destination indices of one axis the screen makes: all of a short axis, else a
    window at each end (where the edge mode shows) and one in the middle."""
    if n <= 3 * PROBE:
        return np.arange(n)
    mid = (n - PROBE) // 2
    return np.concatenate([np.arange(PROBE), np.arange(mid, mid + PROBE),
                           np.arange(n - PROBE, n)])


def _probe(above: np.ndarray, fmt: Format, spec: FilterSpec, dst: tuple[int, int],
           rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The texels ``rows`` x ``cols`` of the level ``dst`` that ``spec`` makes from the stored
    level ``above`` (straight colour, as filter_reference makes it): float64 storage units.
    Only the source texels their taps read are decoded and filtered."""
    tx = axis_taps(above.shape[-2], dst[0], spec.kernel, spec.edge)
    ty = axis_taps(above.shape[-3], dst[1], spec.kernel, spec.edge)
    tx, ty = Taps(tx.index[cols], tx.weight[cols]), Taps(ty.index[rows], ty.weight[rows])
    src_x, src_y = np.unique(tx.index), np.unique(ty.index)
    block = decode(np.take(np.take(above, src_y, axis=-3), src_x, axis=-2), fmt)
    local_x = Taps(np.searchsorted(src_x, tx.index).astype(np.int32), tx.weight)
    local_y = Taps(np.searchsorted(src_y, ty.index).astype(np.int32), ty.weight)
    out = apply_axis(apply_axis(block, -2, local_x), -3, local_y)
    if not fmt.is_float:
        np.clip(out, 0.0, 1.0, out=out)
    return encode(out, fmt)


def _mean(err: np.ndarray) -> float:
    return float(np.minimum(err, _CAP).mean()) if err.size else 0.0


def screen(levels: Sequence[np.ndarray], fmt: Format,
           pool: Sequence[Candidate]) -> list[tuple[float, Candidate]]:
    """Each candidate's mean error over the windows of level 1 made from level 0, least
    first."""
    level0, level1 = np.asarray(levels[0]), np.asarray(levels[1])
    dst = (level1.shape[-2], level1.shape[-3])
    rows, cols = _windows(dst[1]), _windows(dst[0])
    stored = np.take(np.take(level1, rows, axis=-3), cols, axis=-2)
    scored = []
    for cand in pool:
        checkpoint()
        made = _probe(level0, cand.fmt(fmt), cand.spec, dst, rows, cols)
        scored.append((_mean(texel_errors(stored, made, fmt)), cand))
    scored.sort(key=lambda sc: sc[0])
    return scored


def level_fits(levels: Sequence[np.ndarray], fmt: Format, cand: Candidate,
               bounds_: Sequence[float]) -> tuple[LevelFit, ...]:
    """Levels 1 .. n-1 against ``cand``'s step of the stored level above, whole."""
    out = []
    for k in range(1, len(levels)):
        checkpoint()
        made = step_of(levels, k, cand.fmt(fmt), cand.name)
        # a float box level of signed texels: relative to the footprint's |texels|, as the
        # verdict measures its steps
        err = texel_errors(levels[k], made, fmt, magnitude_below(levels[k - 1], fmt, cand.name))
        out.append(LevelFit(k, float(err.max(initial=0.0)), _mean(err), bounds_[k]))
    return tuple(out)


def _chain_mean(fits: Sequence[LevelFit], levels: Sequence[np.ndarray]) -> float:
    """The mean error over every texel of levels 1 .. n-1."""
    sizes = [np.asarray(a).size for a in levels[1:]]
    return float(sum(f.mean_error * s for f, s in zip(fits, sizes, strict=True)) / sum(sizes))


def fit_chain(levels: Sequence[np.ndarray], fmt: Format, codec: str | None = None,
              peak: float = 1.0) -> ChainFit | None:
    """The best fit of the stored chain ``levels`` (storage values of ``fmt``, level 0 first);
    None for a single level. ``codec``: the block compression the levels were decoded from
    (their figures then include its error, and no level is said to match); ``peak``: level 0's
    largest magnitude (floats: the arithmetic part of :func:`match_bounds`)."""
    if len(levels) < 2:
        return None
    # a file may hold NaN and +-Inf texels (the verdict counts them apart): filtering them makes
    # NaN where +Inf meets -Inf, which is no error of the fit
    with np.errstate(invalid="ignore", over="ignore"):
        return _fit(levels, fmt, codec, peak)


def _fit(levels: Sequence[np.ndarray], fmt: Format, codec: str | None,
         peak: float) -> ChainFit | None:
    kept = [cand for _, cand in screen(levels, fmt, candidates(fmt))[:KEEP]]
    n = len(levels)
    size = (np.shape(levels[0])[-2], np.shape(levels[0])[-3])
    confirmed = []
    for cand in kept:
        lfmt = cand.fmt(fmt)
        limit = [float("inf")] * n if codec else match_bounds(cand.name, lfmt, n, size, peak)
        fits = level_fits(levels, fmt, cand, limit)
        confirmed.append((_chain_mean(fits, levels), cand, fits))
    confirmed.sort(key=lambda c: c[0])
    _, best, fits = confirmed[0]
    others = tuple((cand.words(fmt), score) for score, cand, _ in confirmed[1:])
    return ChainFit(best, fits, fmt, codec, others)

