"""FLIP and SSIM per level of a compressed chain (mipview.check.perceptual): their zero and
their order on levels made on the CPU, what FLIP is fed for sRGB and float levels, and the
figures as ``mipview run --encode`` reports them, with and without the packages."""

from __future__ import annotations

import json
import sys

import flip_evaluator
import numpy as np
import pytest
from PIL import Image

from mipview.check import perceptual
from mipview.check.filter_reference import named_reference
from mipview.cli.main import main
from mipview.core.formats import Format, srgb_to_linear
from mipview.io import imageio

SRGB = Format.parse("srgb")
UNORM = Format.parse("unorm")


def _texture(w: int = 32, h: int = 24, low: int = 30, high: int = 220) -> np.ndarray:
    """A smooth RGBA8 pattern with some grain: structure for SSIM to see."""
    y, x = np.mgrid[0:h, 0:w]
    grain = np.random.default_rng(7).integers(-6, 7, (h, w, 3))
    base = np.stack([x / w, y / h, 0.5 + 0.5 * np.sin(x / 3.0) * np.cos(y / 4.0)], axis=-1)
    rgb = np.clip(low + (high - low) * base + grain, 0, 255)
    return np.concatenate([rgb, np.full((h, w, 1), 255.0)], axis=-1).astype(np.uint8)


def _block_changed(level: np.ndarray, delta: int) -> np.ndarray:
    """``level`` with one 4x4 block's colour raised by ``delta`` codes."""
    out = level.astype(np.int32)
    out[8:12, 12:16, :3] += delta
    return np.clip(out, 0, 255).astype(np.uint8)


def test_identical_levels_give_flip_0_and_ssim_1():
    level = _texture()
    same = perceptual.level_perception(level, level.copy(), level.astype(np.float64), UNORM, 4)
    assert same is not None
    for pair in (same.filter, same.codec, same.total):
        assert pair.flip == 0.0 and pair.ssim == pytest.approx(1.0, abs=1e-12)
        assert pair.ssim_window == 7


def test_a_changed_block_is_seen_and_a_larger_change_is_worse():
    level = _texture()
    figures = [perceptual.compare(_block_changed(level, d), level, UNORM, 4) for d in (3, 12, 48)]
    assert figures[0].flip > 0.0 and figures[0].ssim < 1.0
    flips = [f.flip for f in figures]
    ssims = [f.ssim for f in figures]
    assert flips == sorted(flips) and len(set(flips)) == 3
    assert ssims == sorted(ssims, reverse=True) and len(set(ssims)) == 3


def test_the_three_pairs_are_filter_codec_and_total():
    level = _texture()
    decoded = _block_changed(level, 20)
    got = perceptual.level_perception(level, decoded, level.astype(np.float64), UNORM, 4)
    assert got is not None
    assert got.filter.flip == 0.0 and got.codec.flip > 0.0
    assert got.total == got.codec  # the stored level is the reference here


def test_a_stopped_job_ends_between_pairs():
    from mipview.core.cancel import Cancelled, stop_token

    level = _texture()
    asked = []

    def stop() -> bool:  # set once the first pair is done
        asked.append(1)
        return len(asked) > 1

    with stop_token(stop), pytest.raises(Cancelled):
        perceptual.level_perception(level, level, level.astype(np.float64), UNORM, 4)
    assert len(asked) == 2


@pytest.mark.parametrize(("h", "w", "window"), [
    (24, 32, 7), (5, 9, 5), (6, 6, 5), (4, 4, 3), (3, 100, 3), (2, 2, 0), (1, 8, 0)])
def test_ssim_window_is_7_or_the_largest_odd_side_a_level_holds(h, w, window):
    assert perceptual.ssim_window(h, w) == window


def test_a_level_under_three_texels_has_no_ssim_but_a_flip():
    level = _texture(2, 2)
    got = perceptual.compare(_block_changed(_texture(16, 16), 40)[:2, :2], level, UNORM, 4)
    assert got.ssim is None and got.ssim_window == 0 and got.flip >= 0.0
    assert got.as_dict()["ssim"] == "too small"


def test_ssim_is_taken_on_rec709_luminance_with_data_range_1():
    from skimage.metrics import structural_similarity

    level = _texture()
    changed = _block_changed(level, 30)
    changed[..., 2] = 255 - changed[..., 2]  # blue counts for little in luminance
    luma = [(a[..., :3] / 255.0) @ np.array([0.2126, 0.7152, 0.0722]) for a in (level, changed)]
    expected = structural_similarity(*luma, win_size=7, data_range=1.0)
    assert perceptual.compare(changed, level, UNORM, 4).ssim == pytest.approx(expected, abs=1e-6)


