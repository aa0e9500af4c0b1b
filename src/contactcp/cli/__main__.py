"""``python -m contactcp.cli``: the command line."""

import sys

from contactcp.cli import main

sys.exit(main())
