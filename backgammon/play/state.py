"""A match as one frozen value, and its transitions: each action is a function from a
:class:`MatchState` to the next one (rules R3-R4, R10, R13, R19-R33).

Every transition checks everything first and raises a specific :class:`MatchError` (all are
``ValueError`` subclasses; a bad play raises the board's move errors, bad dice
:class:`~backgammon.core.values.DiceError`) before making anything.
:class:`backgammon.play.match.Match` holds one state and the dice, and documents the
conventions shared with gnubg.

>>> s = new_match(Rules(match_length=3))
>>> s, throw = roll(s, (3, 1))
>>> s = move(s, "8/5 6/5")
>>> s.turn, legal_actions(s)
(1, ['roll', 'double', 'resign'])
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from backgammon.core.position import Position
from backgammon.core.turn import EntryError, TurnEntry
from backgammon.core.values import GameResult, IllegalMoveError, Move, short_repr
from backgammon.play.dice import DiceError, DiceSource, check_dice
from backgammon.play.record import (
    Accept,
    Action,
    Beaver,
    Double,
    Drop,
    EndReason,
    GameEnd,
    GameStart,
    OpeningRoll,
    Pass,
    Play,
    Raccoon,
    Reject,
    Resign,
    Roll,
    Take,
)
from backgammon.play.rules import Rules

__all__ = [
    "ActionKind",
    "CubeError",
    "IllegalActionError",
    "MatchError",
    "MatchOverError",
    "MatchState",
    "NotYourTurnError",
    "Phase",
    "ReplayError",
    "ResignationError",
    "accept_resignation",
    "beaver",
    "double",
    "drop",
    "legal_actions",
    "legal_moves",
    "may_double",
    "move",
    "new_match",
    "raccoon",
    "reject_resignation",
    "resign",
    "roll",
    "take",
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


# ------------------------------------------------------------------------------ state
class Phase(enum.StrEnum):
    """Where the current game stands."""

    OPENING = "opening"  # before the opening roll (no one on roll yet)
    ROLL = "roll"  # the player on roll may double, resign or roll
    MOVE = "move"  # the dice are rolled: play them (or resign)
    DOUBLED = "doubled"  # a double (or beaver, raccoon) awaits an answer
    RESIGNED = "resigned"  # a resignation awaits an answer
    OVER = "over"  # the match has been won


class ActionKind(enum.StrEnum):
    """The kinds of action :func:`legal_actions` lists."""

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


def new_match(rules: Rules) -> MatchState:
    """A match (or money session) to be played under ``rules``: its first game begins."""
    return _new_game(MatchState(rules=rules), first=True)


# ------------------------------------------------------------------------------ reading
def legal_moves(s: MatchState) -> list[Move]:
    """The legal plays of the dice (empty unless the dice are rolled and not played).  A roll
    with no play is played at once (R10), except in a state resumed from an ID: there the
    one legal play is the empty one, as gnubg's bare ``move``."""
    if s.phase is not Phase.MOVE or s.dice is None:
        return []
    return s.position.legal_moves(s.dice) or [Move()]


def may_double(s: MatchState, player: int | None = None) -> bool:
    """True when ``player`` (default: the player to act) may double now (R23-R29)."""
    p = s.turn if player is None else player
    return p is not None and _double_refusal(s, p) is None


def legal_actions(s: MatchState) -> list[ActionKind]:
    """What the player to act may do now."""
    ph = s.phase
    if ph is Phase.OPENING:
        return [ActionKind.ROLL]
    if ph is Phase.ROLL:
        out = [ActionKind.ROLL]
        if may_double(s):
            out.append(ActionKind.DOUBLE)
        return [*out, ActionKind.RESIGN] if s.declined < 3 else out
    if ph is Phase.MOVE:
        if s.declined < 3:
            return [ActionKind.MOVE, ActionKind.RESIGN]
        return [ActionKind.MOVE]
    if ph is Phase.DOUBLED:
        out = [ActionKind.TAKE, ActionKind.DROP]
        if _beaver_refusal(s) is None:
            out.append(ActionKind.BEAVER)
        if _raccoon_refusal(s) is None:
            out.append(ActionKind.RACCOON)
        return [*out, ActionKind.RESIGN] if s.declined < 3 else out
    if ph is Phase.RESIGNED:
        return [ActionKind.ACCEPT, ActionKind.REJECT]
    return []


# ------------------------------------------------------------------------------ checks
def _actor(s: MatchState, player: int | None, what: str) -> int:
    """The player who must act, checked against ``player``; refuses after the match."""
    if s.phase is Phase.OVER:
        raise MatchOverError(f"the match is over (won by player {s.winner}); cannot {what}")
    if player is not None and (
        isinstance(player, bool) or not isinstance(player, int) or player not in (0, 1)
    ):
        raise MatchError(f"players are 0 and 1, not {short_repr(player)}")
    turn = s.turn
    if turn is None:
        if player is None:
            return -1
        return player
    if player is not None and player != turn:
        raise NotYourTurnError(f"it is player {turn}'s turn to act, not player {player}'s")
    return turn


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


