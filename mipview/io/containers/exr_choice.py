"""What to read of an EXR that holds more than one image: a suffix of its path after ``#``.

``image.exr#Z``            the channel ``Z`` (one channel)
``image.exr#forward.u``    the channel ``forward.u``
``image.exr#diffuse``      the layer ``diffuse``: its ``diffuse.R``, ``.G``, ``.B``, ``.A`` (or
                           ``.Y``, ``.RY``, ``.BY``; or its other channels, up to four)
``image.exr#beauty``       the part named ``beauty`` (its first colour layer)
``image.exr#part=1``       part 1 (counted from 0), or ``#part=beauty`` by name
``image.exr#part=1,Z``     a channel or layer of that part

A bare name is a part's name first, then a channel's, then a layer's. ``--channel NAME`` of
``mipview run``, ``bench`` and ``gui`` appends ``#NAME`` (:func:`with_choice`): the suffix is
the one way, so the API, the command line and the window read the same image of a path.
"""

from __future__ import annotations

from dataclasses import dataclass

from mipview.io.containers.texture import ContainerError

SEPARATOR = "#"
_PART = "part="


@dataclass(frozen=True)
class Choice:
    """A parsed ``#`` suffix: a part (its index, or name) and/or a channel or layer name."""

    part: int | str | None = None
    name: str | None = None

    def __str__(self) -> str:
        bits = [] if self.part is None else [f"{_PART}{self.part}"]
        return ",".join([*bits, *([] if self.name is None else [self.name])])


def parse(text: str) -> Choice:
    """``Z``, ``forward.u``, ``part=1``, ``part=beauty,Z`` -> a Choice; ContainerError for an
    empty one."""
    part: int | str | None = None
    name = text
    if text.startswith(_PART):
        part_text, _, name = text[len(_PART):].partition(",")
        if not part_text:
            raise ContainerError(f"#{text}: part= names no part (part=1, or part=NAME)")
        part = int(part_text) if part_text.isdigit() else part_text
    if not name and part is None:
        raise ContainerError("an empty # after the file name: name a channel, layer or part "
                             "(docs/formats.md, EXR)")
    return Choice(part, name or None)


def split(path: str) -> tuple[str, Choice | None]:
    """``a.exr#Z`` -> ("a.exr", Choice(name="Z")); a path without ``#`` -> (path, None)."""
    if SEPARATOR not in path:
        return path, None
    base, _, text = path.rpartition(SEPARATOR)
    return base, parse(text)


def with_choice(path: str, choice: str | None) -> str:
    """``path`` with ``#choice`` appended (what ``--channel`` does); ``path`` itself for None."""
    if not choice:
        return path
    if SEPARATOR in choice:
        raise ContainerError(f"--channel {choice!r}: give the channel, layer or part alone "
                             f"(without #)")
    return f"{path}{SEPARATOR}{choice}"
