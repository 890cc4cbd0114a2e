"""How a batch of images is packed into GPU memory.

Every image's full chain (level 0 and every level above it) lives in a storage **buffer** of
uint32 words, in the image's storage format (rgba8 as one word, rgba16f as two, rgba32f as
four), level after level, addressed by a per-image table of level offsets. Why buffers and not
images:

* one descriptor covers any number of images of any size; an array of images would need
  dynamic indexing of storage-image arrays, which lavapipe lacks (and a descriptor per image);
* an atlas would need a 2D packer and wastes space on NPOT chains; a buffer packs tightly;
* texels keep their storage format, so a chain is bit-for-bit what a single-image run of the
  same shader stores, and the host reads it back with one copy.

A storage-buffer binding may address at most ``maxStorageBufferRange`` bytes (128 MiB on
lavapipe), so chains are packed into up to :data:`MAX_PAGES` *pages*, one buffer and binding
each; a chain never straddles two pages. The table row of an image (:data:`IMAGE_STRIDE` uints,
the layout of mipview/gpu/shaders/include/batch_common.glsl ``BATCH_IMAGE_STRIDE``) is
``width, height, levels, page, offset of level 0 .. 15`` (offsets in texels within the page).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mipview.core.errors import MipviewError
from mipview.core.formats import Format, level_size, mip_count

IMAGE_STRIDE = 20  # batch_common.glsl BATCH_IMAGE_STRIDE
MAX_LEVELS = 16    # level offsets per table row: sides up to 32768
MAX_PAGES = 4      # batch_reduce.comp binds pages 0..3

#: uint32 words per texel
TEXEL_WORDS = {Format.UNORM: 1, Format.SRGB: 1, Format.F16: 2, Format.F32: 4}

#: Word that fills levels 1.. before a run, so a texel no schedule writes fails every check:
#: magenta for 8-bit formats, NaN for float ones.
SENTINEL_WORD = {Format.UNORM: 0xFFFF00FF, Format.SRGB: 0xFFFF00FF,
                 Format.F16: 0xFFFFFFFF, Format.F32: 0xFFFFFFFF}


class BatchTooLarge(MipviewError):
    """The batch does not fit the device's storage-buffer pages."""


