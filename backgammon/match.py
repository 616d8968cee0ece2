"""Whole games, money sessions and matches: the opening roll, rolls, plays, the doubling cube,
resignations, scores, Crawford, with a replayable record (rules R3-R4, R10, R13, R19-R33).

A :class:`Match` changes only through its action methods.  Each one checks everything first
and raises a specific exception (all are ``ValueError`` subclasses) without changing
anything, so a refused action leaves the match exactly as it was.

Players are 0 and 1 as in gnubg's Match ID (player 0 is O, the left column of a .mat file).

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
  :meth:`Match.roll`.  A roll with no legal play records an empty ``Play`` (R10).
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

import enum
import secrets
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from backgammon.board import GameResult, IllegalMoveError, Move, Position
from backgammon.dice import DiceSource, SeededDice, check_dice
from backgammon.ids import (
    GameState,
    MatchIdFields,
    encode_match_id,
    split_gnubg_id,
)
from backgammon.rules import Rules, RulesError
from backgammon.xgid import XgidFields, format_xgid, parse_xgid

__all__ = [
    "Accept",
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


# ------------------------------------------------------------------------------ errors
class MatchError(ValueError):
    """An action the match refuses; the match is left exactly as it was."""


class NotYourTurnError(MatchError):
    """The action was made by the player who is not the one to act now."""


class IllegalActionError(MatchError):
    """The action is not available now (e.g. a play before the roll, a take with no double)."""


class CubeError(IllegalActionError):
    """A cube action that the rules do not allow now (R23-R26, R28-R29, R32)."""


class ResignationError(IllegalActionError):
    """A resignation, acceptance or rejection that is not possible now (R21)."""


class MatchOverError(IllegalActionError):
    """An action after the match has been won (R27)."""


class ReplayError(MatchError):
    """A record that does not replay: an action is refused or the match produced another
    record."""


# ------------------------------------------------------------------------------ record
class EndReason(enum.StrEnum):
    """How a game ended."""

    PLAYED = "played"  # the last checker was borne off (R18)
    DROPPED = "dropped"  # a double was passed (R24)
    RESIGNED = "resigned"  # a resignation was accepted (R21)


@dataclass(frozen=True)
class GameStart:
    """A game begins (recorded automatically): its number from 1, the score before it, and
    whether it is the Crawford game (R28)."""

    game: int
    score: tuple[int, int]
    crawford: bool


@dataclass(frozen=True)
class OpeningRoll:
    """One throw of the opening roll (R3): player 0's die and player 1's die.  A tie is
    recorded too and thrown again (in money play it may double the cube, R33)."""

    die0: int
    die1: int


@dataclass(frozen=True)
class Roll:
    """The player on roll throws both dice (R4)."""

    player: int
    dice: tuple[int, int]


@dataclass(frozen=True)
class Play:
    """A play of the last roll, steps from the player's own side; empty when no play was
    possible (R10, recorded automatically)."""

    player: int
    move: Move


@dataclass(frozen=True)
class Pass:
    """The player is on the bar against a closed board: the turn passes without a roll
    (R13, recorded automatically unless the player could double first)."""

    player: int


@dataclass(frozen=True)
class Double:
    """The player offers the cube at ``value`` (R23)."""

    player: int
    value: int


@dataclass(frozen=True)
class Take:
    """The player accepts the offer; the cube is now at ``value`` (R24)."""

    player: int
    value: int


@dataclass(frozen=True)
class Drop:
    """The player passes the offer and loses the value before it (R24)."""

    player: int


@dataclass(frozen=True)
class Beaver:
    """The doubled player redoubles at once keeping the cube (money only, R32); ``value`` is
    the cube if the doubler takes."""

    player: int
    value: int


@dataclass(frozen=True)
class Raccoon:
    """The doubler answers a beaver by redoubling again (money only, R32)."""

    player: int
    value: int


@dataclass(frozen=True)
class Resign:
    """The player offers to resign a single, gammon or backgammon (R21)."""

    player: int
    level: GameResult


@dataclass(frozen=True)
class Accept:
    """The player accepts the opponent's resignation."""

    player: int


@dataclass(frozen=True)
class Reject:
    """The player rejects the opponent's resignation; play goes on."""

    player: int


@dataclass(frozen=True)
class GameEnd:
    """A game is over (recorded automatically): the winner, the points scored (R20, R24,
    R31), the kind of win and how it came about."""

    winner: int
    points: int
    result: GameResult
    reason: EndReason


Action = (
    GameStart
    | OpeningRoll
    | Roll
    | Play
    | Pass
    | Double
    | Take
    | Drop
    | Beaver
    | Raccoon
    | Resign
    | Accept
    | Reject
    | GameEnd
)
"""One entry of a match record."""


