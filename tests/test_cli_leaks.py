"""``--validate`` sees what the layer reports as the device is destroyed: a Vulkan object
leaked on purpose (a sampler no resource tracks) is printed, kept in the report and fails
the command, as any other validation message does."""

from __future__ import annotations

import json

import pytest

from mipview.cli import batch as cli_batch
from mipview.cli import common as cli_common
from mipview.cli import main as cli
from mipview.cli import mean as cli_mean
from mipview.cli.main import main
from mipview.gpu.vulkan.vkapi import flag, vk


@pytest.fixture
def leak_one_sampler(monkeypatch):
    """Every context the CLI opens gets one sampler that nothing destroys."""
    real = cli_common.open_context

    def leaky(args):
        ctx = real(args)
        vk.vkCreateSampler(ctx.device, vk.VkSamplerCreateInfo(
            magFilter=flag("VK_FILTER_NEAREST"), minFilter=flag("VK_FILTER_NEAREST")), None)
        return ctx

    for module in (cli, cli_mean, cli_batch):
        monkeypatch.setattr(module, "open_context", leaky)


COMMANDS = {
    "run": ["run", "--size", "16x8", "--strategies", "per-level"],
    "bench": ["bench", "--size", "16x8", "--strategies", "per-level", "--repeat", "2",
              "--warmup-ms", "0"],
    "mean": ["mean", "--size", "16x8", "--strategies", "per-level"],
    "sweep": ["sweep", "--width-range", "4:5", "--height", "3", "--strategies", "per-level"],
    "bench --batch-synthetic": ["bench", "--batch-synthetic", "2", "--ways", "loop",
                                "--repeat", "2", "--warmup-ms", "0"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_leaked_object_is_reported_and_fails_the_command(command, tmp_path, capsys,
                                                           leak_one_sampler):
    argv = [*COMMANDS[command], "--validate"]
    argv += ["--out", str(tmp_path / "o")] if command == "run" else \
        ["--json", str(tmp_path / "o.json")]
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()
    leaks = [line for line in err
             if line.startswith("validation: ") and "vkDestroyDevice" in line and "SAMPLER" in line]
    assert len(leaks) == 1, err
    report = tmp_path / ("o/report.json" if command == "run" else "o.json")
    saved = json.loads(report.read_text())["validation_messages"]
    assert [f"validation: {m}" for m in saved] == leaks


@pytest.mark.parametrize("command", ["run", "mean"])
def test_without_a_leak_the_same_command_passes(command, tmp_path, capsys):
    argv = [*COMMANDS[command], "--validate"]
    argv += ["--out", str(tmp_path / "o")] if command == "run" else []
    assert main(argv) == 0
    assert "validation:" not in capsys.readouterr().err