def _raccoon_refusal(s: MatchState) -> str | None:
    r = s.rules
    if s.phase is not Phase.DOUBLED or s.beavers != 1:
        return "a raccoon answers a beaver, and there is none to answer (R32)"
    if not r.raccoons:
        return "raccoons are not allowed by these rules (R32)"
    if s.cube_value * 4 > r.max_cube:
        return f"a raccoon would take the cube over its maximum ({r.max_cube}, R26)"
    return None


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
        raise ResignationError(
            f"resign 'single', 'gammon' or 'backgammon', not {short_repr(level)}"
        )
    if isinstance(level, bool) or not isinstance(level, int) or level not in (1, 2, 3):
        raise ResignationError(f"resignation level must be 1-3, got {short_repr(level)}")
    return GameResult(level)


# ------------------------------------------------------------------------------ actions
def roll(
    s: MatchState,
    dice: Sequence[int] | None = None,
    *,
    player: int | None = None,
    source: DiceSource | None = None,
) -> tuple[MatchState, tuple[int, int] | None]:
    """The opening roll or the roll of the player on roll, with ``dice`` or a throw of
    ``source``; the new state and the throw (None for a pass, R13).  See
    :meth:`backgammon.play.match.Match.roll`."""
    p = _actor(s, player, "roll")
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
        return _next_turn(_append(s, Pass(p))), None  # numbers given are not used (R13)
    if given is not None:
        throw = given
    elif source is not None:
        throw = check_dice(source.roll())
    else:
        raise DiceError("no dice were given and there is no source to throw them")
    if s.phase is Phase.OPENING:
        return _opening(s, throw), throw
    s = _append(s, Roll(p, throw))
    s = replace(s, phase=Phase.MOVE, dice=throw)
    if not s.position.legal_moves(throw):
        s = _after_play(s, p, Move())
    return s, throw


def move(
    s: MatchState,
    play: Move | str | Sequence[Sequence[int]],
    *,
    player: int | None = None,
) -> MatchState:
    """Play the rolled dice: a legal play, its steps, or its notation."""
    p = _actor(s, player, "move")
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
        if chosen not in legal_moves(s):  # steps in another order, or several dice in one
            chosen = _entered(s.position, s.dice, chosen)
    return _after_play(s, p, chosen)


def _entered(position: Position, dice: tuple[int, int], steps: Move) -> Move:
    """The steps entered through the turn entry, so each uses one of the dice (R5-R17)."""
    entry = TurnEntry(position, dice)
    try:
        for src, dst, _hit in steps:
            entry.add(src, dst)
    except EntryError as exc:
        raise IllegalMoveError(f"{steps} is not a legal play of {dice[0]}{dice[1]}: {exc}") from exc
    if entry.move is None:
        raise IllegalMoveError(f"{steps} is not a whole legal play of {dice[0]}{dice[1]} (R9)")
    return Move(entry.steps)


def double(s: MatchState, *, player: int | None = None) -> MatchState:
    """Offer the cube at twice its value (R23-R29)."""
    p = _actor(s, player, "double")
    why = _double_refusal(s, p)
    if why is not None:
        raise CubeError(why)
    s = _append(s, Double(p, s.cube_value * 2))
    return replace(s, phase=Phase.DOUBLED, beavers=0)


def take(s: MatchState, *, player: int | None = None) -> MatchState:
    """Accept the pending offer: the cube doubles and changes hands (R24-R25, R32)."""
    p = _actor(s, player, "take")
    if s.phase is not Phase.DOUBLED or s.on_roll is None:
        raise CubeError("there is no double to take")
    value = s.cube_value * 2
    # A plain double gives the cube to the taker; a beaver or a raccoon keeps it with the
    # player who made it (R32).
    owner = p if s.beavers == 0 else 1 - p
    s = _append(s, Take(p, value))
    s = replace(s, phase=Phase.ROLL, cube_value=value, cube_owner=owner, beavers=0)
    return _start_turn(s)


def drop(s: MatchState, *, player: int | None = None) -> MatchState:
    """Pass the pending offer: the other player scores the value before it (R24)."""
    p = _actor(s, player, "drop")
    if s.phase is not Phase.DOUBLED:
        raise CubeError("there is no double to drop")
    s = _append(s, Drop(p))
    return _end_game(s, GameEnd(1 - p, s.cube_value, GameResult.SINGLE, EndReason.DROPPED))


def beaver(s: MatchState, *, player: int | None = None) -> MatchState:
    """Redouble at once while keeping the cube (money play, R32)."""
    p = _actor(s, player, "beaver")
    why = _beaver_refusal(s)
    if why is not None:
        raise CubeError(why)
    s = _append(s, Beaver(p, s.cube_value * 4))
    return replace(s, cube_value=s.cube_value * 2, cube_owner=p, beavers=1)


