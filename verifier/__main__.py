"""``python -m verifier``: the same command line as the ``verifier`` script."""

import sys

from .cli.main import main

if __name__ == "__main__":
    sys.exit(main())
