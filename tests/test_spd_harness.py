"""tools/spd_harness.py, the independent SPD timing harness, on lavapipe with the validation layer
(synchronization validation on): its runs are validation-clean, its levels are SPD's real work
(within 1 LSB of the float64 box chain where SPD is a plain 2x2 box), and its check would notice
a texel 3 LSB off. The harness makes its own Vulkan instance: it must not import mipview."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from tools import spd_harness as harness
from tools import spd_harness_chain as chain
from tools import spd_harness_core as core

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("GLSLC", "glslc")) is None,
                                reason="needs glslc")

DEVICE = os.environ.get("MIPVIEW_DEVICE", "llvmpipe")
ROOT = Path(__file__).resolve().parents[1]
SPD_MEAN = ROOT / "resources" / "shaders" / "spd_mean.comp"


@pytest.fixture(scope="module")
def spd_ctx():
    ctx = harness.SpdContext(DEVICE, validate=True)
    yield ctx
    ctx.close()
    # what the layer reports at vkDestroyDevice/vkDestroyInstance (leaks) lands here too
    assert not ctx.messages, "\n".join(ctx.messages[:10])


@pytest.fixture
def clean(spd_ctx):
    spd_ctx.messages.clear()
    yield spd_ctx
    assert not spd_ctx.messages, f"{len(spd_ctx.messages)} validation message(s):\n" + \
        "\n".join(spd_ctx.messages[:10])


def _time(ctx, w, h):
    # a small eviction buffer: lavapipe fills it on the CPU, and the test only needs the path
    return harness.time_size(ctx, w, h, repeat=2, warmup_ms=0, cold=True, evict_mib=4)


@pytest.mark.parametrize("size", [(64, 64), (256, 256)])
def test_pot_within_one_lsb(clean, size):
    """64^2: one group, levels 1..6. 256^2: 16 groups and the last-group tail (levels 7, 8 from
    level 6 as stored), which the counter must have reset after each of the two runs."""
    r = _time(clean, *size)
    assert r.mips == size[0].bit_length() - 1
    assert r.check_box_exact and r.check_passed, r.check
    assert r.check.max_error <= harness.TOLERANCE_LSB
    assert r.counter_after == 0
    assert len(r.samples_us) == 2 and all(s > 0 for s in r.samples_us)
    assert r.min_us <= r.median_us <= r.p90_us


def test_npot_reported_not_judged(clean):
    """40x24: level 5 (1x1) lies below the 2x1 level 4, so SPD averages a row past the edge;
    the levels above it are still 2x2 boxes."""
    r = _time(clean, 40, 24)
    assert (r.mips, r.workgroups) == (5, 1)
    assert not r.check_box_exact and r.check_passed is None
    assert max(r.check.per_level[:4]) <= harness.TOLERANCE_LSB
    assert r.counter_after == 0


def test_check_notices_one_texel_3_lsb_off(clean):
    r = harness.time_size(clean, 64, 64, timed=False)
    reference = harness.reference_levels(r.level0, r.mips)
    assert harness.check_levels(r.levels, reference).passed
    level, x, y, c = 3, 2, 1, 2
    bad = [lv.copy() for lv in r.levels]
    got = int(bad[level - 1][y, x, c])
    ref = reference[level - 1][y, x, c]
    # 3 LSB away from the reference, inside 0..255
    step = 3 if (got >= ref and got <= 252) or got < 3 else -3
    bad[level - 1][y, x, c] = got + step
    result = harness.check_levels(bad, reference)
    assert not result.passed
    assert result.worst == (level, x, y, c)
    assert result.max_error >= 3 - 0.5
    # and the same through a wrong reference
    wrong = [lv.copy() for lv in reference]
    wrong[level - 1][y, x, c] -= step
    assert not harness.check_levels(r.levels, wrong).passed


def test_spd_setup_port():
    # ffx_spd.h's SpdSetup by hand: 64x64 tiles, mips = min(floor(log2(max side)), 12)
    s = harness.spd_setup((0, 0, 1920, 1080))
    assert (s.dispatch, s.work_group_offset, s.num_work_groups, s.mips) == \
        ((30, 17), (0, 0), 510, 10)
    s = harness.spd_setup((0, 0, 4096, 4096))
    assert (s.dispatch, s.num_work_groups, s.mips) == ((64, 64), 4096, 12)
    s = harness.spd_setup((100, 70, 300, 200))
    assert (s.dispatch, s.work_group_offset, s.num_work_groups, s.mips) == \
        ((6, 4), (1, 1), 24, 8)
    assert harness.spd_setup((0, 0, 4095, 17)).mips == 11
    assert harness.box_exact(1920, 1080, 10) and not harness.box_exact(64, 32, 6)


def test_command_line(tmp_path, capsys):
    out = tmp_path / "spd.json"
    rc = harness.main(["--sizes", "64,40x24", "--repeat", "2", "--warmup-ms", "0",
                       "--evict-mib", "4", "--device", DEVICE, "--validate",
                       "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "spd-harness 64x64 rgba8 cold: median" in text
    assert "check: max |error| over levels = " in text
    rows = json.loads(out.read_text())
    assert [r["size"] for r in rows] == ["64x64", "40x24"]
    for row in rows:
        assert {"size", "format", "cold", "median_us", "min_us", "p90_us", "repeat", "device",
                "driver"} <= row.keys()
        assert row["format"] == "rgba8" and row["cold"] is True and row["repeat"] == 2


def test_independent_of_mipview():
    """No file of the harness imports mipview (or another module of tools/): the chain mode
    only reads mipview's include folder as a path and its pragmas as text."""
    relatives = {}
    for module in (harness, core, chain):
        tree = ast.parse(Path(module.__file__).read_text())
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                    for a in n.names}
        imported |= {n.module.split(".")[0] for n in ast.walk(tree)
                     if isinstance(n, ast.ImportFrom) and n.module and not n.level}
        assert "mipview" not in imported and "tools" not in imported, module.__name__
        assert np.__name__ in imported and ("vulkan" in imported or module is harness)
        relatives[module.__name__.rsplit(".", 1)[-1]] = {
            a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level
            for a in n.names}
    # relative imports: the files of the harness only, and no cycle among them (the core
    # imports neither mode; the chain mode only the core)
    assert relatives == {"spd_harness": {"spd_harness_chain", "spd_harness_core"},
                         "spd_harness_core": set(),
                         "spd_harness_chain": {"spd_harness_core"}}, relatives


