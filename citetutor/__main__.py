"""Entry point for `python -m citetutor`."""

import sys

from citetutor.cli import main

sys.exit(main())
