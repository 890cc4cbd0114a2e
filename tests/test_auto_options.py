"""Table ``auto`` options (mipview/gpu/strategies/auto.py): what they resolve to per device kind,
format and size, that a value the verdict does not bound in a format is never picked, that
report.json shows the options asked and used, and that every option set ``auto`` can pick keeps
the verdict on lavapipe at a POT and an NPOT size."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pytest

from mipview.check.verdict import judge_result
from mipview.core.formats import Format, to_storage
from mipview.core.specs import StrategySpec
from mipview.gpu.session import run_once
from mipview.gpu.strategies import REGISTRY, auto
from mipview.gpu.strategies.single_pass import plan_passes
from mipview.gpu.strategies.specs import expand_specs
from mipview.runs.report import strategy_dict
from tests.gpu_formats import GPU_FORMATS

SP, SG = REGISTRY["single-pass"], REGISTRY["subgroup"]
BIG = "4096² to 8192²"
KINDS = {"nvidia": ("discrete", auto.NVIDIA_VENDOR), "cpu": ("cpu", 0x10005),
         "other": ("integrated", 0x8086)}


def _caps(gpu, kind: str):
    device_type, vendor = KINDS[kind]
    return replace(gpu.caps, device_type=device_type, vendor_id=vendor)


def _used(gpu, cls, kind: str, fmt: Format, w: int, h: int, table=None, **asked: str):
    used, picks = auto.resolve(cls, _caps(gpu, kind), fmt, w, h, 1, asked, table)
    return used, {p.option: p for p in picks}


def test_device_kind_and_size_class(gpu) -> None:
    assert [auto.device_kind(_caps(gpu, k)) for k in KINDS] == list(KINDS)
    assert auto.device_kind(gpu.caps) == "cpu"  # lavapipe
    assert auto.device_kind(replace(gpu.caps, device_type="discrete", vendor_id=0x1002)) == "other"
    assert [auto.size_class(*s) for s in ((3840, 2160), (4095, 4096), (4096, 4096),
                                          (8192, 8192), (8192, 8194))] == \
        ["below 4096²", "below 4096²", BIG, BIG, "above 8192²"]


# (kind, strategy, format, size) -> single-pass load and tail, or subgroup load
@pytest.mark.parametrize("kind,cls,fmt,size,expected", [
    # H200 table, 2026-11-22: bilinear at 4096^2 and 8192^2 RGBA8
    ("nvidia", SP, Format.UNORM, (4096, 4096), {"load": "bilinear", "tail": "8192"}),
    ("nvidia", SP, Format.UNORM, (8192, 8192), {"load": "bilinear", "tail": "8192"}),
    ("nvidia", SP, Format.UNORM, (8192, 4096), {"load": "bilinear", "tail": "8192"}),
    # below 4096^2 RGBA8: texel loads (not measured), the 2048-texel tail (measured)
    ("nvidia", SP, Format.UNORM, (1920, 1080), {"load": "texel", "tail": "2048"}),
    # not measured there: today's default
    ("nvidia", SP, Format.SRGB, (1920, 1080), {"load": "texel", "tail": "8192"}),
    ("nvidia", SP, Format.UNORM, (16384, 16384), {"load": "texel", "tail": "8192"}),
    ("nvidia", SP, Format.F16, (2048, 2048), {"load": "texel", "tail": "8192"}),
    # RGBA16F at 4096^2: bilinear (measured, and the verdict bounds it in f16)
    ("nvidia", SP, Format.F16, (4096, 4096), {"load": "bilinear", "tail": "8192"}),
    # the table's value cannot run here (odd side of level 0): today's default
    ("nvidia", SP, Format.UNORM, (4097, 4096), {"load": "texel", "tail": "8192"}),
    ("cpu", SP, Format.UNORM, (4096, 4096), {"load": "texel", "tail": "8192"}),
    ("other", SP, Format.UNORM, (4096, 4096), {"load": "texel", "tail": "8192"}),
    ("nvidia", SG, Format.UNORM, (4096, 4096), {"load": "texel"}),
])
def test_resolution_table(gpu, kind, cls, fmt, size, expected) -> None:
    used, picks = _used(gpu, cls, kind, fmt, *size, load="auto",
                        **({"tail": "auto"} if cls is SP else {}))
    assert {k: used[k] for k in expected} == expected
    assert {k: p.value for k, p in picks.items()} == expected
    assert "auto" not in used.values() or used.get("tiles") == "auto"
    # what the table said is named in the note
    if expected["load"] == "bilinear":
        assert "H200 2026-11-22" in picks["load"].note()


def test_defaults_auto_only_where_measured(gpu) -> None:
    defaults = {o.name: o.default for o in SP.options}
    assert defaults["load"] == "auto"      # measured H200 entries
    assert defaults["tail"] == "auto"      # measured H200 entries (RGBA8)
    assert {o.name: o.default for o in SG.options}["load"] == "texel"
    # the default spec picks the table's value, an explicit value is kept as asked
    assert _used(gpu, SP, "nvidia", Format.UNORM, 4096, 4096)[0]["load"] == "bilinear"
    used, picks = _used(gpu, SP, "nvidia", Format.UNORM, 4096, 4096, load="texel")
    assert used["load"] == "texel" and "load" not in picks
    # min/max take no bilinear sample: the table's value cannot run, today's default does
    used, picks = _used(gpu, SP, "nvidia", Format.UNORM, 4096, 4096, reduction="max")
    assert used["load"] == "texel" and "not eligible (load=bilinear averages" in picks["load"].why
    # a strategy made without an image runs an unresolved auto as today's default
    assert SP(gpu, {"load": "auto", "tail": "auto"}).opts["load"] == "texel"


@pytest.mark.parametrize("fmt", [Format.SRGB, Format.F32])
def test_value_the_verdict_does_not_bound_is_never_picked(gpu, fmt) -> None:
    # a wrong table: bilinear for every format, on every device kind and size
    wrong = tuple(auto.Entry(kind, "single-pass", "load", "bilinear", tuple(Format), size, "bad")
                  for kind in KINDS for size, _ in auto.SIZE_CLASSES)
    problems = auto.table_problems(wrong)
    assert any("sRGB" in p or "srgb" in p for p in problems)
    assert any("f32" in p for p in problems)
    assert not any("unorm" in p or "f16:" in p for p in problems)
    for kind in KINDS:
        used, picks = _used(gpu, SP, kind, fmt, 4096, 4096, table=wrong)
        assert used["load"] == "texel", kind
        assert "not eligible" in picks["load"].why
    # the same wrong table does pick bilinear where the verdict bounds it
    assert _used(gpu, SP, "cpu", Format.UNORM, 256, 256, table=wrong)[0]["load"] == "bilinear"


def test_shipped_table_is_sound() -> None:
    assert auto.table_problems() == []
    assert auto.table_problems((auto.Entry("nvidia", "single-pass", "fp16", "on", (Format.UNORM,),
                                           "nowhere", "bad"),)) == [
        "nvidia single-pass:fp16=on (nowhere): not an auto option",
        "nvidia single-pass:fp16=on (nowhere): unknown size class or device kind"]
    assert auto.promise_reason(Format.SRGB, "load", "bilinear")
    assert auto.promise_reason(Format.UNORM, "load", "bilinear") is None
    assert auto.promise_reason(Format.SRGB, "load", "texel") is None


def _fallback_drift(fallback: Mapping[tuple[str, str], str]) -> list[str]:
    """Where ``fallback`` says other than the strategies declare: each entry an option of a
    registered strategy offering ``auto``, its fallback one of its choices and its default
    ``auto`` or the fallback; single-pass's tail the planner's own default."""
    out = []
    for (name, option), value in fallback.items():
        spec = next((o for o in REGISTRY[name].options if o.name == option), None) \
            if name in REGISTRY else None
        if spec is None or "auto" not in spec.choices:
            out.append(f"{name}:{option}: not an auto option of a strategy")
        elif value not in spec.choices or spec.default not in ("auto", value):
            out.append(f"{name}:{option}: fallback {value} against {spec.default} of {spec.choices}")
    planner = inspect.signature(plan_passes).parameters["tail_texels"].default
    if fallback.get(("single-pass", "tail")) != str(planner):
        out.append(f"single-pass:tail: the planner's default is {planner}")
    return out


def test_fallback_is_what_the_strategies_declare() -> None:
    assert set(auto.FALLBACK) == {("single-pass", "load"), ("single-pass", "tail"),
                                  ("subgroup", "load"), ("npot-exact", "load")}
    assert _fallback_drift(auto.FALLBACK) == []
    # the check finds a fallback drifted from either source
    assert _fallback_drift({**auto.FALLBACK, ("single-pass", "tail"): "2048"}) == [
        "single-pass:tail: the planner's default is 8192"]
    assert len(_fallback_drift({**auto.FALLBACK, ("subgroup", "load"): "bilinear"})) == 1
    assert len(_fallback_drift({**auto.FALLBACK, ("subgroup", "tail"): "8192"})) == 1
    # declared once, by the strategy, among its choices
    with pytest.raises(ValueError, match="not one of"):
        auto.auto_option("single-pass", "load", ("texel", "bilinear"), "", fallback="quad")
    with pytest.raises(ValueError, match="two fallbacks"):
        auto.auto_option("single-pass", "load", ("texel", "bilinear"), "", fallback="bilinear")
    assert auto.FALLBACK[("single-pass", "load")] == "texel"


def test_sweep_all_skips_the_table_auto() -> None:
    names = [str(s) for s in expand_specs("single-pass:load=all")]
    assert names == ["single-pass:load=texel", "single-pass:load=bilinear"]
    # an auto of the strategy's own (per dispatch) is still a choice of its own
    assert "single-pass:tiles=auto" in [str(s) for s in expand_specs("single-pass:tiles=all")]


def _image(w: int, h: int, fmt: Format) -> np.ndarray:
    return to_storage(np.random.default_rng(7).random((h, w, 4)), fmt)


def test_report_shows_options_asked_and_used(gpu, monkeypatch) -> None:
    # a table for this lavapipe device: bilinear wherever it applies
    monkeypatch.setattr(auto, "TABLE", (
        auto.Entry("cpu", "single-pass", "load", "bilinear", (Format.UNORM, Format.SRGB),
                   "below 4096²", "a test entry"),))
    specs = [StrategySpec("single-pass"), StrategySpec("single-pass", (("load", "texel"),))]
    for fmt, load in ((Format.UNORM, "bilinear"), (Format.SRGB, "texel")):
        mip = run_once(gpu, _image(128, 96, fmt), fmt, specs)
        (d_auto, d_texel) = (strategy_dict(r, mip, None) for r in mip.results)
        assert d_auto["options"] == {}
        assert d_auto["options_asked"]["load"] == "auto"
        assert d_auto["options_used"]["load"] == load
        assert d_auto["options_used"]["tail"] == "8192"
        assert f"auto load={load}" in d_auto["notes"][0]
        assert mip.results[0].sources[0].bilinear is (load == "bilinear")
        assert d_texel["options_asked"]["load"] == d_texel["options_used"]["load"] == "texel"
        assert not any(n.startswith("auto load") for n in d_texel["notes"])


def _pickable(gpu) -> list[tuple[str, Format, dict[str, str]]]:
    """Every option set the table can pick: per strategy, device kind, format and size class
    (resolved at a size of that class), without the options left at their own ``auto``."""
    sizes = {"below 4096²": (1920, 1080), BIG: (4096, 4096), "above 8192²": (16384, 16384)}
    out = []
    for cls in (SP, SG):
        asked = {o.name: "auto" for o in cls.options if ("auto" in o.choices and
                                                         auto.is_table_auto(cls.name, o.name,
                                                                            "auto"))}
        for kind in KINDS:
            for fmt in GPU_FORMATS:  # the auto table's formats, and r32f's fallback
                for size in sizes.values():
                    used = _used(gpu, cls, kind, fmt, *size, **asked)[0]
                    item = (cls.name, fmt, used)
                    if item not in out:
                        out.append(item)
    return out


# small: single-pass texel loads in sRGB take a minute at 300x260 on a loaded lavapipe
@pytest.mark.parametrize("w,h", [(128, 128), (96, 54)])
def test_every_pickable_option_set_keeps_the_verdict(gpu, w, h) -> None:
    picked = _pickable(gpu)
    assert any(used["load"] == "bilinear" for _, _, used in picked)
    for name, fmt, used in picked:
        level0 = _image(w, h, fmt)
        mip = run_once(gpu, level0, fmt, [StrategySpec(name, tuple(sorted(used.items())))])
        assert not mip.skipped, mip.skipped
        verdict = judge_result(mip.results[0], level0, fmt)
        assert verdict.within_tolerance, f"{name} {used} {fmt.label} {w}x{h}: {verdict}"
