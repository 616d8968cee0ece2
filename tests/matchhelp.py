"""Helpers for the match tests: a match set up at a given board, and whole-state snapshots."""

from __future__ import annotations

from collections.abc import Sequence

from backgammon import Position
from backgammon.dice import FixedDice
from backgammon.match import Match
from backgammon.rules import Rules


def board(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    """A position from the mover's side: ``mover`` maps our points (25 = bar) to counts,
    ``opponent`` maps the opponent's points *from the opponent's own side* (25 = its bar)."""
    b = [0] * 26
    for p, n in mover.items():
        b[p] += n
    for q, n in opponent.items():
        b[0 if q == 25 else 25 - q] -= n
    return Position(b)


def match_at(
    pos: Position,
    *,
    on_roll: int = 1,
    rules: Rules | None = None,
    cube: int = 1,
    owner: int | None = None,
    score: tuple[int, int] = (0, 0),
    crawford: bool = False,
    dice: Sequence[tuple[int, int]] = (),
) -> Match:
    """A match at ``pos`` (seen from ``on_roll``), that player to roll, built through an XGID."""
    rules = rules if rules is not None else Rules()
    length = rules.match_length or 0
    flags = int(crawford) if length else int(rules.jacoby) | int(rules.beavers) << 1
    cp = {None: 0, 1: 1, 0: -1}[owner]
    text = (
        f"XGID={pos.xgid_position(bottom_on_roll=on_roll == 1)}:{cube.bit_length() - 1}:{cp}:"
        f"{1 if on_roll == 1 else -1}:00:{score[1]}:{score[0]}:{flags}:{length}:"
        f"{rules.max_cube.bit_length() - 1}"
    )
    m = Match.from_xgid(text, rules=rules, dice=FixedDice(dice))
    assert m.position == pos and m.turn == on_roll
    return m


def snapshot(m: Match) -> tuple[object, ...]:
    """Everything observable about a match, to compare before and after a refused action."""
    return (
        m.state,
        m.record,
        m.gnubg_id(),
        m.xgid(),
        tuple(m.legal_actions()),
        tuple(m.legal_moves()),
    )
