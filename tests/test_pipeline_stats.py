"""MIPVIEW_PIPELINE_STATS (mipview/gpu/vulkan/pipeline_stats.py): asked for and offered, or nothing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mipview.gpu.vulkan import pipeline_stats
from mipview.gpu.vulkan.vkapi import flag


@pytest.mark.parametrize(("env", "offered", "wanted"), [
    (None, True, False), ("0", True, False), ("1", False, False), ("1", True, True)])
def test_wanted_only_when_asked_for_and_offered(monkeypatch, env, offered, wanted) -> None:
    if env is None:
        monkeypatch.delenv("MIPVIEW_PIPELINE_STATS", raising=False)
    else:
        monkeypatch.setenv("MIPVIEW_PIPELINE_STATS", env)
    extensions = {pipeline_stats.EXTENSION} if offered else {"VK_KHR_other"}
    assert pipeline_stats.wanted(extensions) is wanted


def test_a_statistic_is_read_by_its_format() -> None:
    value = SimpleNamespace(b32=1, i64=-3, u64=57, f64=0.25)
    def stat(fmt: str) -> SimpleNamespace:
        return SimpleNamespace(format=flag(f"VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_{fmt}_KHR"),
                               value=value)
    assert [pipeline_stats._value(stat(f)) for f in ("BOOL32", "INT64", "UINT64", "FLOAT64")] \
        == ["True", "-3", "57", "0.25"]


def test_lavapipe_creates_pipelines_without_it(gpu) -> None:
    assert gpu.pipeline_stats is False  # lavapipe does not offer the extension
