"""The terminal face: ``backgammon play`` and the other subcommands.

``parser`` holds the command line's grammar, ``commands`` runs it, ``render`` draws the
board, ``session`` runs the game loop, ``advice`` drives the bots, ``records`` saves and
loads matches, ``audit`` records and checks auditable dice.  The names below are imported
when first asked for, so that ``backgammon --help`` loads no engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from backgammon.cli.advice import Bot, load_bot
    from backgammon.cli.commands import main
    from backgammon.cli.errors import UsageError
    from backgammon.cli.parser import build_parser
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

_HOMES = {
    "Bot": "advice",
    "load_bot": "advice",
    "main": "commands",
    "UsageError": "errors",
    "build_parser": "parser",
    "Reader": "reader",
    "BoardView": "render",
    "make_console": "render",
    "render_board": "render",
    "PlayOptions": "session",
    "Session": "session",
}
"""Each public name's module in this package."""


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"backgammon.cli.{home}"), name)
