"""Which channels of an EXR make the image mipview reads, and that image made of them.

Renderers write many images into one file: a beauty pass's ``R``, ``G``, ``B``, ``A`` beside
its depth ``Z``, layers (``diffuse.R``..., ``forward.u``, ``forward.v``), parts (``beauty``,
``depth``), luminance/chroma (``Y``, ``RY``, ``BY``). Each part is judged on its own channels:
its *offers* are its layers' colour images (R G B A, or Y RY BY A) and its other channels one
by one. Read without a choice (mipview.io.containers.exr_choice), a file gives its first colour
image, else a lone channel, and says which it read and what else it holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mipview.core.formats import Format
from mipview.io.containers import exr_yca
from mipview.io.containers.exr_choice import Choice
from mipview.io.containers.texture import ContainerError, HeldImage

_COLOUR = ("R", "G", "B", "A")
#: the most channels of other names a layer is read as (as R, G, B, A in name order)
_MOST = 4


@dataclass(frozen=True)
class Offer:
    """One image a part holds: ``channels`` (full names) in the order they become R, G, B, A;
    ``kind`` "colour" (R G B A), "luma" (Y RY BY A), "channel" (one, any name) or "layer"
    (a layer's channels of other names)."""

    part: int
    layer: str
    channels: tuple[str, ...]
    kind: str

    def words(self) -> str:
        """``R, G, B, A``, ``Z``, ``diffuse (R, G, B)``, ``forward (u, v)``."""
        if self.kind == "channel":
            return self.channels[0]
        own = ", ".join(c[len(self.layer) + 1:] if self.layer else c for c in self.channels)
        return f"{self.layer} ({own})" if self.layer else own

    def held(self) -> int:
        """The channels of the image it makes: 1 (one channel, a lone Y), 2 (R and G, a layer
        of two) or 4."""
        bases = {c.rpartition(".")[2] for c in self.channels}
        if len(self.channels) == 1 or (self.kind == "layer" and len(self.channels) == 2):
            return len(self.channels)
        return 2 if self.kind == "colour" and bases == {"R", "G"} else 4

    def described(self) -> str:
        """What a file description says it read: ``Z``, ``R, G``, ``RGBA``, ``RGBA from
        luminance/chroma (Y, RY, BY)``, ``RGBA of layer diffuse``."""
        if self.held() < 4:
            return ", ".join(self.channels)
        text = "RGBA"
        if self.kind == "luma" and len(self.channels) > 2:
            text += " from luminance/chroma (Y, RY, BY)"
        if self.layer:
            text += f" of layer {self.layer}"
        return text

    def selector(self) -> str:
        """What to put after ``#`` to read this offer (a part's index added by the caller)."""
        return self.channels[0] if self.kind == "channel" else self.layer


def _layer_of(name: str) -> tuple[str, str]:
    layer, dot, base = name.rpartition(".")
    return (layer, base) if dot else ("", name)


def _layers(names: Sequence[str]) -> dict[str, dict[str, str]]:
    """layer -> {base name -> full name}, the unnamed layer first, then in the file's order."""
    out: dict[str, dict[str, str]] = {"": {}}
    for name in names:
        layer, base = _layer_of(name)
        out.setdefault(layer, {})[base] = name
    return {k: v for k, v in out.items() if v}


def _layer_offer(part: int, layer: str, own: Mapping[str, str]) -> Offer | None:
    """The colour image of a layer (R G B A or Y RY BY A present), else None."""
    if "Y" in own:
        chroma = ("RY", "BY") if "RY" in own and "BY" in own else ()
        names = [n for n in ("Y", *chroma, "A") if n in own]
        return Offer(part, layer, tuple(own[n] for n in names), "luma")
    if any(c in own for c in "RGB"):
        return Offer(part, layer, tuple(own[c] for c in _COLOUR if c in own), "colour")
    return None


def offers(part: int, names: Sequence[str]) -> list[Offer]:
    """What a part of these channel names holds, best first: its layers' colour images (the
    unnamed layer first), then each channel not in one, alone."""
    colour, alone = [], []
    for layer, own in _layers(names).items():
        offer = _layer_offer(part, layer, own)
        taken = set(offer.channels) if offer else set()
        if offer:
            colour.append(offer)
        alone += [Offer(part, layer, (n,), "channel") for n in own.values() if n not in taken]
    return colour + alone


def pick(part: int, names: Sequence[str], wanted: str | None, where: str = "it") -> Offer:
    """The offer a part gives for ``wanted`` (a channel or layer name; None: its first colour
    image, else its one channel). ContainerError naming the part (``where``: "it", "part 1
    'depth'") and its channels otherwise."""
    if wanted is None:
        found = offers(part, names)
        if found and (found[0].kind != "channel" or len(names) == 1):
            return found[0]
        raise ContainerError(f"no colour channels mipview reads (R, G, B, A or Y, RY, BY; "
                             f"{where} has {', '.join(names) or 'none'}): choose one "
                             f"with FILE#NAME (docs/formats.md, EXR)")
    if wanted in names:
        layer, _ = _layer_of(wanted)
        return Offer(part, layer, (wanted,), "channel")
    layers = _layers(names)
    own = layers.get(wanted)
    if own is None:
        raise ContainerError(f"no channel or layer {wanted!r} ({where} has "
                             f"{', '.join(names)})")
    offer = _layer_offer(part, wanted, own)
    if offer is not None:
        return offer
    if len(own) > _MOST:
        raise ContainerError(f"layer {wanted!r} has {len(own)} channels ({', '.join(own)}); "
                             f"mipview reads up to {_MOST}: choose one with #{wanted}.NAME")
    return Offer(part, wanted, tuple(own[k] for k in sorted(own)), "layer")


#: the most other images a note lists
_LISTED = 8


def _in_parts(every: Sequence[Offer]) -> bool:
    """Whether a file's images are named with their parts (it has images past part 0)."""
    return {o.part for o in every} != {0}


def _named(o: Offer, parts: bool) -> str:
    return (f"part {o.part}: " if parts else "") + o.words()


def _suffix(o: Offer, parts: bool) -> str:
    """What follows ``#`` to read ``o``: its selector, after its part in a file of parts."""
    suffix = (f"part={o.part}," if parts else "") + o.selector()
    # the unnamed layer's colour of a part is read by the part alone
    return suffix.rstrip(",") if parts else suffix


def others(chosen: Offer, every: Sequence[Offer]) -> str:
    """One note: what was read, and the other images the file holds, each with the ``#``
    suffix that reads it ("" when it holds no other)."""
    rest = [o for o in every if o != chosen]
    if not rest:
        return ""
    parts = _in_parts(every)

    def named(o: Offer) -> str:
        suffix = _suffix(o, parts)
        return _named(o, parts) + (f" (#{suffix})" if suffix else "")

    shown = [named(o) for o in rest[:_LISTED]]
    more = f" and {len(rest) - _LISTED} more" if len(rest) > _LISTED else ""
    where = f"part {chosen.part}: " if parts else ""
    return (f"read {where}{chosen.words()}; the file also holds {', '.join(shown)}{more}: "
            f"FILE#NAME reads one (docs/formats.md, EXR)")


def held(parts: Sequence[tuple[str, Sequence[str]]], read: Offer) -> tuple[HeldImage, ...]:
    """Every image a file of these parts (name, channel names) holds, to choose among, ``read``
    marked (added when it is none of them: a lone R of an RGBA, a layer of other names): the
    one read without a choice has the suffix "". () when it holds one image, or when its parts
    are an array's layers, which are read together."""
    every = [o for i, (_, names) in enumerate(parts) for o in offers(i, names)]
    try:
        default = resolve(parts, None)
    except ContainerError:  # nothing reads without a choice: every image by its suffix
        default = []
    if len(default) > 1:
        return ()
    every += [] if read in every else [read]
    if len(every) < 2:
        return ()
    in_parts = _in_parts(every)
    return tuple(HeldImage(_named(o, in_parts), "" if [o] == default else _suffix(o, in_parts),
                           o == read) for o in every)


def image(offer: Offer, pixels: Mapping[str, np.ndarray],
          sampling: Mapping[str, tuple[int, int]],
          chromaticities: Sequence[float] | None) -> np.ndarray:
    """(H, W, 4) float16/float32 of an offer's channels (``pixels`` by full name, as the
    OpenEXR binding gives them: subsampled ones at their own size): one channel, or R and G,
    filled as a shader reads them (0, 0, 1); luminance/chroma converted as OpenEXR does; Y and
    A grey. ContainerError for channels mipview does not read (32-bit integer, subsampled)."""
    for name in offer.channels:
        if pixels[name].dtype not in (np.float16, np.float32):
            raise ContainerError(f"channel {name} holds 32-bit unsigned integers: mipview "
                                 f"reads half and float")
        if sampling.get(name, (1, 1)) != (1, 1) and offer.kind != "luma":
            raise ContainerError(f"channel {name} is subsampled {sampling[name][0]}x"
                                 f"{sampling[name][1]}: mipview reads it only as the chroma "
                                 f"(RY, BY) of a luminance/chroma image")
    layer = {n[len(offer.layer) + 1:] if offer.layer else n: pixels[n] for n in offer.channels}
    if offer.kind == "luma":
        return _luma(layer, chromaticities)
    planes = [pixels[n] for n in offer.channels]
    dtype = np.result_type(*planes)
    if offer.kind == "colour" and len(planes) > 1 and set(layer) != {"R", "G"}:
        # R G B [A], or some of them: any missing reads as a shader reads it (0, alpha 1)
        out = np.zeros((*planes[0].shape, 4), dtype)
        out[..., 3] = 1
        for i, c in enumerate(_COLOUR):
            if c in layer:
                out[..., i] = layer[c]
        return out
    own = np.stack([p.astype(dtype) for p in planes], axis=-1)
    if own.shape[-1] == 3:  # a layer of three other names: alpha 1
        return np.concatenate([own, np.ones_like(own[..., :1])], axis=-1)
    if own.shape[-1] == 4:
        return own
    fmt = Format.holding(own.shape[-1], dtype)
    assert fmt is not None  # half or float, one or two channels
    return fmt.unpack(own)


def _luma(layer: Mapping[str, np.ndarray], chromaticities: Sequence[float] | None) -> np.ndarray:
    """Y [RY BY] [A]: a lone Y is one channel (grey), Y and A grey RGBA in the file's own
    precision; with chroma, OpenEXR's own conversion (half, as its RGBA interface gives)."""
    y, alpha = layer["Y"], layer.get("A")
    if "RY" in layer:
        try:
            return exr_yca.to_rgba(y, layer["RY"], layer["BY"], alpha, chromaticities)
        except ValueError as e:
            raise ContainerError(str(e)) from None
    if alpha is None:
        fmt = Format.holding(1, y.dtype)
        assert fmt is not None
        return fmt.unpack(y[..., None])
    dtype = np.result_type(y, alpha)
    return np.stack([y, y, y, alpha], axis=-1).astype(dtype)


def resolve(parts: Sequence[tuple[str, Sequence[str]]], choice: Choice | None) -> list[Offer]:
    """The offers read of a file whose parts are (name, channel names): one per part when the
    file is an array (no choice, every part the same channels: mipview's own arrays and cube
    maps), else the one chosen, or the first colour image that a part holds. Each part is
    judged on its own channels, and a refusal names that part's."""
    where = [_where(parts, i) for i in range(len(parts))]
    if choice is None:
        if len(parts) > 1 and len({tuple(names) for _, names in parts}) == 1:
            return [pick(i, names, None, where[i]) for i, (_, names) in enumerate(parts)]
        return [_first(parts, where)]
    if choice.part is not None:
        index = _part_index(parts, choice.part)
        return [pick(index, parts[index][1], choice.name, where[index])]
    assert choice.name is not None
    named = [i for i, (name, _) in enumerate(parts) if name == choice.name]
    if named:
        return [pick(named[0], parts[named[0]][1], None, where[named[0]])]
    errors = []
    for i, (_, names) in enumerate(parts):
        try:
            return [pick(i, names, choice.name, where[i])]
        except ContainerError as e:
            errors.append(str(e))
    if len(parts) == 1:
        raise ContainerError(errors[0])
    raise ContainerError(f"no part, channel or layer {choice.name!r} ({_listed(parts)})")


def _where(parts: Sequence[tuple[str, Sequence[str]]], i: int) -> str:
    """How a refusal names part ``i``: "it" in a file of one part, "part 1 'depth'"."""
    if len(parts) == 1:
        return "it"
    return f"part {i}" + (f" {parts[i][0]!r}" if parts[i][0] else "")


def _listed(parts: Sequence[tuple[str, Sequence[str]]]) -> str:
    return "; ".join(f"{_where(parts, i)}: {', '.join(names) or 'none'}"
                     for i, (_, names) in enumerate(parts))


def _first(parts: Sequence[tuple[str, Sequence[str]]], where: Sequence[str]) -> Offer:
    """The first part's colour image; a part without one is passed over for the next that
    has one; none at all: every part's channels named, each with its own."""
    errors = []
    for i, (_, names) in enumerate(parts):
        try:
            return pick(i, names, None, where[i])
        except ContainerError as e:
            errors.append(e)
    if len(parts) == 1:
        raise errors[0]
    raise ContainerError(f"no part holds colour channels mipview reads (R, G, B, A or Y, RY, "
                         f"BY; {_listed(parts)}): choose one with FILE#part=N,NAME "
                         f"(docs/formats.md, EXR)")


def _part_index(parts: Sequence[tuple[str, Sequence[str]]], part: int | str) -> int:
    if isinstance(part, int):
        if part >= len(parts):
            raise ContainerError(f"part={part}: the file has {len(parts)} part"
                                 f"{'s' if len(parts) != 1 else ''} (0 to {len(parts) - 1})")
        return part
    for i, (name, _) in enumerate(parts):
        if name == part:
            return i
    names = ", ".join(repr(n) for n, _ in parts)
    raise ContainerError(f"part={part}: no part of that name (the file's: {names})")
