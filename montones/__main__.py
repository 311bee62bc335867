"""``python -m montones`` is the ``montones`` command."""

import sys

from montones.cli import main

sys.exit(main())