def test_ssim_misses_a_hue_shift_that_keeps_luminance_and_flip_sees_it():
    level = _texture(64, 64)
    shifted = level.astype(np.float64)
    shifted[..., 0] += 20
    shifted[..., 1] -= 20 * 0.2126 / 0.7152
    shifted = np.clip(np.rint(shifted), 0, 255).astype(np.uint8)
    got = perceptual.compare(shifted, level, UNORM, 4)
    assert got.ssim > 0.9999 and got.flip > 0.1  # what docs/compression.md says of each


@pytest.fixture
def flip_inputs(monkeypatch):
    """Every call FLIP gets: (reference, test, mode)."""
    seen = []
    real = flip_evaluator.evaluate

    def spy(reference, test, mode, **kw):
        seen.append((np.array(reference), np.array(test), mode))
        return real(reference, test, mode, **kw)

    monkeypatch.setattr(flip_evaluator, "evaluate", spy)
    return seen


def test_srgb_levels_reach_flip_as_their_codes(flip_inputs):
    codes = _texture(low=5, high=90)  # dark: where codes and linear light differ most
    changed = _block_changed(codes, 10)
    got = perceptual.compare(changed, codes, SRGB, 4)
    reference, test, mode = flip_inputs[0]
    assert mode == "LDR"
    np.testing.assert_array_equal(reference, (codes[..., :3] / 255.0).astype(np.float32))
    np.testing.assert_array_equal(test, (changed[..., :3] / 255.0).astype(np.float32))
    # fed linear light instead (the encoding dropped), FLIP would judge another image
    linear = [srgb_to_linear(a[..., :3] / 255.0).astype(np.float32) for a in (codes, changed)]
    as_linear = flip_evaluator.evaluate(*linear, "LDR", applyMagma=False)[1]
    assert got.flip != pytest.approx(as_linear, rel=0.1)


def test_float_levels_go_through_hdr_flip_unclipped(flip_inputs):
    fmt = Format.parse("f16")
    level = (_texture()[..., :4] / 64.0).astype(np.float16)  # up to about 3.5: past 1
    perceptual.compare(level * np.float16(1.1), level, fmt, 4)
    reference, _, mode = flip_inputs[0]
    assert mode == "HDR" and reference.max() > 1.0
    np.testing.assert_allclose(reference, level[..., :3].astype(np.float32))


def test_one_channel_is_grey_and_two_are_red_and_green():
    level = _texture(8, 8)
    grey = perceptual.display_values(level, UNORM, 1)[0]
    assert (grey[..., 0] == grey[..., 1]).all() and (grey[..., 1] == grey[..., 2]).all()
    rg = perceptual.display_values(level, UNORM, 2)[0]
    assert (rg[..., 2] == 0).all() and (rg[..., 1] == level[..., 1] / np.float32(255)).all()


# --- through the command line, on the GPU -------------------------------------------------------
@pytest.fixture
def texture_png(tmp_path):
    path = tmp_path / "texture.png"
    Image.fromarray(_texture(37, 23)).save(path)
    return path


def _run(path, out) -> dict:
    assert main(["run", str(path), "--strategies", "per-level", "--encode", "bc7",
                 "--export", "ktx2", "--out", str(out)]) == 0
    return json.loads((out / "report.json").read_text())["strategies"][0]["encoded"][0]


def test_report_holds_the_modules_figures_for_its_levels(texture_png, tmp_path, capsys):
    out = tmp_path / "out"
    encoded = _run(texture_png, out)
    printed = capsys.readouterr().out
    assert "FLIP: filter codec total  SSIM: filter codec total" in printed
    assert "SSIM too small" in printed and "SSIM 1.0000" in printed
    stored = imageio.read_chain(out / "per-level" / "per-level.ktx2").levels
    decoded = imageio.read_chain(out / "per-level" / "per-level.bc7.ktx2").levels
    fmt = UNORM  # an 8-bit PNG opens as unorm
    reference = named_reference("mean", np.asarray(stored[0]), fmt)
    assert len(encoded["levels"]) == len(stored) == 6
    for entry, s, d, r in zip(encoded["levels"], stored, decoded, reference, strict=True):
        mine = perceptual.level_perception(s, d, r, fmt, encoded["channels_judged"])
        assert mine is not None and entry["perceptual"] == mine.as_dict()
    assert encoded["levels"][-1]["perceptual"]["total"]["ssim"] == "too small"


