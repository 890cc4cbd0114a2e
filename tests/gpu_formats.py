"""The formats GPU sweeps run in. lavapipe compiles a pipeline once per image format it meets,
so every (pipeline, format) pair costs an LLVM compile on a fresh machine: sweeps take the four
RGBA formats; the one- and two-channel formats are checked end to end by test_promises.py
(FEW_CHANNEL_FORMATS) and test_hiz.py. They share their element's arithmetic and their channel
count's plumbing; CPU-only tests and the file round trips take every format."""

from mipview.core.formats import Format

GPU_FORMATS = [Format.UNORM, Format.SRGB, Format.F16, Format.F32]
#: one of each element and channel count among the one- and two-channel formats
FEW_CHANNEL_FORMATS = [Format.R32F, Format.RG16F, Format.R8]
