"""What a filtered pyramid is: the filter, its edge mode, where each level is made from, how
alpha is treated and what kind of texture it is. One frozen :class:`FilterSpec`, written as text
in a result's ``reduction`` (``mean`` for today's box, else e.g. ``lanczos3,edge=wrap``) so the
verdict, the reports and the JSON carry it like any other reference name."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from mipview.core.filters.kernels import (
    FILTER_NAMES,
    KAISER_ALPHA,
    KAISER_ALPHA_RANGE,
    KAISER_WIDTH,
    KAISER_WIDTH_RANGE,
    Kernel,
    kernel,
)
from mipview.core.filters.resample import CUBE, EDGES
from mipview.core.formats import Format

SOURCES = ("previous", "level0")
ALPHAS = ("straight", "premultiplied", "coverage")
KINDS = ("colour", "normal")
#: a spec's edge: the per-axis modes, and a cube map's seamless edge (docs/cube-maps.md; only
#: the float64 reference makes it, the GPU strategies offer EDGES)
SPEC_EDGES = (*EDGES, CUBE)
CUTOFF_RANGE = (0.0, 1.0)  # exclusive: a cutoff of 0 or 1 passes all or nothing
#: numeric parameters: (lowest, highest, whether the ends are allowed)
RANGES: dict[str, tuple[float, float, bool]] = {
    "kaiser_width": (*KAISER_WIDTH_RANGE, True),
    "kaiser_alpha": (*KAISER_ALPHA_RANGE, True),
    "cutoff": (*CUTOFF_RANGE, False),
}
CHOICES: dict[str, tuple[str, ...]] = {
    "filter": FILTER_NAMES, "edge": SPEC_EDGES, "source": SOURCES, "alpha": ALPHAS, "kind": KINDS}
#: fields that matter only where another field has one of some values: field -> (the other,
#: those values). Elsewhere a field takes its default, so that each distinct filter has one spec
#: and one name; the Setup panel greys such an option out. A box never reads past its level, so
#: its edges do not matter, not even a cube's (a box chain of a cube map is the same seamless or
#: with independent faces).
DEPENDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "edge": ("filter", tuple(f for f in FILTER_NAMES if f != "box")),
    "kaiser_width": ("filter", ("kaiser",)),
    "kaiser_alpha": ("filter", ("kaiser",)),
    "cutoff": ("alpha", ("coverage",)),
}


@dataclass(frozen=True)
class FilterSpec:
    filter: str = "box"
    edge: str = "clamp"
    #: ``previous``: each level from the stored level below (fast); ``level0``: from level 0
    source: str = "previous"
    alpha: str = "straight"
    kind: str = "colour"
    kaiser_width: float = KAISER_WIDTH
    kaiser_alpha: float = KAISER_ALPHA
    #: the alpha test's reference value (alpha >= cutoff passes), for ``alpha=coverage``
    cutoff: float = 0.5

    def __post_init__(self) -> None:
        for key, choices in CHOICES.items():
            if getattr(self, key) not in choices:
                raise ValueError(f"{key} must be one of {', '.join(choices)} "
                                 f"(got {getattr(self, key)!r})")
        for key, (lo, hi, closed) in RANGES.items():
            v = getattr(self, key)
            inside = lo <= v <= hi if closed else lo < v < hi
            if not inside:
                ends = f"[{lo:g}, {hi:g}]" if closed else f"({lo:g}, {hi:g})"
                raise ValueError(f"{key.replace('_', '-')} must be in {ends} (got {v:g})")
        for key, (other, values) in DEPENDS.items():
            if getattr(self, other) not in values:
                object.__setattr__(self, key, DEFAULTS[key])

    @property
    def kernel(self) -> Kernel:
        return kernel(self.filter, self.kaiser_width, self.kaiser_alpha)

    @property
    def is_mean(self) -> bool:
        """Today's exact box chain: the ``mean`` reference."""
        return self == FilterSpec()

    @property
    def name(self) -> str:
        """Canonical text: ``mean`` for the default, else the filter and every non-default
        field (``lanczos3,edge=wrap``)."""
        if self.is_mean:
            return "mean"
        default = FilterSpec()
        parts = [self.filter]
        for f in fields(self):
            if f.name == "filter":
                continue
            v = getattr(self, f.name)
            if v != getattr(default, f.name):
                parts.append(f"{f.name.replace('_', '-')}={v:g}" if isinstance(v, float)
                             else f"{f.name.replace('_', '-')}={v}")
        return ",".join(parts)


#: every field's default (what a field that does not count takes: DEPENDS)
DEFAULTS: dict[str, object] = {f.name: f.default for f in fields(FilterSpec)}


def parse_filter(text: str) -> FilterSpec:
    """:attr:`FilterSpec.name` back into a spec (``mean`` is the default box). Raises ValueError
    with the valid choices or range."""
    if text == "mean":
        return FilterSpec()
    first, *rest = text.split(",")
    values: dict[str, object] = {"filter": first}
    for part in rest:
        key, sep, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in {f.name for f in fields(FilterSpec)} or key == "filter":
            raise ValueError(f"bad filter field {part!r} in {text!r}")
        values[key] = _number(key, value) if key in RANGES else value
    return FilterSpec(**values)  # type: ignore[arg-type]


def _number(key: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{key.replace('_', '-')} must be a number (got {value!r})") from None


def from_options(options: dict[str, str]) -> FilterSpec:
    """The spec of a strategy's options (``filter``, ``edge``, ``source``, ``alpha``, ``kind``,
    ``kaiser-width``, ``kaiser-alpha``, ``cutoff``; absent ones take their defaults)."""
    spec = FilterSpec()
    values: dict[str, object] = {}
    for f in fields(FilterSpec):
        text = options.get(f.name.replace("_", "-"))
        if text is not None:
            values[f.name] = _number(f.name, text) if f.name in RANGES else text
    return replace(spec, **values)  # type: ignore[arg-type]


def idle_options(options: dict[str, str]) -> dict[str, str]:
    """Of a strategy's filter options (as :func:`from_options` reads them), those that change
    nothing with the others as they are, each with the choice it needs
    (``{"kaiser-width": "filter=kaiser"}``)."""
    idle: dict[str, str] = {}
    for key, (other, values) in DEPENDS.items():
        option, other_option = key.replace("_", "-"), other.replace("_", "-")
        if option in options and options.get(other_option, DEFAULTS[other]) not in values:
            rest = [v for v in CHOICES[other] if v not in values]
            idle[option] = (f"{other_option}={values[0]}" if len(values) == 1
                            else f"{other_option} other than {', '.join(rest)}")
    return idle


def format_reason(spec: FilterSpec, fmt: Format) -> str | None:
    """Why ``spec`` cannot apply to images of ``fmt``, or None."""
    if not spec.is_mean and fmt.channels < 4:
        # the filter shaders and their references carry colour and alpha as RGBA
        return (f"filter={spec.filter}: filters serve the four-channel formats; {fmt.label} has "
                f"{fmt.channels} (use the box, or reduction=min/max)")
    if not spec.is_mean and fmt.packing:
        # their shaders scale alpha by one code for every channel, and clamp 8/16-bit UNORM
        return (f"filter={spec.filter}: filters serve the 8-bit, 16-bit and float formats, not "
                f"the packed {fmt.label} (use the box, or reduction=min/max)")
    if spec.kind == "normal" and fmt.is_srgb:
        return "kind=normal: a normal map is stored linearly, not as sRGB"
    return None
