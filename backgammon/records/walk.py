"""One walk of a match record: :func:`walk` drives a :class:`~backgammon.play.match.Match`
through a :class:`~backgammon.play.record.MatchRecord` once and hands every entry, in order,
to each :class:`Visitor` (python-chess's ``pgn.read_game(..., Visitor=)``): analysis, the
review's log, the web replay's steps and the writers read one walk instead of a replay each.

>>> from backgammon.play.match import Match
>>> class Count(Visitor):
...     def __init__(self) -> None:
...         self.made = 0
...     def visit_step(self, match: Match, step: Action) -> None:
...         self.made += 1
>>> m = Match(length=1)
>>> m.roll(dice=(3, 1))
(3, 1)
>>> m.move("8/5 6/5")
>>> count = Count()
>>> walk(m.record, count).position == m.position, count.made
(True, 2)
"""

from __future__ import annotations

from backgammon.core.values import short_repr
from backgammon.play.actions import entries_since
from backgammon.play.dice import FixedDice
from backgammon.play.match import Match, ReplayError
from backgammon.play.record import Action, GameEnd, GameStart, MatchRecord, Pass, Play

__all__ = ["Visitor", "start_of", "steps_made", "walk"]


class Visitor:
    """What a walk hands each entry to; every method does nothing unless overridden.

    The entries a player makes come to :meth:`visit_step` before they are made; those the
    match makes by itself come after it made them: :meth:`begin_game` (``GameStart``),
    :meth:`visit_automatic` (an empty play, a pass) and :meth:`end_game` (``GameEnd``).
    """

    def begin_game(self, match: Match, start: GameStart) -> None:
        """A game has begun; ``match`` stands at its start."""

    def visit_step(self, match: Match, step: Action) -> None:
        """A player is about to make ``step``; ``match`` stands before it."""

    def visit_automatic(self, match: Match, step: Play | Pass) -> None:
        """The match made ``step`` by itself (an empty play, a pass); ``match`` stands after."""

    def end_game(self, match: Match, end: GameEnd) -> None:
        """A game is over; ``match`` stands after it (the next game begun, or the match over)."""

    def end(self, match: Match) -> None:
        """The walk is over; ``match`` is the record's match."""


def start_of(record: MatchRecord) -> Match:
    """The match a record begins with (from the state it resumed from, if any), throwing no
    dice: every throw comes from the record."""
    quiet = FixedDice(())
    if record.start is None:
        return Match(rules=record.rules, dice=quiet)
    return Match.from_state(record.start, dice=quiet)


def steps_made(record: MatchRecord) -> int:
    """How many entries of ``record`` are neither a game's start or end, an empty play nor a
    pass (what the match may make by itself): the length of a walk's progress."""
    return sum(
        1
        for a in record.actions()
        if not isinstance(a, GameStart | GameEnd) and not _automatic_kind(a)
    )


def _automatic_kind(a: Action) -> bool:
    """An empty play or a pass may be the match's own; the walk tells which as it goes."""
    return (isinstance(a, Play) and not a.move) or isinstance(a, Pass)


def walk(record: MatchRecord, *visitors: Visitor) -> Match:
    """Drive a Match through ``record`` once, handing each entry to ``visitors`` in order;
    the match at the end.  Anything the rules refuse, or an entry where the match records
    something else, raises :class:`~backgammon.play.match.ReplayError`."""
    m = start_of(record)
    flat = list(record.actions())
    i = sum(len(g) for g in m.record.games)
    if flat[:i] != list(m.record.actions()):
        raise ReplayError("the record does not begin as this match begins")
    for a in flat[:i]:
        _hand_automatic(visitors, m, a)
    while i < len(flat):
        a = flat[i]
        if isinstance(a, GameStart | GameEnd):
            raise ReplayError(f"entry {i} ({short_repr(a, 80)}) comes where the match makes none")
        for v in visitors:
            v.visit_step(m, a)
        try:
            m.apply(a)
        except ValueError as exc:  # the match's refusals and the board's move errors
            raise ReplayError(f"entry {i} ({short_repr(a, 80)}) is refused: {exc}") from exc
        made = entries_since(m.state, i)
        if made != flat[i : i + len(made)]:
            raise ReplayError(f"after entry {i} ({short_repr(a, 80)}) the match differs")
        for b in flat[i + 1 : i + len(made)]:  # the record's own (a pass keeps its dice)
            _hand_automatic(visitors, m, b)
        i += len(made)
    for v in visitors:
        v.end(m)
    return m


def _hand_automatic(visitors: tuple[Visitor, ...], m: Match, a: Action) -> None:
    """Hand an entry the match made itself to the visitor's method for it."""
    for v in visitors:
        if isinstance(a, GameStart):
            v.begin_game(m, a)
        elif isinstance(a, GameEnd):
            v.end_game(m, a)
        elif isinstance(a, Play | Pass):
            v.visit_automatic(m, a)
        else:  # pragma: no cover - the match makes no other entry by itself
            raise ReplayError(f"the match made {short_repr(a, 80)} by itself")