def test_without_the_packages_the_run_goes_on_and_says_so(texture_png, tmp_path, capsys,
                                                           monkeypatch):
    monkeypatch.setitem(sys.modules, "flip_evaluator", None)
    out = tmp_path / "out"
    encoded = _run(texture_png, out)
    printed = capsys.readouterr().out
    notes = [n for n in encoded["notes"] if "perceptual figures" in n]
    assert len(notes) == 1 and "flip_evaluator" in notes[0]
    assert printed.count("perceptual figures (FLIP, SSIM) left out") == 1
    assert "FLIP" not in printed.replace(notes[0], "")
    assert all("perceptual" not in level for level in encoded["levels"])
    assert encoded["levels"][0]["total"]["max_error"] > 0  # the LSB figures are all there


@pytest.fixture
def pairs_made(monkeypatch):
    """Every pair perceptual.compare judges, as (test, reference) copies."""
    seen = []
    real = perceptual.compare

    def spy(test, reference, fmt, judged):
        seen.append((np.array(test), np.array(reference)))
        return real(test, reference, fmt, judged)

    monkeypatch.setattr(perceptual, "compare", spy)
    return seen


def test_two_codecs_share_one_filter_pair_per_level(texture_png, tmp_path, pairs_made):
    out = tmp_path / "out"
    assert main(["run", str(texture_png), "--strategies", "per-level", "--encode", "bc7,bc1",
                 "--out", str(out)]) == 0
    bc7, bc1 = json.loads((out / "report.json").read_text())["strategies"][0]["encoded"]
    levels = len(bc7["levels"])
    # bc7 judges RGBA, bc1 RGB: alpha takes no part in either figure, so one pair serves both
    assert levels == 6 and (bc7["channels_judged"], bc1["channels_judged"]) == (4, 3)
    # per level: one filter pair for both codecs, then each codec's own codec and total pairs
    assert len(pairs_made) == levels * (1 + 2 * 2)
    for a, b in zip(bc7["levels"], bc1["levels"], strict=True):
        assert a["perceptual"]["filter"] == b["perceptual"]["filter"]
        assert a["perceptual"]["codec"] != b["perceptual"]["codec"]


def test_filter_pairs_key_on_the_level_and_its_reference():
    level = _texture()
    reference = _block_changed(level, 20).astype(np.float64)
    filters = perceptual.FilterPairs()
    first = filters.get((level, reference), level, reference, UNORM, 4)
    assert filters.get((level, reference), level, reference, UNORM, 4) is first
    # the same level against another reference (another result's filter) is another pair
    other = level.astype(np.float64)
    assert filters.get((level, other), level, other, UNORM, 4).flip == 0.0 != first.flip


def test_no_perceptual_leaves_the_figures_out_without_a_note(texture_png, tmp_path, capsys,
                                                            monkeypatch, pairs_made):
    def run(out, *extra) -> dict:
        assert main(["run", str(texture_png), "--strategies", "per-level", "--encode", "bc7",
                     "--out", str(out), *extra]) == 0
        return json.loads((out / "report.json").read_text())["strategies"][0]["encoded"][0]

    on = run(tmp_path / "on", "--perceptual")
    made_on = len(pairs_made)
    assert made_on == 3 * len(on["levels"]) and all("perceptual" in lv for lv in on["levels"])
    capsys.readouterr()
    off = run(tmp_path / "off", "--no-perceptual")
    assert len(pairs_made) == made_on  # not one pair judged
    assert all("perceptual" not in lv for lv in off["levels"])
    assert "FLIP" not in capsys.readouterr().out
    assert [lv["total"] for lv in off["levels"]] == [lv["total"] for lv in on["levels"]]
    # left out on purpose, a missing package is no news
    monkeypatch.setitem(sys.modules, "flip_evaluator", None)
    hidden = run(tmp_path / "hidden", "--no-perceptual")
    assert not any("perceptual" in n for n in hidden["notes"])
    assert "left out" not in capsys.readouterr().out


def test_api_encode_takes_the_same_switch(pairs_made):
    from mipview import api

    done = api.run(_texture(37, 23), "per-level,blit")
    chains = api.encode(done, "bc7,bc1", perceptual=False)
    assert pairs_made == []
    assert all(f.perceptual is None for by_codec in chains.values()
               for chain in by_codec.values() for f in chain.figures)
    chains = api.encode(done, "bc7,bc1")
    levels = len(chains["per-level"]["bc7"].figures)
    # two results, each: its filter pairs once, each codec's codec and total pairs
    assert len(pairs_made) == 2 * levels * (1 + 2 * 2)
    for by_codec in chains.values():
        bc7, bc1 = (by_codec[c].figures for c in ("bc7", "bc1"))
        assert [f.perceptual.filter for f in bc7] == [f.perceptual.filter for f in bc1]
