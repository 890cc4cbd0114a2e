"""Shared fixtures: one validated lavapipe context for the session, checked after every test."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MIPVIEW_DEVICE", "llvmpipe")

# MIPVIEW_COMPILE_TALLY=DIR: where a cold run's time goes (tests/compile_tally.py)
pytest_plugins = ["compile_tally"]


@pytest.fixture(scope="session", autouse=True)
def own_cache_dir(tmp_path_factory):
    """The pipeline caches of the run's contexts go to a folder of the run, never the user's."""
    os.environ["MIPVIEW_CACHE_DIR"] = str(tmp_path_factory.mktemp("mipview-cache"))


@pytest.fixture(scope="session")
def gpu_session():
    from mipview.gpu.vulkan.context import GpuContext

    ctx = GpuContext(device=os.environ["MIPVIEW_DEVICE"], validate=True)
    yield ctx
    ctx.close()
    assert not ctx.messages, "validation messages at teardown:\n" + "\n".join(ctx.messages)


@pytest.fixture
def gpu(gpu_session):
    """The session's GPU context; the test fails if validation reported anything during it."""
    gpu_session.take_messages()
    yield gpu_session
    messages = gpu_session.take_messages()
    assert not messages, f"{len(messages)} validation message(s):\n" + "\n".join(messages[:10])


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def no_gpu_work(monkeypatch):
    """A run that gets as far as making a Session fails the test (main lets AssertionError
    through): what is refused must be refused before."""
    def refuse(*args, **kwargs):
        raise AssertionError("GPU work started")
    monkeypatch.setattr("mipview.gpu.session.Session", refuse)
