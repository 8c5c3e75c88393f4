"""``python -m mycelium``: the same command as the ``mycelium`` console script."""

import sys

from .cli.app import main

if __name__ == "__main__":
    sys.exit(main())
