"""docs/custom-strategies.md shows the callbacks of resources/shaders/spd_mean.comp, the SPD port
that tests/test_spd_port.py compiles and checks on the device: the page must show that very
code, so a change to either one without the other fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "custom-strategies.md"
SHADER = ROOT / "resources" / "shaders" / "spd_mean.comp"
#: the code block that follows this line of the page
INTRO = "The callbacks of `spd_mean.comp`"


def _code_block(page: str) -> str:
    """The indented block after the paragraph that ends with ``INTRO``'s sentence."""
    after = page[page.index(INTRO):]
    lines = after.split("\n\n", 1)[1].splitlines()
    block = []
    for line in lines:
        if line and not line.startswith("    "):
            break
        block.append(line[4:])
    return "\n".join(block)


def _code(text: str) -> str:
    """The GLSL without comments and whitespace: the page may lay it out more tightly."""
    return re.sub(r"\s+", "", re.sub(r"//[^\n]*", "", text))


def test_the_page_shows_the_shipped_spd_port():
    shown = _code(_code_block(DOC.read_text()))
    assert "SpdDownsample(" in shown  # the whole file, up to main
    assert shown == _code(SHADER.read_text())


def test_the_comparison_sees_a_changed_token():
    shown = _code_block(DOC.read_text())
    changed = shown.replace("* 0.25", "* 0.5", 1)
    assert changed != shown
    assert _code(changed) != _code(SHADER.read_text())
