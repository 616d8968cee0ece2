"""Laws of the rules core, checked by hypothesis on positions from random games."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import any_positions, played_positions

from backgammon import Position
from backgammon.core.values import CHECKERS

dice_st = st.tuples(st.integers(1, 6), st.integers(1, 6))


@settings(max_examples=300, deadline=None)
@given(any_positions())
def test_ids_round_trip(pos: Position) -> None:
    assert Position.from_position_id(pos.position_id()) == pos
    assert Position.from_simple(pos.simple()) == pos
    assert Position.from_xgid(pos.xgid_position()) == pos
    assert Position.from_xgid(pos.xgid_position(bottom_on_roll=False) + ":0:0:-1:00") == pos
    assert Position.from_arrays(*pos.arrays()) == pos
    assert pos.flip().flip() == pos
    assert hash(Position(pos.board)) == hash(pos)


def _checkers(pos: Position) -> tuple[int, int]:
    b = pos.board
    on = sum(x for x in b if x > 0), -sum(x for x in b if x < 0)
    return on[0] + pos.off[0], on[1] + pos.off[1]


@settings(max_examples=300, deadline=None)
@given(played_positions(), dice_st)
def test_plays_conserve_checkers_and_use_the_dice(pos: Position, dice: tuple[int, int]) -> None:
    d1, d2 = dice
    full = [d1] * 4 if d1 == d2 else [d1, d2]
    results = set()
    for move in pos.legal_moves(dice):
        after = pos.play(move)
        results.add(after)
        assert _checkers(after) == (CHECKERS, CHECKERS)
        assert len(move) <= len(full)
        # Each step is one die: exactly its number of pips, or less when bearing off (R15).
        left = list(full)
        for s, t, _ in move:
            exact = s - t
            die = exact if exact in left else min((d for d in left if d > exact), default=None)
            assert die is not None and (die == exact or t == 0), move
            left.remove(die)
    assert len(results) == len(pos.legal_moves(dice))  # one play per distinct result


@settings(max_examples=300, deadline=None)
@given(played_positions(), dice_st)
def test_bearing_off_only_when_all_home(pos: Position, dice: tuple[int, int]) -> None:
    for move in pos.legal_moves(dice):
        b = list(pos.board)
        for s, t, _ in move:
            if t == 0:
                assert all(x <= 0 for x in b[7:]), move  # R14
            b[s] -= 1
            if t:
                b[t] = 1 if b[t] == -1 else b[t] + 1


@settings(max_examples=200, deadline=None)
@given(played_positions(), dice_st)
def test_notation_round_trip(pos: Position, dice: tuple[int, int]) -> None:
    for move in pos.legal_moves(dice):
        assert pos.play(pos.parse_move(str(move), dice)) == pos.play(move)
