"""One dispatch plan, one record loop: what a result reports as its plan is exactly what was
recorded (the same step objects, their pushes and workgroups, their timestamp labels), and
record_steps puts barriers strictly between steps."""

from __future__ import annotations

import dataclasses

import pytest

from mipview.core.formats import Format, to_storage
from mipview.core.results import DispatchStep, TimingSettings
from mipview.core.specs import StrategySpec
from mipview.gpu.dirty import run_strategy
from mipview.gpu.session import Session
from mipview.gpu.strategies import base
from mipview.gpu.strategies.single_pass import SinglePass
from mipview.gpu.vulkan import dispatch
from mipview.gpu.vulkan.pipelines import ComputePipeline
from mipview.gpu.vulkan.resources import MipImage
from mipview.gpu.vulkan.timing import Marks
from mipview.gpu.vulkan.vkapi import vk

COMPUTE = ["per-level", "per-level:load=bilinear", "npot-exact", "npot-exact:path=general",
           "subgroup", "subgroup:tile=32,layout=square", "subgroup:load=bilinear,tiles=4",
           "single-pass", "single-pass:fp16=on", "single-pass:load=bilinear,tiles=2"]
SIZES = [(256, 128), (300, 260)]  # POT, NPOT (odd levels: exact-mode and multi-pass plans)


def _level0(rng, w, h):
    return to_storage(rng.random((h, w, 4)), Format.UNORM)


@pytest.fixture
def recorder(monkeypatch):
    """Every record_steps call (the step objects) and every push and dispatch it makes reach
    Vulkan (not the zero-workgroup dispatches that compile ahead of a submit)."""
    seen = {"runs": [], "push": [], "dispatch": []}
    real_record, real_push, real_dispatch = base.record_steps, ComputePipeline.push, \
        vk.vkCmdDispatch
    recording = [False]

    def record(cmd, steps, pipelines, sets, marks):
        seen["runs"].append(list(steps))
        recording[0] = True
        try:
            real_record(cmd, steps, pipelines, sets, marks)
        finally:
            recording[0] = False

    def push(self, cmd, data):
        if recording[0]:
            seen["push"].append(bytes(data))
        real_push(self, cmd, data)

    def dispatch_(cmd, x, y, z):
        if recording[0]:
            seen["dispatch"].append((x, y, z))
        real_dispatch(cmd, x, y, z)

    monkeypatch.setattr(base, "record_steps", record)
    monkeypatch.setattr(ComputePipeline, "push", push)
    monkeypatch.setattr(vk, "vkCmdDispatch", dispatch_)
    return seen


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("spec", COMPUTE)
def test_reported_plan_is_what_was_recorded(gpu, rng, recorder, spec, size):
    with Session(gpu, _level0(rng, *size), Format.UNORM, [StrategySpec.parse(spec)]) as s:
        assert not s.skipped, s.skipped
        s.generate()
        s.time_with(TimingSettings(2, 0.0, 2))  # one more command buffer, two runs in it
        res = s.result().results[0]
        strategy = s.prepared[0].strategy
    plan = res.plan
    assert plan and plan is strategy.steps
    assert len(recorder["runs"]) == 3
    for run in recorder["runs"]:
        assert len(run) == len(plan) and all(a is b for a, b in zip(run, plan, strict=True))
    assert [label for label, _ in res.timing.marks] == [step.label for step in plan]
    assert recorder["dispatch"] == [step.groups for step in plan] * 3
    assert recorder["push"] == [step.push for step in plan] * 3
    # the plan is about this image: every level once, in order
    assert [lv for step in plan for lv in step.levels] == list(range(1, len(res.levels)))


def test_blit_plan_names_its_marks(gpu, rng):
    with Session(gpu, _level0(rng, 300, 260), Format.UNORM, [StrategySpec("blit")]) as s:
        s.generate()
        res = s.result().results[0]
    assert [step.label for step in res.plan] == [label for label, _ in res.timing.marks]
    assert [step.levels for step in res.plan] == [(i,) for i in range(1, 9)]
    assert res.notes and "NPOT" in res.notes[0]


def test_rect_update_records_the_prepared_steps_with_the_rect(gpu, rng, recorder):
    image = MipImage(gpu, Format.UNORM, 600, 300)
    strategy = SinglePass(gpu, {})
    try:
        image.upload(_level0(rng, 600, 300))
        strategy.prepare(image)
        run_strategy(gpu, strategy, image, (100, 100, 200, 50))
    finally:
        gpu.wait_idle()
        strategy.release()
        image.destroy()
    (run,) = recorder["runs"]
    assert len(run) == len(strategy.steps) == 2
    for rect_step, step in zip(run, strategy.steps, strict=True):
        assert rect_step.label.startswith(step.label + " (") and rect_step.label.endswith(" tiles)")
        same = dataclasses.replace(rect_step, label=step.label, push=step.push,
                                   groups=step.groups)
        assert same == step
    assert recorder["dispatch"] == [s.groups for s in run]
    # the rectangle is a part of the first pass's tiles
    assert run[0].push != strategy.steps[0].push and run[0].groups != strategy.steps[0].groups


class _Pipeline:
    def __init__(self, name, events):
        self.name, self.events = name, events

    def bind(self, cmd, descriptor_set):
        self.events.append(("bind", self.name, descriptor_set))

    def push(self, cmd, data):
        self.events.append(("push", data))


def test_record_steps_barriers_only_between_steps(monkeypatch):
    events = []
    monkeypatch.setattr(dispatch, "memory_barrier", lambda cmd, *a: events.append(("barrier",)))
    monkeypatch.setattr(vk, "vkCmdDispatch", lambda cmd, *g: events.append(("dispatch", g)))

    class _Marks(Marks):
        def mark(self, cmd, label):
            events.append(("mark", label))

    steps = [DispatchStep("a", (1,), pipeline=1, descriptor_set=0, push=b"\1\0\0\0",
                          groups=(2, 1, 1)),
             DispatchStep("b", (2, 3), pipeline=0, descriptor_set=2, groups=(1, 1, 3)),
             DispatchStep("c", (4,), pipeline=1, descriptor_set=1, push=b"\2\0\0\0",
                          groups=(1, 1, 1))]
    pipelines = [_Pipeline("p0", events), _Pipeline("p1", events)]
    dispatch.record_steps(None, steps, pipelines, ["s0", "s1", "s2"], _Marks(None))
    assert events == [
        ("bind", "p1", "s0"), ("push", b"\1\0\0\0"), ("dispatch", (2, 1, 1)), ("mark", "a"),
        ("barrier",),
        ("bind", "p0", "s2"), ("dispatch", (1, 1, 3)), ("mark", "b"),  # no push: none declared
        ("barrier",),
        ("bind", "p1", "s1"), ("push", b"\2\0\0\0"), ("dispatch", (1, 1, 1)), ("mark", "c")]
    events.clear()
    dispatch.record_steps(None, steps[:1], pipelines, ["s0"], _Marks(None))
    assert ("barrier",) not in events
    events.clear()
    dispatch.record_steps(None, [], pipelines, [], _Marks(None))
    assert events == []


def test_steps_cross_threads_as_plain_values():
    step = DispatchStep("pass 1", (1, 2), "d", 0, 0, b"\0" * 4, (1, 1, 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.label = "x"  # type: ignore[misc]
    assert all(isinstance(v, (str, int, bytes, tuple)) for v in dataclasses.astuple(step))
