import sys

from mipview.cli import main

sys.exit(main())
