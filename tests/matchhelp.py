"""Helpers for the match tests: a match set up at a given board, and whole-state snapshots."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from backgammon import Move, Position
from backgammon.play.dice import FixedDice
from backgammon.play.match import Match
from backgammon.play.rules import Rules


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


def random_position(seed: int, plies: int) -> Position:
    """The position after up to ``plies`` random legal plays from the start (seeded)."""
    rng = random.Random(seed)
    pos = Position.initial()
    for _ in range(plies):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        moves = pos.legal_moves(dice)
        nxt = pos.play(rng.choice(moves)) if moves else pos.play(Move())
        if nxt.is_game_over():
            break
        pos = nxt
    return pos


def act(m: Match, rng: random.Random, *, resign_weight: float = 0.05) -> None:
    """One random legal action (resignations kept rare so that games get played out)."""
    acts = m.legal_actions()
    weights = [resign_weight if a in ("resign", "accept") else 1.0 for a in acts]
    a = rng.choices(acts, weights)[0]
    if a == "move":
        moves = m.legal_moves()
        m.move(rng.choice(moves) if moves else Move())
    elif a == "resign":
        m.resign(rng.choice(["single", "gammon", "backgammon"][m.state.declined :]))
    elif a == "accept":
        m.accept_resignation()
    elif a == "reject":
        m.reject_resignation()
    else:
        getattr(m, a)()


def refused(m: Match, action: object, exc: type[Exception]) -> None:
    """``action()`` raises ``exc`` and the match is exactly as it was."""
    before = snapshot(m)
    with pytest.raises(exc):
        action()  # type: ignore[operator]
    assert snapshot(m) == before
