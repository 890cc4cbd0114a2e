import sys

from mipview.core.blas import one_blas_thread

one_blas_thread()

from mipview.cli.main import main  # noqa: E402

sys.exit(main())
