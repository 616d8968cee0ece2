"""The compiled children of many rolls (backgammon.evaluation.children) against the rules core.

:func:`child_boards` must give, for every board and roll, exactly the boards of
``Position.legal_moves`` turned into boards by ``after_boards_many``, in the same order
(choosing among equal plays keeps the first, so the order is part of the result): on every
roll of positions from games gnubg played, on bear-offs, on blocked positions where the
maximum-dice and larger-die rules (R9) decide, and on any legal arrangement (hypothesis).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from gnubg_reference import bearoff_cases, blocked_cases, played_game_cases
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import any_positions, played_positions

from backgammon import Position
from backgammon.core.values import DiceError
from backgammon.evaluation.children import child_boards
from backgammon.evaluation.encode import after_boards_many

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def _check(cases: list[tuple[Position, int, int]]) -> int:
    """Assert the kernel equals the core on ``cases``; gives the number of rows compared."""
    boards = [pos.board for pos, _, _ in cases]
    dice = [(d1, d2) for _, d1, d2 in cases]
    want, want_counts = after_boards_many(
        boards, [p.legal_moves(d) for p, d in zip((pos for pos, _, _ in cases), dice, strict=True)]
    )
    got, counts = child_boards(boards, dice)
    assert counts.tolist() == want_counts.tolist()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    return len(got)


def test_games_gnubg_played_every_roll() -> None:
    """Positions met in gnubg's own games (with some random plays), all 21 rolls each."""
    positions = [pos for pos, _, _ in itertools.islice(played_game_cases(10**6, seed=41), 3000)]
    cases = [(pos, a, b) for pos in positions for a, b in ROLLS]
    assert _check(cases) > 500_000


def test_bearoffs_and_blocked_positions() -> None:
    """R14-R15 (bearing off, a larger die from the highest point) and R9 (as many dice as
    can be played, the larger when only one can)."""
    cases = list(bearoff_cases(3000, seed=42))
    cases += [(pos, a, b) for pos in blocked_cases(500, seed=43) for a, b in ROLLS]
    _check(cases)
    # Many of them play one die only: the rules that decide them were met.
    single = sum(1 for p, a, b in cases if any(len(m) == 1 for m in p.legal_moves((a, b))))
    assert single > 100


@settings(max_examples=300, deadline=None)
@given(st.one_of(any_positions(), played_positions()))
def test_any_position_every_roll(pos: Position) -> None:
    """Any legal arrangement, checkers on the bar and borne off included."""
    if pos.outcome() is None:
        _check([(pos, a, b) for a, b in ROLLS])


def test_lost_turn_is_the_board_turned_round() -> None:
    """No legal play (R9): one row, the same board seen by the opponent."""
    b = [0] * 26
    b[25] = 2  # two on the bar against a closed board (R12)
    for p in range(19, 25):
        b[p] = -2
    b[0] = -3
    got, counts = child_boards([b], [(6, 5)])
    assert counts.tolist() == [1]
    assert got[0].tolist() == [-x for x in reversed(b)]


@pytest.mark.parametrize("dice", [[(0, 3)], [(7, 1)], [(3, -1)]])
def test_dice_outside_one_to_six(dice: list[tuple[int, int]]) -> None:
    with pytest.raises(DiceError):
        child_boards([Position.initial().board], dice)


def test_a_board_beyond_fifteen_checkers_a_point() -> None:
    with pytest.raises(ValueError, match="15 checkers"):
        child_boards([[0] * 24 + [16, 0]], [(3, 1)])


def test_one_roll_a_board() -> None:
    with pytest.raises(ValueError, match="2 boards but 1 rolls"):
        child_boards([Position.initial().board] * 2, [(3, 1)])
