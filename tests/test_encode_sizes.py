"""Compressed chains at a size a user brings: 1921x1079, odd on both sides and not a power of
two, so every level's last column and row of blocks is partial. The GPU makes the per-level
chain (lavapipe), each codec family encodes it once at its encoder's fastest quality, the KTX2
file it writes is read back by texture2ddecoder and matches mipview's decode at every level.
FLIP and SSIM are left out: they are judged in tests/test_encode.py and cost most of the time
at this size."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mipview import api
from mipview.runs import encode
from tests.test_encode import RESOURCES, _ktx2_levels, _t2d, _tolerance

W, H = 1921, 1079

#: (codec at its fastest quality, format the GPU runs in): one of each encoder's families
CASES = [
    ("bc1", "unorm"),
    ("bc7:quality=0", "unorm"),
    ("etc2-rgba", "unorm"),
    ("eac-r11", "r8"),
    ("astc-6x6:quality=fastest", "unorm"),
]


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    """The NPOT photo stretched to 1921x1079, with an alpha ramp so RGBA codecs carry alpha."""
    with Image.open(RESOURCES / "photo_npot_1000x750.png") as im:
        rgba = np.array(im.convert("RGBA").resize((W, H), Image.BILINEAR))
    rgba[..., 3] = np.linspace(40, 255, W, dtype=np.float64).astype(np.uint8)[None, :]
    return rgba


@pytest.fixture(scope="module")
def runs() -> dict[str, api.Outcome]:
    return {}


@pytest.mark.parametrize(("codec", "fmt"), CASES, ids=[c.split(":")[0] for c, _ in CASES])
def test_round_trip_at_1921x1079(photo, runs, codec, fmt, tmp_path: Path):
    if fmt not in runs:  # one GPU run per format, shared by the codecs that take it
        runs[fmt] = api.run(photo, strategies="per-level", format=fmt, check=False)
    done = runs[fmt]
    (res,) = done.result.results
    (choice,) = encode.parse_codecs(codec)
    chain = encode.encode_result(res, res.levels[0], done.result.fmt, choice, perceived=False)
    assert chain.decoded[0].shape[:2] == (H, W)
    assert len(chain.decoded) == len(res.levels) == 11
    (path,) = encode.export(tmp_path, "chain", chain, ("ktx2",))
    vk, _, raw = _ktx2_levels(path)
    assert vk == choice.codec.vk[0]
    name, block, held = choice.codec.name, choice.codec.block, chain.judged
    tol = _tolerance(name)
    assert len(raw) == len(chain.decoded)
    for p, (blocks, decoded) in enumerate(zip(raw, chain.decoded, strict=True)):
        h, w = decoded.shape[:2]
        assert (h, w) == (max(1, H >> p), max(1, W >> p))
        other = _t2d(name, blocks, w, h, block).astype(np.float64)
        diff = np.abs(other[..., :held] - decoded[..., :held]).max()
        assert diff <= tol, f"level {p} ({w}x{h}): texture2ddecoder differs by {diff}"
    # the codec's error is real at level 0: a decode that matched trivially would show 0
    assert chain.figures[0].codec.max_error > 0
