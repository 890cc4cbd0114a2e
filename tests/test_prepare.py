"""One Run set-up (mipview.runs.prepare): what it makes of an image, a format and specs, what it
refuses before any GPU work, and that a Run of the API goes into the cube path once."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import mipview
from mipview.check.verdict import ReferenceCache
from mipview.core.errors import MipviewError
from mipview.core.formats import Format
from mipview.core.specs import StrategySpec
from mipview.io import synthetic
from mipview.runs import cube
from mipview.runs.prepare import prepare


def test_prepare_makes_level0_read_only_with_its_format_specs_and_cache() -> None:
    source = synthetic.image(6, 4)
    run = prepare(source, "f16", "blit,per-level:filter=tent", layers=3)
    assert run.source is source and run.fmt is Format.F16
    assert run.specs == (StrategySpec("blit"), StrategySpec("per-level", (("filter", "tent"),)))
    assert run.level0.shape == (3, 4, 6, 4) and not run.level0.flags.writeable
    assert isinstance(run.refs, ReferenceCache) and not run.is_cube
    # specs already made stay as they are; the format is the image's unless one is given
    again = prepare(source, None, run.specs, refs=run.refs)
    assert again.specs == run.specs and again.refs is run.refs
    assert again.fmt is source.suggested_format() and again.level0.shape == (4, 6, 4)
    pixels = prepare(np.zeros((2, 2, 4), np.float32), "f32", ())
    assert pixels.source.width == 2 and pixels.specs == ()


def test_prepare_refuses_what_cannot_run_in_one_line(no_gpu_work) -> None:
    seamless = "per-level:filter=tent,edge=cube"
    for image, fmt, specs, said in [
        (synthetic.image(6, 6), None, seamless, "edge=cube needs a cube map"),
        # 6 square layers made from a 2D image are no cube map either
        (synthetic.image(6, 6), None, [StrategySpec.parse(seamless)], "edge=cube needs"),
        (np.zeros((2, 2, 3), np.float32), None, "blit", "(H, W, 4)"),
        (synthetic.image(4, 4), None, "no-such-strategy", "no-such-strategy"),
    ]:
        with pytest.raises(MipviewError, match=re.escape(said)):
            prepare(image, fmt, specs, layers=6)
    with pytest.raises(ValueError, match="unknown format"):
        prepare(synthetic.image(4, 4), "rgb9e5", "blit")
    # the same seamless spec serves a cube map, and is left to the Run where asked (the window)
    assert prepare(synthetic.cube_image(4), None, seamless).is_cube
    assert prepare(synthetic.image(6, 6), None, seamless, refuse_edge_cube=False).specs


def _entries(monkeypatch) -> list[str]:
    """Every call into mipview.runs.cube from outside it (its own calls to its helpers are
    not entries)."""
    entries: list[str] = []
    depth = [0]

    def counted(name, fn):
        def call(*args, **kwargs):
            if depth[0] == 0:
                entries.append(name)
            depth[0] += 1
            try:
                return fn(*args, **kwargs)
            finally:
                depth[0] -= 1
        return call

    for name, fn in list(vars(cube).items()):
        if inspect.isfunction(fn) and fn.__module__ == cube.__name__:
            monkeypatch.setattr(cube, name, counted(name, fn))
    return entries


def test_api_run_enters_the_cube_path_once_for_a_cube_map(monkeypatch) -> None:
    entries = _entries(monkeypatch)
    done = mipview.run(synthetic.cube_image(4, seed=1), strategies="per-level,blit")
    assert entries == ["run_seams"]
    assert done.cube is not None and set(done.cube.results) == {"per-level", "blit"}
    assert done.strategies["blit"].seams == done.cube.results["blit"]
    # a 2D image: its specs checked once each, no seams
    entries.clear()
    done = mipview.run(synthetic.image(8, 8), strategies="per-level,blit")
    assert entries == ["cube_spec_reason", "cube_spec_reason"] and done.cube is None
