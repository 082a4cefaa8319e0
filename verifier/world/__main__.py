"""``python -m verifier.world serve ...``: the world's own entry point (:mod:`.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m verifier.world"))
