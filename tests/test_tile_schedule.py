"""How tiles are spread over workgroups (strategies/base.py, mipview/gpu/shaders/include/tile_schedule.glsl):
no device needed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mipview.gpu.strategies.base import (
    MAX_GROUPS_X,
    MIN_GROUPS_CPU,
    MIN_GROUPS_GPU,
    group_tiles,
    tile_groups,
    tiles_per_group,
)


@pytest.mark.parametrize("tiles", [1, 5, 4096, 65535, 65536, 65536 * 3 + 7])
@pytest.mark.parametrize("per_group", [1, 2, 8])
def test_tile_groups_cover_every_tile_with_few_idle_workgroups(tiles, per_group):
    gx, gy = tile_groups(tiles, per_group)
    needed = -(-tiles // per_group)
    assert gx <= MAX_GROUPS_X and gx * gy >= needed
    assert gx * gy - needed < gy  # at most one idle workgroup per row of the 2D dispatch
    # the shader's grid stride: workgroup g takes tiles g, g + G, ...; each tile exactly once
    if tiles <= 5000:
        taken = sorted(t for g in range(gx * gy) for t in range(g, tiles, gx * gy))
        assert taken == list(range(tiles))


def test_tiles_per_group_keeps_the_device_busy(gpu):
    gpu_caps = replace(gpu.caps, device_type="discrete")
    assert tiles_per_group(gpu_caps, 4096, 8) == 8                # 512 workgroups remain
    assert tiles_per_group(gpu_caps, 4096, 16) == 4096 // MIN_GROUPS_GPU
    assert tiles_per_group(gpu_caps, 4, 8) == 1                   # 8192^2 pass 2: 4 tiles
    assert tiles_per_group(gpu.caps, 25, 8) == 25 // MIN_GROUPS_CPU  # lavapipe
    assert tiles_per_group(gpu.caps, 1, 8) == 1


def test_asked_tiles_are_given(gpu):
    """A number of tiles per workgroup is given as asked, below MIN_GROUPS_GPU workgroups too
    (docs/bench/speed-vs-spd measures one wave of resident workgroups); ``auto`` keeps the device busy."""
    gpu_caps = replace(gpu.caps, device_type="discrete")
    assert group_tiles(gpu_caps, "4", 2040, False, True) == 4         # 510 workgroups
    # auto: an early fetch's 4 tiles, or one where fewer fit (3840x2160's 2040 tiles); a
    # counter's 8 as many as fit
    assert group_tiles(gpu_caps, "auto", 2040, False, True) == 1
    assert group_tiles(gpu_caps, "auto", 2048, False, True) == 4
    assert group_tiles(gpu_caps, "auto", 2040, True, True) == 2040 // MIN_GROUPS_GPU
    assert group_tiles(gpu_caps, "8", 4, False, False) == 4           # every tile, one group
    assert group_tiles(gpu.caps, "2", 25, True, False) == 2
