import os
import sys

# One BLAS thread, set before numpy loads: mipview's numpy work is elementwise and banded over its
# own threads (bands.py); OpenBLAS's threads spin for ~0.1 s after each call (compare's dot
# product) and take the cores that the UI thread and the analysis bands need.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from mipview.cli.main import main  # noqa: E402

sys.exit(main())
