"""The formats GPU sweeps run in. lavapipe compiles a pipeline once per image format it meets,
so every (pipeline, format) pair costs an LLVM compile on a fresh machine: sweeps take four
RGBA formats; the one- and two-channel formats are checked end to end by test_promises.py
(FEW_CHANNEL_FORMATS) and test_hiz.py. They share their element's arithmetic and their channel
count's plumbing: r16 stands for the 16-bit UNORM element (rgba16 shares unorm's four-channel
plumbing and r16's arithmetic), test_depth_source.py takes d32 and d16; the packed formats
(rgb10a2, b10g11r11: their own rounding on store, their words on upload) ride with them. CPU-only
tests and the file round trips take every format."""

from mipview.core.formats import Format

GPU_FORMATS = [Format.UNORM, Format.SRGB, Format.F16, Format.F32]
#: one of each element and channel count among the one- and two-channel formats, and the
#: packed formats (elements of their own)
FEW_CHANNEL_FORMATS = [Format.R32F, Format.RG16F, Format.R8, Format.R16, Format.RGB10A2,
                       Format.B10G11R11]
