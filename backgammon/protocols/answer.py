"""A bot's decision as the one word or play the text protocols answer with."""

from __future__ import annotations

from backgammon.core.values import BAR, OFF, Move
from backgammon.play.match import ActionKind, Match
from backgammon.play.rules import Rules
from backgammon.players import Player, decide

__all__ = ["answer_text", "plain_move", "rules_for_line"]

_WORDS = {
    ActionKind.ROLL: "roll",
    ActionKind.DOUBLE: "double",
    ActionKind.TAKE: "take",
    ActionKind.DROP: "drop",
    ActionKind.BEAVER: "beaver",
    ActionKind.RACCOON: "raccoon",
    ActionKind.ACCEPT: "accept",
    ActionKind.REJECT: "reject",
}


def plain_move(move: Move) -> str:
    """A play as UBGI writes it: every single-die step ``from/to`` in order, no ``*`` or
    ``(2)``, bar 25 and off 0 (an empty string for a lost turn)."""
    return " ".join(f"{s if s != BAR else 25}/{t if t != OFF else 0}" for s, t, _ in move)


def answer_text(player: Player, match: Match, *, plain: bool = False) -> str:
    """What ``player`` does now in ``match``, as a protocol word (roll, double, take, drop,
    beaver, accept, reject) or the play in gnubg notation (``plain``: UBGI's steps)."""
    d = decide(player, match)
    if d.kind is ActionKind.MOVE:
        move = d.move if isinstance(d.move, Move) else Move()  # decide gives a Move
        return plain_move(move) if plain else str(move)
    return _WORDS[d.kind]


def rules_for_line(length: int | None, *, jacoby: bool = False, beavers: bool = False) -> Rules:
    """The rules a board line is read under: a match to ``length``, or money with the
    conventions the other program plays (a board line cannot say them)."""
    if length is None:
        return Rules.money(jacoby=jacoby, beavers=beavers, max_cube=1 << 15)
    return Rules.match(length, max_cube=1 << 15)
