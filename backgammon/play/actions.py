"""The one dispatch of an action: :func:`act` makes an action of a kind (a bot's, the web's,
a file's), :func:`apply` a record entry through it, :func:`extend` a record's entries in
order, checking the match records exactly them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

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

__all__ = ["act", "apply", "entries_since", "entry_count", "extend"]


_ANSWERS: dict[ActionKind, Callable[..., MatchState]] = {
    ActionKind.DOUBLE: double,
    ActionKind.TAKE: take,
    ActionKind.DROP: drop,
    ActionKind.BEAVER: beaver,
    ActionKind.RACCOON: raccoon,
    ActionKind.ACCEPT: accept_resignation,
    ActionKind.REJECT: reject_resignation,
}


def act(
    s: MatchState,
    kind: ActionKind | str,
    *,
    player: int | None = None,
    dice: Sequence[int] | None = None,
    play: Move | str | Sequence[Sequence[int]] | None = None,
    level: str | int | GameResult = "single",
    source: DiceSource | None = None,
) -> MatchState:
    """Make the action of ``kind`` (as :func:`legal_actions` names it) for ``player``
    (default: the player to act): the one dispatch of an action, whoever chose it (a bot,
    the web, a file, a record).  A roll uses ``dice`` or throws from ``source``; ``play``
    is a move's, ``level`` a resignation's."""
    try:
        k = ActionKind(kind)
    except ValueError:
        raise IllegalActionError(f"not an action: {short_repr(kind)}") from None
    if k is ActionKind.ROLL:
        return roll(s, dice, player=player, source=source)[0]
    if k is ActionKind.MOVE:
        return move(s, Move() if play is None else play, player=player)
    if k is ActionKind.RESIGN:
        return resign(s, level, player=player)
    return _ANSWERS[k](s, player=player)


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


def apply(s: MatchState, a: Action) -> MatchState:
    """Make the action a record entry describes (through :func:`act`), with the dice it
    records (none are thrown); the automatic entries (``GameStart``, ``GameEnd``) and
    anything that is not a record entry are refused with :class:`IllegalActionError`."""
    if isinstance(a, OpeningRoll):
        return act(s, ActionKind.ROLL, dice=(a.die0, a.die1))
    if isinstance(a, Roll):
        return act(s, ActionKind.ROLL, dice=a.dice, player=a.player)
    if isinstance(a, Play):
        return act(s, ActionKind.MOVE, play=a.move, player=a.player)
    if isinstance(a, Resign):
        return act(s, ActionKind.RESIGN, level=a.level, player=a.player)
    if isinstance(a, Pass):
        # Made by roll() for a closed-out player who could have doubled (R13).
        if s.phase is Phase.ROLL and not s.position.is_closed_out:
            raise IllegalActionError(f"{a}: the player on roll is not closed out (R13)")
        return act(s, ActionKind.ROLL, player=a.player)
    if isinstance(a, _AUTOMATIC):
        raise IllegalActionError(f"{a} is recorded by the match itself, not played")
    kind = _ENTRY_KINDS.get(type(a))
    if kind is not None:
        return act(s, kind, player=a.player)
    raise IllegalActionError(f"not a record entry: {short_repr(a, 80)}")


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
            s = apply(s, a)
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
