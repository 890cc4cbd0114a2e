"""The app and the stall benchmark run numpy with one OpenBLAS thread (mipview.core.blas)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: how many threads the process has after a large BLAS dot product
_COUNT = ("import numpy as np; v = np.ones(1 << 22); np.dot(v, v); "
          "import os; print(len(os.listdir('/proc/self/task')))")


def _threads(prelude: str) -> int:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", prelude + _COUNT], capture_output=True,
                          text=True, cwd=ROOT, env=env, check=True, timeout=60)
    return int(done.stdout.split()[-1])


@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
                    reason="counts threads in /proc, with more than one core")
@pytest.mark.parametrize("prelude", [
    "from mipview.core.blas import one_blas_thread; one_blas_thread(); ",
    # `python -m mipview --help`, then the count
    "import runpy, sys; sys.argv = ['mipview', '--help']; import contextlib, io\n"
    "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
    "    runpy.run_module('mipview', run_name='__main__')\n",
    "import tools.measure; ",  # the stall benchmark measures the app as it runs
])
def test_one_blas_thread(prelude: str) -> None:
    assert _threads(prelude) == 1
    assert _threads("") > 1  # the count sees OpenBLAS's threads where nothing limits them


def test_too_late_is_refused() -> None:
    import numpy  # noqa: F401  (loaded by the suite anyway)

    from mipview.core.blas import one_blas_thread

    with pytest.raises(RuntimeError, match="before numpy"):
        one_blas_thread()

