"""``python -m ragchunk``: see :mod:`ragchunk.cli`."""

import sys

from .cli import main

sys.exit(main())
