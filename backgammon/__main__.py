"""``python -m backgammon``: the command line of :mod:`backgammon.cli.commands`."""

import sys

from backgammon.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
