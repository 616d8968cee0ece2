"""``python -m backgammon``: the command line of :mod:`backgammon.cli.commands`."""

import sys

__all__ = ["main"]

try:
    from backgammon.cli.commands import main
except KeyboardInterrupt:  # Ctrl-C while the program is still starting
    print("backgammon: interrupted", file=sys.stderr)
    sys.exit(130)

if __name__ == "__main__":
    sys.exit(main())
