"""The formats GPU sweeps run in: the four RGBA formats and one of each kind of the one- and
two-channel ones (an element format and a channel count each: r32f for depth, rg16f, r8). The
others share their element's arithmetic and their channel count's plumbing, which these cover;
CPU-only tests and the file round trips take every format."""

from mipview.core.formats import Format

GPU_FORMATS = [Format.UNORM, Format.SRGB, Format.F16, Format.F32, Format.R32F, Format.RG16F,
               Format.R8]
