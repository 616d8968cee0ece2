"""Whole games, money sessions and matches: the opening roll, rolls, plays, the doubling cube,
resignations, scores, Crawford, with a replayable record (rules R3-R4, R10, R13, R19-R33).

A :class:`Match` changes only through its action methods.  Each one checks everything first
and raises a specific exception (all are ``ValueError`` subclasses) without changing
anything, so a refused action leaves the match exactly as it was.

Players are 0 and 1 as in gnubg's Match ID (player 0 is O, the left column of a .mat file).
The state is one frozen :class:`MatchState` and each action a function over it
(:mod:`backgammon.play.state`); the record entries are in :mod:`backgammon.play.record` and the
gnubg and XG IDs in :mod:`backgammon.play.ids`.  Every name is importable from here.

Conventions, chosen to agree with GNU Backgammon (checked by replaying whole matches in it):

- :attr:`Match.position` is seen from the player holding the dice (:attr:`Match.on_roll`),
  like gnubg's Position ID; while a double or a resignation awaits an answer,
  :attr:`Match.turn` (who must act) is the other player.
- :attr:`Match.cube_value` is gnubg's ``nCube``: during an offer it is the value before the
  offer is taken; a beaver doubles it at once and leaves the offer pending for the doubler,
  who may take, drop (losing the beavered value) or raccoon.
- A pass scores the value before the double (R24); a resignation scores the level offered
  times the cube, even under the Jacoby rule, which reduces only gammons played out (R31).
- A player on the bar against a closed board does not roll: the turn passes at once (R13)
  and the record shows ``Pass``; if that player could double, the pass happens on
  :meth:`Match.roll` (with or without numbers given: they are not used).  A roll with no
  legal play records an empty ``Play`` (R10).
- After a rejected resignation the same or a smaller one may not be offered again until
  the next action.

>>> m = Match(length=3)
>>> m.roll((3, 1))            # the opening roll: player 0 throws 3, player 1 throws 1
(3, 1)
>>> m.turn, m.score
(0, (0, 0))
>>> m.move("8/5 6/5")
>>> m.turn, m.legal_actions()
(1, ['roll', 'double', 'resign'])
>>> m.double(); m.drop()
>>> m.score, m.game_number, m.turn
((0, 1), 2, None)
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence

from backgammon.core.position import Position
from backgammon.core.values import GameResult, Move
from backgammon.ids.gnubg import MatchIdFields
from backgammon.play import actions as dispatch
from backgammon.play import ids as matchids
from backgammon.play import state as ms
from backgammon.play.actions import Act
from backgammon.play.dice import DiceError, DiceSource, SeededDice
from backgammon.play.ids import IllegalPositionError
from backgammon.play.record import (
    Accept,
    Action,
    Beaver,
    Double,
    Drop,
    EndReason,
    GameEnd,
    GameStart,
    MatchRecord,
    OpeningRoll,
    Pass,
    Play,
    Raccoon,
    Reject,
    Resign,
    Roll,
    Take,
)
from backgammon.play.rules import Rules, RulesError
from backgammon.play.state import (
    ActionKind,
    CubeError,
    IllegalActionError,
    MatchError,
    MatchOverError,
    MatchState,
    NotYourTurnError,
    Phase,
    ReplayError,
    ResignationError,
)

__all__ = [
    "Accept",
    "Act",
    "Action",
    "ActionKind",
    "Beaver",
    "CubeError",
    "Double",
    "Drop",
    "EndReason",
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
    "Take",
]


class Match:
    """A match to N points, or a money session (``Match()``), played game after game.

    ``Match(length=5)``, ``Match(rules=Rules(...))``; ``dice`` is any :class:`DiceSource`
    (default: a seeded source with a random seed).  Numbers can always be supplied to
    :meth:`roll` instead (a game on a real board).
    """

    def __init__(
        self,
        length: int | None = None,
        *,
        rules: Rules | None = None,
        dice: DiceSource | None = None,
    ) -> None:
        if rules is None:
            rules = Rules(match_length=length)
        elif not isinstance(rules, Rules):
            raise RulesError(f"rules are a Rules value, not {type(rules).__name__}")
        elif length is not None and length != rules.match_length:
            raise RulesError(f"length {length} disagrees with the rules' {rules.match_length}")
        self.dice_source: DiceSource = _source(dice)
        """Where :meth:`roll` takes its numbers when none are supplied."""
        self._start: MatchState | None = None
        self._s = ms.new_match(rules)

    # ----------------------------------------------------------------------- reading
    @property
    def state(self) -> MatchState:
        """The whole state as one immutable value."""
        return self._s

    @property
    def rules(self) -> Rules:
        """The rules of play."""
        return self._s.rules

    @property
    def phase(self) -> Phase:
        """Where the current game stands."""
        return self._s.phase

    @property
    def turn(self) -> int | None:
        """The player who must act now (None before an opening roll and after the match)."""
        return self._s.turn

    @property
    def on_roll(self) -> int | None:
        """The player holding the dice (the doubler while a double is pending)."""
        return self._s.on_roll

    @property
    def position(self) -> Position:
        """The board seen from the player on roll (:attr:`on_roll`)."""
        return self._s.position

    @property
    def dice(self) -> tuple[int, int] | None:
        """The dice to be played, or None before the roll."""
        return self._s.dice

    @property
    def score(self) -> tuple[int, int]:
        """Points of player 0 and player 1."""
        return self._s.score

    @property
    def cube_value(self) -> int:
        """The cube's value (during an offer: before the offer is taken)."""
        return self._s.cube_value

    @property
    def cube_owner(self) -> int | None:
        """The player who owns the cube, or None when it is centred."""
        return self._s.cube_owner

    @property
    def game_number(self) -> int:
        """The current game, from 1."""
        return self._s.game_number

    @property
    def is_crawford_game(self) -> bool:
        """True during the Crawford game (R28)."""
        return self._s.crawford_game

    @property
    def is_post_crawford(self) -> bool:
        """True once the Crawford game has been played (R28)."""
        return self._s.post_crawford

    @property
    def is_over(self) -> bool:
        """True once a score has reached the match length (R27); never for money play."""
        return self._s.phase is Phase.OVER

    @property
    def winner(self) -> int | None:
        """The winner of the match, or None while it goes on."""
        return self._s.winner

    @property
    def resignation(self) -> GameResult | None:
        """The resignation awaiting an answer, if any."""
        return GameResult(self._s.resigned) if self._s.phase is Phase.RESIGNED else None

    @property
    def record(self) -> MatchRecord:
        """Every action so far, game by game; :meth:`replay` rebuilds the match from it."""
        return MatchRecord(self._s.rules, self._s.games, self._start)

    def legal_moves(self) -> list[Move]:
        """The legal plays of the dice (empty unless the dice are rolled and not played; the
        empty play alone when a match resumed from an ID holds dice that cannot be played)."""
        return ms.legal_moves(self._s)

    def may_double(self, player: int | None = None) -> bool:
        """True when ``player`` (default: the player to act) may double now (R23-R29)."""
        return ms.may_double(self._s, player)

    def legal_actions(self) -> list[ActionKind]:
        """What the player to act may do now."""
        return ms.legal_actions(self._s)

    # ----------------------------------------------------------------------- actions
    def apply(self, a: Act | Action) -> tuple[Action, ...]:
        """Make ``a``, the one way a match changes: an :class:`Act` (a roll without dice
        throws from :attr:`dice_source`), or a record entry made as the act it records (with
        its dice; the automatic ``GameStart`` and ``GameEnd`` are refused).  Returns the
        record entries it made (the roll, the play, a game's end); a refusal changes nothing."""
        start = dispatch.entry_count(self._s)
        self._s = dispatch.apply(self._s, a, self.dice_source)
        return tuple(dispatch.entries_since(self._s, start))

    def act(
        self,
        kind: ActionKind | str,
        *,
        player: int | None = None,
        dice: Sequence[int] | None = None,
        play: Move | str | Sequence[Sequence[int]] | None = None,
        level: str | int | GameResult = "single",
    ) -> tuple[Action, ...]:
        """Make the :class:`Act` of ``kind`` (a :meth:`legal_actions` name) with these
        arguments (see :class:`Act`); returns the record entries it made."""
        return self.apply(Act(dispatch.kind_of(kind), play, player, dice, level))

    def roll(
        self, dice: Sequence[int] | None = None, *, player: int | None = None
    ) -> tuple[int, int] | None:
        """Throw the dice (or use ``dice``) for the opening roll or the player on roll.

        At a game's start ``dice`` is (player 0's die, player 1's die); a tie is thrown again
        (R3) and, in money play with automatic doubles, doubles the cube (R33).  A player on
        the bar against a closed board does not roll: the turn passes (R13, recorded as a
        ``Pass``) and None is returned; numbers given then are checked but not used.  With no
        legal play the turn is lost at once (R10).
        """
        return dispatch.thrown(self.apply(Act(ActionKind.ROLL, player=player, dice=dice)))

    def move(
        self, play: Move | str | Sequence[Sequence[int]], *, player: int | None = None
    ) -> None:
        """Play the rolled dice: a play from :meth:`legal_moves`, its steps, or its notation."""
        self.apply(Act(ActionKind.MOVE, play, player))

    def double(self, *, player: int | None = None) -> None:
        """Offer the cube at twice its value (R23-R29)."""
        self.apply(Act(ActionKind.DOUBLE, player=player))

    def take(self, *, player: int | None = None) -> None:
        """Accept the pending offer: the cube doubles and changes hands (R24-R25, R32)."""
        self.apply(Act(ActionKind.TAKE, player=player))

    def drop(self, *, player: int | None = None) -> None:
        """Pass the pending offer: the other player scores the value before it (R24)."""
        self.apply(Act(ActionKind.DROP, player=player))

    def beaver(self, *, player: int | None = None) -> None:
        """Redouble at once while keeping the cube (money play, R32)."""
        self.apply(Act(ActionKind.BEAVER, player=player))

    def raccoon(self, *, player: int | None = None) -> None:
        """Answer a beaver by redoubling again, keeping the cube (money play, R32)."""
        self.apply(Act(ActionKind.RACCOON, player=player))

    def resign(
        self, level: str | int | GameResult = "single", *, player: int | None = None
    ) -> None:
        """Offer to resign a single, gammon or backgammon (R21); the opponent answers.

        The player to act may resign before or after rolling, or instead of answering a
        double (as in gnubg; accepted, it scores the level x the cube before the double).
        """
        self.apply(Act(ActionKind.RESIGN, player=player, level=level))

    def accept_resignation(self, *, player: int | None = None) -> None:
        """Accept the opponent's resignation: the game ends at the level offered x the cube
        (R21; the Jacoby rule does not reduce what a player chose to give, as in gnubg)."""
        self.apply(Act(ActionKind.ACCEPT, player=player))

    def reject_resignation(self, *, player: int | None = None) -> None:
        """Reject the opponent's resignation: play goes on where it stopped."""
        self.apply(Act(ActionKind.REJECT, player=player))

    # ----------------------------------------------------------------------- ids
    def match_id_fields(self) -> MatchIdFields:
        """The state as gnubg's Match ID fields."""
        return matchids.match_id_fields(self._s)

    def match_id(self) -> str:
        """gnubg's Match ID (formats.md §2)."""
        return matchids.match_id(self._s)

    def gnubg_id(self) -> str:
        """gnubg's ``PositionID:MatchID`` (the position from the player holding the dice)."""
        return matchids.gnubg_id(self._s)

    def xgid(self) -> str:
        """The XGID (formats.md §3); a pending resignation is left out, and before an opening
        roll the initial position is written with player 1 (bottom) to roll."""
        return matchids.xgid(self._s)

    @classmethod
    def from_gnubg_id(
        cls, text: str, *, rules: Rules | None = None, dice: DiceSource | None = None
    ) -> Match:
        """A match resumed from gnubg's ``PositionID:MatchID``; ``rules`` may add what the ID
        cannot hold (beavers, a cube limit).  The game number starts at 1."""
        return cls._resume(matchids.state_from_gnubg_id(text, rules), dice)

    @classmethod
    def at_score(
        cls,
        score: tuple[int, int],
        *,
        rules: Rules,
        crawford: bool = False,
        dice: DiceSource | None = None,
    ) -> Match:
        """A match under ``rules`` whose next game begins at ``score`` (``crawford``: it is
        the Crawford game), e.g. a match file's first game.  The game number starts at 1."""
        return cls._resume(matchids.state_at_score(rules, score, crawford), dice)

    @classmethod
    def from_state(cls, state: MatchState, *, dice: DiceSource | None = None) -> Match:
        """A match going on from ``state`` (one met before, e.g. an analysed decision's)."""
        if not isinstance(state, MatchState):
            raise MatchError(f"a match goes on from a MatchState, not {type(state).__name__}")
        return cls._resume(state, dice)

    @classmethod
    def from_xgid(
        cls, text: str, *, rules: Rules | None = None, dice: DiceSource | None = None
    ) -> Match:
        """A match resumed from an XGID (``rules`` may add raccoons or automatic doubles)."""
        return cls._resume(matchids.state_from_xgid(text, rules), dice)

    @classmethod
    def from_board_line(
        cls,
        text: str,
        *,
        rules: Rules | None = None,
        gnubg: bool = False,
        dice: DiceSource | None = None,
    ) -> Match:
        """A match resumed from a FIBS board line (formats.md §8), its player ("you") as
        player 1; ``gnubg`` reads the line as gnubg writes it to external players."""
        return cls._resume(matchids.state_from_board_line(text, rules, gnubg=gnubg), dice)

    @classmethod
    def _resume(cls, state: MatchState, dice: DiceSource | None) -> Match:
        m = cls.__new__(cls)
        m.dice_source = _source(dice)
        m._start = state
        m._s = state
        return m

    # ----------------------------------------------------------------------- replay
    @classmethod
    def replay(cls, record: MatchRecord, *, dice: DiceSource | None = None) -> Match:
        """Rebuild a match from its record, refusing (with :class:`ReplayError`) any action
        the rules refuse and anything that is not a record."""
        if not isinstance(record, MatchRecord) or not isinstance(record.rules, Rules):
            raise ReplayError(f"not a match record with its rules: {type(record).__name__}")
        if record.start is None:
            m = cls(rules=record.rules, dice=dice)
        elif isinstance(record.start, MatchState):
            m = cls._resume(record.start, dice)
        else:
            raise ReplayError("a record resumes from a MatchState or from the start")
        try:
            flat = list(record.actions())
        except TypeError as exc:
            raise ReplayError(f"the record's games are not sequences of actions: {exc}") from exc
        i = sum(len(g) for g in m._s.games)
        if flat[:i] != list(m.record.actions()):
            raise ReplayError("the record does not begin as this match begins")
        m.extend(flat[i:])
        return m

    def extend(self, actions: Iterable[Action]) -> None:
        """Play recorded actions in order, checking that the match records exactly them
        (the automatic ones -- ``GameStart``, ``GameEnd``, an empty ``Play`` after a roll
        with no play, a ``Pass`` -- must appear where the match makes them).

        Raises :class:`ReplayError` and leaves the match as it was for any input that does
        not replay so: an action refused, the match recording something else, an entry that
        is not one, or no sequence at all.  No dice are thrown: each roll brings its own.
        """
        self._s = dispatch.extend(self._s, actions)

    def __repr__(self) -> str:
        r = self._s.rules
        what = "money" if r.is_money else f"{r.match_length}-point match"
        return (
            f"<Match {what}, game {self.game_number}, score {self.score[0]}-{self.score[1]}, "
            f"{self.phase}, turn {self.turn}, cube {self.cube_value}>"
        )

    def _repr_svg_(self) -> str:
        """The match as SVG (board, dice, cube, score), for notebooks."""
        from backgammon.svg import match_svg  # a side module that builds on this one

        return match_svg(self)


def _source(dice: DiceSource | None) -> DiceSource:
    """The dice given, or seeded dice with a random seed."""
    if dice is None:
        return SeededDice(secrets.randbits(64))
    if not isinstance(dice, DiceSource):
        raise DiceError(f"dice are a source with a roll() method, not {type(dice).__name__}")
    return dice