# --- chain mode: a mipview whole-chain shader through the harness's own Vulkan path ---------

@pytest.fixture(scope="module")
def chain_shader():
    return chain.load_chain_shader(SPD_MEAN)


@pytest.fixture(scope="module")
def chain_ctx(chain_shader):
    ctx = chain.ChainContext(chain_shader, DEVICE, validate=True)
    yield ctx
    ctx.close()
    assert not ctx.messages, "\n".join(ctx.messages[:10])


@pytest.mark.parametrize("size", [(64, 64), (256, 256)])
def test_chain_spd_mean_correctly_rounded(chain_ctx, size):
    """spd_mean.comp rounds every level itself (MIP_UNORM8, which the harness must set as
    mipview does) and carries level 6 at full precision: within half an LSB (plus float32 sums
    near a tie) of the exact mean. 256^2: 16 groups, the last-group tail (levels 7, 8) and the
    self-reset counter, which must read zero after the two runs."""
    chain_ctx.messages.clear()
    r = chain.time_chain_size(chain_ctx, *size, repeat=2, warmup_ms=0, cold=True, evict_mib=4)
    assert not chain_ctx.messages, "\n".join(chain_ctx.messages[:10])
    assert r.mips == size[0].bit_length() - 1
    assert r.workgroups == (size[0] // 64) * (size[1] // 64)
    assert r.check_box_exact and r.check_passed, r.check
    assert r.check.max_error <= 0.5 + 1e-3
    assert r.counters == "self-reset" and r.counter_after == 0
    # mipview's format constants for unorm; the shader's own option at its default, as
    # mipview runs `shader:spd_mean.comp` without options
    assert r.constants == {"MIP_SRGB": 0, "MIP_UNORM8": 1, "MIP_UNORM16": 0, "MIP_UNORM10": 0,
                           "MIP_FLOAT11": 0, "HANDOFF": 0}
    assert len(r.samples_us) == 2 and all(s > 0 for s in r.samples_us)
    assert r.min_us <= r.median_us <= r.p90_us
    assert "check: max |error| over levels = 0.50" in chain.chain_check_line(r)


def test_chain_spirv_is_mipviews(chain_shader):
    """The module the harness times is, byte for byte, the one mipview's loader builds its
    pipeline from, specialised alike (ids and data) and bound and dispatched alike: the two
    timing paths time the same code. (Only the test imports mipview.)"""
    from mipview.core.formats import Format
    from mipview.gpu.strategies.custom_shader import load_custom_shader

    theirs = load_custom_shader(SPD_MEAN)
    assert chain_shader.spirv == theirs.interface.spirv
    values = theirs.interface.spec_values(theirs.constants({}, Format.UNORM))
    assert [cid for cid, _ in chain_shader.constants] == [cid for cid, _ in values]
    assert chain_shader.spec_data == theirs.interface.spec_data(values)
    decl = theirs.declaration
    p = chain_shader.pragmas
    assert (p.kind, p.tile, p.dispatches, p.counters, p.robust, p.sampler) == \
        (decl.kind, decl.tile, decl.dispatches, decl.counters, decl.robust, decl.sampler)
    assert chain_shader.tile == (64, 64)
    assert chain_shader.level_slots == theirs.declares(1).count == 13
    assert chain_shader.scratch == (theirs.declares(3) is not None)
    assert chain.PUSH_BYTES == theirs.push.push_size


def test_chain_pragmas():
    src = ("#pragma mipview kind whole-chain\n#pragma mipview tile 32 16  // why\n"
           "  #  pragma mipview dispatches 3\n#pragma mipview counters self-reset\n"
           "#pragma mipview robust off\n#pragma mipview option GROUP 8 16\n")
    p = chain.read_pragmas(src, "x.comp")
    assert (p.kind, p.tile, p.dispatches, p.counters, p.robust) == \
        ("whole-chain", (32, 16), 3, "self-reset", "off")
    assert chain.read_pragmas("#pragma mipview kind whole-chain\n", "x").robust == "on"
    with pytest.raises(ValueError, match="x.comp:2"):
        chain.read_pragmas("#pragma mipview kind whole-chain\n#pragma mipview robust maybe\n",
                           "x.comp")


def test_chain_command_line(tmp_path, capsys):
    out = tmp_path / "chain.json"
    rc = harness.main(["--chain-shader", str(SPD_MEAN), "--sizes", "64", "--repeat", "2",
                       "--warmup-ms", "0", "--evict-mib", "4", "--device", DEVICE, "--validate",
                       "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "spd-harness chain spd_mean.comp 64x64 rgba8 cold: median" in text
    assert "MIP_UNORM8=true" in text and "check: max |error| over levels = " in text
    row, = json.loads(out.read_text())
    assert row["size"] == "64x64" and row["counters"] == "self-reset"
    assert row["spirv_sha256"] and row["check_passed"] is True and row["counter_after"] == 0
    with pytest.raises(SystemExit):  # SPD-only options do not apply to a chain shader
        harness.main(["--chain-shader", str(SPD_MEAN), "--robust"])
