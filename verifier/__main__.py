"""``python -m verifier``: the same command line as the ``verifier`` script."""

from .cli.main import entry

if __name__ == "__main__":
    entry()
