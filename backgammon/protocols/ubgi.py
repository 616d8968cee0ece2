"""A Universal Backgammon Interface engine (draft 0.01, Øystein Schønning-Johansen): the
front end writes commands on standard input, one a line, and reads the answers.

``ubgi`` starts the engine (``id name``/``id author``/``id version``, the options, then
``readyok``); ``isready`` is answered ``readyok``; ``setoption name plies value N`` sets the
lookahead; a FIBS board line or an XGID is answered with the best action: a play as
``from/to`` steps (blank when there is none), or roll, double, take, drop; ``quit`` ends.
Anything else is answered ``sorry``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from backgammon._version import __version__
from backgammon.ids.fibs import InvalidBoardLineError
from backgammon.ids.xgid import InvalidXgidError
from backgammon.play.match import Match
from backgammon.play.rules import RulesError
from backgammon.play.state import MatchError, Phase
from backgammon.players import Player
from backgammon.protocols.answer import answer_text

__all__ = ["UbgiEngine"]

_MAX_LINE = 4096
_PLIES = (0, 1, 2)


class UbgiEngine:
    """The engine's state between commands: the bot (made at ``ubgi``, remade when an
    option changes) and its lookahead.  ``make_player(plies)`` builds the bot."""

    def __init__(self, make_player: Callable[[int], Player], plies: int = 0) -> None:
        self.make_player = make_player
        self.plies = plies
        self.player: Player | None = None
        self.done = False

    def handle(self, line: str) -> list[str]:
        """The answer lines to one command line."""
        text = line.strip().strip("\x00").strip()
        if not text:
            return []
        word, _, rest = text.partition(" ")
        if word == "ubgi":
            self.player = self.make_player(self.plies)
            return [
                "id name backgammon",
                "id author the backgammon package authors",
                f"id version {__version__}",
                f"option name plies type spin default {self.plies} min 0 max 2",
                "readyok",
            ]
        if word == "isready":
            return ["readyok"]
        if word == "quit":
            self.done = True
            return []
        if word in ("stop", "newgame"):
            return []
        if word == "setoption":
            return self._set_option(rest)
        if text.startswith(("board:", "XGID=")):
            return [self._best_action(text)]
        return ["sorry"]

    def _set_option(self, rest: str) -> list[str]:
        parts = rest.split()
        if parts[:2] != ["name", "plies"] or len(parts) != 4 or parts[2] != "value":
            return ["sorry"]
        if parts[3] not in {str(p) for p in _PLIES}:
            return ["sorry"]
        self.plies = int(parts[3])
        if self.player is not None:
            self.player = self.make_player(self.plies)
        return []

    def _best_action(self, text: str) -> str:
        if self.player is None:
            self.player = self.make_player(self.plies)
        try:
            match = (
                Match.from_xgid(text) if text.startswith("XGID=") else Match.from_board_line(text)
            )
        except (InvalidBoardLineError, InvalidXgidError, MatchError, RulesError):
            return "sorry"
        if match.phase not in (Phase.ROLL, Phase.MOVE, Phase.DOUBLED):
            return "sorry"
        return answer_text(self.player, match, plain=True)

    def run(self, stdin: TextIO, stdout: TextIO) -> None:
        """Answer commands from ``stdin`` until ``quit`` or the end of input."""
        while not self.done:
            line = stdin.readline(_MAX_LINE)
            if not line:
                return
            for out in self.handle(line):
                stdout.write(out + "\n")
            stdout.flush()