@dataclass(frozen=True)
class BatchLayout:
    """Where every level of every image lives. Pure data: no device needed."""

    fmt: Format
    sizes: tuple[tuple[int, int], ...]
    #: page of each image
    pages: tuple[int, ...]
    #: texel offset (within its page) of each level of each image
    offsets: tuple[tuple[int, ...], ...]
    #: texels used in each page
    page_texels: tuple[int, ...]

    @property
    def count(self) -> int:
        return len(self.sizes)

    @property
    def words_per_texel(self) -> int:
        return TEXEL_WORDS[self.fmt]

    def levels(self, image: int) -> int:
        return len(self.offsets[image])

    @property
    def max_levels(self) -> int:
        return max((len(o) for o in self.offsets), default=0)

    def page_bytes(self, page: int) -> int:
        return self.page_texels[page] * self.fmt.bytes_per_texel

    @property
    def total_bytes(self) -> int:
        return sum(self.page_bytes(p) for p in range(len(self.page_texels)))

    def table(self) -> np.ndarray:
        """The image table the shaders read (uint32, ``count * IMAGE_STRIDE``)."""
        t = np.zeros((max(1, self.count), IMAGE_STRIDE), dtype=np.uint32)
        for i, ((w, h), page, offs) in enumerate(zip(self.sizes, self.pages, self.offsets,
                                                     strict=True)):
            t[i, :4] = (w, h, len(offs), page)
            t[i, 4:4 + len(offs)] = offs
        return t.reshape(-1)

    def tile_counts(self, level: int, tile: int) -> np.ndarray:
        """Work groups each image needs at ``level`` (0 where its chain is shorter); the same
        formula as batch_common.glsl ``batchTileCount``."""
        out = np.zeros(self.count, dtype=np.int64)
        for i, (w, h) in enumerate(self.sizes):
            if level < self.levels(i):
                lw, lh = level_size(w, h, level)
                out[i] = -(-lw // tile) * -(-lh // tile)
        return out

    def pack_page(self, page: int, level0: Sequence[np.ndarray]) -> np.ndarray:
        """Words of one page: every level 0 of its images, the sentinel everywhere else."""
        words = np.full(self.page_texels[page] * self.words_per_texel, SENTINEL_WORD[self.fmt],
                        dtype=np.uint32)
        raw = words.view(np.uint8)
        bpt = self.fmt.bytes_per_texel
        for i in range(self.count):
            if self.pages[i] != page:
                continue
            w, h = self.sizes[i]
            data = np.ascontiguousarray(level0[i], dtype=self.fmt.dtype)
            if data.shape != (h, w, 4):
                raise ValueError(f"image {i}: level 0 has shape {data.shape}, want {(h, w, 4)}")
            start = self.offsets[i][0] * bpt
            raw[start:start + data.nbytes] = data.view(np.uint8).reshape(-1)
        return words

    def unpack(self, pages: Sequence[np.ndarray]) -> list[list[np.ndarray]]:
        """Chains (storage values, (H, W, 4) per level) from the words of every page."""
        out = []
        bpt = self.fmt.bytes_per_texel
        for i, (w, h) in enumerate(self.sizes):
            raw = np.asarray(pages[self.pages[i]]).view(np.uint8)
            chain = []
            for level, off in enumerate(self.offsets[i]):
                lw, lh = level_size(w, h, level)
                n = lw * lh * bpt
                chain.append(raw[off * bpt:off * bpt + n].view(self.fmt.dtype)
                             .reshape(lh, lw, 4).copy())
            out.append(chain)
        return out


def chain_texels(width: int, height: int) -> int:
    return sum(w * h for w, h in (level_size(width, height, i)
                                  for i in range(mip_count(width, height))))


def plan_layout(sizes: Sequence[tuple[int, int]], fmt: Format,
                max_page_bytes: int) -> BatchLayout:
    """Pack chains in order, opening a new page when the next chain would not fit.

    ``max_page_bytes``: the device's maxStorageBufferRange. Offsets are in texels; a page never
    exceeds 2^32 words (the shaders index with uint).
    """
    if not sizes:
        raise MipviewError("the batch is empty")
    bpt = fmt.bytes_per_texel
    limit = min(max_page_bytes, (1 << 32) * 4) // bpt
    pages: list[int] = []
    offsets: list[tuple[int, ...]] = []
    page_texels = [0]
    for i, (w, h) in enumerate(sizes):
        if w < 1 or h < 1:
            raise MipviewError(f"image {i} is {w}x{h}: sides must be at least 1")
        levels = mip_count(w, h)
        if levels > MAX_LEVELS:
            raise BatchTooLarge(f"image {i} is {w}x{h}: batches hold sides up to "
                                f"{1 << (MAX_LEVELS - 1)}")
        need = chain_texels(w, h)
        if need > limit:
            raise BatchTooLarge(f"image {i} ({w}x{h}): its chain of {need * bpt >> 20} MiB "
                                f"exceeds one storage-buffer binding ({max_page_bytes >> 20} MiB)")
        if page_texels[-1] + need > limit:
            if len(page_texels) == MAX_PAGES:
                raise BatchTooLarge(f"the batch needs more than {MAX_PAGES} storage buffers of "
                                    f"{max_page_bytes >> 20} MiB; split it")
            page_texels.append(0)
        start = page_texels[-1]
        offs = []
        for level in range(levels):
            offs.append(start)
            lw, lh = level_size(w, h, level)
            start += lw * lh
        pages.append(len(page_texels) - 1)
        offsets.append(tuple(offs))
        page_texels[-1] = start
    return BatchLayout(fmt, tuple((int(w), int(h)) for w, h in sizes), tuple(pages),
                       tuple(offsets), tuple(page_texels))
