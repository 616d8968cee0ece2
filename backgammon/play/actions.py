"""The one action value and its one dispatch: an :class:`Act` is what a player does (its kind
as :func:`legal_actions` names it, with the dice, play or level it needs); :func:`step`
makes it on a state, :func:`apply` an act or a record entry read as the act it records, and
:func:`extend` a record's entries in order, checking the match records exactly them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from backgammon.core.values import GameResult, Move, short_repr
from backgammon.play.dice import DiceSource
from backgammon.play.record import (
    Accept,
    Action,
    Beaver,
    Double,
    Drop,
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
from backgammon.play.state import (
    ActionKind,
    IllegalActionError,
    MatchState,
    Phase,
    ReplayError,
    accept_resignation,
    beaver,
    double,
    drop,
    move,
    raccoon,
    reject_resignation,
    resign,
    roll,
    take,
)

__all__ = [
    "Act",
    "act_of",
    "apply",
    "entries_since",
    "entry_count",
    "extend",
    "kind_of",
    "step",
    "thrown",
]

Played = Move | str | Sequence[Sequence[int]]
"""A play as an act carries it: a play from ``legal_moves``, its steps, or its notation."""


@dataclass(frozen=True, repr=False)
class Act:
    """What a player does, the one action every face builds (a bot, the web, the terminal,
    the environments, a file): its ``kind`` (a :func:`legal_actions` name) for ``player``
    (None: the player to act); a roll's ``dice`` (None: thrown from the match's dice
    source), a move's ``move``, a resignation's ``level``.  Checked when it is made."""

    kind: ActionKind
    move: Played | None = None
    player: int | None = None
    dice: Sequence[int] | None = None
    level: str | int | GameResult = "single"

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", kind_of(self.kind))
        if isinstance(self.dice, list):  # a value: equal acts compare equal
            object.__setattr__(self, "dice", tuple(self.dice))
        if isinstance(self.move, list):
            steps = tuple(tuple(s) if isinstance(s, list) else s for s in self.move)
            object.__setattr__(self, "move", steps)

    def __repr__(self) -> str:
        shown = [repr(self.kind)]
        for name, default in (("move", None), ("player", None), ("dice", None)):
            if getattr(self, name) != default:
                shown.append(f"{name}={getattr(self, name)!r}")
        if self.kind is ActionKind.RESIGN:
            shown.append(f"level={self.level!r}")
        return f"Act({', '.join(shown)})"


def kind_of(kind: ActionKind | str) -> ActionKind:
    """The kind named ``kind``; :class:`IllegalActionError` for anything else."""
    try:
        return ActionKind(kind)
    except ValueError:
        raise IllegalActionError(f"not an action: {short_repr(kind)}") from None


_ANSWERS: dict[ActionKind, Callable[..., MatchState]] = {
    ActionKind.DOUBLE: double,
    ActionKind.TAKE: take,
    ActionKind.DROP: drop,
    ActionKind.BEAVER: beaver,
    ActionKind.RACCOON: raccoon,
    ActionKind.ACCEPT: accept_resignation,
    ActionKind.REJECT: reject_resignation,
}


def step(s: MatchState, a: Act, source: DiceSource | None = None) -> MatchState:
    """The state after ``a``: the one place an action changes a match, whoever chose it.  A
    roll without dice throws from ``source``."""
    if not isinstance(a, Act):
        raise IllegalActionError(f"not an action: {short_repr(a, 80)}")
    k = a.kind
    if k is ActionKind.ROLL:
        return roll(s, a.dice, player=a.player, source=source)[0]
    if k is ActionKind.MOVE:
        return move(s, Move() if a.move is None else a.move, player=a.player)
    if k is ActionKind.RESIGN:
        return resign(s, a.level, player=a.player)
    return _ANSWERS[k](s, player=a.player)


_AUTOMATIC = (GameStart, GameEnd)
_ENTRY_KINDS: dict[type, ActionKind] = {
    Double: ActionKind.DOUBLE,
    Take: ActionKind.TAKE,
    Drop: ActionKind.DROP,
    Beaver: ActionKind.BEAVER,
    Raccoon: ActionKind.RACCOON,
    Accept: ActionKind.ACCEPT,
    Reject: ActionKind.REJECT,
}


def act_of(s: MatchState, e: Action) -> Act:
    """The act a record entry records at ``s``, with the dice it records (none are thrown);
    the automatic entries (``GameStart``, ``GameEnd``) and anything that is not a record
    entry are refused with :class:`IllegalActionError`."""
    if isinstance(e, OpeningRoll):
        return Act(ActionKind.ROLL, dice=(e.die0, e.die1))
    if isinstance(e, Roll):
        return Act(ActionKind.ROLL, dice=e.dice, player=e.player)
    if isinstance(e, Play):
        return Act(ActionKind.MOVE, e.move, player=e.player)
    if isinstance(e, Resign):
        return Act(ActionKind.RESIGN, player=e.player, level=e.level)
    if isinstance(e, Pass):
        # Made by roll() for a closed-out player who could have doubled (R13).
        if s.phase is not Phase.ROLL or not s.position.is_closed_out:
            raise IllegalActionError(f"{e}: the player on roll is not closed out (R13)")
        return Act(ActionKind.ROLL, player=e.player)
    if isinstance(e, _AUTOMATIC):
        raise IllegalActionError(f"{e} is recorded by the match itself, not played")
    kind = _ENTRY_KINDS.get(type(e))
    if kind is not None:
        return Act(kind, player=e.player)
    raise IllegalActionError(f"not a record entry: {short_repr(e, 80)}")


def apply(s: MatchState, a: Act | Action, source: DiceSource | None = None) -> MatchState:
    """The state after ``a``: an :class:`Act`, or a record entry made as the act it
    records (:func:`act_of`)."""
    return step(s, a if isinstance(a, Act) else act_of(s, a), source)


def thrown(entries: Iterable[Action]) -> tuple[int, int] | None:
    """The throw a roll's record entries hold (an opening roll's as (die0, die1)); None
    when the roll was a pass (R13)."""
    for e in entries:
        if isinstance(e, OpeningRoll):
            return (e.die0, e.die1)
        if isinstance(e, Roll):
            return e.dice
    return None


def extend(s: MatchState, actions: Iterable[Action]) -> MatchState:
    """The state after recorded actions, checking that the match records exactly them (the
    automatic ones must appear where the match makes them); :class:`ReplayError` for any
    input that does not replay so."""
    if isinstance(actions, (str, bytes)) or not isinstance(actions, Iterable):
        raise ReplayError(f"actions are record entries in order, not {short_repr(actions, 80)}")
    todo = list(actions)
    i = 0
    while i < len(todo):
        a = todo[i]
        start = entry_count(s)
        try:
            s = step(s, act_of(s, a))
        except ValueError as exc:  # MatchError and the board's move and dice errors
            raise ReplayError(f"action {i} ({short_repr(a, 80)}) is refused: {exc}") from exc
        new = entries_since(s, start)
        if new != todo[i : i + len(new)]:
            raise ReplayError(
                f"after action {i} ({short_repr(a, 80)}) the match differs from the record"
            )
        i += len(new)
    return s


def entry_count(s: MatchState) -> int:
    """How many entries the record of ``s`` holds, over all its games."""
    return sum(len(g) for g in s.games)


def entries_since(s: MatchState, start: int) -> list[Action]:
    """The record entries of ``s`` from the flat index ``start`` on (what was added since
    the record held ``start`` entries)."""
    out: list[Action] = []
    seen = 0
    for g in s.games:
        if seen + len(g) > start:
            out.extend(g[max(0, start - seen) :])
        seen += len(g)
    return out
