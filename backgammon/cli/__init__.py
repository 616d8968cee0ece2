"""The terminal face: ``backgammon play`` and the other subcommands.

``render`` draws the board, ``session`` runs the game loop, ``commands`` parses the command
line, ``advice`` drives the bots, ``records`` saves and loads matches, ``audit`` records and
checks auditable dice.
"""

from backgammon.cli.advice import Bot, load_bot
from backgammon.cli.commands import build_parser, main
from backgammon.cli.errors import UsageError
from backgammon.cli.reader import Reader
from backgammon.cli.render import BoardView, make_console, render_board
from backgammon.cli.session import PlayOptions, Session

__all__ = [
    "BoardView",
    "Bot",
    "PlayOptions",
    "Reader",
    "Session",
    "UsageError",
    "build_parser",
    "load_bot",
    "main",
    "make_console",
    "render_board",
]
