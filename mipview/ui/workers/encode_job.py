"""The Heatmaps tab's Encode, as a job of the CPU worker: a Run's result block-compressed level
by level (:func:`mipview.runs.encode.encode_result`, the command line's ``--encode``), with a
progress reply per level, and the codec's and the total error map of each level for the
heatmap. Stopped, it ends at the next level (``encode_result``'s checkpoint) and sends
nothing."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mipview.check.codec_error import texel_maps
from mipview.check.verdict import ReferenceCache
from mipview.core.cancel import checkpoint
from mipview.runs.encode import EncodedChain, encode_result
from mipview.ui.messages import Encoded, EncodeProgress, EncodeRequest


def error_maps(chain: EncodedChain, levels: tuple[np.ndarray, ...],
               reference: list[np.ndarray]) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Per level, the codec's and the total error of each texel, the largest over the channels
    judged (float32, (H, W) or (L, H, W) as the level)."""
    out = []
    for level, got, ref in zip(levels, chain.decoded, reference, strict=True):
        checkpoint()
        _, codec, total = texel_maps(level, got, ref, chain.fmt, chain.judged)
        out.append((codec.max(axis=-1).astype(np.float32),
                    total.max(axis=-1).astype(np.float32)))
    return tuple(out)


def encode(req: EncodeRequest, reply: Callable[[object], None]) -> None:
    """Encode ``req``'s result; ``reply`` gets an EncodeProgress per level, then the Encoded."""
    res = req.result
    refs = ReferenceCache()
    chain = encode_result(res, res.levels[0], req.fmt, req.choice, refs,
                          lambda done, total: reply(EncodeProgress(req.job, done, total)),
                          perceived=req.perceived)
    # the reference encode_result judged against, from the cache it filled
    reference = refs.get(res.levels[0], req.fmt, res.reduction)
    reply(Encoded(req.job, req.run_job, req.strategy, chain,
                  error_maps(chain, tuple(res.levels), reference)))