def raccoon(s: MatchState, *, player: int | None = None) -> MatchState:
    """Answer a beaver by redoubling again, keeping the cube (money play, R32)."""
    p = _actor(s, player, "raccoon")
    why = _raccoon_refusal(s)
    if why is not None:
        raise CubeError(why)
    s = _append(s, Raccoon(p, s.cube_value * 4))
    return replace(s, cube_value=s.cube_value * 2, cube_owner=p, beavers=2)


def resign(
    s: MatchState, level: str | int | GameResult = "single", *, player: int | None = None
) -> MatchState:
    """Offer to resign a single, gammon or backgammon (R21), before or after rolling or
    instead of answering a double."""
    p = _actor(s, player, "resign")
    lvl = _level(level)
    if s.phase not in (Phase.ROLL, Phase.MOVE, Phase.DOUBLED):
        raise ResignationError(f"cannot resign now ({s.phase})")
    if lvl <= s.declined:
        raise ResignationError(
            f"a {GameResult(s.declined).name.lower()} was just declined: offer more or play on"
        )
    s = _append(s, Resign(p, lvl))
    return replace(s, phase=Phase.RESIGNED, resigned=int(lvl), resumed=s.phase)


def accept_resignation(s: MatchState, *, player: int | None = None) -> MatchState:
    """Accept the opponent's resignation: the game ends at the level offered x the cube."""
    p = _actor(s, player, "accept a resignation")
    if s.phase is not Phase.RESIGNED:
        raise ResignationError("there is no resignation to accept")
    lvl = GameResult(s.resigned)
    s = _append(s, Accept(p))
    # What was offered is what is scored, Jacoby or not (as gnubg scores it).
    points = int(lvl) * s.cube_value
    return _end_game(s, GameEnd(p, points, lvl, EndReason.RESIGNED))


def reject_resignation(s: MatchState, *, player: int | None = None) -> MatchState:
    """Reject the opponent's resignation: play goes on where it stopped."""
    p = _actor(s, player, "reject a resignation")
    if s.phase is not Phase.RESIGNED:
        raise ResignationError("there is no resignation to reject")
    declined = s.resigned
    s = _append(s, Reject(p))
    phase = s.resumed or (Phase.MOVE if s.dice else Phase.ROLL)
    return replace(s, phase=phase, resigned=0, resumed=None, declined=declined)


# ------------------------------------------------------------------------------ flow
def _append(s: MatchState, action: Action) -> MatchState:
    games = s.games
    declined = s.declined if isinstance(action, Resign) else 0
    return replace(s, games=(*games[:-1], (*games[-1], action)), declined=declined)


def _points(s: MatchState, result: GameResult) -> int:
    r = s.rules
    base = int(result)
    if r.is_money and r.jacoby and s.cube_owner is None:
        base = 1  # R31: gammons count as singles until the cube is turned
    return base * s.cube_value


def _new_game(s: MatchState, *, first: bool = False) -> MatchState:
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


def _opening(s: MatchState, throw: tuple[int, int]) -> MatchState:
    d0, d1 = throw
    s = _append(s, OpeningRoll(d0, d1))
    if d0 == d1:
        r = s.rules
        if r.is_money and s.auto_doubles < r.automatic_doubles and s.cube_value * 2 <= r.max_cube:
            s = replace(s, cube_value=s.cube_value * 2, auto_doubles=s.auto_doubles + 1)
        return s  # R3: thrown again
    return replace(s, phase=Phase.MOVE, on_roll=0 if d0 > d1 else 1, dice=(d0, d1))


def _after_play(s: MatchState, p: int, play: Move) -> MatchState:
    s = _append(s, Play(p, play))
    after = s.position.play(play)
    outcome = after.outcome()
    s = replace(s, position=after, on_roll=1 - p, dice=None, phase=Phase.ROLL)
    if outcome is not None:
        # The player who just moved is the only one who can have borne off the last
        # checker; ``after`` is seen from the opponent.
        end = GameEnd(p, _points(s, outcome.result), outcome.result, EndReason.PLAYED)
        return _end_game(s, end)
    return _start_turn(s)


def _next_turn(s: MatchState) -> MatchState:
    """After a pass without a roll: the opponent's turn begins."""
    assert s.on_roll is not None
    s = replace(s, position=s.position.flip(), on_roll=1 - s.on_roll, dice=None)
    return _start_turn(s)


def _start_turn(s: MatchState) -> MatchState:
    """A turn begins: a closed-out player with no cube choice passes at once (R13)."""
    assert s.on_roll is not None
    if s.position.is_closed_out and _double_refusal(s, s.on_roll) is not None:
        if s.position.flip().is_closed_out:  # no game reaches this (IDs are refused); no loop
            return s
        return _next_turn(_append(s, Pass(s.on_roll)))
    return s


def _end_game(s: MatchState, end: GameEnd) -> MatchState:
    score = list(s.score)
    score[end.winner] += end.points
    sc = (score[0], score[1])
    s = _append(s, end)
    # The dice stay as they were (a resignation may come after the roll): gnubg keeps them
    # in the final state of a match; the next game starts without dice.
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
    return _new_game(s)
