"""Players: one protocol for every bot, and :func:`get` to make one by name.

    >>> from backgammon import Position
    >>> from backgammon.players import get
    >>> bot = get("pubeval")
    >>> pos = Position.initial()
    >>> bot.choose_move(pos, (3, 1)) in pos.legal_moves((3, 1))
    True

Conventions: ``position`` is always seen from the side on roll (as in the core);
``cube`` (a :class:`CubeState`) describes the match and cube from that same side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from backgammon.board import Move, Position
from backgammon.players.cube import CubeAction, CubeDecision, CubeState, CubeStateError

__all__ = [
    "PLAYERS",
    "CubeAction",
    "CubeDecision",
    "CubeState",
    "CubeStateError",
    "Player",
    "UnknownPlayerError",
    "get",
]


@runtime_checkable
class Player(Protocol):
    """What every bot does."""

    name: str

    def choose_move(
        self, position: Position, dice: Sequence[int], cube: CubeState | None = None
    ) -> Move | None:
        """One of ``position.legal_moves(dice)``, or None when there is no legal play."""
        ...

    def cube_action(self, position: Position, cube: CubeState, offered: bool = False) -> CubeAction:
        """With ``offered`` False the player is on roll and answers DOUBLE or NO_DOUBLE;
        with ``offered`` True the side on roll has doubled and the player (its opponent)
        answers TAKE, PASS or BEAVER."""
        ...

    def accept_resignation(
        self, position: Position, points: int, cube: CubeState | None = None
    ) -> bool:
        """The side on roll offers to resign ``points`` (1 single, 2 gammon, 3 backgammon)
        times the cube; True if the player (its opponent) accepts."""
        ...


class UnknownPlayerError(ValueError):
    """No player of that name, or options it does not take."""


PLAYERS = ("random", "pubeval", "neural")
"""Names :func:`get` knows (``neural`` takes ``plies=0|1|2``; ``gnubg`` style aliases
``expert`` = neural 0-ply, ``strong`` = 1-ply, ``world`` = 2-ply)."""

_ALIASES = {"expert": ("neural", 0), "strong": ("neural", 1), "world": ("neural", 2)}


def get(name: str, **options: Any) -> Player:
    """A player by name: ``random`` (``seed``), ``pubeval``, ``neural`` (``plies``,
    ``weights``, ``bearoff``), or an alias ``expert``/``strong``/``world``."""
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