_END_REASONS = {
    GameState.OVER: EndReason.PLAYED,
    GameState.DROPPED: EndReason.DROPPED,
    GameState.RESIGNED: EndReason.RESIGNED,
}


class Phase(enum.StrEnum):
    """Where the current game stands."""

    OPENING = "opening"  # before the opening roll (no one on roll yet)
    ROLL = "roll"  # the player on roll may double, resign or roll
    MOVE = "move"  # the dice are rolled: play them (or resign)
    DOUBLED = "doubled"  # a double (or beaver, raccoon) awaits an answer
    RESIGNED = "resigned"  # a resignation awaits an answer
    OVER = "over"  # the match has been won


class ActionKind(enum.StrEnum):
    """The kinds of action :meth:`Match.legal_actions` lists."""

    ROLL = "roll"
    MOVE = "move"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    RACCOON = "raccoon"
    RESIGN = "resign"
    ACCEPT = "accept"
    REJECT = "reject"

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class MatchState:
    """Everything a match is, as one immutable value (the record included).

    ``cube_value`` is the cube as gnubg holds it: while an offer is pending it is the value
    before the offer was taken (a beaver has already doubled it once, as in gnubg).
    ``beavers`` counts the redoubles of the pending offer: 0 plain double, 1 beaver, 2
    raccoon.  ``position`` is seen from ``on_roll`` (the dice owner).  While a resignation
    awaits an answer, ``resumed`` is the phase play returns to if it is rejected (a player
    may resign before or after rolling, or instead of answering a double).  ``declined`` is the
    resignation just rejected: until the next action the same or a smaller one may not be
    offered again (as in gnubg).
    """

    rules: Rules
    score: tuple[int, int] = (0, 0)
    game_number: int = 1
    crawford_game: bool = False
    post_crawford: bool = False
    phase: Phase = Phase.OPENING
    on_roll: int | None = None
    position: Position = field(default_factory=Position.initial)
    dice: tuple[int, int] | None = None
    cube_value: int = 1
    cube_owner: int | None = None
    beavers: int = 0
    resigned: int = 0
    resumed: Phase | None = None
    declined: int = 0
    auto_doubles: int = 0
    winner: int | None = None
    last_end: GameEnd | None = None
    games: tuple[tuple[Action, ...], ...] = ()

    @property
    def turn(self) -> int | None:
        """The player who must act now (None before the opening roll and after the match)."""
        if self.phase in (Phase.OPENING, Phase.OVER) or self.on_roll is None:
            return None
        if self.phase is Phase.DOUBLED:
            return self.responder
        if self.phase is Phase.RESIGNED:
            return 1 - self.resigner
        return self.on_roll

    @property
    def responder(self) -> int:
        """Who must answer the pending double (the doubler, after a beaver)."""
        assert self.on_roll is not None
        return self.on_roll if self.beavers == 1 else 1 - self.on_roll

    @property
    def resigner(self) -> int:
        """Who offered the pending resignation: the player on roll, or the player who must
        answer a double (gnubg lets either resign)."""
        assert self.on_roll is not None
        return self.responder if self.resumed is Phase.DOUBLED else self.on_roll


@dataclass(frozen=True)
class MatchRecord:
    """What happened in a match: the rules, the actions of each game and, for a match
    resumed from an ID, the state it started from.  :meth:`Match.replay` rebuilds it."""

    rules: Rules
    games: tuple[tuple[Action, ...], ...]
    start: MatchState | None = None

    def actions(self) -> Iterator[Action]:
        """Every action of every game, in order."""
        for game in self.games:
            yield from game

    def rolls(self) -> tuple[tuple[int, int], ...]:
        """Every throw in order (opening throws as (die0, die1), ties included)."""
        out: list[tuple[int, int]] = []
        for a in self.actions():
            if isinstance(a, OpeningRoll):
                out.append((a.die0, a.die1))
            elif isinstance(a, Roll):
                out.append(a.dice)
        return tuple(out)


_LEVELS = {
    "single": GameResult.SINGLE,
    "gammon": GameResult.GAMMON,
    "backgammon": GameResult.BACKGAMMON,
}


def _level(level: str | int | GameResult) -> GameResult:
    if isinstance(level, str):
        key = level.strip().lower()
        if key in _LEVELS:
            return _LEVELS[key]
        raise ResignationError(f"resign 'single', 'gammon' or 'backgammon', not {level!r}")
    if isinstance(level, bool) or level not in (1, 2, 3):
        raise ResignationError(f"resignation level must be 1-3, got {level!r}")
    return GameResult(level)


def _count(games: tuple[tuple[Action, ...], ...]) -> int:
    return sum(len(g) for g in games)


