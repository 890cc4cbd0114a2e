"""One BLAS thread for the process: set before numpy loads.

mipview's numpy work is elementwise and banded over its own threads (mipview.core.bands). Its
few BLAS calls (compare's dot product, the luminance of a whole level) would otherwise wake
OpenBLAS's thread per core, and those threads spin for about 0.1 s after each call: on a
16-core machine they took 13 cores while the window's UI thread waited for one.
"""

from __future__ import annotations

import os
import sys


def one_blas_thread() -> None:
    """Ask OpenBLAS for one thread unless the user chose a number (OPENBLAS_NUM_THREADS).
    Call before numpy is imported: OpenBLAS reads it once, when it loads."""
    if "numpy" in sys.modules:
        raise RuntimeError("one_blas_thread() must run before numpy is imported")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
