"""Players: one protocol for every bot, :func:`get` to make one by name and :func:`decide`
to make one act on a :class:`~backgammon.play.match.Match`.

    >>> from backgammon import Position
    >>> from backgammon.players import get
    >>> bot = get("pubeval")
    >>> pos = Position.initial()
    >>> bot.choose_move(pos, (3, 1)) in pos.legal_moves((3, 1))
    True

Conventions: ``position`` is always seen from the side on roll (as in the core);
``cube`` (a :class:`CubeState`) describes the match and cube from that same side.
Training tools live apart, in :mod:`backgammon.training`.
"""

from __future__ import annotations

from typing import Any

from backgammon.evaluation.cube import CubeAction, CubeDecision, CubeState, CubeStateError
from backgammon.players.base import CubeAdviser, MoveRanker, Player, RankedMove
from backgammon.players.driver import Decision, decide

__all__ = [
    "PLAYERS",
    "CubeAction",
    "CubeAdviser",
    "CubeDecision",
    "CubeState",
    "CubeStateError",
    "Decision",
    "MoveRanker",
    "Player",
    "RankedMove",
    "UnknownPlayerError",
    "decide",
    "get",
]


class UnknownPlayerError(ValueError):
    """No player of that name, or options it does not take."""


PLAYERS = ("random", "pubeval", "neural")
"""Names :func:`get` knows (``neural`` takes ``plies=0|1|2``; ``gnubg`` style aliases
``expert`` = neural 0-ply, ``strong`` = 1-ply, ``world`` = 2-ply)."""

_ALIASES = {"expert": ("neural", 0), "strong": ("neural", 1), "world": ("neural", 2)}


def get(name: str, **options: Any) -> Player:
    """A player by name: ``random`` (``seed``), ``pubeval``, ``neural`` (``plies``,
    ``weights``, ``bearoff``, ``prune``), or an alias ``expert``/``strong``/``world``."""
    key = name.strip().lower()
    try:
        if key in _ALIASES:
            base, plies = _ALIASES[key]
            options.setdefault("plies", plies)
            key = base
        if key == "random":
            from backgammon.players.basic import RandomPlayer

            return RandomPlayer(**options)
        if key == "pubeval":
            from backgammon.players.basic import PubevalPlayer

            if options:
                raise TypeError(f"pubeval takes no options, got {sorted(options)}")
            return PubevalPlayer()
        if key in ("neural", "net", "nn"):
            from backgammon.players.neural import NeuralPlayer

            return NeuralPlayer(**options)
    except TypeError as exc:
        raise UnknownPlayerError(f"player {name!r}: {exc}") from exc
    raise UnknownPlayerError(f"unknown player {name!r}; choose from {', '.join(PLAYERS)}")
