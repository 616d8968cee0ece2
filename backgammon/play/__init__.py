"""Playing a match: the rules variants (:class:`Rules`), the frozen match state and its
checked transitions (:mod:`~backgammon.play.state`, dispatched by
:mod:`~backgammon.play.actions`), :class:`Match` on top of it, the
record of every action, dice sources, and a match state's gnubg and XG IDs.

    >>> from backgammon.play import FixedDice, Match
    >>> m = Match(length=3, dice=FixedDice([(3, 1)]))
    >>> m.roll(); m.move("8/5 6/5"); m.double(); m.drop()
    (3, 1)
    >>> m.score, m.game_number
    ((0, 1), 2)
"""

from __future__ import annotations

from backgammon.play.dice import AuditableDice, DiceSource, FixedDice, SeededDice, verify
from backgammon.play.match import (
    Accept,
    Act,
    Action,
    ActionKind,
    Beaver,
    CubeError,
    Double,
    Drop,
    EndReason,
    GameEnd,
    GameStart,
    IllegalActionError,
    IllegalPositionError,
    Match,
    MatchError,
    MatchOverError,
    MatchRecord,
    MatchState,
    NotYourTurnError,
    OpeningRoll,
    Pass,
    Phase,
    Play,
    Raccoon,
    Reject,
    ReplayError,
    Resign,
    ResignationError,
    Roll,
    Take,
)
from backgammon.play.rules import Rules, RulesError

__all__ = [
    "Accept",
    "Act",
    "Action",
    "ActionKind",
    "AuditableDice",
    "Beaver",
    "CubeError",
    "DiceSource",
    "Double",
    "Drop",
    "EndReason",
    "FixedDice",
    "GameEnd",
    "GameStart",
    "IllegalActionError",
    "IllegalPositionError",
    "Match",
    "MatchError",
    "MatchOverError",
    "MatchRecord",
    "MatchState",
    "NotYourTurnError",
    "OpeningRoll",
    "Pass",
    "Phase",
    "Play",
    "Raccoon",
    "Reject",
    "ReplayError",
    "Resign",
    "ResignationError",
    "Roll",
    "Rules",
    "RulesError",
    "SeededDice",
    "Take",
    "verify",
]
