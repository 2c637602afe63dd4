"""``python -m app.cli``: the same command line as ``rummikub``."""

import sys

from app.cli import main

sys.exit(main())
