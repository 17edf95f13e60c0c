"""``python -m citewise`` is the ``citewise`` command."""

import sys

from citewise.cli.main import main

sys.exit(main())