def _tail(games: tuple[tuple[Action, ...], ...], start: int) -> list[Action]:
    """The actions from flat index ``start`` on."""
    out: list[Action] = []
    seen = 0
    for g in games:
        if seen + len(g) > start:
            out.extend(g[max(0, start - seen) :])
        seen += len(g)
    return out


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
        elif length is not None and length != rules.match_length:
            raise RulesError(f"length {length} disagrees with the rules' {rules.match_length}")
        self.dice_source: DiceSource = (
            dice if dice is not None else SeededDice(secrets.randbits(64))
        )
        """Where :meth:`roll` takes its numbers when none are supplied."""
        state = MatchState(rules=rules)
        self._start: MatchState | None = None
        self._s = self._new_game(state, first=True)

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
        """The legal plays of the dice (empty unless the dice are rolled and not played)."""
        s = self._s
        if s.phase is not Phase.MOVE or s.dice is None:
            return []
        return s.position.legal_moves(s.dice)

    def may_double(self, player: int | None = None) -> bool:
        """True when ``player`` (default: the player to act) may double now (R23-R29)."""
        s = self._s
        p = s.turn if player is None else player
        return p is not None and self._double_refusal(s, p) is None

    def legal_actions(self) -> list[ActionKind]:
        """What the player to act may do now."""
        s = self._s
        ph = s.phase
        if ph is Phase.OPENING:
            return [ActionKind.ROLL]
        if ph is Phase.ROLL:
            out = [ActionKind.ROLL]
            if self.may_double():
                out.append(ActionKind.DOUBLE)
            return [*out, ActionKind.RESIGN] if s.declined < 3 else out
        if ph is Phase.MOVE:
            if s.declined < 3:
                return [ActionKind.MOVE, ActionKind.RESIGN]
            return [ActionKind.MOVE]
        if ph is Phase.DOUBLED:
            out = [ActionKind.TAKE, ActionKind.DROP]
            if self._beaver_refusal(s) is None:
                out.append(ActionKind.BEAVER)
            if self._raccoon_refusal(s) is None:
                out.append(ActionKind.RACCOON)
            return [*out, ActionKind.RESIGN] if s.declined < 3 else out
        if ph is Phase.RESIGNED:
            return [ActionKind.ACCEPT, ActionKind.REJECT]
        return []

    # ----------------------------------------------------------------------- checks
    def _actor(self, player: int | None, what: str) -> int:
        """The player who must act, checked against ``player``; refuses after the match."""
        s = self._s
        if s.phase is Phase.OVER:
            raise MatchOverError(f"the match is over (won by player {s.winner}); cannot {what}")
        if player is not None and (isinstance(player, bool) or player not in (0, 1)):
            raise MatchError(f"players are 0 and 1, not {player!r}")
        turn = s.turn
        if turn is None:
            if player is None:
                return -1
            return player
        if player is not None and player != turn:
            raise NotYourTurnError(f"it is player {turn}'s turn to act, not player {player}'s")
        return turn

    @staticmethod
    def _double_refusal(s: MatchState, p: int) -> str | None:
        """Why player ``p`` may not double now, or None when they may."""
        r = s.rules
        if s.phase is Phase.MOVE and s.on_roll == p:
            return "cannot double after rolling the dice (R23)"
        if s.phase is not Phase.ROLL or s.on_roll != p:
            return "a double is offered only on one's own turn, before rolling (R23)"
        if not r.cube_enabled:
            return "the cube is not in use (maximum cube 1)"
        if s.crawford_game:
            return "no doubling in the Crawford game (R28)"
        if s.cube_owner is not None and s.cube_owner != p:
            return "only the cube's owner may redouble (R25)"
        if r.match_length is not None and s.score[p] + s.cube_value >= r.match_length:
            return "the cube is dead: winning this game at its value wins the match (R29)"
        if s.cube_value * 2 > r.max_cube:
            return f"the cube is at its maximum ({r.max_cube}, R26)"
        return None

    @staticmethod
    def _beaver_refusal(s: MatchState) -> str | None:
        r = s.rules
        if s.phase is not Phase.DOUBLED:
            return "there is no double to beaver"
        if not r.beavers:
            return "beavers are not allowed by these rules (R32)"
        if s.beavers:
            return "only a plain double can be beavered (R32)"
        if s.cube_value * 4 > r.max_cube:
            return f"a beaver would take the cube over its maximum ({r.max_cube}, R26)"
        return None

    @staticmethod
    def _raccoon_refusal(s: MatchState) -> str | None:
        r = s.rules
        if s.phase is not Phase.DOUBLED or s.beavers != 1:
            return "a raccoon answers a beaver, and there is none to answer (R32)"
        if not r.raccoons:
            return "raccoons are not allowed by these rules (R32)"
        if s.cube_value * 4 > r.max_cube:
            return f"a raccoon would take the cube over its maximum ({r.max_cube}, R26)"
        return None

    # ----------------------------------------------------------------------- actions
    def roll(
        self, dice: Sequence[int] | None = None, *, player: int | None = None
    ) -> tuple[int, int] | None:
        """Throw the dice (or use ``dice``) for the opening roll or the player on roll.

        At a game's start ``dice`` is (player 0's die, player 1's die); a tie is thrown again
        (R3) and, in money play with automatic doubles, doubles the cube (R33).  A player on
        the bar against a closed board does not roll: the turn passes (R13) and None is
        returned.  With no legal play the turn is lost at once (R10).
        """
        s = self._s
        p = self._actor(player, "roll")
        if s.phase not in (Phase.OPENING, Phase.ROLL):
            raise IllegalActionError(
                {
                    Phase.MOVE: "the dice are already rolled: play them",
                    Phase.DOUBLED: "a double awaits an answer: take or drop",
                    Phase.RESIGNED: "a resignation awaits an answer: accept or reject",
                }.get(s.phase, "cannot roll now")
            )
        given = check_dice(dice) if dice is not None else None
        if s.phase is Phase.ROLL and s.position.is_closed_out:
            if given is not None:
                raise IllegalActionError(
                    "player on the bar against a closed board does not roll (R13)"
                )
            self._s = self._next_turn(self._append(s, Pass(p)))
            return None
        throw = given if given is not None else check_dice(self.dice_source.roll())
        if s.phase is Phase.OPENING:
            self._s = self._opening(s, throw)
            return throw
        s = self._append(s, Roll(p, throw))
        s = replace(s, phase=Phase.MOVE, dice=throw)
        if not s.position.legal_moves(throw):
            s = self._after_play(s, p, Move())
        self._s = s
        return throw

    def move(
        self, play: Move | str | Sequence[tuple[int, int, bool]], *, player: int | None = None
    ) -> None:
        """Play the rolled dice: a play from :meth:`legal_moves`, its steps, or its notation."""
        s = self._s
        p = self._actor(player, "move")
        if s.phase is not Phase.MOVE or s.dice is None:
            raise IllegalActionError(
                "roll the dice before playing"
                if s.phase in (Phase.ROLL, Phase.OPENING)
                else f"cannot play now ({s.phase})"
            )
        if isinstance(play, str):
            chosen = s.position.parse_move(play, s.dice)
        else:
            chosen = s.position.move_of(play)
            legal = s.position.legal_moves(s.dice)
            if chosen not in legal and not s.position.is_legal(chosen, s.dice):
                raise IllegalMoveError(
                    f"{chosen} is not a legal play of {s.dice[0]}{s.dice[1]} (R5-R17)"
                )
        self._s = self._after_play(s, p, chosen)

    def double(self, *, player: int | None = None) -> None:
        """Offer the cube at twice its value (R23-R29)."""
        s = self._s
        p = self._actor(player, "double")
        why = self._double_refusal(s, p)
        if why is not None:
            raise CubeError(why)
        s = self._append(s, Double(p, s.cube_value * 2))
        self._s = replace(s, phase=Phase.DOUBLED, beavers=0)

    def take(self, *, player: int | None = None) -> None:
        """Accept the pending offer: the cube doubles and changes hands (R24-R25, R32)."""
        s = self._s
        p = self._actor(player, "take")
        if s.phase is not Phase.DOUBLED or s.on_roll is None:
            raise CubeError("there is no double to take")
        value = s.cube_value * 2
        # A plain double gives the cube to the taker; a beaver or a raccoon keeps it with
        # the player who made it (R32).
        owner = p if s.beavers == 0 else 1 - p
        s = self._append(s, Take(p, value))
        s = replace(s, phase=Phase.ROLL, cube_value=value, cube_owner=owner, beavers=0)
        self._s = self._start_turn(s)

    def drop(self, *, player: int | None = None) -> None:
        """Pass the pending offer: the other player scores the value before it (R24)."""
        s = self._s
        p = self._actor(player, "drop")
        if s.phase is not Phase.DOUBLED:
            raise CubeError("there is no double to drop")
        s = self._append(s, Drop(p))
        end = GameEnd(1 - p, s.cube_value, GameResult.SINGLE, EndReason.DROPPED)
        self._s = self._end_game(s, end)

    def beaver(self, *, player: int | None = None) -> None:
        """Redouble at once while keeping the cube (money play, R32)."""
        s = self._s
        p = self._actor(player, "beaver")
        why = self._beaver_refusal(s)
        if why is not None:
            raise CubeError(why)
        s = self._append(s, Beaver(p, s.cube_value * 4))
        self._s = replace(s, cube_value=s.cube_value * 2, cube_owner=p, beavers=1)

    def raccoon(self, *, player: int | None = None) -> None:
        """Answer a beaver by redoubling again, keeping the cube (money play, R32)."""
        s = self._s
        p = self._actor(player, "raccoon")
        why = self._raccoon_refusal(s)
        if why is not None:
            raise CubeError(why)
        s = self._append(s, Raccoon(p, s.cube_value * 4))
        self._s = replace(s, cube_value=s.cube_value * 2, cube_owner=p, beavers=2)

    def resign(
        self, level: str | int | GameResult = "single", *, player: int | None = None
    ) -> None:
        """Offer to resign a single, gammon or backgammon (R21); the opponent answers.

        The player to act may resign before or after rolling, or instead of answering a
        double (as in gnubg; accepted, it scores the level x the cube before the double).
        """
        s = self._s
        p = self._actor(player, "resign")
        lvl = _level(level)
        if s.phase not in (Phase.ROLL, Phase.MOVE, Phase.DOUBLED):
            raise ResignationError(f"cannot resign now ({s.phase})")
        if lvl <= s.declined:
            raise ResignationError(
                f"a {GameResult(s.declined).name.lower()} was just declined: offer more or play on"
            )
        s = self._append(s, Resign(p, lvl))
        self._s = replace(s, phase=Phase.RESIGNED, resigned=int(lvl), resumed=s.phase)

    def accept_resignation(self, *, player: int | None = None) -> None:
        """Accept the opponent's resignation: the game ends at the level offered x the cube
        (R21; the Jacoby rule does not reduce what a player chose to give, as in gnubg)."""
        s = self._s
        p = self._actor(player, "accept a resignation")
        if s.phase is not Phase.RESIGNED:
            raise ResignationError("there is no resignation to accept")
        lvl = GameResult(s.resigned)
        s = self._append(s, Accept(p))
        # What was offered is what is scored, Jacoby or not (as gnubg scores it).
        points = int(lvl) * s.cube_value
        self._s = self._end_game(s, GameEnd(p, points, lvl, EndReason.RESIGNED))

    def reject_resignation(self, *, player: int | None = None) -> None:
        """Reject the opponent's resignation: play goes on where it stopped."""
        s = self._s
        p = self._actor(player, "reject a resignation")
        if s.phase is not Phase.RESIGNED:
            raise ResignationError("there is no resignation to reject")
        declined = s.resigned
        s = self._append(s, Reject(p))
        phase = s.resumed or (Phase.MOVE if s.dice else Phase.ROLL)
        self._s = replace(s, phase=phase, resigned=0, resumed=None, declined=declined)

    # ----------------------------------------------------------------------- flow
    @staticmethod
    def _append(s: MatchState, action: Action) -> MatchState:
        games = s.games
        declined = s.declined if isinstance(action, Resign) else 0
        return replace(s, games=(*games[:-1], (*games[-1], action)), declined=declined)

    @staticmethod
    def _points(s: MatchState, result: GameResult) -> int:
        r = s.rules
        base = int(result)
        if r.is_money and r.jacoby and s.cube_owner is None:
            base = 1  # R31: gammons count as singles until the cube is turned
        return base * s.cube_value

    def _new_game(self, s: MatchState, *, first: bool = False) -> MatchState:
        number = s.game_number if first else s.game_number + 1
        start = GameStart(number, s.score, s.crawford_game)
        return replace(
            s,
            game_number=number,
            phase=Phase.OPENING,
            on_roll=None,
            position=Position.initial(),
            dice=None,
            cube_value=1,
            cube_owner=None,
            beavers=0,
            resigned=0,
            resumed=None,
            declined=0,
            auto_doubles=0,
            games=(*s.games, (start,)),
        )

    def _opening(self, s: MatchState, throw: tuple[int, int]) -> MatchState:
        d0, d1 = throw
        s = self._append(s, OpeningRoll(d0, d1))
        if d0 == d1:
            r = s.rules
            if (
                r.is_money
                and s.auto_doubles < r.automatic_doubles
                and s.cube_value * 2 <= r.max_cube
            ):
                s = replace(s, cube_value=s.cube_value * 2, auto_doubles=s.auto_doubles + 1)
            return s  # R3: thrown again
        return replace(s, phase=Phase.MOVE, on_roll=0 if d0 > d1 else 1, dice=(d0, d1))

    def _after_play(self, s: MatchState, p: int, move: Move) -> MatchState:
        s = self._append(s, Play(p, move))
        after = s.position.play(move)
        outcome = after.outcome()
        if outcome is not None:
            # The player who just moved is the only one who can have borne off the last
            # checker; ``after`` is seen from the opponent.
            s = replace(s, position=after, on_roll=1 - p, dice=None, phase=Phase.ROLL)
            end = GameEnd(p, self._points(s, outcome.result), outcome.result, EndReason.PLAYED)
            return self._end_game(s, end)
        s = replace(s, position=after, on_roll=1 - p, dice=None, phase=Phase.ROLL)
        return self._start_turn(s)

    def _next_turn(self, s: MatchState) -> MatchState:
        """After a pass without a roll: the opponent's turn begins."""
        assert s.on_roll is not None
        s = replace(s, position=s.position.flip(), on_roll=1 - s.on_roll, dice=None)
        return self._start_turn(s)

    def _start_turn(self, s: MatchState) -> MatchState:
        """A turn begins: a closed-out player with no cube choice passes at once (R13)."""
        assert s.on_roll is not None
        if s.position.is_closed_out and self._double_refusal(s, s.on_roll) is not None:
            if s.position.flip().is_closed_out:  # cannot happen in play; avoid a loop
                return s
            return self._next_turn(self._append(s, Pass(s.on_roll)))
        return s

    def _end_game(self, s: MatchState, end: GameEnd) -> MatchState:
        score = list(s.score)
        score[end.winner] += end.points
        sc = (score[0], score[1])
        s = self._append(s, end)
        # The dice stay as they were (a resignation may come after the roll): gnubg keeps
        # them in the final state of a match; the next game starts without dice.
        s = replace(s, score=sc, last_end=end, resigned=0)
        n = s.rules.match_length
        if n is not None and max(sc) >= n:  # R27
            # ``resumed`` and ``beavers`` stay: gnubg's final Match ID still shows a double
            # answered by a resignation, and whose turn it was.
            return replace(s, phase=Phase.OVER, winner=end.winner, crawford_game=False)
        crawford, post = False, s.post_crawford
        if n is not None and s.rules.crawford:
            if s.crawford_game:
                post = True
            elif not post and n - 1 in sc:
                crawford = True  # R28: the first time a score reaches N-1 exactly
        s = replace(s, crawford_game=crawford, post_crawford=post)
        return self._new_game(s)

    # ----------------------------------------------------------------------- ids
    def match_id_fields(self) -> MatchIdFields:
        """The state as gnubg's Match ID fields."""
        s = self._s
        r = s.rules
        if s.phase is Phase.OPENING:
            state, on_roll, turn = GameState.NONE, 0, 0
        elif s.phase is Phase.OVER:
            assert s.last_end is not None and s.on_roll is not None
            state = {v: k for k, v in _END_REASONS.items()}[s.last_end.reason]
            on_roll = turn = s.on_roll
            # As gnubg shows it: the player who accepted the resignation, or who dropped.
            if s.last_end.reason is EndReason.RESIGNED:
                turn = 1 - s.resigner
            elif s.last_end.reason is EndReason.DROPPED:
                turn = s.responder
        else:
            assert s.on_roll is not None and s.turn is not None
            state, on_roll, turn = GameState.PLAYING, s.on_roll, s.turn
        return MatchIdFields(
            cube_value=s.cube_value,
            cube_owner=s.cube_owner,
            dice_owner=on_roll,
            crawford=s.crawford_game,
            game_state=state,
            turn=turn,
            doubled=s.phase is Phase.DOUBLED or s.resumed is Phase.DOUBLED,
            resigned=(
                s.resigned
                if s.phase is Phase.RESIGNED
                else int(s.last_end.result)
                if s.phase is Phase.OVER
                and s.last_end is not None
                and s.last_end.reason is EndReason.RESIGNED
                else 0
            ),
            dice=s.dice or (),
            match_length=r.match_length or 0,
            score=s.score,
            no_jacoby=not (r.is_money and r.jacoby),
        )

    def match_id(self) -> str:
        """gnubg's Match ID (formats.md §2)."""
        return encode_match_id(self.match_id_fields())

    def gnubg_id(self) -> str:
        """gnubg's ``PositionID:MatchID`` (the position from the player holding the dice)."""
        pos = Position.initial() if self._s.phase is Phase.OPENING else self._s.position
        return f"{pos.position_id()}:{self.match_id()}"

    def xgid(self) -> str:
        """The XGID (formats.md §3).  A pending resignation cannot be written in an XGID:
        the state before the offer is written.  Before an opening roll the initial position
        is written with player 1 (bottom) to roll."""
        s = self._s
        r = s.rules
        on_roll = 1 if s.on_roll is None else s.on_roll
        pos = Position.initial() if s.phase is Phase.OPENING else s.position
        action = ""
        if s.phase is Phase.DOUBLED or s.resumed is Phase.DOUBLED:
            action = "DBR"[s.beavers]
        return format_xgid(
            XgidFields(
                position=pos,
                cube_value=s.cube_value,
                cube_owner=s.cube_owner,
                on_roll=on_roll,
                dice=s.dice or (),
                cube_action=action,
                score=s.score,
                crawford=s.crawford_game,
                jacoby=r.jacoby,
                beavers=r.beavers,
                match_length=r.match_length or 0,
                max_cube=r.max_cube,
            )
        )

    @classmethod
    def _resume(cls, state: MatchState, dice: DiceSource | None) -> Match:
        m = cls.__new__(cls)
        m.dice_source = dice if dice is not None else SeededDice(secrets.randbits(64))
        m._start = state
        m._s = state
        return m

    @classmethod
    def from_gnubg_id(
        cls, text: str, *, rules: Rules | None = None, dice: DiceSource | None = None
    ) -> Match:
        """A match resumed from gnubg's ``PositionID:MatchID``.

        ``rules`` may add what the ID cannot hold (beavers, a cube limit); its match length
        must agree with the ID.  The game number is not in the ID and starts at 1.
        """
        position, f = split_gnubg_id(text)
        length = f.match_length or None
        if rules is None:
            rules = Rules(
                match_length=length,
                jacoby=f.jacoby,
                max_cube=max(64, f.cube_value * (2 if f.doubled else 1)),
            )
        elif rules.match_length != length:
            raise MatchError(f"the ID's match length {f.match_length} disagrees with the rules")
        if rules.is_money and f.jacoby != rules.jacoby:
            raise MatchError("the ID's Jacoby flag (bit 66) disagrees with the rules")
        phase: Phase
        resumed: Phase | None = None
        beavers = 0
        on_roll: int | None = f.dice_owner
        if f.game_state is GameState.NONE:
            phase, on_roll = Phase.OPENING, None
        elif f.game_state is not GameState.PLAYING:
            if length is None or max(f.score) < length:
                raise MatchError("the ID shows a finished game but not a finished match")
            phase = Phase.OVER
            # Who acted last, as gnubg keeps it (see match_id_fields).
            if f.game_state is GameState.RESIGNED and f.doubled:
                resumed = Phase.DOUBLED
                beavers = int(1 - f.turn == f.dice_owner)  # the doubler resigned a beaver
            elif f.game_state is GameState.DROPPED:
                beavers = int(f.turn == f.dice_owner)  # the doubler dropped a beaver
        elif f.doubled and f.resigned:
            # The player who had to answer the double resigned; turn is the other one.
            phase, resumed = Phase.RESIGNED, Phase.DOUBLED
            if f.turn != f.dice_owner:
                beavers = 1  # the doubler resigned instead of answering a beaver
        elif f.doubled:
            phase = Phase.DOUBLED
            if f.turn == f.dice_owner:
                beavers = 1  # the doubler must answer: a beaver is pending (as gnubg holds it)
        elif f.resigned:
            phase, resumed = Phase.RESIGNED, Phase.MOVE if f.dice else Phase.ROLL
            if f.turn == f.dice_owner:
                raise MatchError("the ID's turn bit is the resigning player")
        else:
            phase = Phase.MOVE if f.dice else Phase.ROLL
            if f.turn != f.dice_owner:
                raise MatchError("the ID's turn and dice owner differ with nothing pending")
        return cls._resume(
            cls._checked_state(
                rules=rules,
                position=position,
                phase=phase,
                on_roll=on_roll,
                dice=f.dice,
                cube_value=f.cube_value,
                cube_owner=f.cube_owner,
                beavers=beavers,
                resigned=f.resigned if phase in (Phase.RESIGNED, Phase.OVER) else 0,
                resumed=resumed,
                score=f.score,
                crawford=f.crawford,
                end_reason=_END_REASONS.get(f.game_state, EndReason.PLAYED),
            ),
            dice,
        )

    @classmethod
    def from_xgid(
        cls, text: str, *, rules: Rules | None = None, dice: DiceSource | None = None
    ) -> Match:
        """A match resumed from an XGID (``rules`` may add raccoons or automatic doubles)."""
        x = parse_xgid(text)
        length = x.match_length or None
        if rules is None:
            rules = Rules(
                match_length=length,
                jacoby=x.jacoby,
                beavers=x.beavers,
                max_cube=max(x.max_cube, x.cube_value),
            )
        elif rules.match_length != length:
            raise MatchError(f"the XGID's match length {x.match_length} disagrees with the rules")
        phase = Phase.DOUBLED if x.cube_action else Phase.MOVE if x.dice else Phase.ROLL
        if length is not None and max(x.score) >= length:
            phase = Phase.OVER  # an XGID has no game state: a won match is over
        return cls._resume(
            cls._checked_state(
                rules=rules,
                position=x.position,
                phase=phase,
                on_roll=x.on_roll,
                dice=x.dice,
                cube_value=x.cube_value,
                cube_owner=x.cube_owner,
                beavers="DBR".index(x.cube_action) if x.cube_action else 0,
                resigned=0,
                score=x.score,
                crawford=x.crawford,
            ),
            dice,
        )

    @classmethod
    def _checked_state(
        cls,
        *,
        rules: Rules,
        position: Position,
        phase: Phase,
        on_roll: int | None,
        dice: tuple[int, ...],
        cube_value: int,
        cube_owner: int | None,
        beavers: int,
        resigned: int,
        score: tuple[int, int],
        crawford: bool,
        end_reason: EndReason = EndReason.PLAYED,
        resumed: Phase | None = None,
    ) -> MatchState:
        n = rules.match_length
        if cube_value > rules.max_cube:
            raise MatchError(f"cube {cube_value} is over the maximum {rules.max_cube}")
        if crawford and (n is None or not rules.crawford):
            raise MatchError("a Crawford game needs a match played with the Crawford rule")
        if phase is Phase.OVER:
            winner = 0 if score[0] >= score[1] else 1
        else:
            winner = None
            if n is not None and max(score) >= n:
                raise MatchError("a score has reached the match length: the match is over")
            if phase is not Phase.OPENING and position.is_game_over():
                raise MatchError("the position is a finished game")
        if (beavers and not rules.beavers) or (beavers > 1 and not rules.raccoons):
            raise MatchError("a beaver or raccoon is pending but the rules do not allow it")
        if phase is Phase.MOVE and len(dice) != 2:
            raise MatchError("dice are needed to play")
        post = n is not None and rules.crawford and not crawford and (n - 1) in score and n > 1
        pair = (dice[0], dice[1]) if len(dice) == 2 else None
        state = MatchState(
            rules=rules,
            score=score,
            game_number=1,
            crawford_game=crawford,
            post_crawford=post,
            phase=phase,
            on_roll=on_roll,
            position=Position.initial() if phase is Phase.OPENING else position,
            dice=pair if phase in (Phase.MOVE, Phase.RESIGNED, Phase.OVER) else None,
            cube_value=cube_value,
            cube_owner=cube_owner,
            beavers=beavers,
            resigned=resigned if phase is Phase.RESIGNED else 0,
            resumed=resumed if phase in (Phase.RESIGNED, Phase.OVER) else None,
            winner=winner,
            last_end=(
                GameEnd(winner, 0, GameResult(resigned or 1), end_reason)
                if winner is not None
                else None
            ),
            games=((GameStart(1, score, crawford),),),
        )
        return state

    # ----------------------------------------------------------------------- replay
    @classmethod
    def replay(cls, record: MatchRecord, *, dice: DiceSource | None = None) -> Match:
        """Rebuild a match from its record, refusing any action the rules refuse."""
        if record.start is None:
            m = cls(rules=record.rules, dice=dice)
        else:
            m = cls._resume(record.start, dice)
        flat = list(record.actions())
        i = _count(m._s.games)
        if flat[:i] != list(m.record.actions()):
            raise ReplayError("the record does not begin as this match begins")
        m.extend(flat[i:])
        return m

    def extend(self, actions: Iterable[Action]) -> None:
        """Play recorded actions in order, checking that the match records exactly them
        (the automatic ones -- ``GameStart``, ``GameEnd``, an empty ``Play`` after a roll
        with no play, a ``Pass`` -- must appear where the match makes them).

        Raises :class:`ReplayError` and leaves the match as it was if any action is refused
        or the match records something else.
        """
        todo = list(actions)
        saved = self._s
        i = 0
        try:
            while i < len(todo):
                a = todo[i]
                start = _count(self._s.games)
                try:
                    self.apply(a)
                except ValueError as exc:  # MatchError and the board's move errors
                    raise ReplayError(f"action {i} ({a}) is refused: {exc}") from exc
                new = _tail(self._s.games, start)
                if new != todo[i : i + len(new)]:
                    raise ReplayError(f"after action {i} ({a}) the match differs from the record")
                i += len(new)
        except ReplayError:
            self._s = saved
            raise

    def apply(self, a: Action) -> None:
        """Make the action a record entry describes (its dice included); the automatic
        entries (``GameStart``, ``GameEnd``) are refused with :class:`IllegalActionError`."""
        if isinstance(a, OpeningRoll):
            self.roll((a.die0, a.die1))
        elif isinstance(a, Roll):
            self.roll(a.dice, player=a.player)
        elif isinstance(a, Play):
            self.move(a.move, player=a.player)
        elif isinstance(a, Double):
            self.double(player=a.player)
        elif isinstance(a, Take):
            self.take(player=a.player)
        elif isinstance(a, Drop):
            self.drop(player=a.player)
        elif isinstance(a, Beaver):
            self.beaver(player=a.player)
        elif isinstance(a, Raccoon):
            self.raccoon(player=a.player)
        elif isinstance(a, Resign):
            self.resign(a.level, player=a.player)
        elif isinstance(a, Accept):
            self.accept_resignation(player=a.player)
        elif isinstance(a, Reject):
            self.reject_resignation(player=a.player)
        elif isinstance(a, Pass):
            self.roll(player=a.player)  # a closed-out player who could have doubled
        else:
            raise IllegalActionError(f"{a} is recorded by the match itself, not played")

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
